"""Accel Compile: torch.compile a MODEL regionally, LoRA-safe, with bounded recompiles, a persistent
cache for warm restarts and an eager fallback that never fails the prompt."""
from __future__ import annotations

from comfy_api.latest import io

from ..accel.common.vocabulary import FALL_BACK
from ._common import (CATEGORY_PATCH, AccelNode, advanced, failure_input, failure_policy, legacy_failure, model_output,
                      patched_live, report_output)

_MODES = ["default", "max-autotune-no-cudagraphs", "max-autotune", "reduce-overhead"]
LEGACY_ON_FAILURE = ("eager", "raise")  # the old words for "fall back" and "error" (still validate)


class AccelCompile(AccelNode, node_id="AccelCompile", display="Accel Compile", category=CATEGORY_PATCH,
                   aliases=("torch.compile", "inductor", "triton")):
    """Compiles the diffusion model with torch.compile, applied only while this MODEL samples (a patched clone;
    other outputs of the loader stay eager). Compiles each transformer block with one shared graph by default,
    ignores transformer_options in its guards (LoRA strength, cond/uncond and cache changes never recompile,
    LoRAs before or after this node take effect), recompiles at most once for a new resolution or frame count,
    keeps compiled kernels in ComfyUI/user/comfyui-accel/compile-cache for fast restarts, and falls back to
    eager with one log line if compiling fails. Compilation happens on the first sampling step."""

    @classmethod
    def inputs(cls):
        return [
            io.Model.Input("model", tooltip="The model to compile (a clone is patched; the input is unchanged)."),
            io.Combo.Input("mode", options=_MODES, default="default", tooltip=(
                "default: fast compile, solid speed-up. max-autotune-no-cudagraphs: benchmarks matmul/fusion "
                "kernels (minutes on the first run, cached afterwards); measured within 1% of default on Wan "
                "blocks (H100). max-autotune and "
                "reduce-overhead add CUDA graphs: experimental with ComfyUI's per-call module swap; if they fail "
                "the model runs eager (see on_failure).")),
            io.Combo.Input("scope", options=["blocks", "model"], default="blocks", tooltip=(
                "blocks: compile each transformer block (one graph shared by all blocks: fast compile, few "
                "recompiles). model: compile the whole diffusion model (longer compile, breaks at wrappers).")),
            io.Combo.Input("dynamic", options=["auto", "true", "false"], default="auto", **advanced(), tooltip=(
                "auto: static shapes first; a new resolution or frame count recompiles once into a dynamic "
                "graph. true: dynamic from the start (slower kernels). false: recompile for every new shape.")),
            io.Boolean.Input("fullgraph", default=False, **advanced(), tooltip=(
                "Fail (and fall back per on_failure) if the compiled region has a graph break, instead of "
                "splitting it into several graphs.")),
            io.Combo.Input("backend", options=["inductor", "cudagraphs"], default="inductor", **advanced(), tooltip=(
                "inductor: generates fused Triton/C++ kernels (the speed-up). cudagraphs: only records CUDA "
                "graphs of the eager kernels (CUDA only).")),
            io.Int.Input("recompile_limit", default=64, min=1, max=1024, **advanced(), tooltip=(
                "How many compiled variants a region may collect (new shapes, batch sizes, attention "
                "backends) before new variants run eager. Each is logged with its reason.")),
            failure_input("on_failure", (
                "fall back: if compiling or a compiled call fails, log one line and run this model eager "
                "(uncompiled) from then on (the prompt succeeds). error: stop the prompt with the error. "
                "(Older workflows' 'eager' / 'raise' mean the same.)")),
        ]

    COMBO_RULES = {"on_failure": legacy_failure(LEGACY_ON_FAILURE)}
    OUTPUTS = (model_output("The model, compiled on its first sampling step."),
               report_output("What was applied: mode, scope, cache folder, compile seconds and recompiles so far."))

    @classmethod
    def execute(cls, model, mode, scope, dynamic, fullgraph, backend, recompile_limit, on_failure):
        from ..accel.compile import apply_compile

        policy = failure_policy(cls.DISPLAY, "on_failure", on_failure, LEGACY_ON_FAILURE)
        return patched_live(apply_compile(model, mode=mode, scope=scope, dynamic=dynamic, fullgraph=fullgraph,
                                     backend=backend, recompile_limit=recompile_limit,
                                     on_failure="eager" if policy == FALL_BACK else "raise", node=cls.DISPLAY), cls.DISPLAY)


NODES = [AccelCompile]
