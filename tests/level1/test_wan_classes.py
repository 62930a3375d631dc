"""Every Wan class ComfyUI builds (0.33: supported_models.WAN*, harness models.WAN_CLASSES) through Accel Wan Level-1:
a tiny random file of each variant, loaded by ComfyUI's own loader (load_diffusion_model_state_dict, with the file's
metadata config where the keys alone do not name the variant), is detected as its Wan family and variant, and Level-1
(attention auto, per-block compile, TF32) samples it within the exact path's bounds of stock (the same bounds as
tests/level1/test_level1.py) with every block compiled (no fallback, no graph break; ComfyUI 0.3.75's S2V block queries
free memory inside it, a graph break the report after the run names). The causal autoregressive model
is refused with an AccelError naming what to use instead: sampled block by block by ComfyUI's AR sampler, its blocks
never reach the attention hook and compile again on every call (measured below).

Compile runs dynamo with its "eager" backend (tracing, guards and graph breaks are dynamo's; inductor's C++ compile
per class would take minutes on the CPU); the Level-1 plumbing is the node's own. A ComfyUI without a class (0.3.75
has 8 of the 16) skips that variant, naming the class it lacks.
"""
import json

import pytest
import torch

import accel_harness as H

COS_MIN, MAX_ABS = 0.99999, 1e-4  # tests/level1/test_level1.py's bounds (the exact path, fp32 on the CPU)
NAMES = {"t2v": "T2V", "i2v": "I2V", "fun_control": "I2V", "camera": "Camera", "camera_2.2": "Camera", "vace": "VACE",
         "humo": "HuMo", "s2v": "S2V", "animate": "Animate", "animate2": "Animate 2", "ti2v": "TI2V",
         "flowrvs": "FlowRVS", "scail": "SCAIL", "scail2": "SCAIL 2", "wandancer": "WanDancer",
         "causal_ar": "causal AR"}


def _model(M, variant):
    import comfy.model_base

    cls = M.WAN_CLASSES[variant][0]
    if not hasattr(comfy.model_base, cls):
        pytest.skip(f"this ComfyUI ({H.comfy_version()}) lacks the Wan class {cls} (comfy.model_base.{cls})")
    return M.wan_class_model(variant)


def _sample(M, model, variant):
    ch = 48 if variant == "ti2v" else 16
    with torch.inference_mode():
        return M.sample(model, M.conditioning(8), M.conditioning(8, seed=1), M.wan_latent(5, 16, 16, channels=ch),
                        steps=2, cfg=2.0, seed=7).float().flatten()


@pytest.mark.parametrize("variant", [v for v in NAMES if v != "causal_ar"])
def test_every_wan_class_reaches_level1(M, mod, eager_level1, variant):
    model = _model(M, variant)
    fam = mod("accel.common.families").detect(model)
    assert fam.is_wan and fam.name.split(" dim")[0].endswith(NAMES[variant]), fam.name
    out = H.call_node("AccelWanLevel1", model, attention=True, compile=True, compile_mode="auto", tf32=True,
                      cudnn_benchmark=True, on_failure="error")
    patched, report = out["result"]
    assert fam.name in report and "compile" in report
    a, b = _sample(M, model, variant), _sample(M, patched, variant)
    cos = float(torch.nn.functional.cosine_similarity(a, b, dim=0))
    assert cos >= COS_MIN and float((a - b).abs().max()) <= MAX_ABS, (variant, cos, float((a - b).abs().max()))
    st = mod("accel.compile").compile_status(patched)
    assert st["calls"] >= 2 and not st["fell_back"], st
    if st["graph_breaks"]:  # ComfyUI 0.3.75's S2V block asks psutil for free memory inside it (`open`): said after the
                            # run
        assert variant == "s2v" and "builtin operator" in st["break_reason"], st
        run_lines = mod("accel.common.live_report").run_lines(patched)
        assert any("graph break(s) inside the blocks" in line for line in run_lines)
    assert st["regions"] == len(fam.block_keys) > 0


def test_causal_ar_wan_is_refused_naming_what_to_use(M, mod):
    model = _model(M, "causal_ar")
    AccelError = mod("accel.common.errors").AccelError
    with pytest.raises(AccelError) as e:
        H.call_node("AccelWanLevel1", model, attention=True, compile=True, compile_mode="auto", tf32=True,
                    cudnn_benchmark=True, on_failure="fall back")
    assert e.value.input_name == "model"
    text = str(e.value)
    assert "causal autoregressive" in text and "without Level-1" in text and "Accel CUDA Settings" in text, text


def test_causal_ar_sampler_bypasses_the_hook_and_recompiles(M, mod, stats):
    """What the refusal says, measured: under ComfyUI's AR sampler (4 latent frames, one per block, 3 steps) no
    attention call reaches the override, and the compiled blocks compile a new graph on most calls (per-call KV cache
    fill levels); the result is still stock's (dynamo's eager backend)."""
    import comfy.sample
    import comfy.samplers
    from comfy.k_diffusion import sampling as ks

    model = _model(M, "causal_ar")
    A, C = mod("accel.attention.override"), mod("accel.compile")
    sampler = comfy.samplers.KSAMPLER(ks.sample_ar_video, extra_options={"num_frame_per_block": 1})

    def run(m):
        lat = torch.zeros(1, 16, 4, 4, 4)
        noise = torch.randn(lat.shape, generator=torch.Generator().manual_seed(0))
        return comfy.sample.sample_custom(m, noise, 1.0, sampler, torch.tensor([1.0, 0.7, 0.4, 0.0]),
                                          M.conditioning(8), M.conditioning(8), lat, seed=0)

    want = run(model)
    patched, _ = A.apply_attention(model, "sdpa")
    patched, _ = C.apply_compile(patched, backend="eager")
    got = run(patched)
    st = C.compile_status(patched)
    assert not any(k[1] == "served" for k in stats), stats
    assert st["calls"] == 16 and st["graphs"] >= st["calls"] // 2, st
    assert torch.allclose(got, want, atol=1e-5)


def test_wan_class_files_carry_their_metadata_only_where_detection_needs_it(M):
    """The random files are in the published layout: only the variants ComfyUI tells apart by the file's metadata
    config (Animate 2, FlowRVS, the causal model) carry one."""
    with_meta = {v for v, (_, _, meta) in M.WAN_CLASSES.items() if meta}
    assert with_meta == {"animate2", "flowrvs", "causal_ar"}
    assert all(json.dumps({"transformer": M.WAN_CLASSES[v][2]}) for v in with_meta)
