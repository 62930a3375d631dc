"""Accel Compile: torch.compile a MODEL regionally, LoRA-safe, with bounded recompiles, a persistent
cache for warm restarts and an eager fallback that never fails the prompt."""
from __future__ import annotations

from comfy_api.latest import io

from ._common import (
    CATEGORY_PATCH,
    AccelNode,
    advanced,
    failure_input,
    failure_policy,
    legacy_failure,
    model_output,
    patched_live,
    report_output,
    schema,
)
from ._inputs import checked

_MODES = ["default", "max-autotune-no-cudagraphs", "max-autotune", "reduce-overhead"]
LEGACY_ON_FAILURE = ("eager", "raise")  # the old words for "fall back" and "error" (still validate)


class AccelCompile(AccelNode):
    COMBO_RULES = {"on_failure": legacy_failure(LEGACY_ON_FAILURE)}

    @classmethod
    def define_schema(cls):
        return schema(
            node_id="AccelCompile",
            display_name="Accel Compile",
            category=CATEGORY_PATCH,
            description="Compiles the diffusion model's transformer blocks with torch.compile while this MODEL "
                        "samples: LoRA-safe, few recompiles, cached for fast restarts, eager if compiling fails. "
                        "Use it for repeated runs of one model; the first step compiles.",
            search_aliases=["torch.compile", "inductor", "triton"],
            inputs=[
                io.Model.Input("model", tooltip="The model to compile (a clone is patched; the input is unchanged)."),
                io.Combo.Input("mode", options=_MODES, default="default", tooltip=(
                    "default: fast compile, solid speed-up. max-autotune-no-cudagraphs: benchmarks kernels "
                    "(minutes on the first run, cached). max-autotune and reduce-overhead add CUDA graphs: "
                    "experimental.")),
                io.Combo.Input("scope", options=["blocks", "model"], default="blocks", tooltip=(
                    "blocks: compile each transformer block (one shared graph: fast compile, few recompiles; "
                    "a UNet: its attention and residual layers). model: compile the whole diffusion model "
                    "(longer compile, breaks at wrappers).")),
                io.Combo.Input("dynamic", options=["auto", "true", "false"], default="auto", **advanced(), tooltip=(
                    "auto: static shapes first; a new resolution or frame count recompiles once as a dynamic "
                    "graph. true: dynamic from the start (slower kernels). false: recompile for every new shape.")),
                io.Boolean.Input("fullgraph", default=False, **advanced(), tooltip=(
                    "Fail (and follow on_failure) if the compiled region has a graph break, instead of splitting "
                    "it into several graphs.")),
                io.Combo.Input("backend", options=["inductor", "cudagraphs"], default="inductor", **advanced(),
                               tooltip="inductor: generates fused Triton/C++ kernels (the speed-up). cudagraphs: "
                                       "only records CUDA graphs of the eager kernels (CUDA only)."),
                io.Int.Input("recompile_limit", default=64, min=1, max=1024, **advanced(), tooltip=(
                    "How many compiled variants a region may collect (new shapes, batch sizes, attention "
                    "backends) before new variants run eager. Each is logged with its reason.")),
                failure_input("on_failure", (
                    "fall back: if compiling or a compiled call fails, log one line and run this model uncompiled "
                    "from then on. error: stop the prompt. (Older workflows' eager / raise mean the same.)")),
                io.Combo.Input("cuda_graphs", options=["off", "on"], default="off", optional=True, tooltip=(
                    "Experimental. on: replay each sampling step as one CUDA graph (same kernels, no per-step "
                    "Python) while the model's weights stay on the GPU. Needs ComfyUI started with "
                    "--disable-cuda-malloc. The report says whether it ran and why not.")),
                io.Boolean.Input("resident_weights", default=False, optional=True, tooltip=(
                    "On: a model ComfyUI would stream (DynamicVRAM) loads resident where it fits: same computations, "
                    "no per-step fetch. It keeps streaming where it does not fit, or where its file mixes fp8 and "
                    "16-bit tensors. One-region models (SDXL, scope model) always load so where they fit.")),
            ],
            outputs=[model_output("The model, compiled on its first sampling step."),
                     report_output("What was applied: mode, scope, cache folder, compile seconds and recompiles so "
                                   "far.")],
        )

    @classmethod
    @checked
    def execute(cls, model, mode, scope, dynamic, fullgraph, backend, recompile_limit, on_failure, cuda_graphs="off",
                resident_weights=False):
        from ..accel.compile import options as compile_

        options = compile_.CompileOptions(mode=mode, scope=scope, dynamic=dynamic, fullgraph=fullgraph, backend=backend,
                                          recompile_limit=recompile_limit,
                                          policy=failure_policy("on_failure", on_failure, LEGACY_ON_FAILURE),
                                          cuda_graphs=cuda_graphs, resident=resident_weights)
        return patched_live(compile_.apply(model, options), cls.DISPLAY)


NODES = [AccelCompile]
