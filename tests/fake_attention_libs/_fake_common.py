"""Shared math and checks for the fake attention libraries (tests only).

Each fake enforces what the real library requires (layout rank, dtype, contiguous last dimension,
head sizes, GQA divisibility) and computes exact attention in float32 with plain torch ops, then
records the call in CALLS so tests can see which library ran, with which layout and arguments.
`DELAY_S[name]` makes a fake slower (autotune tests), `FAIL[name]` makes it raise that message and
`WRONG[name]` makes it return wrong values (a broken install).
"""
import math
import time

import torch

CALLS = []
DELAY_S = {}
FAIL = {}
WRONG = {}


def check(name, q, k, v, dtypes=(torch.float16, torch.bfloat16), head_dims=None, max_head_dim=256):
    if FAIL.get(name):
        raise RuntimeError(FAIL[name])
    assert q.ndim == 4 and k.ndim == 4 and v.ndim == 4, f"{name}: q/k/v must be 4-D"
    assert q.dtype in dtypes, f"{name}: dtype {q.dtype} not supported"
    assert q.dtype == k.dtype == v.dtype, f"{name}: q/k/v dtypes differ"
    assert q.stride(-1) == 1 and k.stride(-1) == 1 and v.stride(-1) == 1, f"{name}: last dim must be contiguous"
    d = q.shape[-1]
    if head_dims is not None:
        assert d in head_dims, f"{name}: head_dim {d} not supported"
    assert d <= max_head_dim, f"{name}: head_dim {d} > {max_head_dim}"


def attend(q, k, v, layout, scale=None, bias=None, name="fake", **record):
    """Exact attention for layout 'NHD' (B, L, H, D) or 'HND' (B, H, L, D)."""
    if DELAY_S.get(name):
        time.sleep(DELAY_S[name])
    if layout == "NHD":
        qh, kh, vh = q.transpose(1, 2), k.transpose(1, 2), v.transpose(1, 2)
    else:
        qh, kh, vh = q, k, v
    h, hkv = qh.shape[1], kh.shape[1]
    assert h % hkv == 0, f"{name}: {h} query heads not divisible by {hkv} kv heads"
    qf, kf, vf = qh.float(), kh.float(), vh.float()
    if hkv != h:
        kf, vf = kf.repeat_interleave(h // hkv, 1), vf.repeat_interleave(h // hkv, 1)
    s = (qf @ kf.transpose(-1, -2)) * (scale if scale is not None else 1.0 / math.sqrt(q.shape[-1]))
    if bias is not None:
        s = s + bias.float()
    o = (s.softmax(-1) @ vf).to(q.dtype)
    if WRONG.get(name):
        o = -o
    CALLS.append(dict(lib=name, layout=layout, q_shape=tuple(q.shape), kv_heads=hkv, scale=scale,
                      dtype=q.dtype, bias=bias is not None, **record))
    return o.transpose(1, 2).contiguous() if layout == "NHD" else o
