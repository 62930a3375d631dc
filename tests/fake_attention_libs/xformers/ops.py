"""Fake xformers.ops.memory_efficient_attention (tests only): (B, L, H, D), float bias (B, H, Lq, Lk)."""
import torch
from _fake_common import attend, check


def memory_efficient_attention(q, k, v, attn_bias=None, p=0.0, scale=None, op=None):
    check("xformers", q, k, v, dtypes=(torch.float16, torch.bfloat16, torch.float32))
    assert k.shape[2] == q.shape[2], "xformers (BMHK): K/V must have as many heads as Q"
    if attn_bias is not None:
        assert attn_bias.dtype == q.dtype, "attn_bias must have q's dtype"
        assert tuple(attn_bias.shape) == (q.shape[0], q.shape[2], q.shape[1], k.shape[1]), tuple(attn_bias.shape)
    return attend(q, k, v, "NHD", scale, bias=attn_bias, name="xformers")
