"""Accel Attention: run this MODEL's attention with a chosen (or the fastest measured) backend."""
from __future__ import annotations

from comfy_api.latest import io

from ..accel.vocabulary import FALL_BACK
from ._common import (CATEGORY_PATCH, AccelNode, advanced, check_failure, failure_input, failure_policy, model_output,
                      report_output, with_report)

LEGACY_FALLBACK = ("sdpa",)  # the old word for "fall back" (still validates)


def _choices():
    """'auto' plus the backends usable here: accel.attention.installed_backends, computed from the registry
    alone, because ComfyUI builds a V3 node's schema when it registers the node (start-up), and importing
    accel.attention there would import the kernel adapters (and register their custom ops) before any run."""
    from ..kernels.attention import registry

    try:
        from ..accel import hardware

        prof = hardware.profile()
        return ["auto"] + [n for n in registry.BACKENDS if registry.available(n, prof)[0]]
    except Exception:  # never break the node list; the run reports the real problem
        return ["auto"] + list(registry.BACKENDS)


class AccelAttention(AccelNode):
    NODE_ID = "AccelAttention"
    DISPLAY = "Accel Attention"

    @classmethod
    def define_schema(cls):
        return cls.schema(
            category=CATEGORY_PATCH,
            description=(
                "Runs this model's attention with one backend (FlashAttention-3/2, SageAttention, cuDNN/flash/"
                "efficient SDPA, xFormers, ...) on a patched clone: other MODEL outputs and ComfyUI's global "
                "settings are untouched. 'auto' picks the fastest exact backend measured for this GPU (FA3 on "
                "H100/H200, FA2 on Ada/Ampere, cuDNN SDPA on Hopper without FA3, ...). Calls a backend cannot "
                "serve (masks, unusual head sizes, float32, non-CUDA tensors) use ComfyUI's attention, warned "
                "once. The report output says what was chosen and why."),
            search_aliases=("flash attention", "sage attention", "sdpa", "xformers"),
            inputs=[
                io.Model.Input("model", tooltip="The diffusion model to patch (a clone is patched; the input stays as is)."),
                io.Combo.Input("backend", options=_choices(), default="auto", tooltip=(
                    "Attention backend. 'auto' = the fastest exact backend for this GPU (see the report). "
                    "Only backends usable on this machine are listed; a workflow naming one that is "
                    "missing here still loads and then follows 'fallback'.")),
                failure_input("fallback", (
                    "fall back: calls the backend cannot serve (masks, head sizes, float32, ...) and a backend "
                    "that is not installed here use ComfyUI's own attention (PyTorch SDPA on GPUs), with "
                    "one warning per reason. error: stop with a message naming the reason and the package. "
                    "(Older workflows' 'sdpa' means fall back.)")),
                io.Boolean.Input("autotune", default=False, optional=True, **advanced(), tooltip=(
                    "Time every usable exact backend (all Sage kernels too if a Sage backend is chosen) on "
                    "the first real call of each attention shape and keep the fastest. Results are cached "
                    "on disk per GPU and shape, so only the first run pays (about a second per shape).")),
            ],
            outputs=[
                model_output("A clone of the input model whose attention runs on the chosen backend."),
                report_output("What was chosen and why, what each call falls back to, and what was skipped."),
            ])

    @classmethod
    def validate_inputs(cls, backend, fallback=FALL_BACK):
        # Replaces ComfyUI's "value not in list" check for `backend`: a shared workflow that names a backend
        # installed on another machine validates here and then follows `fallback`; and for `fallback`, whose
        # legacy value 'sdpa' still validates.
        from ..kernels.attention import registry

        bad = check_failure("fallback", fallback, LEGACY_FALLBACK)
        if bad is not True:
            return bad
        if not isinstance(backend, str):  # linked from another node: checked when the node runs
            return True
        if backend == "auto" or backend in registry.BACKENDS:
            return True
        return f"unknown attention backend '{backend}' (known: auto, {', '.join(registry.BACKENDS)})"

    @classmethod
    def execute(cls, model, backend, fallback, autotune=False):
        from ..accel.attention import apply_attention

        policy = failure_policy(cls.DISPLAY, "fallback", fallback, LEGACY_FALLBACK)
        patched, report = apply_attention(model, backend=backend, fallback="sdpa" if policy == FALL_BACK else "error",
                                          autotune=bool(autotune), node=cls.DISPLAY)
        return with_report(patched, report, report=report)


NODES = [AccelAttention]
