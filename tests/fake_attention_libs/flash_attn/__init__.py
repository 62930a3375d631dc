"""Fake FlashAttention-2 (tests only): flash_attn_func on (B, L, H, D), GQA, no mask."""
import torch  # noqa: F401 - the real library imports torch when it is imported
from _fake_common import attend, check

__version__ = "2.8.3"


def flash_attn_func(q, k, v, dropout_p=0.0, softmax_scale=None, causal=False, window_size=(-1, -1),
                    softcap=0.0, alibi_slopes=None, deterministic=False, return_attn_probs=False):
    assert not causal and dropout_p == 0.0
    check("flash_attn", q, k, v)
    return attend(q, k, v, "NHD", softmax_scale, name="flash_attn")
