"""The pack in a REAL ComfyUI server (its own main.py, HTTP + websocket), one server for this module.

Covers: our nodes in /object_info with tooltips, a prompt with our nodes and tiny Wan sampling over HTTP,
validation errors over HTTP, the demo's workflow builder against the live node set (chain composition,
per-node timings, latent diff), the static demo workflow being current and valid, and `comfy run`.
"""
import json
from pathlib import Path

import pytest

from accel_harness import demo as D
from accel_harness.server import EventListener, ServerError, comfy_cli, find_comfy_cli, tiny_wan_server, ui_text
from accel_harness.workflow import structure

REPO = Path(__file__).resolve().parents[2]
OURS = "custom_nodes.comfyui_accel"


@pytest.fixture(scope="module")
def server(comfy, M, tmp_path_factory):
    with tiny_wan_server(tmp_path_factory.mktemp("live-server"), D.DEMO_MODEL) as srv:
        yield srv


@pytest.fixture(scope="module")
def info(server):
    return server.object_info()


def test_server_loaded_this_pack_with_tooltips(server, info):
    ours = {k: v for k, v in info.items() if v.get("python_module") == OURS}
    assert {"AccelHardwareReport", "AccelRandomConditioning", "AccelLatentDiff"} <= set(ours), sorted(ours)
    # the server loads THIS checkout: custom_nodes/comfyui_accel in its base dir links to the repo root
    assert (server.base / "custom_nodes" / "comfyui_accel").resolve() == REPO.resolve()
    assert "IMPORT FAILED" not in "\n".join(l for l in server.log_tail(400).splitlines() if "comfyui_accel" in l)
    missing = []
    for name, spec in ours.items():  # every node of the pack, including feature nodes as they land
        assert spec["description"], f"{name} has no DESCRIPTION"
        assert spec["category"].startswith("accel"), (name, spec["category"])
        for sect in ("required", "optional"):
            for inp, s in (spec["input"].get(sect) or {}).items():
                if not (len(s) > 1 and isinstance(s[1], dict) and s[1].get("tooltip")):
                    missing.append(f"{name}.{inp}")
        assert len(spec.get("output_tooltips") or []) == len(spec["output"]), f"{name}: output tooltips"
    assert not missing, f"inputs without a tooltip: {missing}"
    assert info["AccelRandomConditioning"]["category"] == "accel/testing"


def test_help_pages_are_served_where_the_frontend_fetches_them(server, info):
    """The frontend's node help panel (ComfyUI_frontend nodeHelpService.fetchCustomNodeHelp) fetches
    /extensions/<python_module's second part>/docs/<node name>/<locale>.md, then .../docs/<node name>.md; the server
    serves the pack's WEB_DIRECTORY there. Every node's page comes back as this checkout's file."""
    import urllib.error

    for name, spec in info.items():
        if spec.get("python_module") != OURS:
            continue
        folder = spec["python_module"].split(".")[1]
        english = REPO / "web" / "docs" / name / "en.md"
        if english.is_file():
            assert server.get_bytes(f"/extensions/{folder}/docs/{name}/en.md").decode() == english.read_text()
        else:  # 404: the frontend falls back to the next URL
            with pytest.raises(urllib.error.HTTPError):
                server.get_bytes(f"/extensions/{folder}/docs/{name}/en.md")
        page = server.get_bytes(f"/extensions/{folder}/docs/{name}.md").decode()
        assert page == (REPO / "web" / "docs" / f"{name}.md").read_text(), name


def _tiny_prompt(seed=5):
    return {
        "1": {"class_type": "UNETLoader", "inputs": {"unet_name": D.DEMO_MODEL, "weight_dtype": "default"}},
        "2": {"class_type": "AccelRandomConditioning", "inputs": {"seed": 1, "tokens": 8, "dim": 4096, "scale": 1.0}},
        "3": {"class_type": "AccelRandomConditioning", "inputs": {"seed": 2, "tokens": 8, "dim": 4096, "scale": 1.0}},
        "4": {"class_type": "EmptyHunyuanLatentVideo", "inputs": {"width": 64, "height": 48, "length": 5, "batch_size": 1}},
        "5": {"class_type": "KSampler", "inputs": {
            "model": ["1", 0], "seed": seed, "steps": 2, "cfg": 2.0, "sampler_name": "euler", "scheduler": "simple",
            "positive": ["2", 0], "negative": ["3", 0], "latent_image": ["4", 0], "denoise": 1.0}},
        "6": {"class_type": "SaveLatent", "inputs": {"samples": ["5", 0], "filename_prefix": "live/tiny"}},
        "7": {"class_type": "AccelHardwareReport", "inputs": {"refresh": False}},
    }


def test_prompt_with_our_nodes_runs_over_http(server):
    import torch
    from safetensors.torch import load_file

    entry = server.run(_tiny_prompt(), timeout=120)
    assert entry["status"]["status_str"] == "success" and entry["status"]["completed"]
    events = [e for e, _ in entry["status"]["messages"]]
    assert "execution_start" in events and "execution_success" in events
    files = server.output_files(entry)
    assert len(files) == 1 and files[0].exists() and files[0].suffix == ".latent", files
    item = entry["outputs"]["6"]["latents"][0]
    assert server.view(item) == files[0].read_bytes()  # fetched over HTTP like the frontend does
    lat = load_file(str(files[0]))["latent_tensor"]
    assert tuple(lat.shape) == (1, 16, 2, 6, 8)  # 5 frames -> 2 latent frames, 48x64 px -> 6x8
    assert torch.isfinite(lat).all() and lat.abs().max() > 0
    report = ui_text(entry, "7")
    assert report and "comfyui-accel hardware report" in report and "attention auto" in report


def test_invalid_prompt_is_rejected_with_the_input_named(server):
    p = _tiny_prompt()
    p["2"]["inputs"]["tokens"] = 0  # below the declared min of 1
    with pytest.raises(ServerError) as e:  # the hardware report (valid) still runs; the sampler branch is dropped
        server.submit(p)
    assert "tokens" in str(e.value) and '"2"' in str(e.value) and "smaller than min" in str(e.value)


def test_demo_builder_composes_branch_from_live_node_set(server, info):
    # A core MODEL->MODEL node stands in for an accel patch node here (it changes the result: shift 3 vs
    # Wan's 8), so the test can check composition, separate execution, timings and the diff on any branch.
    wf = D.build(info, preset="tiny", chain=("ModelSamplingSD3", "AccelNotANode"), seed=3, steps=2)
    assert wf.used == ["ModelSamplingSD3"] and "AccelNotANode" in wf.skipped
    with EventListener(server) as ws:
        assert ws.error is None
        pid = server.submit(wf.part("stock_save", "accel_save", "diff"), client_id=ws.client_id)
        entry = server.wait(pid, timeout=120)
        import time

        time.sleep(0.2)
        secs = ws.node_seconds(pid)
    assert secs.get(wf.ids["stock_sampler"], 0) > 0 and secs.get(wf.ids["accel_sampler"], 0) > 0, secs
    assert any(t == "progress" for _, t, _ in ws.events)
    text = ui_text(entry, wf.ids["diff"])
    assert text.startswith("accelerated vs stock") and "max|diff| 0 " not in text, text
    # With no patch node the two branches are one graph: the diff must be exactly zero.
    same = D.build(info, preset="tiny", chain=(), seed=3, steps=2)
    entry = server.run(same.part("stock_save", "accel_save", "diff"), timeout=120)
    assert "max|diff| 0 " in ui_text(entry, same.ids["diff"])


def test_static_demo_workflow_is_current_and_valid(info, comfy, pack, M):
    path = REPO / D.STATIC_WORKFLOW
    assert path.exists(), f"{D.STATIC_WORKFLOW} missing: run `python scripts/demo.py --write-workflow`"
    static = json.loads(path.read_text())
    unknown = sorted({n["class_type"] for n in static.values()} - set(info))
    assert not unknown, f"{D.STATIC_WORKFLOW} uses nodes this server does not have: {unknown}"
    fresh = D.static_workflow(info)
    assert structure(static) == structure(fresh.prompt), (
        f"{D.STATIC_WORKFLOW} is stale for this node set (accel chain now {fresh.used}): regenerate it with "
        "`.testbed/venv/bin/python scripts/demo.py --write-workflow`")
    # ComfyUI's own validation (every input, type, range and combo value), in process with the same pack.
    from accel_harness import executor

    M.write_wan(comfy / "models" / "diffusion_models" / D.DEMO_MODEL, "t2v", "tiny")
    ok, err, outputs, node_errors = executor.validate(static)
    assert ok is True and not node_errors, (err, node_errors)
    assert set(outputs) >= {fresh.ids["stock_save"], fresh.ids["accel_save"]}


@pytest.mark.skipif(find_comfy_cli() is None, reason="comfy-cli not installed (scripts/setup_testbed.sh --test-tools)")
def test_comfy_run_submits_api_and_ui_workflows(server, tmp_path):
    api = tmp_path / "report_api.json"
    api.write_text(json.dumps({"1": {"class_type": "AccelHardwareReport", "inputs": {"refresh": True}}}))
    for wf in (api, REPO / "workflows" / "hardware_report.json"):
        r = comfy_cli(["run", "--workflow", str(wf), "--wait", "--host", "127.0.0.1", "--port", str(server.port),
                       "--timeout", "60"], cwd=tmp_path, home=tmp_path / "home")
        assert r.returncode == 0, f"comfy run {wf.name}: rc {r.returncode}\n{r.stdout[-2000:]}\n{r.stderr[-2000:]}"
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps({  # a CONDITIONING wired into LATENT inputs: ComfyUI rejects the only output
        "1": {"class_type": "AccelRandomConditioning", "inputs": {"seed": 0, "tokens": 4, "dim": 4096, "scale": 1.0}},
        "2": {"class_type": "AccelLatentDiff", "inputs": {"latent_a": ["1", 0], "latent_b": ["1", 0]}}}))
    r = comfy_cli(["run", "--workflow", str(bad), "--wait", "--host", "127.0.0.1", "--port", str(server.port),
                   "--timeout", "60"], cwd=tmp_path, home=tmp_path / "home")
    assert r.returncode != 0 and "latent_a" in (r.stdout + r.stderr), r.stdout[-2000:]


def test_demo_script_runs_against_the_live_server(server, capsys):
    """scripts/demo.py's run (warm-up, separate timed prompts, comparison, report) on this module's server."""
    import importlib.util

    spec = importlib.util.spec_from_file_location("accel_demo_script", REPO / "scripts" / "demo.py")
    demo = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(demo)
    res = demo.run_demo(server, preset="tiny", chain=("ModelSamplingSD3",), skip={}, steps=2, repeats=1, timeout=120)
    out = capsys.readouterr().out
    assert res["ok"] and res["chain_used"] == ["ModelSamplingSD3"]
    assert res["speedup"] is not None and res["speedup"] > 0
    assert all(s > 0 for s in res["stock_sampler_s"] + res["accel_sampler_s"])
    assert res["diff"]["max_abs"] > 0 and res["diff"]["finite"]  # shift 3 vs 8: the branches really differ
    assert "comfyui-accel hardware report" in res["hardware_report"]
    for line in ("warm-up: stock", "timed run 1/1: accel", "step 2/2", "speedup (stock / accelerated",
                 "max |accelerated - stock|", "AccelLatentDiff node"):
        assert line in out, line
