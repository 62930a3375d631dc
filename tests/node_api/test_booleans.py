"""BOOLEAN inputs sent by API clients as strings (issue #13): ComfyUI's own validation turns a literal value
into bool(value), so `"strict": "false"` used to turn strict ON. Every BOOLEAN input of every node of the
pack, found from the node classes themselves (a new one cannot be missed), must take true booleans, 0/1 and
"true"/"false"/"1"/"0"/"yes"/"no" in any case, and refuse anything else with an error naming the input:
- through ComfyUI's validate_prompt after the pack's on_prompt handler (what POST /prompt runs),
- when the node function is called with a value that did not pass that handler (links, direct calls),
- over HTTP in a real ComfyUI server (the handler is registered there).
"""
import pytest

import accel_harness as H
from accel_harness.executor import validate
from accel_harness.server import ServerError, tiny_wan_server

TRUE = [True, 1, "true", "True", "TRUE", " yes ", "Yes", "1"]
FALSE = [False, 0, "false", "False", "FALSE", "no", "NO ", "0", {"__value__": "false"}]
BAD = ["maybe", "", "2", "truee", None, 2, 0.5, "null"]


def all_boolean_inputs(pack) -> list:
    """(node id, input name) of every BOOLEAN input, read from the V3 schema of every node class."""
    from comfy_api.latest import io

    found = []
    for key, cls in sorted(pack.nodes.NODE_CLASS_MAPPINGS.items()):
        for i in cls.GET_SCHEMA().inputs:
            if isinstance(i, io.Boolean.Input):
                found.append((key, i.id))
    return found


@pytest.fixture(scope="module")
def pairs(pack):
    found = all_boolean_inputs(pack)
    # the ones known when this test was written (a sanity check that the scan works)
    assert {("AccelLoadDiffusionModelFP8", "strict"), ("AccelAttention", "autotune"),
            ("AccelHardwareReport", "refresh"), ("AccelWanLevel1", "compile")} <= set(found), found
    return found


@pytest.fixture(scope="module")
def on_prompt(mod):
    """The pack's PromptServer on_prompt handler (none before the fix: ComfyUI's bool(value) decides)."""
    checks = getattr(mod("nodes"), "INPUT_CHECKS", None)
    return checks.on_prompt if checks is not None else (lambda data: data)


def _validated(on_prompt, key, name, value):
    """Run the prompt {key: {name: value}} (its output, if any, shown by PreviewAny) through the pack's
    on_prompt handler and ComfyUI's validate_prompt, as POST /prompt does; return (value the node would get,
    errors ComfyUI reported for that input)."""
    import nodes

    cls = nodes.NODE_CLASS_MAPPINGS[key]
    spec = cls.INPUT_TYPES()
    widgets = {n: s[1]["default"] for sect in ("required", "optional") for n, s in (spec.get(sect) or {}).items()
               if len(s) > 1 and isinstance(s[1], dict) and "default" in s[1]}  # as the frontend fills them in
    prompt = {"1": {"class_type": key, "inputs": dict(widgets, **{name: value})}}
    if cls.RETURN_TYPES:
        prompt["2"] = {"class_type": "PreviewAny", "inputs": {"source": ["1", 0]}}
    data = on_prompt({"prompt": prompt, "client_id": "x"})
    ok, error, outputs, node_errors = validate(data["prompt"])
    errors = [e for e in node_errors.get("1", {}).get("errors", []) if e["extra_info"].get("input_name") == name]
    return data["prompt"]["1"]["inputs"][name], errors


def test_api_prompt_booleans_are_parsed_before_comfyui_validation(pack, pairs, on_prompt):
    wrong = []
    for key, name in pairs:
        for want, values in ((True, TRUE), (False, FALSE)):
            for v in values:
                got, errors = _validated(on_prompt, key, name, v)
                if got is not want or errors:
                    wrong.append(f"{key}.{name}={v!r}: node gets {got!r}, errors {errors}")
        for v in BAD:
            _, errors = _validated(on_prompt, key, name, v)
            if not (len(errors) == 1 and f"input '{name}': {v!r} is not a boolean" in errors[0]["details"]
                    and '"true"/"false"' in errors[0]["details"]):
                wrong.append(f"{key}.{name}={v!r}: errors {errors}")
    assert not wrong, "\n".join(wrong)


def test_node_functions_parse_booleans_too(pack, pairs, mod):
    """A value that did not come through the on_prompt handler (linked from another node's output, or a direct
    call) is parsed by the node's execute itself: an error naming the node and input before any work."""
    AccelError = mod("accel.common.errors").AccelError
    wrong = []
    for key, name in pairs:
        for v in BAD:
            try:
                H.call_node(key, **{name: v})
                wrong.append(f"{key}.{name}={v!r}: accepted")
            except AccelError as e:
                display = pack.nodes.NODE_DISPLAY_NAME_MAPPINGS[key]
                if not str(e).startswith(f"[{display}] input '{name}': {v!r} is not a boolean"):
                    wrong.append(f"{key}.{name}={v!r}: {e}")
            except Exception as e:  # the function ran with the bad value (missing other inputs)
                wrong.append(f"{key}.{name}={v!r}: {type(e).__name__}: {e}")
    assert not wrong, "\n".join(wrong)


# --- over HTTP: a real ComfyUI server runs the handler before its validation --------------------------------

@pytest.fixture(scope="module")
def server(comfy, M, tmp_path_factory):
    with tiny_wan_server(tmp_path_factory.mktemp("bool-server")) as srv:
        yield srv


def _http_prompt(refresh, strict):
    return {
        "1": {"class_type": "AccelHardwareReport", "inputs": {"refresh": refresh}},
        "2": {"class_type": "AccelLoadDiffusionModelFP8", "inputs": {
            "unet_name": "tiny_wan.safetensors", "weight_format": "auto", "compute": "fp8 matmul",
            "keep_high_precision": "auto (per model family)", "strict": strict}},
        "3": {"class_type": "PreviewAny", "inputs": {"source": ["2", 1]}},
    }


def test_string_booleans_over_http(server):
    # strict "false" on a CPU: 'fp8 matmul' falls back to dequantize (with strict on it would be an error)
    entry = server.run(_http_prompt("false", "FALSE"), timeout=120)
    sent = entry["prompt"][2]
    assert sent["1"]["inputs"]["refresh"] is False and sent["2"]["inputs"]["strict"] is False, sent
    assert "dequantize" in entry["outputs"]["2"]["text"][0]
    with pytest.raises(ServerError) as ei:
        server.submit(_http_prompt("maybe", "false"))
    msg = str(ei.value)
    assert "refresh" in msg and "'maybe' is not a boolean" in msg and '\\"true\\"/\\"false\\"' in msg, msg


def test_bad_combo_values_over_http(server):
    """COMBO inputs through the same server (issue #29): null and a number for a file list, an unknown backend, each
    refused at POST /prompt naming the input; nothing runs."""
    from accel_harness import pack_module

    own = pack_module("accel.comfy_compat").checks_v3_combo_values()  # 0.33 checks a plain combo itself
    for name, value, text in (("unet_name", None, "input 'unet_name': null (no value) is not a file name"),
                              ("unet_name", 123, "input 'unet_name': 123 is not a file name"),
                              ("compute", "tpu", "compute: 'tpu' not in" if own else
                               "input 'compute': 'tpu' is not one of its choices")):
        prompt = _http_prompt(True, "false")
        prompt["2"]["inputs"][name] = value
        with pytest.raises(ServerError) as ei:
            server.submit(prompt)
        msg = str(ei.value).replace("\\'", "'")
        assert text in msg, msg
