"""Fake SageAttention3 (tests only): (B, H, L, D), no scale argument."""
from _fake_common import attend, check

__version__ = "1.0.0"


def sageattn3_blackwell(q, k, v, is_causal=False, **kwargs):
    check("sageattn3", q, k, v, max_head_dim=128)
    return attend(q, k, v, "HND", None, name="sageattn3")
