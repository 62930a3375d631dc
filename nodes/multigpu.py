"""Accel Multi-GPU: one Wan / Flux / Qwen-Image sample on several GPUs of this machine (sequence + CFG parallel)."""
from __future__ import annotations

from comfy_api.latest import io

from ._common import CATEGORY_PATCH, AccelNode, model_output, patched, report_output, schema
from ._inputs import checked


class AccelMultiGPU(AccelNode):
    @classmethod
    def define_schema(cls):
        return schema(
            node_id="AccelMultiGPU",
            display_name="Accel Multi-GPU",
            category=CATEGORY_PATCH,
            description="Samples one Wan 2.1/2.2, Flux or Qwen-Image image or video on several GPUs of this machine "
                        "(sequence and CFG parallel), equal to one GPU's output up to rounding. Put it last in the "
                        "model chain. Experimental: Flux, Qwen-Image CPU-tested only.",
            is_experimental=True,
            search_aliases=["sequence parallel", "ulysses", "multi gpu"],
            inputs=[
                io.Model.Input("model", tooltip="A Wan 2.1/2.2, Flux or Qwen-Image model (a clone is patched; the "
                                                "input is unchanged)."),
                io.Int.Input("gpus", default=2, min=1, max=16, tooltip=(
                    "How many GPUs (worker processes) share one sample: GPUs 0..gpus-1 (CUDA_VISIBLE_DEVICES "
                    "chooses which). 1: no workers, stock sampling.")),
                io.Combo.Input("device", options=["cuda", "cpu"], default="cuda", tooltip=(
                    "cuda: one GPU per worker, NCCL. cpu: CPU workers over gloo (slow; for tests and debugging).")),
                io.Combo.Input("cfg_parallel", options=["on", "off"], default="on", optional=True, tooltip=(
                    "on: with an even number of GPUs and CFG > 1, cond and uncond run on separate halves of the "
                    "GPUs. off: sequence parallel only.")),
            ],
            outputs=[model_output("The model, sampled by the worker processes."), report_output("What was applied.")],
        )

    @classmethod
    @checked
    def execute(cls, model, gpus, device, cfg_parallel="on"):
        from ..accel.multigpu.options import MultiGPUOptions, apply

        return patched(apply(model, MultiGPUOptions(gpus, device, cfg_parallel or "on")))


NODES = [AccelMultiGPU]
