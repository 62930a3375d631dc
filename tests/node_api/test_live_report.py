"""The report after the run (accel.common.live_report): a compile that falls back at run time is never silent.

Accel Compile's (and Wan Level-1's) report is written when the node executes, before the first sampling step
compiles anything. These tests run API prompts through ComfyUI's own validate_prompt + PromptExecutor on a tiny
Wan and read the prompt's history as an API client would (`outputs[<node>]`):
- inductor broken at run time (its compile_fx raises, as a missing compiler or a kernel without a fake would):
  with on_failure 'fall back' the run completes eager and `accel_report[0]["text"]` starts with the fallback
  and its reason; with 'error' the prompt fails with that reason;
- inductor working: the entry says the run compiled (regions, graphs, recompiles).
Through a live server (ComfyUI's main.py, its HTTP history): each prompt's report is its own. A later prompt that
reuses the cached node reports its runs in its own history entry, never in the earlier prompt's, and a run that
failed says so in the entry of the prompt that failed.
The frontend part (the text under the node is redrawn) is in tests/workflows/test_browser.py.
"""
import time

import pytest
import torch

from accel_harness.executor import run_prompt
from accel_harness.server import serving

UNET = "live_report_wan.safetensors"


@pytest.fixture(scope="module")
def unet(comfy, pack, M):
    from pathlib import Path

    import folder_paths

    d = Path(folder_paths.get_folder_paths("diffusion_models")[0])
    M.write_wan(d / UNET, seed=5, dtype=torch.float32)
    return UNET


def _prompt(node, on_failure, seed=0, dim=4096):
    if node == "AccelCompile":
        patch = {"class_type": "AccelCompile", "inputs": {
            "model": ["1", 0], "mode": "default", "scope": "blocks", "dynamic": "auto", "fullgraph": False,
            "backend": "inductor", "recompile_limit": 64, "on_failure": on_failure}}
    else:
        patch = {"class_type": "AccelWanLevel1", "inputs": {
            "model": ["1", 0], "attention": True, "compile": True, "compile_mode": "auto", "tf32": True,
            "cudnn_benchmark": False, "on_failure": on_failure}}
    return {
        "1": {"class_type": "UNETLoader", "inputs": {"unet_name": UNET, "weight_dtype": "default"}},
        "2": {"class_type": "AccelRandomConditioning", "inputs": {"seed": 1, "tokens": 8, "dim": dim, "scale": 1.0}},
        "3": {"class_type": "EmptyHunyuanLatentVideo",
              "inputs": {"width": 32, "height": 32, "length": 1, "batch_size": 1}},
        "5": patch,
        "6": {"class_type": "KSampler", "inputs": {"model": ["5", 0], "seed": seed, "steps": 2, "cfg": 1.0,
                                                   "sampler_name": "euler", "scheduler": "simple",
                                                   "positive": ["2", 0], "negative": ["2", 0],
                                                   "latent_image": ["3", 0], "denoise": 1.0}},
        "7": {"class_type": "SaveLatent", "inputs": {"samples": ["6", 0], "filename_prefix": "live_report/out"}},
    }


@pytest.fixture
def broken_inductor(monkeypatch):
    """inductor fails when it compiles (after dynamo traced the blocks), as on a machine where it cannot build
    kernels; dynamo's caches are reset so earlier tests' graphs are not reused."""
    import torch._dynamo
    import torch._inductor.compile_fx as cfx

    def broken(*args, **kwargs):
        raise RuntimeError("test: inductor cannot build kernels here")

    monkeypatch.setattr(cfx, "compile_fx", broken)
    torch._dynamo.reset()
    yield
    torch._dynamo.reset()


@pytest.mark.parametrize("node", ["AccelCompile", "AccelWanLevel1"])
def test_runtime_fallback_is_in_the_report(unet, broken_inductor, node):
    _, hist = run_prompt(_prompt(node, "fall back"))
    out = hist["outputs"]["5"]
    assert "compiles on the first sampling step" in out["text"][0]  # as the node wrote it, before the run
    live = out["accel_report"][0]
    assert live["text"].startswith("after the last run: compile: FELL BACK TO EAGER"), live["text"]
    assert "inductor cannot build kernels here" in live["text"].splitlines()[0]
    assert "compiles on the first sampling step" not in live["text"]
    assert live["runs"] == 1


def test_runtime_failure_with_error_stops_the_prompt(unet, broken_inductor):
    with pytest.raises(RuntimeError, match="torch.compile failed") as e:
        run_prompt(_prompt("AccelCompile", "error"))
    assert "inductor cannot build kernels here" in str(e.value) and "on_failure" in str(e.value)


def test_compiled_run_is_in_the_report(unet):
    import torch._dynamo

    torch._dynamo.reset()
    _, hist = run_prompt(_prompt("AccelCompile", "fall back"))
    live = hist["outputs"]["5"]["accel_report"][0]
    first = live["text"].splitlines()[0]
    assert first.startswith("after the last run: compile: ran compiled (default)"), live["text"]
    assert "0 recompile(s)" in first and "EAGER" not in live["text"]


def test_graph_breaks_inside_the_blocks_are_in_the_report(unet, monkeypatch):
    """A graph break inside the compiled blocks (here: the model's attention call breaks the graph, as a kernel dynamo
    cannot trace would) leaves the code between the graphs eager: the report after the run says how many and why."""
    import comfy.ldm.wan.model as wan_model
    import torch._dynamo

    orig = wan_model.optimized_attention

    def breaking(*args, **kwargs):
        torch._dynamo.graph_break()
        return orig(*args, **kwargs)

    monkeypatch.setattr(wan_model, "optimized_attention", breaking)
    torch._dynamo.reset()
    try:
        _, hist = run_prompt(_prompt("AccelCompile", "fall back"))
    finally:
        torch._dynamo.reset()
    text = hist["outputs"]["5"]["accel_report"][0]["text"]
    assert text.startswith("after the last run: compile: ran compiled (default)"), text
    line = next((ln for ln in text.splitlines() if "graph break(s) inside the blocks" in ln), "")
    assert line and "runs eager" in line and "latest: " in line, text


def test_quantized_attention_that_never_ran_is_reported(pack, mod, M):
    """A hybrid schedule under which no call ran quantized (here: a 2-step run with one exact step at each end; the
    LightX2V 2 + 2 split is placed in its whole schedule and does quantize, tests/attention/test_quant_attention.py).
    The report after the run says so (it said nothing: the run was as exact, and as slow, as the exact path).
    Driven through the schedule's own APPLY_MODEL wrapper with a run's sigmas and no model to place them by."""
    import comfy.patcher_extension as pe

    hybrid, keys, live = mod("accel.attention.hybrid"), mod("accel.common.keys"), mod("accel.common.live_report")
    sw = hybrid.StepWrapper(hybrid.Hybrid.default())
    m = M.wan_model(dtype=torch.float32, seed=1).clone()
    m.add_wrapper_with_key(pe.WrappersMP.APPLY_MODEL, keys.ATTENTION, sw)
    seen = []

    def executor(*args, **kwargs):
        seen.append(kwargs["transformer_options"][hybrid.EXACT_FLAG])

    sigmas = torch.tensor([1.0, 0.5, 0.0])  # a 2-step run
    for s in sigmas[:-1]:
        sw(executor, None, s, transformer_options={"sample_sigmas": sigmas})
    assert seen == [True, True]
    text = "\n".join(live.run_lines(m))
    assert "quantized attention: 0 of 2 model calls" in text and "NONE ran quantized" in text, text
    sw.calls = {"exact": 2, "quantized": 6}
    assert "NONE" not in "\n".join(live.run_lines(m))


# --- through a live server: each prompt's report is its own ---------------------------------------------------------

@pytest.fixture(scope="module")
def server(comfy, M, tmp_path_factory):
    """ComfyUI's main.py with a tiny Wan; CXX=/bin/false: inductor cannot build CPU kernels there, so Accel Compile
    falls back to eager at once (nothing compiles: the runs are quick)."""
    base = tmp_path_factory.mktemp("live-report-server")
    M.write_wan(base / "models" / "diffusion_models" / UNET, seed=5, dtype=torch.float32)
    with serving(base, env={"CXX": "/bin/false"}) as srv:
        yield srv


def _finished(server, prompt_id, timeout=120.0):
    """The /history entry of a prompt once it finished, successful or not."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        entry = server.history(prompt_id)
        if entry and entry.get("status", {}).get("completed") is not None and \
                entry["status"].get("status_str") in ("success", "error"):
            return entry
        time.sleep(0.1)
    raise AssertionError(f"prompt {prompt_id} did not finish:\n{server.log_tail(30)}")


def _report(server, prompt_id):
    return server.history(prompt_id)["outputs"]["5"]["accel_report"][0]


def test_each_prompt_keeps_its_own_report(server):
    """Prompt A compiles (falls back) and samples; B (another seed) and C (a conditioning the model cannot take: its
    run fails) reuse A's cached Accel Compile node. Before: the report entry was one dict held by every prompt's
    history, so A's entry counted B's and C's runs, and C's failure showed nowhere (A's and C's entries read the same,
    with no word of it). Now each prompt's entry says what its own runs did."""
    a = server.submit(_prompt("AccelCompile", "fall back", seed=0))
    entry_a = _finished(server, a)
    assert entry_a["status"]["status_str"] == "success", entry_a["status"]
    first = _report(server, a)
    assert first["runs"] == 1 and not first.get("failed"), first
    assert first["text"].startswith("after the last run: compile: FELL BACK TO EAGER"), first["text"]

    b = server.submit(_prompt("AccelCompile", "fall back", seed=1))
    assert _finished(server, b)["status"]["status_str"] == "success"
    assert _report(server, a) == first  # A's report is as A left it
    mine = _report(server, b)
    assert mine["runs"] == 1 and not mine.get("failed") and mine["text"] == first["text"], mine

    c = server.submit(_prompt("AccelCompile", "fall back", seed=2, dim=64))  # 64-wide text: the model's Linear fails
    entry_c = _finished(server, c)
    assert entry_c["status"]["status_str"] == "error", entry_c["status"]
    failed = _report(server, c)
    head = failed["text"].splitlines()[0]
    assert failed.get("failed") and failed["runs"] == 1, failed
    assert head.startswith("after the last run: FAILED: RuntimeError") and "mat" in head, failed["text"]
    assert "FELL BACK TO EAGER" in failed["text"]  # what compile did, after the failure
    assert _report(server, a) == first and _report(server, b) == mine  # earlier prompts' reports untouched
