"""FP8 weights: quantize, dequantize and the scaled matmul, with a plain-torch reference beside each.

No ComfyUI import. Conventions used everywhere in the pack:

- A quantized weight is `(w8, scale)`: `w8` is a float8 tensor of shape (N, K) (out, in) and
  `scale` an fp32 tensor of shape `()` (per-tensor) or `(N, 1)` (per output channel), so that
  `w ~= w8.float() * scale`.
- Scales are `amax / FP8_MAX` (absmax, symmetric), quantization is round-to-nearest-even with
  saturation to +-FP8_MAX (what `tensor.to(float8)` does on CPU and CUDA).
- FP8 matmul ("scaled_mm"): activations are quantized dynamically, per token (row-wise, one scale per
  row of the flattened input) or per tensor; the fp8 x fp8 products are accumulated in fp32 and the
  result is multiplied by `scale_x[m] * scale_w[n]`, then the bias is added:

      out[m, n] = (sum_k x8[m, k] * w8[n, k]) * sx[m] * sw[n] + bias[n]

  `fp8_linear_ref` is exactly this in plain torch (fp32 matmul of the fp8 values: every product of
  two fp8 numbers is exact in fp32). `fp8_linear` is the GPU implementation: a Triton kernel quantizes
  the activations (kernels/fp8_linear_triton.py, with `quantize_rows_ref` as its reference) and
  `torch._scaled_mm` multiplies (row-wise scales on sm90+, per-tensor scales on sm89).
- 1x128 blocks (`scaled_mm_block1x128`): one activation scale per token and per 128 consecutive input
  channels, `sx` of shape (M, K/128); the weight keeps its per-channel (or per-tensor) scale, handed to
  the matmul as the same value for every 128-block of K (cuBLAS's 1x128 x 1x128 recipe, sm90, CUDA >= 12.9):

      out[m, n] = sum_b (sum_{k in b} x8[m, k] * w8[n, k]) * sx[m, b] * sw[n] + bias[n]

  The products of one block are summed before its scale is applied, in fp32 (the kernel promotes its
  accumulator every 128 K, so it never has the fast-accumulation error). No new weight format: the
  weights and files are the same as for the per-token path. `scaled_mm_block_ref` is the reference.
"""
from __future__ import annotations

import math

import torch

from .optional import load_once
from .tracing import is_compiling as _compiling

E4M3 = torch.float8_e4m3fn
E5M2 = torch.float8_e5m2
FP8_DTYPES = (E4M3, E5M2)
FP8_MAX = {E4M3: 448.0, E5M2: 57344.0}
# Smallest amax used for a scale: an all-zero row/tensor gets a tiny, finite scale (its values stay 0).
AMAX_EPS = 1e-12

MODES = ("scaled_mm_rowwise", "scaled_mm_tensorwise", "scaled_mm_block1x128")
BLOCK_MODE = "scaled_mm_block1x128"
BLOCK_K = 128  # activation scale block along K (1 x BLOCK_K)


def is_fp8(t_or_dtype) -> bool:
    dt = t_or_dtype.dtype if isinstance(t_or_dtype, torch.Tensor) else t_or_dtype
    return dt in FP8_DTYPES


def fp8_max(dtype) -> float:
    return FP8_MAX[dtype]


# --- weights ---------------------------------------------------------------------------------------

def weight_scale(w: torch.Tensor, dtype=E4M3, per_channel: bool = False) -> torch.Tensor:
    """fp32 scale for `w` (N, K): shape () per tensor, (N, 1) per output channel."""
    if per_channel:
        amax = w.abs().amax(dim=tuple(range(1, w.ndim)), keepdim=True).float().reshape(w.shape[0], 1)
    else:
        amax = w.abs().amax().float()
    return amax.clamp_min(AMAX_EPS) / FP8_MAX[dtype]


def quantize_with_scale(w: torch.Tensor, scale: torch.Tensor, dtype=E4M3) -> torch.Tensor:
    """Round `w / scale` to the fp8 `dtype` (nearest even, saturating). Works in row chunks to bound
    the fp32 temporary (a 13824 x 5120 weight never needs more than ~64 MB extra)."""
    m = FP8_MAX[dtype]
    out = torch.empty(w.shape, dtype=dtype, device=w.device)
    scale = scale.to(device=w.device, dtype=torch.float32)
    rows = max(1, (1 << 24) // max(1, w[0].numel())) if w.ndim else 1
    if w.ndim == 0:
        return (w.float() / scale).clamp(-m, m).to(dtype)
    for i in range(0, w.shape[0], rows):
        s = scale if scale.ndim == 0 else scale[i:i + rows]
        out[i:i + rows] = (w[i:i + rows].float() / s).clamp_(-m, m).to(dtype)
    return out


def quantize_weight(w: torch.Tensor, dtype=E4M3, per_channel: bool = False):
    """(w8, scale) for a float weight. Round-trip error bound per element (RTNE, half a step):
    |w8*scale - w| <= max(|w| * 2**-(mantissa_bits+1), scale * 2**-(subnormal_exp+1)),
    i.e. |w|/16 or scale*2**-10 for e4m3fn, |w|/8 or scale*2**-17 for e5m2."""
    s = weight_scale(w, dtype, per_channel)
    return quantize_with_scale(w, s, dtype), s


def dequantize(w8: torch.Tensor, scale: torch.Tensor, dtype=torch.bfloat16) -> torch.Tensor:
    """`w8 * scale` in `dtype`. For bf16/fp32 the product is taken in `dtype` (the scale rounded to
    `dtype`, as ComfyUI's own scaled-fp8 ops do: at most 2**-9 relative for bf16); fp16 goes through
    fp32 so that tiny scales never become fp16 subnormals."""
    scale = scale.to(device=w8.device)
    if dtype == torch.float16 or w8.device.type == "cpu":
        return (w8.to(torch.float32) * scale.float()).to(dtype)
    return w8.to(dtype) * scale.to(dtype)


def canonical_scale(scale: torch.Tensor, out_features: int):
    """Scale as fp32 `()` or `(N, 1)`; None if its shape fits neither (caller reports the error)."""
    if scale.numel() == 1:
        return scale.reshape(()).to(torch.float32)
    if scale.numel() == out_features and tuple(scale.shape) in ((out_features,), (out_features, 1)):
        return scale.reshape(out_features, 1).to(torch.float32)
    return None


def requantize(w8: torch.Tensor, scale: torch.Tensor, dtype=E4M3, per_channel: bool = False):
    """Convert a quantized weight to another fp8 format / granularity (through fp32)."""
    w = w8.to(torch.float32) * scale.to(device=w8.device, dtype=torch.float32)
    return quantize_weight(w, dtype, per_channel)


# --- activations: plain-torch references ------------------------------------------------------------

def quantize_rows_ref(x2d: torch.Tensor, dtype=E4M3, out_dtype=None):
    """Per-token (row-wise) dynamic quantization: returns (x8 (M, K), scale (M, 1) fp32).

    scale[m] = max(amax(|x[m]|), AMAX_EPS) / FP8_MAX;  x8 = clamp(x / scale, +-FP8_MAX) -> fp8.
    `out_dtype` (tests only) stores the clamped fp32 values instead of casting them to fp8.
    """
    m = FP8_MAX[dtype]
    xf = x2d.float()
    scale = xf.abs().amax(dim=1, keepdim=True).clamp_min(AMAX_EPS) / m
    y = (xf / scale).clamp_(-m, m)
    return y.to(out_dtype or dtype), scale


def quantize_tensor_ref(x2d: torch.Tensor, dtype=E4M3, out_dtype=None):
    """Per-tensor dynamic quantization: (x8, scale ()) with scale = max(amax, eps) / FP8_MAX."""
    m = FP8_MAX[dtype]
    xf = x2d.float()
    scale = xf.abs().amax().clamp_min(AMAX_EPS) / m
    y = (xf / scale).clamp_(-m, m)
    return y.to(out_dtype or dtype), scale


def quantize_blocks_ref(x2d: torch.Tensor, dtype=E4M3, out_dtype=None):
    """1x128 dynamic quantization: (x8 (M, K), scale (M, K/128) fp32), K a multiple of BLOCK_K.

    scale[m, b] = max(amax(|x[m, 128b:128b+128]|), AMAX_EPS) / FP8_MAX; x8 = clamp(x / scale, +-FP8_MAX).
    """
    m = FP8_MAX[dtype]
    rows, k = x2d.shape
    xf = x2d.float().reshape(rows, k // BLOCK_K, BLOCK_K)
    scale = xf.abs().amax(dim=2, keepdim=True).clamp_min(AMAX_EPS) / m
    y = (xf / scale).clamp_(-m, m).reshape(rows, k)
    return y.to(out_dtype or dtype), scale.reshape(rows, k // BLOCK_K)


def scaled_mm_block_ref(x8, sx, w8, sw, bias=None, out_dtype=torch.bfloat16):
    """fp32 reference of the 1x128 x per-channel matmul: each 128-block's products summed, times sx[m, b],
    summed over blocks, times sw[n], plus bias (every fp8 x fp8 product is exact in fp32)."""
    rows, k = x8.shape
    xs = (x8.float().reshape(rows, k // BLOCK_K, BLOCK_K) * sx.float().reshape(rows, -1, 1)).reshape(rows, k)
    acc = xs @ w8.float().t()
    sw = sw.float().reshape(1, -1) if sw.numel() > 1 else sw.float().reshape(())
    out = acc * sw
    if bias is not None:
        out = out + bias.float()
    return out.to(out_dtype)


def scaled_mm_ref(x8, sx, w8, sw, bias=None, out_dtype=torch.bfloat16):
    """fp32-accumulated fp8 matmul with scales: (x8 @ w8.T) * sx * sw.T + bias."""
    acc = x8.float() @ w8.float().t()
    sw = sw.float().reshape(1, -1) if sw.numel() > 1 else sw.float().reshape(())
    out = acc * sx.float() * sw
    if bias is not None:
        out = out + bias.float()
    return out.to(out_dtype)


def fp8_linear_ref(x, w8, sw, bias=None, act: str = "row", out_dtype=None):
    """Plain-torch reference of the FP8 linear: dynamic activation quantization (per token `row`, per
    `tensor` or per 1x128 `block`), per-channel or per-tensor weight scale, fp32 accumulation."""
    shape = x.shape
    x2 = x.reshape(-1, shape[-1])
    if act == "block":
        x8, sx = quantize_blocks_ref(x2, E4M3)
        out = scaled_mm_block_ref(x8, sx, w8, sw, bias, out_dtype or x.dtype)
        return out.reshape(*shape[:-1], w8.shape[0])
    x8, sx = (quantize_rows_ref if act == "row" else quantize_tensor_ref)(x2, E4M3)
    out = scaled_mm_ref(x8, sx, w8, sw, bias, out_dtype or x.dtype)
    return out.reshape(*shape[:-1], w8.shape[0])


# --- GPU implementation -------------------------------------------------------------------------------

_triton_state: dict = {}


def _triton_quant():
    """kernels.fp8_linear_triton, or None when Triton cannot be imported (imported on first GPU use only)."""
    return load_once(_triton_state, "fp8_linear_triton")


def triton_error() -> str | None:
    _triton_quant()
    return _triton_state.get("error")


def quantize_rows(x2d: torch.Tensor, dtype=E4M3):
    """Per-token quantization: fused Triton kernel on GPU (one read of x, one write of x8), else the
    reference. Under torch.compile the reference's plain ops are traced instead, so inductor fuses the
    quantization into the op that produces x (norm + modulation, GELU): no separate pass at all."""
    if x2d.is_cuda and dtype == E4M3 and not _compiling():
        k = _triton_quant()
        if k is not None:
            return k.quantize_rows(x2d, dtype)
    return quantize_rows_ref(x2d, dtype)


def quantize_blocks(x2d: torch.Tensor, dtype=E4M3):
    """1x128 quantization (K a multiple of BLOCK_K): fused Triton kernel on GPU in eager mode (the scale
    written outer-dim-major, (M, K/128) with strides (1, M): the layout cuBLAS reads), else the reference
    (traced under torch.compile, fused by inductor into the op that produces x)."""
    if x2d.is_cuda and dtype == E4M3 and not _compiling():
        k = _triton_quant()
        if k is not None:
            return k.quantize_blocks(x2d, dtype)
    return quantize_blocks_ref(x2d, dtype)


def quantize_tensor(x2d: torch.Tensor, dtype=E4M3):
    """Per-tensor quantization: amax with one reduction, then the fused scale+cast kernel on GPU
    (traced plain ops under torch.compile, as in quantize_rows)."""
    if x2d.is_cuda and dtype == E4M3 and not _compiling():
        k = _triton_quant()
        if k is not None:
            amax = torch.linalg.vector_norm(x2d, ord=math.inf, dtype=torch.float32)
            scale = amax.clamp_min(AMAX_EPS) / FP8_MAX[dtype]
            return k.quantize_with_scale(x2d, scale, dtype), scale
    return quantize_tensor_ref(x2d, dtype)


def scaled_mm_supported(x: torch.Tensor, w8: torch.Tensor) -> tuple[bool, str]:
    """Shape/dtype conditions of torch._scaled_mm for this layer (K and N multiples of 16, e4m3 weight)."""
    if w8.dtype != E4M3:
        return False, f"weight dtype {w8.dtype} (FP8 matmul uses float8_e4m3fn weights)"
    if x.dtype not in (torch.bfloat16, torch.float16, torch.float32):
        return False, f"activation dtype {x.dtype}"
    n, k = w8.shape
    if k % 16 or n % 16:
        return False, f"shape {n}x{k} is not a multiple of 16"
    if not hasattr(torch, "_scaled_mm"):  # private, torch >= 2.1 (row-wise scales 2.5): without it, dequantize
        return False, "this PyTorch has no torch._scaled_mm"
    return True, ""


_bias_state = {"rowwise_bias_ok": True}
_rowwise_out: dict = {}  # (device type, index) -> frozenset of output dtypes row-wise _scaled_mm writes


def rowwise_out_dtypes(device) -> frozenset:
    """Output dtypes torch._scaled_mm writes directly with row-wise scales on `device` (probed once with
    a tiny call, in eager mode: loaders call this at load time). bf16 everywhere it runs; fp16 on newer
    torch builds (2.11 on H100: yes). Without it an fp16 model pays a bf16->fp16 conversion pass after
    every FP8 layer. While torch.compile traces, only an earlier probe's answer is used (else bf16)."""
    device = torch.device(device)
    key = (device.type, device.index)
    if key not in _rowwise_out:
        if _compiling():
            return frozenset({torch.bfloat16})
        ok = set()
        for dt in (torch.bfloat16, torch.float16):
            try:
                x8 = torch.zeros(32, 32, device=device).to(E4M3)
                w8 = torch.zeros(32, 32, device=device).to(E4M3)
                torch._scaled_mm(x8, w8.t(), scale_a=torch.ones(32, 1, device=device),
                                 scale_b=torch.ones(1, 32, device=device), out_dtype=dt)
                ok.add(dt)
            except Exception:
                pass
        _rowwise_out[key] = frozenset(ok)
    return _rowwise_out[key]


_block_out: dict = {}  # (device type, index) -> frozenset of output dtypes the 1x128 _scaled_mm writes


def block_out_dtypes(device) -> frozenset:
    """Output dtypes of torch._scaled_mm's 1x128 x 1x128 blockwise recipe on `device`, probed once with a
    tiny call in eager mode (loaders call this at load time); empty where this GPU / torch / cuBLAS has no
    blockwise scaling (it needs sm90 and CUDA >= 12.9: torch 2.9+ cu129/cu130 on H100/H200). While
    torch.compile traces, only an earlier probe's answer is used (else: none)."""
    device = torch.device(device)
    key = (device.type, device.index)
    if key not in _block_out:
        if _compiling() or device.type != "cuda" or not hasattr(torch, "_scaled_mm"):
            return frozenset()
        ok = set()
        for dt in (torch.bfloat16, torch.float16):
            try:
                x8 = torch.ones(128, 256, device=device).to(E4M3)
                w8 = torch.ones(128, 256, device=device).to(E4M3)
                op = _block_op()  # registered here, in eager mode, never while compiling
                args = (x8, torch.ones(128, 2, device=device), w8, torch.ones(128, 1, device=device), dt)
                out = op(*args) if op is not None else _block_mm_eager(*args)
                if out.dtype == dt and bool((out.float() == 256).all()):
                    ok.add(dt)
            except Exception:
                pass
        _block_out[key] = frozenset(ok)
    return _block_out[key]


def _block_scales(x8, sx, w8, sw):
    """(scale_a, scale_b) in the layouts torch._scaled_mm's 1x128 x 1x128 recipe checks: scale_a (M, K/128)
    with strides (1, M); scale_b (K/128, N) row-major: the weight's per-channel (or per-tensor) scale
    repeated for every 128-block of K."""
    n, k = w8.shape
    nb = k // BLOCK_K
    sa = sx.to(torch.float32).reshape(x8.shape[0], nb)
    if sa.stride(0) != 1 or (nb > 1 and sa.stride(1) != x8.shape[0]):
        sa = sa.t().contiguous().t()
    sb = sw.to(torch.float32).reshape(1, n if sw.numel() > 1 else 1).expand(nb, n).contiguous()
    return sa, sb


def _block_mm_eager(x8, sx, w8, sw, out_dtype):
    sa, sb = _block_scales(x8, sx, w8, sw)
    return torch._scaled_mm(x8, w8.t(), scale_a=sa, scale_b=sb, out_dtype=out_dtype)


BLOCK_OP_NAME = "comfyui_accel::fp8_mm_1x128"
_block_op_state: dict = {}


def _block_op():
    """The 1x128 matmul as a custom op (registered on first use): opaque to inductor, which then neither
    re-lays-out the scales nor needs a lowering for blockwise _scaled_mm (torch versions differ there).
    None where torch has no torch.library.custom_op (the call is then made directly)."""
    if "op" in _block_op_state:
        return _block_op_state["op"]
    op = None
    custom_op = getattr(getattr(torch, "library", None), "custom_op", None)
    if custom_op is not None:
        try:
            def _impl(x8, sx, w8, sw, out_dtype):
                return _block_mm_eager(x8, sx, w8, sw, out_dtype)

            reg = custom_op(BLOCK_OP_NAME, _impl, mutates_args=(),
                            schema="(Tensor x8, Tensor sx, Tensor w8, Tensor sw, ScalarType out_dtype) -> Tensor")

            def _fake(x8, sx, w8, sw, out_dtype):
                return x8.new_empty((x8.shape[0], w8.shape[0]), dtype=out_dtype)

            reg.register_fake(_fake)
        except Exception:  # already registered (another copy of the pack in this process) or an old torch
            pass
        op = getattr(getattr(torch.ops, "comfyui_accel", None), "fp8_mm_1x128", None)
    _block_op_state["op"] = op
    return op


def scaled_mm_block(x8, sx, w8, sw, bias=None, out_dtype=torch.bfloat16):
    """The 1x128 FP8 matmul: x8 (M, K), sx (M, K/128), w8 (N, K), sw () or (N, 1). CUDA: torch._scaled_mm's
    blockwise recipe (through the custom op); CPU (tests): the plain-torch reference."""
    if not x8.is_cuda:
        return scaled_mm_block_ref(x8, sx, w8, sw, bias, out_dtype)
    mm_dtype = out_dtype if out_dtype in block_out_dtypes(x8.device) else torch.bfloat16
    op = _block_op()
    out = op(x8, sx, w8, sw, mm_dtype) if op is not None else _block_mm_eager(x8, sx, w8, sw, mm_dtype)
    if bias is not None:
        out = out.add_(bias.to(out.dtype))
    return out.to(out_dtype)


def scaled_mm(x8, sx, w8, sw, bias=None, out_dtype=torch.bfloat16, use_fast_accum=True):
    """torch._scaled_mm for both scale layouts. x8 (M, K) row-major, w8 (N, K) row-major (its
    transpose is the column-major operand), sx () or (M, 1), sw () or (N, 1)."""
    n = w8.shape[0]
    wt = w8.t()
    per_channel_w = sw.numel() > 1
    if sx.numel() > 1:  # row-wise: sx (M, 1), sw (1, N), output bf16
        sw_row = sw.reshape(1, n) if per_channel_w else sw.reshape(1, 1).expand(1, n)
        sw_row = sw_row.to(torch.float32).contiguous()
        sx = sx.to(torch.float32).reshape(-1, 1).contiguous()
        # write the caller's dtype directly where this torch can (no conversion pass), else bf16
        mm_dtype = out_dtype if out_dtype in rowwise_out_dtypes(x8.device) else torch.bfloat16
        if bias is not None and _bias_state["rowwise_bias_ok"]:
            try:
                return torch._scaled_mm(x8, wt, scale_a=sx, scale_b=sw_row, bias=bias.to(mm_dtype),
                                        out_dtype=mm_dtype, use_fast_accum=use_fast_accum).to(out_dtype)
            except RuntimeError:
                _bias_state["rowwise_bias_ok"] = False
        out = torch._scaled_mm(x8, wt, scale_a=sx, scale_b=sw_row, out_dtype=mm_dtype,
                               use_fast_accum=use_fast_accum)
        if bias is not None:
            out = out.add_(bias.to(out.dtype))
        return out.to(out_dtype)
    # tensor-wise: both scales scalars; a per-channel weight scale is applied to the output columns.
    # The matmul writes bf16/fp16 (a bias inside _scaled_mm needs a 16-bit output); before a
    # per-channel scale the unscaled values can exceed fp16's range, so those go through bf16.
    mm_dtype = out_dtype if out_dtype in (torch.bfloat16, torch.float16) and not per_channel_w else torch.bfloat16
    sx = sx.to(torch.float32).reshape(())
    if not per_channel_w:
        out = torch._scaled_mm(x8, wt, scale_a=sx, scale_b=sw.to(torch.float32).reshape(()),
                               bias=None if bias is None else bias.to(mm_dtype), out_dtype=mm_dtype,
                               use_fast_accum=use_fast_accum)
        return out.to(out_dtype)
    one = torch.ones((), device=x8.device, dtype=torch.float32)
    out = torch._scaled_mm(x8, wt, scale_a=sx, scale_b=one, out_dtype=mm_dtype, use_fast_accum=use_fast_accum)
    out = out.mul_(sw.reshape(1, n).to(out.dtype))
    if bias is not None:
        out = out.add_(bias.to(out.dtype))
    return out.to(out_dtype)


def fp8_linear(x: torch.Tensor, w8: torch.Tensor, sw: torch.Tensor, bias=None,
               mode: str = "scaled_mm_rowwise", use_fast_accum: bool = True) -> torch.Tensor:
    """FP8 linear layer: quantize `x` per token (rowwise), per 1x128 block (block1x128) or per tensor
    (tensorwise), torch._scaled_mm against the fp8 weight, output in x.dtype. Same math as
    `fp8_linear_ref`; callers check `scaled_mm_supported` first. A layer whose K is not a multiple of 128
    runs per token in block1x128 mode."""
    shape = x.shape
    x2 = x.reshape(-1, shape[-1])
    if not x2.is_contiguous():
        x2 = x2.contiguous()
    if mode == BLOCK_MODE:
        if x2.shape[1] % BLOCK_K == 0:
            x8, sx = quantize_blocks(x2, E4M3)
            out = scaled_mm_block(x8, sx, w8, sw.to(x.device), bias, out_dtype=x.dtype)
            return out.reshape(*shape[:-1], w8.shape[0])
        mode = "scaled_mm_rowwise"
    if mode == "scaled_mm_rowwise":
        x8, sx = quantize_rows(x2, E4M3)
    else:
        x8, sx = quantize_tensor(x2, E4M3)
    out = scaled_mm(x8, sx, w8, sw.to(x.device), bias, out_dtype=x.dtype, use_fast_accum=use_fast_accum)
    return out.reshape(*shape[:-1], w8.shape[0])
