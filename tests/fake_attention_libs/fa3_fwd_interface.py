"""Fake fa3-fwd (PyPI forward-only FA3, tests only): built without fp16 (see fa3_fwd_config), and
returns (out, softmax_lse) like some FA3 entry points."""
import torch
from _fake_common import attend, check


def flash_attn_func(q, k, v, softmax_scale=None, causal=False, **kwargs):
    check("fa3_fwd_interface", q, k, v, dtypes=(torch.bfloat16,))
    return attend(q, k, v, "NHD", softmax_scale, name="fa3_fwd_interface"), None
