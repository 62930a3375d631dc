"""Accel MiniMax-H3 Level-1 (ComfyUI 0.33+: MiniMax-H3 exists only there) on a tiny random MiniMax-H3 loaded from its
published key layout by ComfyUI's loader: the node's one preset (accel/wan_level1/preset.py with target MINIMAX_H3)
applies attention auto, per-block compile and TF32 to a clone; the video and audio latents land within the exact
path's bounds of stock with every block compiled and every block's attention served by the pack's kernel; the report
names the family, the compile notes of H3 and its fidelity (CPU bounds, the H200 run); its `sparse` quality runs
radial sparse attention on the video with text and audio dense; other families are refused naming the node to use.

Compile runs dynamo's eager backend (as tests/level1/test_wan_classes.py does), so the test takes seconds.
"""

import pytest
import torch

import accel_harness as H

NODE = "AccelMiniMaxH3Level1"
COS_MIN, MAX_ABS = 0.99999, 1e-4


@pytest.fixture
def h3(M):
    why = M.lacks_family("minimax_h3")
    if why:
        pytest.skip(why)
    return M.family_model("minimax_h3")


def run(M, model):
    with torch.inference_mode():
        out = M.sample(model, M.conditioning(8, 64), M.conditioning(8, 64), M.minimax_h3_latent(64, 64, 22), steps=3,
                       cfg=1.0, seed=4, sampler="euler")
    return [t.float().flatten() for t in out.unbind()]


def level1(model, **kw):
    args = dict(attention=True, compile=True, compile_mode="auto", tf32=True, cudnn_benchmark=True,
                on_failure="error")
    args.update(kw)
    out = H.call_node(NODE, model, **args)
    assert out["ui"]["text"][0] == out["result"][1]
    return out["result"]


def test_h3_level1_samples_like_stock_compiled(M, mod, h3, eager_level1, stats):
    want = run(M, h3)
    patched, report = level1(h3)
    # the first screen (what is set to run, the gain, what to change), then the details
    assert report.splitlines()[0].startswith("Accel MiniMax-H3 Level-1: MiniMax-H3 on "), report
    assert "gain: not measured for MiniMax-H3" in report and "Accel MiniMax-H3 Level-1: MiniMax-H3, 2 blocks" in report
    assert "blocks compile twice on the first run" in report and "token refiner runs once per prompt" in report
    assert "tests/common/test_new_families.py" in report and "on an H200 (true config" in report
    assert "family: MiniMax-H3: Accel MiniMax-H3 Level-1 measured on H200" in report
    got = run(M, patched)
    for a, b in zip(want, got, strict=True):  # video, then audio
        cos = float(torch.nn.functional.cosine_similarity(a, b, dim=0))
        assert cos >= COS_MIN and float((a - b).abs().max()) <= MAX_ABS, (cos, float((a - b).abs().max()))
    st = mod("accel.compile").compile_status(patched)
    assert st["calls"] == 3 and st["regions"] == 2 and not st["fell_back"] and st["graph_breaks"] == 0, st
    assert stats[("sdpa", "served")] == 6 and not [k for k in stats if k[1] == "fallback"], stats
    assert h3.model_options.get("transformer_options", {}).get("optimized_attention_override") is None


def test_h3_level1_sparse_quality_runs_radial_on_the_video(M, mod, h3, eager_level1):
    """quality sparse: radial_sparse where it runs (a simulated sm90 with the CPU tensors served here, as the sparse
    backend's tests do); the report says the text and audio before the video stay dense."""
    P = mod("accel.wan_level1.preset")
    hw = mod("accel.common.hardware")
    prof = hw.HardwareProfile(device_kind="cuda", gpu_name="Simulated sm90", sm=(9, 0), torch_version=torch.__version__,
                              cuda_version="13.0", libraries={})
    patched, report = P.apply(h3, P.WanLevel1Options(quality=P.SPARSE), profile=prof, tensor_device_types=("cpu",),
                              target=P.MINIMAX_H3)
    text = report.render()
    assert "MiniMax-H3's joint self-attention" in text and "the audio path is exact" in text, text
    assert "none of the exact path's measured bounds is claimed" in text


def test_h3_sparse_gain_line_quotes_the_kernel_that_runs(M, mod, h3, eager_level1, monkeypatch):
    """On an H200 the first screen quotes the speed-up measured with the sparse kernel the pattern runs: flex_attention
    (what the CPU gives) or FlashAttention-4 where it imports and passes its probe (simulated here)."""
    P, SP, F = mod("accel.wan_level1.preset"), mod("accel.attention.sparse"), mod("accel.common.figures")
    hw = mod("accel.common.hardware")
    prof = hw.HardwareProfile(device_kind="cuda", gpu_name="NVIDIA H200", sm=(9, 0), torch_version=torch.__version__,
                              cuda_version="13.0", libraries={})
    opts = P.WanLevel1Options(quality=P.SPARSE, compile=False)
    for kernel, fid, name in (("flex", "family.h200.minimax_h3_turbo.sparse.speedup", "flex_attention"),
                              ("fa4", "family.h200.minimax_h3_turbo.sparse_fa4.speedup", "FlashAttention-4")):
        if kernel == "fa4":
            monkeypatch.setattr(SP, "pick_kernel", lambda device: ("fa4", ["sparse kernel: FlashAttention-4 (test)"]))
        patched, report = P.apply(h3, opts, profile=prof, tensor_device_types=("cpu",), target=P.MINIMAX_H3)
        assert SP.sparse_kernel(patched) == kernel
        gain = "\n".join(report.summary)
        assert f"gain: {F.text(fid)} vs stock" in gain and f"(not exact; {name})" in gain, gain
    assert SP.sparse_kernel(h3) is None  # the input model: no sparse wrapper


@pytest.mark.parametrize("other", ["wan", "kandinsky5"])
def test_other_families_are_refused_naming_the_node_to_use(M, mod, h3, other):
    model = M.wan_model("t2v") if other == "wan" else M.family_model(other)
    with pytest.raises(mod("accel.common.errors").AccelError) as e:
        level1(model, on_failure="fall back")
    assert e.value.input_name == "model"
    assert ("Accel Wan Level-1" if other == "wan" else "Accel Attention") in str(e.value), str(e.value)


def test_wan_level1_refuses_h3_naming_the_generic_nodes(M, mod, h3):
    with pytest.raises(mod("accel.common.errors").AccelError) as e:
        H.call_node("AccelWanLevel1", h3, attention=True, compile=True, compile_mode="auto", tf32=True,
                    cudnn_benchmark=True, on_failure="error")
    assert "MiniMax-H3" in str(e.value) and e.value.input_name == "model"
