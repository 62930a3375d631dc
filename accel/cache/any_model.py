"""Accel Cache (any model): a step cache that needs no fitted coefficients.

It runs on the step-cache machinery of ``accel/cache/`` (same wrappers, same per-chunk residual cache,
same first-block hook in ``patches_replace["dit"]``); this module holds only what differs: the rule that decides
whether a step may reuse the cached transformer residual, the per-chunk state it needs, and the report.

The rule (idea of EasyCache, arXiv 2507.02860, and of ComfyUI core's ``comfy_extras/nodes_easycache.py``: the
transformer's output changes roughly in proportion to its input, with a rate that drifts slowly, so the rate
measured on the last computed steps predicts the next change; restated here in the token space of the blocks):

* measured in the hook of the first block, per cond/uncond chunk: ``din`` = relative L1 change of the image tokens
  entering the first block since the last *computed* step (mean |x - x_c| / mean |x_c|);
* on every computed step the relative L1 change of the transformer residual (blocks' output minus input) since
  the previous computed step, ``dres``, gives the rate ``k = dres / din``;
* estimate for the current step: ``est = k * din`` = the relative change of the residual since it was cached,
  i.e. the relative error of reusing it. Skip while ``est < threshold``. The estimate grows with every skipped
  step (din is measured against the last computed step), so it is the accumulated change, not a per-step one.

Never skipped: the first two steps of a run (no rate yet), steps outside start/end, the last step, any step
whose rate or input change is not finite, and any step whose input moved more than ``MAX_EXTRAPOLATION`` times
the per-step change the rate was measured on (the linear estimate is outside the range it was measured on).
Measured deviation: when a step is computed after skipped steps, ``dres`` is the actual relative change of the
residual against the cached one that the skipped steps used; the report gives its largest and mean value.

Under Accel Compile: with its default scope ('blocks') the decision, the measures and the cached tensors live in
the block hooks, which run eagerly *between* the compiled blocks (``compile._signature`` leaves
``patches_replace['dit']`` out of the compiled code's key, so a new run's hooks recompile nothing); with scope
'model' dynamo traces the hooks too, with graph breaks at the decision's ``.tolist()`` (tested: same skips and
output as uncompiled, backend 'eager'). Core's EasyCache keeps its decision and state in a DIFFUSION_MODEL
wrapper, i.e. inside ``diffusion_model.forward``, which core's TorchCompileModel compiles whole by default: its
``.item()`` calls and state changes are traced there. Issue #14 reports that it does not work under compile; on
CPU with backend 'eager' (Accel Compile scopes blocks/model, core TorchCompileModel) it gave the same output as
uncompiled here, so that failure, if it is one, is specific to inductor / CUDA graphs and was not reproduced.
"""
from __future__ import annotations

import math

import torch

from ..common import log
from ..common.errors import AccelError
from . import schedule as sched

NODE = "Accel Cache (any model)"
DEFAULT_THRESHOLD = 0.1
DEFAULT_START = 0.15
DEFAULT_END = 0.95
MAX_EXTRAPOLATION = 4.0  # skip only while din <= this x the per-step input change the rate was measured on
MAX_SAMPLE = 1 << 18  # elements per chunk kept for the change measures (tokens are strided beyond that)

# family id (accel.common.families) -> adapter name (accel.cache.ADAPTERS): every family the pack knows.
ADAPTER_OF_FAMILY = {"wan21": "wan", "wan22": "wan", "flux": "flux", "hunyuan_video": "hunyuan_video",
                     "qwen_image": "qwen_image", "ltxv": "ltxv"}
FAMILIES_TEXT = "Wan 2.1/2.2 (T2V, I2V/FLF, TI2V), Flux.1/Kontext, Qwen-Image, HunyuanVideo, LTX-Video"


# ============================================================================ the rule (pure, testable)
def rule(din: float | None, rate: float | None, din_step: float | None, thresh: float) -> tuple[bool, float | None, str]:
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
    for (_, din, calls, skipped), dres in zip(a.pending, values):
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


# ============================================================================ runtime (called by accel_cache._Run)
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
    for key, st, din in zip(call.keys, chunks, dins):
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
    for a, x, r, din in zip(states, xs, rs, dins):
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
                     f"largest {max(meas):.3f}, mean {sum(meas) / len(meas):.3f} over {len(meas)} skipped span(s) (counted per "
                     "cond/uncond) - the relative error the reused residual had by then")
    return lines


# ============================================================================ configuration (the node calls this)
def adapter_for_model(model):
    """(adapter or None, Family, reason): every family in ADAPTER_OF_FAMILY, with the same exclusions as the
    coefficient-based caches (Wan VACE/S2V/Animate inject per block outside the block call)."""
    from ..common.families import detect
    from .adapters import ADAPTERS
    from .adapters import adapter_for_model as wan_adapter

    fam = detect(model)
    name = ADAPTER_OF_FAMILY.get(fam.family)
    if name is None:
        return None, fam, f"{fam.name} is not supported by {NODE} (it supports {FAMILIES_TEXT})"
    dm = model.get_model_object("diffusion_model")
    if name == "ltxv" and type(dm).__name__ != "LTXVModel":
        return None, fam, (f"{fam.name} ({type(dm).__name__}: LTX-2 audio-video) passes video and audio streams "
                           "through its blocks together; only LTX-Video (LTXVModel) can be step-cached")
    if name == "wan":
        return wan_adapter(model)
    return ADAPTERS[name], fam, ""


def check_inputs(threshold, start_percent, end_percent):
    """AccelError naming the input for values the rule cannot use (before anything runs)."""
    for name, v in (("threshold", threshold), ("start_percent", start_percent), ("end_percent", end_percent)):
        if not math.isfinite(float(v)):
            raise AccelError(NODE, name, f"{v} is not a number", f"Set {name} to a number (see its tooltip)")
    if threshold < 0:
        raise AccelError(NODE, "threshold", f"{threshold:g} is negative",
                         f"Set threshold to 0 (never skip) or more (default {DEFAULT_THRESHOLD:g})")
    for name, v in (("start_percent", start_percent), ("end_percent", end_percent)):
        if not 0.0 <= v <= 1.0:
            raise AccelError(NODE, name, f"{v:g} is outside 0..1", f"Set {name} between 0 and 1")
    if start_percent > end_percent:
        raise AccelError(NODE, "start_percent", f"start_percent {start_percent:g} is after end_percent {end_percent:g}",
                         "Make start_percent smaller than end_percent")


def configure(model, threshold: float = DEFAULT_THRESHOLD, start_percent: float = DEFAULT_START,
              end_percent: float = DEFAULT_END, cache_device: str = "GPU", node_id=None, node: str = NODE):
    """Clone `model` with the coefficient-free step cache. Returns (model, report)."""
    from .hooks import _attach, _new_id, multigpu_lines
    from .keys import LOW_STEPS
    from .report import _stats_lines
    from .settings import empty_window_text

    check_inputs(threshold, start_percent, end_percent)
    adapter, fam, reason = adapter_for_model(model)
    if adapter is None:
        raise AccelError(node, "model", reason, "Use this node only with the models listed in its description, or "
                         "remove it (the run is exact without it)")
    cfg = {"mode": "any_model", "id": _new_id(node_id), "node": node, "node_id": node_id,
           "adapter": adapter.name, "set": "", "entry": {}, "candidates": [], "thresh": float(threshold),
           "start": float(start_percent), "end": float(end_percent), "K": None, "cache_device": cache_device}
    m, replaced = _attach(model, cfg)
    lines = [f"{node} on {fam.name}: no coefficients; decides per step from the measured change of the first "
             "transformer block's input and the rate at which the blocks' residual followed it on the last computed "
             "steps (estimate = rate x input change since the last computed step).",
             f"threshold {threshold:g} (largest estimated relative change of the reused residual); start "
             f"{start_percent:.0%}; end {end_percent:.0%}; residual cache on {cache_device}"]
    lines += multigpu_lines(model, node)
    if threshold == 0:
        lines.append("threshold 0: nothing is skipped (output identical to no cache)")
    lines.append(f"never skipped: the first two steps of every run (the rate needs two computed steps), the last "
                 f"step, steps outside start/end, and steps whose input moved more than {MAX_EXTRAPOLATION:g}x the "
                 f"per-step change the rate was measured on; runs of {LOW_STEPS} steps or fewer compute "
                 "every step")
    eff = {"start": float(start_percent), "end": float(end_percent), "src": {"start": "input"}}
    text = empty_window_text(eff)
    if text:
        log.warning("%s: %s", node, text)
        lines.append(text)
    if replaced:
        lines.append(f"replaced an earlier {replaced.get('node')} on this model")
    lines += _stats_lines(node_id)
    log.info("%s: %s, threshold %g", node, fam.name, threshold)
    return m, "\n".join(lines)
