"""Fake FlashAttention-4 (flash_attn.cute, tests only): returns (out, lse)."""
from _fake_common import attend, check


def flash_attn_func(q, k, v, softmax_scale=None, causal=False, **kwargs):
    check("flash_attn_cute", q, k, v, max_head_dim=128)
    out = attend(q, k, v, "NHD", softmax_scale, name="flash_attn_cute")
    return out, None
