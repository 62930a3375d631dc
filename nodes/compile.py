"""Accel Compile: torch.compile a MODEL regionally, LoRA-safe, with bounded recompiles, a persistent
cache for warm restarts and an eager fallback that never fails the prompt."""
from __future__ import annotations

from ._common import CATEGORY_PATCH

_MODES = ["default", "max-autotune-no-cudagraphs", "max-autotune", "reduce-overhead"]


class AccelCompile:
    DESCRIPTION = (
        "Compiles the diffusion model with torch.compile, applied only while this MODEL samples (a patched "
        "clone; other outputs of the loader stay eager). Compiles each transformer block with one shared "
        "graph by default, ignores transformer_options in its guards (LoRA strength, cond/uncond and cache "
        "changes never recompile, LoRAs before or after this node take effect), recompiles at most once for a "
        "new resolution or frame count, keeps compiled kernels in ComfyUI/user/comfyui-accel/compile-cache for "
        "fast restarts, and falls back to eager with one log line if compiling fails. Compilation happens on "
        "the first sampling step.")
    CATEGORY = CATEGORY_PATCH
    FUNCTION = "patch"
    RETURN_TYPES = ("MODEL", "STRING")
    RETURN_NAMES = ("model", "report")
    OUTPUT_TOOLTIPS = ("The model, compiled on its first sampling step.",
                       "What was applied: mode, scope, cache folder, compile seconds and recompiles so far.")

    @classmethod
    def INPUT_TYPES(cls):
        return {
            "required": {
                "model": ("MODEL", {"tooltip": "The model to compile (a clone is patched; the input is unchanged)."}),
                "mode": (_MODES, {"default": "default", "tooltip":
                    "default: fast compile, solid speed-up. max-autotune-no-cudagraphs: benchmarks matmul/fusion "
                    "kernels (minutes on the first run, cached afterwards), usually the fastest here. max-autotune and "
                    "reduce-overhead add CUDA graphs: experimental with ComfyUI's per-call module swap; if they fail "
                    "the model runs eager (see on_failure)."}),
                "scope": (["blocks", "model"], {"default": "blocks", "tooltip":
                    "blocks: compile each transformer block (one graph shared by all blocks: fast compile, few "
                    "recompiles). model: compile the whole diffusion model (longer compile, breaks at wrappers)."}),
                "dynamic": (["auto", "true", "false"], {"default": "auto", "tooltip":
                    "auto: static shapes first; a new resolution or frame count recompiles once into a dynamic "
                    "graph. true: dynamic from the start (slower kernels). false: recompile for every new shape."}),
                "fullgraph": ("BOOLEAN", {"default": False, "tooltip":
                    "Fail (and fall back per on_failure) if the compiled region has a graph break, instead of "
                    "splitting it into several graphs."}),
                "backend": (["inductor", "cudagraphs"], {"default": "inductor", "tooltip":
                    "inductor: generates fused Triton/C++ kernels (the speed-up). cudagraphs: only records CUDA "
                    "graphs of the eager kernels (CUDA only)."}),
                "recompile_limit": ("INT", {"default": 64, "min": 1, "max": 1024, "tooltip":
                    "How many compiled variants a region may collect (new shapes, batch sizes, attention "
                    "backends) before new variants run eager. Each is logged with its reason."}),
                "on_failure": (["eager", "raise"], {"default": "eager", "tooltip":
                    "eager: if compiling or a compiled call fails, log one line and run this model eager from "
                    "then on (the prompt succeeds). raise: stop the prompt with the error."}),
            }
        }

    def patch(self, model, mode, scope, dynamic, fullgraph, backend, recompile_limit, on_failure):
        from ..accel.compile import apply_compile

        m, report = apply_compile(model, mode=mode, scope=scope, dynamic=dynamic, fullgraph=fullgraph,
                                  backend=backend, recompile_limit=recompile_limit, on_failure=on_failure,
                                  node="Accel Compile")
        return {"ui": {"text": [report]}, "result": (m, report)}


NODE_CLASS_MAPPINGS = {"AccelCompile": AccelCompile}
NODE_DISPLAY_NAME_MAPPINGS = {"AccelCompile": "Accel Compile"}
