"""A step-cache node's inputs: checks (before anything runs), the coefficient set they name, and the values a run
uses (-1 = the set's recommended value)."""
from __future__ import annotations

import math

from ..common.errors import AccelError
from . import coefficients as cc

RECOMMENDED = -1  # the sentinel of the threshold / K / start_percent inputs: "the set's recommended value"


def _is_recommended(v) -> bool:
    return abs(float(v) - RECOMMENDED) < 1e-6


def check_inputs(start, end, thresh=None, K=None):
    """Node inputs, checked before anything runs: NaN or a negative value other than -1 is an error naming the
    input (ComfyUI's min/max check lets NaN and -0.5 through; they used to disable caching silently)."""
    for name, v in (("start_percent", start), ("end_percent", end)) + ((thresh,) if thresh else ()):
        if not math.isfinite(float(v)):
            raise AccelError(name, f"{v} is not a number", f"Set {name} to -1 (recommended) or a value >= 0")
    if start < 0 and not _is_recommended(start):
        raise AccelError("start_percent", f"{start:g} is negative; the only value below 0 is -1, which means "
                         "the set's recommended start", "Set start_percent to -1 or to a value in 0..1")
    if start > 1 or not (0.0 <= end <= 1.0):
        raise AccelError("start_percent" if start > 1 else "end_percent",
                         f"start {start:g} / end {end:g} must lie in 0..1 (start -1 = recommended)",
                         "Set start_percent between 0 and 1 (or -1) and end_percent between 0 and 1")
    if start >= 0 and start > end:
        raise AccelError("start_percent", f"start_percent {start} is after end_percent {end}",
                         "Make start_percent smaller than end_percent")
    if thresh and thresh[1] < 0 and not _is_recommended(thresh[1]):
        raise AccelError(thresh[0], f"{thresh[1]:g} is negative; the only value below 0 is -1 (recommended)",
                         f"Set {thresh[0]} to -1 or to a value >= 0 (0 = never skip)")
    if K is not None and K < 0 and K != RECOMMENDED:
        raise AccelError("magcache_K", f"{K} is negative; the only value below 0 is -1 (recommended)",
                         "Set magcache_K to -1 or to a value >= 0")


def effective_settings(kind: str, cfg: dict, entry: dict) -> dict:
    """What a run uses: the node's inputs, -1 replaced by the set's recommended value (or the default when the
    set recommends none). THE one place for both the run and the node's report. Values: thresh, start, end, K,
    and `src` {name: 'input' | 'recommended' | 'default'}."""
    rec = (entry or {}).get("recommended") or {}
    full = cc.recommended(kind, entry)
    keys = ({"thresh": "rel_l1_thresh", "start": "start_percent"} if kind == "teacache"
            else {"thresh": "magcache_thresh", "start": "retention_ratio", "K": "magcache_K"})
    out, src = {"end": float(cfg["end"]), "K": None}, {"end": "input"}
    for k, rk in keys.items():
        v = cfg.get(k, RECOMMENDED)
        if v is not None and not _is_recommended(v):
            out[k], src[k] = v, "input"
        else:
            out[k], src[k] = full[rk], ("recommended" if rk in rec else "default")
    out["thresh"], out["start"] = float(out["thresh"]), float(out["start"])
    if out["K"] is not None:
        out["K"] = int(out["K"])
    out["src"] = src
    return out


def empty_window_text(eff: dict, steps=None) -> str:
    """A warning when the schedule window in which steps may be skipped is empty or holds at most one point ('' when
    it is not). The window is closed at both ends (the runtime's rules: start <= step/steps <= end), so start equal
    to end_percent still lets the step exactly there be skipped. `steps`: the step indices the runtime's own rule
    enables in this run (known when the run starts), which decides; without it (when the node executes) the
    percentages decide."""
    start, end = eff["start"], eff["end"]
    how = "the set's recommended " if eff["src"].get("start") != "input" else ""
    remedy = "raise end_percent or set start_percent explicitly"
    if steps is not None:
        steps = list(steps)
        if steps and start < end:
            return ""
        if steps:
            return (f"note: {how}start {start:.0%} is not before end_percent {end:.0%}: only step(s) "
                    f"{', '.join(str(g) for g in steps)} of this run lie in the window and may be skipped ({remedy} "
                    "for a larger window)")
    elif start < end:
        return ""
    elif abs(start - end) <= 1e-6:
        return (f"note: {how}start {start:.0%} equals end_percent {end:.0%}: only a step at exactly {start:.0%} of the "
                f"schedule (if the step count has one) may be skipped ({remedy} for a larger window)")
    return (f"warning: nothing will be skipped: {how}start {start:.0%} is not before end_percent "
            f"{end:.0%}, so the window in which steps may be skipped is empty ({remedy})")


def load_set(kind, input_name, choice) -> dict:
    """A named set, validated, or an AccelError naming the input, the file and the key, and what to do."""
    try:
        return cc.resolve_named(kind, choice)
    except cc.SetError as e:
        raise AccelError(input_name, f"coefficient set {e}",
                         "Fix or delete that file (or run Accel Cache Calibrate again under a new name), or pick "
                         "another set") from None
    except FileNotFoundError:
        raise AccelError(input_name, f"coefficient set {cc.where_text(choice)} does not exist",
                         "Calibrate it with Accel Cache Calibrate, or pick another set") from None
    except KeyError:
        raise AccelError(input_name, f"unknown coefficient set '{choice}'",
                         f"Pick 'auto', a user:<name> set or one of: {cc.supported_text(kind)}") from None


def check_choice(kind, input_name, choice) -> AccelError | None:
    """For a node's input check (before the prompt runs): the error for a set choice, or None."""
    if not isinstance(choice, str) or choice == "auto":
        return None
    if not choice.startswith(cc.USER_PREFIX):
        e = cc.published(kind).get(choice)
        if e is None or not cc.adapter_for_set(e):
            return AccelError(input_name, f"'{choice}' is not a {kind} set this pack can use",
                              f"Pick 'auto', a user:<name> set or one of: {cc.supported_text(kind)}")
    try:
        load_set(kind, input_name, choice)
    except AccelError as e:
        return e
    return None
