"""Workflows in the REAL ComfyUI frontend (comfyui-frontend-package) in headless Debian Chromium via Playwright.

Runs on the frontend of the test bed's ComfyUI (1.32.9 with 0.3.75, 1.49.x with 0.33), or on the frontend folder
that ACCEL_FRONTEND_ROOT names (`main.py --front-end-root`; scripts/test.sh runs these tests once more with the
newest comfyui-frontend-package on the registry).
For every UI workflow in workflows/*.json: it loads the way opening the file does (app.loadGraphData) with
no "missing nodes" notice (the dialog of 1.32, the error overlay of 1.49; a workflow with an unknown node type
proves the check can fail), every node type is registered, our nodes show the widgets /object_info declares,
the frontend turns it into an API prompt with every node (notes excepted) that equals the workflow's API
twin in workflows/api/ where there is one (and what accel_harness.uiformat.ui_to_api makes of the file; inputs
a newer ComfyUI added are taken at their defaults and reported as warnings), on 0.33 every node with a dynamic
combo converts as the frontend serialises it, and a screenshot is saved to
test-artifacts/browser/<name>.png (look at it). One server and one browser for the module.
"""
import importlib.util
import json
import os
import warnings
from pathlib import Path

import pytest

from accel_harness.browser import FRONTEND_SETTINGS, Browser, available
from accel_harness.server import ComfyServer
from accel_harness.uiformat import (DYNAMIC_COMBO, VIRTUAL_NODES, WIDGET_TYPES, dynamic_options, fill_new_inputs,
                                   input_rows, ordered_inputs, prompt_diff, ui_to_api, widget_slots)

REPO = Path(__file__).resolve().parents[2]
UI_WORKFLOWS = sorted((REPO / "workflows").glob("*.json"))
# another frontend than the installed package's: a folder with its index.html (scripts/test.sh: the newest one)
FRONTEND_ROOT = os.environ.get("ACCEL_FRONTEND_ROOT") or None
# the version a `pip install --target` folder records beside the package (its static/ is the frontend root)
FRONTEND = next((p.name.removeprefix("comfyui_frontend_package-").removesuffix(".dist-info") for p in
                 Path(FRONTEND_ROOT).parents[1].glob("comfyui_frontend_package-*.dist-info")), "other") \
    if FRONTEND_ROOT else None
ARTIFACTS = REPO / "test-artifacts" / (f"browser-frontend-{FRONTEND}" if FRONTEND else "browser")
OK, WHY = available()
if OK and FRONTEND_ROOT and not (Path(FRONTEND_ROOT) / "index.html").is_file():
    pytest.exit(f"ACCEL_FRONTEND_ROOT={FRONTEND_ROOT} holds no index.html", returncode=4)
if OK and not FRONTEND_ROOT and importlib.util.find_spec("comfyui_frontend_package") is None:
    OK, WHY = False, "comfyui-frontend-package is not installed in this Python (the server would have no UI)"
pytestmark = pytest.mark.skipif(not OK, reason=WHY)


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    # CXX=/bin/false: inductor cannot build CPU kernels in this server (test_compile_fallback_updates_the_report);
    # no other test here compiles
    srv = ComfyServer(tmp_path_factory.mktemp("browser-server"), settings=FRONTEND_SETTINGS, env={"CXX": "/bin/false"},
                      extra_args=["--front-end-root", FRONTEND_ROOT] if FRONTEND_ROOT else ())
    try:
        srv.start(timeout=180)
        yield srv
    finally:
        srv.stop()


@pytest.fixture(scope="module")
def info(server):
    return server.object_info()


@pytest.fixture(scope="module")
def app(server):
    with Browser() as b:
        b.open_app(server.url)
        yield b


def test_the_server_serves_the_frontend_named(server):
    """The page comes from ACCEL_FRONTEND_ROOT when it is set (scripts/test.sh: the newest frontend), else from the
    installed comfyui-frontend-package: its index.html's scripts (content-hashed names) are what the server sends."""
    import re
    import urllib.request

    root = Path(FRONTEND_ROOT) if FRONTEND_ROOT else (
        Path(importlib.util.find_spec("comfyui_frontend_package").submodule_search_locations[0]) / "static")
    scripts = re.findall(r'src="([^"]+\.js)"', (root / "index.html").read_text())
    served = urllib.request.urlopen(server.url + "/", timeout=60).read().decode()
    assert scripts and all(x in served for x in scripts), (scripts, served[:500])


def test_there_are_ui_workflows():
    assert (REPO / "workflows" / "hardware_report.json") in UI_WORKFLOWS


@pytest.mark.parametrize("path", UI_WORKFLOWS, ids=lambda p: p.stem)
def test_ui_workflow_loads_in_the_frontend(app, info, path):
    wf = json.loads(path.read_text())
    assert "nodes" in wf and "links" in wf, f"{path.name} is not a UI-format workflow (API prompts go in workflows/api/)"
    absent = {n["type"] for n in wf["nodes"]} - set(info) - set(VIRTUAL_NODES)
    if absent:  # MiniMax-H3's, LTX-2's, Kandinsky 5's workflows on ComfyUI 0.3.75
        pytest.skip(f"this ComfyUI lacks the node(s) {sorted(absent)} (a newer ComfyUI's model)")
    app.clear_alerts()
    app.load_workflow(wf, path.name)
    shot = app.screenshot(ARTIFACTS / f"{path.stem}.png")
    assert app.missing_nodes_notice() is None, f"{path.name}: {app.missing_nodes_notice()}"
    # e.g. "Invalid workflow against zod schema" (Comfy.Validation.Workflows is on)
    bad = [t for t in app.alerts() if "invalid" in t.lower() or "error" in t.lower()]
    assert not bad, f"{path.name}: the frontend reported {bad}"
    nodes = app.graph_nodes()
    want = sorted(n["type"] for n in wf["nodes"])
    assert sorted(n["type"] for n in nodes) == want
    assert all(n["registered"] for n in nodes), [n["type"] for n in nodes if not n["registered"]]
    for n in nodes:
        if n["type"] in info and info[n["type"]].get("python_module") == "custom_nodes.comfyui_accel":
            missing = {name for name, _ in widget_slots(info[n["type"]]) if name} - set(n["widgets"])
            assert not missing, f"{path.name}: node {n['id']} ({n['type']}) shows no widget for {sorted(missing)}"
    prompt = app.graph_to_prompt()
    assert sorted(v["class_type"] for v in prompt.values()) == sorted(
        n["type"] for n in wf["nodes"] if n["type"] not in VIRTUAL_NODES)
    twin = REPO / "workflows" / "api" / path.name
    notes = []
    assert not prompt_diff(ui_to_api(wf, info, notes), prompt, ("ui_to_api", "frontend"))
    if twin.exists():  # the frontend queues exactly the API twin (inputs a newer ComfyUI added: at their defaults)
        diff = prompt_diff(fill_new_inputs(json.loads(twin.read_text()), wf, info, notes), prompt,
                           ("api twin", "frontend"))
        assert not diff, f"{path.name}: " + "\n".join(diff)
    for n in notes:
        warnings.warn(f"{path.name}: {n}")
    assert shot.stat().st_size > 20_000  # a rendered canvas with nodes, not a blank page
    assert not [e for e in app.page_errors if "comfyui_accel" in e or "Accel" in e], app.page_errors


def test_missing_node_types_are_detected(app):
    """The check above can fail: an unknown node type brings up the frontend's missing-nodes notice (the dialog
    of frontend 1.32, the error overlay of 1.49), and closing it clears it."""
    wf = json.loads((REPO / "workflows" / "hardware_report.json").read_text())
    wf["nodes"][0]["type"] = "AccelNodeThatDoesNotExist"
    app.load_workflow(wf, "broken.json")
    try:
        text = app.missing_nodes_notice()
        assert text and "AccelNodeThatDoesNotExist" in text, text
    finally:
        app.close_dialogs()
    assert app.missing_nodes_notice() is None


def _dynamic_variants(rows, prefix="", depth=3):
    """[[(widget name, option key), ...]]: each way to set the visible dynamic combos among `rows` (one at a
    time, the others at their defaults), down into the inputs each option adds."""
    out = []
    for name, spec, _ in rows:
        options = dynamic_options(spec)
        if options is None or spec[1].get("hidden"):
            continue
        for key, sub in options.items():
            inner = _dynamic_variants(input_rows(sub), f"{prefix}{name}.", depth - 1) if depth > 1 else []
            out += [[(prefix + name, key)] + v for v in inner] or [[(prefix + name, key)]]
    return out


def _input_types(rows) -> set:
    """Types of these inputs and of every input their dynamic combos' options add."""
    out = set()
    for _, spec, _ in rows:
        out.add(spec[0] if isinstance(spec[0], str) else "COMBO")
        for sub in (dynamic_options(spec) or {}).values():
            out |= _input_types(input_rows(sub))
    return out


def test_converter_matches_the_frontend_on_dynamic_combos(app, info):
    """Every node with a DynamicCombo input (ComfyUI 0.33+), with each option (nested ones too) chosen in the
    real frontend: uiformat.ui_to_api of the node as the frontend saves it gives what the frontend queues."""
    dynamic = sorted(t for t, spec in info.items() if any(x[0] == DYNAMIC_COMBO for _, x, _ in ordered_inputs(spec)))
    if not dynamic:
        pytest.skip("this ComfyUI has no DynamicCombo inputs (0.33 has them): runs in CI on the ComfyUI 0.33 main bed (scripts/test.sh)")
    # Widgets of other kinds the frontend draws (COLORS, CURVE, ...) are not modelled: leave out their nodes.
    other = set(app.page.evaluate("() => Object.keys(app.widgets)")) - {*WIDGET_TYPES, DYNAMIC_COMBO}
    types = [t for t in dynamic if not _input_types(ordered_inputs(info[t])) & other]
    assert len(types) >= len(dynamic) / 2 and "SaveVideo" in types, (dynamic, types)
    cases = [(t, v) for t in types for v in _dynamic_variants(ordered_inputs(info[t]))[:12]]
    got = app.page.evaluate("""async (cases) => {
        const out = [];
        for (const [type, sets] of cases) {
            app.graph.clear();
            const n = LiteGraph.createNode(type);
            app.graph.add(n);
            let error = null;
            for (const [name, key] of sets) {
                const w = (n.widgets || []).find(w => w.name === name);
                if (!w) { error = 'no widget ' + name; break; }
                w.value = key;
                w.callback?.(key, app.canvas, n);
            }
            if (error) { out.push({error}); continue; }
            const ser = JSON.parse(JSON.stringify(n.serialize()));
            const prompt = (await app.graphToPrompt()).output[String(n.id)];
            out.push({ser, prompt});
        }
        app.graph.clear();
        return out;
    }""", cases)
    checked = 0
    for (t, sets), r in zip(cases, got):
        assert "error" not in r, (t, sets, r)
        mine = ui_to_api({"nodes": [r["ser"]], "links": []}, info)[str(r["ser"]["id"])]["inputs"]
        theirs = {k: v for k, v in r["prompt"]["inputs"].items() if not isinstance(v, list)}
        assert mine == theirs, (t, sets, r["ser"].get("widgets_values"))
        checked += 1
    assert checked >= len(types)


def test_report_text_is_shown_under_the_node(app, server):
    """Every node's report (ui.PreviewText, the `text` of the executed message) is drawn under the node by the
    pack's web extension (web/accel_report.js; the stock frontends draw it only for PreviewAny): queue Accel
    Hardware Report from the page and find its text in a visible read-only text box of that node: its first screen,
    the details shown and hidden again by the node's button. Neither widget is saved with the workflow nor sent in
    the prompt."""
    wf = json.loads((REPO / "workflows" / "hardware_report.json").read_text())
    app.clear_alerts()
    app.load_workflow(wf, "hardware_report.json")
    before = app.graph_to_prompt()
    app.page.evaluate("async () => { await app.queuePrompt(0, 1); }")
    app.page.wait_for_function(
        "() => { const n = app.graph.getNodeById(1); const w = (n && n.widgets || []).find(w => w.name === 'accel_report');"
        " return !!w && String(w.value).includes('comfyui-accel hardware report'); }", timeout=120_000)
    app.settle()
    shown = app.page.evaluate(
        "() => Array.from(document.querySelectorAll('textarea')).filter(t => t.getClientRects().length && "
        "t.value.includes('comfyui-accel hardware report')).map(t => ({readOnly: t.readOnly, text: t.value}))")
    app.screenshot(ARTIFACTS / "report_text_under_node.png")
    assert len(shown) == 1 and shown[0]["readOnly"], shown
    assert "attention auto ->" in shown[0]["text"]
    # the first screen is shown (at most six lines); the details are one click away, on the node's button
    assert len(shown[0]["text"].splitlines()) <= 6 and "defaults for" not in shown[0]["text"], shown
    toggle = ("() => { const n = app.graph.getNodeById(1); const b = n.widgets.find(w => w.name === "
              "'accel_report_details'); b.callback(); const w = n.widgets.find(w => w.name === 'accel_report');"
              " return {label: b.label, text: String(w.value)}; }")
    opened = app.page.evaluate(toggle)
    app.settle()
    assert opened["label"] == "hide details" and "defaults for" in opened["text"], opened
    assert opened["text"].startswith(shown[0]["text"]), opened
    app.screenshot(ARTIFACTS / "report_details_open.png")
    closed = app.page.evaluate(toggle)
    assert closed["label"].startswith("show details (") and closed["text"] == shown[0]["text"], closed
    assert app.graph_to_prompt() == before  # not an input of the prompt
    saved = next(n for n in app.serialize()["nodes"] if n["id"] == 1)
    assert saved["widgets_values"] == wf["nodes"][0]["widgets_values"], saved["widgets_values"]


def test_compile_fallback_updates_the_report(app, server, M):
    """A compile that fails at run time is not silent in the UI: queue a tiny Wan through Accel Compile from the page
    while inductor cannot build kernels (this server runs with CXX=/bin/false); after the sampler ran, the report
    under Accel Compile starts with the fallback and its reason (accel.common.live_report re-sends the node's executed
    message), where before the run it said the model compiles on the first sampling step."""
    M.write_wan(server.base / "models" / "diffusion_models" / "browser_live_wan.safetensors", seed=3)
    api = {
        "1": {"class_type": "UNETLoader", "inputs": {"unet_name": "browser_live_wan.safetensors", "weight_dtype": "default"}},
        "2": {"class_type": "AccelRandomConditioning", "inputs": {"seed": 1, "tokens": 8, "dim": 4096, "scale": 1.0}},
        "3": {"class_type": "EmptyHunyuanLatentVideo", "inputs": {"width": 32, "height": 32, "length": 1, "batch_size": 1}},
        "5": {"class_type": "AccelCompile", "inputs": {"model": ["1", 0], "mode": "default", "scope": "blocks",
                                                        "dynamic": "auto", "fullgraph": False, "backend": "inductor",
                                                        "recompile_limit": 64, "on_failure": "fall back"}},
        "6": {"class_type": "KSampler", "inputs": {"model": ["5", 0], "seed": 0, "steps": 2, "cfg": 1.0,
                                                   "sampler_name": "euler", "scheduler": "simple", "positive": ["2", 0],
                                                   "negative": ["2", 0], "latent_image": ["3", 0], "denoise": 1.0}},
        "7": {"class_type": "SaveLatent", "inputs": {"samples": ["6", 0], "filename_prefix": "browser_live/out"}},
    }
    app.clear_alerts()
    app.api_to_ui(api, "live_report.json")
    app.page.evaluate("async () => { await app.queuePrompt(0, 1); }")
    app.page.wait_for_function(
        "() => { const n = app.graph.getNodeById(5); const w = (n && n.widgets || []).find(w => w.name === 'accel_report');"
        " return !!w && String(w.value).startsWith('after the last run:'); }", timeout=300_000)
    app.settle()
    text = app.page.evaluate("() => app.graph.getNodeById(5).widgets.find(w => w.name === 'accel_report').value")
    app.screenshot(ARTIFACTS / "compile_fallback_report.png")
    first = text.splitlines()[0]
    assert first.startswith("after the last run: compile: FELL BACK TO EAGER") and "C++ compiler" in first, text
    assert "compiles on the first sampling step" not in text
