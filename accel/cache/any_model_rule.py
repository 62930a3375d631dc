"""Accel Cache (any model), the rule and its per-chunk state: what decides, per model call, whether a step may
reuse the cached transformer residual (see accel/cache/any_model.py for the idea and the report). Called by the
sampling run's state (accel/cache/state.py); knows nothing of the node or of how the cache is attached."""
from __future__ import annotations

import math

import torch

from . import schedule as sched

MAX_EXTRAPOLATION = 4.0  # skip only while din <= this x the per-step input change the rate was measured on
MAX_SAMPLE = 1 << 18  # elements per chunk kept for the change measures (tokens are strided beyond that)


# ============================================================================ the rule (pure, testable)
def rule(din: float | None, rate: float | None, din_step: float | None,
         thresh: float) -> tuple[bool, float | None, str]:
    """(skip, estimate, why) for one chunk. din: relative input change since the last computed step; rate: the
    residual/input change rate of the last computed interval; din_step: the per-step input change it was measured
    on; thresh: the largest estimated relative residual change a skipped step may have."""
    if din is None or rate is None or din_step is None:
        return False, None, "no rate yet"
    if not (math.isfinite(din) and math.isfinite(rate) and math.isfinite(din_step)):
        return False, None, "not finite"
    if din > MAX_EXTRAPOLATION * din_step:
        return False, None, "outside the measured range"
    est = rate * din
    return est < thresh, est, "estimate"


def _thin(t: torch.Tensor) -> torch.Tensor:
    """An fp32 copy of (a token-strided subset of) one chunk of block tokens (B, N, C...): bounded memory for
    the change measures (the blocks may update their input in place, hence the copy)."""
    if t.ndim >= 2 and t.numel() > MAX_SAMPLE * max(1, t.shape[0]):
        per_token = max(1, t[:, :1].numel() // max(1, t.shape[0]))
        s = max(1, (t.shape[1] * per_token) // MAX_SAMPLE)
        s += (s > 1 and s % 2 == 0)  # odd stride: does not line up with rows of a token grid
        t = t[:, ::s]
    return t.to(dtype=torch.float32, copy=True)


def _rel(a: torch.Tensor, ref: torch.Tensor) -> torch.Tensor:
    return (a - ref).abs().mean() / ref.abs().mean().clamp_min(1e-12)


class ChunkState:
    """Per cond/uncond chunk: the last computed step's sampled input and residual, and the measured rate."""

    __slots__ = ("x", "r", "rate", "din_step", "calls", "skipped", "pending")

    def __init__(self):
        self.x = self.r = self.rate = self.din_step = None
        self.calls = 0  # model calls since the last computed one
        self.skipped = 0  # of which skipped
        self.pending = []  # (dres tensor, din, calls, skipped) of computed calls not yet read back (see `store`)


def _apply(run, a: ChunkState, values) -> None:
    """Read-back of `store`'s pending measures (in order): measured deviation of skipped spans, new rate."""
    m = run.stats.measures
    for (_, din, calls, skipped), dres in zip(a.pending, values, strict=True):
        if skipped:
            m.setdefault("measured", []).append(dres)
        if din is not None and din > 0 and math.isfinite(dres) and math.isfinite(din):
            a.rate, a.din_step = dres / din, din / max(1, calls)
    a.pending = []


def _read_back(run, states, tensors: list) -> list:
    """One device sync: `tensors` (0-d) as floats, returned; every pending measure of `states` applied."""
    todo = list({id(a): a for a in states if a is not None and a.pending}.values())  # a chunk once
    pend = [p[0] for a in todo for p in a.pending]
    if not tensors and not pend:
        return []
    vals = torch.stack(list(tensors) + pend).tolist()
    out, rest = vals[:len(tensors)], iter(vals[len(tensors):])
    for a in todo:
        _apply(run, a, [next(rest) for _ in a.pending])
    return out


# ============================================================================ runtime (called by state.Run)
def decide(run, call, img, chunks, per) -> list:
    """Per chunk: may this call skip? Records what `store` needs in call.agn. One device sync per call."""
    if call.force is not None:  # threshold 0, few-step run, blocked: computed anyway, nothing to measure
        return [False] * len(chunks)
    enabled = sched.tea_enabled(call.step, run.total, run.start, run.end, compute_last=True)
    xs, dins = [], []
    for i, st in enumerate(chunks):
        if st.agn is None:
            st.agn = ChunkState()
        x = _thin(img[i * per:(i + 1) * per])
        xs.append(x)
        a = st.agn
        dins.append(_rel(x, a.x) if a.x is not None and a.x.shape == x.shape else None)
    # one device sync per call: this call's input changes and the last computed call's residual changes
    vals = iter(_read_back(run, [st.agn for st in chunks], [d for d in dins if d is not None]))
    dins = [next(vals) if d is not None else None for d in dins]
    wants, trace = [], {}
    for key, st, din in zip(call.keys, chunks, dins, strict=True):
        a = st.agn
        a.calls += 1
        skip, est, _why = rule(din, a.rate, a.din_step, run.thresh)
        if est is not None:
            trace["uncond" if key[0] == 1 else "cond"] = est
        wants.append(skip and enabled)
    call.agn = (xs, dins, trace)
    run.stats.trace.append((call.step, trace))
    return wants


def skipped(run, call):
    """The call was skipped: count it per chunk and add its estimates to the run's measures."""
    m = run.stats.measures
    for k in call.keys:
        run.chunk(k).agn.skipped += 1
    for est in call.agn[2].values():
        m["est_sum"] = m.get("est_sum", 0.0) + est
        m["est_max"] = max(m.get("est_max", 0.0), est)


def store(run, call, res, per):
    """After a computed call: new anchors; the residual change dres (for the new rate dres / din and the measured
    deviation of a skipped span) stays on the device until the next call's `decide` reads it back with its own
    input changes: one device sync per call, not two (a sync here, at the end of the forward, would leave the GPU
    idle through the sampler's work between steps: 0.85x on Flux 12B 512 px, H100, when nothing is skipped)."""
    xs, dins, _ = call.agn
    rs = [_thin(res[i * per:(i + 1) * per]) for i in range(len(call.keys))]
    states = [run.chunk(k).agn for k in call.keys]
    for a, x, r, din in zip(states, xs, rs, dins, strict=True):
        if a.r is not None and a.r.shape == r.shape:
            a.pending.append((_rel(r, a.r), din, a.calls, a.skipped))
        a.x, a.r, a.calls, a.skipped = x, r, 0, 0


def summary(run) -> list:
    """Report lines for the run's statistics (RunStats.notes); reads back the last pending measures first."""
    _read_back(run, [st.agn for st in run.chunks.values()], [])
    m = run.stats.measures
    meas = m.get("measured") or []
    lines = []
    if run.stats.skipped:
        lines.append(f"estimated change of the reused residual on skipped steps: largest {m.get('est_max', 0.0):.3f}, "
                     f"sum {m.get('est_sum', 0.0):.3f} (threshold {run.thresh:g})")
    if meas:
        lines.append(f"measured change of the residual after each span of skipped steps (at the next computed step): "
                     f"largest {max(meas):.3f}, mean {sum(meas) / len(meas):.3f} over {len(meas)} skipped span(s) "
                     "(counted per cond/uncond) - the relative error the reused residual had by then")
    return lines
