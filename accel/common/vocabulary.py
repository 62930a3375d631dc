"""Words shared by every node: one name per concept, with the legacy words old workflows still send.

The failure policy: what a node does when the fast path cannot be used (a kernel missing, a compile
failing, ...). Every node offers the same two values: "fall back" (continue with the next best path,
logged once) and "error" (stop with a message naming the reason). Older versions used other words per
node; those still validate and mean the same (see LEGACY_FAILURE_WORDS).
"""
from __future__ import annotations

FALL_BACK = "fall back"
ERROR = "error"
ON_FAILURE_CHOICES = (FALL_BACK, ERROR)

# old value -> policy, per the node that used it: Accel Attention `fallback: sdpa|error`,
# Accel Compile `on_failure: eager|raise`
LEGACY_FAILURE_WORDS = {"sdpa": FALL_BACK, "eager": FALL_BACK, "raise": ERROR}


def failure_policy(value: str, legacy: tuple = ()) -> str | None:
    """FALL_BACK or ERROR for `value` (one of ON_FAILURE_CHOICES, or one of the `legacy` words of
    LEGACY_FAILURE_WORDS that the asking node used to accept); None for anything else."""
    if value in ON_FAILURE_CHOICES:
        return value
    if value in legacy and value in LEGACY_FAILURE_WORDS:
        return LEGACY_FAILURE_WORDS[value]
    return None
