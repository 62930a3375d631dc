"""Accel Wan Level-1: fast attention + per-block torch.compile + TF32 for a Wan 2.1 / 2.2 MODEL, in one node."""
from __future__ import annotations

from comfy_api.latest import io

from ..accel.common.vocabulary import ERROR
from ._common import (CATEGORY_PATCH, AccelNode, failure_input, failure_policy, model_output, patched_live,
                      report_output)


class AccelWanLevel1(AccelNode, node_id="AccelWanLevel1", display="Accel Wan Level-1", category=CATEGORY_PATCH,
                     aliases=("wan speedup", "wan preset")):
    """One node for ComfyUI's native Wan 2.1 / Wan 2.2 models (T2V, I2V, TI2V-5B, A14B experts): the fastest
    attention kernel for this GPU (FlashAttention-3 on H100/H200, FlashAttention-2 on L40/Ada/Ampere), torch.compile
    of every transformer block (inductor's default mode, falling back to eager if compiling fails) and TF32 +
    cudnn.benchmark for this model's runs only. CFG and the sampler are untouched. Not bit-identical to stock
    (other kernels round differently); the report states the measured deviation. For Wan 2.2 A14B put one node on
    each expert: the second reuses the first one's compiled code. The first run compiles (tens of seconds for Wan
    14B with a cold cache); later runs and restarts are faster. quality 'fast' (opt-in) adds FP8 attention on
    H100/H200 except on the first and last sampling steps."""

    @classmethod
    def inputs(cls):
        from ..accel.wan_level1.preset import COMPILE_MODES, QUALITIES

        return [
            io.Model.Input("model", tooltip="A Wan 2.1 or Wan 2.2 diffusion model (Load Diffusion Model). Other "
                                            "families get an error that names the generic nodes to use."),
            io.Boolean.Input("attention", default=True, tooltip=(
                "Use the fastest installed attention kernel for this GPU (same as Accel Attention 'auto'): "
                "FlashAttention-3 on H100/H200 (pip install fa3-fwd), FlashAttention-2 on Ada/Ampere, else "
                "PyTorch SDPA. Off: ComfyUI's own attention.")),
            io.Boolean.Input("compile", default=True, tooltip=(
                "torch.compile each transformer block (needs triton on GPU). The first sampling step compiles; "
                "if compiling fails the model runs uncompiled (eager) and the log says why.")),
            io.Combo.Input("compile_mode", options=list(COMPILE_MODES), default="auto", tooltip=(
                "auto: inductor's default mode (max-autotune measured within 1% of it on Wan blocks, for "
                "minutes more compile). max-autotune-no-cudagraphs: benchmarks kernels on the first run (minutes "
                "on a cold cache, cached afterwards), then default, then eager if compiling fails.")),
            io.Boolean.Input("tf32", default=True, tooltip=(
                "TF32 tensor cores for float32 matmuls and cuDNN convolutions (Wan's fp32 patch embedding), "
                "only while this model samples.")),
            io.Boolean.Input("cudnn_benchmark", default=True, tooltip=(
                "cudnn.benchmark while this model samples: picks the fastest convolution algorithm per "
                "resolution (the first step at a new resolution pays the search).")),
            failure_input("on_failure", (
                "fall back: if a kernel or the compile cannot be used, continue with the next best (logged "
                "once). error: stop with a message instead (to make sure you get the fast path).")),
            # last and optional: saved workflows and API prompts without it keep loading (as 'exact')
            io.Combo.Input("quality", options=list(QUALITIES), default="exact", optional=True, tooltip=(
                "exact: exact attention kernels (the default). fast: FP8 attention (H100/H200 with "
                "FlashAttention-3 built with FP8) except on the first and last sampling steps; faster, "
                "not exact: the report states the measured deviation. Where FP8 attention cannot run, "
                "attention stays exact and the report says why.")),
        ]

    OUTPUTS = (model_output("A clone of the Wan model with the Level-1 patches (the input model is unchanged)."),
               report_output("What was applied, what fell back and why, and the measured deviation from stock."))

    @classmethod
    def execute(cls, model, attention, compile, compile_mode, tf32, cudnn_benchmark, on_failure, quality="exact"):
        from ..accel.wan_level1 import preset as wan_level1

        strict = failure_policy(cls.DISPLAY, "on_failure", on_failure) == ERROR
        return patched_live(wan_level1.apply_level1(model, attention=attention, compile=compile, compile_mode=compile_mode,
                                                    tf32=tf32, cudnn_benchmark=cudnn_benchmark, strict=strict,
                                                    node=cls.DISPLAY, quality=quality or "exact"), cls.DISPLAY)


NODES = [AccelWanLevel1]
