"""Words shared by every node: one name per concept, with the legacy words old workflows still send.

The failure policy: what a node does when the fast path cannot be used (a kernel missing, a compile
failing, ...). Every node offers the same two values: "fall back" (continue with the next best path,
logged once) and "error" (stop with a message naming the reason). Older versions used other words per
node; those still validate and mean the same: the node boundary (nodes/_common `failure_policy`) parses
them into `accel.common.policy.Policy`, whose values are these words.
"""
from __future__ import annotations

FALL_BACK = "fall back"
ERROR = "error"
ON_FAILURE_CHOICES = (FALL_BACK, ERROR)
