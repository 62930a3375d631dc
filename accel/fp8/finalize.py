"""Finalize a loaded FP8 model: quantize / requantize / dequantize each Linear to its plan, check the keys and the
values (NaN/Inf) the file gave."""
from __future__ import annotations

from dataclasses import dataclass, field

import torch

from ...kernels import fp8_linear as kfp8
from ..common.errors import AccelError
from .ops import FP8Runtime, is_accel_linear
from .options import AUTO_TARGET, FORMAT_AUTO, FORMAT_KEEP, WEIGHT_FORMATS
from .plan import Plan


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


def check_keys(dm, rt: FP8Runtime, source: str, model_name: str, input_name: str) -> list:
    """Tensors the model needs but the file lacks (they would stay uninitialised memory: NaN on one run, other
    garbage on the next): an error naming them. Tensors the model does not have (markers, heads or LoRA leftovers
    the detected model does not use) are ignored, as ComfyUI's own loader ignores them: returned, sorted, for a
    warning that names them. Uses torch's own missing/unexpected lists of ComfyUI's load_state_dict call (ComfyUI
    only logs them). Missing buffers are not counted: models compute those themselves."""
    if rt.load_keys is None:
        return []
    missing, unexpected = rt.load_keys
    params = {n for n, _ in dm.named_parameters()}
    missing = sorted({k for k in missing if k in params})
    unexpected = sorted(set(unexpected))
    if missing:
        problem = f"{len(missing)} tensor(s) the model needs are missing from the file: {_listing(missing)}"
        if unexpected:
            problem += f" (and it has {len(unexpected)} tensor(s) the model does not have: {_listing(unexpected)})"
        raise AccelError(input_name, f"'{source}' does not match the model ComfyUI detected in it ({model_name}): "
                         + problem,
                         "The file is incomplete or damaged: download it again, or use the original checkpoint")
    return unexpected


def unused_text(names: list, model_name: str) -> str:
    return (f"{len(names)} tensor(s) in the file are not used by the detected model ({model_name}) and were ignored, "
            f"as ComfyUI's own loader ignores them: {_listing(names)}")


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
    return (f"{len(names)} tensors hold NaN/Inf values: {_listing(names, counts)} (values per tensor) - the output "
            "will be NaN or garbage; the file is damaged (download it again) or was saved from a diverged training run")


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
                        raise AccelError("weight_format",
                                         f"quantizing layer '{name}' of '{rt.source}' gave NaN/Inf values from finite "
                                         "weights",
                                         "Report this as a bug; weight_format 'keep as stored' loads the file "
                                         "unquantized",
                                         title=rt.title)
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
    for m in diffusion_model.modules():
        if is_accel_linear(m):
            # the dtype ComfyUI keeps this weight in on the device: ComfyUI 0.33+ records every parameter's dtype when
            # the model is built (comfy.model_management.archive_model_dtypes: the model's 16-bit dtype here, before
            # any fp8 weight was loaded), and DynamicVRAM sizes and fills the weight's VRAM in that dtype
            # (ModelPatcherDynamic setup_param; its offload casts to it too). Left at 16 bits, every fp8 weight was
            # held twice as large and handed over as 16-bit unscaled values, requantized by the FP8 matmul per call
            m.weight_comfy_model_dtype = m.weight.dtype
    skip = {n + leaf for n, m in diffusion_model.named_modules() if is_accel_linear(m)
            for leaf in (".weight", ".weight_scale")}
    st.nonfinite.update(nonfinite_tensors(diffusion_model, skip))
    return st
