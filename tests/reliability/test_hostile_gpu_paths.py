"""The GPU fault paths (issue #29 item 6), injected on the CPU through the real ComfyUI harness: API prompts through
ComfyUI's own validate_prompt + PromptExecutor (its OOM handling, its interrupt handling, its output cache), the pack
as ComfyUI loaded it. Each case checks what the user sees, that nothing is left behind and that the next prompt runs.
The same cases on a GPU, with real out-of-memory on a simulated small card: bench/bench_reliability.py.

- out of memory inside a compiled sampling step: an error of torch's out-of-memory class (ComfyUI recognizes it and
  unloads all models) that names the node, the device and the remedies; compile is not marked failed (it used to
  re-run the step eagerly and switch the model to eager for the rest of its life); the next prompt runs compiled;
- out of memory in the FP8 loader (ComfyUI building the model, the per-layer quantization, reading the file): the
  same, instead of "the file is damaged, download it again";
- ComfyUI's interrupt during the first compile: the prompt stops as interrupted, compile is not marked failed, the
  next prompt runs compiled without compiling again (an interrupt raised inside the compile reached the pack
  wrapped in dynamo's BackendCompilerFailed and was taken for a compile failure: eager from then on, the interrupt
  lost).
"""
import json
import os
from pathlib import Path

import pytest
import torch

from accel_harness.executor import run_prompt

UNET = "gpu_paths_wan.safetensors"
OOM_TEXT = ("CUDA out of memory. Tried to allocate 20.00 GiB. GPU 0 has a total capacity of 23.52 GiB of which "
            "1.10 GiB is free.")


@pytest.fixture(scope="module")
def unet(comfy, pack, M):
    from pathlib import Path

    import folder_paths

    d = Path(folder_paths.get_folder_paths("diffusion_models")[0])
    M.write_wan(d / UNET, seed=5, dtype=torch.float32)
    return UNET


def new_executor():
    import execution

    return execution.PromptExecutor(_Server(), cache_type=execution.CacheType.CLASSIC,
                                    cache_args={"lru": 0, "ram": 0, "ram_inactive": 0})


class _Server:
    client_id = last_node_id = last_prompt_id = None

    def __init__(self):
        self.messages, self.sockets_metadata = [], {}

    def send_sync(self, event, data, sid=None):
        self.messages.append((event, data))

    def queue_updated(self):
        pass


def failed(prompt, ex):
    """Run `prompt` on executor `ex`; it must not succeed. Returns (event, data) of ComfyUI's status message:
    ('execution_error', {exception_type, exception_message, ...}) or ('execution_interrupted', {...})."""
    with pytest.raises(RuntimeError, match="prompt failed"):
        run_prompt(prompt, ex)
    msgs = [(e, d) for e, d in ex.status_messages if e in ("execution_error", "execution_interrupted")]
    assert len(msgs) == 1, ex.status_messages
    return msgs[0]


def compile_prompt(unet_name, mode="default"):
    return {
        "1": {"class_type": "UNETLoader", "inputs": {"unet_name": unet_name, "weight_dtype": "default"}},
        "2": {"class_type": "AccelRandomConditioning", "inputs": {"seed": 1, "tokens": 8, "dim": 4096, "scale": 1.0}},
        "3": {"class_type": "EmptyHunyuanLatentVideo",
              "inputs": {"width": 32, "height": 32, "length": 1, "batch_size": 1}},
        "5": {"class_type": "AccelCompile", "inputs": {
            "model": ["1", 0], "mode": mode, "scope": "blocks", "dynamic": "auto", "fullgraph": False,
            "backend": "inductor", "recompile_limit": 64, "on_failure": "fall back"}},
        "6": {"class_type": "KSampler", "inputs": {"model": ["5", 0], "seed": 0, "steps": 2, "cfg": 1.0,
                                                   "sampler_name": "euler", "scheduler": "simple",
                                                   "positive": ["2", 0], "negative": ["2", 0],
                                                   "latent_image": ["3", 0], "denoise": 1.0}},
        "7": {"class_type": "SaveLatent", "inputs": {"samples": ["6", 0], "filename_prefix": "gpu_paths/out"}},
    }


@pytest.fixture
def fake_inductor(monkeypatch, mod):
    """inductor's compile_fx replaced by a stand-in that runs the traced graph as it is (no C++ builds on 2 shared
    cores; dynamo's tracing, guards and caches are real): `state` makes a compiled call raise torch's
    out-of-memory error (`oom_calls`), or runs `on_compile` while compiling. As with inductor, the compiled call runs
    in a generated module written into the compile cache folder (`<cache>/xx/c<hash>.py`, its `call` function): on an
    H100 an out-of-memory error raised there was once taken for a damaged cache file and the folder moved aside."""
    import importlib.util

    import torch._dynamo
    import torch._inductor.compile_fx as cfx

    state = {"compiles": 0, "oom_calls": 0, "on_compile": None}
    cache_dir = Path(mod("accel.compile.cache").activate()["dir"])

    def fake(gm, example_inputs, **kw):
        state["compiles"] += 1
        if state["on_compile"] is not None:
            state["on_compile"]()
        path = cache_dir / "zz" / f"cfakeinductor{os.getpid()}_{state['compiles']}.py"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text("import torch\n\n\ndef call(gm, args, state, oom_text):\n"
                        "    if state['oom_calls']:\n        state['oom_calls'] -= 1\n"
                        "        raise torch.OutOfMemoryError(oom_text)\n    return gm(*args)\n")
        spec = importlib.util.spec_from_file_location(path.stem, path)
        generated = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(generated)

        def run(*args):
            return generated.call(gm, args, state, OOM_TEXT)

        return run

    monkeypatch.setattr(cfx, "compile_fx", fake)
    monkeypatch.setattr(mod("accel.compile.apply"), "preflight_problem", lambda model, cfg: None)  # no compiler check
    torch._dynamo.reset()
    yield state
    torch._dynamo.reset()


def live_report(ex, node="5"):
    """The node's report entry of the prompt `ex` ran last: a dict the pack updates after every later run of the same
    model (a cached node is not in a later prompt's headless history)."""
    return ex.history_result["outputs"][node]["accel_report"][0]


# --- out of memory ---------------------------------------------------------------------------------------------

def test_out_of_memory_in_a_compiled_step(unet, fake_inductor, mod):
    import comfy.model_management as mm

    fake_inductor["oom_calls"] = 1
    cache_dir = Path(mod("accel.compile.cache").info()["dir"])
    aside_before = {p.name for p in cache_dir.parent.iterdir() if p.name.startswith(cache_dir.name + ".damaged-")}
    ex = new_executor()
    event, err = failed(compile_prompt(unet), ex)
    assert event == "execution_error" and err["node_type"] == "KSampler", err
    assert err["exception_type"].endswith("OutOfMemoryError"), err  # ComfyUI's tips and model unload follow the class
    msg = err["exception_message"]
    assert msg.startswith("[Accel Compile] out of memory on cpu"), msg
    assert "during a compiled sampling step (mode default" in msg and OOM_TEXT.split(".")[0] in msg, msg
    for remedy in ("lower the resolution", "--reserve-vram", "'Accel Load Diffusion Model (FP8)'",
                   "bypass Accel Compile", "the next prompt runs compiled"):
        assert remedy in msg, (remedy, msg)
    assert not mm.current_loaded_models, "ComfyUI did not see an out-of-memory error (it unloads every model then)"
    failed_text = live_report(ex)["text"]
    assert failed_text.startswith("after the last run: FAILED: OutOfMemoryError"), failed_text
    # the next prompt (the loader's and Accel Compile's outputs come from ComfyUI's cache: the same model) runs
    # compiled, with the graph compiled in the failed prompt; its report is its own (the failed one's stays)
    live = live_report(ex)
    run_prompt(compile_prompt(unet), ex)
    text = live_report(ex)["text"]
    assert live["text"] == failed_text, live["text"]
    assert text.startswith("after the last run: compile: ran compiled (default)"), text
    assert "EAGER" not in text and "failed" not in text, text
    # running out of memory inside a cached kernel's code is no damage of the cache: the folder stays where it is
    assert "damaged" not in text, text
    aside = {p.name for p in cache_dir.parent.iterdir() if p.name.startswith(cache_dir.name + ".damaged-")}
    assert aside == aside_before, (sorted(aside - aside_before), text)
    Region = mod("accel.compile.wrapper")._Region
    for m in mm.current_loaded_models:  # nothing swapped in outside a call
        dm = m.model.model.diffusion_model
        assert not any(isinstance(b, Region) for b in dm.blocks)


# --- ComfyUI's interrupt ---------------------------------------------------------------------------------------

@pytest.fixture
def progress_hook():
    """The progress hook main.py installs (server.py's hijack_progress): it raises ComfyUI's interrupt between
    sampling steps once the interrupt flag is set (POST /interrupt)."""
    import comfy.model_management as mm
    import comfy.utils

    def hook(value, total, preview_image, prompt_id=None, node_id=None):
        mm.throw_exception_if_processing_interrupted()

    old = getattr(comfy.utils, "PROGRESS_BAR_HOOK", None)
    comfy.utils.set_progress_bar_global_hook(hook)
    yield
    comfy.utils.set_progress_bar_global_hook(old)
    mm.interrupt_current_processing(False)


@pytest.mark.parametrize("how", ["flag", "raised"])
def test_interrupt_during_the_first_compile(unet, fake_inductor, progress_hook, how):
    """flag: POST /interrupt while inductor compiles (ComfyUI sets the flag; the step ends, the hook raises).
    raised: ComfyUI's check runs inside the compile and raises there (dynamo wraps it)."""
    import comfy.model_management as mm

    def on_compile():
        fake_inductor["on_compile"] = None
        if how == "flag":
            mm.interrupt_current_processing(True)
        else:
            raise mm.InterruptProcessingException()

    fake_inductor["on_compile"] = on_compile
    ex = new_executor()
    event, data = failed(compile_prompt(unet), ex)
    assert event == "execution_interrupted", (event, data)
    assert not mm.processing_interrupted()
    assert live_report(ex)["text"].startswith("after the last run: INTERRUPTED"), live_report(ex)
    run_prompt(compile_prompt(unet), ex)  # the same cached model: this prompt's report is its own
    text = live_report(ex)["text"]
    assert text.startswith("after the last run: compile: ran compiled (default)"), text
    assert "EAGER" not in text and "failed" not in text, text


# --- the FP8 loader --------------------------------------------------------------------------------------------

def fp8_prompt(name):
    return {"1": {"class_type": "AccelLoadDiffusionModelFP8", "inputs": {
                "unet_name": name, "weight_format": "auto", "compute": "auto",
                "keep_high_precision": "auto (per model family)"}},
            "2": {"class_type": "PreviewAny", "inputs": {"source": ["1", 1]}}}


@pytest.mark.parametrize("where", ["build", "quantize", "read"])
def test_out_of_memory_in_the_fp8_loader(unet, mod, monkeypatch, where):
    """build: ComfyUI's load_diffusion_model_state_dict runs out (it used to say the file may be damaged);
    quantize: the per-layer quantization on the GPU runs out (a raw torch error without a remedy);
    read: host memory runs out reading the file (it said: download the file again)."""
    import comfy.sd
    import comfy.utils

    calls = {"n": 0}
    if where == "build":
        target, name = comfy.sd, "load_diffusion_model_state_dict"
        exc = torch.OutOfMemoryError(OOM_TEXT)
    elif where == "quantize":
        target, name = mod("kernels.fp8_linear"), "quantize_weight"
        exc = torch.OutOfMemoryError(OOM_TEXT)
    else:
        target, name = comfy.utils, "load_torch_file"
        exc = RuntimeError("[enforce fail at alloc_cpu.cpp:117] data. DefaultCPUAllocator: can't allocate memory: "
                           "you tried to allocate 1073741824 bytes. Error code 12 (Cannot allocate memory)")
    orig = getattr(target, name)

    def once(*args, **kwargs):
        calls["n"] += 1
        if calls["n"] == 1:
            raise exc
        return orig(*args, **kwargs)

    monkeypatch.setattr(target, name, once)
    ex = new_executor()
    event, err = failed(fp8_prompt(unet), ex)
    msg = err["exception_message"]
    assert event == "execution_error" and msg.startswith("[Accel Load Diffusion Model (FP8)] out of memory on "), msg
    assert "damaged" not in msg and "download the file again" not in msg.lower(), msg
    assert "Accel Save FP8 Model" in msg, msg
    if where == "read":
        assert "while reading 'gpu_paths_wan.safetensors'" in msg and "swap" in msg, msg
        assert err["exception_type"].endswith("AccelError"), err
    else:
        assert err["exception_type"].endswith("OutOfMemoryError"), err  # ComfyUI unloads its models on this class
        assert OOM_TEXT.split(".")[0] in msg and "queue the prompt again" in msg, msg
        assert ("while ComfyUI built the model" if where == "build" else "while converting the weights") in msg, msg
    _, hist = run_prompt(fp8_prompt(unet), ex)  # the next prompt loads the file
    assert hist["outputs"]["2"]["text"][0].startswith("Accel FP8 loader: gpu_paths_wan.safetensors"), hist["outputs"]


def sample_fp8_prompt(name):
    p = compile_prompt(name)
    del p["5"]
    p["1"] = fp8_prompt(name)["1"]
    p["6"]["inputs"]["model"] = ["1", 0]
    return p


@pytest.mark.parametrize("where", ["fp8 matmul", "dequantize"])
def test_out_of_memory_while_sampling_an_fp8_model(unet, mod, monkeypatch, where):
    """Out of memory in a layer of an FP8-loaded model while sampling (not compiled). On an H100 (bench/results/h100/
    reliability) the FP8 matmul's failure handler took it for an unsupported matmul (warning "FP8 matmul failed ...
    dequantizes instead") and the user got torch's bare message: now an out-of-memory error with the remedies, FP8
    stays on, and the next prompt runs."""
    import gc

    ops, kfp8 = mod("accel.fp8.ops"), mod("kernels.fp8_linear")
    ex = new_executor()
    run_prompt(fp8_prompt(unet), ex)  # loaded once; the sampling prompts reuse the loader's cached output
    # type(), not isinstance(): gc also lists dead weak proxies, which raise on any attribute access
    runtimes = [o for o in gc.get_objects() if type(o) is ops.FP8Runtime and unet in str(o.source)]
    assert runtimes
    if where == "fp8 matmul":  # the scaled-mm path, on the CPU
        for rt in runtimes:  # as on a GPU where compute 'auto' picks the FP8 matmul
            rt.allow_cpu = rt.fast = True
        monkeypatch.setattr(kfp8, "scaled_mm_supported", lambda x, w: (True, ""))
        target, name = kfp8, "fp8_linear"
    else:
        target, name = kfp8, "dequantize"
    orig, calls = getattr(target, name), {"n": 0}

    def once(*args, **kwargs):
        calls["n"] += 1
        if calls["n"] == 1:
            raise torch.OutOfMemoryError(OOM_TEXT)
        if where == "fp8 matmul":  # the CPU has no scaled-mm kernel for every layout: the same math, dequantized
            x, w8, scale, bias = args[:4]
            return torch.nn.functional.linear(x, kfp8.dequantize(w8, scale, x.dtype), bias)
        return orig(*args, **kwargs)

    monkeypatch.setattr(target, name, once)
    fast = [rt.fast for rt in runtimes]
    event, err = failed(sample_fp8_prompt(unet), ex)
    msg = err["exception_message"]
    assert event == "execution_error" and err["exception_type"].endswith("OutOfMemoryError"), err
    assert msg.startswith("[Accel Load Diffusion Model (FP8)] out of memory on cpu"), msg
    assert f"while sampling with '{unet}'" in msg, msg
    for remedy in ("lower the resolution", "--reserve-vram", OOM_TEXT.split(".")[0]):
        assert remedy in msg, (remedy, msg)
    assert [rt.fast for rt in runtimes] == fast, "out of memory turned the FP8 matmul off"
    run_prompt(sample_fp8_prompt(unet), ex)
    assert calls["n"] > 1


# --- a damaged compile cache -----------------------------------------------------------------------------------

SESSION = """
import json, sys
sys.path.insert(0, {harness!r})
import accel_harness as H
H.bootstrap({base!r})
import torch
torch.set_num_threads({threads})  # inductor's CPU cache key includes the thread count
H.load_pack()
from accel_harness import models as M
from accel_harness.executor import run_prompt
import folder_paths
from pathlib import Path
M.write_wan(Path(folder_paths.get_folder_paths("diffusion_models")[0]) / {unet!r}, seed=5, dtype=torch.float32)
ex, hist = run_prompt({prompt!r})
print("REPORT=" + json.dumps(hist["outputs"]["5"]["accel_report"][0]["text"]))
"""


def test_damaged_compile_cache_is_moved_aside_and_compiled_afresh(unet, tmp_path):
    """Real inductor, two ComfyUI sessions (processes) sharing the persistent cache folder. The first fills it; every
    file in it is then truncated or overwritten (a full disk, a killed write). Inductor skips FX-graph entries it
    cannot unpickle, but its damaged generated kernel module made the compile fail ('Failed to import <cache>/xx/c...
    .py'): the model ran eager, in every later session too. Now the folder is moved aside (renamed, nothing deleted),
    a fresh one is used, the run compiles and the report after the run says where the old folder went."""
    import subprocess
    import sys

    import accel_harness as H

    folder = tmp_path / "compile-cache"
    env = dict(os.environ, OMP_NUM_THREADS="1", ACCEL_COMPILE_CACHE_DIR=str(folder))
    env.pop("TORCHINDUCTOR_CACHE_DIR", None)

    def session(n):
        code = SESSION.format(harness=str(H.REPO_ROOT / "harness"), base=str(tmp_path / f"base{n}"), unet=unet,
                              threads=torch.get_num_threads(), prompt=compile_prompt(unet))
        out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=900)
        assert out.returncode == 0, out.stderr[-3000:]
        return json.loads([ln for ln in out.stdout.splitlines() if ln.startswith("REPORT=")][-1][7:])

    assert session(1).startswith("after the last run: compile: ran compiled (default)")
    files = sorted(p for p in folder.rglob("*") if p.is_file())
    assert any(p.suffix == ".py" for p in files), files
    for i, p in enumerate(files):
        data = p.read_bytes()
        p.write_bytes(data[: len(data) // 2] if i % 2 else b"\x00garbage\xff" * 7)
    text = session(2)
    assert text.startswith("after the last run: compile: ran compiled (default)"), text
    assert "FELL BACK" not in text and "a damaged file in the compile cache" in text, text
    aside = [p for p in tmp_path.iterdir() if p.name.startswith("compile-cache.damaged-")]
    assert len(aside) == 1 and str(aside[0]) in text, (aside, text)
    assert sorted(p.relative_to(aside[0]) for p in aside[0].rglob("*") if p.is_file()) == \
        [p.relative_to(folder) for p in files], "a file of the damaged folder was lost"
    assert any(folder.rglob("*.py")), "the fresh folder was not filled"
