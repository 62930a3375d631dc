"""Triton dtype conversion at memory bandwidth (imported lazily, on first GPU use).

PyTorch has no vectorized kernel for fp16 <-> bf16 copies: `t.to(torch.bfloat16)` of an fp16 tensor runs
the generic casting copy, measured at ~1.2 TB/s on an H100 (bench/results/h100/profile_wan.md: 0.54 ms per
Wan 14B q/k/v tensor). This kernel streams contiguous memory in large blocks. Reference: `t.to(dtype)`
(the same round-to-nearest-even conversion through fp32; tests compare bit for bit in the Triton
interpreter).
"""
from __future__ import annotations

import torch
import triton
import triton.language as tl


def available() -> bool:
    return True


@triton.jit
def _convert_kernel(src_ptr, dst_ptr, n, TO_BF16: tl.constexpr, BLOCK: tl.constexpr):
    pid = tl.program_id(0).to(tl.int64)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(src_ptr + offs, mask=mask).to(tl.float32)  # fp16/bf16 -> fp32 is exact
    if TO_BF16:
        # fp32 -> bf16 round-to-nearest-even on the bits (what torch does; also exact in the Triton
        # interpreter, whose own bf16 cast truncates). NaN stays NaN, inf stays inf.
        u = x.to(tl.uint32, bitcast=True)
        u = (u + 0x7FFF + ((u >> 16) & 1)) >> 16
        u = tl.where(x != x, 0x7FC0, u)  # NaN payloads could carry into the sign bit: canonical NaN
        tl.store(dst_ptr + offs, u.to(tl.uint16).to(tl.bfloat16, bitcast=True), mask=mask)
    else:
        tl.store(dst_ptr + offs, x.to(dst_ptr.dtype.element_ty), mask=mask)


BLOCK = 4096


def convert(t: torch.Tensor, dtype: torch.dtype) -> torch.Tensor:
    """`t.to(dtype)` for a contiguous tensor, as one streaming kernel."""
    if not t.is_contiguous():
        t = t.contiguous()
    out = torch.empty(t.shape, dtype=dtype, device=t.device)
    n = t.numel()
    if n:
        _convert_kernel[(triton.cdiv(n, BLOCK),)](t, out, n, TO_BF16=dtype == torch.bfloat16, BLOCK=BLOCK, num_warps=8)
    return out
