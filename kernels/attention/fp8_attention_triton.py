"""Fused FP8 (e4m3) quantization of attention q/k/v in two Triton launches (imported lazily).

Launch 1 (`_stats_kernel`) reads q, k and v once: for every (batch, head, chunk of CHUNK tokens) it writes
the per-channel sum, max and min over the chunk's tokens. A few tiny torch reductions over the chunks give,
per (batch, head): the absmax of q and v, K's mean over tokens (per channel) and the absmax of the SMOOTHED
K (K minus that mean) without a second read of K: fl(k - m) is monotone in k, so
max_t |fl(k_t - m)| = max(|fl(kmax - m)|, |fl(kmin - m)|) exactly.
Launch 2 (`_quant_kernel`) reads q, k, v again and writes e4m3 tensors in (B, L, H, D), contiguous (what
FlashAttention-3 takes), computing ((x - mean) * inv_scale) clamped to +-448 in float32 and cast to e4m3.
Both launches handle q, k and v in one grid (axis 2 = which tensor); q and k/v may have different lengths.

Reference: kernels.attention.fp8_attention.quantize_reference (plain torch, the same float32 operations in the same
order: the pre-cast values are bit-identical; tests check that in the Triton interpreter with
OUT_F32=True, because the interpreter's own float->e4m3 cast rounds wrongly near powers of two, Triton
3.8). On the GPU the cast is the hardware's round-to-nearest-even, as torch's; bench_quant_attention.py
compares the fused and torch fp8 bytes there.
"""
from __future__ import annotations

import torch
import triton
import triton.language as tl

CHUNK = 256  # tokens per program
BLOCK_L = 128  # tokens per inner step (256/128/4 warps: the fastest quantize of CONFIGS on H200 and H100,
               # bench_quant_attention)
NUM_WARPS = 4
# (chunk, block_l, num_warps) the GPU benchmark sweeps (bench_quant_attention.py "quantize only: fused <config>")
CONFIGS = tuple((c, b, w) for c in (128, 256, 512) for b in (32, 64, 128) for w in (4, 8) if b <= c)


def available() -> bool:
    return True


@triton.jit
def _stats_one(x_ptr, sb, sl, sh, L, out_ptr, b, h, c, H, NC, D, which,
               CHUNK: tl.constexpr, BLOCK_L: tl.constexpr, BLOCK_D: tl.constexpr):
    d = tl.arange(0, BLOCK_D)
    dm = d < D
    s = tl.zeros([BLOCK_D], dtype=tl.float32)
    mx = tl.full([BLOCK_D], float("-inf"), tl.float32)
    mn = tl.full([BLOCK_D], float("inf"), tl.float32)
    base = x_ptr + b.to(tl.int64) * sb + h.to(tl.int64) * sh
    for i in range(0, CHUNK, BLOCK_L):
        rows = c * CHUNK + i + tl.arange(0, BLOCK_L)
        lm = rows < L
        m2 = lm[:, None] & dm[None, :]
        ptrs = base + rows.to(tl.int64)[:, None] * sl + d[None, :]
        x = tl.load(ptrs, mask=m2, other=0.0).to(tl.float32)
        s += tl.sum(x, axis=0)
        mx = tl.maximum(mx, tl.max(tl.where(m2, x, float("-inf")), axis=0))
        mn = tl.minimum(mn, tl.min(tl.where(m2, x, float("inf")), axis=0))
    # out: (3 stats, 3 tensors, B, H, NC, D) float32, contiguous
    B = tl.num_programs(0) // H
    row = (((which * B + b) * H + h) * NC + c).to(tl.int64) * D
    plane = 3 * B * H * NC * D
    tl.store(out_ptr + row + d, s, mask=dm)
    tl.store(out_ptr + plane + row + d, mx, mask=dm)
    tl.store(out_ptr + 2 * plane + row + d, mn, mask=dm)


@triton.jit
def _stats_kernel(q_ptr, k_ptr, v_ptr, out_ptr,
                  qsb, qsl, qsh, ksb, ksl, ksh, vsb, vsl, vsh,
                  Lq, Lk, H, NC, D,
                  CHUNK: tl.constexpr, BLOCK_L: tl.constexpr, BLOCK_D: tl.constexpr):
    bh = tl.program_id(0)
    c = tl.program_id(1)
    which = tl.program_id(2)
    b = bh // H
    h = bh % H
    if which == 0:
        if c * CHUNK < Lq:
            _stats_one(q_ptr, qsb, qsl, qsh, Lq, out_ptr, b, h, c, H, NC, D, 0, CHUNK, BLOCK_L, BLOCK_D)
    elif which == 1:
        if c * CHUNK < Lk:
            _stats_one(k_ptr, ksb, ksl, ksh, Lk, out_ptr, b, h, c, H, NC, D, 1, CHUNK, BLOCK_L, BLOCK_D)
    else:
        if c * CHUNK < Lk:
            _stats_one(v_ptr, vsb, vsl, vsh, Lk, out_ptr, b, h, c, H, NC, D, 2, CHUNK, BLOCK_L, BLOCK_D)


@triton.jit
def _quant_one(x_ptr, sb, sl, sh, L, y_ptr, inv_ptr, mean_ptr, b, h, c, H, D, which,
               HAS_MEAN: tl.constexpr, OUT_F32: tl.constexpr,
               CHUNK: tl.constexpr, BLOCK_L: tl.constexpr, BLOCK_D: tl.constexpr):
    d = tl.arange(0, BLOCK_D)
    dm = d < D
    B = tl.num_programs(0) // H
    inv = tl.load(inv_ptr + (which * B + b) * H + h)
    if HAS_MEAN:
        mean = tl.load(mean_ptr + ((b * H + h) * D + d).to(tl.int64), mask=dm, other=0.0)
    base = x_ptr + b.to(tl.int64) * sb + h.to(tl.int64) * sh
    # output (B, L, H, D) contiguous
    obase = y_ptr + (b.to(tl.int64) * L * H + h) * D
    for i in range(0, CHUNK, BLOCK_L):
        rows = c * CHUNK + i + tl.arange(0, BLOCK_L)
        lm = rows < L
        m2 = lm[:, None] & dm[None, :]
        x = tl.load(base + rows.to(tl.int64)[:, None] * sl + d[None, :], mask=m2, other=0.0).to(tl.float32)
        if HAS_MEAN:
            x = x - mean[None, :]
        y = x * inv
        y = tl.minimum(tl.maximum(y, -448.0), 448.0)
        optrs = obase + rows.to(tl.int64)[:, None] * (H * D) + d[None, :]
        if OUT_F32:
            tl.store(optrs, y, mask=m2)
        else:
            tl.store(optrs, y.to(tl.float8e4nv), mask=m2)


@triton.jit
def _quant_kernel(q_ptr, k_ptr, v_ptr, qo_ptr, ko_ptr, vo_ptr, inv_ptr, mean_ptr,
                  qsb, qsl, qsh, ksb, ksl, ksh, vsb, vsl, vsh,
                  Lq, Lk, H, D,
                  SMOOTH: tl.constexpr, OUT_F32: tl.constexpr,
                  CHUNK: tl.constexpr, BLOCK_L: tl.constexpr, BLOCK_D: tl.constexpr):
    bh = tl.program_id(0)
    c = tl.program_id(1)
    which = tl.program_id(2)
    b = bh // H
    h = bh % H
    if which == 0:
        if c * CHUNK < Lq:
            _quant_one(q_ptr, qsb, qsl, qsh, Lq, qo_ptr, inv_ptr, mean_ptr, b, h, c, H, D, 0,
                       False, OUT_F32, CHUNK, BLOCK_L, BLOCK_D)
    elif which == 1:
        if c * CHUNK < Lk:
            _quant_one(k_ptr, ksb, ksl, ksh, Lk, ko_ptr, inv_ptr, mean_ptr, b, h, c, H, D, 1,
                       SMOOTH, OUT_F32, CHUNK, BLOCK_L, BLOCK_D)
    else:
        if c * CHUNK < Lk:
            _quant_one(v_ptr, vsb, vsl, vsh, Lk, vo_ptr, inv_ptr, mean_ptr, b, h, c, H, D, 2,
                       False, OUT_F32, CHUNK, BLOCK_L, BLOCK_D)


def _strides(t):
    sb, sl, sh, sd = t.stride()
    assert sd == 1, "the last dimension must be contiguous"
    return sb, sl, sh


def stats(q, k, v, chunk=CHUNK, block_l=BLOCK_L, num_warps=NUM_WARPS):
    """Per-chunk (sum, max, min) of q, k, v in (B, L, H, D): a (3, 3, B, H, NC, D) float32 tensor
    [stat][tensor]; chunks past a tensor's length are left unwritten (NC = chunks of the longer one, of
    `chunk` tokens)."""
    B, Lq, H, D = q.shape
    Lk = k.shape[1]
    nc = triton.cdiv(max(Lq, Lk), chunk)
    out = torch.empty((3, 3, B, H, nc, D), device=q.device, dtype=torch.float32)
    _stats_kernel[(B * H, nc, 3)](q, k, v, out, *_strides(q), *_strides(k), *_strides(v), Lq, Lk, H, nc, D,
                                  CHUNK=chunk, BLOCK_L=block_l, BLOCK_D=triton.next_power_of_2(D),
                                  num_warps=num_warps)
    return out


def quantize(q, k, v, inv, mean, out_f32=False, chunk=CHUNK, block_l=BLOCK_L, num_warps=NUM_WARPS):
    """Write q, k, v as ((x - mean) * inv) clamped to +-448, in e4m3 (or float32 with out_f32, for tests),
    (B, L, H, D) contiguous. inv: (3, B, H) float32; mean: (B, H, D) float32 for K, or None."""
    B, Lq, H, D = q.shape
    Lk = k.shape[1]
    dt = torch.float32 if out_f32 else torch.float8_e4m3fn
    qo = torch.empty((B, Lq, H, D), device=q.device, dtype=dt)
    ko = torch.empty((B, Lk, H, D), device=q.device, dtype=dt)
    vo = torch.empty((B, Lk, H, D), device=q.device, dtype=dt)
    nc = triton.cdiv(max(Lq, Lk), chunk)
    mean_arg = mean if mean is not None else inv  # unused when SMOOTH is False
    _quant_kernel[(B * H, nc, 3)](q, k, v, qo, ko, vo, inv.contiguous(), mean_arg.contiguous(),
                                  *_strides(q), *_strides(k), *_strides(v), Lq, Lk, H, D,
                                  SMOOTH=mean is not None, OUT_F32=out_f32,
                                  CHUNK=chunk, BLOCK_L=block_l, BLOCK_D=triton.next_power_of_2(D),
                                  num_warps=num_warps)
    return qo, ko, vo
