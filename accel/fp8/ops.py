"""FP8 Linear layers inside ComfyUI: the runtime configuration of one loaded model and the custom operations
(a comfy.ops.manual_cast subclass) whose Linear runs an FP8 matmul or dequantizes its weight per layer."""
from __future__ import annotations

from dataclasses import dataclass, field

import torch

from ...kernels import fp8_linear as kfp8
from ...kernels.tracing import is_compiling as _compiling
from .. import comfy_compat
from ..common import log
from ..common.errors import AccelError, current_title, oom_cause, out_of_memory
from ..common.policy import Policy


@dataclass
class FP8Runtime:
    """Shared by every Linear of one loaded model (a class attribute of its operations)."""

    source: str = "(state dict)"
    title: str | None = field(default_factory=current_title)  # the node title errors raised later name
    input_name: str = "unet_name"
    mode: str = "dequant"  # "scaled_mm_rowwise" | "scaled_mm_tensorwise" | "dequant"
    fast: bool = False  # FP8 matmul enabled (turned off after a failure)
    use_fast_accum: bool = True
    policy: Policy = Policy.FALL_BACK
    allow_cpu: bool = False  # tests: run the scaled_mm path on CPU (torch has CPU kernels)
    loaded: set = field(default_factory=set)  # layers whose fp8 weight (and scale) our Linear took
    # torch's (missing_keys, unexpected_keys) lists of the model's load_state_dict call, the ones ComfyUI
    # only logs as "unet missing/unexpected" (see check_keys)
    load_keys: tuple | None = None
    calls: dict = field(default_factory=lambda: {"fp8": 0, "dequant": 0})
    # layer -> (values clipped, values) when weight patches (LoRAs) were baked into its fp8 weight with its scale
    saturated: dict = field(default_factory=dict)


def saturation_text(saturated: dict) -> str:
    clipped = sum(n for n, _ in saturated.values())
    total = sum(t for _, t in saturated.values())
    worst = sorted(saturated, key=lambda k: -saturated[k][0] / max(1, saturated[k][1]))[:3]
    return (f"{clipped} of {total} weight values in {len(saturated)} patched layer(s) exceed the FP8 range of their "
            f"scale by more than rounding and were clipped (most in {', '.join(f'{k} ({saturated[k][0]})' for k in worst)}): the LoRA or "
            "weight patch is as large as the weights, so its effect is cut. Lower its strength, or load the model "
            "from a bf16 file with weight_format 'keep as stored'")


def _note_saturation(rt: FP8Runtime, layer: str, clipped: int, total: int) -> None:
    if clipped:
        rt.saturated[layer] = (clipped, total)
        log.warn_once(("fp8", "saturated", rt.source), "%s: %s", rt.source,
                      saturation_text({layer: (clipped, total)}) + " (one line per model: further layers are "
                      "counted, not logged)")
    else:
        rt.saturated.pop(layer, None)


def _fast_failed(rt: FP8Runtime, err: Exception, layer: str):
    msg = (f"FP8 matmul failed for layer {layer} of {rt.source} ({type(err).__name__}: {err}); "
           f"this model now dequantizes its weights per layer instead")
    if rt.policy is Policy.ERROR:
        raise AccelError("compute", msg, "Set compute to 'dequantize' or turn strict off", title=rt.title) from err
    rt.fast = False
    log.warn_once(("fp8", "fast_failed", rt.source, type(err).__name__), msg)


def sampling_out_of_memory(rt: FP8Runtime, err: Exception, device, layer: str):
    """Out of memory in a layer of a model the FP8 loader loaded, while sampling (not compiled: Accel Compile names its
    own): torch's out-of-memory class with the remedies (ComfyUI unloads all models, so the next prompt runs). The FP8
    matmul stays on: running out of memory is not an FP8 failure. An H100 run showed the bare torch message."""
    log.warning("%s: out of memory in layer %s while sampling; FP8 stays on for the next prompt", rt.source, layer)
    return out_of_memory(err, f"while sampling with '{rt.source}' (layer {layer}; its weights are FP8)", device, [
        "lower the resolution, the frame count (length) or the batch size",
        "start ComfyUI with --reserve-vram <GB> (ComfyUI then keeps that much VRAM free for sampling and offloads more "
        "of the weights)",
        "close other programs that use the GPU",
    ], note="The FP8 weights already take half the memory of fp16/bf16; the activations of this prompt did not fit",
        title=rt.title)


def apply_weight_fn(f, w):
    """Run a per-forward weight function on the dequantized (true-valued) weight. ComfyUI's
    LowVramPatch is applied through comfy.lora.calculate_weight directly: its 0.3.75 form would convert
    and requantize the weight itself (it expects the raw stored values), its 0.33 form does not."""
    patches = getattr(f, "patches", None)
    key = getattr(f, "key", None)
    if isinstance(patches, dict) and key is not None and key in patches:
        import comfy.lora

        prepared = getattr(f, "prepared_patches", None)
        return comfy.lora.calculate_weight(prepared if prepared is not None else patches[key], w, key,
                                           intermediate_dtype=w.dtype)
    return f(w)


def make_operations(rt: FP8Runtime, manual_cast: bool = True):
    """ComfyUI custom operations (pass as model_options["custom_operations"]): an FP8-aware Linear
    (a comfy.ops.manual_cast.Linear: it always casts its weight per forward) beside ComfyUI's other
    operations, from comfy.ops.manual_cast when the model needs casting (weights stored in another dtype
    than the compute dtype, as ComfyUI itself decides) or comfy.ops.disable_weight_init otherwise, so
    norms and convolutions run exactly as in a stock model.

    Every loaded model gets its own operations object, but all share ONE Linear class (`_linear_class`);
    each layer carries its model's FP8Runtime as the instance attribute `accel_fp8_runtime`. A class per
    model would make torch.compile guard on it (dynamo checks the type of every module it inlines), so the
    second Wan 2.2 A14B expert, loaded separately, would recompile every block instead of reusing the code
    compiled for the first (tests/compile/test_lora_compile_fp8.py)."""
    import comfy.ops as ops

    linear_cls = _linear_class()
    base = ops.manual_cast if manual_cast else ops.disable_weight_init

    def make_linear(*args, **kwargs):
        m = linear_cls(*args, **kwargs)
        m.accel_fp8_runtime = rt
        return m

    class AccelFP8Ops(base):
        Linear = staticmethod(make_linear)

    AccelFP8Ops.accel_fp8_runtime = rt
    return AccelFP8Ops


_LINEAR_CLASS: list = []


def _linear_class():
    """The FP8-aware Linear, created once per process (see make_operations)."""
    if _LINEAR_CLASS:
        return _LINEAR_CLASS[0]
    import comfy.float
    import comfy.model_management as mm
    import comfy.ops as ops

    cast_bias_weight = ops.cast_bias_weight
    uncast = comfy_compat.uncast_bias_weight()

    class Linear(ops.manual_cast.Linear):
        accel_fp8_runtime = None  # this layer's model's FP8Runtime (set on each instance by make_operations)

        def reset_parameters(self):
            self.register_parameter("weight_scale", None)
            return None

        # -- loading -------------------------------------------------------------------------
        def _load_from_state_dict(self, state_dict, prefix, local_metadata, strict, missing_keys,
                                  unexpected_keys, error_msgs):
            rt = self.accel_fp8_runtime
            rt.load_keys = (missing_keys, unexpected_keys)  # shared by every module of this load
            wkey, skey = prefix + "weight", prefix + "weight_scale"
            w = state_dict.pop(wkey, None)
            s = state_dict.pop(skey, None)
            if w is not None:
                layer = prefix[:-1]
                if tuple(w.shape) != (self.out_features, self.in_features):
                    raise AccelError(rt.input_name,
                                     f"'{rt.source}': tensor '{wkey}' has shape {tuple(w.shape)} but the model "
                                     f"expects ({self.out_features}, {self.in_features})",
                                     "The file does not match the model ComfyUI detected; it is damaged or mixes two models",
                                     title=rt.title)
                if kfp8.is_fp8(w):
                    s = torch.ones((), dtype=torch.float32) if s is None else s
                    self.weight_scale = torch.nn.Parameter(s.to(device=w.device, dtype=torch.float32), requires_grad=False)
                    rt.loaded.add(layer)
                else:
                    self.weight_scale = None
                self.weight = torch.nn.Parameter(w, requires_grad=False)
            super()._load_from_state_dict(state_dict, prefix, local_metadata, strict, missing_keys,
                                          unexpected_keys, error_msgs)
            if w is not None:
                for k in (wkey, skey):
                    if k in missing_keys:
                        missing_keys.remove(k)

        # -- LoRA / weight patches: true values in, requantized with the same scale out ---------
        def convert_weight(self, weight, inplace=False, **kwargs):
            if self.weight_scale is None:
                return weight
            if inplace and weight.is_floating_point() and not kfp8.is_fp8(weight):
                weight *= self.weight_scale.to(device=weight.device, dtype=weight.dtype)
                return weight
            return weight.to(torch.float32) * self.weight_scale.to(device=weight.device, dtype=torch.float32)

        def set_weight(self, weight, inplace_update=False, seed=None, return_weight=False, **kwargs):
            seed = 0 if seed is None else seed
            if self.weight_scale is None:
                w = comfy.float.stochastic_rounding(weight, self.weight.dtype, seed=seed)
            else:
                s = self.weight_scale.to(device=weight.device, dtype=torch.float32)
                q = weight.to(torch.float32) / s
                # values beyond the fp8 range of this scale are clipped by the rounding: count them (a LoRA as
                # large as the weights), so that the loss is said, not silent. Overshoots within about half an
                # fp8 step of the maximum (any LoRA that grows a row's largest weight a little) are rounding noise
                top = kfp8.fp8_max(self.weight.dtype) * (1.0 + 2.0 ** (-4 if self.weight.dtype == kfp8.E4M3 else -3))
                _note_saturation(self.accel_fp8_runtime, getattr(self, "_accel_name", "?"),
                                 int((q.abs() > top).sum()), q.numel())
                w = comfy.float.stochastic_rounding(q, self.weight.dtype, seed=seed)
            if return_weight:
                return w
            if inplace_update:
                self.weight.data.copy_(w)
            else:
                self.weight = torch.nn.Parameter(w, requires_grad=False)

        # -- forward ---------------------------------------------------------------------------
        def _weight_fns(self):
            fns = list(self.weight_function)
            lv = getattr(self, "weight_lowvram_function", None)  # ComfyUI 0.33 DynamicVRAM
            if lv is not None:
                fns.insert(0, lv)
            return fns

        def forward_comfy_cast_weights(self, input, *args, **kwargs):
            if self.weight_scale is None or _compiling():  # compiled: Accel Compile names an out-of-memory error
                return self._accel_forward(input, *args, **kwargs)
            try:
                return self._accel_forward(input, *args, **kwargs)
            except Exception as e:  # noqa: BLE001 - only out of memory is turned into the loader's error
                if oom_cause(e) is None or getattr(oom_cause(e), "remedy", None):
                    raise
                raise sampling_out_of_memory(self.accel_fp8_runtime, e, input.device,
                                             getattr(self, "_accel_name", "?")) from e

        def _accel_forward(self, input, *args, **kwargs):
            if self.weight_scale is None:
                return super().forward_comfy_cast_weights(input, *args, **kwargs)
            rt = self.accel_fp8_runtime
            fns = self._weight_fns()
            if not fns and rt.fast and (input.device.type != "cpu" or rt.allow_cpu):
                ok, why = kfp8.scaled_mm_supported(input, self.weight)
                if ok:
                    w8, bias, stream = cast_bias_weight(self, input, dtype=self.weight.dtype,
                                                        bias_dtype=input.dtype, offloadable=True)
                    try:
                        out = kfp8.fp8_linear(input, w8, self.weight_scale, bias, rt.mode, rt.use_fast_accum)
                        if not _compiling():  # a counter read while tracing is a guard: one recompile per call
                            rt.calls["fp8"] += 1
                        return out
                    except Exception as e:  # unsupported by this GPU/torch build: dequantize instead
                        if oom_cause(e) is not None:  # out of memory is no FP8 matmul failure: no fallback
                            raise
                        _fast_failed(rt, e, getattr(self, "_accel_name", "?"))
                    finally:
                        if uncast is not None:
                            uncast(self, w8, bias, stream)
                else:
                    log.warn_once(("fp8", "unsupported_layer", rt.source, why),
                                  f"FP8 matmul skipped for some layers of {rt.source}: {why}; they dequantize per layer")
            if not _compiling():
                rt.calls["dequant"] += 1
            if not fns:
                w8, bias, stream = cast_bias_weight(self, input, dtype=self.weight.dtype,
                                                    bias_dtype=input.dtype, offloadable=True)
                try:
                    return torch.nn.functional.linear(input, kfp8.dequantize(w8, self.weight_scale, input.dtype), bias)
                finally:
                    if uncast is not None:
                        uncast(self, w8, bias, stream)
            # Weight functions (LoRA in lowvram mode, hooks) act on the true weight values.
            dev = input.device
            nb = mm.device_supports_non_blocking(dev)
            w8 = mm.cast_to(self.weight, None, dev, non_blocking=nb, copy=False)
            w = kfp8.dequantize(w8, self.weight_scale, input.dtype)
            for f in fns:
                w = apply_weight_fn(f, w)
            bias = None
            if self.bias is not None:
                bias = mm.cast_to(self.bias, input.dtype, dev, non_blocking=nb, copy=bool(self.bias_function))
                for f in self.bias_function:
                    bias = f(bias)
            return torch.nn.functional.linear(input, w.to(input.dtype), bias)

        def extra_repr(self):
            text = super().extra_repr()
            if self.weight_scale is not None:
                gran = "per-tensor" if self.weight_scale.numel() == 1 else "per-channel"
                text += f", {str(self.weight.dtype).replace('torch.', '')} {gran}"
            return text

    Linear.__qualname__ = "AccelFP8Linear"
    _LINEAR_CLASS.append(Linear)
    return Linear


def is_accel_linear(module) -> bool:
    return isinstance(getattr(module, "accel_fp8_runtime", None), FP8Runtime) and isinstance(module, torch.nn.Linear)
