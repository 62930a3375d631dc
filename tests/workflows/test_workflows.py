"""The shipped workflows (workflows/*.json UI, workflows/api/*.json API) against a real ComfyUI.

Static (in process, the test bed's ComfyUI + this pack): every workflow scripts/workflows.py defines has both
files; each API file equals what its definition builds from today's node specs (a node gaining an input makes
it stale); each UI file converts back (accel_harness.uiformat.ui_to_api: widgets_values -> input names, the
frontend's extra control_after_generate / upload values, ComfyUI 0.33's dynamic combos) to exactly its API
twin, so editing one without the other fails. The files are written with ComfyUI 0.3.75; on a newer ComfyUI,
inputs its core nodes gained that neither file has are taken at their defaults, as the frontend does, and
reported as warnings (uiformat.fill_new_inputs); any other difference fails; layouts are readable (nothing overlaps, links run left to right); model names are
ComfyUI's template names; every API prompt passes ComfyUI's own validate_prompt with placeholder model
files under those names. tests/workflows/test_browser.py loads the UI files in the real frontend and checks that its
graphToPrompt() gives the API twin.

Live (ComfyUI's main.py over HTTP, tiny random Wan written under the template file names): the before/after
prompt and a Wan 2.1 prompt with every accel node run to success and their outputs exist.
"""
import copy
import importlib.util
import json
import sys
import warnings
from pathlib import Path

import pytest

from accel_harness import uiformat as U

REPO = Path(__file__).resolve().parents[2]


def _load_script():
    spec = importlib.util.spec_from_file_location("accel_workflows_script", REPO / "scripts" / "workflows.py")
    m = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = m  # dataclasses look their module up there
    spec.loader.exec_module(m)
    return m


W = _load_script()
NAMES = [n for n in W.WORKFLOWS if n not in W.TOOLS]  # the model workflows (W.TOOLS load no model: the report)


@pytest.fixture(scope="module")
def info(pack):
    return U.local_object_info()


def _ui(name):
    return json.loads((REPO / "workflows" / f"{name}.json").read_text())


def _api(name):
    return json.loads((REPO / "workflows" / "api" / f"{name}.json").read_text())


# ------------------------------------------------------------------------------------------ static

def test_the_issue_workflows_are_defined():
    """Wan 2.1 1.3B/14B/I2V, Wan 2.2 A14B, Flux-dev, Qwen-Image, a before/after workflow, the few-step ones
    (issue 15): Wan 2.2 A14B T2V and I2V with LightX2V's 4-step LoRAs, Wan 2.2 TI2V-5B; and HunyuanVideo and
    LTX-Video T2V (issue 30); the 4-step T2V at 720p with Level-1's opt-in sparse attention (issue 32); Z-Image Turbo
    and SDXL base + refiner (issue 52); MiniMax-H3's standard and 4-step turbo templates, HunyuanVideo 1.5, LTX-2,
    Flux.2 and Kandinsky 5 (issue 54); FLUX.1 Kontext dev and Qwen-Image-Edit (issue 52)."""
    assert len(NAMES) == 23 and set(NAMES) == set(EXPECTED_NODES)
    assert any("A14B" in n for n in NAMES) and any("i2v" in n for n in NAMES) and any("before_after" in n for n in NAMES)


def skip_missing(info, name):
    """Skip a workflow whose nodes this ComfyUI lacks (MiniMax-H3's, LTX-2's, Kandinsky 5's on 0.3.75)."""
    missing = W.missing_nodes(name, info)
    if missing:
        pytest.skip(f"this ComfyUI lacks the node(s) {sorted(missing)} (a newer ComfyUI's model)")


@pytest.mark.parametrize("name", list(W.WORKFLOWS))
def test_files_are_current_and_twins_match(info, name):
    skip_missing(info, name)
    notes = []
    problems = W.check(info, [name], notes)
    assert not problems, "\n".join(problems) + "\nregenerate with `.testbed/venv/bin/python scripts/workflows.py --write`"
    for n in notes:  # a newer ComfyUI's core inputs that neither file has, taken at their defaults
        warnings.warn(n)


def test_check_reports_files_that_are_not_defined(info, tmp_path, monkeypatch):
    monkeypatch.setattr(W, "API_DIR", tmp_path)
    (tmp_path / "orphan.json").write_text("{}")
    assert any("orphan.json is not defined" in p for p in W.check(info, []))


def _copy_files(tmp_path, monkeypatch, name):
    """The shipped twins of `name` in tmp_path (W.API_DIR / W.UI_DIR point there); returns (api, ui) paths."""
    api_dir, ui_dir = tmp_path / "api", tmp_path / "ui"
    api_dir.mkdir(), ui_dir.mkdir()
    for d, src in ((api_dir, W.API_DIR), (ui_dir, W.UI_DIR)):
        (d / f"{name}.json").write_text((src / f"{name}.json").read_text())
    monkeypatch.setattr(W, "API_DIR", api_dir)
    monkeypatch.setattr(W, "UI_DIR", ui_dir)
    return api_dir / f"{name}.json", ui_dir / f"{name}.json"


def test_check_reports_a_stale_note(info, tmp_path, monkeypatch):
    """A note written from an older definition is a problem (the graphs may still agree)."""
    name = "wan2.2_t2v_A14B_lightx2v_4step_level1"
    _, ui_p = _copy_files(tmp_path, monkeypatch, name)
    assert not W.check(info, [name])
    ui = json.loads(ui_p.read_text())
    note = next(n for n in ui["nodes"] if n["type"] in ("Note", "MarkdownNote"))
    note["widgets_values"][0] = note["widgets_values"][0].replace("x264", "x265")
    ui_p.write_text(json.dumps(ui))
    [problem] = W.check(info, [name])
    assert "notes differ" in problem and note["title"] in problem, problem


def test_check_reports_a_pack_input_missing_from_both_files(info, tmp_path, monkeypatch):
    """A pack node's input in neither twin means the file predates it: a problem, where a newer ComfyUI's core input
    is taken at its default (a note)."""
    name = "wan2.1_t2v_1.3B_level1"
    api_p, ui_p = _copy_files(tmp_path, monkeypatch, name)
    api, ui = json.loads(api_p.read_text()), json.loads(ui_p.read_text())
    [nid] = [k for k, v in api.items() if v["class_type"] == "AccelWanLevel1"]
    layout = [n for n, _, _ in U.widget_layout(info["AccelWanLevel1"], lambda *a: 0) if n is not None]
    last = layout[-1]  # the newest input: the frontend stores widget values in order
    del api[nid]["inputs"][last]
    node = next(n for n in ui["nodes"] if str(n["id"]) == nid)
    node["widgets_values"] = node["widgets_values"][:len(layout) - 1]
    node["inputs"] = [i for i in node.get("inputs") or [] if i.get("name") != last]  # the frontend's widget slot
    api_p.write_text(json.dumps(api)), ui_p.write_text(json.dumps(ui))
    problems = W.check(info, [name])
    assert any("pack's node gained inputs" in p and last in p for p in problems), problems


W_SHIPPED = ("AccelCUDASettings", "AccelAttention", "AccelCompile")
EXPECTED_NODES = {
    "wan2.1_t2v_1.3B_level1": {"AccelWanLevel1", "EmptyHunyuanLatentVideo", "ModelSamplingSD3", "KSampler"},
    "wan2.1_t2v_14B_attention_compile_teacache": {"AccelAttention", "AccelCompile", "AccelTeaCache", "KSampler"},
    "wan2.1_i2v_480p_level1_teacache": {"WanImageToVideo", "CLIPVisionLoader", "CLIPVisionEncode", "LoadImage",
                                        "AccelWanLevel1", "AccelTeaCache"},
    "wan2.2_t2v_A14B_attention_compile_teacache": {"KSamplerAdvanced", "AccelAttention", "AccelCompile", "AccelTeaCache"},
    "flux1_dev_fp8_teacache": {"AccelLoadDiffusionModelFP8", "AccelTeaCache", "DualCLIPLoader", "FluxGuidance",
                               "EmptySD3LatentImage", "SaveImage"},
    "qwen_image_attention_compile": {"AccelAttention", "AccelCompile", "EmptySD3LatentImage", "SaveImage"},
    "wan2.1_t2v_1.3B_before_after": {"AccelCUDASettings", "AccelAttention", "AccelCompile", "AccelLatentDiff"},
    "wan2.2_t2v_A14B_lightx2v_4step_level1": {"LoraLoaderModelOnly", "ModelSamplingSD3", "AccelWanLevel1",
                                              "KSamplerAdvanced", "EmptyHunyuanLatentVideo", "AccelSaveVideo"},
    "wan2.2_i2v_A14B_lightx2v_4step_level1": {"LoraLoaderModelOnly", "ModelSamplingSD3", "AccelWanLevel1",
                                              "KSamplerAdvanced", "WanImageToVideo", "LoadImage", "AccelSaveVideo"},
    "wan2.2_t2v_A14B_lightx2v_4step_720p_sparse": {"LoraLoaderModelOnly", "ModelSamplingSD3", "AccelWanLevel1",
                                                   "KSamplerAdvanced", "EmptyHunyuanLatentVideo", "SaveVideo"},
    "wan2.2_ti2v_5B_level1": {"Wan22ImageToVideoLatent", "ModelSamplingSD3", "AccelWanLevel1", "KSampler"},
    "hunyuan_video_t2v_attention_compile": {"UNETLoader", "DualCLIPLoader", "VAELoader", "EmptyHunyuanLatentVideo",
                                            "FluxGuidance", "ModelSamplingSD3", "BasicGuider", "RandomNoise",
                                            "KSamplerSelect", "BasicScheduler", "SamplerCustomAdvanced",
                                            "VAEDecodeTiled", "SaveVideo", *W_SHIPPED},
    "ltxv_t2v_attention_compile": {"CheckpointLoaderSimple", "CLIPLoader", "LTXVConditioning", "EmptyLTXVLatentVideo",
                                   "KSamplerSelect", "LTXVScheduler", "SamplerCustom", "VAEDecode", "SaveVideo",
                                   *W_SHIPPED},
    "minimax_h3_t2va_level1": {"UNETLoader", "CLIPLoader", "VAELoader", "MiniMaxH3ImageToVideo", "BasicGuider",
                               "KSamplerSelect", "BasicScheduler", "RandomNoise", "SamplerCustomAdvanced",
                               "LTXVSeparateAVLatent", "VAEDecode", "VAEDecodeAudio", "CreateVideo", "SaveVideo",
                               "AccelMiniMaxH3Level1"},
    "minimax_h3_t2va_turbo_4step_level1": {"UNETLoader", "LoraLoaderModelOnly", "MiniMaxH3ImageToVideo", "BasicGuider",
                                           "BasicScheduler", "SamplerCustomAdvanced", "VAEDecodeAudio", "SaveVideo",
                                           "AccelMiniMaxH3Level1"},
    "hunyuan_video15_t2v_attention_compile": {"UNETLoader", "DualCLIPLoader", "VAELoader", "EmptyHunyuanVideo15Latent",
                                              "ModelSamplingSD3", "CFGGuider", "BasicScheduler", "SamplerCustomAdvanced",
                                              "SaveVideo", *W_SHIPPED},
    "ltx2_t2v_attention_compile": {"CheckpointLoaderSimple", "LTXVAudioVAELoader", "LTXAVTextEncoderLoader",
                                   "LTXVConditioning", "EmptyLTXVLatentVideo", "LTXVEmptyLatentAudio",
                                   "LTXVConcatAVLatent", "CFGGuider", "LTXVScheduler", "SamplerCustomAdvanced",
                                   "LTXVSeparateAVLatent", "VAEDecodeTiled", "LTXVAudioVAEDecode", "SaveVideo",
                                   *W_SHIPPED},
    "flux2_dev_attention_compile": {"UNETLoader", "CLIPLoader", "VAELoader", "FluxGuidance", "EmptyFlux2LatentImage",
                                    "BasicGuider", "Flux2Scheduler", "SamplerCustomAdvanced", "SaveImage", *W_SHIPPED},
    "kandinsky5_t2v_attention_compile": {"UNETLoader", "DualCLIPLoader", "VAELoader", "Kandinsky5ImageToVideo",
                                         "ModelSamplingSD3", "KSampler", "SaveVideo", *W_SHIPPED},
    "z_image_turbo_attention_compile": {"UNETLoader", "CLIPLoader", "VAELoader", "ConditioningZeroOut",
                                        "EmptySD3LatentImage", "ModelSamplingAuraFlow", "KSampler", "SaveImage",
                                        *W_SHIPPED},
    "sdxl_base_refiner_attention_compile": {"CheckpointLoaderSimple", "EmptyLatentImage", "KSamplerAdvanced",
                                            "SaveImage", *W_SHIPPED},
    "flux1_kontext_dev_attention_compile": {"UNETLoader", "DualCLIPLoader", "VAELoader", "LoadImage",
                                            "FluxKontextImageScale", "VAEEncode", "ReferenceLatent", "FluxGuidance",
                                            "ConditioningZeroOut", "KSampler", "SaveImage", *W_SHIPPED},
    "qwen_image_edit_attention_compile": {"UNETLoader", "CLIPLoader", "VAELoader", "LoadImage",
                                          "TextEncodeQwenImageEdit", "VAEEncode",
                                          "ModelSamplingAuraFlow", "CFGNorm", "KSampler", "SaveImage", *W_SHIPPED},
}
# the image-edit workflows (issue 52): workflow -> (the node that takes the scaled input image with the prompt,
# the sampler's CFG), as ComfyUI's templates flux_kontext_dev_basic and image_qwen_image_edit (its 20-step setting)
EDIT_WORKFLOWS = {"flux1_kontext_dev_attention_compile": ("VAEEncode", 1.0),
                  "qwen_image_edit_attention_compile": ("TextEncodeQwenImageEdit", 2.5)}
# The family workflows of issue 30 (workflow -> bench/families.py family): their sampler's model comes through
# exactly the chain bench_matrix.py measures as that family's `shipped` one.
FAMILY_WORKFLOWS = {"hunyuan_video_t2v_attention_compile": "hunyuan_video", "ltxv_t2v_attention_compile": "ltxv",
                    "minimax_h3_t2va_level1": "minimax_h3", "minimax_h3_t2va_turbo_4step_level1": "minimax_h3_turbo",
                    "hunyuan_video15_t2v_attention_compile": "hunyuan_video15", "ltx2_t2v_attention_compile": "ltxav",
                    "flux2_dev_attention_compile": "flux2", "kandinsky5_t2v_attention_compile": "kandinsky5",
                    "z_image_turbo_attention_compile": "z_image", "sdxl_base_refiner_attention_compile": "sdxl"}
SHIPPED_CHAINS = {"cuda_attn_compile": ["AccelCUDASettings", "AccelAttention", "AccelCompile"], "level1": ["AccelWanLevel1"],
                  "level1_h3": ["AccelMiniMaxH3Level1"]}


def _fewstep_checks(api, types, note):
    """Both experts: UNETLoader -> its own LightX2V LoRA (strength 1) -> shift 5 -> Level-1; no step cache; 4 steps
    at CFG 1 split 2 + 2; the note says why the caches are off."""
    ids = {k: v for k, v in api.items()}
    assert types.count("UNETLoader") == types.count("LoraLoaderModelOnly") == types.count("AccelWanLevel1") == 2
    assert not {"AccelTeaCache", "AccelMagCache"} & set(types)
    ks = sorted((v["inputs"] for v in api.values() if v["class_type"] == "KSamplerAdvanced"),
                key=lambda i: i["start_at_step"])
    assert [(k["start_at_step"], k["end_at_step"]) for k in ks] == [(0, 2), (2, 10000)]
    assert all(k["steps"] == 4 and k["cfg"] == 1.0 for k in ks)
    for k, expert in zip(ks, ("high", "low")):
        l1 = ids[k["model"][0]]
        shift = ids[l1["inputs"]["model"][0]]
        lora = ids[shift["inputs"]["model"][0]]
        unet = ids[lora["inputs"]["model"][0]]
        assert (l1["class_type"], shift["class_type"], lora["class_type"], unet["class_type"]) == \
            ("AccelWanLevel1", "ModelSamplingSD3", "LoraLoaderModelOnly", "UNETLoader")
        assert shift["inputs"]["shift"] == 5.0 and lora["inputs"]["strength_model"] == 1.0
        assert f"_{expert}_noise" in lora["inputs"]["lora_name"] and f"_{expert}_noise_" in unet["inputs"]["unet_name"]
        assert "lightx2v_4steps" in lora["inputs"]["lora_name"]
    assert "Why no TeaCache / MagCache" in note and "4 steps" in note


def _family_checks(api, family, note):
    """Each sampler's model input (one sampler; SDXL: base and refiner): loader (-> shift where the example has one)
    -> the family's shipped chain, in bench_matrix.py's order (Accel Attention on backend auto, Accel Compile with
    its defaults); the note says where its speed on the model is stated (not a figure of its own)."""
    spec = importlib.util.spec_from_file_location("accel_bench_families", REPO / "bench" / "families.py")
    families = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = families  # dataclasses look their module up there
    spec.loader.exec_module(families)
    chain = SHIPPED_CHAINS[families.FAMILIES[family].shipped]
    samplers = [v for v in api.values() if v["class_type"] in ("SamplerCustom", "BasicGuider", "CFGGuider", "KSampler",
                                                                "KSamplerAdvanced")]
    for sampler in samplers:
        seen, nid = [], sampler["inputs"]["model"][0]
        while api[nid]["class_type"] in chain:
            seen.append(api[nid]["class_type"])
            nid = api[nid]["inputs"]["model"][0]
        assert seen[::-1] == chain, seen
        assert api[nid]["class_type"] in ("UNETLoader", "CheckpointLoaderSimple", "ModelSamplingSD3",
                                          "ModelSamplingAuraFlow", "LoraLoaderModelOnly"), api[nid]
    assert sum(v["class_type"] in chain for v in api.values()) == len(chain) * len(samplers)  # no unused chain
    assert all(v["inputs"].get("backend", "auto") == "auto" for v in api.values() if v["class_type"] == "AccelAttention")
    assert all(v["inputs"]["cuda_graphs"] == "off" and v["inputs"]["backend"] == "inductor"
               for v in api.values() if v["class_type"] == "AccelCompile")
    # where the chain was measured: the report's family line and the pack's family table (no copied figure)
    assert "`family:` line" in note and 'docs/nodes.md, "Model families"' in note
    f = families.FAMILIES[family]
    if family.startswith("minimax_h3"):  # the bench measures the shipped graph's size, length and steps
        [cond] = [v["inputs"] for v in api.values() if v["class_type"] == "MiniMaxH3ImageToVideo"]
        [sched] = [v["inputs"] for v in api.values() if v["class_type"] == "BasicScheduler"]
        [select] = [v["inputs"] for v in api.values() if v["class_type"] == "KSamplerSelect"]
        assert (cond["width"], cond["height"], cond["length"], sched["steps"], select["sampler_name"]) == \
            (f.width, f.height, f.frames, f.steps, f.sampler)


def _load_level1_sparse() -> str:
    """Level-1's sparse quality value, read from the pack's source (the static tests import no pack module)."""
    import re

    src = (REPO / "accel" / "wan_level1" / "preset.py").read_text()
    return re.search(r'^SPARSE = "([^"]+)"', src, re.M).group(1)


@pytest.mark.parametrize("name", NAMES)
def test_workflow_content(name):
    api = _api(name)
    types = [v["class_type"] for v in api.values()]
    assert EXPECTED_NODES[name] <= set(types), EXPECTED_NODES[name] - set(types)
    assert "AccelRandomConditioning" not in types  # shipped workflows use real text encoders
    ui = _ui(name)
    notes = [n for n in ui["nodes"] if n["type"] == "MarkdownNote"]
    if "_4step_" in name and name.startswith("wan2.2"):
        _fewstep_checks(api, types, notes[0]["widgets_values"][0] if notes else "")
    elif name.startswith("wan2.2_t2v_A14B"):  # one accel chain per expert, KSamplerAdvanced split at step 10
        assert types.count("AccelCompile") == 2 and types.count("AccelTeaCache") == 2 == types.count("UNETLoader")
        k = sorted((v["inputs"]["start_at_step"], v["inputs"]["end_at_step"]) for v in api.values()
                   if v["class_type"] == "KSamplerAdvanced")
        assert k == [(0, 10), (10, 10000)]
    if name.endswith("_sparse"):  # 720p, both experts' Level-1 on the opt-in sparse quality; the note says the cost
        sparse = _load_level1_sparse()
        assert [v["inputs"]["quality"] for v in api.values() if v["class_type"] == "AccelWanLevel1"] == [sparse] * 2
        assert all(v["inputs"]["quality"] == "exact" for n in W.WORKFLOWS if not n.endswith("_sparse")
                   for v in _api(n).values() if v["class_type"] == "AccelWanLevel1")  # nowhere else
        [lat] = [v["inputs"] for v in api.values() if v["class_type"] == "EmptyHunyuanLatentVideo"]
        assert (lat["width"], lat["height"], lat["length"]) == (1280, 720, 81)
        note = notes[0]["widgets_values"][0]
        assert "not exact" in note and "**not measured**" in note and "arXiv:2506.19852" in note
    if name in FAMILY_WORKFLOWS:
        _family_checks(api, FAMILY_WORKFLOWS[name], notes[0]["widgets_values"][0] if notes else "")
    if name.endswith("before_after"):  # same seed and settings on both branches, only the model differs
        ks = [v["inputs"] for v in api.values() if v["class_type"] == "KSampler"]
        assert len(ks) == 2 and {k: v for k, v in ks[0].items() if k != "model"} == \
            {k: v for k, v in ks[1].items() if k != "model"} and ks[0]["model"] != ks[1]["model"]
    assert len(ui["groups"]) >= 5 and all(g["title"] for g in ui["groups"])
    assert len(notes) == 1 and "Model files" in notes[0]["widgets_values"][0]
    assert not U.geometry_problems(ui)


@pytest.mark.parametrize("name", list(EDIT_WORKFLOWS))
def test_edit_workflows_sample_from_the_input_image_through_the_shipped_chain(name):
    """The sampler's start latent is the encoded input image (Kontext: scaled to a Kontext size first), the prompt side
    sees the same image, 20 steps euler / simple at the template's CFG, and the model comes through the shipped chain
    (Accel CUDA Settings -> Attention -> Compile) once."""
    api = _api(name)
    by_type = lambda t: [k for k, v in api.items() if v["class_type"] == t]  # noqa: E731
    [ks] = [api[k]["inputs"] for k in by_type("KSampler")]
    [enc] = by_type("VAEEncode")
    assert ks["latent_image"][0] == enc and (ks["steps"], ks["cfg"], ks["sampler_name"], ks["scheduler"]) == \
        (20, EDIT_WORKFLOWS[name][1], "euler", "simple")
    [scale] = by_type("FluxKontextImageScale") or by_type("LoadImage")  # Qwen-Image-Edit: the image as loaded
    assert api[enc]["inputs"]["pixels"][0] == scale
    takers = [api[k]["inputs"] for k in by_type(EDIT_WORKFLOWS[name][0])]
    assert takers and all(t.get("image", t.get("pixels"))[0] == scale for t in takers)
    seen, nid = [], ks["model"][0]
    while api[nid]["class_type"] in W_SHIPPED:
        seen.append(api[nid]["class_type"])
        nid = api[nid]["inputs"]["model"][0]
    assert seen[::-1] == list(W_SHIPPED) and sum(v["class_type"] in W_SHIPPED for v in api.values()) == 3
    if name.startswith("flux1_kontext"):  # the prompt carries the image as its reference latent, guidance 2.5
        [ref] = [api[k]["inputs"] for k in by_type("ReferenceLatent")]
        [guid] = [api[k]["inputs"] for k in by_type("FluxGuidance")]
        assert ref["latent"][0] == enc and guid["conditioning"][0] in by_type("ReferenceLatent")
        assert guid["guidance"] == 2.5 and api[ks["positive"][0]]["class_type"] == "FluxGuidance"


@pytest.mark.parametrize("name", NAMES)
def test_model_files_use_template_names_with_links(name):
    files = W.model_files(_api(name))
    assert "?" not in files, f"model files not in scripts/workflows.py MODELS: {files['?']}"
    for folder, names in files.items():
        for f in names:
            assert W.MODELS[f][1].startswith("https://huggingface.co/") and W.MODELS[f][1].endswith("/" + f)
    loaders = [n for n in _ui(name)["nodes"] if n["type"] in W.MODEL_INPUTS]
    assert loaders and all(n["properties"].get("models") for n in loaders)  # the frontend's download links


def test_converter_follows_frontend_widget_rules(info):
    ui = _ui("wan2.1_i2v_480p_level1_teacache")
    by_type = {n["type"]: n for n in ui["nodes"]}
    ks, img = by_type["KSampler"], by_type["LoadImage"]
    assert ks["widgets_values"][:2] == [42, "fixed"]            # seed, then control_after_generate
    assert img["widgets_values"] == [W.INPUT_IMAGE, "image"]    # combo, then the upload widget's value
    api = U.ui_to_api(ui, info)
    assert api[str(ks["id"])]["inputs"]["seed"] == 42 and "control_after_generate" not in api[str(ks["id"])]["inputs"]
    assert api[str(img["id"])]["inputs"] == {"image": W.INPUT_IMAGE}
    assert all(n["class_type"] != "MarkdownNote" for n in api.values())
    bad = copy.deepcopy(ui)
    next(n for n in bad["nodes"] if n["type"] == "KSampler")["widgets_values"].pop(1)  # lose the control value
    with pytest.raises(U.ConversionError, match="widgets_values"):
        U.ui_to_api(bad, info)


@pytest.mark.parametrize("edit", ["widget", "link", "title", "node"])
def test_editing_one_twin_without_the_other_fails(info, edit):
    name = "wan2.1_t2v_14B_attention_compile_teacache"
    ui = _ui(name)
    api = U.fill_new_inputs(_api(name), ui, info)
    assert not U.prompt_diff(api, U.ui_to_api(ui, info))
    tea = next(n for n in ui["nodes"] if n["type"] == "AccelTeaCache")
    if edit == "widget":
        tea["widgets_values"][0] = 0.2                                # rel_l1_thresh in the UI only
    elif edit == "link":                                              # sampler fed by compile, bypassing TeaCache
        comp = next(n for n in ui["nodes"] if n["type"] == "AccelCompile")
        ks = next(n for n in ui["nodes"] if n["type"] == "KSampler")
        lid = next(i["link"] for i in ks["inputs"] if i["name"] == "model")
        link = next(l for l in ui["links"] if l[0] == lid)
        link[1] = comp["id"]
    elif edit == "title":
        api[str(tea["id"])]["_meta"]["title"] = "renamed"             # in the API only
    else:
        del api[str(tea["id"])]
    assert U.prompt_diff(api, U.ui_to_api(ui, info)), f"an edit of the {edit} went unnoticed"


# ---- ComfyUI 0.33's dynamic inputs and inputs added to core nodes, on a node spec written out here (so these
# run on any ComfyUI). SAVE is 0.33's SaveVideo as /object_info declares it (trimmed: two formats, no AV1).
_ENCODING = ["COMFY_DYNAMICCOMBO_V3", {"options": [
    {"key": "auto", "inputs": {"required": {}}},
    {"key": "re-encode", "inputs": {"required": {
        "crf": ["FLOAT", {"default": 23.0, "min": 0.0, "max": 51.0}],
        "color_space": ["COMBO", {"default": "auto", "options": ["auto", "sRGB", "HDR", "HDR PQ"]}]}}}]}]
_CODEC = ["COMFY_DYNAMICCOMBO_V3", {"options": [
    {"key": "auto", "inputs": {"required": {}}},
    {"key": "h264", "inputs": {"required": {}, "optional": {"encoding": _ENCODING}}}]}]
SAVE = {"SaveVideo": {
    "input": {"required": {"video": ["VIDEO", {}], "filename_prefix": ["STRING", {"default": "video/ComfyUI"}],
                           "format": ["COMFY_DYNAMICCOMBO_V3", {"options": [
                               {"key": "auto", "inputs": {"required": {"codec": _CODEC}}},
                               {"key": "mp4", "inputs": {"required": {"codec": _CODEC}}}]}]},
              "optional": {"codec": ["COMFY_DYNAMICCOMBO_V3", dict(_CODEC[1], hidden=True)]}},
    "input_order": {"required": ["video", "filename_prefix", "format"], "optional": ["codec"]},
    "output": ["VIDEO"], "display_name": "Save Video"}}


def _save_node(values, widget_inputs, **extra):
    inputs = [{"name": "video", "type": "VIDEO", "link": 1}] + [
        {"name": w, "type": "X", "widget": {"name": w}, "link": None} for w in widget_inputs]
    return {"nodes": [{"id": 2, "type": "SaveVideo", "inputs": inputs, "widgets_values": values, **extra}],
            "links": [[1, 1, 0, 2, 0, "VIDEO"]]}  # node 1 (the video's source) is left out


def test_converter_models_dynamic_combos_as_frontend_1_49_saves_them():
    """widgets_values as frontend 1.49.6 serialised 0.33's SaveVideo set to mp4 / h264 / re-encode (recorded
    from the real frontend): each chosen option's inputs follow their combo, named "<combo>.<input>"."""
    names = ["filename_prefix", "format", "format.codec", "format.codec.encoding", "format.codec.encoding.crf",
             "format.codec.encoding.color_space", "codec"]
    values = ["video/x", "mp4", "h264", "re-encode", 23, "auto", "auto"]
    ui = _save_node(values, names, widgets_values_named=dict(zip(names, values)))
    assert U.ui_to_api(ui, SAVE)["2"]["inputs"] == {**dict(zip(names, values)), "video": ["1", 0]}
    # a fresh node: format auto -> format.codec, then the hidden top-level codec
    assert U.widget_slots(SAVE["SaveVideo"]) == [("filename_prefix", "STRING"), ("format", U.DYNAMIC_COMBO),
                                                 ("format.codec", U.DYNAMIC_COMBO), ("codec", U.DYNAMIC_COMBO)]
    assert list(U.full_inputs(SAVE, "SaveVideo", video=["9", 0], format="mp4", **{"format.codec": "h264"})) == [
        "video", "filename_prefix", "format", "format.codec", "format.codec.encoding", "codec"]
    bad = _save_node(["video/x", "mp4", "vp9", "auto"], names[:3] + ["codec"])        # not an option of format.codec
    with pytest.raises(U.ConversionError, match="vp9"):
        U.ui_to_api(bad, SAVE)
    named = dict(zip(names, values), **{"format.codec": "auto"})                       # the two forms disagree
    with pytest.raises(U.ConversionError, match="disagree"):
        U.ui_to_api(_save_node(values, names, widgets_values_named=named), SAVE)


def test_files_from_an_older_comfyui_get_the_new_inputs_at_their_defaults():
    """A file saved before SaveVideo had format.codec (frontend 1.32 on ComfyUI 0.3.75: prefix, format, codec):
    the frontend reads its values in order and leaves the rest at their defaults; so does the converter, and
    says so. It is accepted only where the file is consistent in itself."""
    old = ["filename_prefix", "format", "codec"]
    notes = []
    api = U.ui_to_api(_save_node(["video/x", "auto", "auto"], old), SAVE, notes)
    assert api["2"]["inputs"] == {"filename_prefix": "video/x", "format": "auto", "format.codec": "auto",
                                  "codec": "auto", "video": ["1", 0]}
    assert len(notes) == 1 and "codec" in notes[0] and "defaults" in notes[0]
    with pytest.raises(U.ConversionError, match="widgets_values"):  # lists 3 widget inputs, has 2 values
        U.ui_to_api(_save_node(["video/x", "auto"], old), SAVE)
    with pytest.raises(U.ConversionError, match="widgets_values"):  # more values than widgets
        U.ui_to_api(_save_node(["video/x", "auto", "auto", "auto", "auto"], old), SAVE)
    # The API twin written with the old ComfyUI gets format.codec (the UI file does not list it either) ...
    ui = _save_node(["video/x", "auto", "auto"], old)
    twin = {"2": {"class_type": "SaveVideo", "_meta": {"title": "Save Video"},
                  "inputs": {"video": ["1", 0], "filename_prefix": "video/x", "format": "auto", "codec": "auto"}}}
    notes = []
    assert not U.prompt_diff(U.fill_new_inputs(twin, ui, SAVE, notes), api)
    assert len(notes) == 1 and "format.codec" in notes[0]
    assert "format.codec" not in twin["2"]["inputs"]                 # a copy: the file's prompt is unchanged
    # ... but an input the UI file lists is never filled: dropping it from the API file is a difference.
    del twin["2"]["inputs"]["codec"]
    assert U.prompt_diff(U.fill_new_inputs(twin, ui, SAVE), api) == ["node 2 (SaveVideo).codec: '<missing>' vs 'auto'"]
    twin["2"]["inputs"].update(codec="auto", format="mp4")           # a changed value stays a difference
    assert U.prompt_diff(U.fill_new_inputs(twin, ui, SAVE), api)


def test_layout_check_can_fail():
    ui = _ui("qwen_image_attention_compile")
    assert not U.geometry_problems(ui)
    shift = next(n for n in ui["nodes"] if n["type"] == "ModelSamplingAuraFlow")
    decode = next(n for n in ui["nodes"] if n["type"] == "VAEDecode")
    decode["pos"] = [shift["pos"][0] + 10, shift["pos"][1] + 10]  # on top of the shift node, left of its sampler
    probs = U.geometry_problems(ui)
    assert any("overlap" in p for p in probs) and any("right to left" in p or "partly inside" in p for p in probs)


def _placeholder(path: Path):
    import torch
    from safetensors.torch import save_file

    path.parent.mkdir(parents=True, exist_ok=True)
    if not path.exists():
        save_file({"placeholder": torch.zeros(1)}, str(path))


@pytest.fixture(scope="module")
def model_files(comfy, M):
    """Every model file the workflows name, under its template name: tiny random Wan for the Wan diffusion
    models (loadable), a one-tensor placeholder for the rest (validate_prompt only checks that the name is
    listed). Plus ComfyUI's example.png for Load Image."""
    from PIL import Image

    for name in NAMES:
        for folder, files in W.model_files(_api(name)).items():
            for f in files:
                p = comfy / "models" / folder / f
                if folder == "diffusion_models" and f.startswith("wan2.") and not p.exists():
                    M.write_wan(p, "i2v" if "_i2v_" in f else "ti2v5b" if "_ti2v_5B" in f else "t2v", "tiny")
                _placeholder(p)
    img = comfy / "input" / W.INPUT_IMAGE
    if not img.exists():
        Image.new("RGB", (64, 48), (90, 120, 200)).save(img)
    return comfy


@pytest.mark.parametrize("name", NAMES)
def test_api_prompt_passes_comfyui_validation(model_files, info, name):
    from accel_harness import executor

    skip_missing(info, name)
    prompt = _api(name)
    ok, err, outputs, node_errors = executor.validate(prompt)
    assert ok is True and not node_errors, (err, node_errors)
    saves = {k for k, v in prompt.items() if v["class_type"] in ("SaveVideo", "SaveImage", "AccelSaveVideo")}
    assert saves and saves <= set(outputs)


def test_every_ui_workflow_has_its_api_twin():
    """Each shipped UI file (workflows/*.json) is defined once and written with its API twin."""
    ui = {p.stem for p in (REPO / "workflows").glob("*.json")}
    assert ui == set(W.WORKFLOWS), ui ^ set(W.WORKFLOWS)
    assert all((REPO / "workflows" / "api" / f"{n}.json").exists() for n in ui)


@pytest.mark.parametrize("name", W.TOOLS)
def test_tool_workflow_passes_comfyui_validation(pack, name):
    """The hardware report: ComfyUI's validate_prompt takes it, with the report node as its output."""
    from accel_harness import executor

    prompt = _api(name)
    ok, err, outputs, node_errors = executor.validate(prompt)
    assert ok is True and not node_errors, (err, node_errors)
    assert {k for k, v in prompt.items() if v["class_type"] == "AccelHardwareReport"} <= set(outputs)


def _bench_e2e():
    spec = importlib.util.spec_from_file_location("bench_e2e_for_workflows", REPO / "bench" / "bench_e2e.py")
    m = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(m)
    return m


@pytest.mark.parametrize("name", ["wan2.2_t2v_A14B_lightx2v_4step_level1", "wan2.2_i2v_A14B_lightx2v_4step_level1"])
def test_core_save_twins_are_what_the_benchmark_measures(info, model_files, name):
    """The shipped A14B LightX2V workflows decode and save with Accel Save Video (its CPU encoder, as bench_e2e.py's
    level1+save runs it); their twins with ComfyUI's VAE Decode -> Create Video -> Save Video (CORE_SAVE_VARIANTS)
    validate, and bench_e2e.py's with_core_save builds exactly that twin from the shipped file (its stock and
    level1 variants), with_accel_save the shipped file back from it."""
    import workflow_defs
    from accel_harness import executor

    shipped = _api(name)
    assert workflow_defs.FEWSTEP_SAVE == "accel"
    [save] = [v for v in shipped.values() if v["class_type"] == "AccelSaveVideo"]
    assert save["inputs"]["encoder"] == "cpu" and {"samples", "vae"} <= set(save["inputs"])
    assert save["inputs"]["cpu_preset"] == workflow_defs.FEWSTEP_CPU_PRESET == "faster"
    assert not {"VAEDecode", "CreateVideo", "SaveVideo"} & {v["class_type"] for v in shipped.values()}
    core = workflow_defs.CORE_SAVE_VARIANTS[name](info).api()
    ok, err, outputs, node_errors = executor.validate(core)
    assert ok is True and not node_errors, (err, node_errors)
    assert {"VAEDecode", "CreateVideo", "SaveVideo"} <= {v["class_type"] for v in core.values()}

    def plain(p):
        return {k: (v["class_type"], v["inputs"]) for k, v in p.items()}

    B = _bench_e2e()
    twin = B.with_core_save(shipped)
    ok, err, outputs, node_errors = executor.validate(twin)
    assert ok is True and not node_errors, (err, node_errors)
    # node for node the core twin; Create Video and Save Video as the shipped files write them (ComfyUI 0.3.75's
    # frontend: format and codec as plain inputs), the same links, prefix and fps
    assert {k: v["class_type"] for k, v in twin.items()} == {k: v["class_type"] for k, v in core.items()}
    for k, (ct, inputs) in plain(core).items():
        if ct in ("CreateVideo", "SaveVideo"):
            for name in ("images", "video", "fps", "filename_prefix"):
                assert twin[k]["inputs"].get(name) == inputs.get(name), (k, name)
        else:
            assert plain(twin)[k] == (ct, inputs), k
    assert plain(B.with_accel_save(twin)) == plain(shipped) == plain(B.with_accel_save(core))
    # level1+save_medium: the shipped graph at Save Video's own x264 preset, nothing else changed
    medium = B.with_accel_save(twin, cpu_preset=B.SAVE_VIDEO_PRESET)
    diff = {k for k in shipped if plain(medium)[k] != plain(shipped)[k]}
    [sid] = [k for k, v in shipped.items() if v["class_type"] == "AccelSaveVideo"]
    assert diff == {sid} and medium[sid]["inputs"] == {**shipped[sid]["inputs"], "cpu_preset": "medium"}
    stock = B.bypass_accel(shipped)
    assert not any(v["class_type"].startswith("Accel") for v in stock.values())
    [vloader] = [k for k, v in shipped.items() if v["class_type"] == "VAELoader"]
    assert next(v for v in stock.values() if v["class_type"] == "VAEDecode")["inputs"]["vae"] == [vloader, 0]


@pytest.mark.parametrize("name", ["wan2.2_t2v_A14B_lightx2v_4step_level1", "wan2.2_i2v_A14B_lightx2v_4step_level1"])
def test_a14b_workflows_decode_through_accel_vae_at_its_hopper_choice(name):
    """The A14B LightX2V workflows put Accel VAE between Load VAE and Accel Save Video, with the node's own defaults
    and the option values accel/vae/measured.py chose for Hopper (what bench_e2e.py measured end to end); the
    benchmark's level1 / level1+save variants leave it out, level1+vae+save puts it back as shipped."""
    import workflow_defs

    from accel_harness import env

    measured = env.pack_module("accel.vae.measured").DECODE_DEFAULTS["Hopper (sm90)"]
    assert workflow_defs.FEWSTEP_VAE == measured.options
    shipped = _api(name)
    [(vid, vae)] = [(k, v) for k, v in shipped.items() if v["class_type"] == "AccelVAE"]
    [loader] = [k for k, v in shipped.items() if v["class_type"] == "VAELoader"]
    assert vae["inputs"]["vae"] == [loader, 0]
    [save] = [v for v in shipped.values() if v["class_type"] == "AccelSaveVideo"]
    assert save["inputs"]["vae"] == [vid, 0]
    opts = env.pack_module("accel.vae.options").VAEOptions()
    expect = {n: getattr(opts, n) for n in vae["inputs"] if hasattr(opts, n)} | measured.options
    assert {n: x for n, x in vae["inputs"].items() if n in expect} == expect
    B = _bench_e2e()
    a = B.parse(["--smoke", "--workflow", "wan22_i2v_lightx2v" if "i2v" in name else "wan22_t2v_lightx2v"])
    for variant in ("level1", "level1+save", "stock"):
        assert not any(v["class_type"] == "AccelVAE" for v in B.variant_prompt(variant, a, None).values()), variant
    both = B.variant_prompt("level1+vae+save", a, None)
    [(bid, got)] = [(k, v) for k, v in both.items() if v["class_type"] == "AccelVAE"]
    assert {n: x for n, x in got["inputs"].items() if n != "vae"} == {n: x for n, x in vae["inputs"].items()
                                                                      if n != "vae"}
    assert next(v for v in both.values() if v["class_type"] == "AccelSaveVideo")["inputs"]["vae"] == [bid, 0]


@pytest.mark.parametrize("name", ["wan2.2_t2v_A14B_lightx2v_4step_level1", "wan2.2_i2v_A14B_lightx2v_4step_level1",
                                  "wan2.2_t2v_A14B_lightx2v_4step_720p_sparse"])
def test_a14b_workflows_ship_prefetch_weights_on(name):
    """Both Level-1 nodes of the A14B LightX2V workflows (and their API twins) have prefetch_weights on
    (workflow_defs.FEWSTEP_LEVEL1, what bench_e2e.py measured on a 16 GB card), the note says so; the benchmark's
    level1 variants turn it off and its +prefetch ones back on, so level1+vae+save+prefetch is the graph as shipped."""
    import workflow_defs

    assert workflow_defs.FEWSTEP_LEVEL1 == {"prefetch_weights": True}
    shipped = _api(name)
    nodes = [k for k, v in shipped.items() if v["class_type"] == "AccelWanLevel1"]
    assert len(nodes) == 2 and all(shipped[k]["inputs"]["prefetch_weights"] is True for k in nodes)
    assert "prefetch_weights" in json.dumps([n for n in _ui(name)["nodes"] if n["type"] in ("Note", "MarkdownNote")])
    if "sparse" in name:
        return
    B = _bench_e2e()
    a = B.parse(["--smoke", "--workflow", "wan22_i2v_lightx2v" if "i2v" in name else "wan22_t2v_lightx2v"])
    for variant, on in (("level1", False), ("level1+vae+save", False), ("level1+vae+save+prefetch", True)):
        p = B.variant_prompt(variant, a, None)
        assert [p[k]["inputs"]["prefetch_weights"] for k in nodes] == [on, on], variant


def test_validation_catches_a_wrong_model_name(model_files):
    from accel_harness import executor

    prompt = _api("wan2.1_t2v_1.3B_level1")
    next(v for v in prompt.values() if v["class_type"] == "UNETLoader")["inputs"]["unet_name"] = "wan2.1_t2v_1.3B_bf16.safetensors"
    ok, err, outputs, node_errors = executor.validate(prompt)
    assert ok is not True or node_errors
    assert "unet_name" in json.dumps(node_errors)


# ------------------------------------------------------------------------------------------ live server

def derive_tiny(prompt: dict, info: dict, prefix: str, steps: int = 2, size=(64, 48), length: int = 5) -> dict:
    """A shipped Wan prompt made runnable on a CPU with tiny random models: CLIPTextEncode -> the test-only
    AccelRandomConditioning (no text encoder), VAEDecode -> CreateVideo -> SaveVideo and Accel Save Video -> SaveLatent (no VAE),
    a tiny video size and few steps; everything else (loaders, file names, accel nodes and their settings,
    links, ids) stays as shipped. Nodes no output needs any more (CLIPLoader, VAELoader) are dropped."""
    p = copy.deepcopy(prompt)
    for nid, n in list(p.items()):
        ct, inp = n["class_type"], n["inputs"]
        if ct == "CLIPTextEncode":
            p[nid] = {"class_type": "AccelRandomConditioning", "_meta": {"title": n["_meta"]["title"] + " (random)"},
                      "inputs": {"seed": int(nid), "tokens": 8, "dim": 4096, "scale": 1.0}}
        elif ct == "SaveVideo":
            create = p[inp["video"][0]]
            decode = p[create["inputs"]["images"][0]]
            p[nid] = {"class_type": "SaveLatent", "_meta": n["_meta"],
                      "inputs": {"samples": decode["inputs"]["samples"], "filename_prefix": f"{prefix}/{nid}"}}
        elif ct == "AccelSaveVideo":
            p[nid] = {"class_type": "SaveLatent", "_meta": n["_meta"],
                      "inputs": {"samples": inp["samples"], "filename_prefix": f"{prefix}/{nid}"}}
        elif ct == "EmptyHunyuanLatentVideo":
            inp.update(width=size[0], height=size[1], length=length)
        elif ct in ("KSampler", "KSamplerAdvanced"):
            inp["steps"] = steps
    return U.prune(p, [k for k, v in p.items() if info[v["class_type"]].get("output_node")])


@pytest.fixture(scope="module")
def server(comfy, M, tmp_path_factory):
    from accel_harness.server import serving

    base = tmp_path_factory.mktemp("flows-server")
    for f in ("wan2.1_t2v_1.3B_fp16.safetensors", "wan2.1_t2v_14B_fp16.safetensors"):
        M.write_wan(base / "models" / "diffusion_models" / f, "t2v", "tiny")
    for i, e in enumerate(("high", "low")):  # the 4-step A14B T2V workflow: two experts, two LightX2V-layout LoRAs
        # the experts as the files are: ComfyUI's scaled-fp8 layout (fp8 weights, scale_weight, scaled_fp8 marker)
        M.save_safetensors(M.comfy_scaled_fp8(M.wan_state_dict("t2v", "tiny", seed=10 + i)),
                           base / "models" / "diffusion_models" / f"wan2.2_t2v_{e}_noise_14B_fp8_scaled.safetensors")
        M.save_safetensors(M.wan_lora(seed=20 + i, scale=0.1),
                           base / "models" / "loras" / f"wan2.2_t2v_lightx2v_4steps_lora_v1.1_{e}_noise.safetensors")
    with serving(base) as srv:
        yield srv


@pytest.fixture(scope="module")
def live_info(server):
    return server.object_info()


def test_live_server_sends_node_metadata_to_the_frontend(live_info, pack):
    """Output names, output tooltips and the experimental flag reach the frontend through /object_info."""
    ours = {k: v for k, v in live_info.items() if v.get("python_module", "").endswith("comfyui_accel")}
    assert len(ours) >= 12
    flagged = {n for n, c in pack.nodes.NODE_CLASS_MAPPINGS.items() if getattr(c, "EXPERIMENTAL", False)}
    assert "AccelCacheCalibrate" in flagged  # the set itself is checked in test_foundation
    for name, spec in ours.items():
        assert len(spec["output_name"]) == len(spec["output"]) == len(spec.get("output_tooltips") or [])
        assert spec.get("experimental", False) == (name in flagged), name
    assert ours["AccelRandomConditioning"]["display_name"].endswith("(test)")


def _latents(server, entry):
    import torch
    from safetensors.torch import load_file

    files = [p for p in server.output_files(entry) if p.suffix == ".latent"]
    assert files and all(p.exists() for p in files), files
    out = {}
    for p in files:
        lat = load_file(str(p))["latent_tensor"]
        assert torch.isfinite(lat).all() and lat.abs().max() > 0, p
        out[p.parent.name + "/" + p.name] = lat
    return out


def test_before_after_runs_on_the_live_server(server, live_info):
    """The shipped before/after prompt (stock branch and the demo's accelerated chain incl. a real inductor
    compile on the CPU), derived for tiny models (see derive_tiny), over HTTP."""
    from accel_harness.server import ui_text

    shipped = _api("wan2.1_t2v_1.3B_before_after")
    prompt = derive_tiny(shipped, live_info, "e2e_before_after")
    assert {"AccelCUDASettings", "AccelAttention", "AccelCompile", "AccelLatentDiff"} <= \
        {v["class_type"] for v in prompt.values()}
    comp = next(v for v in prompt.values() if v["class_type"] == "AccelCompile")
    assert comp == next(v for v in shipped.values() if v["class_type"] == "AccelCompile")  # as shipped
    entry = server.run(prompt, timeout=300)
    assert entry["status"]["status_str"] == "success"
    lats = _latents(server, entry)
    assert len(lats) == 2
    a, b = lats.values()
    # Same seed, same weights; the branches differ only by attention kernel and compiled fusion order on
    # fp32 CPU: cosine 0.999 is far below that rounding (~1e-6) and far above a real difference.
    cos = float((a.flatten() @ b.flatten()) / (a.norm() * b.norm()))
    assert cos > 0.999, cos
    diff_id = next(k for k, v in prompt.items() if v["class_type"] == "AccelLatentDiff")
    assert ui_text(entry, diff_id).startswith("accelerated vs stock")
    log = server.log_tail(400)
    assert "compiled" in log and "(inductor)" in log and "runs eager from now on" not in log, log[-3000:]


def test_wan21_prompt_with_every_accel_node_runs_on_the_live_server(server, live_info):
    """The shipped Wan 2.1 14B prompt (attention -> compile -> TeaCache), derived for tiny models (see
    derive_tiny), extended so that every accel node runs: CUDA settings in the chain, an FP8-loaded branch
    with Level-1 (compile off here: the compile path already runs in the main chain) and MagCache, a
    calibration branch, a Multi-GPU (gpus=1: stock) -> any-model cache branch, the FP8 saver, the latent diff and
    the hardware report; on a ComfyUI with MiniMax-H3, a tiny H3 file through its Level-1 node. The tiny model has no
    published cache set, so TeaCache/MagCache name the Wan 2.1 14B sets instead of `auto`."""
    from accel_harness.server import ui_text

    p = derive_tiny(_api("wan2.1_t2v_14B_attention_compile_teacache"), live_info, "e2e_every_node", steps=3)
    ids = {v["class_type"]: k for k, v in p.items()}
    g = max(int(k) for k in p)

    def add(ct, **inputs):
        nonlocal g
        g += 1
        p[str(g)] = {"class_type": ct, "inputs": U.full_inputs(live_info, ct, **inputs), "_meta": {"title": ct}}
        return str(g)

    att = p[ids["AccelAttention"]]
    cuda = add("AccelCUDASettings", model=att["inputs"]["model"])
    att["inputs"]["model"] = [cuda, 0]
    p[ids["AccelTeaCache"]]["inputs"]["coefficients"] = "wan2.1_t2v_14B"
    ks = p[ids["KSampler"]]["inputs"]
    common = {k: ks[k] for k in ("seed", "steps", "cfg", "sampler_name", "scheduler", "positive", "negative",
                                 "latent_image", "denoise")}
    fp8 = add("AccelLoadDiffusionModelFP8", unet_name="wan2.1_t2v_14B_fp16.safetensors")
    l1 = add("AccelWanLevel1", model=[fp8, 0], compile=False)
    mag = add("AccelMagCache", model=[l1, 0], ratios="wan2.1_t2v_14B")
    ks2 = add("KSampler", model=[mag, 0], **common)
    add("SaveLatent", samples=[ks2, 0], filename_prefix="e2e_every_node/fp8_level1_magcache")
    cal = add("AccelCacheCalibrate", model=p[ids["ModelSamplingSD3"]]["inputs"]["model"], name="e2e_tiny")
    ks3 = add("KSampler", model=[cal, 0], **common)
    add("SaveLatent", samples=[ks3, 0], filename_prefix="e2e_every_node/calibrate")
    mg = add("AccelMultiGPU", model=p[ids["ModelSamplingSD3"]]["inputs"]["model"], gpus=1, device="cpu")  # 1: stock
    anym = add("AccelCacheAnyModel", model=[mg, 0], threshold=0.5)
    ks4 = add("KSampler", model=[anym, 0], **common)
    add("SaveLatent", samples=[ks4, 0], filename_prefix="e2e_every_node/any_model_cache")
    save8 = add("AccelSaveFP8Model", model=[fp8, 0], filename_prefix="e2e/tiny_fp8")
    diff = add("AccelLatentDiff", latent_a=[ks2, 0], latent_b=[ids["KSampler"], 0], label="fp8 level1 vs accel")
    rep = add("AccelHardwareReport", refresh=False)
    from accel_harness import models as M  # a tiny Wan VAE file: VAELoader -> Accel VAE -> VAE Decode

    vae_file = server.base / "models" / "vae" / "e2e_tiny_wan_vae.safetensors"
    vae_file.parent.mkdir(parents=True, exist_ok=True)
    M.write_wan21_vae(vae_file, "tiny")
    avae = add("AccelVAE", vae=[add("VAELoader", vae_name=vae_file.name), 0])
    add("PreviewImage", images=[add("VAEDecode", samples=[ks4, 0], vae=[avae, 0]), 0])
    video = add("AccelSaveVideo", samples=[ks4, 0], vae=[avae, 0], filename_prefix="e2e_every_node/video",
                encoder="cpu")
    ours = {k for k, v in live_info.items() if v.get("python_module", "").endswith("comfyui_accel")}  # every node
    latents = 4
    if "EmptyMiniMaxH3LatentAV" in live_info:  # a tiny MiniMax-H3 file -> Accel MiniMax-H3 Level-1 (compile off)
        h3_file = server.base / "models" / "diffusion_models" / "e2e_tiny_minimax_h3.safetensors"
        M.write_family(h3_file, "minimax_h3")
        h3 = add("AccelMiniMaxH3Level1", model=[add("UNETLoader", unet_name=h3_file.name), 0], compile=False)
        cond = add("AccelRandomConditioning", seed=5, tokens=8, dim=64, scale=1.0)
        ks5 = add("KSampler", model=[h3, 0], seed=1, steps=2, cfg=1.0, sampler_name="euler", scheduler="simple",
                  positive=[cond, 0], negative=[cond, 0], denoise=1.0,
                  latent_image=[add("EmptyMiniMaxH3LatentAV", width=64, height=64, length=22), 0])
        add("SaveLatent", samples=[add("LTXVSeparateAVLatent", av_latent=[ks5, 0]), 0],
            filename_prefix="e2e_every_node/minimax_h3_video")
        latents += 1
    else:  # ComfyUI 0.3.75 has no MiniMax-H3 to give it
        ours.discard("AccelMiniMaxH3Level1")
    assert ours <= {v["class_type"] for v in p.values()}, ours - {v["class_type"] for v in p.values()}

    entry = server.run(p, timeout=300)
    assert entry["status"]["status_str"] == "success"
    assert len(_latents(server, entry)) == latents
    assert "comfyui-accel hardware report" in ui_text(entry, rep)
    assert "Wan 2.1 VAE" in ui_text(entry, avae)
    assert "encoded while it decoded" in ui_text(entry, video)
    assert list((server.base / "output" / "e2e_every_node").glob("video_00001_.mp4"))
    assert ui_text(entry, diff).startswith("fp8 level1 vs accel")
    fp8_files = list((server.base / "models" / "diffusion_models" / "e2e").glob("tiny_fp8*.safetensors"))
    assert fp8_files and fp8_files[0].stat().st_size > 0, ui_text(entry, save8)
    cal_files = list(server.base.joinpath("user").rglob("e2e_tiny.json"))
    assert cal_files, "Accel Cache Calibrate wrote no calibration file"


def test_wan22_4step_lora_prompt_runs_on_the_live_server(server, live_info):
    """The shipped Wan 2.2 A14B T2V 4-step prompt (two experts from files in ComfyUI's scaled-fp8 layout, each
    UNETLoader -> LightX2V LoRA -> shift 5 -> Level-1 with a real inductor compile; KSamplerAdvanced 2 + 2 at CFG
    1), derived for tiny models (see derive_tiny; all 4 steps kept), over HTTP: it succeeds, both LoRAs load with
    every key matched, and the compile did not fall back (the log, and each Level-1 node's report after the run
    in the prompt's history)."""
    from accel_harness.server import ui_text

    shipped = _api("wan2.2_t2v_A14B_lightx2v_4step_level1")
    prompt = derive_tiny(shipped, live_info, "e2e_4step", steps=4)
    for ct in ("LoraLoaderModelOnly", "AccelWanLevel1", "ModelSamplingSD3"):  # as shipped
        assert [v for v in prompt.values() if v["class_type"] == ct] == [v for v in shipped.values() if v["class_type"] == ct]
    entry = server.run(prompt, timeout=300)
    assert entry["status"]["status_str"] == "success"
    [with_lora] = _latents(server, entry).values()
    for nid in (k for k, v in prompt.items() if v["class_type"] == "AccelWanLevel1"):
        assert "compile:" in ui_text(entry, nid)
        after = entry["outputs"][nid]["accel_report"][0]["text"]  # the report after the run (API history)
        assert after.startswith("after the last run: compile: ran compiled"), after
    log = server.log_tail(400)
    assert "lora key not loaded" not in log and "runs eager from now on" not in log, log[-3000:]
    # the LoRAs act: the same prompt with both strengths at 0 gives another video
    for v in prompt.values():
        if v["class_type"] == "LoraLoaderModelOnly":
            v["inputs"]["strength_model"] = 0.0
        elif v["class_type"] == "SaveLatent":
            v["inputs"]["filename_prefix"] += "_nolora"
    entry = server.run(prompt, timeout=300)
    assert entry["status"]["status_str"] == "success"
    [without] = _latents(server, entry).values()
    assert float((with_lora - without).abs().max()) > 1e-2
