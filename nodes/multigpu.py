"""Accel Multi-GPU: one Wan / Flux / Qwen-Image sample on several GPUs of this machine (sequence + CFG parallel)."""
from __future__ import annotations

from comfy_api.latest import io

from ._common import CATEGORY_PATCH, AccelNode, model_output, report_output, with_report


class AccelMultiGPU(AccelNode):
    NODE_ID = "AccelMultiGPU"
    DISPLAY = "Accel Multi-GPU"

    @classmethod
    def define_schema(cls):
        return cls.schema(
            category=CATEGORY_PATCH,
            experimental=True,
            description=(
                "Runs the diffusion model (Wan 2.1/2.2, Flux, Qwen-Image) of one sample on several GPUs: worker processes (one per GPU, started "
                "on the first sampling step and kept for later prompts) each hold the weights and process 1/N of the "
                "image/video tokens (text tokens stay whole); attention exchanges heads between GPUs (Ulysses all-to-all, via the yunchang package). "
                "The output equals one GPU's up to float rounding. gpus=1 samples as stock. Put it last in the model "
                "chain (after LoRAs and Accel Attention). Experimental: verified on the CPU (2 processes over gloo, "
                "equal to one process); not yet run on GPUs."),
            search_aliases=("sequence parallel", "ulysses", "multi gpu"),
            inputs=[
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
            ],
            outputs=[model_output("The model, sampled by the worker processes."), report_output("What was applied.")])

    @classmethod
    def execute(cls, model, gpus, device, cfg_parallel="on"):
        from ..accel.multigpu.patch import apply_multigpu

        m, report = apply_multigpu(model, gpus=gpus, device=device, node=cls.DISPLAY, cfg_parallel=cfg_parallel)
        return with_report(m, report, report=report)


NODES = [AccelMultiGPU]
