"""Triton kernels for FP8 activation quantization (imported lazily, on first GPU use).

`quantize_rows`: one program per row: load the row once (fp32 in registers), amax, scale, store the
fp8 row and its scale: one read of x and one write of x8 (the eager torch version makes ~6 passes).
`quantize_with_scale`: the same cast with a given per-tensor scale.
`quantize_blocks`: one program per row, the row seen as (K/128, 128): one scale per 128-block, written
outer-dim-major ((M, K/128) with strides (1, M), the layout cuBLAS's blockwise matmul reads).

References: kernels.fp8_linear.quantize_rows_ref / quantize_tensor_ref (same formulas:
scale = max(amax, AMAX_EPS) / FP8_MAX, x8 = clamp(x / scale, +-FP8_MAX) rounded to nearest even).
Passing an fp32 `out` stores the clamped values before the fp8 cast (tests run the kernel in the
Triton interpreter, whose fp8 conversion is not exact; the real cast is checked on the GPU bench).
"""
from __future__ import annotations

import torch
import triton
import triton.language as tl

from .fp8_linear import AMAX_EPS, BLOCK_K, FP8_MAX


def available() -> bool:
    return True


@triton.jit
def _quant_rows_kernel(x_ptr, y_ptr, s_ptr, K, stride_x, stride_y,
                       FP8_MAX_C: tl.constexpr, EPS: tl.constexpr, BLOCK_K: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    offs = tl.arange(0, BLOCK_K)
    mask = offs < K
    x = tl.load(x_ptr + row * stride_x + offs, mask=mask, other=0.0).to(tl.float32)
    amax = tl.max(tl.abs(x), axis=0)
    scale = tl.maximum(amax, EPS) / FP8_MAX_C
    y = tl.clamp(x / scale, -FP8_MAX_C, FP8_MAX_C)
    tl.store(y_ptr + row * stride_y + offs, y.to(y_ptr.dtype.element_ty), mask=mask)
    tl.store(s_ptr + row, scale)


@triton.jit
def _quant_scale_kernel(x_ptr, y_ptr, s_ptr, N, FP8_MAX_C: tl.constexpr, BLOCK: tl.constexpr):
    pid = tl.program_id(0).to(tl.int64)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < N
    scale = tl.load(s_ptr)
    x = tl.load(x_ptr + offs, mask=mask, other=0.0).to(tl.float32)
    y = tl.clamp(x / scale, -FP8_MAX_C, FP8_MAX_C)
    tl.store(y_ptr + offs, y.to(y_ptr.dtype.element_ty), mask=mask)


@triton.jit
def _quant_blocks_kernel(x_ptr, y_ptr, s_ptr, M, K, NB, stride_x, stride_y,
                         FP8_MAX_C: tl.constexpr, EPS: tl.constexpr, NB_P2: tl.constexpr, BK: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    blk = tl.arange(0, NB_P2)
    offs = blk[:, None] * BK + tl.arange(0, BK)[None, :]
    mask = offs < K
    x = tl.load(x_ptr + row * stride_x + offs, mask=mask, other=0.0).to(tl.float32)
    amax = tl.max(tl.abs(x), axis=1)
    scale = tl.maximum(amax, EPS) / FP8_MAX_C
    y = tl.clamp(x / scale[:, None], -FP8_MAX_C, FP8_MAX_C)
    tl.store(y_ptr + row * stride_y + offs, y.to(y_ptr.dtype.element_ty), mask=mask)
    tl.store(s_ptr + blk.to(tl.int64) * M + row, scale, mask=blk < NB)


def _warps(block: int) -> int:
    # ~16-32 fp32 values per thread
    return max(1, min(16, block // 512))


def quantize_rows(x2d: torch.Tensor, dtype=torch.float8_e4m3fn, out: torch.Tensor | None = None):
    """(x8 (M, K), scale (M, 1) fp32). x2d must have unit stride along K."""
    if x2d.stride(-1) != 1:
        x2d = x2d.contiguous()
    m, k = x2d.shape
    y = out if out is not None else torch.empty((m, k), dtype=dtype, device=x2d.device)
    s = torch.empty((m, 1), dtype=torch.float32, device=x2d.device)
    if m == 0:
        return y, s
    block = triton.next_power_of_2(k)
    _quant_rows_kernel[(m,)](x2d, y, s, k, x2d.stride(0), y.stride(0),
                             FP8_MAX_C=FP8_MAX[dtype], EPS=AMAX_EPS, BLOCK_K=block, num_warps=_warps(block))
    return y, s


def quantize_with_scale(x2d: torch.Tensor, scale: torch.Tensor, dtype=torch.float8_e4m3fn,
                        out: torch.Tensor | None = None) -> torch.Tensor:
    x = x2d.contiguous()
    y = out if out is not None else torch.empty(x.shape, dtype=dtype, device=x.device)
    n = x.numel()
    if n == 0:
        return y
    block = 4096
    s = scale.to(device=x.device, dtype=torch.float32).reshape(1)
    _quant_scale_kernel[(triton.cdiv(n, block),)](x, y, s, n, FP8_MAX_C=FP8_MAX[dtype], BLOCK=block, num_warps=8)
    return y


def quantize_blocks(x2d: torch.Tensor, dtype=torch.float8_e4m3fn, out: torch.Tensor | None = None):
    """(x8 (M, K), scale (M, K/128) fp32 with strides (1, M)); K a multiple of 128, x2d unit stride along K."""
    if x2d.stride(-1) != 1:
        x2d = x2d.contiguous()
    m, k = x2d.shape
    nb = k // BLOCK_K
    y = out if out is not None else torch.empty((m, k), dtype=dtype, device=x2d.device)
    s = torch.empty((nb, m), dtype=torch.float32, device=x2d.device)
    if m and nb:
        nb_p2 = triton.next_power_of_2(nb)
        _quant_blocks_kernel[(m,)](x2d, y, s, m, k, nb, x2d.stride(0), y.stride(0), FP8_MAX_C=FP8_MAX[dtype],
                                   EPS=AMAX_EPS, NB_P2=nb_p2, BK=BLOCK_K, num_warps=_warps(nb_p2 * BLOCK_K))
    return y, s.t()
