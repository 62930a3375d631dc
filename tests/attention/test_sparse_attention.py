"""Sparse attention for long video (issue #32), what the CPU can establish:

1. the radial block mask (kernels/attention/sparse/pattern.py) equals the published rule: against a direct
   token-level restatement of radial-attention's `gen_log_mask_shrinked` (github.com/mit-han-lab/radial-attention,
   radial_attn/attn_mask.py @72788d4f), written below from the published formulas (build every frame pair's
   token mask, pad it to its tile offsets, shrink it with `shrinkMaskStrict`'s thresholds), and against cases
   derived by hand from those formulas;
2. every kernel equals the dense masked reference: fp32 within 1e-5 abs (same math, other summation order),
   bf16 within relative L2 2e-2 of the fp32 reference (bf16 rounding of P and of the output: ~2^-8 per
   element); the reference itself equals float64 SDPA with the token mask within 1e-5;
3. the attention mass the pattern keeps on inputs with video structure: q/k built with Wan's own 3D RoPE
   (ComfyUI's `WanModel.rope_encode`, `EmbedND`, `apply_rope1`), one shared content direction per head plus
   noise, and a stated locality bias (scores minus 0.3 per token of L1 distance in (frame, row, column));
   compared with a random tile mask of the same density;
4. the dense policy keeps the first steps and the first/last blocks dense.

Not established here: visual quality (see docs/sparse_attention.md for the published numbers) and speed (the
GPU benchmark, bench/bench_sparse_attention.py).
"""
import json
import math
import subprocess
import sys

import pytest
import torch

import accel_harness as H

FP32_ATOL = 1e-5
BF16_REL_L2 = 2e-2


@pytest.fixture(scope="module")
def S(mod):
    return mod("kernels.attention.sparse")


@pytest.fixture(scope="module")
def P(mod):
    return mod("kernels.attention.sparse.pattern")


def rel_l2(a, b):
    return float((a.double() - b.double()).norm() / b.double().norm())


# --- 1. the mask against the published rule ---------------------------------------------------------------

def _published_mask(frames, tpf, bs, decay, model_type="wan", text=0, text_first=False):
    """Token-level restatement of radial-attention's gen_log_mask_shrinked (@72788d4f), sequence padded to bs. text:
    text tokens after the video (the published HunyuanVideo layout: `video_text_border = video_token_num // bs`, every
    tile row and column from it on dense). text_first (ComfyUI 0.33's HunyuanVideo, not published): the text before
    the video instead; every frame pair is placed as the published code places it, from its token offset (moved by the
    text), and the tiles holding a text token are dense rows and columns."""
    offset = text if text_first else 0
    L = frames * tpf + text
    nb = -(-L // bs)
    final = torch.zeros(nb, nb, dtype=torch.bool)
    border = (offset + frames * tpf) // bs
    final[border:] = True
    final[:, border:] = True
    final[: -(-offset // bs)] = True
    final[:, : -(-offset // bs)] = True
    idx = torch.arange(tpf)
    for i in range(frames):
        for j in range(frames):
            d = abs(i - j)
            if j == 0 and model_type == "wan":
                local = torch.ones(tpf, tpf, dtype=torch.bool)
            else:
                # get_window_width: whole frame for d <= 1, else max(2^bitlen(T) / 2^bitlen(d) * decay, bs)
                if d <= 1:
                    width = tpf
                else:
                    dl = 2 ** tpf.bit_length() / 2 ** d.bit_length() * decay
                    width = dl if dl >= bs else bs
                local = (idx.view(1, -1) - idx.view(-1, 1)).abs() <= width
                # get_diagonal_split_mask: threshold 128; keep the pair iff d % int(128 / l) == 0 when l < 128
                dl = 2 ** tpf.bit_length() / 2 ** d.bit_length()
                if dl < 128 and d % int(128 / dl) != 0:
                    local = torch.zeros_like(local)
            rr, rc = (offset + i * tpf) % bs, (offset + j * tpf) % bs
            n_r, n_c = rr + -(-tpf // bs) * bs, rc + -(-tpf // bs) * bs
            pad = torch.zeros(n_r, n_c, dtype=torch.bool)
            pad[rr:rr + tpf, rc:rc + tpf] = local
            # shrinkMaskStrict: crop to block_num = rows // bs tiles, keep a tile when > 60% of its non-empty
            # columns have density > 1/3
            n = n_r // bs
            m = pad[:n * bs, :n * bs].reshape(n, bs, n, bs)
            dens = m.sum(dim=1) / bs
            frac = (dens > 1 / 3).sum(-1) / ((dens > 0).sum(-1) + 1e-9)
            tile = frac > 0.6
            r0, c0 = (offset + i * tpf) // bs, (offset + j * tpf) // bs
            r1, c1 = min(r0 + n, nb), min(c0 + n, nb)
            final[r0:r1, c0:c1] |= tile[: r1 - r0, : c1 - c0]
    return final


@pytest.mark.parametrize("grid,bs,decay", [
    ((9, 10, 13), 16, 1.0),   # T=130: bit_length 8, split thins d >= 3, bands wider than a tile
    ((9, 10, 13), 32, 0.3),
    ((7, 13, 20), 32, 0.5),   # T=260, frames straddle tiles (260 % 32 = 4)
    ((7, 13, 20), 64, 2.0),
    ((11, 6, 8), 16, 1.0),    # T=48: small frames, heavy temporal thinning
    ((6, 16, 32), 128, 1.0),  # T=512: 4 tiles per frame, aligned
    ((5, 15, 26), 128, 0.2),  # T=390, unaligned, ragged tail tile
])
def test_mask_equals_token_level_restatement(P, grid, bs, decay):
    g = P.VideoGrid(*grid)
    got = P.RadialPattern(g, decay, block_size=bs).block_mask()
    want = _published_mask(g.frames, g.tokens_per_frame, bs, decay)
    assert got.shape == want.shape and torch.equal(got, want), (grid, bs, decay, int((got ^ want).sum()))


def test_mask_hunyuan_has_no_sink(P):
    g = P.VideoGrid(7, 13, 20)
    got = P.RadialPattern(g, 0.5, block_size=32, model_type="hunyuan").block_mask()
    assert torch.equal(got, _published_mask(7, 260, 32, 0.5, model_type="hunyuan"))
    assert not torch.equal(got, P.RadialPattern(g, 0.5, block_size=32).block_mask())


@pytest.mark.parametrize("grid,bs,text", [((7, 13, 20), 32, 45), ((5, 15, 26), 128, 256), ((9, 10, 13), 16, 7)])
def test_mask_with_text_after_the_video_equals_the_published_rule(P, grid, bs, text):
    """HunyuanVideo's joint attention as the published code lays it out: video, then text; no attention sink."""
    g = P.VideoGrid(*grid)
    pat = P.RadialPattern(g, 0.5, block_size=bs, model_type="hunyuan", text_tokens=text)
    assert pat.tokens == g.tokens + text and pat.video_slice == slice(0, g.tokens)
    want = _published_mask(g.frames, g.tokens_per_frame, bs, 0.5, model_type="hunyuan", text=text)
    assert torch.equal(pat.block_mask(), want), int((pat.block_mask() ^ want).sum())


@pytest.mark.parametrize("text_first", [False, True])
def test_mask_with_text_on_whole_tiles_is_the_video_mask_beside_dense_text(P, text_first):
    """Hand-derived: text of exactly 2 tiles (64 tokens at 32) beside a video of whole tiles (7 x 13 x 20 = 1,820
    tokens is not; 6 x 16 x 16 = 1,536 = 48 tiles is): the video's tiles are the video-only mask, unshifted relative
    to each other, and the text's 2 tile rows and columns are dense, before the video (ComfyUI 0.33's HunyuanVideo)
    or after it (the published layout)."""
    g = P.VideoGrid(6, 16, 16)
    video = P.RadialPattern(g, 0.5, block_size=32, model_type="hunyuan").block_mask()
    pat = P.RadialPattern(g, 0.5, block_size=32, model_type="hunyuan", text_tokens=64, text_first=text_first)
    bm = pat.block_mask()
    assert bm.shape == (50, 50) and not bool(video.all())
    v = slice(2, 50) if text_first else slice(0, 48)
    t = slice(0, 2) if text_first else slice(48, 50)
    assert torch.equal(bm[v, v], video) and bool(bm[t].all()) and bool(bm[:, t].all())
    assert pat.video_slice == (slice(64, 64 + 1536) if text_first else slice(0, 1536))


def test_mask_with_text_before_the_video_shifts_its_frames(P):
    """Text before the video by a length that is not a tile multiple (ComfyUI 0.33's HunyuanVideo): against the
    restatement above with the text first."""
    g, bs, text, decay = P.VideoGrid(7, 13, 20), 32, 45, 0.5
    pat = P.RadialPattern(g, decay, block_size=bs, model_type="hunyuan", text_tokens=text, text_first=True)
    got = pat.block_mask()
    want = _published_mask(g.frames, g.tokens_per_frame, bs, decay, model_type="hunyuan", text=text, text_first=True)
    assert torch.equal(got, want), int((got ^ want).sum())
    video_only = _published_mask(g.frames, g.tokens_per_frame, bs, decay, model_type="hunyuan")
    nb = got.shape[0]
    assert not torch.equal(got[2:, 2:], video_only[:nb - 2, :nb - 2])  # 45 is no tile multiple: the tiles do move
    s = pat.stats()
    assert s["text_tokens"] == text and s["tokens"] == g.tokens + text and 0 < s["sparsity"] < 1


@pytest.mark.parametrize("decay", [0.3, 3.0])
def test_mask_frame_equals_tile_hand_case(P, decay):
    """T = 128 tokens per frame = one 128-tile (hand-derived from the published formulas): every spatial band is
    >= 128 wide, so a frame pair is all or nothing; 2^bitlen(128) = 256, so l = 256 / 2^bitlen(d) and pairs with
    l < 128 survive only if d % (128 / l) == 0: exactly d in {0, 1, 2, 4, 8, 16}; key frame 0 is the sink."""
    frames = 20
    got = P.RadialPattern(P.VideoGrid(frames, 8, 16), decay).block_mask()
    want = torch.tensor([[j == 0 or abs(i - j) in (0, 1, 2, 4, 8, 16) for j in range(frames)]
                         for i in range(frames)])
    assert torch.equal(got, want)


@pytest.mark.parametrize("decay,band", [(1.0, 2), (0.5, 1)])
def test_mask_spatial_band_hand_case(P, decay, band):
    """T = 512 (4 tiles per frame), frames 0 and 2 (d = 2): width = 1024 / 4 * decay tokens. decay 1 -> 256: tile
    (0, 2) has key columns x in [256, 383] with 384 - x kept rows each; 86 of 128 columns exceed 128/3 -> 0.67 >
    0.6 -> kept; tile (0, 3) is empty. decay 0.5 -> 128: tile (0, 1) keeps (86/128), (0, 2) is empty."""
    bm = P.RadialPattern(P.VideoGrid(3, 16, 32), decay).block_mask()
    want = torch.ones(12, 12, dtype=torch.bool)
    want[0:4, 8:12] = torch.tensor([[abs(a - b) <= band for b in range(4)] for a in range(4)])
    assert torch.equal(bm, want)


def test_pattern_stats_cache_and_wan_shapes(P):
    g = P.VideoGrid.from_video(81, 480, 832)
    assert g == P.WAN_480P_81F and g.tokens == 32760
    assert P.VideoGrid.from_video(81, 720, 1280) == P.WAN_720P_81F and P.WAN_720P_81F.tokens == 75600
    p = P.RadialPattern(g, 0.2)
    assert p.block_mask() is p.block_mask()  # cached per shape
    s = p.stats()
    assert s["blocks"] == 256 and s["kept_blocks"] == int(p.block_mask().sum())
    assert abs(s["block_sparsity"] - (1 - s["kept_blocks"] / 256 ** 2)) < 1e-12
    sp = [P.RadialPattern(g, d).sparsity for d in (0.2, 0.5, 1.0, 2.0)]
    assert all(a >= b for a, b in zip(sp, sp[1:], strict=False)) and 0.3 < sp[-1] < sp[0] < 0.9, sp
    print("\nwan 480p 81f radial sparsity by decay 0.2/0.5/1/2:", [round(x, 4) for x in sp])
    # aligned grid: token sparsity == tile sparsity; ragged tail: they differ slightly
    a = P.RadialPattern(P.VideoGrid(6, 16, 32), 1.0).stats()
    assert abs(a["sparsity"] - a["block_sparsity"]) < 1e-12
    with pytest.raises(ValueError, match="decay_factor"):
        P.RadialPattern(g, 0.0)
    with pytest.raises(ValueError, match="model_type"):
        P.RadialPattern(g, model_type="mochi")


# --- 2. kernels against the dense masked reference ---------------------------------------------------------------

def _qkv(L, heads=2, d=64, dtype=torch.float32, seed=0):
    g = torch.Generator().manual_seed(seed)
    return tuple((torch.randn(1, heads, L, d, generator=g) * s).to(dtype) for s in (1.0, 1.0, 1.0))


@pytest.fixture(scope="module")
def small(P):
    return P.RadialPattern(P.VideoGrid(9, 10, 13), 1.0, block_size=32)  # 1,170 tokens, ragged tail tile


def test_reference_equals_float64_masked_sdpa(S, small):
    q, k, v = _qkv(small.tokens)
    out = S.sparse_attention(q, k, v, small, backend="reference")
    tm = small.token_mask()
    want = torch.nn.functional.scaled_dot_product_attention(q.double(), k.double(), v.double(), attn_mask=tm)
    assert float((out.double() - want).abs().max()) < FP32_ATOL
    # and the mask matters: dense attention is far from it
    assert rel_l2(torch.nn.functional.scaled_dot_product_attention(q, k, v), want) > 0.05
    # chunked rows give the same result (to float32 rounding: the BLAS may block a matmul of fewer rows otherwise)
    old = S.ops._REFERENCE_BUDGET
    S.ops._REFERENCE_BUDGET = 3 * small.tokens * 2
    try:
        assert float((S.sparse_attention(q, k, v, small, backend="reference") - out).abs().max()) < FP32_ATOL
    finally:
        S.ops._REFERENCE_BUDGET = old


def test_layouts_and_dense_fallback(S, small):
    q, k, v = _qkv(small.tokens, heads=3, d=32)
    want = S.sparse_attention(q, k, v, small, backend="reference")
    blhd = [t.transpose(1, 2).contiguous() for t in (q, k, v)]
    got = S.sparse_attention(*blhd, small, layout="blhd", backend="reference")
    assert torch.equal(got.transpose(1, 2), want)
    flat = [t.reshape(1, small.tokens, 3 * 32) for t in blhd]  # ComfyUI's (B, L, H*D)
    got = S.sparse_attention(*flat, small, heads=3, backend="reference")
    assert torch.equal(got.view(1, small.tokens, 3, 32).transpose(1, 2), want)
    dense = S.sparse_attention(*flat, None, heads=3)
    assert torch.allclose(dense, torch.nn.functional.scaled_dot_product_attention(q, k, v).transpose(1, 2)
                          .reshape(1, small.tokens, 96), atol=1e-6)
    with pytest.raises(ValueError, match="heads="):
        S.sparse_attention(*flat, small)
    with pytest.raises(ValueError, match="build the pattern"):
        S.sparse_attention(q[:, :, :-1], k[:, :, :-1], v[:, :, :-1], small)
    with pytest.raises(ValueError, match="backend"):
        S.sparse_attention(q, k, v, small, backend="nope")


def test_views_past_int32_offsets_reach_the_kernels_contiguous(S):
    """The sparse kernels index with 32-bit offsets: a view whose elements lie more than 2^31 - 1 apart (HunyuanVideo's
    single-block v at 720p 129 frames: 119,056 tokens x 21,504 columns) is copied contiguous first; smaller views are
    passed as they are (no copy). Meta tensors: the strides are real, no memory is allocated."""
    ops = S.ops
    wide = torch.empty(1, 119056, 21504, device="meta")[..., 6144:9216].view(1, 119056, 24, 128).transpose(1, 2)
    assert sum((n - 1) * st for n, st in zip(wide.shape, wide.stride(), strict=True)) > ops.INT32_MAX
    got = ops.int32_indexable(wide)
    assert got.is_contiguous() and got.shape == wide.shape
    narrow = torch.empty(1, 61456, 21504, device="meta")[..., 6144:9216].view(1, 61456, 24, 128).transpose(1, 2)
    assert ops.int32_indexable(narrow) is narrow  # 65 frames: offsets to 1.32e9, passed as they are


def test_flex_eager_matches_reference(S, small):
    q, k, v = _qkv(small.tokens)
    ref = S.sparse_attention(q, k, v, small, backend="reference")
    out = S.sparse_attention(q, k, v, small, backend="flex")
    assert float((out - ref).abs().max()) < FP32_ATOL
    qb, kb, vb = (t.bfloat16() for t in (q, k, v))
    outb = S.sparse_attention(qb, kb, vb, small, backend="flex")
    assert outb.dtype == torch.bfloat16 and rel_l2(outb, ref) < BF16_REL_L2


def test_flex_compiled_on_cpu_matches_reference(S, P):
    """torch 2.14 compiles flex_attention for the CPU (inductor C++): the same BlockMask, full + partial tiles."""
    pat = P.RadialPattern(P.VideoGrid(5, 15, 26), 0.2, block_size=128)  # 1,950 tokens, ragged tail
    q, k, v = _qkv(pat.tokens, heads=1, d=64)
    ref = S.sparse_attention(q, k, v, pat, backend="reference")
    out = S.sparse_attention(q, k, v, pat, backend="flex", compile=True)
    assert float((out - ref).abs().max()) < FP32_ATOL


def test_fa4_reports_why_not_on_cpu(S):
    st = S.backend_status("cpu")
    assert st["reference"] is None and st["flex"] is None
    assert "GPU" in st["fa4"]


# --- 3. kept attention mass on video-structured inputs -------------------------------------------------------------

def _wan_rope_qk(comfy_root, grid, heads, d, content, noise, seed):
    from types import SimpleNamespace

    from comfy.ldm.flux.layers import EmbedND
    from comfy.ldm.flux.math import apply_rope1
    from comfy.ldm.wan.model import WanModel

    emb = EmbedND(dim=d, theta=10000.0, axes_dim=[d - 4 * (d // 6), 2 * (d // 6), 2 * (d // 6)])  # Wan's axes
    fake = SimpleNamespace(patch_size=(1, 2, 2), rope_embedder=emb)
    freqs = WanModel.rope_encode(fake, grid.frames, 2 * grid.height, 2 * grid.width, dtype=torch.float32)
    g = torch.Generator().manual_seed(seed)
    L = grid.tokens
    c = torch.randn(1, 1, heads, d, generator=g)
    c = c / c.norm(dim=-1, keepdim=True)
    q = apply_rope1(content * c + noise * torch.randn(1, L, heads, d, generator=g), freqs)
    k = apply_rope1(content * c + noise * torch.randn(1, L, heads, d, generator=g), freqs)
    return q.transpose(1, 2), k.transpose(1, 2)


def test_kept_mass_on_wan_rope_inputs(comfy, P):
    grid = P.VideoGrid(21, 16, 16)  # 5,376 tokens: Wan's 21 latent frames, 16x16 patches per frame
    pat = P.RadialPattern(grid, 1.0, block_size=64)
    q, k = _wan_rope_qk(comfy, grid, heads=1, d=128, content=8.0, noise=0.5, seed=0)
    L = grid.tokens
    t = torch.arange(L) // grid.tokens_per_frame
    y = (torch.arange(L) // grid.width) % grid.height
    x = torch.arange(L) % grid.width
    dist = ((t[:, None] - t[None]).abs() + (y[:, None] - y[None]).abs() + (x[:, None] - x[None]).abs()).float()
    scores = (q[0, 0] @ k[0, 0].T) / math.sqrt(128)
    tm = pat.token_mask()
    g = torch.Generator().manual_seed(1)
    nb = pat.num_blocks
    rnd = torch.rand(nb, nb, generator=g) < pat.block_mask().float().mean()
    rnd |= torch.eye(nb, dtype=torch.bool)
    rt = rnd[torch.arange(L) // 64][:, torch.arange(L) // 64]
    res = {"sparsity": pat.sparsity, "random_mask_sparsity": 1 - float(rt.float().mean())}
    for name, beta in (("rope_only", 0.0), ("rope_plus_locality_0.3", 0.3)):
        p = torch.softmax(scores - beta * dist, dim=-1)
        res[name] = {"kept": float((p * tm).sum(-1).mean()), "kept_worst_row": float((p * tm).sum(-1).min()),
                     "random_mask_kept": float((p * rt).sum(-1).mean())}
    print("\nkept attention mass:", json.dumps(res, indent=1))
    assert 0.45 < res["sparsity"] < 0.6
    # RoPE alone: diffuse attention, still more mass inside the pattern than inside a random mask of its density
    assert res["rope_only"]["kept"] > res["rope_only"]["random_mask_kept"] + 0.03
    # with the stated locality bias the pattern keeps most of the mass
    lb = res["rope_plus_locality_0.3"]
    assert lb["kept"] > 0.85 and lb["kept"] > lb["random_mask_kept"] + 0.2


# --- 4. the dense policy -----------------------------------------------------------------------------------------

def test_policy_dense_first_steps_and_blocks(P):
    pol = P.DensePolicy(dense_steps=2, dense_first_blocks=1, dense_last_blocks=2)
    n = 40
    for b in range(n):
        assert pol.is_dense(0, b, n) and pol.is_dense(1, b, n)  # the first steps: every block dense
    assert pol.is_dense(2, 0, n) and pol.is_dense(2, 38, n) and pol.is_dense(2, 39, n)
    assert not any(pol.is_dense(2, b, n) for b in range(1, 38))
    assert "dense_steps" in pol.dense_reason(1, 5, n) and pol.dense_reason(3, 5, n) is None
    assert abs(pol.dense_fraction(4, n) - (2 * 40 + 2 * 3) / 160) < 1e-12
    d = P.DensePolicy()  # the published 4-step setting: dense step 0 and block 0
    assert d.is_dense(0, 20, n) and d.is_dense(1, 0, n) and not d.is_dense(1, 39, n)
    with pytest.raises(ValueError, match="dense_steps"):
        P.DensePolicy(dense_steps=-1)
    with pytest.raises(ValueError, match="out of range"):
        pol.is_dense(0, 40, n)


# --- 5. the GPU benchmark's CPU smoke mode ---------------------------------------------------------------------------

def test_bench_sparse_attention_smoke(tmp_path):
    r = subprocess.run([sys.executable, str(H.REPO_ROOT / "bench" / "bench_sparse_attention.py"), "--smoke",
                        "--out", str(tmp_path), "--decays", "0.2", "--reps", "1"],
                       capture_output=True, text=True, timeout=600)
    assert r.returncode == 0, r.stdout[-3000:] + r.stderr[-3000:]
    res = json.loads((tmp_path / "sparse_attention.json").read_text())
    rows = {x["variant"]: x for x in res["rows"] if x["shape"] == "smoke_5x15x26"}
    assert "error" not in rows["sdpa dense"] and "error" not in rows["radial/flex"], res["rows"]
    flex = rows["radial/flex"]
    assert flex["ms"] > 0 and 0 < flex["sparsity"] < 1
    assert flex["vs_masked_reference"]["rel_l2"] < BF16_REL_L2  # the kernel matches the masked reference
    assert flex["vs_dense"]["rel_l2"] > 0.05  # and the mask does drop something
    assert "fa4" in res["skipped"] and ("| smoke_5x15x26 | radial/flex |"
                                        in (tmp_path / "sparse_attention.md").read_text())
    hv = [x for x in res["rows"] if x["shape"] == "smoke_hunyuan_5x15x26_text40" and x["variant"] == "radial/flex"]
    assert hv and hv[0]["tokens"] == 1950 + 40 and hv[0]["vs_masked_reference"]["rel_l2"] < BF16_REL_L2, hv
