"""The hybrid schedule of low-precision attention backends (accel.attention's `hybrid=`): exact attention on the
first/last sampling steps (and optionally the first/last transformer blocks), the quantized kernel elsewhere.

The step is found once per model call by an APPLY_MODEL wrapper (`StepWrapper`: the current sigma's index in the
run's `sample_sigmas`, as the step caches do, placed in the whole schedule the run is a slice of: a KSamplerAdvanced
run, such as one Wan 2.2 A14B expert's, counts the steps of both experts) and handed to the attention calls as a flag
(`EXACT_FLAG`) in a copy of transformer_options, so no attention call reads a GPU tensor (and a compiled block sees a
Python bool: two variants). Defaults: accel.common.defaults.HYBRID.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import torch

from ..common import defaults, keys
from ..common.errors import AccelError
from ..common.steps import run_position, sigma_percent, step_index

EXACT_FLAG = keys.ATTENTION + ".exact"  # transformer_options: True while the hybrid schedule wants exact attention


@dataclass(frozen=True)
class Hybrid:
    """Exact attention on the first `first_steps` and last `last_steps` sampling steps, and in the first
    `first_blocks` / last `last_blocks` transformer blocks; the low-precision kernel elsewhere.
    Defaults: accel.common.defaults.HYBRID. Steps are counted over the whole schedule: a KSamplerAdvanced slice (e.g.
    one Wan 2.2 A14B expert) is placed in it by its sigmas (StepWrapper), so "the first 2 steps" of a 20-step split
    schedule are the first expert's first two. `short_cap`: at most a quarter of the schedule's steps (rounded up) at
    each end are exact, so a 4-step schedule still quantizes its middle steps (the defaults' setting). Blocks need a
    ComfyUI that tells attention the block (transformer_options block_index/total_blocks: ComfyUI 0.33 Wan, Flux);
    elsewhere only the step rule applies. Under torch.compile the block rule costs a graph break per attention call
    (it is decided outside the compiled graph), so keep it off where speed matters."""

    first_steps: int = 0
    last_steps: int = 0
    first_blocks: int = 0
    last_blocks: int = 0
    short_cap: bool = False

    @classmethod
    def default(cls) -> Hybrid:
        d = defaults.HYBRID
        return cls(d.exact_first_steps, d.exact_last_steps, d.exact_first_blocks, d.exact_last_blocks,
                   d.at_most_a_quarter)

    @classmethod
    def from_inputs(cls, **values) -> Hybrid:
        """A node's exact_first_steps / exact_last_steps / exact_first_blocks / exact_last_blocks inputs (those not
        given at accel.common.defaults.HYBRID), checked: AccelError naming the input (check_hybrid)."""
        d = defaults.HYBRID
        values = {n: values.get(n, getattr(d, n)) for n in
                  ("exact_first_steps", "exact_last_steps", "exact_first_blocks", "exact_last_blocks")}
        check_hybrid(**values)
        return cls(values["exact_first_steps"], values["exact_last_steps"], values["exact_first_blocks"],
                   values["exact_last_blocks"])

    def is_off(self) -> bool:
        return not (self.first_steps or self.last_steps or self.first_blocks or self.last_blocks)

    def exact_counts(self, n_steps: int) -> tuple:
        """(exact first steps, exact last steps) in a schedule of `n_steps`."""
        if not self.short_cap:
            return self.first_steps, self.last_steps
        quarter = max(1, math.ceil(n_steps / 4))
        return min(self.first_steps, quarter), min(self.last_steps, quarter)

    def exact_step(self, step, n_steps: int) -> bool:
        """Is step `step` of a schedule of `n_steps` one of the exact ones? Unknown steps (no sampler) are not."""
        if step is None or n_steps <= 0:
            return False
        first, last = self.exact_counts(n_steps)
        return step < first or step >= n_steps - last

    def exact_block(self, index, total) -> bool:
        if index is None or not total:
            return False
        return index < self.first_blocks or index >= total - self.last_blocks

    def wants_exact(self, to: dict) -> bool:
        """Per attention call: the step flag set by StepWrapper (a guarded value under Accel Compile), then the
        block rule (only when one is set), evaluated outside any compiled graph: Accel Compile does not guard
        on block_index (accel/compile/runners.py), so a traced decision would be block 0's in every block."""
        if to.get(EXACT_FLAG):
            return True
        if self.first_blocks or self.last_blocks:
            return _exact_block_eager(self, to.get("block_index"), to.get("total_blocks"))
        return False

    def describe(self) -> str:
        parts = [f"the first {self.first_steps} and last {self.last_steps} sampling steps of the whole schedule (all "
                 "experts' steps counted together)"
                 + (", at most a quarter of its steps at each end (a 4-step schedule: 1 and 1)" if self.short_cap
                    else "")]
        if self.first_blocks or self.last_blocks:
            parts.append(f"the first {self.first_blocks} and last {self.last_blocks} transformer blocks "
                         "(where ComfyUI passes block_index to attention)")
        return " and ".join(parts)


def _exact_block_eager(hybrid: Hybrid, index, total) -> bool:
    return hybrid.exact_block(index, total)


# a graph break under torch.compile: the result comes back as a Python bool the resumed graph guards on
_exact_block_eager = (getattr(torch.compiler, "disable", None) or torch._dynamo.disable)(_exact_block_eager)


def check_hybrid(**values) -> None:
    """AccelError naming the input when a schedule value is not a whole number >= 0 (before any work)."""
    for name, v in values.items():
        if isinstance(v, bool) or not isinstance(v, int) or v < 0:
            raise AccelError(name, f"{name} must be a whole number >= 0 (got {v!r})",
                             f"Set {name} to 0 (no exact {name.split('_')[-1]}) or a small count such as 2")


class StepClock:
    """The sampling step of a model call: the current sigma's index in the run's sample_sigmas
    (accel.common.steps.step_index), the sigmas list converted once per run. Shared by the hybrid schedule and the
    sparse backend's schedule (accel/attention/sparse.py)."""

    __slots__ = ("_sigmas_obj", "_sigmas")

    def __init__(self):
        self._sigmas_obj = None
        self._sigmas = []

    def __deepcopy__(self, memo):
        return self

    def position(self, t, to: dict):
        """(step, n_steps) of this call; (None, 0) outside a sampler (no sample_sigmas)."""
        sigmas = to.get("sample_sigmas")
        if sigmas is None or t is None:
            return None, 0
        if sigmas is not self._sigmas_obj:
            lst = sigmas.flatten().tolist() if isinstance(sigmas, torch.Tensor) else [float(x) for x in sigmas]
            self._sigmas_obj, self._sigmas = sigmas, [float(x) for x in lst]
        lst = self._sigmas
        if len(lst) < 2:
            return None, 0
        sigma = float(t.flatten()[0]) if isinstance(t, torch.Tensor) else float(t)
        return step_index(sigma, lst), len(lst) - 1


class StepWrapper(StepClock):
    """APPLY_MODEL wrapper: once per model call, finds the sampling step in the whole schedule (`schedule_position`)
    and puts EXACT_FLAG in a copy of the transformer_options handed to the model. One host sync per model call (the
    sigma), none per attention call."""

    __slots__ = ("hybrid", "calls", "_placed_for", "_place")

    def __init__(self, hybrid: Hybrid):
        super().__init__()
        self.hybrid = hybrid
        self.calls = {"exact": 0, "quantized": 0}  # model calls per attention kind (the report after the run)
        self._placed_for, self._place = None, (0, 0)

    def schedule_position(self, t, to: dict, model_sampling):
        """(step, n_steps) of this call in the whole schedule its run is a slice of: a KSamplerAdvanced run (one Wan
        2.2 A14B expert's) is placed by the schedule percents of its first and last sigma
        (accel.common.steps.run_position: exact for the simple, normal and beta schedulers). The run's own position
        where the model has no percent_to_sigma."""
        step, n = self.position(t, to)
        if step is None or not callable(getattr(model_sampling, "percent_to_sigma", None)):
            return step, n
        if self._placed_for is not self._sigmas_obj:
            first, last = (sigma_percent(s, model_sampling.percent_to_sigma)
                           for s in (self._sigmas[0], self._sigmas[-1]))
            self._placed_for, self._place = self._sigmas_obj, run_position(n, first, last)
        offset, total = self._place
        return offset + step, total

    def __call__(self, executor, *args, **kwargs):
        in_kw = "transformer_options" in kwargs
        to = kwargs["transformer_options"] if in_kw else (args[5] if len(args) > 5 else None)
        if not isinstance(to, dict):
            return executor(*args, **kwargs)
        t = args[1] if len(args) > 1 else kwargs.get("t")
        step, n = self.schedule_position(t, to, getattr(getattr(executor, "class_obj", None), "model_sampling", None))
        to = dict(to)
        to[EXACT_FLAG] = exact = self.hybrid.exact_step(step, n)
        self.calls["exact" if exact else "quantized"] += 1
        if in_kw:
            kwargs["transformer_options"] = to
        else:
            args = args[:5] + (to,) + args[6:]
        return executor(*args, **kwargs)


def apply_model_wrappers():
    import comfy.patcher_extension as pe

    return pe.WrappersMP.APPLY_MODEL


def after_run_lines(patcher) -> list[str]:
    """The lines Accel Attention adds to a node's report after a sampling run (registered with
    accel.common.live_report by this package). Quantized attention with the hybrid schedule: how many model calls
    ran it, and a plain warning when none did (a 4-step run split 2 + 2 over two experts keeps every step exact under
    the default schedule). For the radial_sparse schedule: its sparse / dense call counts, sparsity and kept mass per
    shape."""
    import comfy.patcher_extension as pe

    try:
        ws = patcher.get_wrappers(pe.WrappersMP.APPLY_MODEL, keys.ATTENTION)
    except Exception:  # noqa: BLE001
        return []
    report = getattr(ws[-1], "report_lines", None) if ws else None
    if report is not None:  # radial_sparse's schedule (accel/attention/sparse.py): its own measurements
        return list(report())
    calls = getattr(ws[-1], "calls", None) if ws else None
    if not calls or not (calls["exact"] + calls["quantized"]):
        return []
    line = (f"quantized attention: {calls['quantized']} of {calls['exact'] + calls['quantized']} model calls so far "
            f"({calls['exact']} exact by the hybrid schedule)")
    if not calls["quantized"]:
        line += ("; NONE ran quantized: every step of these runs is one of the exact first/last steps (lower "
                 "exact_first_steps / exact_last_steps on Accel Attention for few-step runs)")
    return [line]
