"""Accel CUDA Settings' choices (the four switches, the SDPA order presets) and its report section, on top of the
scoped flags of accel.common.numerics (one implementation, used by this node, Accel Attention's SDPA order, the Wan
Level-1 preset and the VAE decode):

    clone, section = patch_cuda_settings(model, CudaSettings(tf32_matmul=True, cudnn_benchmark=True))
"""
from __future__ import annotations

from ..common import log
from ..common.errors import AccelError, current_title
from ..common.numerics import (
    CALLBACK_KEY,
    CudaSettings,
    CudaSettingsScope,
    apply_settings,
    attach,
    attach_auto_sdpa,
    auto_sdpa_order,
    has_fp16_accumulation,
    has_sdpa_priority,
    restore,
    scope_of,
    scoped,
    settings_of,
    snapshot,
)
from ..common.report import Section

__all__ = ["CALLBACK_KEY", "CudaSettings", "CudaSettingsScope", "apply_settings", "attach", "attach_auto_sdpa",
           "auto_sdpa_order", "has_fp16_accumulation", "has_sdpa_priority", "restore", "scope_of", "scoped",
           "settings_of", "snapshot", "SDPA_AUTO", "SDPA_PRESETS", "NUMERICS", "explain", "ON_OFF_UNCHANGED",
           "check_inputs", "from_inputs", "patch_cuda_settings", "apply_cuda_settings"]

# Presets offered by the CUDA Settings node: label -> (order, exclusive), None (unchanged) or "auto"
# exclusive=False: every backend stays enabled, only the order in which SDPA tries them changes.
SDPA_AUTO = "auto (fastest exact order for this GPU)"
SDPA_PRESETS = {
    SDPA_AUTO: "auto",  # accel.common.defaults: per GPU class, measured (Hopper: cuDNN first); else unchanged
    "unchanged": None,
    "cudnn > flash > efficient > math": (("cudnn", "flash", "efficient", "math"), False),
    "flash > cudnn > efficient > math": (("flash", "cudnn", "efficient", "math"), False),
    "flash > efficient > cudnn > math": (("flash", "efficient", "cudnn", "math"), False),
    "efficient > flash > cudnn > math": (("efficient", "flash", "cudnn", "math"), False),
    "math only (reference, slow)": (("math",), True),
}


NUMERICS = "numerics (set at the start of this model's sampling, restored after it)"  # the report section's title


def explain(settings: CudaSettings, profile=None) -> Section:
    """The report section: what will be set during this model's runs, and what has no effect here and why."""
    import torch

    lines = []
    kind = getattr(profile, "device_kind", None)
    on_cuda = kind == "cuda"
    if (settings.tf32_matmul or settings.tf32_cudnn) and profile is not None and not getattr(profile, "tf32", False):
        lines.append(f"  note: TF32 has no effect on {kind or 'this device'} (needs an NVIDIA GPU with SM >= 8.0)")
    if settings.cudnn_benchmark and kind not in ("cuda", "rocm", None):
        lines.append(f"  note: cudnn.benchmark has no effect on {kind}")
    if settings.fp16_accumulation is not None:
        if not has_fp16_accumulation():
            lines.append(f"  note: fp16 accumulation is not offered by torch {torch.__version__} (needs 2.7+): ignored")
        elif settings.fp16_accumulation:
            lines.append("  note: fp16 accumulation affects fp16 models only (faster fp16 matmuls, lower precision); "
                         "bf16/fp32 matmuls are unaffected")
    if settings.sdpa_order:
        if not has_sdpa_priority():
            lines.append(f"  note: torch {torch.__version__} cannot reorder SDPA backends; only their on/off flags are "
                         "set")
        if not on_cuda and profile is not None:
            lines.append(f"  note: the SDPA order only matters on CUDA GPUs (device: {kind})")
        lines.append("  note: the SDPA order applies where ComfyUI's own attention (or an 'sdpa' backend) calls "
                     "torch SDPA; kernels chosen by a compiled graph are fixed when it is compiled")
    return Section(NUMERICS, settings.describe()[0], lines)



ON_OFF_UNCHANGED = ("on", "off", "unchanged")  # the node's four switch inputs


def check_inputs(tf32_matmul: str, tf32_cudnn: str, cudnn_benchmark: str, fp16_accumulation: str,
                 sdpa_order: str) -> dict:
    """The node's four switches by name; AccelError naming the input for a value outside its choices."""
    switches = {"tf32_matmul": tf32_matmul, "tf32_cudnn": tf32_cudnn, "cudnn_benchmark": cudnn_benchmark,
                "fp16_accumulation": fp16_accumulation}
    for name, val in switches.items():
        if val not in ON_OFF_UNCHANGED:
            raise AccelError(name, f"unknown value {val!r}", "use one of: " + ", ".join(ON_OFF_UNCHANGED))
    if sdpa_order not in SDPA_PRESETS:
        raise AccelError("sdpa_order", f"unknown value {sdpa_order!r}", "use one of: " + ", ".join(SDPA_PRESETS))
    return switches


def from_inputs(tf32_matmul: str, tf32_cudnn: str, cudnn_benchmark: str, fp16_accumulation: str, sdpa_order: str,
                profile) -> tuple[CudaSettings, str | None]:
    """The node's inputs as CudaSettings, plus the line that explains an `auto` SDPA order (None otherwise).
    AccelError naming the input for a value outside its choices."""
    switches = check_inputs(tf32_matmul, tf32_cudnn, cudnn_benchmark, fp16_accumulation, sdpa_order)
    preset, auto_line = SDPA_PRESETS[sdpa_order], None
    if preset == "auto":
        auto, why = auto_sdpa_order(profile)
        preset = (auto, False) if auto else None
        auto_line = "SDPA order auto -> " + (" > ".join(auto) if auto else "unchanged") + ": " + why
    order, exclusive = preset if preset is not None else (None, False)
    tri = {name: None if val == "unchanged" else val == "on" for name, val in switches.items()}
    return CudaSettings(**tri, sdpa_order=order, sdpa_exclusive=exclusive), auto_line


def patch_cuda_settings(model, settings: CudaSettings, profile=None, in_place: bool = False):
    """Clone `model` (unless in_place) and attach the scoped settings. Returns (model, report Section)."""
    m = model if in_place else model.clone()
    scope = attach(m, settings)
    section = explain(scope.settings, profile)
    if scope.settings is not settings:
        section = section.plus("  (merged with numerics settings already on this model: later values win)")
    log.info("numerics for %s: %s", current_title() or "model", scope.settings.describe()[0])
    return m, section


def apply_cuda_settings(model, settings: CudaSettings, profile=None, in_place: bool = False):
    """As `patch_cuda_settings`; returns (model, report lines)."""
    m, section = patch_cuda_settings(model, settings, profile, in_place)
    return m, section.render()
