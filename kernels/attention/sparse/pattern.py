"""Radial attention's block mask over Wan's token grid, and the dense-steps/blocks policy.

Source restated here (cite it with every change): Radial Attention, Li et al., "Radial Attention: O(n log n)
Sparse Attention with Energy Decay for Long Video Generation", arXiv:2506.19852 (NeurIPS 2025), code
github.com/mit-han-lab/radial-attention, file `radial_attn/attn_mask.py` at commit
72788d4f0a6d202f1ec5f1c98a6e4c8b2e34fdbc (functions `get_window_width`, `get_diagonal_split_mask`,
`shrinkMaskStrict`, `gen_log_mask_shrinked`). The published rule, for query frame i and key frame j
(tokens frame-major, T tokens per frame, distance d = |i - j|, g = bit_length(d)):

- key frame 0 is an attention sink for Wan: every query frame attends all of it (model_type "wan");
- d <= 1: the whole frame (spatial window = T);
- otherwise a spatial band |x_key - x_query| <= w within the frame pair (token offsets inside the frame), with
  w = max(2^bit_length(T) / 2^g * decay_factor, block_size) ("energy decays with distance");
- and temporal thinning: with l = 2^bit_length(T) / 2^g, when l < 128 (a hard-coded threshold, equal to the
  block size of the published kernels) only frame pairs with d % int(128 / l) == 0 are kept;
- each frame pair's token mask is placed at its token offsets, cut into block_size x block_size tiles and a
  tile is kept when more than 60% of its non-empty key columns have a density above 1/3 (`shrinkMaskStrict`);
  a frame pair's tiles are OR-ed into the whole mask (frames straddle tiles);
- the sequence is padded to a multiple of block_size (as the published `__main__` does); the padded tail
  tile's row and column are dense.

Text tokens in the same sequence (HunyuanVideo's joint attention): the published code puts them after the video and
keeps dense every tile from `video_token_num // block_size` on (`final_log_mask[video_text_border:] = True`, and the
same for columns): the text and the tile the video's ragged end shares with it. Here that is `text_tokens` with
`text_first=False`. ComfyUI's own HunyuanVideo (0.33 on) puts the text BEFORE the video (`text_first=True`); then the
tiles holding any text token are dense rows and columns, the ragged end tile stays dense as above, and every frame's
token offset is shifted by the text length (the frames' tiles are placed as the published code places them, from
their token offsets). The video-to-video part keeps the published rule either way.

The published code builds every frame pair's token mask (T x T) and reshapes it; here the same counts are
computed per tile column from interval arithmetic (identical result, see tests/attention/test_sparse_attention.py,
which checks this against a direct token-level restatement and hand-derived cases). Pure torch, CPU,
deterministic, cached per shape.
"""
from __future__ import annotations

import functools
from dataclasses import dataclass, field

import torch

SPLIT_THRESHOLD = 128  # get_diagonal_split_mask's hard-coded threshold (published code; not the block size)
MODEL_TYPES = ("wan", "hunyuan")

# Settings the authors publish (radial-attention @72788d4, scripts/): decay_factor, dense steps, dense first blocks
PUBLISHED_SETTINGS = {
    "wan2.1_t2v_14b_50step": {"decay_factor": 0.2, "dense_steps": 12, "dense_first_blocks": 1,
                              "source": "scripts/wan_t2v_inference.sh (768x1280, 69 frames)"},
    "wan2.1_t2v_14b_lightx2v_4step": {"decay_factor": 0.2, "dense_steps": 1, "dense_first_blocks": 1,
                                      "source": "scripts/wan_t2v_inference_lightx2v.sh (768x1280, 69 frames)"},
    "wan2.2_t2v_a14b_40step": {"decay_factor": 0.8, "dense_steps": 11, "dense_first_blocks": 1,
                               "source": "scripts/wan_22_t2v_inference.sh (768x1280, 77 frames)"},
}


@dataclass(frozen=True)
class VideoGrid:
    """Wan's token grid after the 1x2x2 patchify: tokens are frame-major (frame, row, column)."""

    frames: int
    height: int
    width: int

    def __post_init__(self):
        for name in ("frames", "height", "width"):
            if int(getattr(self, name)) < 1:
                raise ValueError(f"VideoGrid.{name} must be >= 1, got {getattr(self, name)}")

    @property
    def tokens_per_frame(self) -> int:
        return self.height * self.width

    @property
    def tokens(self) -> int:
        return self.frames * self.tokens_per_frame

    @classmethod
    def from_video(cls, frames: int, height: int, width: int, vae_stride=(4, 8, 8), patch=(1, 2, 2)) -> VideoGrid:
        """Pixel frames/height/width -> token grid (Wan 2.1: VAE 4x8x8, patch 1x2x2, latent padded to the patch)."""
        lt, lh, lw = 1 + (frames - 1) // vae_stride[0], height // vae_stride[1], width // vae_stride[2]
        return cls(-(-lt // patch[0]), -(-lh // patch[1]), -(-lw // patch[2]))


WAN_480P_81F = VideoGrid(21, 30, 52)  # 832x480, 81 frames: 32,760 tokens
WAN_720P_81F = VideoGrid(21, 45, 80)  # 1280x720, 81 frames: 75,600 tokens


def window_width(d: int, tokens_per_frame: int, decay_factor: float, block_size: int) -> float:
    """Published `get_window_width`: the spatial band of frame distance d (wan and hunyuan: d <= 1 -> whole frame)."""
    if d <= 1:
        return float(tokens_per_frame)
    decay_length = 2 ** tokens_per_frame.bit_length() / 2 ** d.bit_length() * decay_factor
    return decay_length if decay_length >= block_size else float(block_size)


def frame_pair_kept(d: int, tokens_per_frame: int) -> bool:
    """Published `get_diagonal_split_mask`: whether frame distance d survives the temporal thinning."""
    decay_length = 2 ** tokens_per_frame.bit_length() / 2 ** d.bit_length()
    if decay_length >= SPLIT_THRESHOLD:
        return True
    return d % int(SPLIT_THRESHOLD / decay_length) == 0


def _shrink_counts(counts: torch.Tensor, block_size: int) -> torch.Tensor:
    """Published `shrinkMaskStrict` on per-(tile row, column) counts of kept rows: (n, n*bs) -> (n, n) bool."""
    n = counts.shape[0]
    col_densities = counts.view(n, n, block_size) / block_size
    non_zero = col_densities > 0
    high = col_densities > 1 / 3
    frac_high = high.sum(dim=-1) / (non_zero.sum(dim=-1) + 1e-9)
    return frac_high > 0.6


@functools.lru_cache(maxsize=32)
def _radial_block_mask(frames: int, tpf: int, block_size: int, decay_factor: float, model_type: str,
                       text_tokens: int = 0, text_first: bool = False) -> torch.Tensor:
    video = frames * tpf
    L = video + text_tokens
    offset = text_tokens if text_first else 0  # token index of the video's first token
    nb = -(-L // block_size)
    final = torch.zeros(nb, nb, dtype=torch.bool)
    border = (offset + video) // block_size  # published video_text_border: the video's ragged end tile on, dense
    final[border:] = True
    final[:, border:] = True
    head = -(-offset // block_size)  # text before the video: every tile holding a text token, dense
    final[:head] = True
    final[:, :head] = True
    n = -(-tpf // block_size)  # tiles one frame pair spans (shrinkMaskStrict's block_num)
    a = torch.arange(n).view(n, 1)
    cols = torch.arange(n * block_size).view(1, -1)
    tile_lo, tile_hi = a * block_size, a * block_size + block_size - 1
    memo: dict = {}
    for i in range(frames):
        for j in range(frames):
            d = abs(i - j)
            if j == 0 and model_type == "wan":
                kind = ("all",)
            elif not frame_pair_kept(d, tpf):
                continue  # the split mask zeroes the whole pair: no tile of it is kept
            else:
                w = window_width(d, tpf, decay_factor, block_size)
                kind = ("band", int(min(w, tpf)))  # |x - y| <= w on integers == |x - y| <= floor(w)
            rr, rc = (offset + i * tpf) % block_size, (offset + j * tpf) % block_size
            key = (kind, rr, rc)
            tile = memo.get(key)
            if tile is None:
                x = cols - rc  # key token offset inside frame j
                valid = (x >= 0) & (x < tpf)
                if kind[0] == "all":
                    lo, hi = torch.zeros_like(x), torch.full_like(x, tpf - 1)
                else:
                    lo, hi = (x - kind[1]).clamp(min=0), (x + kind[1]).clamp(max=tpf - 1)
                lo, hi = lo + rr, hi + rr  # query rows (padded coordinates) that keep this key column
                counts = (torch.minimum(hi, tile_hi) - torch.maximum(lo, tile_lo) + 1).clamp(min=0) * valid
                tile = memo[key] = _shrink_counts(counts, block_size)
            r0, c0 = (offset + i * tpf) // block_size, (offset + j * tpf) // block_size
            r1, c1 = min(r0 + n, nb), min(c0 + n, nb)
            final[r0:r1, c0:c1] |= tile[: r1 - r0, : c1 - c0]
    return final


@dataclass(frozen=True)
class RadialPattern:
    """Radial attention's static block mask for one token grid (see the module docstring for the source).

    decay_factor: the published knob for the spatial band (their Wan 2.1 scripts use 0.2, Wan 2.2 0.8; the
    processor's default is 1.0). block_size: tile edge of the kernels (128; the published code accepts 64).
    model_type: "wan" (key frame 0 is an attention sink) or "hunyuan" (none). text_tokens: text tokens in the same
    sequence (joint attention), before the video (text_first) or after it (the published layout); 0 for Wan.
    """

    grid: VideoGrid
    decay_factor: float = 1.0
    block_size: int = 128
    model_type: str = "wan"
    text_tokens: int = 0
    text_first: bool = False
    _stats: dict = field(default_factory=dict, init=False, repr=False, compare=False)

    def __post_init__(self):
        if self.model_type not in MODEL_TYPES:
            raise ValueError(f"RadialPattern.model_type must be one of {MODEL_TYPES}, got {self.model_type!r}")
        if isinstance(self.text_tokens, bool) or not isinstance(self.text_tokens, int) or self.text_tokens < 0:
            raise ValueError(f"RadialPattern.text_tokens must be a whole number >= 0, got {self.text_tokens!r}")
        if not self.decay_factor > 0:
            raise ValueError(f"RadialPattern.decay_factor must be > 0, got {self.decay_factor}")
        if self.block_size < 16 or self.block_size % 16:
            raise ValueError(f"RadialPattern.block_size must be a multiple of 16, got {self.block_size}")

    @property
    def tokens(self) -> int:
        """The whole sequence: the video's tokens and the text's."""
        return self.grid.tokens + self.text_tokens

    @property
    def video_slice(self) -> slice:
        """The video's tokens in the sequence."""
        start = self.text_tokens if self.text_first else 0
        return slice(start, start + self.grid.tokens)

    @property
    def num_blocks(self) -> int:
        return -(-self.tokens // self.block_size)

    def block_mask(self) -> torch.Tensor:
        """(num_blocks, num_blocks) bool on the CPU, True = the query tile attends the key tile. Cached and
        shared: do not modify it in place."""
        g = self.grid
        return _radial_block_mask(g.frames, g.tokens_per_frame, int(self.block_size), float(self.decay_factor),
                                  self.model_type, int(self.text_tokens), bool(self.text_first and self.text_tokens))

    def token_mask(self, rows: slice | None = None) -> torch.Tensor:
        """The token-level mask (rows of it: a slice of query tokens), expanded from the block mask."""
        bm, bs, L = self.block_mask(), self.block_size, self.tokens
        r = torch.arange(L)[rows if rows is not None else slice(None)]
        c = torch.arange(L)
        return bm[r // bs][:, c // bs]

    def stats(self) -> dict:
        """Measured sparsity: `block_sparsity` is 1 - kept tiles / all tiles (what the published code prints);
        `sparsity` is 1 - computed query-key token pairs / L^2 (the tail tile is smaller)."""
        if not self._stats:
            bm, bs, L = self.block_mask(), self.block_size, self.tokens
            sizes = torch.full((self.num_blocks,), bs, dtype=torch.float64)
            sizes[-1] = L - bs * (self.num_blocks - 1)
            pairs = float(sizes @ bm.double() @ sizes)
            self._stats.update(tokens=L, blocks=self.num_blocks, block_size=bs,
                               kept_blocks=int(bm.sum()), block_sparsity=1.0 - float(bm.double().mean()),
                               sparsity=1.0 - pairs / float(L) ** 2, decay_factor=self.decay_factor,
                               grid=(self.grid.frames, self.grid.height, self.grid.width),
                               text_tokens=self.text_tokens, model_type=self.model_type)
        return dict(self._stats)

    @property
    def sparsity(self) -> float:
        return self.stats()["sparsity"]

    def describe(self) -> str:
        s = self.stats()
        text = (f" + {self.text_tokens} text tokens {'before' if self.text_first else 'after'} them"
                if self.text_tokens else "")
        return (f"radial (decay {self.decay_factor:g}, {self.block_size}x{self.block_size} tiles) on "
                f"{s['grid'][0]}x{s['grid'][1]}x{s['grid'][2]} tokens{text}: sparsity {s['sparsity']:.1%}")


@dataclass(frozen=True)
class DensePolicy:
    """Where the exact dense kernel runs instead of the sparse pattern: the first `dense_steps` sampling steps,
    the first `dense_first_blocks` and the last `dense_last_blocks` transformer blocks. Defaults follow the
    published radial setting for 4-step distilled Wan (dense_timesteps=1, dense_layers=1,
    scripts/wan_t2v_inference_lightx2v.sh); dense last blocks are our addition (ComfyUI's BlockSparseAttention
    also lets the user keep chosen blocks dense)."""

    dense_steps: int = 1
    dense_first_blocks: int = 1
    dense_last_blocks: int = 0

    def __post_init__(self):
        for name in ("dense_steps", "dense_first_blocks", "dense_last_blocks"):
            v = getattr(self, name)
            if not isinstance(v, int) or v < 0:
                raise ValueError(f"DensePolicy.{name} must be an integer >= 0, got {v!r}")

    def dense_reason(self, step: int, block: int, num_blocks: int) -> str | None:
        """Why (step, block) runs dense, or None when it runs the sparse pattern. step and block count from 0."""
        if step < 0 or block < 0 or num_blocks < 1 or block >= num_blocks:
            raise ValueError(f"DensePolicy: step {step}, block {block} of {num_blocks} is out of range")
        if step < self.dense_steps:
            return f"step {step} < dense_steps {self.dense_steps}"
        if block < self.dense_first_blocks:
            return f"block {block} < dense_first_blocks {self.dense_first_blocks}"
        if block >= num_blocks - self.dense_last_blocks:
            return f"block {block} is among the last {self.dense_last_blocks}"
        return None

    def is_dense(self, step: int, block: int, num_blocks: int) -> bool:
        return self.dense_reason(step, block, num_blocks) is not None

    def dense_fraction(self, steps: int, num_blocks: int) -> float:
        """Share of (step, block) attention calls that run dense over a whole sampling run."""
        n = sum(self.is_dense(s, b, num_blocks) for s in range(steps) for b in range(num_blocks))
        return n / float(steps * num_blocks)
