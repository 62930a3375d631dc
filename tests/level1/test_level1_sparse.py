"""Accel Wan Level-1's sparse quality (`sparse (radial, opt-in)`, issue #32) in a real ComfyUI on tiny Wan models
(CPU).

1. On this CPU radial_sparse cannot run (it needs CUDA): through the node, on_failure 'fall back' keeps the exact path
   (`auto`, as quality exact) with a report line saying why, and the fidelity line is the exact path's; 'error' raises
   an AccelError naming `quality`. core's BlockSparseAttention on the model: the same two outcomes.
2. The sparse path itself, with the hooks tests/attention/test_sparse_backend.py uses (a simulated sm90 profile and
   tensor_device_types ("cpu",)), on the tiny Wan of that test (4 blocks, 2 heads of 64, a 6 x 8 x 16 token grid): on
   a sparse step the Level-1 forward equals the reference that runs the dense masked float32 reference in blocks 1
   and 2 and exact attention elsewhere, within that test's tolerance (max|diff| <= 1e-4 x max|ref|); the report has
   the attention section's sparse lines (pattern, schedule, "visual quality is not measured here"), a fidelity line
   that claims none of the exact path's bounds, and after the run the measured sparse lines.
3. The default stays exact: no quality input gives the report of quality 'exact'; an old API prompt without the input
   validates, and the new value validates.
"""
import pytest
import torch

import accel_harness as H

NODE = "AccelWanLevel1"
TOL = 1e-4  # tests/attention/test_sparse_backend.py's TOL
GRID = (6, 8, 16)
SIGMAS = [1.0, 0.7, 0.4, 0.0]  # 3 steps: dense_steps -1 (default) -> 1 dense step (step 0)


@pytest.fixture(scope="module")
def L(mod):
    return mod("accel.wan_level1.preset")


def node(M, model=None, **kw):
    args = dict(attention=True, compile=False, compile_mode="auto", tf32=False, cudnn_benchmark=False,
                on_failure="fall back")
    args.update(kw)
    out = H.call_node(NODE, model if model is not None else M.wan_model("t2v", "tiny"), **args)
    assert out["ui"]["text"][0] == out["result"][1]
    return out["result"]


def override_of(m):
    return m.model_options.get("transformer_options", {}).get("optimized_attention_override")


def sim_profile(mod):
    hw = mod("accel.common.hardware")
    return hw.HardwareProfile(device_kind="cuda", gpu_name="Simulated sm90", sm=(9, 0), torch_version=torch.__version__,
                              cuda_version="13.0", libraries={})


def tiny_wan(M):
    """tests/attention/test_sparse_backend.py's tiny Wan 2.1 (a 6 x 16 x 32 latent -> a 6 x 8 x 16 token grid)."""
    cfg = {"image_model": "wan2.1", "model_type": "t2v", "patch_size": (1, 2, 2), "in_dim": 16, "dim": 128,
           "ffn_dim": 256, "freq_dim": 256, "out_dim": 16, "num_heads": 2, "num_layers": 4,
           "window_size": (-1, -1), "qk_norm": True, "cross_attn_norm": True, "eps": 1e-6}
    m = M.tiny_model_from_config(cfg, dtype=torch.float32)
    m.model.diffusion_model.patch_embedding.float()
    return m


def with_core_bsa(mod, model):
    """core's BlockSparseAttention as accel.comfy_compat detects it at patch time: its ON_PREPARE_STATE callback key."""
    import comfy.patcher_extension as pe

    m = model.clone()
    m.add_callback_with_key(pe.CallbacksMP.ON_PREPARE_STATE, mod("accel.comfy_compat").BSA_CALLBACK_KEY,
                            lambda *a, **k: None)
    return m


def forward(patcher, x, ctx, sigma):
    from accel_harness.forward import Forward

    with torch.inference_mode(), Forward(patcher, sample_sigmas=SIGMAS) as f:
        return f(x, sigma, ctx).float()


def reference_override(mod, sparse_blocks, decay=0.2):
    """Per model call, video self-attention calls counted: those in `sparse_blocks` run the dense masked fp32
    reference of the radial pattern, every other call exact SDPA (as tests/attention/test_sparse_backend.py)."""
    P, ref = mod("kernels.attention.sparse.pattern"), mod("kernels.attention.sparse.ops").reference_attention
    pat = P.RadialPattern(P.VideoGrid(*GRID), decay)
    count = {"i": 0, "sparse": 0}

    def override(func, q, k, v, heads, **kw):
        b, lq, hd = q.shape
        qh, kh, vh = (t.reshape(b, t.shape[1], heads, hd // heads).transpose(1, 2) for t in (q, k, v))
        if lq == k.shape[1] == pat.tokens:
            i = count["i"]
            count["i"] += 1
            if i in sparse_blocks:
                count["sparse"] += 1
                return ref(qh, kh, vh, pat).transpose(1, 2).reshape(b, lq, hd)
        return torch.nn.functional.scaled_dot_product_attention(qh, kh, vh).transpose(1, 2).reshape(b, lq, hd)

    return override, count


def close(a, b, tol=TOL):
    err, scale = float((a - b).abs().max()), float(b.abs().max()) or 1.0
    return err <= tol * scale, f"max|diff| {err:.3g} vs tol {tol} * {scale:.3g}"


# --- 1. where radial_sparse cannot run --------------------------------------------------------------------------------

def test_sparse_quality_falls_back_on_cpu_per_on_failure(pack, mod, M, L, AccelError):
    m, text = node(M, quality=L.SPARSE)
    assert override_of(m).backend == "sdpa" and not override_of(m).kernel.sparse  # auto's exact pick here
    assert "quality sparse: stayed exact, because radial_sparse: radial_sparse does not run on cpu" in text, text
    # otherwise the report of quality exact, its fidelity line included: exact is what ran
    assert [ln for ln in text.splitlines() if "quality sparse" not in ln] == node(M)[1].splitlines()
    with pytest.raises(AccelError) as e:
        node(M, quality=L.SPARSE, on_failure="error")
    msg = str(e.value)
    assert msg.startswith("[Accel Wan Level-1] input 'quality':") and "does not run on cpu" in msg, msg
    assert "Set quality to 'exact', or on_failure to 'fall back'" in msg


def test_sparse_quality_with_core_block_sparse_attention(pack, mod, M, L, AccelError):
    prof = sim_profile(mod)
    opts = L.WanLevel1Options(compile=False, tf32=False, cudnn_benchmark=False, quality=L.SPARSE)
    bsa = with_core_bsa(mod, tiny_wan(M))
    m, rep = L.apply(bsa, opts, profile=prof, tensor_device_types=("cpu",))
    text = rep.render()
    assert "radial_sparse stood down: core's Model Sparse Attention (BlockSparseAttention) is on this model" in text
    assert "quality sparse: stayed exact, because core's Model Sparse Attention" in text, text
    assert not override_of(m).kernel.sparse and rep.deviation.startswith("fidelity: not bit-identical")
    with pytest.raises(AccelError) as e:
        L.apply(bsa, L.WanLevel1Options(compile=False, quality=L.SPARSE, policy="error"), profile=prof,
                tensor_device_types=("cpu",))
    assert "input 'quality'" in str(e.value) and "Remove core's Model Sparse Attention" in str(e.value)


def test_no_sparse_kernel_with_error_names_quality(pack, mod, M, L, AccelError, monkeypatch):
    """No sparse kernel runs here (flex_attention missing or failing its probe on a GPU: simulated by making
    accel.attention.sparse.pick_kernel fail as it does then): 'error' names quality, 'fall back' stays exact."""
    SP = mod("accel.attention.sparse")

    def no_kernel(device):
        raise RuntimeError("flex_attention: probe failed: simulated")

    monkeypatch.setattr(SP, "pick_kernel", no_kernel)
    prof = sim_profile(mod)
    with pytest.raises(AccelError) as e:
        L.apply(tiny_wan(M), L.WanLevel1Options(compile=False, quality=L.SPARSE, policy="error"), profile=prof,
                tensor_device_types=("cpu",))
    assert "input 'quality'" in str(e.value) and "flex_attention: probe failed" in str(e.value), str(e.value)
    m, rep = L.apply(tiny_wan(M), L.WanLevel1Options(compile=False, quality=L.SPARSE), profile=prof,
                     tensor_device_types=("cpu",))
    assert not override_of(m).kernel.sparse and "quality sparse: stayed exact" in rep.render()
    assert SP.sparse_kernel(m) is None  # no sparse wrapper: the gain line quotes no sparse kernel's figure


# --- 2. the sparse path ---------------------------------------------------------------------------------------------

def test_sparse_quality_runs_radial_sparse_equal_to_the_masked_reference(pack, mod, M, L, stats):
    AO, SP, LR = mod("accel.attention.options"), mod("accel.attention.sparse"), mod("accel.common.live_report")
    opts = L.WanLevel1Options(compile=False, tf32=False, cudnn_benchmark=False, quality=L.SPARSE)
    assert opts.attention_options() == AO.AttentionOptions("radial_sparse", "fall back", False, quality="sparse",
                                                           sparse=SP.settings_from_inputs())
    model = tiny_wan(M)
    m, rep = L.apply(model, opts, profile=sim_profile(mod), tensor_device_types=("cpu",))
    text = rep.render()
    att = [s for s in rep.sections if s.title == "attention"][0]
    assert att.text.startswith("radial_sparse on Simulated sm90"), text
    lines = "\n".join(att.lines)
    assert "sparse pattern: radial attention" in lines and "decay_factor 0.2" in lines
    assert "first quarter" in lines and "the first 1 and last 1 transformer block(s)" in lines
    assert "visual quality is not measured here" in lines
    # the fidelity line claims none of the exact path's bounds and says what is measured
    assert rep.deviation.startswith(f"fidelity: quality {L.SPARSE} is not the exact path: none of"), rep.deviation
    assert L.FIDELITY["cpu_tiny_fp32"] not in text and L.FIDELITY["gpu"] not in text
    for said in ("dense masked reference", "attention mass it keeps", "means little for sparse attention",
                 "visual quality is not measured here"):
        assert said in rep.deviation, said
    assert text.endswith(rep.deviation)
    assert [s.title for s in rep.sections][-2:] == ["not touched", None]
    assert L.WanLevel1Options().attention_options() == AO.AttentionOptions()  # exact stays as it was

    # a sparse step (step 1 of 3): blocks 1 and 2 sparse, blocks 0 and 3 and cross-attention exact
    g = torch.Generator().manual_seed(0)
    x, ctx = torch.randn(1, 16, GRID[0], 2 * GRID[1], 2 * GRID[2], generator=g), torch.randn(1, 8, 4096, generator=g)
    out = forward(m, x, ctx, 0.7)
    ref_ov, count = reference_override(mod, sparse_blocks={1, 2})
    ref_model = model.clone()
    ref_model.model_options.setdefault("transformer_options", {})["optimized_attention_override"] = ref_ov
    want = forward(ref_model, x, ctx, 0.7)
    assert count["sparse"] == 2
    ok, msg = close(out, want)
    assert ok, msg
    assert not close(out, forward(model, x, ctx, 0.7), 1e-3)[0], "the pattern dropped nothing"
    # a dense step (step 0): stock attention
    ok, msg = close(forward(m, x, ctx, 1.0), forward(model, x, ctx, 1.0))
    assert ok, msg
    after = LR.run_lines(m)  # what Level-1's live report shows after a run
    assert after and after[0].startswith("radial_sparse: 2 of 16 attention calls ran the sparse pattern"), after
    assert any("sparsity" in ln and "kept attention mass" in ln for ln in after), after


# --- 3. the default stays exact -------------------------------------------------------------------------------------

def test_default_stays_exact_and_old_prompts_validate(pack, mod, M, L, comfy):
    from pathlib import Path

    import folder_paths

    from accel_harness.executor import run_prompt, validate

    m, text = node(M)
    assert text == node(M, quality="exact")[1] and "sparse" not in text
    plain = L.apply_level1(M.wan_model("t2v", "tiny"), compile=False, tf32=False, cudnn_benchmark=False)[1]
    # the node's title on the headlines (the first screen's and the details'), nothing else differs
    assert [ln.removeprefix("Accel Wan Level-1: ") for ln in text.splitlines()] == plain.splitlines()
    assert not override_of(m).kernel.sparse
    with pytest.raises(mod("accel.common.errors").AccelError) as e:
        L.WanLevel1Options(quality="sparse")
    assert "input 'quality'" in str(e.value) and L.SPARSE in str(e.value)

    d = Path(folder_paths.get_folder_paths("diffusion_models")[0])
    M.write_wan(d / "level1_sparse_wan.safetensors", seed=0, dtype=torch.float32)
    p = {
        "1": {"class_type": "UNETLoader", "inputs": {"unet_name": "level1_sparse_wan.safetensors",
                                                     "weight_dtype": "default"}},
        "5": {"class_type": NODE, "inputs": {"model": ["1", 0], "attention": True, "compile": False,
                                             "compile_mode": "auto", "tf32": False, "cudnn_benchmark": False,
                                             "on_failure": "fall back"}},
        "6": {"class_type": "PreviewAny", "inputs": {"source": ["5", 1]}},
    }
    ok, error, _, node_errors = validate(p)
    assert ok, (error, node_errors)
    p["5"]["inputs"]["quality"] = L.SPARSE
    ok, error, _, node_errors = validate(p)
    assert ok, (error, node_errors)
    _, hist = run_prompt(p)  # runs on the CPU: the exact path with the report line
    assert "quality sparse: stayed exact" in str(hist), str(hist)[:2000]
