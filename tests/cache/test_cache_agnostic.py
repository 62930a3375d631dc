"""Accel Cache (any model): the coefficient-free step cache (accel/cache/any_model.py) on real ComfyUI sampling
with tiny random models of every family the pack knows (Wan, Flux, Qwen-Image, HunyuanVideo, LTX-Video).

Tiny random models change their transformer residual by 30-150% per step (real ones far less), so "loose"
thresholds here are large. Tolerance for "close to uncached": relative L2 deviation of the output latent < 0.1
at 20 steps (measured 0.02-0.05 with 7-11 of 20 steps skipped).
"""
import copy
import re

import pytest
import torch

STEPS = 20
TOL = 0.1


@pytest.fixture(scope="module")
def agn(mod):
    return mod("accel.cache.any_model")


@pytest.fixture(scope="module")
def rule_mod(mod):
    return mod("accel.cache.any_model_rule")


def _ctx(seed, dim=64, **extra):
    return [[torch.randn(1, 8, dim, generator=torch.Generator().manual_seed(seed)), dict(extra)]]


def _pooled(seed):
    return _ctx(seed, pooled_output=torch.randn(1, 32, generator=torch.Generator().manual_seed(seed + 10)),
                guidance=3.5)


def _family(M, name):
    """(model, positive, negative, latent, cfg, loose threshold) per family."""
    if name == "wan":
        return (M.wan_model("t2v", "tiny", seed=0, dtype=torch.float32), M.conditioning(8, seed=1),
                M.conditioning(8, seed=2), M.wan_latent(5, 32, 32), 3.0, 0.5)
    if name == "flux":
        return M.tiny_flux(), _pooled(1), _pooled(2), {"samples": torch.zeros(1, 16, 8, 8)}, 1.0, 2.0
    if name == "hunyuan_video":
        return M.tiny_hunyuan_video(), _pooled(1), _pooled(2), {"samples": torch.zeros(1, 16, 2, 8, 8)}, 1.0, 2.0
    if name == "qwen_image":
        return M.tiny_qwen_image(), _ctx(1), _ctx(2), {"samples": torch.zeros(1, 16, 1, 8, 8)}, 2.0, 3.0
    if name == "ltxv":
        mask = {"frame_rate": 25, "attention_mask": torch.ones(1, 8, dtype=torch.long)}
        return (M.tiny_ltxv(), _ctx(1, **mask), _ctx(2, **mask), {"samples": torch.zeros(1, 128, 2, 4, 4)}, 2.0,
                0.5)
    raise KeyError(name)


def _rel(a, b):
    return float((a - b).norm() / b.norm())


@pytest.fixture(scope="module")
def wan(M):
    return _family(M, "wan")


def _run(M, model, fam, steps=STEPS, cfg=None):
    _, pos, neg, lat, c, _ = fam
    return M.sample(model, pos, neg, lat, steps=steps, cfg=c if cfg is None else cfg)


def test_rule(rule_mod):
    """Computed without a rate, with non-finite values, or beyond the measured range; skipped under the threshold."""
    assert rule_mod.rule(None, None, None, 0.5)[0] is False
    assert rule_mod.rule(0.1, None, None, 0.5)[:2] == (False, None)
    assert rule_mod.rule(float("nan"), 2.0, 0.1, 0.5)[0] is False
    assert rule_mod.rule(0.1, float("inf"), 0.1, 0.5)[0] is False
    assert rule_mod.rule(0.41, 0.1, 0.1, 0.5) == (False, None, "outside the measured range")  # > 4x the per-step change
    skip, est, _ = rule_mod.rule(0.2, 2.0, 0.1, 0.5)
    assert skip and est == pytest.approx(0.4)
    assert rule_mod.rule(0.3, 2.0, 0.1, 0.5)[0] is False  # estimate 0.6 >= threshold
    assert rule_mod.rule(0.0, 2.0, 0.1, 0.0)[0] is False  # threshold 0: never (0 < 0 is false)


@pytest.mark.parametrize("family", ["wan", "flux", "qwen_image", "hunyuan_video", "ltxv"])
def test_every_family(agn, sc, M, family):
    fam = _family(M, family)
    model, loose = fam[0], fam[5]
    ref = _run(M, model, fam)
    m0, report = agn.configure(model, 0.0, 0.15, 0.95)
    assert torch.equal(_run(M, m0, fam), ref)  # threshold 0: bit-identical
    st0 = sc.last_stats(m0)
    assert (st0.skipped, st0.computed) == (0, STEPS) and "threshold 0: nothing is skipped" in report
    m, report = agn.configure(model, loose, 0.15, 0.95)
    out = _run(M, m, fam)
    st = sc.last_stats(m)
    assert st.skipped > 0 and st.computed + st.skipped == STEPS
    assert st.pattern.startswith("###") and st.pattern.endswith("#")  # first steps (start 15%) and the last
    assert 0 < _rel(out, ref) < TOL, _rel(out, ref)
    text = st.text()
    assert "estimated change of the reused residual on skipped steps: largest" in text
    assert "measured change of the residual after each span of skipped steps" in text
    assert st.measures["est_max"] < loose and st.measures["measured"]


def test_cfg_batched_and_separate(agn, sc, M, wan):
    """cond/uncond in one batch (ComfyUI's default) or in separate model calls: per-chunk state either way."""
    import comfy.patcher_extension as pe

    model = wan[0]
    ref = _run(M, model, wan)
    m, _ = agn.configure(model, 0.5, 0.15, 0.95)
    batched = _run(M, m, wan)
    sb = copy.copy(sc.last_stats(m))

    calls = []

    def split(executor, *args, **kwargs):  # outside our wrapper: each chunk its own diffusion-model call
        to = args[-1]
        cou = to["cond_or_uncond"]
        if len(cou) < 2:
            return executor(*args, **kwargs)
        n = len(cou)
        outs = []
        for i in range(n):
            part = lambda t, i=i: t.chunk(n)[i] if torch.is_tensor(t) and t.shape[0] == n else t  # noqa: E731
            to_i = dict(to, cond_or_uncond=[cou[i]], uuids=[to["uuids"][i]])
            calls.append(cou[i])
            outs.append(executor(*[part(a) for a in args[:-1]], to_i, **{k: part(v) for k, v in kwargs.items()}))
        return torch.cat(outs)

    p = model.clone()
    p.add_wrapper_with_key(pe.WrappersMP.DIFFUSION_MODEL, "test_split", split)
    ms, _ = agn.configure(p, 0.5, 0.15, 0.95)
    separate = _run(M, ms, wan)
    ss = sc.last_stats(ms)
    assert len(calls) == 2 * STEPS and set(calls) == {0, 1}
    assert ss.evaluations == sb.evaluations == STEPS and ss.skipped > 0 and sb.skipped > 0
    assert _rel(separate, ref) < TOL and _rel(batched, ref) < TOL
    # one chunk: cfg 1 drops the uncond
    m1, _ = agn.configure(model, 0.5, 0.15, 0.95)
    ref1 = _run(M, model, wan, cfg=1.0)
    out1 = _run(M, m1, wan, cfg=1.0)
    assert sc.last_stats(m1).skipped > 0 and _rel(out1, ref1) < TOL


@pytest.mark.parametrize("order,scope", [("cache_then_compile", "blocks"), ("compile_then_cache", "blocks"),
                                         ("cache_then_compile", "model")])
def test_under_accel_compile(agn, sc, mod, M, wan, order, scope):
    """Accel Compile (backend eager: dynamo traces, no C compiler needed) on the cached model, in either node order:
    same skip pattern, same output as the uncompiled cached run. Scope 'blocks' (the default) swaps compiled blocks
    in under our block hooks; scope 'model' traces the hooks too (graph breaks at the decision)."""
    import comfy.patcher_extension as pe

    compile_ = mod("accel.compile")
    model = wan[0]
    m, _ = agn.configure(model, 0.5, 0.15, 0.95)
    eager = _run(M, m, wan)
    pattern = sc.last_stats(m).pattern
    if order == "cache_then_compile":
        c, _ = compile_.apply_compile(m, backend="eager", scope=scope)
    else:
        c0, _ = compile_.apply_compile(model, backend="eager", scope=scope)
        c, _ = agn.configure(c0, 0.5, 0.15, 0.95)
    seen = []

    def spy(executor, *args, **kwargs):  # which block objects the forward (and so our hooks) calls
        seen.append({type(b).__name__ for b in executor.class_obj.blocks})
        return executor(*args, **kwargs)

    c.add_wrapper_with_key(pe.WrappersMP.DIFFUSION_MODEL, "test_spy", spy)
    out = _run(M, c, wan)
    st = compile_.compile_status(c)
    assert not st["fell_back"] and st["calls"] > 0 and st["graphs"] > 0, st
    if scope == "blocks":
        assert seen and all(s == {"_Region"} for s in seen)  # the compiled blocks ran under our hooks
    assert sc.last_stats(c).pattern == pattern and "." in pattern
    assert torch.allclose(out, eager, atol=1e-5, rtol=1e-5)


def test_few_step_runs_compute_every_step(agn, sc, M, wan):
    """<= 8 steps (distilled 4/8-step LoRAs): every step computed, and the report says why (the same guard and
    text as Accel TeaCache / MagCache)."""
    m, _ = agn.configure(wan[0], 5.0, 0.0, 1.0)
    ref = _run(M, wan[0], wan, steps=8)
    out = _run(M, m, wan, steps=8)
    st = sc.last_stats(m)
    assert st.skipped == 0 and torch.equal(out, ref)
    assert any("caching cannot help at 8 steps or fewer" in n for n in st.notes)
    _run(M, m, wan, steps=9)
    assert sc.last_stats(m).skipped > 0


def test_inputs_checked_before_running(agn, mod, M, wan):
    err = mod("accel.common.errors").AccelError
    for kwargs, name in (({"threshold": -0.1}, "threshold"), ({"threshold": float("nan")}, "threshold"),
                         ({"start_percent": 0.9, "end_percent": 0.5}, "start_percent"),
                         ({"end_percent": 1.5}, "end_percent")):
        with pytest.raises(err, match=name):
            agn.configure(wan[0], **kwargs)
    sd3 = type("SD3", (), {})()  # a family the cache does not know: refused with the supported list
    sd3.model = type("SD3", (), {"diffusion_model": None})()
    sd3.get_model_object = lambda k: None
    with pytest.raises(err, match="LTX-Video"):
        agn.configure(sd3)


def test_api_prompt(pack, comfy, M):
    """The node through ComfyUI's validate_prompt + PromptExecutor, next to a run without it."""
    from pathlib import Path

    import folder_paths

    from accel_harness.executor import run_prompt

    assert pack.nodes.NODE_DISPLAY_NAME_MAPPINGS["AccelCacheAnyModel"] == "Accel Cache (any model)"
    cls = pack.nodes.NODE_CLASS_MAPPINGS["AccelCacheAnyModel"]
    assert cls.CATEGORY == "accel/cache" and all(s[1].get("tooltip") for s in cls.INPUT_TYPES()["required"].values())
    d = Path(folder_paths.get_folder_paths("diffusion_models")[0])
    M.write_wan(d / "agnostic_wan.safetensors", seed=0, dtype=torch.float32)

    def prompt(thresh):
        p = {
            "1": {"class_type": "UNETLoader", "inputs": {"unet_name": "agnostic_wan.safetensors",
                                                         "weight_dtype": "default"}},
            "2": {"class_type": "AccelRandomConditioning", "inputs": {"seed": 1, "tokens": 8, "dim": 4096,
                                                                      "scale": 1.0}},
            "3": {"class_type": "AccelRandomConditioning", "inputs": {"seed": 2, "tokens": 8, "dim": 4096,
                                                                      "scale": 1.0}},
            "4": {"class_type": "EmptyHunyuanLatentVideo", "inputs": {"width": 64, "height": 64, "length": 1,
                                                                      "batch_size": 1}},
            "5": {"class_type": "AccelCacheAnyModel", "inputs": {"model": ["1", 0], "threshold": thresh,
                                                                 "start_percent": 0.15, "end_percent": 0.95,
                                                                 "cache_device": "CPU"}},
            "6": {"class_type": "KSampler", "inputs": {"model": ["5", 0], "seed": 0, "steps": 12, "cfg": 3.0,
                                                       "sampler_name": "euler", "scheduler": "simple",
                                                       "positive": ["2", 0], "negative": ["3", 0],
                                                       "latent_image": ["4", 0], "denoise": 1.0}},
            "7": {"class_type": "SaveLatent", "inputs": {"samples": ["6", 0], "filename_prefix": "agnostic/out"}},
        }
        return p

    ex, hist = run_prompt(prompt(0.9))
    report = hist["outputs"]["5"]["text"][0]
    assert report.startswith("Accel Cache (any model) on Wan") and "threshold 0.9" in report
    assert "Last run of this node: none yet" in report
    # the node again with other inputs: its report shows the statistics of the run before
    p = prompt(0.85)
    _, hist = run_prompt(p, ex)
    report = hist["outputs"]["5"]["text"][0]
    assert "Last run of this node: Accel Cache (any model) run 1: computed" in report
    assert re.search(r"skipped [1-9]", report) and "measured change of the residual" in report
    with pytest.raises(RuntimeError, match="threshold"):
        run_prompt(prompt(-1.0))


def test_one_device_read_back_per_model_call(agn, sc, M, wan, monkeypatch):
    """The decision reads its measures back from the device once per model call (decide), not again at the end of
    the forward (store keeps the residual change on the device until the next decide: a second sync there left the
    GPU idle between steps, 0.85x on Flux 12B when nothing was skipped); the report still has every measure, and
    the skips are those of reading each measure back at once (same output)."""
    model = wan[0]
    m, _ = agn.configure(model, 0.5, 0.15, 0.95)
    ref = _run(M, m, wan)
    want = copy.copy(sc.last_stats(m))
    reads = []
    real = torch.Tensor.tolist

    def counting(self):
        reads.append(tuple(self.shape))
        return real(self)

    monkeypatch.setattr(torch.Tensor, "tolist", counting)
    m, _ = agn.configure(model, 0.5, 0.15, 0.95)
    out = _run(M, m, wan)
    monkeypatch.undo()
    st = sc.last_stats(m)
    assert torch.equal(out, ref) and st.pattern == want.pattern and st.skipped > 0
    # at most one per model evaluation, plus one at the end of the run for the last computed step's measures
    assert 0 < len(reads) <= st.evaluations + 1, (len(reads), st.evaluations)
    assert st.measures["measured"] == want.measures["measured"] and len(st.measures["measured"]) > 0
