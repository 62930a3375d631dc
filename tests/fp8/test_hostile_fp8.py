"""Hostile inputs for the FP8 loader and saver and the attention autotune cache (issue #13): every case
runs through the real ComfyUI harness (API prompts through ComfyUI's own validate_prompt + executor, or
the pack's functions as ComfyUI imported them) and fails on the code before the fix.

Classes covered:
- a file that lacks tensors the model needs (or has a linear of the wrong shape): an error naming them, before
  any quantization (it used to quantize uninitialised memory: NaN on one run, other garbage on the next);
- a file with tensors the model does not use (unused heads, LoRA leftovers, markers, prefixes; issue #29): loaded as
  stock ComfyUI loads it, the report and the log naming the ignored tensors;
- NaN/Inf weights: loaded (ComfyUI loads them too) but the report and the log say which tensors, how many;
- saver targets that are not a new file inside models/diffusion_models ('.', './', 'sub/..', a NUL byte, a
  300-character name, a sub-folder that is a file, a taken '.partial' path): an error naming
  filename_prefix BEFORE the model is loaded or quantized, nothing written outside the folder, nothing
  existing replaced;
- a corrupt or hand-edited autotune cache file: ignored with one log line, never a crash or an unknown backend.
"""
import logging
import os

import pytest
import torch

from accel_harness.executor import run_prompt

SAVE_NODE = "[Accel Save FP8 Model] input 'filename_prefix':"
LOAD_NODE = "[Accel Load Diffusion Model (FP8)] input 'unet_name':"


def write(M, ddir, name, sd):
    return M.save_safetensors({k: v for k, v in sd.items()}, ddir / name)


def load_prompt(name, **extra):
    """The FP8 loader as an API client sends it, its report shown by ComfyUI's PreviewAny output node."""
    inputs = {"unet_name": name, "weight_format": "auto", "compute": "auto",
              "keep_high_precision": "auto (per model family)", **extra}
    return {"1": {"class_type": "AccelLoadDiffusionModelFP8", "inputs": inputs},
            "2": {"class_type": "PreviewAny", "inputs": {"source": ["1", 1]}}}


def prompt_error(prompt) -> str:
    with pytest.raises(RuntimeError) as ei:
        run_prompt(prompt)
    return str(ei.value)


# --- missing / unexpected tensors ------------------------------------------------------------------------

@pytest.mark.parametrize("case", ["missing_linear", "missing_detect", "missing_norm", "missing_two",
                                  "missing_and_extra"])
def test_missing_tensors_are_named(pack, F, mod, M, ddir, bf16_sd, case, monkeypatch):
    """Each case used to load (the removed layer quantized from uninitialised memory); now the error names
    the tensors, and comes before finalize (quantization) runs."""
    sd = dict(bf16_sd)
    if case == "missing_linear":
        del sd["blocks.1.ffn.0.weight"]
        names = ["blocks.1.ffn.0.weight"]
    elif case == "missing_detect":  # a tensor ComfyUI's model detection reads
        del sd["blocks.0.ffn.0.weight"]
        names = ["blocks.0.ffn.0.weight"]
    elif case == "missing_norm":
        del sd["blocks.1.norm3.weight"]
        names = ["blocks.1.norm3.weight"]
    elif case == "missing_two":
        del sd["blocks.1.self_attn.k.weight"], sd["blocks.0.modulation"]
        names = ["blocks.1.self_attn.k.weight", "blocks.0.modulation"]
    else:  # a missing tensor is refused even when the file also has tensors the model does not use
        del sd["blocks.1.ffn.2.weight"]
        sd["blocks.0.extra_proj.weight"] = torch.ones(4, 4, dtype=torch.bfloat16)
        names = ["blocks.1.ffn.2.weight", "blocks.0.extra_proj.weight"]
    name = f"hostile_{case}.safetensors"
    write(M, ddir, name, sd)
    finalized = []
    real_finalize = F.finalize
    monkeypatch.setattr(mod("accel.fp8.load"), "finalize",
                        lambda *a, **k: finalized.append(1) or real_finalize(*a, **k))
    msg = prompt_error(load_prompt(name))
    assert "AccelError" in msg and LOAD_NODE in msg and name in msg, msg
    assert "missing" in msg, msg
    for n in names:
        assert n in msg, (n, msg)
    assert "download it again" in msg or "original checkpoint" in msg, msg
    assert not finalized  # the error comes before any quantization


def _scaled_fp8(mod, sd):
    """`sd` as ComfyUI's scaled_fp8 checkpoints store it (the Comfy-Org fp8_scaled files): e4m3fn block linears with a
    per-tensor scale_weight and a scale_input each, and the scaled_fp8 marker."""
    K = mod("kernels.fp8_linear")
    out = dict(sd)
    for k in [k for k in sd if k.startswith("blocks.") and k.endswith(".weight") and sd[k].ndim == 2]:
        layer = k[: -len(".weight")]
        out[k], out[layer + ".scale_weight"] = K.quantize_weight(sd[k].float(), torch.float8_e4m3fn, False)
        out[layer + ".scale_input"] = torch.ones((), dtype=torch.float32)
    out["scaled_fp8"] = torch.empty((0,), dtype=torch.float8_e4m3fn)
    return out


EXTRA = {  # case -> (key layout of the file, tensors added that the model does not use)
    "unused_head": ("plain", {"aux_head.weight": (8, 128), "aux_head.bias": (8,)}),
    "in_block": ("plain", {"blocks.0.extra_proj.weight": (4, 4)}),
    "lora_leftover": ("plain", {"blocks.0.ffn.0.lora_down": (4, 4), "blocks.0.ffn.0.alpha": ()}),
    "scaled_fp8_unused_head": ("scaled_fp8", {"aux_head.weight": (8, 128)}),
    "prefixed": ("model.diffusion_model.", {"aux_head.weight": (8, 128)}),
}


@pytest.mark.parametrize("case", sorted(EXTRA))
def test_extra_tensors_load_as_comfyui_loads_them_with_a_warning(pack, F, mod, M, ddir, bf16_sd, case, caplog):
    """A file with tensors the detected model does not use (unused heads, LoRA leftovers, in bf16 and in the
    scaled_fp8 layout with its marker and scale_input tensors, with and without the model.diffusion_model. prefix)
    loads in stock ComfyUI; the FP8 loader called it "incomplete or damaged". Now it loads the same weights as the
    file without them, and the report and the log name the ignored tensors."""
    layout, extra = EXTRA[case]
    sd = _scaled_fp8(mod, bf16_sd) if layout == "scaled_fp8" else dict(bf16_sd)
    clean = dict(sd)
    for k, shape in extra.items():
        t = torch.full(shape, 0.5, dtype=torch.bfloat16)
        if layout == "scaled_fp8" and len(shape) == 2:  # an fp8 head with its scale, like the file's linears
            t, sd[k[: -len(".weight")] + ".scale_weight"] = mod("kernels.fp8_linear").quantize_weight(
                t.float(), torch.float8_e4m3fn, False)
        sd[k] = t
    if layout.endswith("."):
        sd = {layout + k: v for k, v in sd.items()}
        sd["first_stage_model.decoder.conv_in.weight"] = torch.ones(4, 4, 3, 3)  # a full checkpoint's VAE tensor
    name = f"hostile_extra_{case}.safetensors"
    path = write(M, ddir, name, sd)
    write(M, ddir, f"hostile_extra_{case}_clean.safetensors", clean)
    assert M.load_diffusion_model(path) is not None  # stock ComfyUI loads the file
    caplog.set_level(logging.WARNING)
    _, hist = run_prompt(load_prompt(name))
    report = hist["outputs"]["2"]["text"][0]
    warned = [ln for ln in report.splitlines() if "not used by the detected model" in ln]
    assert len(warned) == 1 and "warning" in warned[0], report
    for k in extra:
        assert k in warned[0], (k, warned[0])
    assert any("not used by the detected model" in r.getMessage() and name in r.getMessage() for r in caplog.records)
    got = F.load_file(str(path)).patcher.model.diffusion_model.state_dict()
    want = F.load_file(str(ddir / f"hostile_extra_{case}_clean.safetensors")).patcher.model.diffusion_model.state_dict()
    assert got.keys() == want.keys() and all(torch.equal(got[k], want[k]) for k in want)


def test_wrong_shapes_are_still_refused(pack, M, ddir, bf16_sd):
    """What would give a wrong model stays an error: a linear of the wrong shape."""
    sd = dict(bf16_sd)
    sd["blocks.1.ffn.2.weight"] = sd["blocks.1.ffn.2.weight"][:, :-1].contiguous()
    write(M, ddir, "hostile_shape.safetensors", sd)
    msg = prompt_error(load_prompt("hostile_shape.safetensors"))
    assert LOAD_NODE in msg and "blocks.1.ffn.2.weight" in msg and "shape" in msg, msg


def test_extra_keep_pattern_matching_no_layer_is_warned(pack, M, ddir, bf16_sd):
    """A pattern that matches no linear layer (a typo: 'self_atn') kept nothing more, silently; now the report
    names it. A pattern that matches is not warned about."""
    write(M, ddir, "hostile_keep.safetensors", dict(bf16_sd))
    _, hist = run_prompt(load_prompt("hostile_keep.safetensors", extra_keep="blocks.*.self_atn.q, blocks.0.ffn.*"))
    report = hist["outputs"]["2"]["text"][0]
    warned = [ln for ln in report.splitlines() if "match no linear layer" in ln]
    assert len(warned) == 1 and "'blocks.*.self_atn.q'" in warned[0] and "blocks.0.ffn" not in warned[0], report
    assert "2 extra_keep pattern" in report  # the matching pattern kept its layers (ffn.0 and ffn.2 of block 0)
    _, hist = run_prompt(load_prompt("hostile_keep.safetensors", extra_keep="blocks.0.ffn.*"))
    assert "match no linear layer" not in hist["outputs"]["2"]["text"][0]


def test_saver_keep_error_names_the_saver(F, M, ddir, bf16_sd, AccelError, mod):
    model = M.load_diffusion_model(write(M, ddir, "hostile_keep_src.safetensors", dict(bf16_sd)))
    with pytest.raises(AccelError) as e, mod("accel.common.errors").titled("Accel Save FP8 Model"):  # as the node
        F.save_portable(model, "hostile_keep/x", keep="most layers")
    assert (e.value.node, e.value.input_name) == ("Accel Save FP8 Model", "keep_high_precision"), str(e.value)
    assert not list((ddir / "hostile_keep").glob("*"))  # nothing left behind


def test_lora_that_saturates_fp8_is_reported(F, M, ddir, bf16_sd, caplog):
    """A weight patch as large as the weights, baked into FP8 weights with their scale, pushes values beyond the
    fp8 range: they were clipped without a word. Now the log and the saver's report give the counts."""
    import comfy.sd

    res = F.load_file(str(write(M, ddir, "hostile_sat.safetensors", dict(bf16_sd))))
    layers = ["blocks.0.ffn.0", "blocks.1.self_attn.q"]
    lora = {f"diffusion_model.{k}.diff": 2.0 * bf16_sd[k + ".weight"] for k in layers}  # W -> 3W
    patched, _ = comfy.sd.load_lora_for_models(res.patcher, None, lora, 1.0, 0)
    caplog.set_level(logging.WARNING)
    text = F.save_portable(patched, "hostile_sat/x")
    sat = res.runtime.saturated
    assert set(sat) == set(layers), sat
    for k in layers:
        n, total = sat[k]
        assert total == bf16_sd[k + ".weight"].numel() and 0 < n < total
    warned = [ln for ln in text.splitlines() if "clipped" in ln]
    assert len(warned) == 1 and "warning" in warned[0] and f"{sum(n for n, _ in sat.values())} of" in warned[0], text
    assert any("clipped" in r.getMessage() and "hostile_sat.safetensors" in r.getMessage() for r in caplog.records)
    # a small LoRA saturates nothing: no warning
    small = {f"diffusion_model.{k}.diff": 0.01 * bf16_sd[k + ".weight"] for k in layers}
    patched, _ = comfy.sd.load_lora_for_models(res.patcher, None, small, 1.0, 0)
    assert "clipped" not in F.save_portable(patched, "hostile_sat/small")


def test_complete_file_still_loads_without_warnings(F, M, ddir, bf16_sd):
    res = F.load_file(str(write(M, ddir, "hostile_ok.safetensors", dict(bf16_sd))))
    assert "NaN" not in res.report and "warning" not in res.report, res.report
    assert not res.stats.nonfinite


def test_quantized_weights_are_checked_finite(F, mod, M, ddir, bf16_sd, AccelError, monkeypatch):
    """Quantizing finite weights must give finite fp8 weights and scales (here a broken quantizer)."""
    K = mod("kernels.fp8_linear")
    real = K.quantize_weight

    def broken(w, dtype=K.E4M3, per_channel=False):
        w8, s = real(w, dtype, per_channel)
        return w8, s * float("nan")

    monkeypatch.setattr(K, "quantize_weight", broken)
    with pytest.raises(AccelError, match="gave NaN/Inf values from finite weights"):
        F.load_file(str(write(M, ddir, "hostile_quant.safetensors", dict(bf16_sd))))


# --- NaN / Inf weights: loaded, but said once, with names and counts ------------------------------------------

@pytest.mark.parametrize("form", ["bf16", "fp8"])
def test_nonfinite_weights_are_reported(pack, F, mod, M, ddir, bf16_sd, form, caplog):
    K = mod("kernels.fp8_linear")
    sd = dict(bf16_sd)
    w = sd["blocks.0.ffn.0.weight"].clone()
    w[0, :3] = float("nan")
    w[1, 0] = float("inf")
    sd["blocks.0.ffn.0.weight"] = w
    b = sd["blocks.1.norm3.weight"].clone()
    b[5] = float("-inf")
    sd["blocks.1.norm3.weight"] = b
    expect = {"blocks.0.ffn.0.weight": 4, "blocks.1.norm3.weight": 1}
    if form == "fp8":  # an fp8 file: e4m3fn has NaN but no Inf, so the Inf becomes NaN (still 4 values)
        for layer in ("blocks.0.ffn.0", "blocks.0.ffn.2", "blocks.1.self_attn.q"):
            w8, s = K.quantize_weight(torch.nan_to_num(sd[layer + ".weight"].float()), per_channel=False)
            sd[layer + ".weight"], sd[layer + ".weight_scale"] = w8, s
        w8 = sd["blocks.0.ffn.0.weight"].clone()
        w8.view(torch.uint8)[0, :3] = 0x7F
        w8.view(torch.uint8)[1, 0] = 0xFF
        sd["blocks.0.ffn.0.weight"] = w8
    name = f"hostile_nan_{form}.safetensors"
    write(M, ddir, name, sd)
    with caplog.at_level(logging.WARNING, logger="comfyui-accel"):
        _, hist = run_prompt(load_prompt(name))
    report = hist["outputs"]["1"]["text"][0]
    assert "NaN/Inf" in report, report
    for t, n in expect.items():
        assert f"{t} ({n})" in report, (t, n, report)
    assert "2 tensors" in report, report
    warned = [r.getMessage() for r in caplog.records if "NaN/Inf" in r.getMessage()]
    assert len(warned) == 1 and name in warned[0], warned


# --- saver: the target is checked first, never outside its folder, never replacing a file -----------------------

@pytest.fixture
def no_long_work(mod, monkeypatch):
    """Loading and quantizing raise: an error from the target check must come before them."""
    def boom(*a, **k):
        raise AssertionError("long work started before the target was checked")

    monkeypatch.setattr(mod("accel.fp8.save"), "load_file", boom)
    monkeypatch.setattr(mod("accel.fp8.save"), "portable_tensors", boom)


def save_prompt(prefix, source="hostile_src.safetensors"):
    return {"1": {"class_type": "AccelSaveFP8Model", "inputs": {"filename_prefix": prefix, "source_file": source}}}


def _tree(root):
    return sorted(os.path.relpath(os.path.join(d, f), root) for d, _, fs in os.walk(root) for f in fs + _)


@pytest.fixture(scope="module")
def src(M, ddir, bf16_sd):
    return write(M, ddir, "hostile_src.safetensors", dict(bf16_sd))


@pytest.mark.parametrize("prefix,needle", [
    (".", "does not name a file"), ("./", "does not name a file"), ("sub/..", "does not name a file"),
    ("..", "outside"), ("../escape", "outside"), ("a/../../escape", "outside"), ("/tmp/abs_escape", "outside"),
    ("bad\x00name", "NUL"), ("x" * 300, "too long"), ("ok/" + "y" * 300 + "/m", "too long"),
    ("subfile/model", "is a file"), ("hostile_src.safetensors/m", "is a file"),
])
def test_bad_save_targets_fail_before_any_work(pack, comfy, ddir, src, no_long_work, prefix, needle):
    (ddir / "subfile").write_text("a user's file")
    before = _tree(comfy / "models")
    msg = prompt_error(save_prompt(prefix))
    assert "AccelError" in msg and SAVE_NODE in msg and needle in msg, msg
    assert "long work started" not in msg, msg
    assert _tree(comfy / "models") == before  # nothing written, created or replaced
    assert (ddir / "subfile").read_text() == "a user's file"


def test_taken_partial_path_is_skipped_not_touched(pack, F, ddir, src):
    """A '<name>_00001.safetensors.partial' that exists (a directory, or another save in progress) is left
    alone: the save uses the next free number; an existing file is never replaced."""
    (ddir / "taken_00001.safetensors.partial").mkdir()
    (ddir / "taken_00001.safetensors.partial" / "keep.txt").write_text("keep")
    (ddir / "taken_00002.safetensors").write_bytes(b"a user's model")
    (ddir / "taken_00003.safetensors.partial").write_bytes(b"another save in progress")
    _, hist = run_prompt(save_prompt("taken"))
    assert "taken_00004.safetensors" in hist["outputs"]["1"]["text"][0]
    assert (ddir / "taken_00004.safetensors").stat().st_size > 1000
    assert (ddir / "taken_00001.safetensors.partial" / "keep.txt").read_text() == "keep"
    assert (ddir / "taken_00002.safetensors").read_bytes() == b"a user's model"
    assert (ddir / "taken_00003.safetensors.partial").read_bytes() == b"another save in progress"
    assert not (ddir / "taken_00001.safetensors").exists() and not (ddir / "taken_00004.safetensors.partial").exists()


def test_write_error_is_wrapped_and_leaves_nothing(pack, F, mod, ddir, src, monkeypatch):
    """A failing write (disk full, permissions) gives an AccelError naming filename_prefix; no partial
    file and no new folder is left behind."""
    formats = mod("accel.fp8.formats")

    def full_disk(tensors, filename, metadata=None):
        with open(filename, "wb") as f:
            f.write(b"half")
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(formats, "_save_file", full_disk)
    before = _tree(ddir)
    msg = prompt_error(save_prompt("newdir/deeper/full"))
    assert "AccelError" in msg and SAVE_NODE in msg and "No space left on device" in msg, msg
    assert "free disk space" in msg, msg
    assert _tree(ddir) == before and not (ddir / "newdir").exists()


def test_file_appearing_during_the_save_is_not_replaced(pack, F, mod, ddir, src, monkeypatch):
    """Another process creates the target name while the model is quantized: it is kept; the error says so."""
    formats = mod("accel.fp8.formats")
    real = formats._save_file

    def racing(tensors, filename, metadata=None):
        real(tensors, filename, metadata=metadata)
        (ddir / "race_00001.safetensors").write_bytes(b"someone else's file")

    monkeypatch.setattr(formats, "_save_file", racing)
    msg = prompt_error(save_prompt("race"))
    assert "AccelError" in msg and SAVE_NODE in msg and "race_00001.safetensors" in msg, msg
    assert (ddir / "race_00001.safetensors").read_bytes() == b"someone else's file"
    assert not (ddir / "race_00001.safetensors.partial").exists()


def test_plain_and_subfolder_prefixes_still_save(pack, F, ddir, src):
    for prefix, rel in [("plain", "plain_00001.safetensors"), ("wan/sub/m.safetensors", "wan/sub/m_00001.safetensors"),
                        ("  spaced  ", "spaced_00001.safetensors"), ("", "accel_fp8_00001.safetensors")]:
        _, hist = run_prompt(save_prompt(prefix))
        assert (ddir / rel).is_file(), (prefix, hist["outputs"]["1"]["text"][0])


# --- attention autotune disk cache: wrong types are ignored with one log line ---------------------------------

def _kernels(mod):
    base = mod("kernels.attention.base")

    def sdpa(q, k, v, mask, scale, layout):
        return torch.nn.functional.scaled_dot_product_attention(q, k, v)

    def make(name):
        return base.Kernel(name=name, library=None, version=None, layouts=(base.BHLD,), call=sdpa,
                           dtypes=frozenset({torch.float32}), device_types=frozenset({"cpu"}))
    return make("sdpa"), make("other")


CORRUPT = {
    "list": "[1, 2, 3]",
    "string": '"hello"',
    "entry_list": '{"KEY": ["sdpa"]}',
    "winner_list": '{"KEY": {"winner": ["sdpa"]}}',
    "winner_dict": '{"KEY": {"winner": {"a": 1}}}',
    "unknown_backend": '{"KEY": {"winner": "flash_attn_9"}}',
    "winner_int": '{"KEY": {"winner": 3}}',
    "times_wrong": '{"KEY": {"winner": "other", "times_ms": [1, 2], "rejected": "x"}}',
    "not_json": "{not json",
    "binary": b"\xff\xfe\x00garbage",
}


@pytest.mark.parametrize("case", list(CORRUPT))
def test_corrupt_autotune_cache_is_ignored(mod, tmp_path, case, caplog):
    AT = mod("kernels.attention.autotune")
    primary, other = _kernels(mod)
    path = tmp_path / "attention_autotune.json"
    tuner = AT.Tuner(primary, [other], path, "dev", warmup=0, reps=1)
    q = torch.randn(1, 2, 8, 16)
    key = AT.call_key(1, 2, 2, 8, 8, 16, q.dtype, "bhld", False, None)
    raw = CORRUPT[case]
    raw = raw.replace("KEY", tuner.disk_key(key)) if isinstance(raw, str) else raw
    path.write_bytes(raw.encode() if isinstance(raw, str) else raw)
    with caplog.at_level(logging.WARNING, logger="comfyui-accel"):
        kern = tuner.pick(key, q, q, q, "bhld", None, None, 16, True)
        tuner2 = AT.Tuner(primary, [other], path, "dev", warmup=0, reps=1)  # a second patch: still one line
        kern2 = tuner2.pick(key, q, q, q, "bhld", None, None, 16, True)
    assert kern in (primary, other) and kern2 in (primary, other)
    entry = tuner.last[key]
    assert entry["source"] == "measured" and entry["winner"] in ("sdpa", "other"), entry
    assert isinstance(entry["times_ms"], dict) and isinstance(entry["rejected"], dict)
    lines = [r.getMessage() for r in caplog.records if "autotune" in r.getMessage()]
    assert len(lines) == 1 and str(path) in lines[0] and "ignored" in lines[0], lines
    # the measured choice was written back as a valid cache: the next patch reads it
    tuner3 = AT.Tuner(primary, [other], path, "dev", warmup=0, reps=1)
    assert tuner3.pick(key, q, q, q, "bhld", None, None, 16, True) is kern2
    assert tuner3.last[key]["source"] == "disk"


# --- saver: every scaled layer ComfyUI builds ---------------------------------------------------------------------

def _marker_scaled_fp8(mod, M, sd, form):
    """`sd` in ComfyUI's scaled-fp8 layout (the *_fp8_scaled files Load Diffusion Model reads): the harness's writer,
    the same with a scale_input per layer, or with the two-element marker (ComfyUI then runs the matmuls in 16 bits)."""
    if form == "scale_input":
        return _scaled_fp8(mod, sd)
    out = M.comfy_scaled_fp8(dict(sd))
    if form == "full_precision_marker":
        out["scaled_fp8"] = torch.zeros(2, dtype=torch.float8_e4m3fn)
    return out


def _sample(M, model, seed=0):
    return M.sample(model, M.conditioning(8, seed=1), M.conditioning(8, seed=2), M.wan_latent(5, 64, 64), steps=2,
                    cfg=2.0, seed=seed)


def _rel(a, b):
    return ((a.float() - b.float()).norm() / b.float().norm()).item()


@pytest.mark.parametrize("form", ["harness", "scale_input", "full_precision_marker"])
def test_save_from_stock_scaled_fp8_layers_reloads_to_the_source(pack, mod, M, ddir, bf16_sd, form):
    """A tiny Wan in ComfyUI's scaled-fp8 layout -> stock Load Diffusion Model -> Accel Save FP8 Model (a prompt) ->
    stock Load Diffusion Model again; both sampled. ComfyUI 0.3.x builds its scaled-fp8 layers for such a file
    (comfy.ops.scaled_fp8_ops: fp8 weight, scale_weight, scale_input), 0.33 its quantized-tensor layers. On 0.3.x the
    saver wrote the stored fp8 values with a weight_scale of 1.0 (about 1000x too large) and the scale tensors as stray
    bf16 tensors: the reloaded model's latent was far from the source's (cosine 0.70). Now every block layer is saved
    with its stored values and its scale, nothing else of the layer is written, and the reloaded model's latent is
    within 1e-3 (rel. L2) of the source's, where the source's own FP8 deviation from the bf16 model is 0.02-0.06."""
    import nodes
    from safetensors import safe_open

    name = f"hostile_scaled_{form}.safetensors"
    src_sd = _marker_scaled_fp8(mod, M, bf16_sd, form)
    write(M, ddir, name, src_sd)
    source = nodes.UNETLoader().load_unet(name, "default")[0]
    q = source.model.diffusion_model.blocks[0].self_attn.q  # 0.3.x: scale_weight beside it; 0.33: a QuantizedTensor
    assert isinstance(getattr(q, "scale_weight", None), torch.Tensor) or type(q.weight).__name__ == "QuantizedTensor"
    _, hist = run_prompt({
        "1": {"class_type": "UNETLoader", "inputs": {"unet_name": name, "weight_dtype": "default"}},
        "2": {"class_type": "AccelSaveFP8Model", "inputs": {"filename_prefix": f"hostile_scaled/{form}",
                                                            "model": ["1", 0]}}})
    path = hist["outputs"]["2"]["text"][0].splitlines()[0].split(": ", 1)[1]
    with safe_open(path, "pt") as f:
        keys = set(f.keys())
        assert not [k for k in keys if k.endswith((".scale_weight", ".scale_input", ".input_scale", ".comfy_quant"))]
        for k in [k for k in src_sd if k.endswith(".scale_weight")]:
            layer = k[: -len(".scale_weight")]
            assert torch.equal(f.get_tensor(layer + ".weight_scale"), src_sd[k].float().reshape(())), layer
            assert torch.equal(f.get_tensor(layer + ".weight").float(), src_sd[layer + ".weight"].float()), layer
    reloaded = nodes.UNETLoader().load_unet(os.path.relpath(path, ddir), "default")[0]
    ref, out = _sample(M, source), _sample(M, reloaded)
    bf16 = _sample(M, M.load_diffusion_model(write(M, ddir, "hostile_scaled_bf16.safetensors", dict(bf16_sd))))
    deviation = _rel(ref, bf16)  # the source's own FP8 deviation: measured 0.055 (0.3.75), 0.026 (0.33)
    assert 0.01 < deviation < 0.1, deviation
    assert _rel(out, ref) <= 1e-3, (_rel(out, ref), deviation)  # measured 4e-7 (0.3.75: other rounding order), 0 (0.33)


def test_save_through_a_folder_link_leading_outside_is_refused(pack, F, ddir, src, no_long_work, tmp_path):
    """A folder link inside models/diffusion_models that leads outside it: the saver followed it (its check compared
    the path as written, not where the links lead), while every textual escape ('..', an absolute path) was refused.
    Now the folder is resolved first: refused before any work, nothing written there. A link that stays inside the
    folder still saves."""
    outside = tmp_path / "outside"
    outside.mkdir()
    (ddir / "hostile_link_out").symlink_to(outside, target_is_directory=True)
    (ddir / "hostile_real_sub").mkdir(exist_ok=True)
    (ddir / "hostile_link_in").symlink_to(ddir / "hostile_real_sub", target_is_directory=True)
    try:
        for prefix in ("hostile_link_out/m", "hostile_link_out/deeper/m"):
            msg = prompt_error(save_prompt(prefix))
            assert "AccelError" in msg and SAVE_NODE in msg and "outside" in msg and "folder link" in msg, msg
            assert str(outside) in msg and "long work started" not in msg, msg
        assert not list(outside.iterdir())
    finally:
        (ddir / "hostile_link_out").unlink()
    try:
        assert F.output_path("hostile_link_in/m") == str(ddir / "hostile_link_in" / "m_00001.safetensors")
    finally:
        (ddir / "hostile_link_in").unlink()


def test_a_huge_extra_keep_pattern_is_not_echoed_whole(pack, M, ddir, bf16_sd, caplog):
    """A 10,000-character extra_keep pattern that matches nothing was echoed whole in one warning line (report and
    log), and so were thousands of patterns. Now each pattern is cut with its length given, at most five are named."""
    write(M, ddir, "hostile_keep_long.safetensors", dict(bf16_sd))
    caplog.set_level(logging.WARNING)
    for extra, needles in (("x" * 10000, ["(10000 characters)"]),
                           (",".join(f"p{i}" for i in range(3000)), ["'p0'", "'p4'", "and 2995 more"])):
        _, hist = run_prompt(load_prompt("hostile_keep_long.safetensors", extra_keep=extra))
        warned = [ln for ln in hist["outputs"]["2"]["text"][0].splitlines() if "match no linear layer" in ln]
        assert len(warned) == 1 and len(warned[0]) < 400, warned
        assert all(n in warned[0] for n in needles), warned
    assert all(len(r.getMessage()) < 2000 for r in caplog.records if "match no linear layer" in r.getMessage())
