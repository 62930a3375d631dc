"""The pack loads in a real ComfyUI, registers its nodes, imports nothing heavy, and the report runs."""
import json
import os
import re
import subprocess
import sys
import textwrap

import accel_harness as H

HEAVY = ("triton", "flash_attn", "flash_attn_interface", "fa3_fwd_interface", "sageattention", "sageattn3",
         "xformers", "torch._inductor", "torch._dynamo.convert_frame")


def test_pack_loads_through_comfyui_loader(pack):
    import nodes

    assert pack.nodes.IMPORT_ERRORS == {}
    assert "AccelHardwareReport" in nodes.NODE_CLASS_MAPPINGS
    for name, cls in pack.nodes.NODE_CLASS_MAPPINGS.items():
        assert nodes.NODE_CLASS_MAPPINGS[name] is cls
        assert name in pack.nodes.NODE_DISPLAY_NAME_MAPPINGS, f"{name} has no display name"
        assert getattr(cls, "CATEGORY", "").startswith("accel"), name
        assert getattr(cls, "DESCRIPTION", ""), f"{name} has no DESCRIPTION"


def test_every_node_is_a_v3_node_registered_through_comfy_entrypoint(pack):
    """ComfyUI takes the V3 path (comfy_entrypoint -> ComfyExtension) only when the pack root has no
    NODE_CLASS_MAPPINGS; every node is an io.ComfyNode with one schema and a classmethod execute."""
    import asyncio

    import nodes
    from comfy_api.latest import ComfyExtension, io

    assert not hasattr(pack, "NODE_CLASS_MAPPINGS"), "the pack root must not export V1 mappings"
    ext = pack.comfy_entrypoint()
    assert isinstance(ext, ComfyExtension)
    listed = asyncio.run(ext.get_node_list())
    assert {c.GET_SCHEMA().node_id for c in listed} == set(pack.nodes.NODE_CLASS_MAPPINGS) == {
        "AccelAttention", "AccelCompile", "AccelTeaCache", "AccelMagCache", "AccelCacheCalibrate",
        "AccelCacheAnyModel", "AccelCUDASettings", "AccelLoadDiffusionModelFP8", "AccelSaveFP8Model",
        "AccelHardwareReport", "AccelMultiGPU", "AccelRandomConditioning", "AccelLatentDiff", "AccelWanLevel1",
        "AccelMiniMaxH3Level1", "AccelVAE", "AccelSaveVideo"}
    for cls in listed:
        schema = cls.GET_SCHEMA()
        # execute: a classmethod of the node or of a shared node base (TeaCache/MagCache), never ComfyNode's own
        own = next(k.__dict__["execute"] for k in cls.__mro__ if "execute" in k.__dict__)
        assert issubclass(cls, io.ComfyNode) and isinstance(own, classmethod), cls
        assert own is not io.ComfyNode.__dict__.get("execute"), cls
        assert nodes.NODE_CLASS_MAPPINGS[schema.node_id] is cls
        assert nodes.NODE_DISPLAY_NAME_MAPPINGS[schema.node_id] == schema.display_name == cls.DISPLAY
        assert not hasattr(cls, "IS_CHANGED") and not hasattr(cls, "VALIDATE_INPUTS"), cls


def _words(text) -> int:
    return len((text or "").split())


def test_every_node_writes_its_own_define_schema(pack):
    """Every node declares itself as ComfyUI's core V3 nodes do: its own define_schema returning an io.Schema with
    its id, display name, category, a one-line description, its inputs and outputs (no declaration layer)."""
    for name, cls in pack.nodes.NODE_CLASS_MAPPINGS.items():
        assert "define_schema" in cls.__dict__, f"{name}: write define_schema in the node class"
        schema = cls.GET_SCHEMA()
        assert schema.node_id == cls.NODE_ID == name and schema.display_name == cls.DISPLAY, name
        assert schema.category.startswith("accel") and schema.outputs, name
        assert "\n" not in schema.description and _words(schema.description) >= 10, name


# a description says what the node does and when to use it; the rest is the node's help page
MOST_WORDS = 45


def test_descriptions_and_tooltips_are_short(pack):
    long = []
    for name, cls in pack.nodes.NODE_CLASS_MAPPINGS.items():
        schema = cls.GET_SCHEMA()
        if _words(schema.description) > MOST_WORDS:
            long.append(f"{name} description: {_words(schema.description)} words")
        for part in [*(schema.inputs or []), *(schema.outputs or [])]:
            if _words(part.tooltip) > MOST_WORDS:
                long.append(f"{name}.{part.id} tooltip: {_words(part.tooltip)} words")
    assert not long, (f"at most {MOST_WORDS} words; move the detail to web/docs/<node id>.md:\n" + "\n".join(long))


def test_every_node_has_a_help_page(pack):
    """The frontend shows /extensions/<pack>/docs/<node id>.md (WEB_DIRECTORY/docs) in the node's help panel
    (ComfyUI_frontend nodeHelpService); every page belongs to a node and starts with its display name."""
    docs = H.REPO_ROOT / pack.WEB_DIRECTORY / "docs"
    pages = {p.stem for p in docs.glob("*.md")}
    assert set(pack.nodes.NODE_CLASS_MAPPINGS) <= pages, sorted(set(pack.nodes.NODE_CLASS_MAPPINGS) - pages)
    assert pages <= set(pack.nodes.NODE_CLASS_MAPPINGS), sorted(pages - set(pack.nodes.NODE_CLASS_MAPPINGS))
    for name, cls in pack.nodes.NODE_CLASS_MAPPINGS.items():
        text = (docs / f"{name}.md").read_text()
        assert text.startswith(f"# {cls.DISPLAY}\n"), name
        for i in cls.GET_SCHEMA().inputs or []:
            # each input in bold where it is explained: **name** or **name_a / name_b**
            assert re.search(rf"\*\*(?:[\w ]+/ )?{i.id}(?: /[\w ]+)?\*\*", text), f"{name}.md does not explain {i.id}"


def test_every_input_has_a_tooltip(pack):
    for name, cls in pack.nodes.NODE_CLASS_MAPPINGS.items():
        spec = cls.INPUT_TYPES()
        for section in ("required", "optional"):
            for inp, val in spec.get(section, {}).items():
                opts = val[1] if len(val) > 1 else {}
                assert opts.get("tooltip"), f"{name}.{inp} has no tooltip"


def test_startup_imports_nothing_heavy(comfy):
    """Loading the pack at ComfyUI start-up must not import attention libraries, triton or inductor."""
    code = textwrap.dedent(f"""
        import sys, asyncio, json
        sys.path.insert(0, {str(H.REPO_ROOT / 'harness')!r})
        import accel_harness as H
        H.bootstrap()
        import nodes
        asyncio.run(nodes.init_extra_nodes(init_custom_nodes=False, init_api_nodes=False))
        before = set(sys.modules)
        H.load_pack()
        new = sorted(set(sys.modules) - before)
        print("NEW=" + json.dumps(new))
    """)
    env = dict(os.environ, OMP_NUM_THREADS="1")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=300)
    assert out.returncode == 0, out.stderr[-3000:]
    line = [x for x in out.stdout.splitlines() if x.startswith("NEW=")][-1]
    new = json.loads(line[4:])
    heavy = [m for m in new if any(m == h or m.startswith(h + ".") for h in HEAVY)]
    assert heavy == [], f"pack import pulled in heavy modules: {heavy}"


def test_hardware_report_node_runs_in_a_prompt(pack):
    from accel_harness.executor import run_prompt

    prompt = {"1": {"class_type": "AccelHardwareReport", "inputs": {"refresh": True}}}
    _, history = run_prompt(prompt)
    text = history["outputs"]["1"]["text"][0]
    assert "comfyui-accel hardware report" in text
    assert "attention auto -> sdpa" in text  # CPU test machine
    assert "compile mode ->" in text and "fp8 compute ->" in text


def test_pyproject_registry_metadata():
    import tomllib

    data = tomllib.loads((H.REPO_ROOT / "pyproject.toml").read_text())
    proj = data["project"]
    assert proj["name"] == "diffusion-accel"  # the Registry name (no "comfyui" in it: its guidance)
    deps = " ".join(proj.get("dependencies", [])).lower()
    for hard in ("torch", "flash-attn", "flash_attn", "sageattention", "xformers"):
        assert hard not in deps, f"{hard} must not be a hard requirement"
    assert set(data["tool"]["comfy"]) >= {"PublisherId", "DisplayName", "Icon"}
    # the icon URL points into this repository's main branch: the file must exist and be a PNG
    icon = data["tool"]["comfy"]["Icon"].split("/main/", 1)[1]
    assert (H.REPO_ROOT / icon).read_bytes()[:8] == b"\x89PNG\r\n\x1a\n", icon
    assert "Repository" in data["project"]["urls"]
    ignore = (H.REPO_ROOT / ".comfyignore").read_text()
    for p in ("tests", "bench/results", "harness"):
        assert p in ignore


EXPERIMENTAL_NODES = {"AccelCacheCalibrate", "AccelCacheAnyModel",
                      "AccelMultiGPU"}  # honest flags: tested on tiny random models / CPU only


def test_outputs_have_names_and_tooltips(pack):
    """The frontend shows RETURN_NAMES on the output slots and OUTPUT_TOOLTIPS when hovering them."""
    import re

    for name, cls in pack.nodes.NODE_CLASS_MAPPINGS.items():
        types = tuple(cls.RETURN_TYPES)
        names = tuple(getattr(cls, "RETURN_NAMES", ()) or ())
        assert len(names) == len(types), f"{name}: RETURN_NAMES {names} for RETURN_TYPES {types}"
        assert len(set(names)) == len(names) and all(re.fullmatch(r"[a-z][a-z0-9_]*", n) for n in names), (name, names)
        tips = tuple(getattr(cls, "OUTPUT_TOOLTIPS", ()) or ())
        assert len(tips) == len(types), f"{name}: {len(tips)} OUTPUT_TOOLTIPS for {len(types)} outputs"
        assert all(isinstance(t, str) and len(t) > 10 for t in tips), (name, tips)
        if not types:
            assert getattr(cls, "OUTPUT_NODE", False), f"{name} has no outputs and is no output node"


def test_display_names_categories_and_flags(pack):
    import nodes as comfy_nodes

    cats = {"accel/patch", "accel/loaders", "accel/cache", "accel/info", "accel/testing", "accel/video"}
    for name, cls in pack.nodes.NODE_CLASS_MAPPINGS.items():
        display = pack.nodes.NODE_DISPLAY_NAME_MAPPINGS[name]
        assert display.startswith("Accel ") and comfy_nodes.NODE_DISPLAY_NAME_MAPPINGS[name] == display, (name, display)
        assert cls.CATEGORY in cats, (name, cls.CATEGORY)
        testing = cls.CATEGORY == "accel/testing"
        assert testing == display.endswith("(test)"), f"{name}: test-only nodes (and only they) say '(test)'"
        for flag in ("EXPERIMENTAL", "DEPRECATED"):
            assert isinstance(getattr(cls, flag, False), bool), (name, flag)
        assert not getattr(cls, "DEPRECATED", False), f"{name} is deprecated: say what replaces it, then update this"
        exp = getattr(cls, "EXPERIMENTAL", False)
        assert exp == (name in EXPERIMENTAL_NODES), f"{name}: EXPERIMENTAL={exp}"
        if exp:
            assert "experimental" in cls.DESCRIPTION.lower(), f"{name}: say in DESCRIPTION why it is experimental"
        assert not (testing and exp)


def test_frontend_sees_the_metadata(pack):
    """What /object_info sends the frontend (same builder as the server): names, tooltips, the experimental badge."""
    from accel_harness.uiformat import local_object_info

    info = local_object_info(pack.nodes.NODE_CLASS_MAPPINGS)
    for name, spec in info.items():
        assert spec["output_name"] == list(pack.nodes.NODE_CLASS_MAPPINGS[name].RETURN_NAMES)
        assert len(spec["output_tooltips"]) == len(spec["output"])
        assert spec.get("experimental", False) == (name in EXPERIMENTAL_NODES)
        assert spec["description"] and spec["display_name"].startswith("Accel ")


def test_node_descriptions_survive_python_OO(pack, tmp_path):
    """Descriptions are strings in each node's schema, not docstrings (which `python -OO` drops): every node shows
    the same description under -OO as in a normal run."""
    import json
    import subprocess
    import sys

    code = ("import json, sys; sys.path.insert(0, sys.argv[1]); import accel_harness as H; "
            "H.bootstrap(sys.argv[2], cpu=True); mod = H.load_pack(); "
            "print('DESC=' + json.dumps({k: c.GET_SCHEMA().description "
            "for k, c in mod.nodes.NODE_CLASS_MAPPINGS.items()}))")
    r = subprocess.run([sys.executable, "-OO", "-c", code, str(H.REPO_ROOT / "harness"), str(tmp_path / "base")],
                       capture_output=True, text=True, timeout=300)
    line = next((x for x in r.stdout.splitlines() if x.startswith("DESC=")), None)
    assert line, r.stdout[-2000:] + r.stderr[-3000:]
    got = json.loads(line[5:])
    want = {k: c.GET_SCHEMA().description for k, c in pack.nodes.NODE_CLASS_MAPPINGS.items()}
    assert got == want and all(want.values())
