"""FP8 diffusion models inside ComfyUI: loading every FP8 form, quantizing on load, FP8 matmuls, saving.

How a model is loaded (`load_file` / `load_state_dict`):
1. `fp8_formats.normalize` turns the file (bf16/fp16/fp32, scaled_fp8, _quantization_metadata,
   comfy_quant, plain fp8, per-channel weight_scale) into one canonical state dict and validates it.
2. ComfyUI's own `comfy.sd.load_diffusion_model_state_dict` builds the model with our custom
   operations (`make_operations`, a subclass of comfy.ops.manual_cast): every Linear stores its weight
   as given (fp8 + fp32 `weight_scale`, or high precision); everything else is ComfyUI's.
3. `accel.families.detect` names the family; `plan_layers` decides which Linears are quantized
   (transformer-block linears; embeddings, norms, modulation/adaLN and the head stay high
   precision, optionally also the first/last blocks); `finalize` quantizes / requantizes /
   dequantizes each Linear accordingly (on the GPU when there is one).

At run time a quantized Linear either calls `kernels.fp8.fp8_linear` (dynamic per-token activation
scales x per-channel weight scales through torch._scaled_mm, on GPUs with FP8 tensor cores; the
path comes from `accel.defaults.choose(profile).fp8_compute`) or dequantizes its weight per layer to
the compute dtype. Weights are fetched through comfy.ops.cast_bias_weight, so offloading/lowvram
work; `convert_weight`/`set_weight` make LoRA weight patches apply to the true (scaled) values and
requantize with ComfyUI's stochastic rounding; per-forward weight functions (LoRA in lowvram mode,
hooks) run on the dequantized weight.
"""
from __future__ import annotations

import fnmatch
import inspect
import os
import re
from dataclasses import dataclass, field

import torch

from ..kernels import fp8 as kfp8
from ..kernels.tracing import is_compiling as _compiling
from . import defaults, families, log
from . import fp8_formats as formats
from .errors import AccelError

NODE = "Accel Load Diffusion Model (FP8)"
SAVE_NODE = "Accel Save FP8 Model"

# --- user-facing options ---------------------------------------------------------------------------
FORMAT_AUTO = "auto"
FORMAT_KEEP = "keep as stored"
WEIGHT_FORMATS = {
    FORMAT_AUTO: None,
    "fp8_e4m3fn per-channel scaled": (kfp8.E4M3, True),
    "fp8_e4m3fn per-tensor scaled": (kfp8.E4M3, False),
    "fp8_e5m2 per-tensor scaled": (kfp8.E5M2, False),
    FORMAT_KEEP: None,
}
AUTO_TARGET = (kfp8.E4M3, True)  # what `auto` quantizes a bf16/fp16/fp32 file to

COMPUTE_AUTO = "auto"
COMPUTE_FP8 = "fp8 matmul"
COMPUTE_DEQUANT = "dequantize (bf16/fp16 matmul)"
COMPUTE_CHOICES = (COMPUTE_AUTO, COMPUTE_FP8, COMPUTE_DEQUANT)

KEEP_AUTO = "auto (per model family)"
KEEP_STANDARD = "embeddings, norms, modulation, head"
KEEP_FIRST_LAST = "standard + first & last block"
KEEP_FIRST_LAST_2 = "standard + first 2 & last 2 blocks"
KEEP_CHOICES = (KEEP_AUTO, KEEP_STANDARD, KEEP_FIRST_LAST, KEEP_FIRST_LAST_2)
_KEEP_EDGE = {KEEP_STANDARD: 0, KEEP_FIRST_LAST: 1, KEEP_FIRST_LAST_2: 2}

# Per-family `auto` choice with its reason. Families not listed use the standard rule.
_WAN_WHY = ("Wan: the block linears (self/cross attention, FFN) are quantized - the layers LightX2V's FP8 Wan "
            "scheme quantizes; embeddings, modulation and head stay high precision")
FAMILY_KEEP = {
    "wan21": (KEEP_STANDARD, _WAN_WHY),
    "wan22": (KEEP_STANDARD, _WAN_WHY),
    "flux": (KEEP_STANDARD, "Flux: double/single-block attention and MLP linears quantized; img_in/txt_in, time/guidance/vector "
                            "embedders, the *_mod modulation linears and final_layer stay high precision"),
    "qwen_image": (KEEP_STANDARD, "Qwen-Image: block attention and MLP linears quantized; img_in/txt_in, time_text_embed, "
                                  "img_mod/txt_mod modulation, norm_out and proj_out stay high precision"),
}

# Module lists that hold the transformer blocks, and path components that mark layers kept in high
# precision even inside a block (modulation / adaLN, norms, embedders, heads).
_BLOCK_RE = re.compile(r"(?:^|\.)(?:blocks|double_blocks|single_blocks|transformer_blocks|joint_blocks|layers|vace_blocks)\.\d+(?:\.|$)")
_KEEP_TOKEN_RE = re.compile(r"^(?:modulation|adaln.*|.*_mod|mod|norm.*|.*_norm|.*embed.*|time_.*|head|final_layer)$", re.I)


# --- runtime configuration of one loaded model ---------------------------------------------------------

@dataclass
class FP8Runtime:
    """Shared by every Linear of one loaded model (a class attribute of its operations)."""

    source: str = "(state dict)"
    node: str = NODE
    input_name: str = "unet_name"
    mode: str = "dequant"  # "scaled_mm_rowwise" | "scaled_mm_tensorwise" | "dequant"
    fast: bool = False  # FP8 matmul enabled (turned off after a failure)
    use_fast_accum: bool = True
    strict: bool = False
    allow_cpu: bool = False  # tests: run the scaled_mm path on CPU (torch has CPU kernels)
    loaded: set = field(default_factory=set)  # layers whose fp8 weight (and scale) our Linear took
    # torch's (missing_keys, unexpected_keys) lists of the model's load_state_dict call, the ones ComfyUI
    # only logs as "unet missing/unexpected" (see check_keys)
    load_keys: tuple | None = None
    calls: dict = field(default_factory=lambda: {"fp8": 0, "dequant": 0})


def _fast_failed(rt: FP8Runtime, err: Exception, layer: str):
    msg = (f"FP8 matmul failed for layer {layer} of {rt.source} ({type(err).__name__}: {err}); "
           f"this model now dequantizes its weights per layer instead")
    if rt.strict:
        raise AccelError(rt.node, "compute", msg, "Set compute to 'dequantize' or turn strict off") from err
    rt.fast = False
    log.warn_once(("fp8", "fast_failed", rt.source, type(err).__name__), msg)


def _apply_weight_fn(f, w):
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
    compiled for the first (tests/test_lora_compile_fp8.py)."""
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
    uncast = getattr(ops, "uncast_bias_weight", None)

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
                    raise AccelError(rt.node, rt.input_name,
                                     f"'{rt.source}': tensor '{wkey}' has shape {tuple(w.shape)} but the model "
                                     f"expects ({self.out_features}, {self.in_features})",
                                     "The file does not match the model ComfyUI detected; it is damaged or mixes two models")
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
                w = comfy.float.stochastic_rounding(weight.to(torch.float32) / s, self.weight.dtype, seed=seed)
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
                w = _apply_weight_fn(f, w)
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


# --- compute path ---------------------------------------------------------------------------------------

def resolve_compute(choice: str, profile, strict: bool = False) -> tuple[str, str]:
    """(path, reason) for the `compute` input. `auto` is the defaults table's fp8_compute."""
    d = defaults.choose(profile)
    if choice == COMPUTE_DEQUANT:
        return "dequant", "dequantize requested: weights stay FP8 in memory, matmuls run in the compute dtype"
    if choice == COMPUTE_AUTO:
        return d.fp8_compute, d.fp8_reason
    if choice == COMPUTE_FP8:
        if d.fp8_compute != "dequant":
            return d.fp8_compute, d.fp8_reason
        msg = f"FP8 matmul requested, but {d.fp8_reason}"
        if strict:
            raise AccelError(NODE, "compute", msg, "Set compute to 'auto' or 'dequantize', or turn strict off")
        log.warn_once(("fp8", "compute_unsupported", profile.gpu_name or profile.device_kind), msg + "; using dequantize")
        return "dequant", msg + "; using dequantize instead"
    raise AccelError(NODE, "compute", f"unknown choice '{choice}'", f"Use one of {', '.join(COMPUTE_CHOICES)}")


# --- which layers stay high precision ----------------------------------------------------------------------

@dataclass
class Plan:
    quantize: dict  # module name (relative to diffusion_model) -> bool, for every Linear
    choice: str
    reason: str
    kept: dict  # reason -> count of Linears kept high precision


def plan_layers(diffusion_model, family, keep: str = KEEP_AUTO, extra_keep: str = "") -> Plan:
    """Decide per Linear: quantize (True) or keep high precision (False)."""
    if keep == KEEP_AUTO:
        choice, reason = FAMILY_KEEP.get(family.family, (
            KEEP_STANDARD, f"{family.name}: transformer-block linears quantized; embeddings, norms, modulation/adaLN "
                           f"and output layers stay high precision"))
    elif keep in _KEEP_EDGE:
        choice, reason = keep, "chosen on the node"
    else:
        raise AccelError(NODE, "keep_high_precision", f"unknown choice '{keep}'", f"Use one of {', '.join(KEEP_CHOICES)}")
    edge = _KEEP_EDGE[choice]
    edge_blocks = set()
    if edge:
        keys = [k[len("diffusion_model."):] if k.startswith("diffusion_model.") else k for k in family.block_keys]
        edge_blocks = set(keys[:edge]) | set(keys[-edge:])
    patterns = [p.strip() for p in (extra_keep or "").replace(";", ",").replace("\n", ",").split(",") if p.strip()]
    quantize, kept = {}, {}
    for name, m in diffusion_model.named_modules():
        if not isinstance(m, torch.nn.Linear):
            continue
        why = None
        if not _BLOCK_RE.search(name):
            why = "outside the transformer blocks (embeddings, head)"
        elif any(_KEEP_TOKEN_RE.match(part) for part in name.split(".")):
            why = "modulation/norm/embedding layer"
        elif any(name == b or name.startswith(b + ".") for b in edge_blocks):
            why = "first/last block"
        elif any(fnmatch.fnmatchcase(name, p) for p in patterns):
            why = "extra_keep pattern"
        quantize[name] = why is None
        if why:
            kept[why] = kept.get(why, 0) + 1
    return Plan(quantize, choice, reason, kept)


# --- finalize: quantize / requantize / dequantize each Linear ---------------------------------------------

@dataclass
class Stats:
    quantized: int = 0  # quantized on load from high precision
    kept_fp8: int = 0  # fp8 as stored
    requantized: int = 0
    dequantized: int = 0  # fp8 layers turned high precision (kept layers)
    high_precision: int = 0
    formats: dict = field(default_factory=dict)  # "e4m3fn per-channel" -> count
    nonfinite: dict = field(default_factory=dict)  # tensor name (in the diffusion model) -> NaN/Inf values


def _fmt_key(w8, scale) -> str:
    dt = "e4m3fn" if w8.dtype == kfp8.E4M3 else "e5m2"
    return f"{dt} per-{'tensor' if scale.numel() == 1 else 'channel'}"


def _quant_device(t: torch.Tensor):
    if t.device.type != "cpu":
        return t.device
    try:
        import comfy.model_management as mm

        dev = mm.get_torch_device()
        return dev if torch.device(dev).type != "cpu" else t.device
    except Exception:
        return t.device


def count_nonfinite(t: torch.Tensor) -> int:
    """NaN/Inf values in a float tensor (fp8 by bit pattern: e4m3fn has NaN only, e5m2 Inf and NaN)."""
    if not t.is_floating_point():
        return 0
    if kfp8.is_fp8(t):
        mask = 0x7F if t.dtype == kfp8.E4M3 else 0x7C
        return int(((t.view(torch.uint8) & mask) == mask).sum())
    ok = torch.isfinite(t)
    return 0 if bool(ok.all()) else int((~ok).sum())


def _listing(names, counts=None, show: int = 8) -> str:
    items = [f"{n} ({counts[n]})" if counts else n for n in names[:show]]
    return ", ".join(items) + (f" and {len(names) - show} more" if len(names) > show else "")


def check_keys(dm, rt: FP8Runtime, source: str, model_name: str, node: str, input_name: str) -> None:
    """Tensors the model needs but the file lacks (they would stay uninitialised memory: NaN on one run,
    other garbage on the next), or tensors the model does not have: an error naming them. Uses torch's
    own missing/unexpected lists of ComfyUI's load_state_dict call (ComfyUI only logs them). Missing
    buffers are not counted: models compute those themselves."""
    if rt.load_keys is None:
        return
    missing, unexpected = rt.load_keys
    params = {n for n, _ in dm.named_parameters()}
    missing = sorted({k for k in missing if k in params})
    unexpected = sorted(set(unexpected))
    problems = []
    if missing:
        problems.append(f"{len(missing)} tensor(s) the model needs are missing from the file: {_listing(missing)}")
    if unexpected:
        problems.append(f"it has {len(unexpected)} tensor(s) the model does not have: {_listing(unexpected)}")
    if problems:
        raise AccelError(node, input_name, f"'{source}' does not match the model ComfyUI detected in it ({model_name}): "
                         + "; ".join(problems),
                         "The file is incomplete or damaged: download it again, or use the original checkpoint")


def nonfinite_tensors(dm, skip=()) -> dict:
    """{name: NaN/Inf count} over the parameters and buffers of `dm` not named in `skip`."""
    out = {}
    for name, t in list(dm.named_parameters()) + list(dm.named_buffers()):
        if name not in skip:
            n = count_nonfinite(t.detach())
            if n:
                out[name] = n
    return out


def nonfinite_text(counts: dict) -> str:
    names = sorted(counts)
    return (f"{len(names)} tensors hold NaN/Inf values: {_listing(names, counts)} (values per tensor) - the output will "
            f"be NaN or garbage; the file is damaged (download it again) or was saved from a diverged training run")


def finalize(diffusion_model, plan: Plan, weight_format: str, file_quantized: bool, keep_dtype) -> Stats:
    """Bring every Linear into its planned storage. Counts NaN/Inf values in every Linear weight as
    loaded (`Stats.nonfinite`); a layer quantized from finite values must come out finite."""
    st = Stats()
    if weight_format in WEIGHT_FORMATS and WEIGHT_FORMATS[weight_format] is not None:
        target, explicit = WEIGHT_FORMATS[weight_format], True
    else:
        target, explicit = AUTO_TARGET, False
    keep_all = weight_format == FORMAT_KEEP or (weight_format == FORMAT_AUTO and file_quantized)
    with torch.no_grad():
        for name, m in diffusion_model.named_modules():
            if not is_accel_linear(m):
                continue
            m._accel_name = name
            w, s = m.weight, m.weight_scale
            fp8 = s is not None
            dev = _quant_device(w)
            wd = w.to(dev)
            bad = count_nonfinite(wd)
            if bad:
                st.nonfinite[name + ".weight"] = bad
            if keep_all:
                if fp8:
                    st.kept_fp8 += 1
                    key = _fmt_key(w, s)
                    st.formats[key] = st.formats.get(key, 0) + 1
                else:
                    if w.dtype != keep_dtype:
                        m.weight = torch.nn.Parameter(w.to(keep_dtype), requires_grad=False)
                    st.high_precision += 1
                continue
            if plan.quantize.get(name, False):
                dt, per_channel = target
                if fp8 and (not explicit or (w.dtype == dt and (s.numel() > 1) == per_channel)):
                    st.kept_fp8 += 1
                else:
                    if fp8:
                        w8, s8 = kfp8.requantize(wd, s.to(dev), dt, per_channel)
                        st.requantized += 1
                    else:
                        w8, s8 = kfp8.quantize_weight(wd, dt, per_channel)
                        st.quantized += 1
                    if not bad and (count_nonfinite(w8) or not bool(torch.isfinite(s8).all())):
                        rt = m.accel_fp8_runtime
                        raise AccelError(rt.node, "weight_format",
                                         f"quantizing layer '{name}' of '{rt.source}' gave NaN/Inf values from finite weights",
                                         "Report this as a bug; weight_format 'keep as stored' loads the file unquantized")
                    m.weight = torch.nn.Parameter(w8.to(w.device), requires_grad=False)
                    m.weight_scale = torch.nn.Parameter(s8.to(w.device), requires_grad=False)
                    del w8, s8
                key = _fmt_key(m.weight, m.weight_scale)
                st.formats[key] = st.formats.get(key, 0) + 1
            else:
                if fp8:
                    m.weight = torch.nn.Parameter(kfp8.dequantize(wd, s.to(dev), keep_dtype).to(w.device),
                                                  requires_grad=False)
                    m.weight_scale = None
                    st.dequantized += 1
                elif w.dtype != keep_dtype:
                    m.weight = torch.nn.Parameter(w.to(keep_dtype), requires_grad=False)
                st.high_precision += 1
            del w, s, wd
    skip = {n + leaf for n, m in diffusion_model.named_modules() if is_accel_linear(m) for leaf in (".weight", ".weight_scale")}
    st.nonfinite.update(nonfinite_tensors(diffusion_model, skip))
    return st


# --- loading -------------------------------------------------------------------------------------------

@dataclass
class LoadResult:
    patcher: object
    report: str
    stats: Stats
    plan: Plan
    normalized: object
    compute: str
    family: object
    runtime: FP8Runtime


def _bytes(n) -> str:
    return f"{n / 2**30:.2f} GiB" if n >= 2**30 else f"{n / 2**20:.1f} MiB"


def _dtype_name(dt) -> str:
    return str(dt).replace("torch.", "")


def _detect_config(sd):
    """ComfyUI's model config for a (canonical) state dict, or None."""
    import comfy.model_detection as md
    import comfy.utils

    try:
        prefix = md.unet_prefix_from_state_dict(sd)
        # state_dict_prefix_replace pops the keys it moves, even with filter_keys: work on a copy
        tmp = comfy.utils.state_dict_prefix_replace(dict(sd), {prefix: ""}, filter_keys=True) or dict(sd)
        return md.model_config_from_unet(tmp, "", metadata=None)
    except Exception:
        return None


def load_state_dict(sd: dict, metadata: dict | None = None, source: str = "(state dict)",
                    weight_format: str = FORMAT_AUTO, compute: str = COMPUTE_AUTO, keep: str = KEEP_AUTO,
                    extra_keep: str = "", strict: bool = False, profile=None, use_fast_accum: bool = True,
                    input_name: str = "unet_name", disable_dynamic: bool | None = None, node: str = NODE,
                    compute_dtype=None) -> LoadResult:
    """Load a diffusion model state dict (any supported form) as an FP8 model. `sd` is consumed.
    Errors name `node` / `input_name` (the saver converts files through this too)."""
    import comfy.model_management as mm
    import comfy.sd
    import comfy.utils

    from . import report as report_mod

    if weight_format not in WEIGHT_FORMATS:
        raise AccelError(node, "weight_format", f"unknown choice '{weight_format}'", f"Use one of {', '.join(WEIGHT_FORMATS)}")
    profile = profile or report_mod.profile()
    path, path_reason = resolve_compute(compute, profile, strict)

    norm = formats.normalize(sd, metadata, source, node, input_name)
    sd.clear()
    cfg = _detect_config(norm.sd)
    params = comfy.utils.calculate_parameters(norm.sd)
    hp = norm.hp_dtype if norm.hp_dtype in (torch.float16, torch.bfloat16, torch.float32) else torch.bfloat16
    supported = list(cfg.supported_inference_dtypes) if cfg is not None else [torch.float16, torch.bfloat16, torch.float32]
    keep_dtype = mm.unet_dtype(model_params=params, supported_dtypes=supported, weight_dtype=hp)
    if path == "scaled_mm_rowwise" and getattr(mm.get_torch_device(), "type", "cpu") == "cuda":
        kfp8.rowwise_out_dtypes(mm.get_torch_device())  # probe now, in eager mode (compiled code reads it)
    keep_dtype, dtype_note = activation_dtype(keep_dtype, path, supported, compute_dtype)

    rt = FP8Runtime(source=source, node=node, input_name=input_name, mode=path, fast=path != "dequant", use_fast_accum=use_fast_accum, strict=strict)
    if rt.fast and profile.is_gpu and (not profile.triton or kfp8.triton_error() is not None):
        log.warn_once(("fp8", "no_triton"), "triton is not available: FP8 activations are quantized with PyTorch ops "
                                            "(slower); install triton (Linux) or triton-windows")
    # ComfyUI's own rule (pick_operations): manual casting only when weights and compute dtypes differ
    manual = mm.unet_manual_cast(keep_dtype, mm.get_torch_device(), supported) is not None
    model_options = {"dtype": keep_dtype, "custom_operations": make_operations(rt, manual_cast=manual)}
    kwargs = {}
    if disable_dynamic is not None and "disable_dynamic" in inspect.signature(comfy.sd.load_diffusion_model_state_dict).parameters:
        kwargs["disable_dynamic"] = disable_dynamic
    n_fp8_in = len(norm.fp8_layers)
    try:
        patcher = comfy.sd.load_diffusion_model_state_dict(norm.sd, model_options=model_options,
                                                           metadata=norm.metadata or None, **kwargs)
    except AccelError:
        raise
    except KeyError as e:  # ComfyUI's model detection reads a tensor the file lacks
        raise AccelError(node, input_name, f"'{source}': tensor {e} is missing from the file (ComfyUI reads it to "
                                           f"detect the model)",
                         "The file is incomplete or damaged: download it again, or use the original checkpoint") from e
    except Exception as e:
        raise AccelError(node, input_name, f"'{source}' could not be loaded as a diffusion model ({type(e).__name__}: {e})",
                         "Check that the file is a diffusion model (not a text encoder, VAE or LoRA) and not damaged") from e
    if patcher is None:
        raise AccelError(node, input_name,
                         f"'{source}' is not a diffusion model ComfyUI recognizes (no known model layout in its tensors)",
                         "Pick a diffusion model file (a text encoder, VAE, CLIP vision model or LoRA cannot be loaded here)")
    norm.sd = {}
    unused = sorted(u for u in norm.scaled_layers if u not in rt.loaded and _strip_prefix(u) not in rt.loaded)
    if unused:
        raise AccelError(node, input_name,
                         f"'{source}': scaled fp8 tensor '{unused[0]}.weight' belongs to a layer that is not a linear layer "
                         f"of the detected model ({len(unused)} such layers), so its scale cannot be applied",
                         "Use the original checkpoint")

    dm = patcher.model.diffusion_model
    check_keys(dm, rt, source, type(patcher.model).__name__, node, input_name)
    family = families.detect(patcher)
    plan = plan_layers(dm, family, keep, extra_keep)
    stats = finalize(dm, plan, weight_format, norm.is_quantized, keep_dtype)
    if getattr(patcher, "size", 0):
        patcher.size = 0  # recomputed from the finalized weights
    if any(k.startswith("e5m2") for k in stats.formats) and rt.fast:
        log.info(f"{source}: e5m2 layers dequantize per layer (FP8 matmul uses e4m3fn weights)")
    text = _report(source, norm, family, plan, stats, dm, keep_dtype, path, path_reason, weight_format, n_fp8_in, rt)
    if stats.nonfinite:
        log.warn_once(("fp8", "nonfinite", source), f"{source}: {nonfinite_text(stats.nonfinite)}")
    if dtype_note:
        text += f"\n  activations: {dtype_note}"
    log.info(text.splitlines()[0] + " | " + " | ".join(line.strip() for line in text.splitlines()[1:4]))
    return LoadResult(patcher, text, stats, plan, norm, path, family, rt)


def _cli_forces_unet_dtype() -> bool:
    try:
        from comfy.cli_args import args
    except Exception:
        return False
    return any(getattr(args, f, False) for f in ("fp32_unet", "fp64_unet", "bf16_unet", "fp16_unet",
                                                  "fp8_e4m3fn_unet", "fp8_e5m2_unet", "fp8_e8m0fnu_unet"))


def activation_dtype(model_dtype, path: str, supported, requested=None) -> tuple:
    """The dtype the non-FP8 layers and activations use: ComfyUI's choice (`model_dtype`), except that
    the row-wise FP8 matmul on a torch that writes only bf16 makes an fp16 model pay a conversion pass
    after every FP8 layer (~0.2-0.5 ms per Wan 14B linear); there, bf16 is used when the model supports
    it and no --*-unet launch flag fixes the dtype. Returns (dtype, note for the report or "")."""
    if requested is not None:
        return requested, f"{_dtype_name(requested)} (requested)"
    if (path == "scaled_mm_rowwise" and model_dtype == torch.float16 and torch.bfloat16 in supported
            and not _cli_forces_unet_dtype()):
        import comfy.model_management as mm

        dev = mm.get_torch_device()
        if getattr(dev, "type", "cpu") == "cuda" and torch.float16 not in kfp8.rowwise_out_dtypes(dev):
            return torch.bfloat16, ("bfloat16 instead of ComfyUI's float16: this PyTorch's row-wise FP8 matmul "
                                    "writes bfloat16 only, so float16 would add a conversion after every FP8 layer")
    return model_dtype, ""


def _strip_prefix(layer: str) -> str:
    for p in ("model.diffusion_model.", "diffusion_model.", "model.", "net."):
        if layer.startswith(p):
            return layer[len(p):]
    return layer


def _linear_bytes(dm):
    lin = other = 0
    for name, m in dm.named_modules():
        for pname, p in m.named_parameters(recurse=False):
            n = p.numel() * p.element_size()
            if isinstance(m, torch.nn.Linear):
                lin += n
            else:
                other += n
    for b in dm.buffers():
        other += b.numel() * b.element_size()
    return lin, other


def _report(source, norm, family, plan, stats, dm, keep_dtype, path, path_reason, weight_format, n_fp8_in, rt) -> str:
    lin, other = _linear_bytes(dm)
    total = lin + other
    itemsize = torch.tensor([], dtype=keep_dtype).element_size()
    stock = sum(p.numel() for n, p in dm.named_parameters() if not n.endswith("weight_scale")) * itemsize
    lines = [f"Accel FP8 loader: {source}",
             f"  model: {family.name} ({family.base_class})",
             f"  stored: {norm.describe()}, {_bytes(norm.stored_bytes)} on disk"]
    fmts = ", ".join(f"{n} {k}" for k, n in sorted(stats.formats.items())) or "none"
    action = []
    if stats.quantized:
        action.append(f"{stats.quantized} quantized on load")
    if stats.kept_fp8:
        action.append(f"{stats.kept_fp8} fp8 as stored")
    if stats.requantized:
        action.append(f"{stats.requantized} requantized (double rounding)")
    if stats.dequantized:
        action.append(f"{stats.dequantized} dequantized to {_dtype_name(keep_dtype)}")
    lines.append(f"  weight_format: {weight_format} -> fp8 linear layers: {fmts} ({'; '.join(action) or 'none'})")
    kept = ", ".join(f"{n} {why}" for why, n in sorted(plan.kept.items())) or "none"
    lines.append(f"  kept high precision ({_dtype_name(keep_dtype)}): {stats.high_precision} linear layers [{kept}], "
                 f"and all norms, biases and modulation parameters")
    lines.append(f"  keep rule: {plan.choice} ({plan.reason})")
    lines.append(f"  weights in memory: {_bytes(total)} (linear {_bytes(lin)}, other {_bytes(other)}) vs {_bytes(stock)} "
                 f"all in {_dtype_name(keep_dtype)} (ComfyUI's own load on this device): saved {_bytes(max(0, stock - total))} "
                 f"({total / max(1, stock):.2f}x)")
    if not stats.formats:
        comp = "no fp8 layers: ComfyUI's usual matmuls"
    elif path == "dequant":
        comp = f"dequantize per layer to the compute dtype - {path_reason}"
    else:
        comp = f"{path} (dynamic per-token activation scales)" if path == "scaled_mm_rowwise" else \
            f"{path} (dynamic per-tensor activation scales)"
        comp += f" - {path_reason}"
        if any(k.startswith("e5m2") for k in stats.formats):
            comp += "; e5m2 layers dequantize (FP8 matmul needs e4m3fn)"
    lines.append(f"  compute: {comp}")
    for note in norm.notes:
        lines.append(f"  note: {note}")
    if stats.nonfinite:
        lines.append(f"  warning: {nonfinite_text(stats.nonfinite)}")
    return "\n".join(lines)


def load_file(path: str, weight_format: str = FORMAT_AUTO, compute: str = COMPUTE_AUTO, keep: str = KEEP_AUTO,
              extra_keep: str = "", strict: bool = False, profile=None, input_name: str = "unet_name",
              disable_dynamic: bool | None = None, node: str = NODE) -> LoadResult:
    """Read and load a safetensors diffusion model file (see `load_state_dict`)."""
    source = os.path.basename(path)
    sd, metadata = formats.read_file(path, node, input_name)
    res = load_state_dict(sd, metadata, source, weight_format, compute, keep, extra_keep, strict, profile,
                          input_name=input_name, disable_dynamic=disable_dynamic, node=node)
    p = res.patcher
    if hasattr(p, "cached_patcher_init"):  # ComfyUI 0.33: lets clone(disable_dynamic=True) / multi-GPU re-create it
        p.cached_patcher_init = (_reload_patcher, (path, weight_format, compute, keep, extra_keep, strict))
    return res


def _reload_patcher(path, weight_format, compute, keep, extra_keep, strict, disable_dynamic=False):
    return load_file(path, weight_format, compute, keep, extra_keep, strict, disable_dynamic=disable_dynamic).patcher


# --- saving: the portable format -----------------------------------------------------------------------

def portable_tensors(patcher, hp_dtype=torch.bfloat16, keep: str = KEEP_AUTO, extra_keep: str = ""):
    """(tensors, quant_layers, notes) of a MODEL in the portable form: every quantized Linear as fp8
    e4m3fn + fp32 scalar weight_scale (per-channel / e5m2 layers are requantized per tensor; a model
    not loaded by our loader is quantized with the same layer plan), all else in `hp_dtype`.
    LoRA and other weight patches on the MODEL are baked in."""
    import comfy.model_management as mm

    mm.load_models_gpu([patcher], force_patch_weights=True)
    dm = patcher.model.diffusion_model
    plan = None
    notes, quant_layers, tensors = [], [], {}
    requant = 0
    with torch.no_grad():
        linears = {name: m for name, m in dm.named_modules() if isinstance(m, torch.nn.Linear)}
        if not any(is_accel_linear(m) and m.weight_scale is not None for m in linears.values()):
            plan = plan_layers(dm, families.detect(patcher), keep, extra_keep)
        for key, t in dm.state_dict().items():
            layer, _, leaf = key.rpartition(".")
            m = linears.get(layer)
            if leaf == "weight_scale":
                continue
            if m is not None and leaf == "weight":
                scale = getattr(m, "weight_scale", None)
                if scale is not None:
                    if t.dtype == kfp8.E4M3 and scale.numel() == 1:
                        w8, s8 = t, scale.reshape(())
                    else:
                        w8, s8 = kfp8.requantize(t, scale, kfp8.E4M3, per_channel=False)
                        requant += 1
                elif plan is not None and plan.quantize.get(layer, False):
                    # (a stock fp8 model's unscaled weights are their values: upcast before scaling)
                    w8, s8 = kfp8.quantize_weight(t.float() if kfp8.is_fp8(t) else t, kfp8.E4M3, per_channel=False)
                else:
                    tensors[key] = t.to(hp_dtype) if t.is_floating_point() else t
                    continue
                tensors[key] = w8.cpu()
                tensors[layer + ".weight_scale"] = s8.to(torch.float32).reshape(()).cpu()
                quant_layers.append(layer)
                continue
            tensors[key] = (t.to(hp_dtype) if t.is_floating_point() else t).cpu()
    if requant:
        notes.append(f"{requant} per-channel/e5m2 layers requantized to per-tensor e4m3fn (stock ComfyUI 0.3.75 "
                     f"reads scalar scales only)")
    return tensors, quant_layers, notes


_DEFAULT_PREFIX = "accel_fp8"
_PREFIX_REMEDY = "Use a plain name or a sub-folder such as 'wan/my_model'"
_NUMBERED = "_00001.safetensors.partial"  # the longest name a save writes (the temporary file)


def _save_error(problem: str, remedy: str = _PREFIX_REMEDY) -> AccelError:
    return AccelError(SAVE_NODE, "filename_prefix", problem, remedy)


def _save_base() -> str:
    import folder_paths

    dirs = folder_paths.get_folder_paths("diffusion_models")
    base = next((d for d in dirs if os.path.basename(os.path.normpath(d)) == "diffusion_models"), dirs[0])
    return os.path.abspath(base)


def _limit(folder: str, name: str, default: int) -> int:
    """The filesystem's name/path length limit at `folder` (its nearest existing ancestor)."""
    while folder and not os.path.isdir(folder) and os.path.dirname(folder) != folder:
        folder = os.path.dirname(folder)
    try:
        return int(os.pathconf(folder, name))
    except (AttributeError, OSError, ValueError, TypeError):
        return default


def _check_prefix(filename_prefix) -> tuple[str, str, str]:
    """(base, folder, stem) of a save, checked without touching the disk: inside models/diffusion_models,
    a real file name (not '.', './', 'sub/..'), no NUL/control characters, every name within the
    filesystem's length limit, no existing file where a folder is needed, the folder writable."""
    raw = str(filename_prefix)
    shown = repr(raw) if any(ord(c) < 32 for c in raw) else f"'{raw}'"
    if len(shown) > 80:
        shown = f"{shown[:60]}...' ({len(raw)} characters)"
    prefix = str(filename_prefix if filename_prefix is not None else "").strip() or _DEFAULT_PREFIX
    if "\x00" in prefix:
        raise _save_error(f"{shown} contains a NUL byte, which no file name may contain", "Remove it")
    if any(ord(c) < 32 for c in prefix):
        raise _save_error(f"{shown} contains a control character (newline, tab, ...)", "Remove it")
    prefix = prefix.replace("\\", "/")
    if prefix.lower().endswith(".safetensors"):
        prefix = prefix[: -len(".safetensors")]
    base = _save_base()
    full = os.path.abspath(os.path.join(base, prefix))
    if os.path.commonpath([full, base]) != base:
        raise _save_error(f"{shown} points outside models/diffusion_models")
    if full == base:
        raise _save_error(f"{shown} does not name a file inside models/diffusion_models (it is the folder itself)")
    parts = os.path.relpath(full, base).split(os.sep)
    name_max = _limit(base, "PC_NAME_MAX", 255)
    for i, part in enumerate(parts):
        n = len(os.fsencode(part)) + (len(_NUMBERED) if i == len(parts) - 1 else 0)
        if n > name_max:
            what = "file name" if i == len(parts) - 1 else f"folder name '{part[:40]}...'"
            raise _save_error(f"{shown}: the {what} is too long ({n} bytes with the number and extension; this "
                              f"filesystem allows {name_max})", "Use a shorter name")
    if len(os.fsencode(full)) + len(_NUMBERED) >= _limit(base, "PC_PATH_MAX", 4096):
        raise _save_error(f"{shown}: the path is too long for this filesystem", "Use a shorter name or fewer sub-folders")
    folder, stem = os.path.split(full)
    existing = folder
    while not os.path.lexists(existing) and os.path.dirname(existing) != existing:
        existing = os.path.dirname(existing)
    if not os.path.isdir(existing):
        raise _save_error(f"{shown}: '{os.path.relpath(existing, os.path.dirname(base))}' is a file, not a folder",
                          "Use another name (existing files are never replaced)")
    if not os.access(existing, os.W_OK | os.X_OK):
        raise _save_error(f"{shown}: the folder '{existing}' is not writable",
                          "Check its permissions, or point models/diffusion_models elsewhere (extra_model_paths.yaml)")
    return base, folder, stem


def _candidates(folder: str, stem: str):
    i = 1
    while True:
        path = os.path.join(folder, f"{stem}_{i:05d}.safetensors")
        if not os.path.lexists(path) and not os.path.lexists(path + ".partial"):
            yield path
        i += 1


def output_path(filename_prefix: str) -> str:
    """The next free file for `filename_prefix` under models/diffusion_models (checked, nothing created)."""
    _, folder, stem = _check_prefix(filename_prefix)
    return next(_candidates(folder, stem))


@dataclass
class SaveTarget:
    """A reserved save: `tmp` (`<path>.partial`) was created empty and exclusively before any long work;
    `created` lists the folders made for it. `discard` undoes both."""

    prefix: str
    path: str
    tmp: str
    created: list

    def discard(self) -> None:
        try:
            if os.path.isfile(self.tmp) and not os.path.islink(self.tmp):
                os.unlink(self.tmp)
        except OSError:
            pass
        for d in reversed(self.created):
            try:
                os.rmdir(d)  # only if empty
            except OSError:
                break

    def write_error(self, err: Exception) -> AccelError:
        if isinstance(err, FileExistsError):
            return _save_error(f"'{self.prefix}': '{os.path.basename(self.path)}' appeared in its folder while the model was "
                               f"being quantized; it was left as it is and nothing was saved",
                               "Run the node again: it picks the next free number")
        return _save_error(f"'{self.prefix}': could not write '{self.path}' ({type(err).__name__}: {err}); nothing was saved",
                           "Check free disk space and the folder's permissions, or choose another filename_prefix")


def reserve_target(filename_prefix: str) -> SaveTarget:
    """Check `filename_prefix` and reserve the next free `<stem>_NNNNN.safetensors` (its `.partial`
    temporary created exclusively): run before loading or quantizing anything."""
    _, folder, stem = _check_prefix(filename_prefix)
    created = []
    try:
        missing = []
        d = folder
        while not os.path.isdir(d):
            missing.append(d)
            d = os.path.dirname(d)
        for d in reversed(missing):
            os.mkdir(d)
            created.append(d)
        for path in _candidates(folder, stem):
            try:
                fd = os.open(path + ".partial", os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644)
            except FileExistsError:
                continue  # taken between the check and now: the next number
            os.close(fd)
            return SaveTarget(str(filename_prefix), path, path + ".partial", created)
    except OSError as e:
        SaveTarget(str(filename_prefix), "", "", created).discard()
        raise _save_error(f"'{filename_prefix}': cannot create a file in '{folder}' ({type(e).__name__}: {e})",
                          "Check the folder's permissions and free disk space, or choose another filename_prefix") from e


def save_portable(patcher, filename_prefix: str, source: str = "MODEL", keep: str = KEEP_AUTO, extra_keep: str = "",
                  target: SaveTarget | None = None) -> str:
    """Save `patcher` in the portable format; returns the report text. The target is checked and
    reserved first (`reserve_target`); an existing file is never replaced; on any failure nothing is left."""
    target = target or reserve_target(filename_prefix)
    try:
        tensors, layers, notes = portable_tensors(patcher, keep=keep, extra_keep=extra_keep)
        if not layers:
            raise AccelError(SAVE_NODE, "model", f"{source} has no linear layer to quantize",
                             "Connect a diffusion model (e.g. from Accel Load Diffusion Model (FP8))")
        size = sum(t.numel() * t.element_size() for t in tensors.values())
        try:
            formats.write_portable(target.path, tensors, layers, {"accel_source": source}, tmp=target.tmp)
        except Exception as e:
            raise target.write_error(e) from e
    except BaseException:
        target.discard()
        raise
    path = target.path
    lines = [f"Accel Save FP8 Model: {path}",
             f"  {len(layers)} linear layers fp8 e4m3fn + fp32 scalar weight_scale, metadata _quantization_metadata "
             f"(format 1.0); other tensors bf16; {_bytes(size)}",
             "  loads with the stock Load Diffusion Model (UNETLoader) of ComfyUI 0.3.75 and 0.33, and with the Accel FP8 "
             "loader; per-channel scales are not portable, so this file is per-tensor"]
    lines += [f"  note: {n}" for n in notes]
    text = "\n".join(lines)
    log.info(text.splitlines()[0])
    return text


def convert_file(path: str, filename_prefix: str, keep: str = KEEP_AUTO, extra_keep: str = "") -> str:
    """File -> portable file: load through our loader (per-tensor e4m3fn, dequant compute), then save.
    The target is checked and reserved before the file is read."""
    target = reserve_target(filename_prefix)
    try:
        res = load_file(path, "fp8_e4m3fn per-tensor scaled", COMPUTE_DEQUANT, keep, extra_keep,
                        input_name="source_file", node=SAVE_NODE)
    except BaseException:
        target.discard()
        raise
    return save_portable(res.patcher, filename_prefix, source=os.path.basename(path), target=target)
