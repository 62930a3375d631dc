"""Accel Compile's contract: `CompileOptions` (the node's inputs, checked when built) and
`apply(model, options) -> (patched clone, Report)`, on top of accel.compile.apply."""
from __future__ import annotations

from dataclasses import dataclass

from ..common.policy import Policy, as_policy
from .apply import compile_model
from .config import CompileConfig, validate


@dataclass(frozen=True)
class CompileOptions:
    """The node's inputs (accel.compile.config: MODES, SCOPES, DYNAMIC, BACKENDS); `policy` is its `on_failure`.
    mode_chain (presets and scripts; the node compiles `mode` alone): modes tried in order when compiling or a
    compiled call fails, eager after the last; it replaces `mode`. cuda_graphs: "off" | "on" (accel.compile.graphs).
    prefetch: fetch the next block's streamed weights while a block runs (accel.compile.prefetch; Wan Level-1's
    `prefetch_weights`). resident: a DynamicVRAM model that fits the card is loaded resident instead (the node's
    `resident_weights`; accel.compile.apply `_clone`)."""

    mode: str = "default"
    scope: str = "blocks"
    dynamic: str = "auto"
    fullgraph: bool = False
    backend: str = "inductor"
    recompile_limit: int = 64
    policy: Policy = Policy.FALL_BACK
    mode_chain: tuple | None = None
    cuda_graphs: str = "off"
    prefetch: bool = False
    resident: bool = False

    def __post_init__(self):
        object.__setattr__(self, "policy", as_policy(self.policy))
        if self.mode_chain is not None:
            object.__setattr__(self, "mode_chain", tuple(self.mode_chain))
        self.config()  # every input checked now: AccelError naming it

    def config(self) -> CompileConfig:
        """The settings the compile wrapper runs with (a new one per call: apply adjusts it to the model)."""
        return validate(self)


def apply(model, options: CompileOptions):
    """Compile a clone of `model` (lazily, on its first sampling step); returns (clone, Report)."""
    return compile_model(model, options.config())


def apply_compile(model, **settings):
    """As `apply(model, CompileOptions(**settings))` (mode, scope, dynamic, fullgraph, backend, recompile_limit,
    policy, mode_chain; any backend torch.compile has registered), returning (patched clone, report text). Compilation
    is lazy (first sampling step); `mode_chain` (e.g. ["max-autotune-no-cudagraphs", "default"]) lists modes tried in
    order when compiling or a compiled call fails, eager after the last; `policy` FALL_BACK logs one line and runs eager
    for the rest of this model's life, ERROR raises an AccelError titled with the node running when this was called."""
    m, report = apply(model, CompileOptions(**settings))
    return m, report.render()
