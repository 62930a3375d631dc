"""The failure policy: what a feature does when its fast path cannot be used (a kernel missing, a compile failing,
a call a kernel cannot serve, ...). The only failure word below nodes/: the node boundary (nodes/_common
`failure_policy`) parses the node's input, including the words older versions used, into a Policy once."""
from __future__ import annotations

import enum

from . import vocabulary
from .errors import AccelError


class Policy(str, enum.Enum):
    FALL_BACK = vocabulary.FALL_BACK   # continue with the next best path, logged once
    ERROR = vocabulary.ERROR           # stop with an AccelError naming the reason

    def __str__(self) -> str:
        return self.value


def as_policy(value) -> Policy:
    """`value` as a Policy (a Policy or its word); AccelError naming the input `policy` otherwise. The node boundary
    parses its failure input first (nodes/_common `failure_policy`, legacy words included)."""
    try:
        return Policy(value)
    except ValueError:
        raise AccelError("policy", f"unknown failure policy {value!r}",
                         "use one of: " + ", ".join(p.value for p in Policy)) from None
