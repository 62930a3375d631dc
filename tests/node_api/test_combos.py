"""COMBO inputs sent with values outside their choices (issue #29): ComfyUI 0.3.75 checks the values of V1 list
inputs only, so a V3 combo's "aot_eager", 123 or null reached the node (Accel Compile accepted backend
"aot_eager", cache_device "TPU" ran, unet_name 123 / null and the saver's source_file 123 gave a raw TypeError,
TeaCache coefficients 5 a raw AttributeError). Every combo input of every node of the pack, found from the node
schemas (a new one cannot be missed), must refuse a value outside its choices with an error naming the input and
what to pick (for file lists: that the file is not in models/<folder>):
- through ComfyUI's validate_prompt (what run_prompt and POST /prompt run), before any node runs: the pack's error
  where ComfyUI does not check the combo (0.3.75, and every combo with rules of its own: legacy words, file lists),
  ComfyUI's own "Value not in list" naming the input and the value where it does (0.33);
- when the node function is called with it (values linked from other nodes, direct calls), before any work.
Valid values keep working: the defaults, legacy words, a model file added after the node list was built.
"""
from pathlib import Path

import pytest

import accel_harness as H
from accel_harness.executor import run_prompt, validate

BAD = ["no such choice", 123, None]
FILE_INPUTS = {("AccelLoadDiffusionModelFP8", "unet_name"), ("AccelSaveFP8Model", "source_file")}


def all_combo_inputs(pack) -> list:
    """(node id, input name, options) of every COMBO input, read from the V3 schema of every node class."""
    from comfy_api.latest import io

    found = []
    for key, cls in sorted(pack.nodes.NODE_CLASS_MAPPINGS.items()):
        for i in cls.GET_SCHEMA().inputs:
            if isinstance(i, io.Combo.Input):
                found.append((key, i.id, list(i.options or [])))
    return found


@pytest.fixture(scope="module")
def combos(pack, comfy, M):
    import folder_paths

    M.write_wan(Path(folder_paths.get_folder_paths("diffusion_models")[0]) / "combo_wan.safetensors")
    found = all_combo_inputs(pack)
    names = {(k, n) for k, n, _ in found}
    # the ones named in the issue (a sanity check that the scan works)
    assert {("AccelCompile", "backend"), ("AccelTeaCache", "cache_device"), ("AccelTeaCache", "coefficients"),
            ("AccelLoadDiffusionModelFP8", "unet_name"), ("AccelSaveFP8Model", "source_file"),
            ("AccelCompile", "on_failure"), ("AccelMultiGPU", "device")} <= names, names
    return found


def _display(pack, key):
    return pack.nodes.NODE_DISPLAY_NAME_MAPPINGS[key]


def _named(pack, key, name, value, text):
    """The error text names the node, the input and the value, and says what to pick."""
    head = f"[{_display(pack, key)}] input '{name}': "
    shown = "null (no value)" if value is None else repr(value)
    if head not in text or shown not in text:
        return False
    if (key, name) in FILE_INPUTS:
        return "models/diffusion_models" in text and _lists_real_files(text)
    return "Pick" in text


def _comfyui_checks(pack, key, name) -> bool:
    """Whether ComfyUI's own validation checks this combo (0.33 checks V3 combos; the pack keeps the ones with
    rules)."""
    from accel_harness import pack_module

    return pack_module("accel.comfy_compat").checks_v3_combo_values() and name not in pack.nodes.NODE_CLASS_MAPPINGS[
        key].COMBO_RULES


def _refused(pack, key, name, value, text):
    """The validation error names the input and the value: the pack's (`_named`), or ComfyUI's own where it checks
    the combo."""
    if _comfyui_checks(pack, key, name):
        return text.startswith("Value not in list") and f"{name}: {value!r} not in" in text
    return _named(pack, key, name, value, text)


def _lists_real_files(text) -> bool:
    """The error's list of files to pick names files that are in the folder (all of them, or the first ones and a
    count: how many there are depends on what the session's other tests wrote), this module's file among them when
    the list is whole."""
    import folder_paths

    files = set(folder_paths.get_filename_list("diffusion_models"))
    listed = text.split("pick one of: ", 1)[-1].rstrip(".")
    count = None
    if listed.endswith(" in all)"):
        listed, _, count = listed.rpartition(", ... (")
    names = listed.split(", ")
    extra = names.count("(none)")  # the save node's "no file" choice comes first
    names = [n for n in names if n != "(none)"]
    if count is not None and int(count.split()[0]) - extra != len(files):
        return False
    if count is None and "combo_wan.safetensors" not in names:
        return False
    return bool(names) and all(n in files for n in names)


def test_every_node_checks_its_inputs_where_comfyui_does_not(pack):
    """Each node's execute is decorated with nodes/_inputs.checked (linked values and direct calls pass no
    validation), and its validate_inputs names only the combos ComfyUI leaves unchecked (none of its INT or FLOAT
    inputs, whose min/max ComfyUI checks only where validate_inputs does not name them)."""
    import inspect

    from comfy_api.latest import io

    from accel_harness import pack_module

    own = pack_module("accel.comfy_compat").checks_v3_combo_values()
    for key, cls in pack.nodes.NODE_CLASS_MAPPINGS.items():
        assert getattr(cls.execute, "accel_checked", False), f"{key}.execute is not decorated with @checked"
        named = [p for p in inspect.signature(cls.validate_inputs).parameters]
        inputs = {i.id: i for i in cls.GET_SCHEMA().inputs or []}
        assert all(isinstance(inputs.get(n),
                              io.Combo.Input) for n in named) or key == "AccelCacheCalibrate", (key, named)
        combos = [n for n, i in inputs.items() if isinstance(i, io.Combo.Input)]
        if key != "AccelCacheCalibrate":
            assert named == [n for n in combos if not own or n in cls.COMBO_RULES], (key, named, own)


def test_node_functions_refuse_bad_combo_values(pack, combos, mod):
    """Called with a bad value (as a link or a direct call delivers it): an AccelError naming the input, raised
    before the node does anything (no other input is given, so any work would fail differently)."""
    AccelError = mod("accel.common.errors").AccelError
    wrong = []
    for key, name, _ in combos:
        for v in BAD:
            try:
                H.call_node(key, **{name: v})
                wrong.append(f"{key}.{name}={v!r}: accepted")
            except AccelError as e:
                if not _named(pack, key, name, v, str(e)):
                    wrong.append(f"{key}.{name}={v!r}: {e}")
            except Exception as e:  # noqa: BLE001 - the function ran with the bad value
                wrong.append(f"{key}.{name}={v!r}: {type(e).__name__}: {e}")
    assert not wrong, "\n".join(wrong)


def _prompt(key, name, value):
    """An API prompt of node `key` with every widget at its default (the first choice where a combo has none) and
    `name` set to `value`; its outputs, if any, shown by PreviewAny."""
    import nodes

    cls = nodes.NODE_CLASS_MAPPINGS[key]
    spec = cls.INPUT_TYPES()
    widgets = {}
    for sect in ("required", "optional"):
        for n, s in (spec.get(sect) or {}).items():
            extra = s[1] if len(s) > 1 and isinstance(s[1], dict) else {}
            if "default" in extra:
                widgets[n] = extra["default"]
            elif extra.get("options"):
                widgets[n] = extra["options"][0]
    prompt = {"1": {"class_type": key, "inputs": dict(widgets, **{name: value})}}
    if cls.RETURN_TYPES:
        prompt["2"] = {"class_type": "PreviewAny", "inputs": {"source": ["1", 0]}}
    return prompt


def _errors(prompt):
    ok, error, outputs, node_errors = validate(prompt)
    return [f"{e.get('message')}: {e.get('details')}" for e in node_errors.get("1", {}).get("errors", [])]


def test_api_prompts_with_bad_combo_values_fail_validation(pack, combos, mod):
    """Through ComfyUI's validate_prompt after the pack's on_prompt handler (what POST /prompt runs): refused before
    anything runs, naming the input. Strings and numbers are refused by validate_prompt alone (what run_prompt and
    an embedding application run); a literal null is marked by the on_prompt handler (validate_inputs gets a link
    as None too) and else refused when the node runs (test above)."""
    on_prompt = mod("nodes").INPUT_CHECKS.on_prompt
    wrong = []
    for key, name, _ in combos:
        for v in BAD:
            for handler in ("on_prompt", "none") if v is not None else ("on_prompt",):
                prompt = _prompt(key, name, v)
                if handler == "on_prompt":
                    prompt = on_prompt({"prompt": prompt, "client_id": "x"})["prompt"]
                errors = _errors(prompt)
                if not any(_refused(pack, key, name, v, e) for e in errors):
                    wrong.append(f"{key}.{name}={v!r} ({handler}): errors {errors}")
    assert not wrong, "\n".join(wrong)


def test_valid_combo_values_still_validate(pack, combos, mod):
    """Every listed choice of every combo validates, and so do the values that are valid without being listed:
    legacy failure words, a model file added after the node list was built, an attention backend not installed
    here (it then follows `fallback`)."""
    import folder_paths

    on_prompt = mod("nodes").INPUT_CHECKS.on_prompt
    wrong = []
    cases = [(key, name, v) for key, name, options in combos for v in options]
    late = Path(folder_paths.get_folder_paths("diffusion_models")[0]) / "combo_added_later.safetensors"
    late.write_bytes(Path(folder_paths.get_full_path("diffusion_models", "combo_wan.safetensors")).read_bytes())
    cases += [("AccelCompile", "on_failure", "eager"), ("AccelCompile", "on_failure", "raise"),
              ("AccelAttention", "fallback", "sdpa"), ("AccelAttention", "backend", "flash_attn_3"),
              ("AccelLoadDiffusionModelFP8", "unet_name", late.name), ("AccelSaveFP8Model", "source_file", late.name)]
    for key, name, v in cases:
        prompt = on_prompt({"prompt": _prompt(key, name, v), "client_id": "x"})["prompt"]
        errors = [e for e in _errors(prompt) if not e.startswith("Required input is missing")]  # model, vae
        if errors:
            wrong.append(f"{key}.{name}={v!r}: {errors}")
    assert not wrong, "\n".join(wrong)
    # another node's legacy word is not accepted (each node keeps only its own)
    assert _errors(_prompt("AccelCompile", "on_failure", "sdpa"))


@pytest.mark.parametrize("key,name,value", [
    ("AccelCompile", "backend", "aot_eager"),
    ("AccelTeaCache", "cache_device", "TPU"),
    ("AccelLoadDiffusionModelFP8", "unet_name", 123),
    ("AccelSaveFP8Model", "source_file", 123),
    ("AccelTeaCache", "coefficients", 5),
])
def test_the_issues_cases_fail_before_anything_runs(pack, combos, key, name, value):
    """The reported cases in a whole prompt (a loader feeding the node): the prompt is refused by validation."""
    prompt = _prompt(key, name, value)
    inputs = prompt["1"]["inputs"]
    if "model" in H.pack_nodes()[key].INPUT_TYPES()["required"] or key == "AccelSaveFP8Model":
        prompt["0"] = {"class_type": "UNETLoader", "inputs": {"unet_name": "combo_wan.safetensors",
                                                              "weight_dtype": "default"}}
        inputs["model"] = ["0", 0]
    with pytest.raises(RuntimeError) as ei:
        run_prompt(prompt)
    msg = str(ei.value).replace("\\'", "'")
    named = (f"{name}: {value!r} not in" if _comfyui_checks(pack, key, name)
             else f"[{_display(pack, key)}] input '{name}': {value!r}")
    assert "prompt failed validation" in msg and named in msg, msg
