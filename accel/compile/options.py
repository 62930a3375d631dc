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
    compiled call fails, eager after the last; it replaces `mode`. cuda_graphs: "off" | "on" (accel.compile.graphs)."""

    mode: str = "default"
    scope: str = "blocks"
    dynamic: str = "auto"
    fullgraph: bool = False
    backend: str = "inductor"
    recompile_limit: int = 64
    policy: Policy = Policy.FALL_BACK
    mode_chain: tuple | None = None
    cuda_graphs: str = "off"

    def __post_init__(self):
        object.__setattr__(self, "policy", as_policy(self.policy))
        if self.mode_chain is not None:
            object.__setattr__(self, "mode_chain", tuple(self.mode_chain))
        self.config()  # every input checked now: AccelError naming it

    def config(self) -> CompileConfig:
        """The settings the compile wrapper runs with (a new one per call: apply adjusts it to the model)."""
        return validate(self.mode, self.scope, self.dynamic, self.fullgraph, self.backend, self.recompile_limit,
                        self.policy, self.mode_chain, self.cuda_graphs)


def apply(model, options: CompileOptions):
    """Compile a clone of `model` (lazily, on its first sampling step); returns (clone, Report)."""
    return compile_model(model, options.config())
