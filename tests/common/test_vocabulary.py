"""One word per concept (issue #18 item 4): the failure option. Accel Attention (`fallback`), Accel Compile and
the Level-1 nodes (`on_failure`) offer the same two values, "fall back" and "error"; the values older versions
used (Attention's `sdpa`, Compile's `eager` / `raise`) still validate and mean the same, so old workflows and API
prompts keep working. Input names are unchanged (API prompts name inputs: a rename would break them).
"""
import pytest

import accel_harness as H
from accel_harness.executor import validate

FAILURE_INPUTS = {"AccelAttention": "fallback", "AccelCompile": "on_failure", "AccelWanLevel1": "on_failure",
                  "AccelMiniMaxH3Level1": "on_failure"}
LEGACY = {"AccelAttention", "AccelCompile"}  # nodes whose older versions took other words (their COMBO_RULES)

# (node, value sent) -> (the feature's contract module, whose `apply(model, options)` the node calls, and the policy
# its options carry: one Policy, whose values are the words "fall back" / "error"; the legacy words are parsed at the
# node boundary)
CALLS = {
    ("AccelAttention", "fall back"): ("accel.attention.options", "fall back"),
    ("AccelAttention", "error"): ("accel.attention.options", "error"),
    ("AccelAttention", "sdpa"): ("accel.attention.options", "fall back"),  # legacy
    ("AccelCompile", "fall back"): ("accel.compile.options", "fall back"),
    ("AccelCompile", "error"): ("accel.compile.options", "error"),
    ("AccelCompile", "eager"): ("accel.compile.options", "fall back"),  # legacy
    ("AccelCompile", "raise"): ("accel.compile.options", "error"),  # legacy
    ("AccelWanLevel1", "fall back"): ("accel.wan_level1.preset", "fall back"),
    ("AccelWanLevel1", "error"): ("accel.wan_level1.preset", "error"),
    ("AccelMiniMaxH3Level1", "fall back"): ("accel.wan_level1.preset", "fall back"),
    ("AccelMiniMaxH3Level1", "error"): ("accel.wan_level1.preset", "error"),
}


def _spec(key, name):
    return H.pack_nodes()[key].INPUT_TYPES()["required"][name]


def _defaults(key):
    return {k: s[1]["default"] for k, s in H.pack_nodes()[key].INPUT_TYPES()["required"].items()
            if isinstance(s[1], dict) and "default" in s[1]}


def _errors(key, name, value):
    """ComfyUI's validate_prompt of {key with its widget defaults, `name`=value}: the errors for that input."""
    import nodes

    spec = nodes.NODE_CLASS_MAPPINGS[key].INPUT_TYPES()
    widgets = {n: s[1]["default"] for sect in ("required", "optional") for n, s in (spec.get(sect) or {}).items()
               if len(s) > 1 and isinstance(s[1], dict) and "default" in s[1]}
    prompt = {"1": {"class_type": key, "inputs": dict(widgets, **{name: value})},
              "2": {"class_type": "PreviewAny", "inputs": {"source": ["1", 1]}}}
    _, _, _, node_errors = validate(prompt)
    return [e for e in node_errors.get("1", {}).get("errors", []) if e["extra_info"].get("input_name") == name]


def test_every_failure_option_offers_the_same_two_values(pack):
    for key, name in FAILURE_INPUTS.items():
        spec = _spec(key, name)
        assert spec[1]["options"] == ["fall back", "error"] and spec[1]["default"] == "fall back", (key, spec)


@pytest.mark.parametrize("key,value", sorted(CALLS), ids=lambda x: str(x).replace(" ", "_"))
def test_value_validates_and_means_the_same(pack, mod, monkeypatch, key, value):
    """Through ComfyUI's validation (legacy values are not in the combo's options, and still pass), then the
    node's execute hands accel/ what the old value meant."""
    assert _errors(key, FAILURE_INPUTS[key], value) == []
    module, want = CALLS[key, value]
    got = {}

    def fake(model, options, **kwargs):
        got["policy"] = options.policy
        return model, "report"

    monkeypatch.setattr(mod(module), "apply", fake)
    out = H.call_node(key, **dict(_defaults(key), model=object(), **{FAILURE_INPUTS[key]: value}))
    Policy = mod("accel.common.policy").Policy
    assert got["policy"] is Policy(want) and out["ui"]["text"] == ["report"], got


@pytest.mark.parametrize("key", sorted(FAILURE_INPUTS))
def test_unknown_values_are_refused_naming_the_input(pack, mod, key):
    name = FAILURE_INPUTS[key]
    errors = _errors(key, name, "maybe")
    if key in LEGACY and not H.pack_nodes()[key].COMBO_RULES:
        raise AssertionError(f"{key} accepts legacy words but has no COMBO_RULES")
    if key not in LEGACY and mod("accel.comfy_compat").checks_v3_combo_values():
        # no words beyond its options: ComfyUI's own check refuses the value, naming the input and its choices
        assert len(errors) == 1 and errors[0]["type"] == "value_not_in_list", errors
        assert f"{name}: 'maybe' not in ['fall back', 'error']" in errors[0]["details"], errors
    else:
        assert len(errors) == 1 and (f"input '{name}': 'maybe' is not one of its choices. Pick one of: fall back, "
                                     "error" in errors[0]["details"]), errors
    # another node's legacy word is not accepted here (each node keeps only its own)
    other = {"AccelAttention": "eager", "AccelCompile": "sdpa", "AccelWanLevel1": "raise",
             "AccelMiniMaxH3Level1": "sdpa"}[key]
    assert len(_errors(key, name, other)) == 1
    with pytest.raises(mod("accel.common.errors").AccelError,
                       match=rf"input '{name}': 'maybe' is not one of its choices"):
        H.call_node(key, **dict(_defaults(key), model=object(), **{name: "maybe"}))


def test_shipped_api_workflows_use_the_current_words(mod):
    """The files users copy (workflows/api/*.json, the demo's graph included) send "fall back" / "error", not the
    legacy words: these still validate, but a user reading the file should see the words the node shows."""
    import json
    from pathlib import Path

    words = mod("accel.common.vocabulary").ON_FAILURE_CHOICES
    stale = []
    for path in sorted((Path(__file__).resolve().parents[2] / "workflows" / "api").glob("*.json")):
        for nid, node in json.loads(path.read_text()).items():
            name = FAILURE_INPUTS.get(node.get("class_type"))
            if name in node.get("inputs", {}) and node["inputs"][name] not in words:
                stale.append(f"{path.name} node {nid} ({node['class_type']}): {name}={node['inputs'][name]!r}")
    assert not stale, "legacy failure words in shipped API workflows:\n" + "\n".join(stale)
