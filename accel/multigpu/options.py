"""Accel Multi-GPU's contract: `MultiGPUOptions` (the node's inputs) and `apply(model, options)` -> (patched clone,
Report), as every feature has (accel.common.report). The work is in accel.multigpu.patch."""
from __future__ import annotations

from dataclasses import dataclass, field

from ..common.errors import AccelError
from .patch import CFG_PARALLEL, DEVICES, patch_model


@dataclass(frozen=True)
class MultiGPUOptions:
    """gpus: how many worker processes share one sample (1: stock sampling in ComfyUI's process); device: "cuda" (one
    GPU per worker, NCCL) or "cpu" (gloo: tests, debugging); cfg_parallel: "on" | "off". `pool`: the worker pool's
    settings (tests and benchmarks: timeouts; accel.multigpu.pool.get_pool)."""

    gpus: int = 2
    device: str = "cuda"
    cfg_parallel: str = "on"
    pool: dict = field(default_factory=dict, compare=False)

    def __post_init__(self):
        if isinstance(self.gpus, bool) or not isinstance(self.gpus, int):
            raise AccelError("gpus", f"expected a whole number, got {self.gpus!r}", "Set gpus to 1-16")
        if self.device not in DEVICES:
            raise AccelError("device", f"{self.device!r} is not one of {DEVICES}", "Pick cuda (or cpu for tests)")
        if self.cfg_parallel not in CFG_PARALLEL:
            raise AccelError("cfg_parallel", f"{self.cfg_parallel!r} is not one of {CFG_PARALLEL}", "Pick on or off")


def apply(model, options: MultiGPUOptions) -> tuple:
    """(patched clone, Report): the clone's sampling runs on `options.gpus` worker processes (accel.multigpu.patch);
    every check that can fail runs now, before any sampling."""
    return patch_model(model, options.gpus, options.device, options.cfg_parallel, **options.pool)
