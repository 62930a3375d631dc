"""What every attention adapter is: a `Kernel` record (capabilities + one call function), the layout
plumbing shared by all of them (`invoke`), the torch.compile wrapping (`compile_safe`) and a
plain-torch reference (`reference`). Knows nothing of ComfyUI.

Layouts: "bhld" = (batch, heads, tokens, head_dim), what SDPA takes; "blhd" = (batch, tokens, heads,
head_dim), what FlashAttention and xFormers take. Converting between them is a transpose (a view).

Note: no `from __future__ import annotations` here: `torch.library.custom_op` reads real annotations.
"""
import math
import threading
from collections.abc import Callable
from dataclasses import dataclass

import torch
from torch import Tensor

from ..tracing import is_compiling  # noqa: F401  (re-exported for accel.attention.override)

BHLD = "bhld"
BLHD = "blhd"
OP_NAMESPACE = "comfyui_accel"

_DTYPES = {"float16": torch.float16, "bfloat16": torch.bfloat16, "float32": torch.float32}
# registry device kind -> torch tensor device type (ROCm tensors report "cuda")
_DEVICE_TYPES = {"cuda": "cuda", "rocm": "cuda", "mps": "mps", "cpu": "cpu"}


def torch_dtypes(names) -> frozenset:
    return frozenset(_DTYPES[n] for n in names if n in _DTYPES)


def tensor_device_types(devices) -> frozenset:
    return frozenset(_DEVICE_TYPES[d] for d in devices if d in _DEVICE_TYPES)


@dataclass(frozen=True, eq=False)
class Kernel:
    """One usable attention backend, built once per process (see adapters.build_kernel).

    `call(q, k, v, mask, scale, layout)` takes 4-D tensors in `layout` (one of `layouts`) and
    returns the output in the same layout. `mask` is only ever passed when `supports_mask`; `scale`
    is None (1/sqrt(head_dim)) or a float, only passed when `supports_scale`. K/V with fewer heads
    than Q (GQA) are only passed when `gqa`; `invoke` repeats them otherwise.
    """

    name: str
    library: str | None
    version: str | None
    layouts: tuple  # accepted layouts, preferred first
    call: Callable
    dtypes: frozenset
    device_types: frozenset
    head_dims: frozenset | None = None  # exact set, else max_head_dim / multiple of 8
    max_head_dim: int = 256
    supports_mask: bool = False
    gqa: bool = False
    supports_scale: bool = True
    low_precision: bool = False
    sparse: bool = False  # skips attention by a pattern (kernels/attention/sparse): not exact
    autograd: bool = False  # False: library kernel without a backward (custom op): no grad calls
    note: str = ""
    op_name: str | None = None  # custom op used under torch.compile (library kernels)

    def head_dim_ok(self, d: int) -> bool:
        if self.head_dims is not None:
            return d in self.head_dims
        return d <= self.max_head_dim and d % 8 == 0

    @property
    def label(self) -> str:
        if self.library:
            return f"{self.name} ({self.library} {self.version or ''})".replace(" )", ")")
        return self.name

    def why_not(self, q: Tensor, head_dim: int, has_mask: bool, scale, exact: bool) -> str | None:
        """Why this kernel cannot serve a call with these properties (None: it can). For tools and
        the autotuner; the ComfyUI override inlines the same checks in its hot path."""
        if has_mask and not self.supports_mask:
            return "attention masks"
        if q.dtype not in self.dtypes:
            return f"{str(q.dtype).replace('torch.', '')} inputs"
        if q.device.type not in self.device_types:
            return f"{q.device.type} tensors"
        if exact and self.low_precision:
            return "calls that ask for exact attention (low_precision_attention=False)"
        if not self.head_dim_ok(head_dim):
            return f"head_dim {head_dim}"
        if scale is not None and not self.supports_scale:
            return "a custom softmax scale"
        return None


def expand_kv(k: Tensor, v: Tensor, heads: int, layout: str):
    """Repeat K/V heads for grouped-query attention (query head i uses kv head i // (H / Hkv)),
    the convention of SDPA's enable_gqa and FlashAttention."""
    axis = 1 if layout == BHLD else 2
    hkv = k.shape[axis]
    if hkv == heads:
        return k, v
    rep = heads // hkv
    return k.repeat_interleave(rep, dim=axis), v.repeat_interleave(rep, dim=axis)


def invoke(kernel: Kernel, q: Tensor, k: Tensor, v: Tensor, layout: str, mask=None, scale=None):
    """Run `kernel` on 4-D q/k/v given in `layout`; returns (out, out_layout). Only views are made
    when layouts differ; K/V are repeated only for GQA on kernels without native GQA."""
    lay = layout if layout in kernel.layouts else kernel.layouts[0]
    if lay != layout:
        q, k, v = q.transpose(1, 2), k.transpose(1, 2), v.transpose(1, 2)
    if not kernel.gqa:
        heads = q.shape[1] if lay == BHLD else q.shape[2]
        kv_heads = k.shape[1] if lay == BHLD else k.shape[2]
        if kv_heads != heads:
            k, v = expand_kv(k, v, heads, lay)
    return kernel.call(q, k, v, mask, scale, lay), lay


def to_layout(out: Tensor, have: str, want: str) -> Tensor:
    return out if have == want else out.transpose(1, 2)


def reference(q: Tensor, k: Tensor, v: Tensor, layout: str = BHLD, mask=None, scale=None) -> Tensor:
    """Exact attention in float32 with plain torch ops (tests, probes and benchmarks)."""
    if layout == BLHD:
        q, k, v = q.transpose(1, 2), k.transpose(1, 2), v.transpose(1, 2)
    qf, kf, vf = q.float(), k.float(), v.float()
    if kf.shape[1] != qf.shape[1]:
        kf, vf = expand_kv(kf, vf, qf.shape[1], BHLD)
    s = (qf @ kf.transpose(-1, -2)) * (scale if scale is not None else 1.0 / math.sqrt(q.shape[-1]))
    if mask is not None:
        m = mask
        while m.ndim < 4:
            m = m.unsqueeze(0)
        if m.dtype == torch.bool:
            s = s.masked_fill(~m, float("-inf"))
        else:
            s = s + m.float()
    out = (s.softmax(-1) @ vf).to(q.dtype)
    return out if layout == BHLD else out.transpose(1, 2)


# --- torch.compile: library kernels as custom ops ---------------------------------------------

_ops: dict = {}
_impls: dict = {}  # op name -> current implementation (a rebuilt kernel replaces it)
_ops_lock = threading.Lock()


def _register_op(opname: str, impl: Callable):
    """`torch.library.custom_op` named comfyui_accel::<opname> around impl(q, k, v, mask, scale,
    layout), with a fake (shape-only) implementation so torch.compile traces through it without a
    graph break. Registered on first use (a node run), never at import. Returns None when this torch
    has no custom_op (callers then use torch.compiler.disable)."""
    with _ops_lock:
        _impls[opname] = impl
        if opname in _ops:
            return _ops[opname]
        custom_op = getattr(getattr(torch, "library", None), "custom_op", None)
        op = None
        if custom_op is not None:
            qualname = f"{OP_NAMESPACE}::{opname}"
            try:
                def _impl(q: Tensor, k: Tensor, v: Tensor, mask: Tensor | None = None,
                          scale: float | None = None, layout: str = BHLD) -> Tensor:
                    return _impls[opname](q, k, v, mask, scale, layout)

                op = custom_op(qualname, mutates_args=())(_impl)

                def _fake(q, k, v, mask=None, scale=None, layout=BHLD):
                    return q.new_empty(q.shape[:-1] + (v.shape[-1],))

                op.register_fake(_fake)
            except Exception:
                # already registered by another copy of the pack in this process: reuse it
                op = getattr(getattr(torch.ops, OP_NAMESPACE, None), opname, None)
        _ops[opname] = op
        return op


def op_id(backend: str, library: str) -> str:
    return f"{backend}_{library}"


def compile_safe(opname: str, impl: Callable) -> Callable:
    """A call function that runs `impl` directly in eager mode (no dispatcher overhead) and the
    registered custom op while torch.compile traces (no graph break at every attention call)."""
    op = _register_op(opname, impl)
    if op is None:
        disabled = torch.compiler.disable(impl) if hasattr(torch, "compiler") else impl

        def call(q, k, v, mask, scale, layout):
            if is_compiling():
                return disabled(q, k, v, mask, scale, layout)
            return impl(q, k, v, mask, scale, layout)
        return call

    def call(q, k, v, mask, scale, layout):
        if is_compiling():
            return op(q, k, v, mask, scale, layout)
        return impl(q, k, v, mask, scale, layout)
    return call


def contiguous_last(t: Tensor) -> Tensor:
    """Library kernels need the last dimension contiguous (ComfyUI's tensors always are)."""
    return t if t.stride(-1) == 1 else t.contiguous()
