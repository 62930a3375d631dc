"""Workflows in the REAL ComfyUI frontend (comfyui-frontend-package) in headless Debian Chromium via Playwright.

For every UI workflow in workflows/*.json: it loads the way opening the file does (app.loadGraphData) with
no "missing nodes" dialog, every node type is registered, our nodes show the widgets /object_info declares,
the frontend turns it into an API prompt with every node (notes excepted) that equals the workflow's API
twin in workflows/api/ where there is one (and what accel_harness.uiformat.ui_to_api makes of the file),
and a screenshot is saved to
test-artifacts/browser/<name>.png (look at it). One server and one browser for the module.
"""
import importlib.util
import json
from pathlib import Path

import pytest

from accel_harness.browser import FRONTEND_SETTINGS, Browser, available
from accel_harness.server import ComfyServer
from accel_harness.uiformat import VIRTUAL_NODES, prompt_diff, ui_to_api

REPO = Path(__file__).resolve().parents[1]
ARTIFACTS = REPO / "test-artifacts" / "browser"
UI_WORKFLOWS = sorted((REPO / "workflows").glob("*.json"))
OK, WHY = available()
if OK and importlib.util.find_spec("comfyui_frontend_package") is None:
    OK, WHY = False, "comfyui-frontend-package is not installed in this Python (the server would have no UI)"
pytestmark = pytest.mark.skipif(not OK, reason=WHY)


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    srv = ComfyServer(tmp_path_factory.mktemp("browser-server"), settings=FRONTEND_SETTINGS)
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


def _widget_inputs(spec):
    names = []
    for sect in ("required", "optional"):
        for name, s in (spec["input"].get(sect) or {}).items():
            typ = s[0]
            if isinstance(typ, list) or typ in ("INT", "FLOAT", "STRING", "BOOLEAN", "COMBO"):
                if not (len(s) > 1 and isinstance(s[1], dict) and s[1].get("forceInput")):
                    names.append(name)
    return names


def test_there_are_ui_workflows():
    assert (REPO / "workflows" / "hardware_report.json") in UI_WORKFLOWS


@pytest.mark.parametrize("path", UI_WORKFLOWS, ids=lambda p: p.stem)
def test_ui_workflow_loads_in_the_frontend(app, info, path):
    wf = json.loads(path.read_text())
    assert "nodes" in wf and "links" in wf, f"{path.name} is not a UI-format workflow (API prompts go in workflows/api/)"
    app.clear_alerts()
    app.load_workflow(wf, path.name)
    shot = app.screenshot(ARTIFACTS / f"{path.stem}.png")
    assert app.missing_nodes_dialog() is None, f"{path.name}: {app.missing_nodes_dialog()}"
    # e.g. "Invalid workflow against zod schema" (Comfy.Validation.Workflows is on)
    bad = [t for t in app.alerts() if "invalid" in t.lower() or "error" in t.lower()]
    assert not bad, f"{path.name}: the frontend reported {bad}"
    nodes = app.graph_nodes()
    want = sorted(n["type"] for n in wf["nodes"])
    assert sorted(n["type"] for n in nodes) == want
    assert all(n["registered"] for n in nodes), [n["type"] for n in nodes if not n["registered"]]
    for n in nodes:
        if n["type"] in info and info[n["type"]].get("python_module") == "custom_nodes.comfyui_accel":
            missing = set(_widget_inputs(info[n["type"]])) - set(n["widgets"])
            assert not missing, f"{path.name}: node {n['id']} ({n['type']}) shows no widget for {sorted(missing)}"
    prompt = app.graph_to_prompt()
    assert sorted(v["class_type"] for v in prompt.values()) == sorted(
        n["type"] for n in wf["nodes"] if n["type"] not in VIRTUAL_NODES)
    twin = REPO / "workflows" / "api" / path.name
    if twin.exists():  # the frontend queues exactly the API twin (and agrees with uiformat.ui_to_api)
        diff = prompt_diff(json.loads(twin.read_text()), prompt, ("api twin", "frontend"))
        assert not diff, f"{path.name}: " + "\n".join(diff)
        assert not prompt_diff(ui_to_api(wf, info), prompt, ("ui_to_api", "frontend"))
    assert shot.stat().st_size > 20_000  # a rendered canvas with nodes, not a blank page
    assert not [e for e in app.page_errors if "comfyui_accel" in e or "Accel" in e], app.page_errors


def test_missing_node_types_are_detected(app):
    """The check above can fail: an unknown node type brings up the frontend's missing-nodes dialog."""
    wf = json.loads((REPO / "workflows" / "hardware_report.json").read_text())
    wf["nodes"][0]["type"] = "AccelNodeThatDoesNotExist"
    app.load_workflow(wf, "broken.json")
    try:
        text = app.missing_nodes_dialog()
        assert text and "AccelNodeThatDoesNotExist" in text
    finally:
        app.close_dialogs()
    assert app.missing_nodes_dialog() is None
