"""Accel Attention: run this MODEL's attention with a chosen (or the fastest measured) backend."""
from __future__ import annotations

from comfy_api.latest import io

from ..accel.common.errors import AccelError
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
from ._inputs import checked, shown

LEGACY_FALLBACK = ("sdpa",)  # the old word for "fall back" (still validates)


def _choices():
    """'auto' plus the backends usable here: accel.attention.override.installed_backends, computed from the registry
    alone, because ComfyUI builds a V3 node's schema when it registers the node (start-up), and importing
    accel.attention.override there would import the kernel adapters (and register their custom ops) before any run."""
    from ..kernels.attention import registry

    try:
        from ..accel.common import hardware

        prof = hardware.profile()
        return ["auto"] + [n for n in registry.BACKENDS if registry.available(n, prof)[0]]
    except Exception:  # never break the node list; the run reports the real problem
        return ["auto"] + list(registry.BACKENDS)


def _known_backend(node, input_name, value, options):
    """COMBO_RULES entry for `backend`: any backend the pack knows, installed here or not (a shared workflow naming a
    backend installed on another machine validates here and then follows `fallback`)."""
    from ..kernels.attention import registry

    if isinstance(value, str) and (value == "auto" or value in registry.BACKENDS):
        return None
    return AccelError(input_name, f"unknown attention backend {shown(value)}",
                      "Pick auto or one of: " + ", ".join(registry.BACKENDS), title=node)


HYBRID_INPUTS = ("exact_first_steps", "exact_last_steps", "exact_first_blocks", "exact_last_blocks")


def _hybrid_inputs():
    """Advanced inputs of the hybrid schedule of low-precision backends; defaults from accel.common.defaults.HYBRID."""
    from ..accel.common.defaults import HYBRID

    tips = {
        "exact_first_steps": "Low-precision backends only (Sage, FP8, INT8): exact attention on this many first "
                             "sampling steps (they lay out the composition).",
        "exact_last_steps": "Low-precision backends only: exact attention on this many last sampling steps (they "
                            "settle fine detail).",
        "exact_first_blocks": "Low-precision backends only: exact attention in this many first transformer blocks "
                              "(ComfyUI 0.33 Wan and Flux). Under Accel Compile this costs a graph break per call.",
        "exact_last_blocks": "Low-precision backends only: exact attention in this many last transformer blocks.",
    }
    return [io.Int.Input(name, default=getattr(HYBRID, name), min=0, max=10000, optional=True, **advanced(),
                         tooltip=tips[name]) for name in HYBRID_INPUTS]


SPARSE_INPUTS = ("dense_steps", "dense_blocks", "decay_factor")


def _sparse_inputs():
    """Advanced inputs of the radial_sparse backend; defaults from accel.common.defaults.SPARSE."""
    from ..accel.common.defaults import SPARSE

    return [
        io.Int.Input("dense_steps", default=SPARSE.dense_steps, min=-1, max=10000, optional=True, **advanced(),
                     tooltip="radial_sparse only: exact dense attention on this many first sampling steps of each "
                             "sampler run; -1 = the first quarter, as the method's authors run it (none in a run that "
                             "continues a partly denoised latent, e.g. Wan 2.2's second expert)."),
        io.Int.Input("dense_blocks", default=SPARSE.dense_blocks, min=0, max=10000, optional=True, **advanced(),
                     tooltip="radial_sparse only: exact dense attention in this many first and this many last "
                             "transformer blocks."),
        io.Float.Input("decay_factor", default=SPARSE.decay_factor, min=0.01, max=100.0, step=0.05, optional=True,
                       **advanced(), tooltip="radial_sparse only: width of the radial pattern's spatial window; "
                                             "larger keeps more attention (less sparse, slower)."),
    ]


class AccelAttention(AccelNode):
    COMBO_RULES = {"backend": _known_backend, "fallback": legacy_failure(LEGACY_FALLBACK)}

    @classmethod
    def define_schema(cls):
        return schema(
            node_id="AccelAttention",
            display_name="Accel Attention",
            category=CATEGORY_PATCH,
            description="Runs this model's attention on one backend (FlashAttention, SageAttention, cuDNN SDPA, "
                        "xFormers, ...) or, with auto, the fastest exact one for this GPU. Use it to speed up "
                        "sampling of any model; the report says what was chosen and why.",
            search_aliases=["flash attention", "sage attention", "sdpa", "xformers", "sparse attention",
                            "radial attention"],
            inputs=[
                io.Model.Input("model", tooltip="The diffusion model to patch (a clone is patched; the input stays "
                                                "as is)."),
                io.Combo.Input("backend", options=_choices(), default="auto", tooltip=(
                    "auto: the fastest exact backend for this GPU. Lists the backends usable here; a workflow "
                    "naming one missing here still loads and follows fallback. Quantized backends are never "
                    "chosen by auto.")),
                failure_input("fallback", (
                    "fall back: calls or backends that cannot run here use ComfyUI's own attention, warned once. "
                    "error: stop with a message naming the reason. (Older workflows' sdpa means fall back.)")),
                io.Boolean.Input("autotune", default=False, optional=True, **advanced(), tooltip=(
                    "Time every usable exact backend on the first call of each attention shape and keep the "
                    "fastest. Cached on disk per GPU and shape: only the first run pays.")),
                *_hybrid_inputs(),
                *_sparse_inputs(),
            ],
            outputs=[model_output("A clone of the input model whose attention runs on the chosen backend."),
                     report_output("What was chosen and why, what each call falls back to, and what was skipped.")],
        )

    @classmethod
    @checked
    def execute(cls, model, backend, fallback, autotune=False, **schedule):
        from ..accel.attention import options as attention
        from ..accel.attention.hybrid import Hybrid
        from ..accel.attention.sparse import settings_from_inputs

        policy = failure_policy("fallback", fallback, LEGACY_FALLBACK)
        sparse = settings_from_inputs(**{n: schedule.pop(n) for n in SPARSE_INPUTS if n in schedule})
        options = attention.AttentionOptions(backend, policy, bool(autotune), Hybrid.from_inputs(**schedule),
                                             sparse=sparse)
        return patched_live(attention.apply(model, options), cls.DISPLAY)


NODES = [AccelAttention]
