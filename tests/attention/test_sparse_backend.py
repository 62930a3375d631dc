"""Accel Attention's `radial_sparse` backend (issue #32) inside a real ComfyUI, on a tiny Wan 2.1 (4 blocks, 2 heads
of 64, latent 6 x 16 x 32 -> a 6 x 8 x 16 token grid = 768 tokens, 128 per frame: the radial mask at decay 1 drops
the frame pairs at distance 3 and 5, so the pattern is not dense).

What is checked, and the tolerances:
1. through ComfyUI's own apply_model (harness Forward, with the sampler's sigmas): on a sparse step, the sparse
   blocks equal the dense masked float32 reference and every other call (the first and last block, cross-attention)
   equals exact attention: the whole forward against a reference override that computes exactly that, max|diff| <=
   1e-4 x max|ref| (float32, flex vs the reference differ in summation order only); on a dense step the forward
   equals stock attention (same tolerance); the same with a LoRA patched in;
2. kept attention mass on inputs with video structure: q/k built with Wan's own 3D RoPE (ComfyUI's EmbedND and
   apply_rope1 with WanModel.rope_encode's positions), one shared content direction per head plus noise, and a
   stated locality bias: a Gaussian in (frame, row, column) distance, exp(-0.05 d^2) on the attention weights, put
   into q/k as three position channels and one key-norm channel (so it goes through the backend's own path); the
   kept mass the backend measures (64 rows) is above 0.9 and within 0.05 of the full computation over every row, and
   the sparsity it reports is the pattern's;
3. torch.compile: the whole tiny Wan forward traces with no graph break (torch._dynamo.explain), and under Accel
   Compile (aot_eager) the run still takes its per-call decisions at run time (sparse blocks counted) and equals
   the eager result;
4. core's BlockSparseAttention (a stand-in restating Comfy-Org/ComfyUI comfy_extras/sparse_attention_history.py
   `mark_attention_override` @cf3103c5: the override marked `_block_sparse_attention_patch` /
   `_block_sparse_attention_previous`, re-installed at ON_PREPARE_STATE under key "block_sparse_attention"): with
   fallback 'fall back' ours stands down (exact attention) and says so; with 'error' it refuses naming the input;
   core's override on the hook at run time makes every call of ours dense.
5. composition: with Accel TeaCache on the same model (a skipped step shifts no block count: the sparse calls are
   exactly the computed sparse steps' middle blocks; threshold 0 is bit-equal to radial_sparse alone), and on two
   experts with a LoRA each split 2 + 2 through ComfyUI's sampler as Wan 2.2 A14B's LightX2V workflow (only the
   high-noise expert's first step dense; the result equals the per-expert reference within 1e-3 x max|ref|).
Visual quality is not measured here (docs/sparse_attention.md).
"""
import dataclasses
import math
import types

import pytest
import torch

TOL = 1e-4
GRID = (6, 8, 16)
SIGMAS = [1.0, 0.7, 0.4, 0.0]  # 3 steps: dense_steps -1 -> ceil(3 / 4) = 1 dense step (step 0)


@pytest.fixture(scope="module")
def A(mod):
    return mod("accel.attention.override")


@pytest.fixture(scope="module")
def SP(mod):
    return mod("accel.attention.sparse")


@pytest.fixture(scope="module")
def RT(mod):
    return mod("kernels.attention.sparse.runtime")


@pytest.fixture(scope="module")
def P(mod):
    return mod("kernels.attention.sparse.pattern")


def profile(mod):
    hw = mod("accel.common.hardware")
    return hw.HardwareProfile(device_kind="cuda", gpu_name="Simulated sm90", sm=(9, 0), torch_version=torch.__version__,
                              cuda_version="13.0", libraries={})


def tiny_wan(M, layers=4, seed=0):
    cfg = {"image_model": "wan2.1", "model_type": "t2v", "patch_size": (1, 2, 2), "in_dim": 16, "dim": 128,
           "ffn_dim": 256, "freq_dim": 256, "out_dim": 16, "num_heads": 2, "num_layers": layers,
           "window_size": (-1, -1), "qk_norm": True, "cross_attn_norm": True, "eps": 1e-6}
    m = M.tiny_model_from_config(cfg, seed, dtype=torch.float32)
    m.model.diffusion_model.patch_embedding.float()
    return m


def inputs(seed=0):
    g = torch.Generator().manual_seed(seed)
    return torch.randn(1, 16, GRID[0], 2 * GRID[1], 2 * GRID[2], generator=g), torch.randn(1, 8, 4096, generator=g)


def forward(patcher, x, ctx, sigma, sigmas=SIGMAS, **extra):
    from accel_harness.forward import Forward

    with torch.inference_mode(), Forward(patcher, sample_sigmas=sigmas) as f:
        return f(x, sigma, ctx, **extra).float()


def radial(A, SP, model, mod, policy=None, **inputs_):
    kw = {} if policy is None else {"policy": policy}
    return A.apply_attention(model, "radial_sparse", sparse=SP.settings_from_inputs(**inputs_), profile=profile(mod),
                             tensor_device_types=("cpu",), **kw)


def reference_override(P, RT, sparse_blocks, decay=0.2):
    """What radial_sparse must compute: per model call, video self-attention calls counted; those in
    `sparse_blocks` run the dense masked fp32 reference with the radial pattern, every other call exact SDPA."""
    pat = P.RadialPattern(P.VideoGrid(*GRID), decay)
    count = {"i": 0, "sparse": 0}

    def override(func, q, k, v, heads, **kw):
        b, lq, hd = q.shape
        d = hd // heads
        qh, kh, vh = (t.reshape(b, t.shape[1], heads, d).transpose(1, 2) for t in (q, k, v))
        if lq == k.shape[1] == pat.tokens:
            i = count["i"]
            count["i"] += 1
            if i in sparse_blocks:
                count["sparse"] += 1
                out = _ref(qh, kh, vh, pat)
                return out.transpose(1, 2).reshape(b, lq, hd)
        out = torch.nn.functional.scaled_dot_product_attention(qh, kh, vh)
        return out.transpose(1, 2).reshape(b, lq, hd)

    return override, count


_ref = None


@pytest.fixture(autouse=True, scope="module")
def _reference_fn(mod):
    global _ref
    _ref = mod("kernels.attention.sparse.ops").reference_attention


def close(a, b, tol=TOL):
    err = float((a.float() - b.float()).abs().max())
    scale = float(b.float().abs().max()) or 1.0
    return err <= tol * scale, f"max|diff| {err:.3g} vs tol {tol} * {scale:.3g}"


def sparse_wrapper(SP, patcher):
    import comfy.patcher_extension as pe

    (w,) = patcher.get_wrappers(pe.WrappersMP.APPLY_MODEL, SP.keys.ATTENTION)
    assert isinstance(w, SP.SparseWrapper)
    return w


def with_override(model, fn):
    m = model.clone()
    m.model_options.setdefault("transformer_options", {})["optimized_attention_override"] = fn
    return m


# --- 1. through ComfyUI's apply_model ----------------------------------------------------------------------------

@pytest.mark.parametrize("lora", [False, True])
def test_radial_sparse_matches_reference_on_sparse_and_exact_on_dense(A, SP, RT, P, M, mod, stats, lora):
    model = tiny_wan(M)
    if lora:
        import comfy.sd

        sd = M.wan_lora(rank=4, seed=3, layout="diffusers",
                        modules=["blocks.1.self_attn.q", "blocks.2.self_attn.k", "blocks.2.ffn.0"])
        base = model
        model = comfy.sd.load_lora_for_models(model, None, sd, 1.0, 0.0)[0]
    x, ctx = inputs()
    patched, report = radial(A, SP, model, mod)
    assert "radial_sparse on Simulated sm90" in report, report
    assert "visual quality is not measured here" in report and "arXiv:2506.19852" in report
    assert "the first 1 and last 1 transformer block(s)" in report and "first quarter" in report
    assert "custom op comfyui_accel::radial_sparse_torch (no graph break per call)" in report
    run = sparse_wrapper(SP, patched).run
    assert run.settings.kernel == "flex" and run.settings.decay_factor == 0.2

    # a sparse step (step 1 of 3): blocks 1 and 2 sparse, blocks 0 and 3 and all cross-attention exact
    out = forward(patched, x, ctx, 0.7)
    ref_ov, count = reference_override(P, RT, sparse_blocks={1, 2})
    want = forward(with_override(model, ref_ov), x, ctx, 0.7)
    assert count["sparse"] == 2
    ok, msg = close(out, want)
    assert ok, msg
    stock = forward(model, x, ctx, 0.7)
    assert not close(out, stock, 1e-3)[0], "the pattern dropped nothing: the test would not see a dense fallback"
    assert run.sparse_calls == 2 and run.reasons == {RT.BLOCK: 2, RT.CROSS: 4}, (run.sparse_calls, run.reasons)
    assert stats[("radial_sparse", "served")] == 8

    # a dense step (step 0): every call exact
    out0 = forward(patched, x, ctx, 1.0)
    ok, msg = close(out0, forward(model, x, ctx, 1.0))
    assert ok, msg
    assert run.sparse_calls == 2 and run.reasons[RT.STEP] == 4

    lines = SP.report_lines(patched)
    assert lines[0].startswith("radial_sparse: 2 of 16 attention calls ran the sparse pattern"), lines
    sp = P.RadialPattern(P.VideoGrid(*GRID), 0.2).stats()["sparsity"]
    assert f"6x8x16 tokens (768): sparsity {sp:.1%}" in lines[1] and "kept attention mass" in lines[1], lines
    if lora:  # the LoRA is in the weights the forward used: the unpatched model differs
        assert not close(out, forward(radial(A, SP, base, mod)[0], x, ctx, 0.7), 1e-3)[0]


def test_a_run_that_continues_a_denoised_latent_has_no_auto_dense_step(A, SP, RT, M, mod, stats):
    """Wan 2.2 A14B's LightX2V split: the low-noise expert's KSamplerAdvanced run starts at sigma 0.7, below the
    model's largest (1.0). Under dense_steps -1 its first step is sparse (the authors keep 1 of the 4 steps dense: the
    high-noise expert's first); a number set by hand still applies to it; a run from pure noise keeps its dense step."""
    model = tiny_wan(M)
    x, ctx = inputs()
    tail = [0.7, 0.4, 0.0]  # the second expert's slice of [1.0, 0.85, 0.7, 0.4, 0.0]
    patched = radial(A, SP, model, mod)[0]
    run = sparse_wrapper(SP, patched).run
    forward(patched, x, ctx, 0.7, tail)
    assert run.sparse_calls == 2 and run.reasons.get(RT.STEP, 0) == 0, (run.sparse_calls, run.reasons)
    forward(patched, x, ctx, 1.0, [1.0, 0.85, 0.7])  # the first expert's slice: step 0 dense
    assert run.sparse_calls == 2 and run.reasons[RT.STEP] == 4, run.reasons
    by_hand = radial(A, SP, model, mod, dense_steps=1)[0]
    run1 = sparse_wrapper(SP, by_hand).run
    forward(by_hand, x, ctx, 0.7, tail)
    assert run1.sparse_calls == 0 and run1.reasons[RT.STEP] == 4, run1.reasons


def _self_attention_calls(run, RT):
    """Video self-attention calls the run saw: the sparse ones and the dense ones for a step or a block."""
    return run.sparse_calls + run.reasons.get(RT.STEP, 0) + run.reasons.get(RT.BLOCK, 0)


def test_composes_with_a_step_cache(A, SP, RT, M, mod, stats):
    """Accel Attention radial_sparse -> Accel TeaCache on one model, sampled by ComfyUI's KSampler (12 steps: the
    cache computes every step at 8 or fewer; CFG 3; dense_steps -1 -> ceil(12 / 4) = 3 dense steps). A step the
    cache skips runs no block: it must not shift the block count of the next model call (the first / last dense
    block), and the sparse calls must be exactly the computed sparse steps' middle blocks. With threshold 0 (every step
    computed) the cache
    wrapper changes nothing: bit-equal to radial_sparse alone. A linear 'calibrated' set (estimate 0.1 x change,
    as tests/cache/test_cache.py) drives the skips on random weights."""
    sc = mod("accel.cache")
    name = "user:tiny_wan_linear_sparse"
    M.linear_teacache_set(mod("accel.cache.coefficients"), name)
    model = tiny_wan(M)
    pos, neg = M.conditioning(8, seed=1), M.conditioning(8, seed=2)
    lat = M.wan_latent(4 * (GRID[0] - 1) + 1, 16 * GRID[1], 16 * GRID[2])
    assert tuple(lat["samples"].shape[2:]) == (GRID[0], 2 * GRID[1], 2 * GRID[2])
    steps = 12
    dense = math.ceil(steps / 4)

    def sample(m):
        return M.sample(m, pos, neg, lat, steps=steps, cfg=3.0)

    alone = radial(A, SP, model, mod)[0]
    ref = sample(alone)
    run0 = sparse_wrapper(SP, alone).run
    calls_per_step = _self_attention_calls(run0, RT) // (4 * steps)
    assert calls_per_step >= 1 and _self_attention_calls(run0, RT) == 4 * steps * calls_per_step
    assert run0.sparse_calls == 2 * (steps - dense) * calls_per_step, (run0.sparse_calls, run0.reasons)

    m0, _ = sc.configure_teacache(alone, 0.0, 0.0, 1.0, name, "GPU")
    assert torch.equal(sample(m0), ref)
    st0 = sc.last_stats(m0)
    assert (st0.computed, st0.skipped) == (steps, 0)

    m, report = sc.configure_teacache(alone, 0.6, 0.0, 1.0, name, "GPU")
    shared = sparse_wrapper(SP, m).run  # the clone shares the backend's run (and its counts) with `alone`
    before_sparse, before = shared.sparse_calls, dict(shared.reasons)
    out = sample(m)
    st = sc.last_stats(m)
    run = types.SimpleNamespace(sparse_calls=shared.sparse_calls - before_sparse,
                                reasons={r: n - before.get(r, 0) for r, n in shared.reasons.items()})
    assert st.skipped >= 1 and st.computed + st.skipped == steps, st.pattern
    assert torch.isfinite(out).all()
    computed = [j for j, c in enumerate(st.pattern) if c == "#"]
    sparse_steps = [j for j in computed if j >= dense]
    assert sparse_steps, f"every skipped step was a dense one: the test would not see the block count ({st.pattern})"
    assert _self_attention_calls(run, RT) == 4 * len(computed) * calls_per_step, (run.reasons, st.pattern)
    # blocks 1 and 2 of each computed sparse step ran sparse; blocks 0 and 3 dense: the count never shifted
    assert run.sparse_calls == 2 * len(sparse_steps) * calls_per_step, (run.sparse_calls, run.reasons, st.pattern)
    assert run.reasons.get(RT.BLOCK, 0) == run.sparse_calls
    assert run.reasons.get(RT.STEP, 0) == 4 * (len(computed) - len(sparse_steps)) * calls_per_step
    err = float((out - ref).norm() / ref.norm())
    assert 0 < err < 0.5, err  # the cache's bounded deviation (tests/cache/test_cache.py), not a broken forward


def test_two_experts_with_loras_split_like_wan22(A, SP, RT, P, M, mod, stats):
    """Wan 2.2 A14B's LightX2V split through ComfyUI's own sampler: two experts (different random weights, a LoRA on
    each), each patched with radial_sparse, 4 steps split 2 + 2 as KSamplerAdvanced does (the first keeps its leftover
    noise). The high-noise expert's run starts from pure noise: its step 0 is dense (the authors' 1 of 4), step 1
    sparse; the low-noise expert continues a partly denoised latent: both its steps sparse. Each expert keeps its own
    counts, and the split result equals the same split with each expert's attention replaced by the reference
    override (sparse blocks: the dense masked fp32 reference; else exact), within the stated tolerance."""
    import comfy.sd

    pos, neg = M.conditioning(8, seed=1), M.conditioning(8, seed=2)
    lat = M.wan_latent(4 * (GRID[0] - 1) + 1, 16 * GRID[1], 16 * GRID[2])
    experts = []
    for seed in (0, 1):
        base = tiny_wan(M, seed=seed)
        sd = M.wan_lora(rank=4, seed=3 + seed, layout="diffusers",
                        modules=["blocks.1.self_attn.q", "blocks.2.self_attn.k", "blocks.2.ffn.0"])
        experts.append(comfy.sd.load_lora_for_models(base, None, sd, 1.0, 0.0)[0])

    def split(first, second):
        import nodes

        mid = nodes.common_ksampler(first, 0, 4, 1.0, "euler", "simple", pos, neg, lat, start_step=0, last_step=2,
                                    force_full_denoise=False)[0]
        return nodes.common_ksampler(second, 0, 4, 1.0, "euler", "simple", pos, neg, mid, disable_noise=True,
                                     start_step=2, last_step=4, force_full_denoise=True)[0]["samples"]

    high, low = (radial(A, SP, e, mod)[0] for e in experts)
    out = split(high, low)
    rh, rl = sparse_wrapper(SP, high).run, sparse_wrapper(SP, low).run
    assert rh is not rl
    assert rh.reasons.get(RT.STEP, 0) == 4 and rh.sparse_calls == 2, (rh.reasons, rh.sparse_calls)
    assert rl.reasons.get(RT.STEP, 0) == 0 and rl.sparse_calls == 4, (rl.reasons, rl.sparse_calls)

    # the reference: per model call, count the video self-attention calls; on the high-noise expert's first call
    # (its dense step) none is sparse
    def ref_model(expert, dense_first_call):
        state = {"calls": 0}
        ov, count = reference_override(P, RT, sparse_blocks={1, 2})

        def per_call(func, q, k, v, heads, **kw):
            if q.shape[1] == k.shape[1] and count["i"] == 4:
                count["i"] = 0
                state["calls"] += 1
            if dense_first_call and state["calls"] == 0 and q.shape[1] == k.shape[1]:
                count["i"] += 1
                b, lq, hd = q.shape
                d = hd // heads
                qh, kh, vh = (t.reshape(b, t.shape[1], heads, d).transpose(1, 2) for t in (q, k, v))
                return torch.nn.functional.scaled_dot_product_attention(qh, kh, vh).transpose(1, 2).reshape(b, lq, hd)
            return ov(func, q, k, v, heads, **kw)

        return with_override(expert, per_call)

    want = split(ref_model(experts[0], True), ref_model(experts[1], False))
    ok, msg = close(out, want, 1e-3)
    assert ok, msg
    stock = split(*experts)
    assert not close(out, stock, 1e-3)[0], "the pattern dropped nothing: the test would not see a dense fallback"


def test_report_says_what_flash_attn_4_would_give_where_it_is_missing(SP, monkeypatch):
    """On a GPU flash-attn-4 builds for (sm90/sm100), a report on flex says what FA4 measured (from the figure
    table: its result file) and how to install it; on a machine it does not build for (here: the CPU), nothing."""
    figs = SP._fig
    kernel, lines = SP.pick_kernel("cpu")
    assert kernel == "flex" and SP.FA4_HINT not in lines, lines
    monkeypatch.setattr(SP, "_fa4_capable", lambda device: True)
    kernel, lines = SP.pick_kernel("cpu")
    assert kernel == "flex" and lines[-1] == SP.FA4_HINT, lines
    assert figs("sparse_fa4.h100.720p.decay0.2.speedup") in SP.FA4_HINT
    assert figs("sparse_flex.h100.720p.decay0.2.speedup.run2") in SP.FA4_HINT
    assert "pip install flash-attn-4" in SP.FA4_HINT and "bench/results/h100/attention_033_fa4" in SP.FA4_HINT


def test_settings_inputs_and_errors(SP, RT, AccelError):
    s = SP.settings_from_inputs(dense_steps=-1, dense_blocks=2, decay_factor=0.5)
    assert (s.steps_for(4), s.steps_for(50), s.steps_for(20), s.dense_blocks) == (1, 13, 5, 2)
    assert SP.settings_from_inputs(dense_steps=3).steps_for(50) == 3
    assert (s.steps_for(2, continues=True),
            SP.settings_from_inputs(dense_steps=3).steps_for(50, continues=True)) == (0, 3)
    for name, bad in (("dense_steps", -2), ("dense_blocks", -1), ("decay_factor", 0.0)):
        with pytest.raises(AccelError) as ei:
            SP.settings_from_inputs(**{name: bad})
        assert name in str(ei.value)


def test_grid_mismatch_and_non_wan_run_dense(A, SP, RT, M, mod, stats):
    """A latent whose grid the model pads (odd width) still matches; Flux (not Wan) runs every call dense."""
    model = tiny_wan(M, layers=3)
    patched, _ = radial(A, SP, model, mod, dense_blocks=0)
    g = torch.Generator().manual_seed(1)
    x = torch.randn(1, 16, 6, 16, 31, generator=g)  # padded to 32 by Wan: grid 6x8x16
    out = forward(patched, x, torch.randn(1, 8, 4096, generator=g), 0.7)
    run = sparse_wrapper(SP, patched).run
    assert run.sparse_calls == 3 and out.shape == (1, 16, 6, 16, 31)
    flux, report = A.apply_attention(M.tiny_flux(), "radial_sparse", profile=profile(mod), tensor_device_types=("cpu",))
    assert "every call runs dense" in report


def _hv_text_first() -> bool:
    """Where this ComfyUI's HunyuanVideo puts the text in its joint sequence, read from its own forward_orig (the
    single blocks' concatenation; the backend reads a double block's flag instead: an independent check of it)."""
    import inspect

    import comfy.ldm.hunyuan_video.model as hv

    src = inspect.getsource(hv.HunyuanVideo.forward_orig)
    if "torch.cat((txt, img), 1)" in src:
        return True
    if "torch.cat((img, txt), 1)" in src:
        return False
    pytest.fail("this ComfyUI's HunyuanVideo.forward_orig concatenates text and video in neither known order")


def joint_reference_override(pattern, count):
    """Exact SDPA for every call, the dense masked fp32 reference with `pattern` for calls of its token count; q/k/v
    as ComfyUI passes them (B, L, H*D), or (B, H, L, D) with skip_reshape (flux.math.attention)."""
    def override(func, q, k, v, heads, mask=None, attn_precision=None, skip_reshape=False, **kw):  # attention_pytorch's
        if skip_reshape:
            qh, kh, vh = q, k, v
        else:
            b, l_, hd = q.shape
            qh, kh, vh = (t.reshape(b, t.shape[1], heads, hd // heads).transpose(1, 2) for t in (q, k, v))
        if qh.shape[2] == kh.shape[2] == pattern.tokens and mask is None:
            count["sparse"] += 1
            out = _ref(qh, kh, vh, pattern)
        else:
            if mask is not None and mask.ndim == 2:  # (B, Lk) as LTX-Video's cross-attention passes it
                mask = mask.view(mask.shape[0], 1, 1, -1)
            out = torch.nn.functional.scaled_dot_product_attention(qh, kh, vh, attn_mask=mask)
        b, h, l_, d = out.shape
        return out.transpose(1, 2).reshape(b, l_, h * d)

    return override


def sparse_step_equals_reference(model, patched, pattern, x, ctx, extra, blocks=2):
    """The patched model's output on a sparse step (sigma 0.7, step 1 of 3) equals the model's with the reference
    override (both of its `blocks` self-attention calls on `pattern`); returns that output."""
    out = forward(patched, x, ctx, 0.7, **extra)
    count = {"sparse": 0}
    want = forward(with_override(model, joint_reference_override(pattern, count)), x, ctx, 0.7, **extra)
    assert count["sparse"] == blocks
    ok, msg = close(out, want)
    assert ok, msg
    return out


def test_radial_sparse_on_hunyuan_video_joint_attention(A, SP, RT, P, M, mod, stats):
    """HunyuanVideo (tiny: 1 double + 1 single block, 2 heads of 64): its joint attention holds the video's 768 tokens
    (grid 6 x 8 x 16) and the text's 40; where the text sits is read from this ComfyUI's own source (0.3.75: after the
    video; 0.33: before it). With dense_blocks 0, on a sparse step both blocks run the published HunyuanVideo rule (no
    attention sink) with the text's tiles dense, equal to the dense masked float32 reference (tolerance as above);
    the token refiner's text-only calls run exact; a dense step equals stock."""
    text_first = _hv_text_first()
    model = M.tiny_hunyuan_video()
    g = torch.Generator().manual_seed(0)
    x = torch.randn(1, 16, GRID[0], 2 * GRID[1], 2 * GRID[2], generator=g)
    ctx = torch.randn(1, 40, 64, generator=g)
    extra = {"y": torch.randn(1, 32, generator=g), "guidance": torch.tensor([3.5])}
    patched, report = radial(A, SP, model, mod, dense_blocks=0)
    assert "HunyuanVideo's joint attention" in report and ("text before" if text_first else "text after") in report
    assert "every call runs dense" not in report, report
    pat = P.RadialPattern(P.VideoGrid(*GRID), 0.2, model_type="hunyuan", text_tokens=40, text_first=text_first)
    assert 0 < pat.sparsity < 1
    out = sparse_step_equals_reference(model, patched, pat, x, ctx, extra)
    assert not close(out, forward(model, x, ctx, 0.7, **extra), 1e-3)[0], "the pattern dropped nothing"
    run = sparse_wrapper(SP, patched).run
    assert run.sparse_calls == 2 and RT.MISMATCH in run.reasons, (run.sparse_calls, run.reasons)  # the refiner's calls
    lines = SP.report_lines(patched)
    assert "6x8x16 tokens + 40 text tokens " + ("before" if text_first else "after") in lines[1], lines
    ok, msg = close(forward(patched, x, ctx, 1.0, **extra), forward(model, x, ctx, 1.0, **extra))
    assert ok, msg  # step 0 of 3: a dense step


@pytest.mark.parametrize("strict", [False, True])
def test_radial_sparse_on_ltx_video(A, SP, RT, P, M, mod, stats, strict):
    """LTX-Video (tiny: 2 transformer blocks): its video self-attention over the latent's 6 x 8 x 16 tokens (patch 1)
    runs the radial rule without an attention sink (our extension: no published LTX-Video setting, and the report
    says so); cross-attention to the text runs exact with the T5 text mask, here with 3 padded text tokens (the
    reference: ComfyUI's own masked attention; a mask ignored would attend to the padding and fail the tolerance).
    The mask is served, not a fallback: with fallback 'error' the run goes through too (it stopped on the first
    masked call before: an H100 run of the LTX-Video matrix found it)."""
    model = M.tiny_ltxv()
    g = torch.Generator().manual_seed(0)
    x = torch.randn(1, 128, *GRID, generator=g)
    ctx = torch.randn(1, 8, 64, generator=g)
    extra = {"frame_rate": 25, "attention_mask": torch.tensor([[1, 1, 1, 1, 1, 0, 0, 0]])}
    policy = mod("accel.common.policy").Policy.ERROR if strict else None
    patched, report = radial(A, SP, model, mod, policy=policy, dense_blocks=0)
    assert "LTX-Video's video self-attention" in report and "our extension" in report, report
    sparse_step_equals_reference(model, patched, P.RadialPattern(P.VideoGrid(*GRID), 0.2, model_type="hunyuan"), x, ctx,
                                 extra)
    run = sparse_wrapper(SP, patched).run
    assert run.sparse_calls == 2 and run.reasons == {RT.CROSS: 2}, run.reasons
    unmasked = forward(patched, x, ctx, 0.7, frame_rate=25, attention_mask=torch.ones(1, 8, dtype=torch.long))
    assert not close(unmasked, forward(patched, x, ctx, 0.7, **extra), 1e-3)[0], "the text mask changed nothing"


def test_radial_sparse_on_minimax_h3_packed_attention(A, SP, RT, P, M, mod, stats):
    """MiniMax-H3 (tiny: 2 blocks, 2 heads of 128; ComfyUI 0.33+) packs one self-attention sequence [text 8 | audio 2 x
    20 rows | video 6 x 8 x 16 = 768 tokens]: the grid comes from the call's video latent shape (the sampler carries
    video and audio packed), everything before the video stays dense rows and columns (the audio path exact), the
    video runs the published rule without an attention sink (our extension: no published setting, the report says
    so). Through ComfyUI's sampler, 3 steps (dense_steps -1: the first dense), dense_blocks 0: the final video and
    audio latents equal the model's with a reference override computing exactly that (the dense masked float32
    reference on the two later steps, SDPA on the first), 4 sparse calls, and the run's report names the layout."""
    import comfy.nested_tensor

    why = M.lacks_family("minimax_h3")
    if why:
        pytest.skip(why)
    model = M.family_model("minimax_h3")
    text, audio_t = 8, 20
    lat = {"samples": comfy.nested_tensor.NestedTensor((torch.zeros(1, 24, GRID[0], 2 * GRID[1], 2 * GRID[2]),
                                                        torch.zeros(1, 32, 2, audio_t)))}
    cond = M.conditioning(text, 64)
    pat = P.RadialPattern(P.VideoGrid(*GRID), 0.2, model_type="hunyuan", text_tokens=text + 2 * audio_t,
                          text_first=True)
    assert 0 < pat.sparsity < 1 and pat.block_mask()[: (text + 2 * audio_t) // 128 + 1].all()
    count = {"sparse": 0}

    def reference(func, q, k, v, heads, mask=None, attn_precision=None, skip_reshape=False, transformer_options=None,
                  **kw):
        sparse_step = float(transformer_options["sigmas"].max()) < 0.999
        if q.shape[2] == pat.tokens and sparse_step:
            count["sparse"] += 1
            out = _ref(q, k, v, pat)
        else:
            out = torch.nn.functional.scaled_dot_product_attention(q, k, v)
        b, h, n, d = out.shape
        return out.transpose(1, 2).reshape(b, n, h * d)

    patched, report = radial(A, SP, model, mod, dense_blocks=0)
    assert "MiniMax-H3's joint self-attention" in report and "the audio path is exact" in report, report
    with torch.inference_mode():
        got = M.sample(patched, cond, cond, lat, steps=3, cfg=1.0, seed=2).unbind()
        want = M.sample(with_override(model, reference), cond, cond, lat, steps=3, cfg=1.0, seed=2).unbind()
    assert count["sparse"] == 4
    for a, b in zip(got, want, strict=True):
        ok, msg = close(a, b)
        assert ok, msg
    run = sparse_wrapper(SP, patched).run
    assert run.sparse_calls == 4 and RT.STEP in run.reasons, run.reasons
    lines = SP.report_lines(patched)
    assert f"6x8x16 tokens + {text + 2 * audio_t} text tokens before the video" in lines[1], lines


def test_masked_self_attention_runs_exact_sdpa_with_its_mask(RT, P):
    """A self-attention call with a mask (e.g. HunyuanVideo with padded text) cannot run the pattern: exact SDPA with
    the mask, counted as masked in the report; a masked cross-attention call is counted as cross-attention."""
    run = RT.RadialRun(RT.RadialSettings(kernel="reference"))
    g = torch.Generator().manual_seed(0)
    q, k, v = (torch.randn(1, 2, P.VideoGrid(*GRID).tokens, 64, generator=g) for _ in range(3))
    mask = torch.zeros(1, 1, 1, q.shape[2])
    mask[..., -100:] = -torch.finfo(torch.float32).max
    prev = run.enter(P.VideoGrid(*GRID), 1, 3, 4)
    try:
        out = run.attend(q, k, v, None, mask)
        outx = run.attend(q, k[:, :, :40], v[:, :, :40], None, mask[..., :40])
    finally:
        run.exit(prev)
    want = torch.nn.functional.scaled_dot_product_attention(q, k, v, attn_mask=mask)
    assert torch.allclose(out, want, atol=1e-6) and not torch.allclose(
        out, torch.nn.functional.scaled_dot_product_attention(q, k, v), atol=1e-3)
    assert outx.shape == q.shape
    assert run.sparse_calls == 0 and run.reasons == {RT.MASKED: 1, RT.CROSS: 1}, run.reasons
    assert any(RT.MASKED in line for line in run.summary_lines()), run.summary_lines()


# --- 2. kept attention mass on video-structured inputs --------------------------------------------------------------

def _video_qk(P, grid, d=128, content=6.0, noise=0.5, beta=0.05, seed=0):
    from types import SimpleNamespace

    from comfy.ldm.flux.layers import EmbedND
    from comfy.ldm.flux.math import apply_rope1
    from comfy.ldm.wan.model import WanModel

    emb = EmbedND(dim=d, theta=10000.0, axes_dim=[d - 4 * (d // 6), 2 * (d // 6), 2 * (d // 6)])  # Wan's axes
    fake = SimpleNamespace(patch_size=(1, 2, 2), rope_embedder=emb)
    freqs = WanModel.rope_encode(fake, grid.frames, 2 * grid.height, 2 * grid.width, dtype=torch.float32)
    g = torch.Generator().manual_seed(seed)
    L = grid.tokens
    c = torch.randn(1, 1, 1, d, generator=g)
    c = c / c.norm(dim=-1, keepdim=True)
    q = apply_rope1(content * c + noise * torch.randn(1, L, 1, d, generator=g), freqs)[:, :, 0]
    k = apply_rope1(content * c + noise * torch.randn(1, L, 1, d, generator=g), freqs)[:, :, 0]
    t = torch.arange(L) // grid.tokens_per_frame
    y = (torch.arange(L) // grid.width) % grid.height
    x = torch.arange(L) % grid.width
    pos = torch.stack([t, y, x], -1).float()[None]  # (1, L, 3)
    # the locality bias exp(-beta |p_q - p_k|^2) on the weights = + 2 beta p_q.p_k - beta |p_k|^2 on the scores
    # (the |p_q|^2 term is constant per row); with softmax scale s = 1/sqrt(D): channels scaled by 1/sqrt(s)
    D = d + 4
    s = 1 / math.sqrt(D)
    r = 1 / math.sqrt(s)
    a = (D / d) ** 0.25  # s * a^2 = 1 / sqrt(d): the content/RoPE scores as Wan's own softmax scale gives them
    q = torch.cat([a * q, r * math.sqrt(2 * beta) * pos, r * torch.ones(1, L, 1)], -1)
    k = torch.cat([a * k, r * math.sqrt(2 * beta) * pos, -r * beta * (pos ** 2).sum(-1, keepdim=True)], -1)
    return q[:, None], k[:, None]  # (1, 1, L, D)


def test_kept_mass_on_video_structure(RT, P):
    grid = P.VideoGrid(21, 16, 16)  # Wan's 21 latent frames, 16x16 patches: 5,376 tokens
    settings = RT.RadialSettings(decay_factor=1.0, dense_steps=0, dense_blocks=0, block_size=64, kernel="reference")
    run = RT.RadialRun(settings)
    q, k = _video_qk(P, grid)
    v = torch.randn_like(q)
    prev = run.enter(grid, 1, 4, 1)
    try:
        out = run.attend(q, k, v, None)
    finally:
        run.exit(prev)
    pat = run.pattern(grid)
    assert torch.allclose(out, _ref(q, k, v, pat), atol=1e-5)
    (e,) = run.shapes.values()
    assert e["stats"]["sparsity"] == pat.sparsity and 0.45 < pat.sparsity < 0.6
    km = e["kept_mass"]
    full = torch.softmax((q[0, 0] @ k[0, 0].T) / math.sqrt(q.shape[-1]), -1)
    full_kept = float((full * pat.token_mask()).sum(-1).mean())
    print(f"\nkept mass: backend (64 rows) {km['mean']:.4f}, worst row {km['worst_row']:.4f}; all rows "
          f"{full_kept:.4f}; sparsity {pat.sparsity:.4f}")
    assert km["rows"] == 64 and km["mean"] > 0.9 and abs(km["mean"] - full_kept) < 0.05
    # without the locality bias (RoPE only) the same inputs keep clearly less: the bound is not vacuous
    q0, k0 = _video_qk(P, grid, beta=0.0)
    assert RT.kept_mass(q0, k0, pat, None)["mean"] < km["mean"] - 0.1


# --- 3. torch.compile -----------------------------------------------------------------------------------------------

def test_whole_wan_forward_traces_without_graph_breaks(A, SP, RT, P, M, mod, stats):
    model = tiny_wan(M)
    patched, _ = radial(A, SP, model, mod)
    run = sparse_wrapper(SP, patched).run
    to = patched.model_options["transformer_options"]
    dm = patched.model.diffusion_model
    x, ctx = inputs()
    t = torch.tensor([500.0])
    torch._dynamo.reset()
    prev = run.enter(P.VideoGrid(*GRID), 1, 3, 4)
    try:
        with torch.inference_mode():
            explained = torch._dynamo.explain(lambda x, t, c: dm(x, t, c, transformer_options=dict(to)))(x, t, ctx)
    finally:
        run.exit(prev)
        torch._dynamo.reset()
    assert explained.graph_break_count == 0, [str(r.reason)[:200] for r in explained.break_reasons]
    assert run.sparse_calls >= 2  # decided at run time, inside the traced graph's custom op


def test_ltx_video_forward_with_a_text_mask_traces_without_graph_breaks(A, SP, RT, P, M, mod, stats):
    """The masked cross-attention calls go through the same custom op (the mask an argument of it): a whole tiny
    LTX-Video forward with padded text traces with no graph break, and the masks are served inside it."""
    model = M.tiny_ltxv()
    patched, _ = radial(A, SP, model, mod, dense_blocks=0)
    run = sparse_wrapper(SP, patched).run
    to = patched.model_options["transformer_options"]
    dm = patched.model.diffusion_model
    g = torch.Generator().manual_seed(0)
    x = torch.randn(1, 128, *GRID, generator=g)
    ctx = torch.randn(1, 8, 64, generator=g)
    mask = torch.tensor([[1, 1, 1, 1, 1, 0, 0, 0]])
    t = torch.tensor([0.7])
    torch._dynamo.reset()
    prev = run.enter(P.VideoGrid(*GRID), 1, 3, 2, layout=RT.Layout("hunyuan"))
    try:
        with torch.inference_mode():
            explained = torch._dynamo.explain(
                lambda x, t, c, m: dm(x, t, c, m, frame_rate=25, transformer_options=dict(to)))(x, t, ctx, mask)
    finally:
        run.exit(prev)
        torch._dynamo.reset()
    assert explained.graph_break_count == 0, [str(r.reason)[:200] for r in explained.break_reasons]
    assert run.sparse_calls >= 2 and run.reasons.get(RT.CROSS, 0) >= 2, (run.sparse_calls, run.reasons)


def test_accel_compile_keeps_run_time_decisions(A, SP, RT, M, mod, stats):
    comp = mod("accel.compile")
    model = tiny_wan(M)
    patched, _ = radial(A, SP, model, mod)
    x, ctx = inputs()
    eager = forward(patched, x, ctx, 0.7)
    run = sparse_wrapper(SP, patched).run
    n0 = run.sparse_calls
    # flex_attention run eagerly inside a custom op of a compiled graph fails on the CPU (torch 2.14: "NYI: querying
    # is_contiguous inside of vmap"); the backend compiles flex on CUDA by default (RadialSettings.compile None), and
    # here on the CPU too, so the compiled graph runs the path a GPU runs
    run.settings = dataclasses.replace(run.settings, compile=True)
    compiled, _ = comp.apply_compile(patched, backend="aot_eager")
    torch._dynamo.reset()
    try:
        out = forward(compiled, x, ctx, 0.7)
        out0 = forward(compiled, x, ctx, 1.0)  # a dense step: the same graph, dense at run time
        st = comp.compile_status(compiled)
    finally:
        torch._dynamo.reset()
    assert st["enabled"] and not st["fell_back"], st
    assert run.sparse_calls == n0 + 2, (n0, run.sparse_calls)
    ok, msg = close(out, eager)
    assert ok, msg
    ok, msg = close(out0, forward(model, x, ctx, 1.0))
    assert ok, msg


# --- 4. core's BlockSparseAttention ---------------------------------------------------------------------------------

def standin_bsa_override(previous, patch):
    """Restates mark_attention_override of Comfy-Org/ComfyUI comfy_extras/sparse_attention_history.py @cf3103c5
    (dense path only): calls the previous override (or func) and marks itself."""
    def override(func, q, k, v, heads, **kwargs):
        return func(q, k, v, heads, **kwargs) if previous is None else previous(func, q, k, v, heads, **kwargs)

    override._block_sparse_attention_patch = patch
    override._block_sparse_attention_previous = previous
    return override


def _with_bsa(M, C, model):
    import comfy.patcher_extension as pe

    patch = types.SimpleNamespace(name="bsa-patch")

    def prepare_state(model_patcher, timestep, model_options):  # BSA's re-install at ON_PREPARE_STATE
        t = model_options["transformer_options"]
        cur = t.get(C.OVERRIDE_KEY)
        if getattr(cur, "_block_sparse_attention_patch", None) is not patch:
            t[C.OVERRIDE_KEY] = standin_bsa_override(cur, patch)

    m = model.clone()
    m.add_callback_with_key(pe.CallbacksMP.ON_PREPARE_STATE, C.BSA_CALLBACK_KEY, prepare_state)
    return m, prepare_state, patch


def test_core_block_sparse_attention_one_pattern(A, SP, RT, M, mod, stats, AccelError):
    C = mod("accel.comfy_compat")
    model = tiny_wan(M)
    bsa, _, _ = _with_bsa(M, C, model)
    patched, report = radial(A, SP, bsa, mod)
    assert "radial_sparse stood down: core's Model Sparse Attention (BlockSparseAttention) is on this model" in report
    ov = patched.model_options["transformer_options"][A.OVERRIDE_KEY]
    assert not ov.kernel.sparse and not ov.kernel.low_precision  # the exact backend auto picks here
    with pytest.raises(AccelError) as ei:
        radial(A, SP, bsa, mod, policy=A.Policy.ERROR)
    msg = str(ei.value)
    assert "backend" in msg and "only one sparse pattern" in msg and "Remove core's Model Sparse Attention" in msg

    # core's node added after ours: its override on the hook at run time makes every call of ours dense
    patched, _ = radial(A, SP, model, mod)
    run = sparse_wrapper(SP, patched).run
    m = patched.clone()
    to = m.model_options["transformer_options"]
    to[C.OVERRIDE_KEY] = standin_bsa_override(to[C.OVERRIDE_KEY], types.SimpleNamespace())
    x, ctx = inputs()
    forward(m, x, ctx, 0.7)
    assert run.sparse_calls == 0 and run.reasons == {SP.CORE_SPARSE: 8}, run.reasons
