"""The FP8 loader's measured `auto` (issue #30): per model family and GPU class, a 16-bit file stays 16-bit where the
FP8 path measured slower, unless its weights would not fit the card; everything else is quantized. Today's table
(accel.common.defaults.FP8_AUTO_MEASURED) has FP8 faster for every measured family on Hopper, from runs of three
interleaved timed runs per chain on an H200 the run had to itself; the 16-bit path is tested with an entry that says
so (`keep_flux`, the H100 run where FP8 measured slower). The table is checked against the result files its figures
come from (figures, runs, how they were timed), so it cannot drift from the measurements.

The models are real ComfyUI models at tiny configs, read from files by the loader: a Flux.1 file in the key layout
ComfyUI's detection reads back (24 heads, as detection fixes them for Flux.1), and the tiny Wan 2.1 of the other FP8
tests. The GPU is simulated with a hand-built HardwareProfile (ComfyUI runs on the CPU here): its VRAM stands for
the free VRAM of the card.
"""
import json
from pathlib import Path

import pytest
import torch

ROOT = Path(__file__).resolve().parents[2]
E4M3 = torch.float8_e4m3fn
GIB = 2**30
REMEDY = "choose a weight_format to quantize anyway (half the weight memory)"


def _profile(mod, sm=(9, 0), vram=80 * GIB):
    hw = mod("accel.common.hardware")
    return hw.HardwareProfile("cuda", "test GPU", sm, vram_bytes=vram, torch_version="2.11.0", triton_version="3.6.0")


TINY = {"hidden_size": 128, "num_heads": 2, "axes_dim": [8, 28, 28], "context_in_dim": 64, "vec_in_dim": 32,
        "depth": 1, "depth_single_blocks": 1}


@pytest.fixture(scope="module")
def flux_file(M, ddir):
    """A bf16 Flux.1 file: the published config's detected unet_config with 2 heads of 64, hidden size 128, one
    double and one single block. ComfyUI's detection reads hidden size, context and vector dims and block counts
    from the tensors but fixes Flux.1's 24 heads of 128 (and the rotary axes to match): while these tests run,
    detection is told the tiny head layout, and nothing else (`tiny_heads`)."""
    cfg = dict(M.true_unet_config("flux"), **TINY)
    sd = M.true_state_dict("flux", seed=0, dtype=torch.bfloat16, unet_config=cfg)
    return M.save_safetensors(sd, ddir / "auto_flux_bf16.safetensors")


@pytest.fixture(scope="module")
def hv_file(M, ddir):
    """A bf16 HunyuanVideo file at the published config's layout with hidden size 256 (ComfyUI's detection reads
    2 heads of 128 from it, the rotary axes 16/56/56 fit), one double and one single block."""
    cfg = dict(M.true_unet_config("hunyuan_video"), hidden_size=256, num_heads=2, depth=1, depth_single_blocks=1)
    sd = M.true_state_dict("hunyuan_video", seed=0, dtype=torch.bfloat16, unet_config=cfg)
    return M.save_safetensors(sd, ddir / "auto_hunyuan_video_bf16.safetensors")


@pytest.fixture(autouse=True)
def tiny_heads(monkeypatch):
    import comfy.model_detection as md

    detect = md.detect_unet_config

    def tiny(*args, **kwargs):
        cfg = detect(*args, **kwargs)
        if cfg and cfg.get("image_model") == "flux" and cfg.get("hidden_size") == TINY["hidden_size"]:
            cfg.update(num_heads=TINY["num_heads"], axes_dim=list(TINY["axes_dim"]))
        return cfg

    monkeypatch.setattr(md, "detect_unet_config", tiny)


@pytest.fixture(scope="module")
def wan_file(M, ddir, bf16_sd):
    return M.save_safetensors(dict(bf16_sd), ddir / "auto_wan_bf16.safetensors")


def _measured(mod):
    return mod("accel.common.defaults").FP8_AUTO_MEASURED[("flux", "Hopper (sm90)")]


@pytest.fixture
def keep_flux(mod, monkeypatch):
    """Flux on Hopper as an entry that keeps 16-bit: the H100 run where the FP8 chain measured slower (two timed runs,
    each chain on its own: no longer what decides the table, still a real measurement to cite)."""
    D = mod("accel.common.defaults")
    entry = D.FP8Measured(True, "family.h100.flux.run2.fp8_shipped.speedup", "family.h100.flux.run2.shipped.speedup",
                          "Accel CUDA Settings -> Attention -> Compile", "Flux.1-dev 1024px 20 steps on an H100", 2,
                          False)
    monkeypatch.setitem(D.FP8_AUTO_MEASURED, ("flux", "Hopper (sm90)"), entry)
    return entry


def _names_the_figures(mod, report):
    figures = mod("accel.common.figures")
    entry = _measured(mod)
    for fid in (entry.fp8, entry.exact):
        assert figures.text(fid) in report, (fid, report)
    assert entry.file in report


# --- the table against its result files -----------------------------------------------------------------------------

def _file_value(figure):
    kind, _, where = figure.src.partition(":")
    assert kind == "json", f"{figure.id}: the FP8 auto table reads json figures ({figure.src})"
    value = json.loads((ROOT / "bench" / "results" / figure.file).read_text())
    for key in where.split("/"):
        value = value[int(key)] if isinstance(value, list) else value[key]
    return float(value)


def _measured_pairs(mod, table: dict, first: str, second: str):
    """(family, entry, first value, second value) of each entry of a measured `auto` table: keys name a defaults row
    and a known family; the entry's two figures (attributes `first`, `second`) come from one run (one file) and are
    what that file holds."""
    D, figures, families = mod("accel.common.defaults"), mod("accel.common.figures"), mod("accel.common.families")
    rows = {r.name for r in D.ROWS}
    assert table
    for (family, row), entry in table.items():
        assert row in rows, (family, row)
        assert families.family_name(family) != family, f"unknown family key {family!r}"
        a, b = figures.fig(getattr(entry, first)), figures.fig(getattr(entry, second))
        assert a.file == b.file, (family, row, a.file, b.file)
        va, vb = _file_value(a), _file_value(b)
        assert (va, vb) == (a.value, b.value)
        yield family, entry, va, vb


def test_each_entry_is_what_its_result_file_shows(mod):
    """keep_16bit exactly where the FP8 chain's speed-up over stock, read from the result file, is below the same
    chain's on 16-bit weights; both figures from one run (one file); keys name a defaults row and a known family; a
    family kept 16-bit is recognisable from ComfyUI's config before the model is built."""
    D, families = mod("accel.common.defaults"), mod("accel.common.families")
    for family, entry, v_fp8, v_exact in _measured_pairs(mod, D.FP8_AUTO_MEASURED, "fp8", "exact"):
        assert entry.keep_16bit == (v_fp8 < v_exact), (family, v_fp8, v_exact)
        if entry.keep_16bit:  # one of this ComfyUI's model configs names the family before the model is built
            import comfy.supported_models as sm
            named = {families.family_of_config(cls.__new__(cls)) for cls in sm.models}
            assert family in named, family


# Entries that rest on fewer than three interleaved timed runs per chain on a GPU the run had to itself, each until a
# run of three replaces it (the rule: accel/common/defaults.py, above FP8_AUTO_MEASURED)
FEWER_THAN_THREE: set = set()


def _run_of(figure):
    """(timed runs per chain, interleaved, shared host) of the run a figure's file holds."""
    res = json.loads((ROOT / "bench" / "results" / figure.file).read_text())
    chain = figure.src.split("/")[1]
    meta = res["run_meta"]
    return (len(res["chains"][chain]["times_s"]), "--sequential" not in meta["command"],
            str(meta.get("shared_host", "")).startswith("list"))


@pytest.mark.parametrize("table,first,second", [("FP8_AUTO_MEASURED", "fp8", "exact"),
                                                ("FP8_STORED_MEASURED", "ours", "comfy")])
def test_each_entry_says_how_many_runs_it_rests_on(mod, table, first, second):
    """The runs and timing an entry states (and its reports quote) are its file's: timed runs per chain for both
    chains, interleaved or each chain on its own, no shared host. Three interleaved runs or more per entry, except
    the entries named in FEWER_THAN_THREE (an entry added on less, or one whose better run landed, fails here)."""
    D, figures = mod("accel.common.defaults"), mod("accel.common.figures")
    weak = set()
    for (family, _row), entry in getattr(D, table).items():
        for fid in (getattr(entry, first), getattr(entry, second)):
            runs, interleaved, shared = _run_of(figures.fig(fid))
            assert (runs, interleaved) == (entry.runs, entry.interleaved), (family, fid, runs, interleaved)
            assert not shared, (family, fid, "a shared host decides no entry")
        if entry.runs < 3 or not entry.interleaved:
            weak.add((table, family))
    assert weak == {w for w in FEWER_THAN_THREE if w[0] == table}


# --- the loader ------------------------------------------------------------------------------------------------------

def test_a_family_measured_slower_in_fp8_stays_16bit_as_comfyui_loads_it(F, M, mod, flux_file, keep_flux):
    res = F.load_file(str(flux_file), profile=_profile(mod))
    assert res.auto_16bit and res.compute == "16-bit" and res.stats.formats == {}
    assert res.family.family == "flux"
    stock = M.load_diffusion_model(flux_file).model.diffusion_model
    dm = res.patcher.model.diffusion_model
    ours = dict(dm.named_modules())
    linears = [(n, m) for n, m in stock.named_modules() if isinstance(m, torch.nn.Linear)]
    assert linears
    for name, m in linears:  # ComfyUI's own layer classes and weights: nothing of the FP8 loader in the model
        assert type(ours[name]) is type(m) and not F.is_accel_linear(ours[name]), name
        assert ours[name].weight.dtype == m.weight.dtype and torch.equal(ours[name].weight, m.weight), name
    assert res.patcher.model.get_dtype() == M.load_diffusion_model(flux_file).model.get_dtype()
    line = next(x for x in res.report.splitlines() if "weight_format: auto" in x)
    assert "kept 16-bit" in line and "FP8 path measured slower than 16-bit for Flux.1" in line and REMEDY in line
    _names_the_figures(mod, line)
    init = getattr(res.patcher, "cached_patcher_init", None)  # ComfyUI 0.33: a reload keeps the decision
    assert init is None or init[1][1]["auto_16bit"] is True, init


def test_hunyuan_video_on_hopper_is_quantized_citing_its_run(F, mod, hv_file):
    """HunyuanVideo's entry (FP8 faster in three interleaved runs on an H200): a 16-bit file is quantized, recognised
    as HunyuanVideo, and the report cites the entry's figures and runs."""
    res = F.load_file(str(hv_file), profile=_profile(mod))
    assert not res.auto_16bit and res.stats.quantized > 0
    assert res.family.family == "hunyuan_video"
    line = next(x for x in res.report.splitlines() if x.strip().startswith("auto:"))
    assert "FP8 measured faster than 16-bit for HunyuanVideo" in line
    assert "the median of 3 timed runs each, interleaved" in line
    entry = mod("accel.common.defaults").FP8_AUTO_MEASURED[("hunyuan_video", "Hopper (sm90)")]
    figures = mod("accel.common.figures")
    for fid in (entry.fp8, entry.exact):
        assert figures.text(fid) in line, fid


@pytest.mark.parametrize("choice", [{"weight_format": "fp8_e4m3fn per-channel scaled"}, {"compute": "fp8 matmul"},
                                    {"compute": "dequantize (bf16/fp16 matmul)"}])
def test_an_explicit_choice_quantizes(F, mod, flux_file, keep_flux, choice):
    res = F.load_file(str(flux_file), profile=_profile(mod), **choice)
    assert not res.auto_16bit and res.stats.quantized > 0
    assert res.stats.formats == {"e4m3fn per-channel": res.stats.quantized}
    line = next(x for x in res.report.splitlines() if "quantized as chosen" in x)
    assert next(iter(choice.values())) in line
    _names_the_figures(mod, line)


def test_flux_that_does_not_fit_is_quantized_and_says_why(F, mod, flux_file, keep_flux):
    res = F.load_file(str(flux_file), profile=_profile(mod, vram=2**20))  # a card with 1 MiB free
    assert not res.auto_16bit and res.stats.quantized > 0
    line = next(x for x in res.report.splitlines() if x.strip().startswith("auto:"))
    assert "quantized to FP8 although" in line and "exceed the free VRAM (1.0 MiB)" in line
    assert "streaming 16-bit weights from RAM was not measured" in line
    _names_the_figures(mod, line)


def test_wan_on_hopper_quantizes_as_before(F, mod, wan_file, bf16_sd):
    res = F.load_file(str(wan_file), profile=_profile(mod))
    n = sum(1 for k, v in bf16_sd.items() if k.startswith("blocks.") and k.endswith(".weight") and v.ndim == 2)
    assert not res.auto_16bit and res.compute == "scaled_mm_rowwise" and res.stats.quantized == n
    figures = mod("accel.common.figures")
    line = next(x for x in res.report.splitlines() if x.strip().startswith("auto:"))
    assert "FP8 measured faster than 16-bit for Wan 2.1" in line
    for fid in ("fp8auto.h200.wan21.fp8_level1.speedup", "fp8auto.h200.wan21.level1.speedup"):
        assert figures.text(fid) in line
    assert "bench/results/h200/fp8_auto_033_interleaved/wan14/matrix.json" in line


def test_not_measured_family_or_gpu_quantizes_and_says_so(F, mod, flux_file):
    res = F.load_file(str(flux_file), profile=_profile(mod, sm=(8, 9)))  # Ada: nothing measured there
    assert not res.auto_16bit and res.stats.quantized > 0
    assert "whether FP8 or 16-bit is faster is not measured for Flux.1 on Ada" in res.report


def test_z_image_is_named_and_measured(F, mod):
    """Z-Image (its own family since ComfyUI builds it as a Lumina 2 model): FP8 measured faster on Hopper, so `auto`
    quantizes and says so by its name, with the run; on a GPU class not measured it says that instead."""
    plan = mod("accel.fp8.plan")
    auto = plan.resolve_auto_format("z_image", _profile(mod), F.FORMAT_AUTO, F.COMPUTE_AUTO, False, GIB, GIB, 80 * GIB)
    assert not auto.keep_16bit and "FP8 measured faster than 16-bit for Z-Image on Hopper (sm90)" in auto.note
    assert "bench/results/h200/fp8_auto_033_interleaved/zimage/matrix.json" in auto.note
    auto = plan.resolve_auto_format("z_image", _profile(mod, sm=(8, 9)), F.FORMAT_AUTO, F.COMPUTE_AUTO, False, GIB,
                                    GIB, 80 * GIB)
    assert not auto.keep_16bit and "not measured for Z-Image on Ada" in auto.note


def test_a_file_stored_in_fp8_is_left_as_stored(F, M, mod, flux_file, ddir):
    from safetensors.torch import load_file

    sd = load_file(str(flux_file))
    for k in [k for k, v in sd.items() if k.startswith(("double_blocks.", "single_blocks.")) and k.endswith(".weight")
              and v.ndim == 2]:
        scale = sd[k].abs().amax().float() / 448
        sd[k] = (sd[k].float() / scale).to(E4M3)
        sd[k[: -len("weight")] + "scale_weight"] = scale.reshape(())
    sd["scaled_fp8"] = torch.empty((0,), dtype=E4M3)
    p = M.save_safetensors(sd, ddir / "auto_flux_scaled_fp8.safetensors")
    res = F.load_file(str(p), profile=_profile(mod))
    assert not res.auto_16bit and res.stats.kept_fp8 > 0 and res.stats.quantized == 0
    assert "auto:" not in res.report


# --- files stored in ComfyUI's own FP8 layout (accel.common.defaults.FP8_STORED_MEASURED) ----------------------------

def _stored_entry(mod):
    return mod("accel.common.defaults").FP8_STORED_MEASURED[("wan21", "Hopper (sm90)")]


def test_each_stored_entry_is_what_its_result_file_shows(mod):
    """comfy_layers exactly where the chain's speed-up over stock on ComfyUI's own FP8 layers, read from the result
    file, is above the same chain's after the FP8 loader's layers; both from one run (one file); the family is one
    that ComfyUI's detected config names before the model is built."""
    D, families = mod("accel.common.defaults"), mod("accel.common.families")
    for family, entry, v_ours, v_comfy in _measured_pairs(mod, D.FP8_STORED_MEASURED, "ours", "comfy"):
        assert family in set(families._CONFIG_FAMILIES.values()) | set(families._IMAGE_MODEL_FAMILIES.values())
        assert entry.comfy_layers == (v_ours < v_comfy), (family, v_ours, v_comfy)
    assert _stored_entry(mod).comfy_layers  # today's measurement: Wan A14B + LoRA on Hopper


@pytest.fixture(scope="module")
def wan_scaled_file(M, ddir, bf16_sd):
    """The tiny Wan 2.1 in ComfyUI's scaled-fp8 layout (`scaled_fp8` marker + per-tensor `scale_weight`), as the
    `*_fp8_scaled` files Comfy-Org publishes store it."""
    return M.save_safetensors(M.comfy_scaled_fp8(dict(bf16_sd)), ddir / "auto_wan_fp8_scaled.safetensors")


def _n_fp8(path):
    from safetensors.torch import load_file

    return sum(1 for v in load_file(str(path)).values() if v.dtype == E4M3 and v.ndim == 2)


def _needs_comfy_layers(mod):
    if not mod("accel.comfy_compat").loads_fp8_files_as_quantized_layers():
        pytest.skip("this ComfyUI reads scaled-fp8 files with its scaled-fp8 operations (quantized-tensor layers: "
                    "0.33+): runs in CI on the ComfyUI 0.33 main bed (scripts/test.sh)")


def test_scaled_wan_on_hopper_loads_as_comfyui_does(F, M, mod, wan_scaled_file):
    """`auto` on a Wan file in ComfyUI's scaled-fp8 layout, on Hopper: the model ComfyUI's own Load Diffusion Model
    builds (its quantized-tensor layers with the file's scales, none of ours), the same output, and a report that
    says so with the measurement."""
    _needs_comfy_layers(mod)
    import comfy.sd

    Q, figures = mod("accel.comfy_compat"), mod("accel.common.figures")
    res = F.load_file(str(wan_scaled_file), profile=_profile(mod))
    dm = res.patcher.model.diffusion_model
    assert res.comfy_layers and res.compute == "comfy" and res.stats.formats == {}
    assert sum(1 for m in dm.modules() if Q.is_quantized_layer(m)) == _n_fp8(wan_scaled_file)
    assert not any(F.is_accel_linear(m) for m in dm.modules())
    line = next(x for x in res.report.splitlines() if x.strip().startswith("auto:"))
    entry = _stored_entry(mod)
    for fid in (entry.ours, entry.comfy):
        assert figures.text(fid) in line, (fid, line)
    assert "bench/results/h200/fp8_stored_033_interleaved/own_base/matrix.json" in line
    assert "the median of 3 timed runs each, interleaved" in line
    assert "a weight_format or compute other than auto" in line
    assert "warning" not in res.report
    cond = (M.conditioning(8, seed=1), M.conditioning(8, seed=2), M.wan_latent(5, 64, 64))
    out = M.sample(res.patcher, *cond, steps=2, cfg=2.0, seed=0)
    ref = M.sample(comfy.sd.load_diffusion_model(str(wan_scaled_file)), *cond, steps=2, cfg=2.0, seed=0)
    assert torch.equal(out, ref)
    again = res.patcher.cached_patcher_init[0](*res.patcher.cached_patcher_init[1])  # a reload decides the same
    assert sum(1 for m in again.model.diffusion_model.modules() if Q.is_quantized_layer(m)) == _n_fp8(wan_scaled_file)


@pytest.mark.parametrize("choice", [{"weight_format": "keep as stored"}, {"compute": "dequantize (bf16/fp16 matmul)"},
                                    {"activation_scaling": "per-token, fp32 accumulation"},
                                    {"keep": "embeddings, norms, modulation, head"}, {"extra_keep": "blocks.0.ffn.*"}])
def test_an_explicit_choice_keeps_the_loaders_layers(F, mod, wan_scaled_file, choice):
    opts = mod("accel.fp8.options")
    assert choice.get("weight_format", opts.FORMAT_KEEP) in opts.WEIGHT_FORMATS
    assert choice.get("compute", opts.COMPUTE_DEQUANT) in opts.COMPUTE_CHOICES
    assert choice.get("activation_scaling", opts.ACT_PER_TOKEN_FP32) in opts.ACT_CHOICES
    assert choice.get("keep", opts.KEEP_STANDARD) in opts.KEEP_CHOICES
    res = F.load_file(str(wan_scaled_file), profile=_profile(mod), **choice)
    assert not res.comfy_layers and res.stats.kept_fp8 > 0 and res.stats.quantized == 0
    assert any(F.is_accel_linear(m) for m in res.patcher.model.diffusion_model.modules())


def test_scaled_wan_keeps_the_loaders_layers_where_nothing_measured_or_comfyui_cannot(F, M, mod, wan_scaled_file,
                                                                                     bf16_sd, ddir, monkeypatch):
    for path, profile in ((wan_scaled_file, _profile(mod, sm=(8, 9))),  # Ada: not measured
                          # a marker of two elements asks ComfyUI for 16-bit matmuls: not the measured form
                          (M.save_safetensors(dict(M.comfy_scaled_fp8(dict(bf16_sd)),
                                                   scaled_fp8=torch.zeros(2, dtype=E4M3)),
                                              ddir / "auto_wan_fp8_scaled_fullmm.safetensors"), _profile(mod))):
        res = F.load_file(str(path), profile=profile)
        assert not res.comfy_layers and res.stats.kept_fp8 > 0, path
    # a ComfyUI whose loader reads such files with its scaled-fp8 operations (0.3.x), or one whose comfy-kitchen did not
    # import (comfy.quant_ops then defines QuantizedTensor as an empty class): this loader's layers
    import comfy.quant_ops as qo

    monkeypatch.setattr(qo, "QuantizedTensor", type("QuantizedTensor", (), {}), raising=False)
    assert not mod("accel.comfy_compat").loads_fp8_files_as_quantized_layers()
    res = F.load_file(str(wan_scaled_file), profile=_profile(mod))
    assert not res.comfy_layers and res.stats.kept_fp8 > 0
    monkeypatch.setattr(mod("accel.comfy_compat"), "loads_fp8_files_as_quantized_layers", lambda: False)
    res = F.load_file(str(wan_scaled_file), profile=_profile(mod))
    assert not res.comfy_layers and res.stats.kept_fp8 > 0
