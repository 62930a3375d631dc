"""Accel Multi-GPU: one Wan / Flux / Qwen-Image sample on several GPUs of this machine (sequence + CFG parallel)."""
from __future__ import annotations

from comfy_api.latest import io

from ._common import CATEGORY_PATCH, AccelNode, model_output, patched, report_output


class AccelMultiGPU(AccelNode, node_id="AccelMultiGPU", display="Accel Multi-GPU", category=CATEGORY_PATCH,
                    experimental=True, aliases=("sequence parallel", "ulysses", "multi gpu")):
    """Runs the diffusion model (Wan 2.1/2.2, Flux, Qwen-Image) of one sample on several GPUs: worker processes
    (one per GPU, started on the first sampling step and kept for later prompts) each hold the weights and
    process 1/N of the image/video tokens (text tokens stay whole); attention exchanges heads between GPUs
    (Ulysses all-to-all, via the yunchang package). The output equals one GPU's up to float rounding. gpus=1
    samples as stock. Put it last in the model chain (after LoRAs and Accel Attention). Experimental: measured
    on 2 H200 GPUs with Wan 14B (README, Results); Flux and Qwen-Image verified on the CPU only."""

    @classmethod
    def inputs(cls):
        return [
            io.Model.Input("model", tooltip="A Wan 2.1/2.2, Flux or Qwen-Image model (a clone is patched; the input is unchanged)."),
            io.Int.Input("gpus", default=2, min=1, max=16, tooltip=(
                "How many GPUs (worker processes) share one sample. Uses GPUs 0..gpus-1 "
                "(CUDA_VISIBLE_DEVICES chooses which). 1: no workers, stock sampling.")),
            io.Combo.Input("device", options=["cuda", "cpu"], default="cuda", tooltip=(
                "cuda: one GPU per worker, NCCL. cpu: CPU workers over gloo (slow; for tests and debugging).")),
            io.Combo.Input("cfg_parallel", options=["on", "off"], default="on", optional=True, tooltip=(
                "on: with an even number of GPUs and CFG > 1, cond and uncond run on separate halves of the GPUs "
                "(2 GPUs: one each, no attention exchange; 4: 2 x 2). Steps that carry only one of them (CFG 1) "
                "use all GPUs for the sequence. off: sequence parallel only.")),
        ]

    OUTPUTS = (model_output("The model, sampled by the worker processes."), report_output("What was applied."))

    @classmethod
    def execute(cls, model, gpus, device, cfg_parallel="on"):
        from ..accel.multigpu.patch import apply_multigpu

        return patched(apply_multigpu(model, gpus=gpus, device=device, node=cls.DISPLAY, cfg_parallel=cfg_parallel))


NODES = [AccelMultiGPU]
