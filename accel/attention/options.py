"""Accel Attention's contract: `AttentionOptions` (the node's inputs, checked when built) and
`apply(model, options) -> (patched clone, Report)`, on top of accel.attention.override."""
from __future__ import annotations

from dataclasses import dataclass

from ..common.errors import AccelError
from ..common.policy import Policy, as_policy
from .hybrid import Hybrid

QUALITIES = ("exact", "fast", "sparse")


@dataclass(frozen=True)
class AttentionOptions:
    """backend: "auto" or a registry name (kernels/attention/registry.py; installed here or not: one that cannot
    run here follows `policy`). policy: the node's `fallback`. autotune: time the usable exact backends per shape.
    hybrid: the exact steps/blocks of a low-precision backend (the node's exact_* inputs; None: none).
    quality (Accel Wan Level-1's input): "fast" uses FP8 attention on the hybrid schedule where it runs, else stays
    exact with `auto` (`backend` is then not read); "sparse" uses the sparse `backend` (radial_sparse) with `sparse`
    where it
    runs, else stays exact with `auto` (a report line says why; policy ERROR: AccelError naming 'quality').
    sparse: for backend radial_sparse, its settings (kernels.attention.sparse.runtime.RadialSettings from
    accel.attention.sparse.settings_from_inputs; None: the defaults)."""

    backend: str = "auto"
    policy: Policy = Policy.FALL_BACK
    autotune: bool = False
    hybrid: Hybrid | None = None
    quality: str = "exact"
    sparse: object = None

    def __post_init__(self):
        from ...kernels.attention import registry

        if self.backend != "auto" and self.backend not in registry.BACKENDS:
            raise AccelError("backend", f"unknown attention backend '{self.backend}'",
                             "Choose 'auto' or one of: " + ", ".join(registry.BACKENDS))
        if self.quality not in QUALITIES:
            raise AccelError("quality", f"unknown quality {self.quality!r}",
                             "Choose 'exact' (exact attention, the default), 'fast' (FP8 attention, opt-in) or "
                             "'sparse' (radial sparse attention, opt-in)")
        if self.quality == "sparse" and not (self.backend in registry.BACKENDS
                                             and registry.BACKENDS[self.backend].sparse):
            raise AccelError("backend", f"quality 'sparse' needs a sparse backend, not {self.backend!r}",
                             "Use backend 'radial_sparse' with quality 'sparse'")
        if self.hybrid is not None and not isinstance(self.hybrid, Hybrid):
            raise AccelError("hybrid", f"not a hybrid schedule: {self.hybrid!r}",
                             "Pass accel.attention.hybrid.Hybrid(...) or None")
        object.__setattr__(self, "policy", as_policy(self.policy))
        object.__setattr__(self, "autotune", bool(self.autotune))


def apply(model, options: AttentionOptions, *, profile=None, tensor_device_types=()):
    """Patch a clone of `model`; returns (clone, Report). `profile`, `tensor_device_types`: for tests and tools
    (accel.attention.override.patch_attention)."""
    from . import override

    if options.quality == "fast":
        return override.patch_fast_attention(model, options.policy, hybrid=options.hybrid, profile=profile,
                                             tensor_device_types=tensor_device_types)
    if options.quality == "sparse":
        return override.patch_sparse_attention(model, options.backend, options.policy, sparse=options.sparse,
                                               profile=profile, tensor_device_types=tensor_device_types)
    return override.patch_attention(model, options.backend, options.policy, options.autotune, hybrid=options.hybrid,
                                    sparse=options.sparse, profile=profile, tensor_device_types=tensor_device_types)

