"""Where a model call is in its sampling run: shared by the step caches (accel.cache) and the hybrid schedule of
low-precision attention (accel.attention.hybrid). Pure Python."""
from __future__ import annotations


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
