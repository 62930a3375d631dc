"""Accel Multi-GPU: one Wan sample on several GPUs of this machine (sequence parallel, Ulysses)."""
from __future__ import annotations

from ._common import CATEGORY_PATCH, report_ui


class AccelMultiGPU:
    DESCRIPTION = (
        "Runs the Wan diffusion model of one sample on several GPUs: worker processes (one per GPU, started on "
        "the first sampling step and kept for later prompts) each hold the weights and process 1/N of the video "
        "tokens; attention exchanges heads between GPUs (Ulysses all-to-all, via the yunchang package). The output "
        "equals one GPU's up to float rounding. gpus=1 samples as stock. Put it last in the model chain (after "
        "LoRAs and Accel Attention). Experimental: verified on the CPU (2 processes over gloo, equal to one "
        "process); not yet run on GPUs.")
    EXPERIMENTAL = True
    CATEGORY = CATEGORY_PATCH
    FUNCTION = "patch"
    RETURN_TYPES = ("MODEL", "STRING")
    RETURN_NAMES = ("model", "report")
    OUTPUT_TOOLTIPS = ("The model, sampled by the worker processes.", "What was applied.")

    @classmethod
    def INPUT_TYPES(cls):
        return {
            "required": {
                "model": ("MODEL", {"tooltip": "A Wan 2.1/2.2 model (a clone is patched; the input is unchanged)."}),
                "gpus": ("INT", {"default": 2, "min": 1, "max": 16, "tooltip":
                    "How many GPUs (worker processes) share one sample. Uses GPUs 0..gpus-1 "
                    "(CUDA_VISIBLE_DEVICES chooses which). 1: no workers, stock sampling."}),
                "device": (["cuda", "cpu"], {"default": "cuda", "tooltip":
                    "cuda: one GPU per worker, NCCL. cpu: CPU workers over gloo (slow; for tests and debugging)."}),
            }
        }

    def patch(self, model, gpus, device):
        from ..accel.multigpu.patch import apply_multigpu

        m, report = apply_multigpu(model, gpus=gpus, device=device, node="Accel Multi-GPU")
        return {"ui": report_ui(report), "result": (m, report)}


NODE_CLASS_MAPPINGS = {"AccelMultiGPU": AccelMultiGPU}
NODE_DISPLAY_NAME_MAPPINGS = {"AccelMultiGPU": "Accel Multi-GPU"}
