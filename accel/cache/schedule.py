"""The skip rules of the step caches, as the reference implementations apply them. Pure Python (no torch, no
ComfyUI): the runtime (`accel/cache/state.py`), the calibration writer, the benchmark and the tests all use these
functions, so that what the runtime skips, what a calibrated set promises and what the bench counts are one rule.

References (the rule each function restates is cited where it is implemented; `tests/cache/cache_oracles.py`
restates each reference independently and the tests compare):

* TeaCache: ali-vilab/TeaCache (commit 7c10efc): TeaCache4FLUX/teacache_flux.py, TeaCache4HunyuanVideo/
  teacache_sample_video.py, TeaCache4Wan2.1/teacache_generate.py (per branch). A step the rule must compute anyway
  (the first step, the Wan `ret_steps`, the last step where the set's reference computes it: `compute_last`) resets
  the accumulator; elsewhere acc += poly(x), skip while acc < thresh, else compute and reset. The window is a
  percent of the run (`start_percent`, `end_percent`, as the ComfyUI TeaCache nodes take it): TeaCache4Wan2.1's
  5 retention steps are the ret-mode sets' recommended 10% at the 50 steps they were fitted on.
* TeaCache in LightX2V (ModelTC/LightX2V, sets `wan2.2_ti2v_5B`, `hunyuan_video1.5_*`): first and last step computed.
* Step index of a call = its sigma's position in the run's sigmas (exact match, else the interval that contains
  it), as welltop-cn/ComfyUI-TeaCache and Zehong-Ma/ComfyUI-MagCache find it.
* MagCache in ComfyUI: Zehong-Ma/ComfyUI-MagCache `nodes.py` (commit 47bdd2a): enabled from step
  int(steps * retention_ratio) on, one table entry per step (the table index is the step index when the step count
  equals the table length, else floor(index * (L-1) / (steps-1))), Flux never skips table step 11; accumulators are
  only touched on enabled steps; its Wan path skips while the error is <= the threshold (`inclusive_thresh`), its
  Flux path while it is <.
* MagCache upstream: Zehong-Ma/MagCache (commit df81cb1): nearest table entry (round) for the sets published there,
  and the Wan 2.2 A14B expert rules (`MagCache4Wan2.2/magcache_generate.py`).

Deliberate differences from the references: a TeaCache estimate for an input *beyond* the range in which the
polynomial is positive (a change larger than the fit covers; several Wan polynomials turn negative there) does not
count as a small change: the step is computed (the references add the negative number and skip). A negative estimate
for an input *below* that range (a tiny change) counts as 0. With cond and uncond in one batched call, the call is
skipped only when every branch's rule skips (the references decide per call: separate calls upstream; ComfyUI-MagCache's
Wan path skips the batch when either branch's rule skips).
"""
from __future__ import annotations

import math
from typing import NamedTuple

TOL = 1e-6  # percent/step comparisons: values recovered from float sigmas are never exact


# ============================================================================ step position
def step_index(sigma: float, sigmas: list) -> int:
    """Index of the step a model call belongs to in the run's sigmas: the exact (within a relative 1e-5) sigma,
    else the interval [sigmas[i], sigmas[i+1]] that contains it (a 2nd-order sampler's midpoint call), as
    welltop-cn/ComfyUI-TeaCache nodes.py:920-930 and Zehong-Ma/ComfyUI-MagCache nodes.py:1212-1222 do."""
    n = len(sigmas) - 1
    for i in range(max(n, 0)):
        if abs(sigmas[i] - sigma) <= 1e-5 * max(abs(sigma), 1e-8):
            return i
    for i in range(max(n, 0)):
        if (sigmas[i] - sigma) * (sigmas[i + 1] - sigma) <= 0:
            return i
    return 0 if not n or sigma >= sigmas[0] else n - 1


def sigma_percent(sigma: float, percent_to_sigma) -> float:
    """The schedule percent (0: sigma_max, 1: the end) of `sigma`: `percent_to_sigma` (a model_sampling's, which
    falls as the percent rises) inverted by bisection."""
    lo, hi = 0.0, 1.0
    for _ in range(40):
        mid = 0.5 * (lo + hi)
        if float(percent_to_sigma(mid)) > sigma:
            lo = mid
        else:
            hi = mid
    return 0.5 * (lo + hi)


def run_position(n_steps: int, p_first: float, p_last: float) -> tuple[int, int]:
    """(offset, total): a run of `n_steps` steps whose sigmas span schedule percents p_first..p_last is steps
    offset..offset+n_steps-1 of a schedule of `total` steps (a full run: (0, n_steps)). KSamplerAdvanced runs
    (Wan 2.2 A14B experts, denoise < 1) see only their slice of the sigmas; their place in the whole schedule
    comes from the percents of the slice's ends (exact for the linear-in-timestep schedulers: simple, normal,
    beta at their ends; otherwise an estimate)."""
    if n_steps <= 0:
        return 0, 0
    p_first = min(max(p_first, 0.0), 1.0)
    p_last = min(max(p_last, 0.0), 1.0)
    if p_first <= 1e-3 and p_last >= 1 - 1e-3:
        return 0, n_steps
    span = p_last - p_first
    if span <= 1e-6:
        return 0, n_steps
    total = max(n_steps, int(round(n_steps / span)))
    offset = min(int(round(p_first * total)), total - n_steps)
    return max(offset, 0), total


# ============================================================================ TeaCache
def poly(coeffs, x: float) -> float:
    """np.poly1d(coeffs)(x): highest power first (welltop-cn/ComfyUI-TeaCache nodes.py:36-40)."""
    est = 0.0
    for c in coeffs:
        est = est * x + c
    return est


def tea_fit_range(coeffs) -> tuple[float, float]:
    """(lo, hi): the first interval of x >= 0 on which the polynomial is positive (hi = inf when it stays positive).
    Found on a fine grid (rel-L1 changes above 5 are 'outside' anyway)."""
    xs = [k * 1e-4 for k in range(0, 50001)]
    lo = hi = None
    for x in xs:
        v = poly(coeffs, x)
        if lo is None:
            if v > 0:
                lo = x
        elif v <= 0:
            hi = x
            break
    if lo is None:
        return math.inf, math.inf
    return lo, (math.inf if hi is None else hi)


_RANGE_CACHE: dict = {}


def tea_estimate(coeffs, x: float):
    """The estimated output change for an input change x, or None when x lies beyond the fitted range (compute).
    A negative estimate below the range (a tiny change) counts as 0."""
    if x is None or not math.isfinite(x):
        return None
    key = tuple(coeffs)
    rng = _RANGE_CACHE.get(key)
    if rng is None:
        rng = _RANGE_CACHE[key] = tea_fit_range(coeffs)
    est = poly(coeffs, x)
    if not math.isfinite(est):
        return None
    if est >= 0:
        return est
    return 0.0 if x < rng[0] else None


def tea_update(acc: float, x: float, coeffs, thresh: float, enabled: bool = True) -> tuple[float, bool]:
    """One chunk's TeaCache step: (new accumulator, wants to skip). ali-vilab/TeaCache TeaCache4Wan2.1/
    teacache_generate.py:524-534 (TeaCache4FLUX teacache_flux.py:109-120): a step outside the window is computed and
    resets the accumulator; else acc += estimate, skip while acc < thresh, else compute and reset. Outside the fitted
    range: compute, reset."""
    if not enabled:
        return 0.0, False
    est = tea_estimate(coeffs, x)
    if est is None:
        return 0.0, False
    acc += est
    if acc < thresh:
        return acc, True
    return 0.0, False


def tea_enabled(step: int, total: int, start: float, end: float, compute_last: bool = False) -> bool:
    """Whether TeaCache may skip this step: percent = step / steps in start..end (the ComfyUI TeaCache nodes'
    window); sets whose reference computes the last step (`compute_last`: TeaCache4FLUX teacache_flux.py:109,
    TeaCache4Wan2.1 teacache_generate.py:524 with cutoff steps - 1, LightX2V transformer_infer.py) never skip it."""
    if total <= 0:
        return False
    if compute_last and step >= total - 1:
        return False
    pct = step / total
    return start - TOL <= pct <= end + TOL


# ============================================================================ MagCache
def mag_table_index(step: int, total: int, length: int, lookup: str = "floor") -> int:
    """The table entry for a step. floor: Zehong-Ma/ComfyUI-MagCache nodes.py:1242 (index when the step count is the
    table's, else int(index * (L-1) / (steps-1))); nearest: Zehong-Ma/MagCache MagCache4Wan2.2/magcache_generate.py:
    30-36 (round(index * (L-1) / (steps-1)))."""
    if total == length or total <= 1:
        return min(step, length - 1)
    scaled = step * ((length - 1) / (total - 1))
    idx = int(round(scaled)) if lookup == "nearest" else int(scaled + 1e-9)
    return min(max(idx, 0), length - 1)


def mag_enabled(step: int, total: int, retention: float, end: float = 1.0, branch: int = 0,
                experts: str = "", split=None) -> bool:
    """Whether MagCache may skip this step (else: computed, accumulators untouched).

    Plain: Zehong-Ma/ComfyUI-MagCache nodes.py:1236-1239: step >= int(steps * retention) (and, for our
    end_percent input, step / steps <= end).
    Wan 2.2 A14B (`experts`, with the expert switch at step `split`), Zehong-Ma/MagCache
    MagCache4Wan2.2/magcache_generate.py:294-300, counted per call (cnt = 2*step + branch, 0 cond, 1 uncond):
    i2v: cnt >= int(2*split + (2*steps - 2*split) * retention): the high-noise expert is never cached and retention
    applies again after the switch; t2v: not when cnt < int(2*split*retention) or 2*split <= cnt <= 2*split +
    (2*steps - 2*split) * retention.
    """
    if total <= 0 or step / total > end + TOL:
        return False
    if experts and split is not None and 0 < split < total:
        cnt, n2, s2 = 2 * step + branch, 2 * total, 2 * split
        if experts == "i2v":
            return cnt >= int(s2 + (n2 - s2) * retention + 1e-9)
        return not (cnt < int(s2 * retention + 1e-9) or (s2 <= cnt <= (n2 - s2) * retention + s2 + 1e-9))
    return step >= int(total * retention + 1e-9)


def mag_update(state: list, ratio: float, thresh: float, K: int, inclusive: bool = False) -> bool:
    """One chunk's MagCache step on state [acc_ratio, acc_steps, acc_err] (changed in place): True = skip.
    Zehong-Ma/ComfyUI-MagCache nodes.py:89-99 (flux: err < thresh) / 650-660 (wan: err <= thresh, `inclusive`)."""
    state[0] *= ratio
    state[1] += 1
    state[2] += abs(1.0 - state[0])
    if (state[2] <= thresh if inclusive else state[2] < thresh) and state[1] <= K:
        return True
    state[0], state[1], state[2] = 1.0, 0, 0.0
    return False


class MagValues(NamedTuple):
    """A MagCache run's values: threshold, K (most skips in a row), retention (start), end percent."""

    thresh: float
    K: int
    retention: float
    end: float = 1.0


def mag_rules(entry: dict) -> dict:
    """The per-set schedule rules of a MagCache entry (published or calibrated), with their defaults."""
    return {"lookup": entry.get("lookup", "floor"), "never_skip": list(entry.get("never_skip_steps") or []),
            "experts": entry.get("experts", ""), "inclusive": entry.get("inclusive_thresh") is True}


# ============================================================================ whole-run simulation
def mag_walk(entry: dict, total: int, values, branch: str = "cond", until: int = 0, split=None, state=None):
    """Walk the MagCache rule with `values` (MagValues, or a tuple of its fields) over steps 0..until-1 of one
    branch: yields (step, wants to skip) and leaves the accumulators in `state`. MagCache's decisions depend only
    on the table, so a run that starts later in the schedule (the low-noise expert of a Wan 2.2 A14B,
    KSamplerAdvanced start_at_step) starts from the state the reference's one continuous run has there
    (MagCache4Wan2.2 keeps its accumulators across the expert switch)."""
    v = MagValues(*values)
    rules = mag_rules(entry)
    table = entry["ratios"].get(branch) or entry["ratios"]["cond"]
    b = 1 if branch == "uncond" else 0
    state = [1.0, 0, 0.0] if state is None else state
    for g in range(until):
        t = mag_table_index(g, total, len(table), rules["lookup"])
        if mag_enabled(g, total, v.retention, v.end, b, rules["experts"], split) and t not in rules["never_skip"]:
            yield g, mag_update(state, float(table[t]), v.thresh, v.K, rules["inclusive"])
        else:
            yield g, False


def simulate_mag(entry: dict, total: int, values, branch: str = "cond", offset: int = 0, n_steps=None,
                 split=None) -> str:
    """The skip pattern ('#' computed, '.' skipped) the runtime produces with `values` (MagValues, or a tuple of its
    fields) for one branch of one run of steps offset..offset+n_steps-1 of a `total`-step schedule (one call per
    step); the run's first step is computed (no residual yet)."""
    n_steps = total - offset if n_steps is None else n_steps
    out = ""
    for g, skip in mag_walk(entry, total, values, branch, offset + n_steps, split):
        if g >= offset:
            out += "." if (skip and g > offset) else "#"
    return out


def simulate_tea(xs: list, coeffs, thresh: float, start: float = 0.0, end: float = 1.0, compute_last: bool = False,
                 offset: int = 0, total=None) -> str:
    """The skip pattern for one chunk given its per-step input changes xs (xs[0] is None: no previous input)."""
    total = len(xs) + offset if total is None else total
    acc, out = 0.0, ""
    for j, x in enumerate(xs):
        skip = False
        if x is not None:
            acc, skip = tea_update(acc, x, coeffs, thresh, tea_enabled(offset + j, total, start, end, compute_last))
        out += "." if (skip and j > 0) else "#"
    return out
