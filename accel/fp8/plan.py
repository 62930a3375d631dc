"""What an FP8 load does: the compute path (FP8 matmul or dequantize) and which Linears are quantized and which stay
in high precision."""
from __future__ import annotations

import fnmatch
import re
from dataclasses import dataclass, field

import torch

from ...kernels import fp8_linear as kfp8
from ..common import defaults, log
from ..common.errors import AccelError
from ..common.policy import Policy
from .options import (ACT_BLOCK, ACT_CHOICES, ACT_INPUT, ACT_PER_TOKEN, ACT_PER_TOKEN_FP32, COMPUTE_AUTO,
                      COMPUTE_CHOICES, COMPUTE_DEQUANT, COMPUTE_FP8, FAMILY_KEEP, KEEP_AUTO, KEEP_CHOICES, KEEP_EDGE,
                      KEEP_STANDARD)


# Module lists that hold the transformer blocks, and path components that mark layers kept in high
# precision even inside a block (modulation / adaLN, norms, embedders, heads).
_BLOCK_RE = re.compile(r"(?:^|\.)(?:blocks|double_blocks|single_blocks|transformer_blocks|joint_blocks|layers|vace_blocks)\.\d+(?:\.|$)")
_KEEP_TOKEN_RE = re.compile(r"^(?:modulation|adaln.*|.*_mod|mod|norm.*|.*_norm|.*embed.*|time_.*|head|final_layer)$", re.I)


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
        log.warn_once(("fp8", "compute_unsupported", profile.gpu_name or profile.device_kind), msg + "; using dequantize")
        return "dequant", msg + "; using dequantize instead"
    raise AccelError("compute", f"unknown choice '{choice}'", f"Use one of {', '.join(COMPUTE_CHOICES)}")


def check_activation_scaling(choice: str) -> None:
    if choice not in ACT_CHOICES:
        raise AccelError(ACT_INPUT, f"unknown choice '{choice}'", f"Use one of {', '.join(ACT_CHOICES)}")


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
        return kfp8.BLOCK_MODE, True, "1x128 activation blocks x per-channel weight scales (fp32 accumulation per block)"
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


def unmatched_text(patterns: list, example: str) -> str:
    return (f"extra_keep pattern(s) {', '.join(repr(p) for p in patterns)} match no linear layer, so nothing more is "
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
