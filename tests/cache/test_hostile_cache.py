"""Hostile inputs and faults for the step caches (issue #13), through API prompts run by ComfyUI's own
validate_prompt + PromptExecutor (accel_harness.executor) on a tiny random-weight Wan file.

Classes guarded (each with several members, as the same hostile run is repeated with other inputs):
- calibration data loss: interrupted / failed runs, restarts, fewer runs replacing more, a crash mid-write,
  another model's runs under the same name;
- calibration names that would be changed to become a file name (two names sharing one file);
- damaged user: coefficient files (TeaCache and MagCache), every key and every kind of bad value;
- the report showing other values than the run uses; negative / NaN inputs and an empty skip window.
"""
import copy
import json
import math
import os
from pathlib import Path

import pytest

from accel_harness.executor import run_prompt

UNET = "hostile_cache_wan.safetensors"
OTHER_UNET = "hostile_cache_wan_other.safetensors"  # same architecture, other weights


@pytest.fixture(scope="module")
def unets(comfy, M):
    import folder_paths
    import torch

    d = Path(folder_paths.get_folder_paths("diffusion_models")[0])
    M.write_wan(d / UNET, seed=0, dtype=torch.float32)
    M.write_wan(d / OTHER_UNET, seed=5, dtype=torch.float32)
    return d


def _prompt(cache_class=None, steps=4, unet=UNET, seed=0, **cache_inputs):
    p = {
        "1": {"class_type": "UNETLoader", "inputs": {"unet_name": unet, "weight_dtype": "default"}},
        "2": {"class_type": "AccelRandomConditioning", "inputs": {"seed": 1, "tokens": 8, "dim": 4096, "scale": 1.0}},
        "3": {"class_type": "AccelRandomConditioning", "inputs": {"seed": 2, "tokens": 8, "dim": 4096, "scale": 1.0}},
        "4": {"class_type": "EmptyHunyuanLatentVideo", "inputs": {"width": 64, "height": 64, "length": 1,
                                                                  "batch_size": 1}},
        "6": {"class_type": "KSampler", "inputs": {"model": ["5", 0] if cache_class else ["1", 0], "seed": seed,
                                                   "steps": steps, "cfg": 3.0, "sampler_name": "euler",
                                                   "scheduler": "simple", "positive": ["2", 0], "negative": ["3", 0],
                                                   "latent_image": ["4", 0], "denoise": 1.0}},
        "7": {"class_type": "SaveLatent", "inputs": {"samples": ["6", 0], "filename_prefix": "hostile_cache/out"}},
    }
    if cache_class:
        p["5"] = {"class_type": cache_class, "inputs": dict(model=["1", 0], **cache_inputs)}
    return p


def _calibrate(name, steps=4, unet=UNET, seed=0, **extra):
    """One calibration run through a prompt -> the calibrate node's report."""
    _, hist = run_prompt(_prompt("AccelCacheCalibrate", steps=steps, unet=unet, seed=seed, name=name, **extra))
    return hist["outputs"]["5"]["text"][0]


def _tea(coefficients, thresh=-1.0, start=-1.0, end=1.0, steps=4):
    return _prompt("AccelTeaCache", steps=steps, rel_l1_thresh=thresh, start_percent=start, end_percent=end,
                   coefficients=coefficients, cache_device="GPU")


def _mag(ratios, thresh=-1.0, K=-1, start=-1.0, end=1.0, steps=4):
    return _prompt("AccelMagCache", steps=steps, magcache_thresh=thresh, magcache_K=K, start_percent=start,
                   end_percent=end, ratios=ratios, cache_device="GPU")


def _msg(e) -> str:
    """An error as the user reads it (run_prompt reprs ComfyUI's error dicts, escaping quotes)."""
    return str(e.value).replace("\\'", "'")


def _file(cc, name) -> Path:
    return cc.user_dir() / f"{name}.json"


# Damaged sets written on purpose (tests below): the session's ComfyUI user folder is shared by every test file, and
# tests elsewhere list and validate every user: set (tests/node_api/test_combos.py), so each is removed after its test.
_DAMAGED_PREFIXES = ("hc_damaged_", "hc_tea_bad_", "hc_mag_bad_", "hc_top_")


@pytest.fixture(autouse=True)
def _damaged_sets_removed(cc):
    yield
    d = cc.user_dir()
    if d.is_dir():
        for p in d.glob("hc_*.json"):
            if p.name.startswith(_DAMAGED_PREFIXES):
                p.unlink()


def _runs(cc, name):
    data = json.loads(_file(cc, name).read_text())
    return data["runs"], len(data["samples"]), data


@pytest.fixture
def stop_sampling(monkeypatch):
    """stop_sampling('interrupt' | 'fail', at_step): the next KSampler run is cancelled (as the UI's Cancel
    button does: comfy.model_management.interrupt_current_processing) or fails, after `at_step` steps."""
    import comfy.model_management
    import latent_preview

    orig = latent_preview.prepare_callback

    def arm(how, at_step=1):
        def prepare(model, steps, *a, **k):
            inner = orig(model, steps, *a, **k)

            def cb(step, x0, x, total_steps):
                inner(step, x0, x, total_steps)
                if step + 1 >= at_step:
                    if how == "interrupt":
                        comfy.model_management.interrupt_current_processing()
                    else:
                        raise RuntimeError("simulated failure in the middle of sampling")
            return cb
        monkeypatch.setattr(latent_preview, "prepare_callback", prepare)

    yield arm
    monkeypatch.setattr(latent_preview, "prepare_callback", orig)
    comfy.model_management.interrupt_current_processing(False)


def _restart(sc):
    """What a ComfyUI restart does to the pack's in-memory state: it is gone (old code kept run history here)."""
    for attr in ("_CALIB", "_FRESH"):
        getattr(sc, attr, {}).clear()


# ============================================================================ 1. calibration loses no data
@pytest.mark.parametrize("how", ["interrupt", "fail"])
def test_unfinished_calibration_runs_write_nothing(unets, cc, stop_sampling, how):
    name = f"hc_unfinished_{how}"
    stop_sampling(how)
    with pytest.raises(RuntimeError):
        _calibrate(name)
    assert not _file(cc, name).exists()  # a first run that did not finish creates no file
    stop_sampling("none", at_step=10**6)  # disarmed
    _calibrate(name)
    _calibrate(name, seed=1)
    before = _file(cc, name).read_bytes()
    assert _runs(cc, name)[:2] == (2, 2)
    for at in (1, 3):
        stop_sampling(how, at_step=at)
        with pytest.raises(RuntimeError):
            _calibrate(name, seed=2)
        assert _file(cc, name).read_bytes() == before  # not appended, not refitted


def test_history_survives_restart_and_a_short_run_does_not_replace_it(unets, cc, sc, stop_sampling):
    """The issue's case: 3 runs, restart, a cancelled 3-step run -> the 3-run calibration stays; a completed
    3-step run is added (4 runs) and the MagCache ratios stay those of the schedule most runs used."""
    name = "hc_restart"
    for seed in range(3):
        _calibrate(name, steps=4, seed=seed)
    runs, samples, data = _runs(cc, name)
    assert (runs, samples) == (3, 3) and len(data["magcache"]["progress"]) == 4
    _restart(sc)
    stop_sampling("interrupt", at_step=1)
    with pytest.raises(RuntimeError):
        _calibrate(name, steps=3)
    assert _runs(cc, name)[:2] == (3, 3)
    stop_sampling("none", at_step=10**6)
    report = _calibrate(name, steps=3)
    assert "holds 3 run(s) of this model" in report
    runs, samples, data = _runs(cc, name)
    assert (runs, samples) == (4, 4)
    assert len(data["magcache"]["progress"]) == 4 and len(data["magcache"]["ratios"]["cond"]) == 4
    _restart(sc)
    _calibrate(name, steps=4, seed=7)
    assert _runs(cc, name)[:2] == (5, 5)


def test_runs_added_by_another_process_are_kept(unets, cc, sc):
    """A file holding more runs than this session knows of (another ComfyUI on the same user dir, a copied
    file, an older version that kept only the last 8 runs' records) is extended, never replaced by fewer."""
    name = "hc_more_runs"
    _calibrate(name)
    data = json.loads(_file(cc, name).read_text())
    data["runs"] = 20  # e.g. written by an older version: 20 runs counted, the records of fewer kept
    data["samples"] = data["samples"] * 3
    _file(cc, name).write_text(json.dumps(data))
    _calibrate(name, seed=3)
    runs, samples, _ = _runs(cc, name)
    assert (runs, samples) == (21, 4)


def test_crash_while_writing_leaves_the_file_intact(unets, cc, monkeypatch):
    import os

    name = "hc_crash"
    _calibrate(name)
    before = _file(cc, name).read_bytes()

    def disk_full(fd):
        raise OSError(28, "No space left on device")
    monkeypatch.setattr(os, "fsync", disk_full)
    with pytest.raises(RuntimeError) as e:
        _calibrate(name, seed=1)
    monkeypatch.undo()
    assert "[Accel Cache Calibrate]" in _msg(e) and "No space left" in _msg(e)
    assert _file(cc, name).read_bytes() == before
    assert sorted(p.name for p in cc.user_dir().glob(f"{name}*")) == [f"{name}.json"]  # no temp file left


def test_another_models_file_is_refused_unless_overwrite(unets, cc):
    name = "hc_two_models"
    _calibrate(name)
    _calibrate(name, seed=1)
    before = _file(cc, name).read_bytes()
    with pytest.raises(RuntimeError) as e:  # same architecture, other weights: e.g. the other Wan 2.2 expert
        _calibrate(name, unet=OTHER_UNET)
    msg = _msg(e)
    assert "[Accel Cache Calibrate] input 'name'" in msg and "another" in msg and "overwrite" in msg
    assert _file(cc, name).read_bytes() == before
    report = _calibrate(name, unet=OTHER_UNET, overwrite=True)  # asked: replaced, the old file kept as .bak
    assert "overwrite is on" in report
    assert _runs(cc, name)[:2] == (1, 1)
    baks = list(cc.user_dir().glob(f"{name}.*.json.bak"))
    assert len(baks) == 1 and baks[0].read_bytes() == before


DAMAGED = ["{not json", "[1, 2]", '{"format": "something else"}',
           '{"format": "comfyui-accel cache calibration v1", "samples": "x"}',
           '{"format": "comfyui-accel cache calibration v1", "samples": [{"records": '
           '[{"p": NaN, "chunks": []}]}]}']


@pytest.mark.parametrize("case", range(len(DAMAGED)))
def test_damaged_calibration_file_is_refused_not_replaced(unets, cc, case):
    content = DAMAGED[case]
    name = f"hc_damaged_{case}"
    _file(cc, name).parent.mkdir(parents=True, exist_ok=True)
    _file(cc, name).write_text(content)
    with pytest.raises(RuntimeError) as e:
        _calibrate(name)
    assert "[Accel Cache Calibrate] input 'name'" in _msg(e) and f"{name}.json" in _msg(e)
    assert _file(cc, name).read_text() == content


# ============================================================================ 5. names are never changed
@pytest.mark.parametrize("name", ["my model", "my/model", "my\\model", "../escape", " my_model", "my_model.", "",
                                  "   ", "naïve", "a" * 81, "my:model"])
def test_names_that_would_change_are_refused_before_running(unets, cc, name):
    before = set(cc.user_dir().glob("*")) if cc.user_dir().is_dir() else set()
    with pytest.raises(RuntimeError) as e:
        _calibrate(name)
    msg = _msg(e)
    assert "prompt failed validation" in msg  # before anything runs
    assert "[Accel Cache Calibrate] input 'name'" in msg and "letters, digits" in msg
    assert (set(cc.user_dir().glob("*")) if cc.user_dir().is_dir() else set()) == before


# ============================================================================ 3. user coefficient files
@pytest.fixture(scope="module")
def base_file(unets, cc):
    """A valid calibration file (from a real run) to damage one key at a time."""
    _calibrate("hc_base", steps=6)
    data = json.loads(_file(cc, "hc_base").read_text())
    assert len(data["teacache"]["coefficients"]) >= 2 and len(data["magcache"]["ratios"]["cond"]) == 6
    return data


NAN, INF = float("nan"), float("inf")
_DROP = object()
TEA_BAD = [  # (path into the file, bad value, text the error must name)
    (("teacache", "coefficients"), "1, 2, 3", "teacache.coefficients"),
    (("teacache", "coefficients"), [], "teacache.coefficients"),
    (("teacache", "coefficients"), [0.5], "teacache.coefficients"),
    (("teacache", "coefficients"), ["1", 2.0], "teacache.coefficients[0]"),
    (("teacache", "coefficients"), [1.0, NAN, 2.0], "teacache.coefficients[1]"),
    (("teacache", "coefficients"), [1.0, INF], "teacache.coefficients[1]"),
    (("teacache", "coefficients"), [1.0, None], "teacache.coefficients[1]"),
    (("teacache", "coefficients"), [[1.0, 2.0], [3.0]], "teacache.coefficients[0]"),
    (("teacache", "coefficients"), [True, 1.0], "teacache.coefficients[0]"),
    (("teacache", "coefficients"), {"a": 1}, "teacache.coefficients"),
    (("teacache", "coefficients"), [1.0] * 11, "teacache.coefficients"),
    (("teacache", "coefficients"), _DROP, "teacache.coefficients"),
    (("teacache",), [], "teacache"),
    (("teacache",), "coefficients", "teacache"),
    (("teacache",), {}, "teacache"),
    (("teacache",), None, "teacache"),
    (("teacache",), _DROP, "teacache"),
    (("teacache", "signal"), 5, "teacache.signal"),
    (("teacache", "recommended"), "fast", "teacache.recommended"),
    (("teacache", "recommended", "rel_l1_thresh"), "0.2", "teacache.recommended.rel_l1_thresh"),
    (("teacache", "recommended", "rel_l1_thresh"), NAN, "teacache.recommended.rel_l1_thresh"),
    (("teacache", "recommended", "rel_l1_thresh"), -0.1, "teacache.recommended.rel_l1_thresh"),
    (("teacache", "recommended", "rel_l1_thresh"), None, "teacache.recommended.rel_l1_thresh"),
    (("teacache", "recommended", "start_percent"), 1.5, "teacache.recommended.start_percent"),
    (("teacache", "recommended", "start_percent"), [0.1], "teacache.recommended.start_percent"),
    (("teacache", "recommended", "end_percent"), INF, "teacache.recommended.end_percent"),
    (("teacache", "recommended", "teacache"), {"rel_l1_thresh": 0.2}, "teacache.recommended.teacache"),
]
MAG_BAD = [
    (("magcache", "ratios"), _DROP, "magcache.ratios"),
    (("magcache", "ratios"), [1.0, 0.9], "magcache.ratios"),
    (("magcache", "ratios"), "1,1", "magcache.ratios"),
    (("magcache", "ratios", "cond"), _DROP, "magcache.ratios"),
    (("magcache", "ratios", "cond"), [], "magcache.ratios.cond"),
    (("magcache", "ratios", "cond"), [1.0], "magcache.ratios.cond"),
    (("magcache", "ratios", "cond"), "0.9", "magcache.ratios.cond"),
    (("magcache", "ratios", "cond"), {"0": 1.0}, "magcache.ratios.cond"),
    (("magcache", "ratios", "cond"), [1.0, "0.9", 1.0, 1.0, 1.0, 1.0], "magcache.ratios.cond[1]"),
    (("magcache", "ratios", "cond"), [1.0, NAN, 1.0, 1.0, 1.0, 1.0], "magcache.ratios.cond[1]"),
    (("magcache", "ratios", "cond"), [1.0, INF, 1.0, 1.0, 1.0, 1.0], "magcache.ratios.cond[1]"),
    (("magcache", "ratios", "cond"), [1.0, -0.9, 1.0, 1.0, 1.0, 1.0], "magcache.ratios.cond[1]"),
    (("magcache", "ratios", "cond"), [1.0, 0.0, 1.0, 1.0, 1.0, 1.0], "magcache.ratios.cond[1]"),
    (("magcache", "ratios", "uncond"), [1.0, 0.9, 0.9], "magcache.ratios"),  # length differs from cond
    (("magcache", "ratios", "Cond"), [1.0] * 6, "magcache.ratios"),
    (("magcache", "progress"), [0.0, 0.5], "magcache.progress"),
    (("magcache", "progress"), [0.0, 0.9, 0.5, 0.6, 0.7, 0.8], "magcache.progress"),
    (("magcache", "progress"), [0.0, 0.2, 0.4, 0.6, 0.8, 1.5], "magcache.progress[5]"),
    (("magcache", "progress"), [0.0, NAN, 0.4, 0.6, 0.8, 0.9], "magcache.progress[1]"),
    (("magcache",), [], "magcache"),
    (("magcache",), _DROP, "magcache"),
    (("magcache", "recommended", "magcache_thresh"), "0.12", "magcache.recommended.magcache_thresh"),
    (("magcache", "recommended", "magcache_thresh"), NAN, "magcache.recommended.magcache_thresh"),
    (("magcache", "recommended", "magcache_K"), 2.5, "magcache.recommended.magcache_K"),
    (("magcache", "recommended", "magcache_K"), -1, "magcache.recommended.magcache_K"),
    (("magcache", "recommended", "magcache_K"), "2", "magcache.recommended.magcache_K"),
    (("magcache", "recommended", "retention_ratio"), -0.2, "magcache.recommended.retention_ratio"),
    (("magcache", "recommended"), [0.1, 2], "magcache.recommended"),
]


def _damaged(base, path, value):
    data = copy.deepcopy(base)
    d = data
    for k in path[:-1]:
        d = d[k]
    if value is _DROP:
        d.pop(path[-1], None)
    else:
        d[path[-1]] = value
    return data


def _expect_refused(prompt, node, input_name, *texts):
    with pytest.raises(RuntimeError) as e:
        run_prompt(prompt)
    msg = _msg(e)
    assert "prompt failed validation" in msg, msg[-2000:]  # before any node runs: nothing loaded or sampled
    assert f"[{node}] input '{input_name}'" in msg, msg[-2000:]
    for t in texts:
        assert t in msg, (t, msg[-2000:])
    return msg


@pytest.mark.parametrize("case", range(len(TEA_BAD)), ids=[f"{'.'.join(c[0])}={str(c[1])[:20]}" for c in TEA_BAD])
def test_bad_teacache_file_is_refused_naming_file_and_key(base_file, cc, case):
    path, value, key = TEA_BAD[case]
    name = f"hc_tea_bad_{case}"
    _file(cc, name).write_text(json.dumps(_damaged(base_file, path, value)))  # NaN/Infinity as Python writes them
    _expect_refused(_tea(f"user:{name}"), "Accel TeaCache", "coefficients", f"{name}.json", key, "Fix or delete")


@pytest.mark.parametrize("case", range(len(MAG_BAD)), ids=[f"{'.'.join(c[0])}={str(c[1])[:20]}" for c in MAG_BAD])
def test_bad_magcache_file_is_refused_naming_file_and_key(base_file, cc, case):
    path, value, key = MAG_BAD[case]
    name = f"hc_mag_bad_{case}"
    _file(cc, name).write_text(json.dumps(_damaged(base_file, path, value)))
    _expect_refused(_mag(f"user:{name}"), "Accel MagCache", "ratios", f"{name}.json", key, "Fix or delete")


TOP_BAD = [("", "not valid JSON"), ("{", "not valid JSON"), ("[]", "top level"), ('"text"', "top level"),
           ("42", "top level"), ("null", "top level"), ('{"format": "comfyui-accel cache calibration v1"}', "missing"),
           ('{"format": "other"}', "format"), ('{"format": "comfyui-accel cache calibration v1", "family": 5, '
                                                '"teacache": {}, "magcache": {}}', "family")]


@pytest.mark.parametrize("case", range(len(TOP_BAD)))
@pytest.mark.parametrize("kind", ["teacache", "magcache"])
def test_bad_file_top_level_is_refused(unets, cc, pack, case, kind):
    content, text = TOP_BAD[case]
    name = f"hc_top_{kind}_{case}"
    _file(cc, name).parent.mkdir(parents=True, exist_ok=True)
    _file(cc, name).write_bytes(content.encode())
    # the node list still loads (a damaged file must not break INPUT_TYPES for every workflow)
    for cls in ("AccelTeaCache", "AccelMagCache", "AccelCacheCalibrate"):
        pack.nodes.NODE_CLASS_MAPPINGS[cls].INPUT_TYPES()
    prompt, node, inp = ((_tea(f"user:{name}"), "Accel TeaCache", "coefficients") if kind == "teacache"
                         else (_mag(f"user:{name}"), "Accel MagCache", "ratios"))
    _expect_refused(prompt, node, inp, f"{name}.json", text)


def test_missing_user_file_names_the_remedy(unets):
    _expect_refused(_tea("user:hc_no_such_file"), "Accel TeaCache", "coefficients", "hc_no_such_file.json",
                    "does not exist", "Accel Cache Calibrate")


def test_calibration_writer_uses_the_same_validation(sc, cc, base_file, monkeypatch, mod):
    """A fit that gives unusable values (here: forced NaN) is not written: the loader's rule guards the writer."""
    name = "hc_writer_nan"
    real = mod("accel.cache.calibrate")._fit

    def nan_fit(samples, adapter):
        out, summary = real(samples, adapter)
        out["teacache"]["coefficients"][0] = math.nan
        return out, summary
    monkeypatch.setattr(mod("accel.cache.calibrate"), "_fit", nan_fit)
    with pytest.raises(RuntimeError) as e:
        _calibrate(name)
    assert "teacache.coefficients[0]" in _msg(e) and "nothing written" in _msg(e)
    assert not _file(cc, name).exists()


def test_published_table_passes_the_same_validation(cc):
    for kind in ("teacache", "magcache"):
        for name, entry in cc.published(kind).items():
            cc.validate_set(kind, entry, name)


# ============================================================================ 3/7. the report shows what runs
def test_magcache_report_shows_the_values_the_run_uses(base_file, cc, sc, mod):
    name = "hc_mag_norec"
    data = copy.deepcopy(base_file)
    data["magcache"].pop("recommended")  # valid: the defaults apply, and the report must say which
    _file(cc, name).write_text(json.dumps(data))
    _, hist = run_prompt(_mag(f"user:{name}", steps=6))
    report = hist["outputs"]["5"]["text"][0]
    st = [s for s in mod("accel.cache.report")._LAST.values() if s.set_name == f"user:{name}"][-1]
    assert f"set user:{name}: magcache_thresh 0.12, K 2, start 20%" in st.notes[0], st.notes
    assert "magcache_thresh 0.12 (default; the set recommends none); K 2 (default" in report, report
    assert "start (retention) 20% (default" in report


def test_teacache_report_recommended_values_match_the_run(base_file, cc, sc, mod):
    name = "hc_tea_rec"
    data = copy.deepcopy(base_file)
    data["teacache"]["recommended"] = {"rel_l1_thresh": 0.37}  # start_percent missing: default 0
    _file(cc, name).write_text(json.dumps(data))
    _, hist = run_prompt(_tea(f"user:{name}", steps=6))
    report = hist["outputs"]["5"]["text"][0]
    st = [s for s in mod("accel.cache.report")._LAST.values() if s.set_name == f"user:{name}"][-1]
    assert st.notes[0].startswith(f"set user:{name}: rel_l1_thresh 0.37, start 0%")
    assert "rel_l1_thresh 0.37 (recommended for the set); start 0% (default" in report, report


# ============================================================================ 7. inputs that disabled caching silently
@pytest.mark.parametrize("node,field,value", [
    ("tea", "start_percent", -0.5), ("tea", "start_percent", -0.01), ("tea", "start_percent", math.nan),
    ("tea", "rel_l1_thresh", -0.5), ("tea", "rel_l1_thresh", math.nan), ("tea", "end_percent", math.nan),
    ("mag", "start_percent", -0.3), ("mag", "magcache_thresh", -0.5), ("mag", "magcache_thresh", math.nan),
])
def test_negative_or_nan_inputs_are_refused(unets, sc, node, field, value, mod):
    if node == "tea":
        p, title = _tea("wan2.1_t2v_1.3B_ret_mode"), "Accel TeaCache"
    else:
        p, title = _mag("wan2.1_t2v_1.3B"), "Accel MagCache"
    p["5"]["inputs"][field] = value
    n_before = len(mod("accel.cache.report")._LAST)
    with pytest.raises(RuntimeError) as e:
        run_prompt(p)
    msg = _msg(e)
    assert f"[{title}] input '{field}'" in msg and ("-1" in msg or "0..1" in msg), msg[-1500:]
    assert len(mod("accel.cache.report")._LAST) == n_before  # refused at the node: no sampling run happened


def test_empty_skip_window_is_reported(base_file, cc, sc, mod):
    """A recommended start after end_percent leaves no step to skip: the report and the run's note say so."""
    name = "hc_window"
    data = copy.deepcopy(base_file)
    data["teacache"]["recommended"] = {"rel_l1_thresh": 0.3, "start_percent": 0.6, "end_percent": 1.0}
    _file(cc, name).write_text(json.dumps(data))
    _, hist = run_prompt(_tea(f"user:{name}", end=0.5, steps=6))
    report = hist["outputs"]["5"]["text"][0]
    assert "nothing will be skipped" in report and "start 60%" in report, report
    st = [s for s in mod("accel.cache.report")._LAST.values() if s.set_name == f"user:{name}"][-1]
    assert st.skipped == 0 and any("nothing will be skipped" in n for n in st.notes)
    for kind_prompt in (_mag("wan2.1_t2v_1.3B", start=-1.0, end=0.1, steps=6),):  # published: retention 0.2
        _, hist = run_prompt(kind_prompt)
        assert "nothing will be skipped" in hist["outputs"]["5"]["text"][0]


# ============================================================================ issue #29: round three
def test_backups_made_in_the_same_second_never_replace_each_other(unets, cc, mod, monkeypatch):
    """Two overwrites of one name within the same second (two prompts queued back to back, other models): each
    replaced file is kept, under its own .bak name; before, the second backup replaced the first one."""
    import time as real_time

    name = "hc_same_second"
    _calibrate(name)
    first = _file(cc, name).read_bytes()
    strftime = real_time.strftime
    monkeypatch.setattr(real_time, "strftime",  # the clock stands still: both backups get the same second
                        lambda fmt, *a: "20260101-120000" if fmt == "%Y%m%d-%H%M%S" else strftime(fmt, *a))
    report = _calibrate(name, unet=OTHER_UNET, overwrite=True)
    assert "overwrite is on" in report
    second = _file(cc, name).read_bytes()
    _calibrate(name, unet=UNET, overwrite=True)
    baks = sorted(cc.user_dir().glob(f"{name}.*.json.bak"))
    assert sorted(b.read_bytes() for b in baks) == sorted([first, second]), [b.name for b in baks]
    assert all("20260101-120000" in b.name for b in baks)
    st = [s for s in mod("accel.cache.report")._LAST.values() if s.set_name == f"user:{name}"][-1]
    assert any("the replaced file is kept as" in n for n in st.notes), st.notes


def test_calibration_file_keeps_the_newest_runs_records(unets, cc, mod, monkeypatch):
    """The file no longer grows by a run's records per run without bound: it keeps the records of the newest
    KEPT_RUNS runs (the run count counts all of them), the fits are redone over those, and the run says so."""
    calib = mod("accel.cache.calibrate")
    assert calib.KEPT_RUNS >= 16  # enough runs for the fits; a small cap here only to keep the test short
    monkeypatch.setattr(calib, "KEPT_RUNS", 3)
    name = "hc_bounded"
    sizes = []
    for seed in range(5):
        _calibrate(name, seed=seed)
        sizes.append(_file(cc, name).stat().st_size)
    runs, samples, data = _runs(cc, name)
    assert (runs, samples) == (5, 3)
    assert sizes[4] <= sizes[2] * 1.1, sizes  # bounded: the 5th run's file is no larger than the 3rd's
    assert data["teacache"]["points"] == samples * 2 * 3  # fitted over the kept runs: 3 runs x 2 branches x 3 steps
    st = [s for s in mod("accel.cache.report")._LAST.values() if s.set_name == f"user:{name}"][-1]
    assert any("5 run(s) in the file, the newest 3 with their records" in n
               and "records dropped: the file keeps at most 3" in n for n in st.notes), st.notes


def test_start_equal_to_end_is_not_reported_as_nothing_skipped(base_file, cc, sc, mod):
    """The skip window is closed at both ends (start <= step/steps <= end): start == end still lets the step exactly
    there be skipped, so 'nothing will be skipped' was wrong; the run's note names the step instead."""
    name = "hc_point_window"
    data = copy.deepcopy(base_file)
    _file(cc, name).write_text(json.dumps(data))
    _, hist = run_prompt(_tea(f"user:{name}", thresh=10.0, start=0.5, end=0.5, steps=6))
    report = hist["outputs"]["5"]["text"][0]
    assert "nothing will be skipped" not in report and "equals end_percent" in report, report
    st = [s for s in mod("accel.cache.report")._LAST.values() if s.set_name == f"user:{name}"][-1]
    assert st.skipped >= 1, st.notes  # step 3 of 6 (50%) was skipped
    assert not any("nothing will be skipped" in n for n in st.notes)
    assert any("only step(s) 3 of this run" in n for n in st.notes), st.notes


# ============================================================================ 6. the calibration folder, on a live
# server
# Files another tool (or a user) put into user/accel/cache_coefficients: the set lists are built inside ComfyUI's HTTP
# server (/object_info runs the nodes' define_schema in its event loop), so what is there must never take a node off
# the list, stop a prompt that names another set, or freeze the API.

@pytest.fixture(scope="module")
def server(comfy, M, cc, tmp_path_factory):
    from accel_harness.server import tiny_wan_server

    base = tmp_path_factory.mktemp("calibration-folder-server")
    folder = base / "user" / "accel" / "cache_coefficients"
    folder.mkdir(parents=True)
    (folder / "hc_good.json").write_text(json.dumps({
        "format": cc.USER_FORMAT, "name": "hc_good", "family": "wan21", "variant": "t2v", "size": "",
        "teacache": {"signal": "e0", "coefficients": [0.1, 0.0], "recommended": {"rel_l1_thresh": 0.3}}}))
    with tiny_wan_server(base, UNET) as srv:
        srv.folder = folder
        yield srv


def _choices(info, node, input_name) -> list:
    spec = info[node]["input"]["required"][input_name]
    return spec[1]["options"] if len(spec) > 1 and "options" in spec[1] else spec[0]


def _server_refusal(server, prompt) -> str:
    from accel_harness.server import ServerError

    with pytest.raises(ServerError) as e:
        server.submit(prompt)
    return str(e.value).replace("\\'", "'").replace('\\"', '"')


def _deep(n=100000) -> str:
    return "[" * n + "]" * n


def test_deeply_nested_files_keep_the_nodes_and_name_the_file(server, cc):
    """A file nested too deep for Python's json (100,000 lists), and a valid calibration file whose teacache value
    nests that deep: the reader caught JSONDecodeError only, so "maximum recursion depth exceeded" escaped from the
    set list. /object_info lost Accel TeaCache and Accel MagCache, and every TeaCache prompt (also one naming another
    set) was refused without naming the file. Now both files are listed as damaged with a warning naming them, the
    nodes stay, a prompt naming another set runs, and one naming a deep file is refused naming the input and file."""
    (server.folder / "hc_deep.json").write_text(_deep())
    head = json.dumps({"format": cc.USER_FORMAT, "family": "wan21", "variant": "t2v", "size": "", "teacache": 0})
    (server.folder / "hc_deepset.json").write_text(head.replace('"teacache": 0', '"teacache": ' + _deep()))
    try:
        info = server.object_info()
        assert "AccelTeaCache" in info and "AccelMagCache" in info, sorted(k for k in info if k.startswith("Accel"))
        tea = _choices(info, "AccelTeaCache", "coefficients")
        assert {"user:hc_good", "user:hc_deep", "user:hc_deepset"} <= set(tea), tea
        entry = server.run(_tea("user:hc_good", steps=2), timeout=300)
        assert entry["status"]["status_str"] == "success"
        for name in ("hc_deep", "hc_deepset"):
            msg = _server_refusal(server, _tea(f"user:{name}"))
            assert "input 'coefficients'" in msg and f"{name}.json" in msg and "deeper than" in msg, msg[-1500:]
            log = server.log_tail(400)
            assert any(f"{name}.json" in ln and "deeper than" in ln for ln in log.splitlines()), log[-3000:]
        assert server.alive()
    finally:
        for name in ("hc_deep.json", "hc_deepset.json"):
            (server.folder / name).unlink()


def test_fifo_device_and_folder_named_json_never_freeze_the_server(server):
    """A FIFO named *.json in the folder froze the whole HTTP API: the set list read every file in full inside the
    server's event loop, and reading a FIFO waits for a writer (/object_info and /queue never answered). Also a link to
    a device and a folder named *.json. Now none is opened: each is skipped with a warning naming it, the API answers,
    and a prompt naming one is refused naming the input and the file."""
    os.mkfifo(server.folder / "hc_fifo.json")
    (server.folder / "hc_zero.json").symlink_to("/dev/zero")
    (server.folder / "hc_dir.json").mkdir()
    try:
        info = server.object_info()  # 60 s timeout: it used to never answer
        assert server.get("/queue", timeout=30) is not None
        tea = _choices(info, "AccelTeaCache", "coefficients")
        assert "user:hc_good" in tea and not {"user:hc_fifo", "user:hc_zero", "user:hc_dir"} & set(tea), tea
        for name, what in (("hc_fifo", "named pipe"), ("hc_zero", "character device"), ("hc_dir", "folder")):
            msg = _server_refusal(server, _tea(f"user:{name}"))
            assert "input 'coefficients'" in msg and f"{name}.json" in msg and what in msg, msg[-1500:]
            assert any(f"{name}.json" in ln and what in ln and "not listed" in ln
                       for ln in server.log_tail(400).splitlines()), server.log_tail(60)
    finally:
        try:  # a server stuck reading the FIFO (the code before the fix) gets an end of file and goes on
            os.close(os.open(server.folder / "hc_fifo.json", os.O_WRONLY | os.O_NONBLOCK))
        except OSError:
            pass  # no reader: nothing waits on it
        for name in ("hc_fifo.json", "hc_zero.json"):
            (server.folder / name).unlink()
        (server.folder / "hc_dir.json").rmdir()


def test_oversized_file_is_not_read(server):
    """A 100 MB file (valid JSON or not) was read in full inside the event loop on every /object_info (21 s for a valid
    one, the API frozen meanwhile). Now a file over the size bound is not read at all: listed as damaged, and a prompt
    naming it is refused naming the input, the file and the bound."""
    with open(server.folder / "hc_huge.json", "wb") as f:
        f.truncate(100 * 2**20)  # sparse: 100 MB on paper, nothing on the disk
    try:
        assert "user:hc_huge" in _choices(server.object_info(), "AccelTeaCache", "coefficients")
        msg = _server_refusal(server, _tea("user:hc_huge"))
        assert "input 'coefficients'" in msg and "hc_huge.json" in msg and "100.0 MiB" in msg and "at most" in msg, msg
    finally:
        (server.folder / "hc_huge.json").unlink()


def test_calibration_files_are_parsed_once_and_large_ones_off_the_request(cc, monkeypatch):
    """The set lists (built inside ComfyUI's HTTP server) parse a file once after each change, not on every request;
    a changed file larger than INLINE_BYTES is parsed in a background thread, listed for every kind meanwhile, and
    listed for its own kinds once parsed. (Before, every /object_info and every prompt check read every file in
    full.)"""
    import time

    d = cc.user_dir()
    d.mkdir(parents=True, exist_ok=True)
    rec = {"p": 0.5, "chunks": [{"branch": "cond", "signal": {"e0": 0.25}}]}
    n = cc.INLINE_BYTES // len(json.dumps(rec)) + 1000
    data = {"format": cc.USER_FORMAT, "name": "hc_large", "family": "wan21", "variant": "t2v", "size": "",
            "teacache": {"signal": "e0", "coefficients": [0.1, 0.0]}, "samples": [{"records": [rec] * n}]}
    path = d / "hc_large.json"
    parsed = []
    real = cc._parse
    monkeypatch.setattr(cc, "_parse", lambda p, where: parsed.append(str(p)) or real(p, where))
    try:
        path.write_text(json.dumps(data))
        assert path.stat().st_size > cc.INLINE_BYTES
        assert "user:hc_large" in cc.user_sets("magcache")  # not parsed on the request: listed meanwhile
        deadline = time.monotonic() + 60
        while "user:hc_large" in cc.user_sets("magcache") and time.monotonic() < deadline:
            time.sleep(0.05)
        assert "user:hc_large" not in cc.user_sets("magcache") and "user:hc_large" in cc.user_sets("teacache")
        assert cc.load_user("user:hc_large", "teacache")["teacache"]["coefficients"] == [0.1, 0.0]
        assert parsed.count(str(path)) == 1  # the lists and the prompt check share one parse
        data["magcache"] = {"ratios": {"cond": [1.0, 0.9, 0.8]}}
        path.write_text(json.dumps(data))  # changed: parsed again
        deadline = time.monotonic() + 60
        while "user:hc_large" not in cc.user_sets("magcache") or str(path) in cc._IN_BACKGROUND:
            assert time.monotonic() < deadline
            time.sleep(0.05)
        assert parsed.count(str(path)) == 2
    finally:
        path.unlink()
