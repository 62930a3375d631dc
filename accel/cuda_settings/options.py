"""Accel CUDA Settings' contract: `CudaSettingsOptions` (the node's inputs, checked when built) and
`apply(model, options) -> (patched clone, Report)`, on top of accel.cuda_settings.flags."""
from __future__ import annotations

from dataclasses import dataclass

from ..common import families, gains, hardware
from ..common.errors import current_title
from ..common.report import Report, Section
from . import flags


@dataclass(frozen=True)
class CudaSettingsOptions:
    """The node's inputs: four switches, each "on" | "off" | "unchanged" (flags.ON_OFF_UNCHANGED), and the SDPA
    kernel order, a flags.SDPA_PRESETS label ("auto ...": the order measured fastest for this GPU)."""

    tf32_matmul: str = "on"
    tf32_cudnn: str = "on"
    cudnn_benchmark: str = "on"
    fp16_accumulation: str = "unchanged"
    sdpa_order: str = flags.SDPA_AUTO

    def __post_init__(self):
        flags.check_inputs(self.tf32_matmul, self.tf32_cudnn, self.cudnn_benchmark, self.fp16_accumulation,
                           self.sdpa_order)

    def settings(self, profile) -> tuple:
        """(flags.CudaSettings, the line explaining an `auto` SDPA order or None) for this machine."""
        return flags.from_inputs(self.tf32_matmul, self.tf32_cudnn, self.cudnn_benchmark, self.fp16_accumulation,
                                 self.sdpa_order, profile)


def apply(model, options: CudaSettingsOptions, *, profile=None, in_place: bool = False):
    """A clone of `model` (the model itself with in_place: a preset's own clone) carrying the settings for its
    sampling runs; returns (model, Report): a headline naming the node, then the numerics section."""
    prof = profile if profile is not None else hardware.profile()
    settings, auto_line = options.settings(prof)
    m, numerics = flags.patch_cuda_settings(model, settings, profile=prof, in_place=in_place)
    if auto_line:
        numerics = numerics.plus(auto_line)
    title = current_title() or "Accel CUDA Settings"
    summary = (f"{title}: {numerics.text}, for this model's runs",
               gains.gain_line(gains.EXACT, families.detect(model), prof))
    return m, Report([Section(title), numerics], summary=summary)
