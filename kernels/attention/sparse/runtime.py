"""The `radial_sparse` attention backend at run time: which call runs the radial pattern, which runs exact dense
attention, and what was measured. Knows nothing of ComfyUI (accel/attention/sparse.py drives it).

One `RadialRun` per patched model holds the settings (`RadialSettings`), the exact dense kernel, the per-shape
measurements and the count of dense calls per reason. Around each model call the caller (ComfyUI's APPLY_MODEL
wrapper) opens a frame with `run.frame(grid, step, n_steps, total_blocks)`: the latent's token grid, the sampling
step and the number of transformer blocks. The backend's attention function (`attend`, one torch custom op under
torch.compile: accel's `comfyui_accel::radial_sparse` op) reads the frame of the current thread at run time, so
no decision is traced into a compiled graph and no guard depends on the step or the block:

- q and k of different lengths (cross-attention): dense;
- a token count other than the grid's frames x height x width (reference-image tokens, a VACE context, a model
  the pattern does not know): dense; for a model whose self-attention also holds its text (HunyuanVideo's joint
  attention: the frame's `Layout.text` is "first" or "last"), the grid's tokens plus fewer text tokens than video
  tokens, the text where the layout puts it (pattern.RadialPattern's text_tokens);
- a video self-attention call: it is block `i` of this model call (video self-attention calls are counted per
  model call); dense on the first `dense_steps` sampling steps and in the first / last `dense_blocks` blocks,
  else the radial pattern through the sparse kernel (`ops.sparse_attention`).

Outside a frame (no sampler, a probe) every call is dense.

The kept attention mass of each shape is measured once, on the first sparse call of that shape, from that call's
own q and k: `KEPT_MASS_ROWS` query rows spread evenly over the video's tokens (text rows keep every key), every
head of the first batch entry, the full softmax over all keys in float32, and the share of it inside the pattern's
tiles (`kept_mass`).
"""
from __future__ import annotations

import math
import threading
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass

import torch
import torch.nn.functional as F

from .ops import sparse_attention
from .pattern import DensePolicy, RadialPattern, VideoGrid

KEPT_MASS_ROWS = 64
AUTO = -1  # dense_steps: a quarter of the run's steps, rounded up

# reasons a call runs dense (report keys)
CROSS = "cross-attention (query and key lengths differ)"
OUTSIDE = "outside a sampler's model call (no latent grid known)"
MISMATCH = "token count is not the latent's frames x height x width (plus the text, where it shares the sequence)"
MASKED = "an attention mask on a self-attention call (exact SDPA with the mask)"
STEP = "dense step"
BLOCK = "dense block"
REASONS = (STEP, BLOCK, CROSS, MASKED, MISMATCH, OUTSIDE)  # the frame's own reason (no grid: why) comes after these


@dataclass(frozen=True)
class Layout:
    """A model's video self-attention sequence: model_type (pattern.MODEL_TYPES: "wan" keeps key frame 0 as an
    attention sink, "hunyuan" does not) and where text tokens sit in it: None (none: Wan, LTX-Video), "first" (before
    the video: ComfyUI 0.33's HunyuanVideo) or "last" (after it: the published code, older ComfyUI)."""

    model_type: str = "wan"
    text: str | None = None

    def __post_init__(self):
        if self.text not in (None, "first", "last"):
            raise ValueError(f"Layout.text must be None, 'first' or 'last', got {self.text!r}")

    def text_tokens(self, tokens: int, grid: VideoGrid) -> int | None:
        """Text tokens of a self-attention call of `tokens` on `grid` (0: video only), None when it is not one."""
        if tokens == grid.tokens:
            return 0
        if self.text is not None and grid.tokens < tokens < 2 * grid.tokens:
            return tokens - grid.tokens
        return None


WAN = Layout()


@dataclass(frozen=True)
class RadialSettings:
    """decay_factor, block_size: the pattern (pattern.RadialPattern). dense_steps: the first steps of each sampler
    run that run dense (AUTO = ceil(steps / 4)); dense_blocks: the first and the last blocks that run dense.
    kernel: "flex", "fa4" or "reference" (ops.BACKENDS); compile: compile flex_attention (None: on CUDA)."""

    decay_factor: float = 0.2
    dense_steps: int = AUTO
    dense_blocks: int = 1
    block_size: int = 128
    kernel: str = "flex"
    compile: bool | None = None

    def __post_init__(self):
        if isinstance(self.dense_steps, bool) or not isinstance(self.dense_steps, int) or self.dense_steps < AUTO:
            raise ValueError(f"dense_steps must be a whole number >= -1 (-1: auto), got {self.dense_steps!r}")
        if isinstance(self.dense_blocks, bool) or not isinstance(self.dense_blocks, int) or self.dense_blocks < 0:
            raise ValueError(f"dense_blocks must be a whole number >= 0, got {self.dense_blocks!r}")
        if not self.decay_factor > 0:
            raise ValueError(f"decay_factor must be > 0, got {self.decay_factor!r}")

    def steps_for(self, n_steps: int, continues: bool = False) -> int:
        """Dense steps of a sampler run of `n_steps` steps. `continues`: the run starts from a partly denoised latent
        (its first sigma below the model's largest: Wan 2.2's second expert, KSamplerAdvanced start_at_step > 0,
        denoise < 1). AUTO's dense steps are the first steps from pure noise, where the video's layout forms
        (the authors keep 1 of LightX2V's 4 steps dense: the high-noise expert's first), so such a run has none; a
        number set by hand applies to every run."""
        if self.dense_steps == AUTO:
            return math.ceil(n_steps / 4) if n_steps > 0 and not continues else 0
        return self.dense_steps

    def policy(self, n_steps: int) -> DensePolicy:
        return DensePolicy(self.steps_for(n_steps), self.dense_blocks, self.dense_blocks)

    def describe_steps(self) -> str:
        if self.dense_steps == AUTO:
            return ("the first quarter of each sampler run's steps from pure noise, rounded up (dense_steps -1: 1 of "
                    "4, 5 of 20); none in a run that continues a partly denoised latent (Wan 2.2's second expert)")
        return f"the first {self.dense_steps} step(s) of each sampler run"


def kept_mass(q: torch.Tensor, k: torch.Tensor, pattern: RadialPattern, scale: float | None,
              rows: int = KEPT_MASS_ROWS) -> dict:
    """Share of the softmax attention mass inside `pattern` for `rows` query rows spread evenly over the video,
    every head of batch entry 0; q/k (B, H, L, D). Full softmax over all keys in float32 (TF32 off), one head at a
    time. Returns {"mean", "worst_row", "rows", "heads"}."""
    _, H, L, D = q.shape
    sc = 1.0 / math.sqrt(D) if scale is None else scale
    vs = pattern.video_slice
    r = torch.linspace(vs.start, vs.stop - 1, min(rows, vs.stop - vs.start), device=q.device).round().long()
    bs = pattern.block_size
    keep = pattern.block_mask().to(q.device)[r // bs][:, torch.arange(L, device=q.device) // bs]
    kept = []
    m = torch.backends.cuda.matmul.allow_tf32
    torch.backends.cuda.matmul.allow_tf32 = False
    try:
        for h in range(H):
            p = torch.softmax((q[0, h, r].float() @ k[0, h].float().T) * sc, dim=-1)
            kept.append((p * keep).sum(-1))
    finally:
        torch.backends.cuda.matmul.allow_tf32 = m
    kept = torch.stack(kept)
    return {"mean": float(kept.mean()), "worst_row": float(kept.min()), "rows": int(r.numel()), "heads": H}


def sdpa_dense(q, k, v, scale, mask=None):
    """Exact dense attention of (B, H, L, D) tensors (the default dense kernel: PyTorch SDPA); `mask`: an additive
    or boolean mask broadcastable to (B, H, Lq, Lk)."""
    kw = {"scale": scale} if scale is not None else {}
    if mask is not None:
        kw["attn_mask"] = mask
    if k.shape[1] != q.shape[1]:
        rep = q.shape[1] // k.shape[1]
        k, v = k.repeat_interleave(rep, 1), v.repeat_interleave(rep, 1)
    return F.scaled_dot_product_attention(q, k, v, **kw)


class _Frame:
    __slots__ = ("grid", "why", "step", "n_steps", "dense_step", "total_blocks", "index", "layout")

    def __init__(self, grid, why, step, n_steps, dense_step, total_blocks, layout):
        self.grid, self.why, self.step, self.n_steps = grid, why, step, n_steps
        self.dense_step, self.total_blocks, self.index, self.layout = dense_step, total_blocks, 0, layout


_local = threading.local()


def current():
    """(run, frame) of the model call running on this thread, or (None, None)."""
    return getattr(_local, "run", None), getattr(_local, "frame", None)


class RadialRun:
    """Settings, the dense kernel and the measurements of one patched model (shared by its clones)."""

    def __init__(self, settings: RadialSettings, dense: Callable = sdpa_dense, on_reason: Callable | None = None):
        self.settings = settings
        self.dense = dense  # dense(q, k, v, scale) on (B, H, L, D) -> (B, H, L, D), exact
        self.on_reason = on_reason  # called once per reason the first time a call runs dense for it
        self.reasons: Counter = Counter()
        self.sparse_calls = 0
        self.shapes: dict = {}  # RadialPattern -> {"stats": pattern.stats(), "kept_mass": {...} or None, "calls": n}
        self.model_calls = Counter()  # "dense step" / "sparse step" model calls
        self.blocks_seen = 0  # video self-attention calls of the last complete model call
        self._patterns: dict = {}
        self._lock = threading.Lock()

    def __deepcopy__(self, memo):
        return self

    def pattern(self, grid: VideoGrid, layout: Layout = WAN, text_tokens: int = 0) -> RadialPattern:
        key = (grid, layout, text_tokens)
        p = self._patterns.get(key)
        if p is None:
            p = self._patterns[key] = RadialPattern(grid, self.settings.decay_factor, self.settings.block_size,
                                                    model_type=layout.model_type, text_tokens=text_tokens,
                                                    text_first=layout.text == "first")
        return p

    def prepare(self, grid: VideoGrid, device, layout: Layout = WAN, text_tokens: int = 0) -> RadialPattern:
        """Build the pattern and the kernel's block mask for `grid` (and `text_tokens` of text where the layout has
        them) on `device` ahead of the first call (so the attention calls allocate nothing that stays; a call with
        another text length builds its own on first use)."""
        p = self.pattern(grid, layout, text_tokens)
        p.block_mask()
        if self.settings.kernel == "flex":
            from .ops import flex_block_mask

            flex_block_mask(p, device)
        return p

    # --- a model call ---------------------------------------------------------------------------------------
    def enter(self, grid: VideoGrid | None, step: int | None, n_steps: int, total_blocks: int,
              why: str = OUTSIDE, continues: bool = False, layout: Layout = WAN):
        """Open this thread's frame for one model call (returns what `exit` restores). grid None: every call of it
        runs dense for `why`. continues: the sampler run starts from a partly denoised latent (steps_for). layout:
        the model's self-attention sequence (Layout)."""
        dense_step = step is not None and n_steps > 0 and step < self.settings.steps_for(n_steps, continues)
        prev = (getattr(_local, "run", None), getattr(_local, "frame", None))
        _local.run, _local.frame = self, _Frame(grid, why, step, n_steps, dense_step, total_blocks, layout)
        self.model_calls["dense step" if dense_step else "sparse step"] += 1
        return prev

    def exit(self, prev):
        fr = getattr(_local, "frame", None)
        if fr is not None and fr.index:
            self.blocks_seen = fr.index
        _local.run, _local.frame = prev

    # --- an attention call ------------------------------------------------------------------------------------
    def _count(self, reason):
        with self._lock:
            first = reason not in self.reasons
            self.reasons[reason] += 1
        if first and self.on_reason is not None:
            self.on_reason(reason)

    def _dense(self, reason, q, k, v, scale):
        self._count(reason)
        return self.dense(q, k, v, scale)

    def attend(self, q, k, v, scale, mask=None):
        """Attention of (B, H, L, D) q/k/v for the model call of this thread's frame. A call with an attention mask
        (LTX-Video's text mask on its cross-attention, ...) runs exact SDPA with that mask (the exact kernels here
        take none), counted as cross-attention or, on self-attention, as masked."""
        if mask is not None:
            self._count(CROSS if k.shape[2] != q.shape[2] else MASKED)
            return sdpa_dense(q, k, v, scale, mask)
        fr = getattr(_local, "frame", None)
        if fr is None or getattr(_local, "run", None) is not self:
            return self._dense(OUTSIDE, q, k, v, scale)
        if fr.grid is None:
            return self._dense(fr.why, q, k, v, scale)
        L = q.shape[2]
        if k.shape[2] != L:
            return self._dense(CROSS, q, k, v, scale)
        text = fr.layout.text_tokens(L, fr.grid)
        if text is None:
            return self._dense(MISMATCH, q, k, v, scale)
        i = fr.index
        fr.index += 1
        if fr.dense_step:
            return self._dense(STEP, q, k, v, scale)
        n = self.settings.dense_blocks
        total = max(fr.total_blocks, self.blocks_seen, i + 1)
        if i < n or i >= total - n:
            return self._dense(BLOCK, q, k, v, scale)
        pattern = self.pattern(fr.grid, fr.layout, text)
        with self._lock:
            self.sparse_calls += 1
            entry = self.shapes.get(pattern)
            if entry is None:
                entry = self.shapes[pattern] = {"stats": pattern.stats(), "kept_mass": None, "calls": 0}
            entry["calls"] += 1
            measure = entry["kept_mass"] is None
        if measure:
            entry["kept_mass"] = kept_mass(q, k, pattern, scale)
        if k.shape[1] != q.shape[1]:
            rep = q.shape[1] // k.shape[1]
            k, v = k.repeat_interleave(rep, 1), v.repeat_interleave(rep, 1)
        return sparse_attention(q, k, v, pattern, layout="bhld", backend=self.settings.kernel, scale=scale,
                                compile=self.settings.compile)

    # --- what ran ---------------------------------------------------------------------------------------------
    def summary_lines(self) -> list:
        """What the runs so far did (report lines)."""
        lines = []
        dense = sum(self.reasons.values())
        total = dense + self.sparse_calls
        if not total:
            return lines
        lines.append(f"radial_sparse: {self.sparse_calls} of {total} attention calls ran the sparse pattern; dense: "
                     + (", ".join(f"{n} {r}" for r, n in sorted(self.reasons.items(), key=_reason_order)) or "none"))
        if not self.sparse_calls:
            lines.append("  NO call ran sparse: every step was a dense step, every video self-attention was a dense "
                         "block, or no call matched the latent grid (lower dense_steps / dense_blocks for short runs)")
        for pat, e in sorted(self.shapes.items(), key=lambda kv: kv[0].tokens):
            s, km, grid = e["stats"], e["kept_mass"], pat.grid
            with_text = (f" + {pat.text_tokens} text tokens {'before' if pat.text_first else 'after'} the video "
                         "(dense rows and columns)" if pat.text_tokens else "")
            text = (f"  {grid.frames}x{grid.height}x{grid.width} tokens{with_text} ({s['tokens']}): sparsity "
                    f"{s['sparsity']:.1%} (tiles {s['block_sparsity']:.1%}), {e['calls']} sparse call(s)")
            if km is not None:
                text += (f"; kept attention mass {km['mean']:.1%} (worst row {km['worst_row']:.1%}), measured on the "
                         f"first sparse call: {km['rows']} query rows x {km['heads']} heads of its own q/k, full "
                         "softmax")
            lines.append(text)
        return lines


def _reason_order(item):
    return (REASONS.index(item[0]) if item[0] in REASONS else len(REASONS), item[0])


def attend_current(q, k, v, scale, mask=None):
    """The backend's attention function: the run of this thread's model call decides (dense outside one)."""
    run = getattr(_local, "run", None)
    if run is None:
        return sdpa_dense(q, k, v, scale, mask)
    return run.attend(q, k, v, scale, mask)
