"""`sparse_attention(q, k, v, pattern)`: one call over the block-sparse kernels.

Backends (each exact for the pattern's block mask, up to its arithmetic):
- "reference": dense masked attention in float32 (TF32 off), query rows in chunks; the oracle for the others.
- "flex": torch `flex_attention` with a `BlockMask` built from the pattern's tiles (compiled on CUDA; eager on
  the CPU unless compile=True: torch 2.14 runs both on the CPU).
- "fa4": FlashAttention-4 (`flash-attn-4`, CuTe DSL, sm90/sm100) with `block_sparse_tensors`; import-guarded.

Layouts: (B, H, L, D) ("bhld", SDPA's), (B, L, H, D) ("blhd", FlashAttention's), or ComfyUI's (B, L, H*D) with
`heads=`; the output comes back in the input's layout. pattern=None means dense exact attention (SDPA).
"""
from __future__ import annotations

import contextlib
import math

import torch
import torch.nn.functional as F

BACKENDS = ("reference", "flex", "fa4")
_REFERENCE_BUDGET = 1 << 28  # float32 score elements per chunk of the reference (1 GiB)


# --- layouts ---------------------------------------------------------------------------------------------

def _to_bhld(x: torch.Tensor, heads: int | None, layout: str, name: str):
    if x.dim() == 3:
        if not heads:
            raise ValueError(f"sparse_attention: {name} is (B, L, H*D); pass heads= (the model's head count)")
        b, n, hd = x.shape
        if hd % heads:
            raise ValueError(f"sparse_attention: {name}'s last dim {hd} is not divisible by heads={heads}")
        return x.view(b, n, heads, hd // heads).transpose(1, 2)
    if x.dim() != 4:
        raise ValueError(f"sparse_attention: {name} must be 3-D (B, L, H*D) or 4-D, got shape {tuple(x.shape)}")
    if layout == "bhld":
        return x
    if layout == "blhd":
        return x.transpose(1, 2)
    raise ValueError(f"sparse_attention: layout must be 'bhld' or 'blhd', got {layout!r}")


def _from_bhld(out: torch.Tensor, like: torch.Tensor, layout: str):
    if like.dim() == 3:
        b, h, n, d = out.shape
        return out.transpose(1, 2).reshape(b, n, h * d)
    return out if layout == "bhld" else out.transpose(1, 2)


INT32_MAX = 2 ** 31 - 1


def int32_indexable(x: torch.Tensor) -> torch.Tensor:
    """x itself when every element's offset from its first fits in int32, else a contiguous copy. The sparse kernels
    (flex_attention's Triton template, FA4) index with 32-bit offsets: a view into a wider tensor overflows them.
    Seen on an H100 as "CUDA error: an illegal memory access" at HunyuanVideo 720p 129 frames, where a single block's
    v is a view into its linear1 output (119,056 tokens x 21,504 columns: offsets to 2.56e9)."""
    span = sum((n - 1) * abs(st) for n, st in zip(x.shape, x.stride(), strict=True) if n > 0)
    return x if span <= INT32_MAX else x.contiguous()


# --- the dense masked reference ----------------------------------------------------------------------------

@contextlib.contextmanager
def _no_tf32():
    m, c = torch.backends.cuda.matmul.allow_tf32, torch.backends.cudnn.allow_tf32
    torch.backends.cuda.matmul.allow_tf32 = torch.backends.cudnn.allow_tf32 = False
    try:
        yield
    finally:
        torch.backends.cuda.matmul.allow_tf32, torch.backends.cudnn.allow_tf32 = m, c


def reference_attention(q, k, v, pattern=None, scale: float | None = None, token_mask=None) -> torch.Tensor:
    """softmax(q k^T * scale + mask) v in float32, (B, H, L, D) in and out (output in q's dtype). The mask is
    the pattern's tiles expanded to tokens (or an explicit (Lq, Lk) bool `token_mask`); no mask = dense."""
    B, H, Lq, D = q.shape
    Lk = k.shape[2]
    scale = 1.0 / math.sqrt(D) if scale is None else scale
    bm = pattern.block_mask().to(q.device) if pattern is not None else None
    bs = pattern.block_size if pattern is not None else 0
    tm = token_mask.to(q.device) if token_mask is not None else None
    kcols = torch.arange(Lk, device=q.device)
    out = torch.empty(B, H, Lq, v.shape[-1], dtype=q.dtype, device=q.device)
    rows = max(1, min(Lq, _REFERENCE_BUDGET // max(1, H * Lk)))
    kf, vf = k.float(), v.float()
    with _no_tf32():
        for b in range(B):
            for r0 in range(0, Lq, rows):
                r1 = min(Lq, r0 + rows)
                s = torch.matmul(q[b, :, r0:r1].float(), kf[b].transpose(-1, -2)) * scale
                if bm is not None:
                    keep = bm[torch.arange(r0, r1, device=q.device) // bs][:, kcols // bs]
                elif tm is not None:
                    keep = tm[r0:r1]
                else:
                    keep = None
                if keep is not None:
                    if not bool(keep.any(dim=-1).all()):
                        raise ValueError("reference_attention: a query row keeps no key (the mask is empty there)")
                    s = s.masked_fill(~keep, float("-inf"))
                out[b, :, r0:r1] = torch.matmul(torch.softmax(s, dim=-1), vf[b]).to(q.dtype)
    return out


# --- flex_attention -------------------------------------------------------------------------------------------

_FLEX_MASKS: dict = {}
_FLEX_COMPILED: dict = {}


def _packed(table: torch.Tensor):
    """(n, n) bool -> (1, 1, n) int32 counts and (1, 1, n, n) int32 column indices (kept columns first)."""
    cnt = table.sum(-1).to(torch.int32)
    idx = torch.argsort((~table).to(torch.int8), dim=-1, stable=True).to(torch.int32)
    return cnt[None, None].contiguous(), idx[None, None].contiguous()


def flex_block_mask(pattern, device):
    """The pattern as a flex_attention `BlockMask` (cached per pattern and device). Tiles wholly inside the
    sequence are "full" (no mask_mod call in the kernel); tiles touching the ragged tail are "partial"."""
    from torch.nn.attention.flex_attention import BlockMask

    device = torch.device(device)
    key = (pattern, str(device))
    bm = _FLEX_MASKS.get(key)
    if bm is not None:
        return bm
    table = pattern.block_mask().to(device)
    bs, L = pattern.block_size, pattern.tokens
    full, partial = table.clone(), torch.zeros_like(table)
    if L % bs:
        edge = torch.zeros_like(table)
        edge[-1, :] = True
        edge[:, -1] = True
        partial, full = table & edge, table & ~edge

    def mask_mod(b, h, q_idx, kv_idx):
        return table[q_idx // bs, kv_idx // bs]

    pc, pi = _packed(partial)
    fc, fi = _packed(full)
    bm = BlockMask.from_kv_blocks(pc, pi, fc, fi, BLOCK_SIZE=bs, mask_mod=mask_mod, seq_lengths=(L, L))
    _FLEX_MASKS[key] = bm
    return bm


def _flex(q, k, v, pattern, scale, compile: bool | None):
    from torch.nn.attention.flex_attention import flex_attention

    compile = q.is_cuda if compile is None else compile
    fn = flex_attention
    if compile:
        fn = _FLEX_COMPILED.get("fn")
        if fn is None:
            fn = _FLEX_COMPILED["fn"] = torch.compile(flex_attention, dynamic=False)
    return fn(q, k, v, block_mask=flex_block_mask(pattern, q.device), scale=scale)


# --- FlashAttention-4 -----------------------------------------------------------------------------------------

_FA4: dict = {}


def _fa4_module():
    if "mod" not in _FA4:
        try:
            from flash_attn.cute import flash_attn_func
            from flash_attn.cute.block_sparsity import BlockSparseTensorsTorch

            _FA4["mod"] = (flash_attn_func, BlockSparseTensorsTorch)
        except Exception as e:  # noqa: BLE001 - not installed / no CUDA / CuTe DSL missing
            _FA4["mod"] = None
            _FA4["error"] = (f"flash-attn-4 not importable ({type(e).__name__}: {e}); install flash-attn-4 and "
                             f"nvidia-cutlass-dsl (sm90/sm100 GPU)")
    return _FA4["mod"]


def _fa4_tensors(pattern, device, cls):
    key = ("fa4", pattern, str(device))
    t = _FLEX_MASKS.get(key)
    if t is None:
        table = pattern.block_mask().to(device)
        fc, fi = _packed(table)  # every kept tile is full: FA4 masks the ragged tail by the sequence length
        n = table.shape[0]
        zc = torch.zeros_like(fc)
        zi = torch.zeros(1, 1, n, n, dtype=torch.int32, device=device)
        t = _FLEX_MASKS[key] = cls(mask_block_cnt=zc, mask_block_idx=zi, full_block_cnt=fc, full_block_idx=fi,
                                   block_size=(pattern.block_size, pattern.block_size))
    return t


def _fa4(q, k, v, pattern, scale):
    mod = _fa4_module()
    if mod is None:
        raise RuntimeError(_FA4["error"])
    fn, cls = mod
    out = fn(q.transpose(1, 2), k.transpose(1, 2), v.transpose(1, 2), softmax_scale=scale,
             block_sparse_tensors=_fa4_tensors(pattern, q.device, cls))
    if isinstance(out, tuple):
        out = out[0]
    return out.transpose(1, 2)


# --- the one call ---------------------------------------------------------------------------------------------

def backend_status(device="cuda") -> dict:
    """{backend: None if usable on `device`, else why not} (for reports and the benchmark)."""
    dev = torch.device(device)
    st = {"reference": None}
    try:
        from torch.nn.attention.flex_attention import flex_attention  # noqa: F401

        st["flex"] = None
    except Exception as e:  # noqa: BLE001
        st["flex"] = f"torch.nn.attention.flex_attention not importable: {e}"
    if dev.type != "cuda":
        st["fa4"] = "flash-attn-4 needs an NVIDIA sm90/sm100 GPU"
    else:
        st["fa4"] = None if _fa4_module() is not None else _FA4["error"]
    return st


def sparse_attention(q, k, v, pattern, *, heads: int | None = None, layout: str = "bhld",
                     backend: str = "auto", scale: float | None = None, compile: bool | None = None):
    """Attention of q over k/v keeping only `pattern`'s tiles (pattern=None: dense, exact SDPA).

    q/k/v: (B, L, H*D) with heads=, or 4-D in `layout` ("bhld" or "blhd"); self-attention (one length L, equal
    to pattern.tokens). backend: "auto" (flex on CUDA, the reference elsewhere) or one of BACKENDS.
    """
    qh, kh, vh = (_to_bhld(t, heads, layout, n) for t, n in ((q, "q"), (k, "k"), (v, "v")))
    if pattern is None:
        out = F.scaled_dot_product_attention(qh, kh, vh, scale=scale)
        return _from_bhld(out, q, layout)
    L = qh.shape[2]
    if kh.shape[2] != L or pattern.tokens != L:
        raise ValueError(f"sparse_attention: the pattern covers {pattern.tokens} tokens "
                         f"({pattern.grid}); q has {L} and k {kh.shape[2]}: build the pattern for this grid")
    if backend == "auto":
        backend = "flex" if qh.is_cuda else "reference"
    if backend != "reference":
        qh, kh, vh = (int32_indexable(t) for t in (qh, kh, vh))
    if backend == "reference":
        out = reference_attention(qh, kh, vh, pattern, scale)
    elif backend == "flex":
        out = _flex(qh, kh, vh, pattern, scale, compile)
    elif backend == "fa4":
        out = _fa4(qh, kh, vh, pattern, scale)
    else:
        raise ValueError(f"sparse_attention: backend must be 'auto' or one of {BACKENDS}, got {backend!r}")
    return _from_bhld(out, q, layout)
