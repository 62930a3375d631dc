"""What an FP8 load does: the compute path (FP8 matmul or dequantize) and which Linears are quantized and which stay
in high precision."""
from __future__ import annotations

import fnmatch
import re
from dataclasses import dataclass, field

import torch

from ...kernels import fp8_linear as kfp8
from ..common import defaults, families, log
from ..common.errors import AccelError, quoted
from ..common.policy import Policy
from .options import (
    ACT_BLOCK,
    ACT_INPUT,
    ACT_PER_TOKEN,
    ACT_PER_TOKEN_FP32,
    COMPUTE_AUTO,
    COMPUTE_CHOICES,
    COMPUTE_DEQUANT,
    COMPUTE_FP8,
    FAMILY_KEEP,
    FORMAT_AUTO,
    FORMAT_KEEP,
    KEEP_AUTO,
    KEEP_CHOICES,
    KEEP_EDGE,
    KEEP_STANDARD,
    check_activation_scaling,
)

# Module lists that hold the transformer blocks, and path components that mark layers kept in high
# precision even inside a block (modulation / adaLN, norms, embedders, heads).
_BLOCK_RE = re.compile(r"(?:^|\.)(?:" + "|".join(families.BLOCK_LISTS + ("vace_blocks",)) + r")\.\d+(?:\.|$)")
_KEEP_TOKEN_RE = re.compile(r"^(?:modulation|adaln.*|.*_mod|mod|norm.*|.*_norm|.*embed.*|time_.*|head|final_layer)$",
                            re.I)


def resolve_compute(choice: str, profile, policy: Policy = Policy.FALL_BACK) -> tuple[str, str]:
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
        if Policy(policy) is Policy.ERROR:
            raise AccelError("compute", msg, "Set compute to 'auto' or 'dequantize', or turn strict off")
        log.warn_once(("fp8", "compute_unsupported", profile.gpu_name or profile.device_kind),
                      msg + "; using dequantize")
        return "dequant", msg + "; using dequantize instead"
    raise AccelError("compute", f"unknown choice '{choice}'", f"Use one of {', '.join(COMPUTE_CHOICES)}")


@dataclass
class AutoFormat:
    """What `auto` does with a file's weights: keep them 16-bit (ComfyUI's own model) or quantize them to FP8."""
    keep_16bit: bool
    note: str = ""  # the report's line ("" for an FP8 file: nothing was decided)


def _gib(n) -> str:
    if n is None:
        return "unknown"
    return f"{n / 2**30:.1f} GiB" if n >= 2**30 else f"{n / 2**20:.1f} MiB"


REMEDY_QUANTIZE = "choose a weight_format to quantize anyway (half the weight memory)"


def resolve_auto_format(family: str | None, profile, weight_format: str, compute: str, file_quantized: bool,
                        weights_bytes: int, room_bytes: int, free_bytes: int | None) -> AutoFormat:
    """The measured per-family rule of `auto` (accel.common.defaults.FP8_AUTO_MEASURED) for a file's weights.
    Where the FP8 path measured slower than 16-bit for `family` on this GPU class, `auto` keeps a 16-bit file's
    weights as they are, unless they (`weights_bytes`, in the dtype ComfyUI would load them) and `room_bytes` to
    sample exceed `free_bytes` (free VRAM; None: unknown): then FP8 as before, since streaming 16-bit weights was not
    measured against it. An explicit weight_format or compute is always honoured; a family or GPU class without a
    measurement quantizes as before."""
    if file_quantized:
        # a file stored in FP8 (scaled fp8 or any other FP8 form) loads as stored: dequantizing it to 16-bit for
        # speed was not measured, and it would double its weight memory
        return AutoFormat(False)
    row = defaults.row_for(profile).name
    name = families.family_name(family) if family else "this model"
    entry = defaults.fp8_measured(family, profile) if family else None
    explicit = weight_format != FORMAT_AUTO or compute != COMPUTE_AUTO
    if weight_format == FORMAT_KEEP or (explicit and (entry is None or not entry.keep_16bit)):
        return AutoFormat(False)  # chosen on the node, and nothing measured speaks against it
    if entry is None:
        return AutoFormat(False, f"whether FP8 or 16-bit is faster is not measured for {name} on {row}: quantized to "
                                 "FP8 as before (weight_format 'keep as stored' keeps 16-bit)")
    if not entry.keep_16bit:
        return AutoFormat(False, f"FP8 measured faster than 16-bit for {name} on {row}: {entry.evidence()}")
    why = f"on {row} the FP8 path measured slower than 16-bit for {name} ({entry.evidence()})"
    if explicit:
        chosen = f"weight_format '{weight_format}'" if weight_format != FORMAT_AUTO else f"compute '{compute}'"
        return AutoFormat(False, f"quantized as chosen ({chosen}), although {why}")
    need = weights_bytes + room_bytes
    if free_bytes is not None and need <= free_bytes:
        return AutoFormat(True, f"kept 16-bit, not quantized: {why}; the 16-bit weights ({_gib(weights_bytes)}) "
                                f"fit the free VRAM ({_gib(free_bytes)}) with room to sample ({_gib(room_bytes)}), so "
                                f"the model runs as ComfyUI's own loader would; {REMEDY_QUANTIZE}")
    return AutoFormat(False, f"quantized to FP8 although {why}: the 16-bit weights ({_gib(weights_bytes)}) and room "
                             f"to sample ({_gib(room_bytes)}) exceed the free VRAM ({_gib(free_bytes)}), and streaming "
                             "16-bit weights from RAM was not measured against FP8")


# The stored forms ComfyUI's own loader (0.33+) turns into its quantized-tensor layers (accel/fp8/formats.py names them)
COMFY_FP8_FORMS = ("scaled_fp8", "comfy_quant", "quant_metadata")


@dataclass(frozen=True)
class StoredChoice:
    comfy_layers: bool  # load the file as ComfyUI's own Load Diffusion Model does
    note: str = ""


def comfy_fp8_layout(forms, fp8_layers: dict, marker_full_precision: bool) -> bool:
    """A file in one of ComfyUI's own FP8 layouts in the form measured (FP8_STORED_MEASURED): only those forms, every
    fp8 layer e4m3fn with a per-tensor scale, and no `scaled_fp8` marker asking ComfyUI for 16-bit matmuls."""
    return (bool(fp8_layers) and bool(forms) and all(f in COMFY_FP8_FORMS for f in forms) and not marker_full_precision
            and all(dt == kfp8.E4M3 and gran == "tensor" for dt, gran in fp8_layers.values()))


def resolve_stored_format(family: str | None, profile, explicit: bool, comfy_layout: bool,
                          comfy_builds_layers: bool) -> StoredChoice:
    """The measured rule of `auto` for a file stored in ComfyUI's FP8 layout
    (accel.common.defaults.FP8_STORED_MEASURED):
    where `chain` measured faster on ComfyUI's own FP8 layers for `family` on this GPU class, and this ComfyUI's loader
    builds them (`comfy_builds_layers`), the file is loaded as ComfyUI loads it. Any explicit choice on the node
    (`explicit`) keeps this loader's layers; so does a family or GPU class without a measurement."""
    if not comfy_layout or explicit or not comfy_builds_layers:
        return StoredChoice(False)
    entry = defaults.fp8_stored_measured(family, profile) if family else None
    if entry is None or not entry.comfy_layers:
        return StoredChoice(False)
    row = defaults.row_for(profile).name
    return StoredChoice(True, f"on {row}, {entry.evidence()}; a weight_format or compute other than auto loads it "
                              "with this loader's FP8 layers")


def resolve_activation(choice: str, path: str, device, policy: Policy = Policy.FALL_BACK) -> tuple[str, bool, str]:
    """(matmul mode, use_fast_accum, note for the report) for the `activation_scaling` input on compute path
    `path`. 1x128 blocks need torch._scaled_mm's blockwise recipe (sm90, CUDA >= 12.9; probed on `device`);
    elsewhere the per-token path runs (an error in strict mode). CPU devices (tests) run the reference."""
    check_activation_scaling(choice)
    if path == "dequant":
        return path, True, ""
    if choice == ACT_PER_TOKEN:
        return path, True, ""
    if choice == ACT_PER_TOKEN_FP32:
        return path, False, "fp32 accumulation (no tensor-core fast accumulation)"
    # ACT_BLOCK
    why = None
    if path != "scaled_mm_rowwise":
        why = f"the compute path here is {path} (1x128 blocks need an sm90 GPU: H100/H200)"
    elif getattr(torch.device(device), "type", "cpu") == "cuda" and not kfp8.block_out_dtypes(device):
        why = ("this GPU / PyTorch has no blockwise torch._scaled_mm (it needs sm90 and PyTorch >= 2.9 built with "
               "CUDA >= 12.9)")
    if why is None:
        return kfp8.BLOCK_MODE, True, ("1x128 activation blocks x per-channel weight scales (fp32 accumulation per "
                                       "block)")
    msg = f"{ACT_BLOCK} requested, but {why}"
    if Policy(policy) is Policy.ERROR:
        raise AccelError(ACT_INPUT, msg, f"Set {ACT_INPUT} to '{ACT_PER_TOKEN}' or turn strict off")
    log.warn_once(("fp8", "block_unsupported", why), msg + f"; using {ACT_PER_TOKEN}")
    return path, True, msg + f"; {ACT_PER_TOKEN} instead"


@dataclass
class Plan:
    quantize: dict  # module name (relative to diffusion_model) -> bool, for every Linear
    choice: str
    reason: str
    kept: dict  # reason -> count of Linears kept high precision
    unmatched: list = field(default_factory=list)  # extra_keep patterns that match no Linear


def unmatched_text(patterns: list, example: str, show: int = 5) -> str:
    listed = ", ".join(quoted(p) for p in patterns[:show])
    if len(patterns) > show:
        listed += f" and {len(patterns) - show} more"
    return (f"extra_keep pattern(s) {listed} match no linear layer, so nothing more is "
            f"kept in high precision; patterns match layer names such as '{example}' (use * as a wildcard)")


def plan_layers(diffusion_model, family, keep: str = KEEP_AUTO, extra_keep: str = "") -> Plan:
    """Decide per Linear: quantize (True) or keep high precision (False). Errors name `node`."""
    if keep == KEEP_AUTO:
        choice, reason = FAMILY_KEEP.get(family.family, (
            KEEP_STANDARD, f"{family.name}: transformer-block linears quantized; embeddings, norms, modulation/adaLN "
                           f"and output layers stay high precision"))
    elif keep in KEEP_EDGE:
        choice, reason = keep, "chosen on the node"
    else:
        raise AccelError("keep_high_precision", f"unknown choice '{keep}'", f"Use one of {', '.join(KEEP_CHOICES)}")
    edge = KEEP_EDGE[choice]
    edge_blocks = set()
    if edge:
        keys = [k[len("diffusion_model."):] if k.startswith("diffusion_model.") else k for k in family.block_keys]
        edge_blocks = set(keys[:edge]) | set(keys[-edge:])
    patterns = [p.strip() for p in (extra_keep or "").replace(";", ",").replace("\n", ",").split(",") if p.strip()]
    quantize, kept, matched = {}, {}, set()
    for name, m in diffusion_model.named_modules():
        if not isinstance(m, torch.nn.Linear):
            continue
        matched.update(p for p in patterns if fnmatch.fnmatchcase(name, p))
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
    return Plan(quantize, choice, reason, kept, [p for p in dict.fromkeys(patterns) if p not in matched])
