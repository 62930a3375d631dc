"""Fake FlashAttention-3 from flash-attention's hopper/ build (tests only): fp16 and bf16."""
from _fake_common import attend, check

__version__ = "3.0.0b1"


def flash_attn_func(q, k, v, softmax_scale=None, causal=False, qv=None, q_descale=None, k_descale=None,
                    v_descale=None, window_size=(-1, -1), attention_chunk=0, softcap=0.0, num_splits=1,
                    pack_gqa=None, deterministic=False, sm_margin=0, return_attn_probs=False):
    check("flash_attn_interface", q, k, v)
    return attend(q, k, v, "NHD", softmax_scale, name="flash_attn_interface")
