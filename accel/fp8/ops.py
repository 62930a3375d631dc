"""FP8 Linear layers inside ComfyUI: the runtime configuration of one loaded model and the custom operations
(a comfy.ops.manual_cast subclass) whose Linear runs an FP8 matmul or dequantizes its weight per layer.

LoRA beside the FP8 matmul (the low-rank path). Where a LoRA stays a per-forward weight function (ComfyUI 0.33's
DynamicVRAM `weight_lowvram_function`, lowvram / partial loads on every version: a `LowVramPatch`), ComfyUI's own
way is to patch the whole weight on every call (`comfy.lora.calculate_weight`: W + s * up @ down), which here also
means dequantizing the fp8 weight and giving up the FP8 matmul. When every patch of a layer is a plain low-rank
LoRA (ComfyUI's `LoRAAdapter` without mid / DoRA / reshape, no offset, no patch function, strength_model 1) the
layer instead runs its normal path on the stored fp8 weight (the FP8 matmul, or the dequantized weight where FP8
compute is off) and adds sum_i strength_i * alpha_i / rank_i * (x @ down_i^T) @ up_i^T. The factors are concatenated
once (the scales folded into `up`), cast to the compute device and dtype, and cached on the layer; the cache key is
the patch set (each patch's strength, alpha and its up/down tensors, held by weak reference, and the weight
functions themselves), so a strength change, another LoRA or a reload rebuilds it, and the cache is dropped as soon
as ComfyUI lets go of the weight functions or the LoRA tensors (unpatch, another LoRA) and when ComfyUI unloads the
model (`drop_lora_caches`, on the patcher's ON_DETACH: ComfyUI 0.33's DynamicVRAM keeps the weight functions on the
layers through an unload, and the factors of a 14B expert's rank-32 LoRA stayed allocated, 0.58 GiB for two experts:
bench/results/h200/fp8_stored_033_interleaved/README.md): no device memory is held for an unloaded model. For a
CUDA device the concatenated factors are also kept in pinned host memory while the LoRA tensors live, so the rebuild
at each model load is an asynchronous copy, not a wait per layer. Numerically the
LoRA term is computed in the compute dtype (16-bit on a GPU) beside the FP8 matmul instead of being added to the
dequantized weight (ComfyUI's lowvram path) or rounded into the fp8 weight (a full load): the same sum in another
order, with the LoRA no longer subject to fp8 rounding. Any other patch (a full `diff`, LoHa, LoKr, DoRA, hooks,
weight wrappers) keeps the dense path, logged once per reason; bias patches (`diff_b`) are applied as ComfyUI
applies them in both paths. Compiled blocks (Accel Compile, Wan Level-1) get the factors from the block fetcher
(accel.compile.stream) as the instance attribute `accel_lora`, so the graph sees two tensors, not the patch
objects: one graph for every block and strength. `FP8Runtime.calls` counts `lora_lowrank` / `lora_dense` layer
calls (the after-run report says which path ran)."""
from __future__ import annotations

import weakref
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
    # layer calls per path: "fp8" / "dequant" (the matmul), and for layers with a LoRA weight function
    # "lora_lowrank" (LoRA beside the matmul) / "lora_dense" (the whole weight patched per call)
    calls: dict = field(default_factory=lambda: {"fp8": 0, "dequant": 0, "lora_lowrank": 0, "lora_dense": 0})
    # why layers took the "lora_dense" path (the after-run report lists them)
    lora_dense_why: set = field(default_factory=set)
    # why the LoRA factors could not be kept in pinned host memory ("" = they were, or no LoRA): then their copy to the
    # GPU at each model load waits for the GPU at every layer (accel.fp8.ops._device_factors; the after-run report)
    lora_unpinned: str = ""
    # layer -> (values clipped, values) when weight patches (LoRAs) were baked into its fp8 weight with its scale
    saturated: dict = field(default_factory=dict)


def saturation_text(saturated: dict) -> str:
    clipped = sum(n for n, _ in saturated.values())
    total = sum(t for _, t in saturated.values())
    worst = sorted(saturated, key=lambda k: -saturated[k][0] / max(1, saturated[k][1]))[:3]
    return (f"{clipped} of {total} weight values in {len(saturated)} patched layer(s) exceed the FP8 range of their "
            "scale by more than rounding and were clipped (most in "
            f"{', '.join(f'{k} ({saturated[k][0]})' for k in worst)}): the LoRA or weight patch is as large as the "
            "weights, so its effect is cut. Lower its strength, or load the model from a bf16 file with weight_format "
            "'keep as stored'")


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


# --- LoRA beside the FP8 matmul (see the module docstring) -----------------------------------------------------

def _lora_adapter_class():
    try:
        from comfy.weight_adapter.lora import LoRAAdapter
    except ImportError:  # a ComfyUI without weight adapters: no patch is recognised as low-rank
        return None
    return LoRAAdapter


def plain_lora_terms(fns, out_features: int, in_features: int):
    """[(up, down, scale)] of every patch the weight functions `fns` apply, when all are plain low-rank LoRAs on
    the whole weight (read from the patcher's own patch list, never from ComfyUI 0.33's per-call prepared copies);
    else the reason (a str) why the layer keeps the dense path."""
    adapter = _lora_adapter_class()
    out = []
    for f in fns:
        patches, key = getattr(f, "patches", None), getattr(f, "key", None)
        if not isinstance(patches, dict) or key is None or key not in patches:
            return "a weight function that is no LoRA patch (a hook or weight wrapper)"
        for p in patches[key]:
            if not isinstance(p, tuple) or len(p) != 5:
                return "a patch in an unknown form"
            strength, v, strength_model, offset, function = p
            if function is not None:
                return "a patch with a function"
            if offset is not None:
                return "a patch on part of the weight (offset)"
            if strength_model != 1.0:
                return "a patch with strength_model != 1"
            if adapter is None or type(v) is not adapter:
                name = getattr(v, "name",
                               None) or (v[0] if isinstance(v, tuple) and len(v) == 2 and isinstance(v[0], str)
                                                     else "diff")
                return f"a '{name}' patch (not a low-rank LoRA)"
            up, down, alpha, mid, dora_scale, reshape = v.weights
            if mid is not None:
                return "a LoRA with a mid (Tucker) factor"
            if dora_scale is not None:
                return "a DoRA LoRA (dora_scale)"
            if reshape is not None:
                return "a LoRA that reshapes the weight"
            if not (isinstance(up, torch.Tensor) and isinstance(down, torch.Tensor) and up.ndim == 2 and down.ndim == 2
                    and up.shape[0] == out_features and down.shape[1] == in_features and up.shape[1] == down.shape[0]):
                return "a LoRA whose factors do not match the layer's shape"
            rank = down.shape[0]
            out.append((up, down, float(strength) * (float(alpha) / rank if alpha is not None else 1.0)))
    return out


_LORA_CACHE = "_accel_lora_cache"


def drop_lora_caches(model) -> None:
    """Drop the LoRA factors cached on every layer of `model` (the next call rebuilds them: from pinned memory on a
    GPU)."""
    for m in model.modules():
        m.__dict__.pop(_LORA_CACHE, None)


def _drop_cache(layer_ref, dead):
    def callback(_ref):
        layer = layer_ref()
        c = None if layer is None else layer.__dict__.get(_LORA_CACHE)
        if c is not None and c[2] is dead:
            del layer.__dict__[_LORA_CACHE]
    return callback


# the factors of one set of LoRA tensors on the host, pinned: {key: (weak refs to the tensors, scales, (down, up))}; one
# entry per tensor set and dtype (a strength change replaces it: a strength sweep holds one copy, not one per
# strength), gone with its LoRA tensors (another LoRA, the LoRA'd model dropped)
_HOST_FACTORS: dict = {}


def _concat(terms, device, dtype):
    down = torch.cat([d.to(device=device, dtype=torch.float32) for _, d, _ in terms], dim=0).to(dtype)
    up = torch.cat([u.to(device=device, dtype=torch.float32) * s for u, _, s in terms], dim=1).to(dtype)
    return down.contiguous(), up.contiguous()


def _host_factors(terms, dtype):
    """The concatenated factors of `terms` (LoRA tensors on the host) in pinned host memory, built once per set of
    LoRA tensors and strengths (a new strength replaces the copy) and kept while the tensors live: ComfyUI rebuilds
    its weight functions at every model load (0.33's DynamicVRAM: every sampling run), and building the device factors
    from pageable host tensors made the host wait for the GPU at every layer of every such run (two copies that
    synchronize the stream per layer: bench/results/h100/wf_lightx2v_033, --sync-sites). From pinned memory the copy
    to the device is asynchronous."""
    tensors = tuple(t for u, d, _ in terms for t in (u, d))
    scales = tuple(s for _, _, s in terms)
    key = (tuple(id(t) for t in tensors), dtype)
    hit = _HOST_FACTORS.get(key)
    if hit is not None and hit[1] == scales and all(r() is t for r, t in zip(hit[0], tensors, strict=True)):
        return hit[2]
    down, up = _concat(terms, "cpu", dtype)
    factors = (down.pin_memory(), up.pin_memory())

    def drop(_ref, key=key, factors=factors):
        got = _HOST_FACTORS.get(key)
        if got is not None and got[2] is factors:
            del _HOST_FACTORS[key]

    try:
        _HOST_FACTORS[key] = (tuple(weakref.ref(t, drop) for t in tensors), scales, factors)
    except TypeError:  # a tensor that takes no weak reference: not kept
        pass
    return factors


def _device_factors(layer, terms, dev, dtype):
    """The factors on `dev`, copied without a wait from their pinned host copy (`_host_factors`). Where pinned memory
    cannot be had (the system's page-locked limit, a driver refusing it) they are built from the host tensors with a
    wait per layer, as before: the same values, slower; logged once and said in the after-run report."""
    rt = getattr(layer, "accel_fp8_runtime", None)
    if rt is not None and rt.lora_unpinned:  # pinning failed for this model already: not tried again per layer
        return _concat(terms, dev, dtype)
    try:
        down, up = _host_factors(terms, dtype)
    except RuntimeError as e:
        why = str(e).splitlines()[0][:160] if str(e) else type(e).__name__
        if rt is not None:
            rt.lora_unpinned = why
        log.warn_once(("fp8", "lora_unpinned", getattr(rt, "source", "?")),
                      f"{getattr(rt, 'source', 'FP8 model')}: the LoRA factors could not be kept in pinned memory "
                      f"({why}); they are copied to the GPU with a wait per layer at each model load (same result, "
                      "slower). Free system memory or raise the locked-memory limit (ulimit -l) and restart ComfyUI")
        return _concat(terms, dev, dtype)
    return down.to(dev, non_blocking=True), up.to(dev, non_blocking=True)


def lowrank_factors(layer, fns, device, dtype):
    """(down (R, in), up (out, R)) on `device` in `dtype`, every LoRA of `fns` concatenated with its scale folded
    into `up`, cached on `layer` per patch set; or the reason (a str) why the layer keeps the dense path. On a CUDA
    device, LoRA tensors on the host are concatenated once into pinned memory (`_host_factors`) and copied without a
    wait at each model load."""
    terms = plain_lora_terms(fns, layer.out_features, layer.in_features)
    if isinstance(terms, str):
        return terms
    if not terms:
        return "a weight function without patches"
    sig = (str(device), dtype, tuple(s for _, _, s in terms))
    srcs = tuple(fns) + tuple(t for u, d, _ in terms for t in (u, d))
    c = layer.__dict__.get(_LORA_CACHE)
    if c is not None and c[0] == sig and len(c[1]) == len(srcs) and all(
            r() is t for r, t in zip(c[1], srcs, strict=True)):
        return c[2]
    dev = torch.device(device)
    if dev.type == "cuda" and all(t.device.type == "cpu" for t in srcs[len(fns):]) and torch.cuda.is_available():
        factors = _device_factors(layer, terms, dev, dtype)
    else:
        factors = _concat(terms, device, dtype)
    cb = _drop_cache(weakref.ref(layer), factors)  # the cache dies with the weight functions or the LoRA tensors
    try:
        refs = tuple(weakref.ref(t, cb) for t in srcs)
    except TypeError:  # a weight function that takes no weak reference: rebuilt per call, never kept
        return factors
    layer.__dict__[_LORA_CACHE] = (sig, refs, factors)
    return factors


def lowrank_for(layer, fns, device, dtype):
    """`lowrank_factors`, with the dense fallback counted in the model's runtime and its reason logged once."""
    got = lowrank_factors(layer, fns, device, dtype)
    if isinstance(got, str):
        rt = layer.accel_fp8_runtime
        rt.calls["lora_dense"] += 1
        rt.lora_dense_why.add(got)
        log.info_once(("fp8", "lora_dense", rt.source, got),
                      f"{rt.source}: some layers patch their whole weight per call (no FP8 matmul) for {got}; plain "
                      f"LoRAs run beside the FP8 matmul")
        return None
    return got


def add_lowrank(out, x, factors):
    down, up = factors
    return out + torch.nn.functional.linear(torch.nn.functional.linear(x, down), up)


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
_ABSENT = object()


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
        # (down, up) LoRA factors for the duration of one compiled block call (accel.compile.stream), else None
        accel_lora = None

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
                                     "The file does not match the model ComfyUI detected; it is damaged or mixes two "
                                     "models",
                                     title=rt.title)
                if kfp8.is_fp8(w):
                    s = torch.ones((), dtype=torch.float32) if s is None else s
                    self.weight_scale = torch.nn.Parameter(s.to(device=w.device, dtype=torch.float32),
                                                           requires_grad=False)
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

        def lowrank_for(self, fns, device, dtype):
            """This layer's LoRA factors for `fns` (module function `lowrank_for`): what Accel Compile's block
            fetcher runs beside the FP8 matmul of a compiled block."""
            return lowrank_for(self, fns, device, dtype)

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
            lr = self.accel_lora
            if lr is not None:  # a compiled block: the fetcher gave us the stored weight and the LoRA factors
                return add_lowrank(self._matmul_forward(input, *args, **kwargs), input, lr)
            if not _compiling():
                fns = self._weight_fns()
                if fns:
                    lr = lowrank_for(self, fns, input.device, input.dtype)
                    if lr is not None:
                        hidden = self._hide_weight_fns()
                        try:
                            out = self._matmul_forward(input, *args, **kwargs)
                        finally:
                            self._restore_weight_fns(hidden)
                        self.accel_fp8_runtime.calls["lora_lowrank"] += 1
                        return add_lowrank(out, input, lr)
            return self._matmul_forward(input, *args, **kwargs)

        def _hide_weight_fns(self):
            """Hide the LoRA weight functions (eager only) so that ComfyUI's cast path hands over the stored
            weight; bias patches stay and are applied there, as in the dense path."""
            saved = (self.weight_function, self.__dict__.get("weight_lowvram_function", _ABSENT))
            self.weight_function = []
            if saved[1] is not _ABSENT:
                self.__dict__["weight_lowvram_function"] = None
            return saved

        def _restore_weight_fns(self, saved):
            self.weight_function = saved[0]
            if saved[1] is not _ABSENT:
                self.__dict__["weight_lowvram_function"] = saved[1]

        def _matmul_forward(self, input, *args, **kwargs):
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
                                  f"FP8 matmul skipped for some layers of {rt.source}: {why}; they dequantize per "
                                  "layer")
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
                w = comfy_compat.apply_weight_fn(f, w)
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


def after_run_lines(patcher) -> list[str]:
    """The lines the FP8 loader adds to a node's report after a sampling run (registered with
    accel.common.live_report by this package): for a model from the loader with a LoRA applied per call, which path
    its layers took, counted over the model's life (compiled blocks count the layers their fetcher prepared)."""
    try:
        rt = next((m.accel_fp8_runtime for m in patcher.model.diffusion_model.modules() if is_accel_linear(m)), None)
    except Exception:  # noqa: BLE001
        return []
    if rt is None:
        return []
    low, dense = rt.calls.get("lora_lowrank", 0), rt.calls.get("lora_dense", 0)
    if not (low or dense):
        return []
    why = f" ({'; '.join(sorted(rt.lora_dense_why))})" if dense and rt.lora_dense_why else ""
    out = [f"FP8 LoRA: {low} layer call(s) added the LoRA beside the FP8 weights (low-rank), {dense} patched the "
           f"whole weight per call (dense){why}"]
    if rt.lora_unpinned:
        out.append(f"FP8 LoRA: the factors could not be kept in pinned memory ({rt.lora_unpinned}): copied to the GPU "
                   "with a wait per layer at each model load (same result, slower)")
    return out
