"""LoRA beside the FP8 matmul (accel.fp8.ops, "the low-rank path"): when a LoRA reaches the pack's FP8 Linear as a
per-call weight function (lowvram / partial loads; ComfyUI 0.33's DynamicVRAM `weight_lowvram_function`), a plain
low-rank LoRA runs as y = linear(x, W_fp8) + sum_i s_i * alpha_i / r_i * (x @ down_i^T) @ up_i^T instead of
patching the whole dequantized weight per call. Checked against ComfyUI's own patched result: comfy.lora.
calculate_weight on the dequantized weight (and bias), then a linear.

Tolerances (fp32 on the CPU): both sides compute the same sum in another order, so they differ by fp32 rounding:
per layer max|diff| <= 1e-5 x max|ref| (measured ~1e-7); through tiny Wan (2 blocks) rel L2 <= 1e-5. The LoRAs
move each output by far more (asserted >= 5e-2 relative), so a LoRA left out, applied twice or kept at an old
strength fails by orders of magnitude.
"""
import pytest
import torch

LAYER_TOL = 1e-5  # per layer: max|diff| / max|ref|
MODEL_TOL = 1e-5  # tiny Wan forward: rel L2
EFFECT_MIN = 5e-2  # every LoRA under test moves its output by at least this (rel L2)


def rel(a, b):
    return float((a.float() - b.float()).norm() / b.float().norm())


@pytest.fixture(scope="module")
def Ops(mod):
    return mod("accel.fp8.ops")


@pytest.fixture(scope="module")
def fp8_path(M, ddir):
    return M.write_wan(ddir / "lowrank_fp32.safetensors", seed=7, dtype=torch.float32)


@pytest.fixture
def fp8(F, fp8_path):
    """A fresh FP8-loader model (its own runtime counters), fp32 compute on the CPU (the dequantize path)."""
    import comfy.model_management as mm

    mm.unload_all_models()
    res = F.load_file(str(fp8_path))
    assert res.stats.formats, "the FP8 loader quantized no layer"
    yield res
    mm.unload_all_models()


def lora_sd(M, rank, seed, alpha=None, modules=None, bias_diffs=False):
    return M.wan_lora(rank=rank, seed=seed, layout="lightx2v", alpha=alpha, modules=modules, bias_diffs=bias_diffs)


def with_lora(patcher, sd, strength):
    import comfy.sd

    return comfy.sd.load_lora_for_models(patcher, None, sd, strength, 0)[0]


class Lowvram:
    """`p` loaded with nothing resident: every Linear casts per call and a LoRA stays a weight function
    (ComfyUI's LowVramPatch), as on a card where the model does not fit."""

    def __init__(self, p):
        self.p = p

    def __enter__(self):
        import comfy.model_management as mm

        mm.unload_all_models()
        self.p.patch_model(self.p.load_device, lowvram_model_memory=1)
        return self.p

    def __exit__(self, *exc):
        self.p.unpatch_model(self.p.offload_device)


@torch.no_grad()
def reference(Ops, layer, key_w, key_b, patches, x):
    """ComfyUI's own result: calculate_weight on the dequantized fp32 weight (and bias), then linear."""
    import comfy.lora

    w = Ops.kfp8.dequantize(layer.weight, layer.weight_scale, torch.float32)
    if key_w in patches:
        w = comfy.lora.calculate_weight(patches[key_w], w.clone(), key_w, intermediate_dtype=torch.float32)
    b = layer.bias.float().clone() if layer.bias is not None else None
    if b is not None and key_b in patches:
        b = comfy.lora.calculate_weight(patches[key_b], b, key_b, intermediate_dtype=torch.float32)
    return torch.nn.functional.linear(x, w, b)


def layer_check(Ops, p, name, x, want_path):
    """Run layer `name` of `p` (loaded lowvram) on x and compare with ComfyUI's patched result; returns
    (output, reference, output without any patch)."""
    import comfy.utils

    layer = comfy.utils.get_attr(p.model, name)
    assert Ops.is_accel_linear(layer) and layer.weight_scale is not None
    assert layer.weight_function or getattr(layer, "weight_lowvram_function",
                                            None), "the case under test: a weight function"
    rt = layer.accel_fp8_runtime
    before = dict(rt.calls)
    with torch.inference_mode():
        y = layer(x)
    after = rt.calls
    took = {k: after[k] - before[k] for k in ("lora_lowrank", "lora_dense")}
    assert took == {"lora_lowrank": int(want_path == "lowrank"), "lora_dense": int(want_path == "dense")}, took
    ref = reference(Ops, layer, name + ".weight", name + ".bias", p.patches, x)
    plain = reference(Ops, layer, name + ".weight", name + ".bias", {}, x)
    err = float((y - ref).abs().max() / ref.abs().max())
    print(f"\n{name} [{want_path}]: max|diff|/max|ref| {err:.2e}, LoRA effect {rel(ref, plain):.3f}")
    assert y.dtype == x.dtype and err <= LAYER_TOL, err
    return y, ref, plain


Q, FFN2 = "diffusion_model.blocks.0.self_attn.q", "diffusion_model.blocks.0.ffn.2"


def x_for(M, layer_name, seed=0):
    d, f, _ = M.WAN_SIZES["tiny"]
    n_in = f if layer_name.endswith("ffn.2") else d
    return torch.randn(2, 6, n_in, generator=torch.Generator().manual_seed(seed))


def test_plain_lora_with_alpha_runs_beside_the_fp8_weight(Ops, M, fp8):
    """One LoRA with alpha != rank (scale alpha/rank = 0.5) and strength 0.8, plus the LightX2V bias diff
    (`diff_b` on ffn.2): low-rank path, equal to ComfyUI's patched weight and bias."""
    p = with_lora(fp8.patcher, lora_sd(M, rank=4, seed=1, alpha=2.0, bias_diffs=True), 0.8)
    with Lowvram(p):
        y, ref, plain = layer_check(Ops, p, Q, x_for(M, Q), "lowrank")
        assert rel(ref, plain) >= EFFECT_MIN
        layer = p.model.diffusion_model.blocks[0].ffn[2]
        assert layer.bias_function, "the LightX2V diff_b must arrive as a bias function"
        y2, ref2, plain2 = layer_check(Ops, p, FFN2, x_for(M, FFN2), "lowrank")
        assert rel(ref2, plain2) >= EFFECT_MIN
        down, up = layer.__dict__["_accel_lora_cache"][2]
        assert down.shape == (4, layer.in_features) and up.shape == (layer.out_features, 4)


def test_two_loras_stacked(Ops, M, fp8):
    """Two LoRAs on the same layers (ranks 4 and 2, other alphas and strengths): one concatenated low-rank term."""
    p = with_lora(fp8.patcher, lora_sd(M, rank=4, seed=1, alpha=8.0), 1.0)
    p = with_lora(p, lora_sd(M, rank=2, seed=2, alpha=1.0), 0.6)
    assert len(p.patches[Q + ".weight"]) == 2
    with Lowvram(p):
        y, ref, plain = layer_check(Ops, p, Q, x_for(M, Q), "lowrank")
        q = p.model.diffusion_model.blocks[0].self_attn.q
        assert q.__dict__["_accel_lora_cache"][2][0].shape[0] == 6  # ranks 4 + 2
    one = with_lora(fp8.patcher, lora_sd(M, rank=4, seed=1, alpha=8.0), 1.0)
    with Lowvram(one):
        y1, *_ = layer_check(Ops, one, Q, x_for(M, Q), "lowrank")
    assert rel(y, y1) >= EFFECT_MIN, "the second LoRA must matter"


def test_strength_change_rebuilds_the_cache(Ops, M, fp8):
    """The same LoRA file at strength 1.0, then 0.3 (the LoRA loader re-executed: same LoRA tensors, new strength),
    then 1.0 again: each run equals ComfyUI's result at its own strength (a cache kept across the change fails
    by the LoRA's whole effect), and the cache entry is rebuilt, not grown."""
    sd = lora_sd(M, rank=4, seed=3)
    x = x_for(M, Q)
    outs = []
    for strength in (1.0, 0.3, 1.0):
        p = with_lora(fp8.patcher, sd, strength)
        with Lowvram(p):
            y, ref, _ = layer_check(Ops, p, Q, x, "lowrank")
            outs.append(y)
            q = p.model.diffusion_model.blocks[0].self_attn.q
            with torch.inference_mode():  # the next step of the same run: served by the cache, same result
                assert torch.equal(q(x), y)
    assert rel(outs[1], outs[0]) >= EFFECT_MIN and torch.allclose(outs[2], outs[0], rtol=0, atol=1e-6)


def test_cache_is_freed_with_the_weight_functions(Ops, M, fp8):
    """Unpatching (model unload) drops ComfyUI's LowVramPatch objects: the cached LoRA factors go with them."""
    import gc

    p = with_lora(fp8.patcher, lora_sd(M, rank=4, seed=3), 1.0)
    q = p.model.diffusion_model.blocks[0].self_attn.q
    with Lowvram(p):
        with torch.inference_mode():
            q(x_for(M, Q))
        assert "_accel_lora_cache" in q.__dict__
    gc.collect()
    assert not q.weight_function and "_accel_lora_cache" not in q.__dict__


def test_cache_is_freed_when_comfyui_unloads_the_model(Ops, M, fp8):
    """ComfyUI 0.33's DynamicVRAM hands the LoRA as `weight_lowvram_function` and keeps it on the layer through an
    unpatch (only `weight_function` is wiped), so the cache that dies with it stayed allocated after an unload (on the
    H200 0.58 GiB after unload_all_models() with two LoRA'd 14B experts). ComfyUI's unload (LoadedModel.model_unload
    -> detach) now drops it, through the callback the LoRA loader's clone carried over; the weight function stays
    where ComfyUI left it."""
    p = with_lora(fp8.patcher, lora_sd(M, rank=4, seed=3), 1.0)
    q = p.model.diffusion_model.blocks[0].self_attn.q
    try:
        with Lowvram(p):
            (f,) = q.weight_function
            q.weight_function = []
            q.weight_lowvram_function = f  # as DynamicVRAM sets it (it needs CUDA: here by hand)
            with torch.inference_mode():
                q(x_for(M, Q))
            assert "_accel_lora_cache" in q.__dict__
        assert "_accel_lora_cache" in q.__dict__ and q.weight_lowvram_function is f  # the unpatch leaves both
        p.detach()
        assert "_accel_lora_cache" not in q.__dict__ and q.weight_lowvram_function is f
    finally:
        q.__dict__.pop("weight_lowvram_function", None)


def test_host_factors_are_built_once_per_lora_and_freed_with_it(Ops, monkeypatch):
    """For a CUDA device the LoRA factors are concatenated once into pinned host memory (`_host_factors`) and copied
    from there at each model load (ComfyUI 0.33 rebuilds its weight functions at every sampling run; building from
    pageable tensors waited for the GPU twice per layer). Pinning needs CUDA: on the CPU it is stood in for by a copy.
    Checked: the same patch set gives the same pinned tensors (no rebuild), equal to the plain concatenation; another
    strength builds new ones in place of the old (one entry per set of LoRA tensors); the entry goes with the LoRA
    tensors."""
    import gc

    pinned = []

    def fake_pin(t):
        pinned.append(t)
        return t.clone()

    monkeypatch.setattr(torch.Tensor, "pin_memory", fake_pin)
    g = torch.Generator().manual_seed(0)
    up, down = torch.randn(12, 4, generator=g), torch.randn(4, 10, generator=g)
    terms = [(up, down, 0.5)]
    f1 = Ops._host_factors(terms, torch.float16)
    f2 = Ops._host_factors(terms, torch.float16)
    assert f1 is f2 and len(pinned) == 2
    ref = Ops._concat(terms, "cpu", torch.float16)
    assert all(torch.equal(a, b) and a.dtype == torch.float16 for a, b in zip(f1, ref, strict=True))
    n = len(Ops._HOST_FACTORS)
    f3 = Ops._host_factors([(up, down, 0.3)], torch.float16)
    assert f3 is not f1 and len(pinned) == 4 and torch.allclose(f3[1].float(), (up * 0.3).half().float())
    # a strength sweep keeps one pinned copy per set of LoRA tensors, not one per strength
    for k in range(5):
        Ops._host_factors([(up, down, 0.1 * k)], torch.float16)
    assert len(Ops._HOST_FACTORS) == n
    del up, down, terms
    gc.collect()
    assert len(Ops._HOST_FACTORS) == n - 1


def test_unpinnable_factors_fall_back_with_a_log_and_a_report_line(Ops, mod, fp8, monkeypatch, caplog):
    """Where pinned memory cannot be had (pin_memory raises: the page-locked limit), the factors are built from the
    host tensors as before: the same values, one warning in the log saying what to change, no second try for the
    model's other layers, and a line in the after-run report."""
    import logging

    tries = []

    def refuse(t):
        tries.append(t)
        raise RuntimeError("CUDA error: out of memory (cudaHostAlloc)")

    monkeypatch.setattr(torch.Tensor, "pin_memory", refuse)
    caplog.set_level(logging.WARNING, logger="comfyui-accel")
    layer = next(m for m in fp8.patcher.model.diffusion_model.modules() if Ops.is_accel_linear(m))
    rt = layer.accel_fp8_runtime
    g = torch.Generator().manual_seed(1)
    terms = [(torch.randn(layer.out_features, 4, generator=g), torch.randn(4, layer.in_features, generator=g), 0.5)]
    got = Ops._device_factors(layer, terms, torch.device("cpu"), torch.float32)
    ref = Ops._concat(terms, "cpu", torch.float32)
    assert all(torch.equal(a, b) for a, b in zip(got, ref, strict=True))
    assert rt.lora_unpinned.startswith("CUDA error: out of memory")
    logged = [r.getMessage() for r in caplog.records if "could not be kept in pinned memory" in r.getMessage()]
    assert logged and "ulimit -l" in logged[0]  # says what to change
    again = Ops._device_factors(layer, terms, torch.device("cpu"), torch.float32)  # the next layer: no second try
    assert len(tries) == 1 and all(torch.equal(a, b) for a, b in zip(again, ref, strict=True))
    rt.calls["lora_lowrank"] += 1  # as a sampled LoRA layer call would
    lines = mod("accel.common.live_report").run_lines(fp8.patcher)
    assert any(ln.startswith("FP8 LoRA: the factors could not be kept in pinned memory (CUDA "
                             "error") for ln in lines), lines


@pytest.mark.parametrize("kind", ["dora", "diff"])
def test_dora_or_diff_keeps_the_dense_path(Ops, M, fp8, kind, caplog):
    """A DoRA LoRA, or a full-weight `diff` stacked on a plain LoRA, on the same layer: the dense path (ComfyUI's
    calculate_weight on the dequantized weight, as before), still equal to ComfyUI's result, logged once."""
    import logging

    sd = lora_sd(M, rank=4, seed=4, modules=["blocks.0.self_attn.q"])
    w_shape = fp8.patcher.model.diffusion_model.blocks[0].self_attn.q.weight.shape
    g = torch.Generator().manual_seed(9)
    if kind == "dora":
        sd["diffusion_model.blocks.0.self_attn.q.dora_scale"] = 1.0 + 0.1 * torch.randn(w_shape[0], 1, generator=g)
        p = with_lora(fp8.patcher, sd, 1.0)
    else:
        p = with_lora(fp8.patcher, sd, 1.0)
        p = with_lora(p, {"diffusion_model.blocks.0.self_attn.q.diff": 0.05 * torch.randn(*w_shape, generator=g)}, 1.0)
    caplog.set_level(logging.INFO, logger="comfyui-accel")
    with Lowvram(p):
        x = x_for(M, Q)
        y, ref, plain = layer_check(Ops, p, Q, x, "dense")
        assert rel(ref, plain) >= EFFECT_MIN
        q = p.model.diffusion_model.blocks[0].self_attn.q
        with torch.inference_mode():
            q(x)
        assert "_accel_lora_cache" not in q.__dict__
    lines = [r.getMessage() for r in caplog.records if "patch their whole weight" in r.getMessage()]
    assert len(lines) <= 1, lines  # once per model and reason (the first call may have logged it before caplog)


def test_lowvram_function_attribute_as_dynamic_vram_sets_it(Ops, M, fp8):
    """ComfyUI 0.33's DynamicVRAM hands the LoRA as `weight_lowvram_function` (not in weight_function); DynamicVRAM
    needs CUDA, so on the CPU the same LowVramPatch object is moved there: the low-rank path hides it from the cast
    path and puts it back."""
    p = with_lora(fp8.patcher, lora_sd(M, rank=4, seed=5, alpha=3.0), 0.7)
    with Lowvram(p):
        q = p.model.diffusion_model.blocks[0].self_attn.q
        (f,) = q.weight_function
        q.weight_function = []
        q.weight_lowvram_function = f
        try:
            layer_check(Ops, p, Q, x_for(M, Q), "lowrank")
            assert q.weight_lowvram_function is f and q.weight_function == []
        finally:
            del q.weight_lowvram_function
            q.weight_function = [f]


def test_fp8_matmul_path_with_lora(Ops, K, M, fp8):
    """With the FP8 matmul on (torch._scaled_mm on the CPU), the LoRA is added beside it: the result equals the
    same FP8 matmul without the LoRA plus the low-rank term of ComfyUI's LoRA (the matmul itself quantizes the
    activations, so the reference is built from the layer's own no-LoRA output, to fp32 rounding)."""
    try:
        K.fp8_linear(torch.randn(2, 16), torch.zeros(16, 16, dtype=torch.float8_e4m3fn), torch.ones(()))
    except (RuntimeError, NotImplementedError) as e:
        pytest.skip(f"no CPU torch._scaled_mm for fp32 inputs: {e}")
    rt = fp8.runtime
    rt.fast, rt.allow_cpu, rt.mode = True, True, "scaled_mm_rowwise"
    sd = lora_sd(M, rank=4, seed=6, alpha=2.0)
    x = x_for(M, Q)
    p0 = fp8.patcher.clone()
    q = p0.model.diffusion_model.blocks[0].self_attn.q
    with torch.inference_mode():
        base = q(x)
    n0 = rt.calls["fp8"]
    p = with_lora(fp8.patcher, sd, 0.9)
    with Lowvram(p):
        with torch.inference_mode():
            y = q(x)
    assert rt.calls["fp8"] == n0 + 1 and rt.calls["lora_lowrank"] == 1, rt.calls
    up, down = sd[Q + ".lora_up.weight"], sd[Q + ".lora_down.weight"]
    ref = base + 0.9 * (2.0 / 4) * (x @ down.T) @ up.T
    assert rel(y, base) >= EFFECT_MIN
    assert float((y - ref).abs().max() / ref.abs().max()) <= LAYER_TOL


@pytest.fixture(scope="module")
def K(mod):
    return mod("kernels.fp8_linear")


def test_lightx2v_lora_through_lora_loader_on_tiny_wan(Ops, M, fp8, mod, monkeypatch):
    """The LightX2V layout (lora_down / lora_up / alpha on every block Linear, diff_b on ffn.2, diff on norm3) through
    ComfyUI's LoraLoaderModelOnly node on the FP8 loader's tiny Wan, loaded lowvram: a whole forward with the
    low-rank path equals the same forward with every layer on the dense path (ComfyUI's patched weights), and the
    runtime counters say which path ran."""
    import folder_paths
    import nodes

    from accel_harness.forward import Forward  # noqa: F401  (ComfyUI's model code imported)

    O_report = mod("accel.common.live_report").run_lines
    ldir = folder_paths.get_folder_paths("loras")[0]
    name = "lowrank_lightx2v.safetensors"
    M.save_safetensors(lora_sd(M, rank=4, seed=8, alpha=4.0, bias_diffs=True), f"{ldir}/{name}")
    (p,) = nodes.LoraLoaderModelOnly().load_lora_model_only(fp8.patcher, name, 1.0)
    x = torch.randn(1, 16, 2, 8, 8, generator=torch.Generator().manual_seed(1))
    ctx = M.conditioning(8, seed=1)[0][0]
    rt = fp8.runtime

    def forward(model):
        with Lowvram(model):
            with torch.inference_mode():
                return model.model.apply_model(x, torch.tensor([0.6]), c_crossattn=ctx, transformer_options={}).float()

    nolora = forward(fp8.patcher)
    low = forward(p)
    assert rt.calls["lora_lowrank"] > 0 and rt.calls["lora_dense"] == 0, rt.calls
    line = [ln for ln in O_report(p) if ln.startswith("FP8 LoRA:")]  # the after-run report says which path ran
    assert line == [f"FP8 LoRA: {rt.calls['lora_lowrank']} layer call(s) added the LoRA beside the FP8 weights "
                    "(low-rank), 0 patched the whole weight per call (dense)"], line
    monkeypatch.setattr(Ops, "lowrank_factors", lambda *a, **k: "the test's dense reference")
    dense = forward(p)
    assert rt.calls["lora_dense"] == rt.calls["lora_lowrank"], rt.calls  # every patched layer, once each way
    line = [ln for ln in O_report(p) if ln.startswith("FP8 LoRA:")]  # the dense path's reason is in the report
    assert line and line[0].endswith("per call (dense) (the test's dense reference)"), line
    print(f"\nLightX2V tiny Wan: low-rank vs dense rel {rel(low, dense):.2e}, LoRA effect {rel(dense, nolora):.3f}, "
          f"calls {rt.calls}")
    assert rel(dense, nolora) >= EFFECT_MIN
    assert rel(low, dense) <= MODEL_TOL
