"""Accel Wan Level-1 and Accel MiniMax-H3 Level-1: fast attention + per-block torch.compile + TF32 for a Wan 2.1 / 2.2
or a MiniMax-H3 MODEL, in one node (one preset, accel/wan_level1/preset.py, with the family's own check and notes)."""
from __future__ import annotations

from comfy_api.latest import io

from ..accel.wan_level1.preset import prefetch_measured
from ._common import (
    CATEGORY_PATCH,
    AccelNode,
    failure_input,
    failure_policy,
    model_output,
    patched_live,
    report_output,
    schema,
)
from ._inputs import checked


class AccelWanLevel1(AccelNode):
    TARGET = "WAN"  # the preset's target (accel.wan_level1.preset): the family it checks for and its notes

    @classmethod
    def define_schema(cls):
        return schema(
            node_id="AccelWanLevel1",
            display_name="Accel Wan Level-1",
            category=CATEGORY_PATCH,
            description="Speeds up ComfyUI's native Wan 2.1 / 2.2 models in one node: the fastest attention kernel for "
                        "this GPU, torch.compile of every transformer block, and TF32 + cudnn.benchmark for this "
                        "model's runs. Wan 2.2 A14B: one per expert.",
            search_aliases=["wan speedup", "wan preset"],
            inputs=level1_inputs("A Wan 2.1 or Wan 2.2 diffusion model (Load Diffusion Model). Other families get "
                                 "an error that names the generic nodes to use."),
            outputs=[model_output("A clone of the Wan model with the Level-1 patches (the input model is "
                                  "unchanged)."),
                     report_output("What was applied, what fell back and why, and the measured deviation from "
                                   "stock.")],
        )

    @classmethod
    @checked
    def execute(cls, model, attention, compile, compile_mode, tf32, cudnn_benchmark, on_failure, quality="exact",
                prefetch_weights=False):
        from ..accel.wan_level1 import preset as level1

        options = level1.WanLevel1Options(attention, compile, compile_mode, tf32, cudnn_benchmark,
                                          failure_policy("on_failure", on_failure), quality or "exact",
                                          bool(prefetch_weights))
        return patched_live(level1.apply(model, options, target=getattr(level1, cls.TARGET)), cls.DISPLAY)


def level1_inputs(model_tooltip: str) -> list:
    """The inputs of the Level-1 nodes (one preset): the model, then the chain's switches."""
    from ..accel.wan_level1.preset import COMPILE_MODES, QUALITIES

    return [
        io.Model.Input("model", tooltip=model_tooltip),
        io.Boolean.Input("attention", default=True, tooltip=(
            "Use the fastest installed attention kernel for this GPU (as Accel Attention auto): "
            "FlashAttention-3 on H100/H200, FlashAttention-2 on Ada/Ampere, else PyTorch SDPA. Off: "
            "ComfyUI's own attention.")),
        io.Boolean.Input("compile", default=True, tooltip=(
            "torch.compile each transformer block (needs triton on GPU). The first sampling step "
            "compiles; if compiling fails the model runs uncompiled and the log says why.")),
        io.Combo.Input("compile_mode", options=list(COMPILE_MODES), default="auto", tooltip=(
            "auto: inductor's default mode. max-autotune-no-cudagraphs: benchmarks kernels on the first "
            "run (minutes on a cold cache, cached afterwards), then default, then eager if compiling "
            "fails.")),
        io.Boolean.Input("tf32", default=True, tooltip=(
            "TF32 tensor cores for float32 matmuls and cuDNN convolutions (the model's fp32 layers, e.g. its patch "
            "embedding), only while this model samples.")),
        io.Boolean.Input("cudnn_benchmark", default=True, tooltip=(
            "cudnn.benchmark while this model samples: the fastest convolution algorithm per resolution "
            "(the first step at a new resolution pays the search).")),
        failure_input("on_failure", (
            "fall back: if a kernel or the compile cannot be used, continue with the next best (logged "
            "once). error: stop with a message instead (to make sure you get the fast path).")),
        # last and optional: saved workflows and API prompts without it keep loading (as 'exact')
        io.Combo.Input("quality", options=list(QUALITIES), default="exact", optional=True, tooltip=(
            "exact: exact attention kernels. fast: FP8 attention (H100/H200) except on the schedule's first and "
            "last steps (A14B: over both experts); not exact. sparse (radial, opt-in): radial sparse attention for "
            "long videos (CUDA), dense on the first steps and blocks. The report says what ran.")),
        io.Boolean.Input("prefetch_weights", default=False, optional=True, tooltip=(
            "Cards that cannot hold the model: fetch the next block's weights while a block runs (the same "
            "computations; bit for bit in the CPU tests). Needs compile. " + prefetch_measured() + ".")),
    ]


class AccelMiniMaxH3Level1(AccelWanLevel1):
    """The same preset and inputs, for MiniMax-H3."""

    TARGET = "MINIMAX_H3"

    @classmethod
    def define_schema(cls):
        return schema(
            node_id="AccelMiniMaxH3Level1",
            display_name="Accel MiniMax-H3 Level-1",
            category=CATEGORY_PATCH,
            description="Speeds up ComfyUI's native MiniMax-H3 (video with audio) in one node: the fastest attention "
                        "kernel for this GPU, torch.compile of every block (video and audio together), and TF32 + "
                        "cudnn.benchmark for this model's runs.",
            search_aliases=["h3 speedup", "minimax preset"],
            inputs=level1_inputs("A MiniMax-H3 diffusion model (Load Diffusion Model). Other families get an error "
                                 "that names the node to use."),
            outputs=[model_output("A clone of the MiniMax-H3 model with the Level-1 patches (the input model is "
                                  "unchanged)."),
                     report_output("What was applied, what fell back and why, and the measured deviation from "
                                   "stock.")],
        )


NODES = [AccelWanLevel1, AccelMiniMaxH3Level1]
