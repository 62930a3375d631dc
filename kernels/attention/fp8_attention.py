"""FP8 (e4m3) attention on FlashAttention-3's FP8 forward (Hopper): the quantizers, a CPU emulation and the
`flash_attn_3_fp8` adapter. Knows nothing of ComfyUI.

Quantization (per batch and head, FA3's descale layout (batch, num_heads_k), float32):
  - K is smoothed first: its mean over tokens (per channel) is subtracted. Softmax is invariant to adding
    the same vector to every key (q.(k - m) = q.k - q.m, constant along the softmax row), and real models
    carry a large per-channel K bias that would otherwise eat the 8-bit range;
  - scale = absmax / 448 (e4m3's largest finite value); the tensor is stored as (x * (1 / scale)), clamped
    to +-448, in e4m3; FA3 multiplies the scales back (q_descale, k_descale, v_descale = scale).
FA3 computes S = Q K^T in FP8, softmax in float32, and P V with P cast to e4m3; its output is bfloat16
(cast back to the caller's dtype here).

Three implementations of the same quantization:
  - `quantize_reference`: plain torch, the specification;
  - `quantize_fused`: two Triton launches (fp8_attention_triton.py), one read of q/k/v for all statistics and one
    quantizing pass, q/k/v in one grid each; bit-identical pre-cast values (tests);
  - `emulate`: quantize -> dequantize -> exact float32 attention (with P rounded to e4m3 like FA3's P V
    matmul): what this backend computes, on any device - the CPU reference for its error.
"""
from __future__ import annotations

import importlib
import logging
from typing import NamedTuple

import torch

from ..optional import load_once
from .base import (
    BHLD,
    BLHD,
    OP_NAMESPACE,
    Kernel,
    compile_safe,
    contiguous_last,
    op_id,
    reference,
    tensor_device_types,
    torch_dtypes,
)

FP8 = torch.float8_e4m3fn
FP8_MAX = 448.0
_TINY = 1e-30  # absmax floor: an all-zero head gets a finite scale (its values stay 0)

_state: dict = {}


class QuantizedQKV(NamedTuple):
    """e4m3 q/k/v in (B, L, H, D) contiguous + float32 descales (B, H) + K's mean (B, H, D) or None."""
    q: torch.Tensor
    k: torch.Tensor
    v: torch.Tensor
    q_descale: torch.Tensor
    k_descale: torch.Tensor
    v_descale: torch.Tensor
    k_mean: torch.Tensor | None


def scales(absmax: torch.Tensor):
    """(scale, inv_scale) from an absmax (float32): scale = absmax / 448 is FA3's descale; values are
    multiplied by inv_scale = 1 / scale. Shared by every quantizer so they agree bit for bit."""
    scale = absmax.float().clamp_min(_TINY) / FP8_MAX
    return scale, 1.0 / scale


def prescale(x: torch.Tensor, inv: torch.Tensor, mean: torch.Tensor | None = None) -> torch.Tensor:
    """The float32 values stored as e4m3: ((x - mean) * inv) clamped to +-448. x: (B, L, H, D);
    inv: (B, H); mean: (B, H, D) or None. The fused kernel's pre-cast values equal these bit for bit."""
    y = x.float()
    if mean is not None:
        y = y - mean[:, None]
    return (y * inv[:, None, :, None]).clamp(-FP8_MAX, FP8_MAX)


def quantize_reference(q, k, v, smooth_k: bool = True) -> QuantizedQKV:
    """Plain-torch quantization of q/k/v given in (B, L, H, D) (any strides). K and V may have another
    length than Q; all three must have the same number of heads (GQA: expand K/V first)."""
    mean = k.float().mean(dim=1) if smooth_k else None  # (B, H, D)
    out, descales = [], []
    for x, m in ((q, None), (k, mean), (v, None)):
        xf = x.float() if m is None else x.float() - m[:, None]
        scale, inv = scales(xf.abs().amax(dim=(1, 3)))  # (B, H)
        out.append(prescale(x, inv, m).to(FP8))
        descales.append(scale)
    return QuantizedQKV(*out, *descales, mean)


def fused_statistics(q, k, v, smooth_k: bool = True, config=None):
    """(inv (3, B, H), scale (3, B, H), mean (B, H, D) or None) from the fused statistics pass. config:
    (chunk, block_l, num_warps) of the Triton launches (None: the module's defaults)."""
    kern = _triton()
    chunk, block_l, warps = config or (kern.CHUNK, kern.BLOCK_L, kern.NUM_WARPS)
    st = kern.stats(q, k, v, chunk, block_l, warps)  # (3 stats, 3 tensors, B, H, NC, D)
    lq, lk = q.shape[1], k.shape[1]
    ncq = -(-lq // chunk)
    nck = -(-lk // chunk)
    absmax, mean = [], None
    for i, nc in ((0, ncq), (1, nck), (2, nck)):
        mx = st[1, i, :, :, :nc].amax(dim=2)  # (B, H, D)
        mn = st[2, i, :, :, :nc].amin(dim=2)
        if i == 1 and smooth_k:
            mean = st[0, 1, :, :, :nck].sum(dim=2) / lk
            mx, mn = mx - mean, mn - mean  # max_t |fl(k_t - m)| = max(|fl(kmax - m)|, |fl(kmin - m)|)
        absmax.append(torch.maximum(mx.abs(), mn.abs()).amax(dim=-1))
    scale, inv = scales(torch.stack(absmax))
    return inv, scale, mean


def quantize_fused(q, k, v, smooth_k: bool = True, out_f32: bool = False, config=None) -> QuantizedQKV:
    """`quantize_reference` in two Triton launches (see fp8_attention_triton.py). out_f32 (tests): return the
    float32 pre-cast values instead of e4m3. config: (chunk, block_l, num_warps), None for the defaults."""
    kern = _triton()
    cfg = config or (kern.CHUNK, kern.BLOCK_L, kern.NUM_WARPS)
    inv, scale, mean = fused_statistics(q, k, v, smooth_k, cfg)
    qo, ko, vo = kern.quantize(q, k, v, inv, mean, out_f32, *cfg)
    return QuantizedQKV(qo, ko, vo, scale[0], scale[1], scale[2], mean)


def fused_available() -> bool:
    return _triton() is not None


def _triton():
    return load_once(_state, "attention.fp8_attention_triton", _warn)


def _warn(error: str) -> None:
    logging.getLogger("comfyui-accel").warning(
        "accel: triton is not available (%s): FP8 attention quantizes q/k/v with plain torch ops (slower); "
        "install triton for the fused quantization", error)


def quantize(q, k, v, smooth_k: bool = True, method: str = "auto") -> QuantizedQKV:
    """method: "fused" (Triton), "torch" (reference), or "auto" (fused for CUDA tensors when Triton loads)."""
    if method == "fused" or (method == "auto" and q.is_cuda and fused_available()):
        return quantize_fused(q, k, v, smooth_k)
    return quantize_reference(q, k, v, smooth_k)


def dequantize(qq: QuantizedQKV):
    """float32 q, k (smoothed), v in (B, L, H, D) from a QuantizedQKV."""
    return tuple(x.float() * s[:, None, :, None] for x, s in ((qq.q, qq.q_descale), (qq.k, qq.k_descale),
                                                              (qq.v, qq.v_descale)))


def emulate(q, k, v, layout: str = BLHD, scale=None, smooth_k: bool = True, quantize_p: bool = True,
            out_dtype=torch.bfloat16) -> torch.Tensor:
    """What the FP8 backend computes, in plain torch on any device: q/k/v quantized as
    `quantize_reference`, dequantized, exact float32 attention; with quantize_p, the softmax numerator
    exp(s - rowmax) is rounded to e4m3 before the P V product and the row sum taken in float32, as FA3's
    FP8 kernel does (FA3 uses a running row max per key block, so its rounding of P differs slightly).
    Output in `out_dtype` (FA3 FP8 returns bfloat16), in `layout`."""
    if layout == BHLD:
        q, k, v = q.transpose(1, 2), k.transpose(1, 2), v.transpose(1, 2)
    qf, kf, vf = dequantize(quantize_reference(q, k, v, smooth_k))
    if not quantize_p:
        out = reference(qf, kf, vf, BLHD, scale=scale)
    else:
        qh, kh, vh = qf.transpose(1, 2), kf.transpose(1, 2), vf.transpose(1, 2)
        sm = scale if scale is not None else q.shape[-1] ** -0.5
        s = (qh @ kh.transpose(-1, -2)) * sm
        p = torch.exp(s - s.amax(dim=-1, keepdim=True))
        out = ((p.to(FP8).float() @ vh) / p.sum(dim=-1, keepdim=True)).transpose(1, 2)
    out = out.to(out_dtype)
    return out if layout == BLHD else out.transpose(1, 2)


# --- the adapter ---------------------------------------------------------------------------------

_MODULES = {"flash_attn_interface": "flash_attn_interface", "fa3_fwd_interface": "fa3_fwd_interface"}
_CONFIG_MODULES = {"fa3_fwd_interface": "fa3_fwd_config", "flash_attn_interface": "flash_attn_config"}


def fp8_disabled(library: str) -> bool:
    """True when the FA3 build says it was compiled without FP8 (FLASHATTENTION_DISABLE_FP8)."""
    try:
        cfg = importlib.import_module(_CONFIG_MODULES[library]).CONFIG["build_flags"]
        return bool(cfg.get("FLASHATTENTION_DISABLE_FP8", False))
    except Exception:  # no config module (older builds): FP8 is compiled in by default
        return False


def make_impl(fn, smooth_k: bool = True, method: str = "auto"):
    """impl(q, k, v, mask, scale, layout) for q/k/v in (B, L, H, D): quantize, FA3 FP8 forward, output back
    in q's dtype. `fn` is FA3's flash_attn_func. The bench builds variants (torch vs fused, smoothing)."""
    def impl(q, k, v, mask, scale, layout):
        qq = quantize(q, k, v, smooth_k, method)
        out = fn(qq.q, qq.k, qq.v, softmax_scale=scale, causal=False,
                 q_descale=qq.q_descale, k_descale=qq.k_descale, v_descale=qq.v_descale)
        out = out[0] if isinstance(out, (tuple, list)) else out
        return out if out.dtype == q.dtype else out.to(q.dtype)
    return impl


def build(name: str, spec, library: str, version, extra_device_types=()) -> Kernel:
    mod = importlib.import_module(_MODULES[library])
    fn = getattr(mod, "flash_attn_func", None)
    if fn is None:
        raise ImportError(f"{_MODULES[library]} has no flash_attn_func")
    if fp8_disabled(library):
        raise ImportError(f"{library} was built without FP8 (FLASHATTENTION_DISABLE_FP8)")
    impl = make_impl(fn)

    def call_impl(q, k, v, mask, scale, layout):
        return impl(contiguous_last(q), contiguous_last(k), contiguous_last(v), mask, scale, layout)

    return Kernel(
        name=name, library=library, version=version, layouts=(BLHD,),
        call=compile_safe(op_id(name, library), call_impl), op_name=f"{OP_NAMESPACE}::{op_id(name, library)}",
        dtypes=torch_dtypes(spec.dtypes),
        device_types=tensor_device_types(spec.devices) | frozenset(extra_device_types),
        head_dims=frozenset(spec.head_dims) if spec.head_dims else None, max_head_dim=spec.max_head_dim,
        supports_mask=False, gqa=False, supports_scale=True, low_precision=True, autograd=False,
        note=("q/k/v quantized to FP8 e4m3 with one scale per batch and head, K smoothed (mean over tokens "
              "subtracted), " + ("fused Triton quantization" if fused_available() else
                                 "torch quantization (triton not available)") + "; output in the input dtype"),
    )
