"""The GPU fault paths of issue #29 item 6 on a live ComfyUI (its own main.py, this checkout as a custom node pack):
what the user sees when a run fails, and whether the next prompt runs.

Cases (--cases, default all):
  compile_oom       Accel Compile, a prompt too large for the card (out of memory inside a compiled step), then a
                    prompt that fits. GPU: a real out-of-memory on a simulated small card (--card N --occupy and
                    --oom-width/--oom-height/--oom-frames); --inject (and --smoke) raise it inside the compiled graph.
  fp8_oom           Accel Load Diffusion Model (FP8) on a card too small, then the prompt again. GPU: real (--card N
                    --occupy); --inject / --smoke: ComfyUI's model builder raises torch's out-of-memory error once.
  interrupt_compile POST /interrupt while inductor compiles the first step, then the same prompt again.
  compile_error     inductor raising at run time (injected: "force a backend error"), with on_failure 'fall back'
                    (the report after the run) and 'error' (the error text).
  corrupt_cache     a compiled run fills the persistent compile cache (its own; a copy of the shared one when the
                    other cases ran before it in this --base); every file in it is then truncated or overwritten
                    with garbage; a new server runs the prompt again.
  multigpu_kill     Accel Multi-GPU (--gpus, default 2, NCCL; --smoke: 2 CPU workers, gloo): the last worker SIGKILLed
                    by its pid in the middle of sampling (once the server log shows a finished step), then the next
                    prompt.
  multigpu_oom      Accel Multi-GPU (--gpus): the workers load the model on a small prompt; then another process takes
                    all but --oom-left GiB of the last GPU and a prompt at --oom-width/--oom-height/--oom-frames runs
                    that worker out of memory while sampling; the GPU is given back and the next prompt runs. GPU only
                    (the --smoke records it as skipped).
Each case gets its own server (started as main.py starts it; on 0.33 DynamicVRAM and cudaMallocAsync included) and
records per prompt: status (success / error / interrupted), ComfyUI's error type and text, the report after the run
(Accel nodes' `accel_report` in /history) and the server log lines of the pack; then whether the next prompt ran.
Faults are injected by a small custom node folder this script writes into the server's base folder
(custom_nodes/accel_reliability_faults); it changes nothing unless a case asks for a fault.

GPU (source bench/gpu_env.sh 033):
  python3 bench/bench_reliability.py --size 14B --card 16 --occupy --out bench/results/h100/reliability
  python3 bench/bench_reliability.py --size 1.3B --cases multigpu_kill --out bench/results/h100x2/reliability
  python3 bench/bench_reliability.py --size 1.3B --cases multigpu_kill,multigpu_oom --gpus 4 --timeout 300 \
      --out bench/results/h200x4/reliability_multigpu      # ~3 min on 4 H200s (two servers, six prompts)
CPU smoke (tiny models, every fault injected): python bench/bench_reliability.py --smoke --out /tmp/rel
Results: <out>/reliability.json and reliability.md.
"""
from __future__ import annotations

import json
import os
import re
import shutil
import signal
import sys
import tempfile
import textwrap
import time
import traceback
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "bench"))
import runner  # noqa: E402  bench/runner.py: shared CLI, metadata, result files

CASES = ("compile_oom", "fp8_oom", "interrupt_compile", "compile_error", "corrupt_cache", "multigpu_kill",
         "multigpu_oom")
UNET = "reliability_wan.safetensors"
INJECTOR = "accel_reliability_faults"

INJECTOR_CODE = '''
"""Fault injection for bench/bench_reliability.py (written there; not part of comfyui-accel). Reads the JSON file
$ACCEL_RELIABILITY_FAULTS at each hooked call: {"compile_oom": n, "fp8_oom": n} raise torch's out-of-memory error in
the next n compiled calls / FP8 model builds; {"compile_error": true} makes inductor fail; "compile_sleep_s" slows the
next graph's compile down. Writes <that file>.compiling when inductor starts compiling."""
import json
import os
import time

NODE_CLASS_MAPPINGS = {}
_FILE = os.environ.get("ACCEL_RELIABILITY_FAULTS")


def _read():
    try:
        with open(_FILE) as f:
            return json.load(f)
    except Exception:
        return {}


def _take(name):
    f = _read()
    if not f.get(name):
        return False
    f[name] -= 1
    with open(_FILE, "w") as fh:
        json.dump(f, fh)
    return True


def _install():
    import torch
    import torch._inductor.compile_fx as cfx
    import comfy.sd

    oom = getattr(torch, "OutOfMemoryError", None) or torch.cuda.OutOfMemoryError
    orig_fx = cfx.compile_fx

    def compile_fx(gm, example_inputs, *args, **kwargs):
        open(_FILE + ".compiling", "w").close()
        f = _read()
        if f.get("compile_sleep_s"):  # the first graph only (a model compiles several)
            time.sleep(f.pop("compile_sleep_s"))
            with open(_FILE, "w") as fh:
                json.dump(f, fh)
        if f.get("compile_error"):
            raise RuntimeError("injected by bench_reliability: inductor failed to compile this graph")
        inner = orig_fx(gm, example_inputs, *args, **kwargs)

        def run(*a):
            if _take("compile_oom"):
                raise oom("injected by bench_reliability: CUDA out of memory. Tried to allocate 20.00 GiB.")
            return inner(*a)

        if getattr(inner, "_boxed_call", False):
            run._boxed_call = True
        return run

    cfx.compile_fx = compile_fx
    orig_load = comfy.sd.load_diffusion_model_state_dict

    def load(*args, **kwargs):
        if _take("fp8_oom"):
            raise oom("injected by bench_reliability: CUDA out of memory. Tried to allocate 2.00 GiB.")
        return orig_load(*args, **kwargs)

    comfy.sd.load_diffusion_model_state_dict = load


if _FILE:
    _install()
'''


def log(msg):
    print(f"[bench_reliability {time.strftime('%H:%M:%S')}] {msg}", flush=True)


def parse(argv=None):
    ap = runner.parser(__doc__, smoke="tiny models on the CPU, every fault injected",
                       out_help="folder for reliability.json / .md")
    ap.add_argument("--cases", default=",".join(CASES), help="comma list of: " + ", ".join(CASES))
    ap.add_argument("--size", default="1.3B", choices=["tiny", "1.3B", "14B"], help="Wan 2.1 T2V size (--smoke: tiny)")
    ap.add_argument("--card", type=float, default=None, help="simulate a card of N GiB (--reserve-vram, or --occupy)")
    ap.add_argument("--occupy", action="store_true", help="with --card: another process holds (free - N) GiB")
    ap.add_argument("--inject", action="store_true", help="inject the out-of-memory errors on the GPU too")
    ap.add_argument("--width", type=int, default=832)
    ap.add_argument("--height", type=int, default=480)
    ap.add_argument("--frames", type=int, default=33)
    ap.add_argument("--oom-width", type=int, default=1280)
    ap.add_argument("--oom-height", type=int, default=720)
    ap.add_argument("--oom-frames", type=int, default=161)
    ap.add_argument("--steps", type=int, default=4)
    ap.add_argument("--gpus", type=int, default=2, help="multigpu_kill / multigpu_oom: workers")
    ap.add_argument("--oom-left", type=float, default=0.5, help="multigpu_oom: GiB left free on the last GPU")
    ap.add_argument("--interrupt-after", type=float, default=3.0, help="seconds into the compile to POST /interrupt")
    ap.add_argument("--kill-after", type=float, default=0.0,
                    help="seconds after the first sampling step to kill a worker")
    ap.add_argument("--base", default=None, help="server base folder (the model file is reused when present)")
    ap.add_argument("--timeout", type=float, default=900.0, help="seconds per prompt")
    a = ap.parse_args(argv)
    if a.smoke:
        a.size, a.inject, a.width, a.height, a.frames, a.steps = "tiny", True, 32, 32, 1, 2
        a.oom_width, a.oom_height, a.oom_frames = 32, 32, 1
        a.interrupt_after = 0.5
    unknown = set(a.cases.split(",")) - set(CASES)
    if unknown:
        ap.error(f"unknown case(s) {sorted(unknown)}; choose from {', '.join(CASES)}")
    if a.occupy and not a.card:
        ap.error("--occupy needs --card N")
    return a


# ---------------------------------------------------------------------------------------------------- prompts

def prompt(a, patch: dict | None, width=None, height=None, frames=None, loader="unet", steps=None, prefix="rel",
           seed=0):
    """UNETLoader (or the FP8 loader) -> [patch node "5"] -> KSampler -> SaveLatent, random conditioning. A prompt that
    must sample again after an identical one needs another seed: ComfyUI reuses the KSampler's cached output."""
    if loader == "fp8":
        load = {"class_type": "AccelLoadDiffusionModelFP8", "inputs": {
            "unet_name": UNET, "weight_format": "auto", "compute": "auto",
            "keep_high_precision": "auto (per model family)"}}
    else:
        load = {"class_type": "UNETLoader", "inputs": {"unet_name": UNET, "weight_dtype": "default"}}
    p = {"1": load,
         "2": {"class_type": "AccelRandomConditioning", "inputs": {"seed": 1, "tokens": 8, "dim": 4096, "scale": 1.0}},
         "3": {"class_type": "EmptyHunyuanLatentVideo", "inputs": {
             "width": width or a.width, "height": height or a.height, "length": frames or a.frames, "batch_size": 1}},
         "6": {"class_type": "KSampler", "inputs": {
             "model": ["5", 0] if patch else ["1", 0], "seed": seed, "steps": steps or a.steps, "cfg": 1.0,
             "sampler_name": "euler", "scheduler": "simple", "positive": ["2", 0], "negative": ["2", 0],
             "latent_image": ["3", 0], "denoise": 1.0}},
         "7": {"class_type": "SaveLatent", "inputs": {"samples": ["6", 0], "filename_prefix": f"reliability/{prefix}"}}}
    if patch:
        p["5"] = dict(patch, inputs=dict(patch["inputs"], model=["1", 0]))
    return p


def compile_node(on_failure="fall back", recompile_limit=64):
    return {"class_type": "AccelCompile", "inputs": {"mode": "default", "scope": "blocks", "dynamic": "auto",
                                                      "fullgraph": False, "backend": "inductor",
                                                      "recompile_limit": recompile_limit, "on_failure": on_failure}}


def multigpu_node(a):
    return {"class_type": "AccelMultiGPU", "inputs": {"gpus": a.gpus, "device": "cpu" if a.smoke else "cuda",
                                                       "cfg_parallel": "on"}}


# ---------------------------------------------------------------------------------------------------- the server

class Case:
    """One case: its server, its fault file, and the record of each prompt."""

    def __init__(self, a, name, base: Path):
        self.a, self.name, self.base = a, name, base
        self.faults = base / "faults.json"
        # one persistent compile cache for the cases (a user's folder: later cases start warm), its own for
        # corrupt_cache
        self.cache = (base if name == "corrupt_cache" else base.parent) / "compile-cache"
        self.rec = {"case": name, "prompts": [], "notes": []}
        self.srv = None

    def set_faults(self, **f):
        self.faults.write_text(json.dumps(f))
        Path(str(self.faults) + ".compiling").unlink(missing_ok=True)

    def start(self, extra_args=()):
        from accel_harness.server import ComfyServer

        inj = self.base / "custom_nodes" / INJECTOR
        inj.mkdir(parents=True, exist_ok=True)
        (inj / "__init__.py").write_text(textwrap.dedent(INJECTOR_CODE))
        if not self.faults.exists():
            self.set_faults()
        env = {"ACCEL_RELIABILITY_FAULTS": str(self.faults), "ACCEL_COMPILE_CACHE_DIR": str(self.cache)}
        self.srv = ComfyServer(self.base, cpu=True if self.a.smoke else None, extra_args=list(extra_args), env=env)
        os.environ.pop("TORCHINDUCTOR_CACHE_DIR", None)  # the pack's persistent folder, as a user gets it
        self.log_from = 0
        self.srv.start(timeout=300)
        return self.srv

    def stop(self):
        if self.srv is not None:
            self.srv.stop()

    def submit(self, p) -> str:
        self.log_from = len(self.srv.log_tail(10 ** 6).splitlines())
        return self.srv.submit(p)

    def finish(self, pid, what, t0) -> dict:
        """Wait for prompt `pid`; record what the user saw."""
        entry, deadline = None, time.monotonic() + self.a.timeout
        while time.monotonic() < deadline and self.srv.alive():
            entry = self.srv.history(pid)
            if entry and entry.get("status", {}).get("completed") is not None and \
                    entry["status"].get("status_str") in ("success", "error"):
                break
            entry = None
            time.sleep(0.2)
        r = {"what": what, "seconds": round(time.monotonic() - t0, 1)}
        if entry is None:
            r["status"] = "server died" if not self.srv.alive() else "timeout"
        else:
            msgs = entry["status"].get("messages", [])
            events = [e for e, _ in msgs]
            err = next((d for e, d in msgs if e == "execution_error"), None)
            r["status"] = ("interrupted" if "execution_interrupted" in events else
                           "success" if entry["status"]["status_str"] == "success" else "error")
            if err:
                r.update(error_node=err.get("node_type"), error_type=err.get("exception_type"),
                         error_text=err.get("exception_message"))
            reports = {}
            for node, out in entry.get("outputs", {}).items():
                live = out.get("accel_report")
                if live:
                    reports[node] = live[0].get("text")
            r["reports"] = reports
        lines = self.srv.log_tail(10 ** 6).splitlines()[self.log_from:]
        r["pack_log"] = [ln for ln in lines if any(w in ln for w in ("accel", "compile", "multigpu", "OOM",
                                                                      "out of memory", "Interrupt", "interrupt"))][-25:]
        self.rec["prompts"].append(r)
        log(f"{self.name}: {what}: {r['status']}" + (f" ({r.get('error_type')}: {str(r.get('error_text'))[:300]})"
                                                      if r.get("error_text") else ""))
        return r

    def run(self, p, what) -> dict:
        t0 = time.monotonic()
        return self.finish(self.submit(p), what, t0)


def stepped(c: Case, steps: int) -> bool:
    """Whether the server log shows a finished sampling step (tqdm's `k/steps`, k >= 1) since the last submit."""
    lines = c.srv.log_tail(10 ** 6).splitlines()[c.log_from:]
    return any(re.search(rf"\b[1-9]\d*/{steps} \[", ln) for ln in lines)


def worker_pids(server_pid: int) -> list:
    """Accel Multi-GPU worker processes of the server (children running accel/multigpu/_entry.py)."""
    out = []
    for d in Path("/proc").iterdir():
        if not d.name.isdigit():
            continue
        try:
            stat = (d / "stat").read_text()
            ppid = int(stat.rsplit(")", 1)[1].split()[1])
            if ppid == server_pid and b"_entry.py" in (d / "cmdline").read_bytes():
                out.append(int(d.name))
        except (OSError, ValueError, IndexError):
            continue
    return sorted(out)


# ---------------------------------------------------------------------------------------------------- the cases

def case_compile_oom(c: Case, a):
    c.start(c.a.server_args)
    if a.inject:
        c.set_faults(compile_oom=1)
    r = c.run(prompt(a, compile_node(), a.oom_width, a.oom_height, a.oom_frames), "too large for the card")
    c.rec["oom_seen"] = r["status"] == "error" and "OutOfMemory" in str(r.get("error_type"))
    c.set_faults()
    nxt = c.run(prompt(a, compile_node()), "a prompt that fits")
    c.rec["next_prompt_ran"] = nxt["status"] == "success"
    rep = " ".join(str(t) for t in r.get("reports", {}).values())
    # ok: the error names the node and the remedies, and the compile cache was not taken for damaged (an H100 run
    # once moved it aside for an out-of-memory error raised inside a cached kernel)
    c.rec["ok"] = c.rec["next_prompt_ran"] and (not c.rec["oom_seen"] or (
        "[Accel Compile]" in str(r.get("error_text")) and "Remedies:" in str(r.get("error_text"))
        and "damaged" not in rep))


def case_fp8_oom(c: Case, a):
    c.start(c.a.server_args)
    if a.inject:
        c.set_faults(fp8_oom=1)
    r = c.run(prompt(a, None, a.oom_width, a.oom_height, a.oom_frames, loader="fp8"), "FP8 loader, too large")
    c.rec["oom_seen"] = "OutOfMemory" in str(r.get("error_type"))
    c.set_faults()
    nxt = c.run(prompt(a, None, loader="fp8"), "FP8 loader, a prompt that fits")
    c.rec["next_prompt_ran"] = nxt["status"] == "success"
    # ok: a prompt that ran out says so with the remedies (an H100 run once showed torch's bare message)
    c.rec["ok"] = c.rec["next_prompt_ran"] and (r["status"] == "success" or (
        "damaged" not in str(r.get("error_text")) and "Remedies:" in str(r.get("error_text"))))


def case_interrupt_compile(c: Case, a):
    c.start(c.a.server_args)
    if a.smoke:
        c.set_faults(compile_sleep_s=3)  # the tiny model compiles in a moment: give the interrupt time to land
    t0 = time.monotonic()
    pid = c.submit(prompt(a, compile_node()))
    marker = Path(str(c.faults) + ".compiling")
    while not marker.exists() and time.monotonic() - t0 < a.timeout:
        time.sleep(0.05)
    time.sleep(a.interrupt_after)
    c.srv.post("/interrupt", {})
    c.rec["interrupt_at_s"] = round(time.monotonic() - t0, 1)
    r = c.finish(pid, f"POST /interrupt {a.interrupt_after:g} s into the first compile", t0)
    c.set_faults()
    nxt = c.run(prompt(a, compile_node()), "the same prompt again")
    c.rec["next_prompt_ran"] = nxt["status"] == "success"
    rep = " ".join(nxt.get("reports", {}).values())
    c.rec["ok"] = r["status"] == "interrupted" and c.rec["next_prompt_ran"] and "FELL BACK" not in rep


def case_compile_error(c: Case, a):
    c.start(c.a.server_args)
    c.set_faults(compile_error=True)
    r1 = c.run(prompt(a, compile_node("fall back")), "inductor fails, on_failure 'fall back'")
    # other settings: a status of its own (the same settings keep the fallback of the first prompt, as its report says)
    r2 = c.run(prompt(a, compile_node("error", recompile_limit=63), prefix="err"), "inductor fails, on_failure 'error'")
    c.set_faults()
    rep = " ".join(r1.get("reports", {}).values())
    c.rec["next_prompt_ran"] = r1["status"] == "success"
    c.rec["ok"] = (r1["status"] == "success" and "FELL BACK TO EAGER" in rep and r2["status"] == "error"
                   and "[Accel Compile]" in str(r2.get("error_text")))


def case_corrupt_cache(c: Case, a):
    shared = c.base.parent / "compile-cache"
    if shared.is_dir() and not c.cache.exists():  # a copy of the folder the other cases filled: the first run is warm
        shutil.copytree(shared, c.cache)
        c.rec["started_from"] = "a copy of the shared compile cache"
    c.start(c.a.server_args)
    c.run(prompt(a, compile_node()), "fills the compile cache")
    c.stop()
    files = [p for p in c.cache.rglob("*") if p.is_file()]
    for i, p in enumerate(files):
        data = p.read_bytes()
        p.write_bytes(data[: len(data) // 2] if i % 2 else b"\x00garbage\xff" * 7)
    c.rec["damaged_files"] = len(files)
    c.start(c.a.server_args)
    r = c.run(prompt(a, compile_node()), f"a new server after {len(files)} cache files were damaged")
    rep = " ".join(r.get("reports", {}).values())
    c.rec["cache_folders"] = sorted(p.name for p in c.cache.parent.iterdir() if p.name.startswith("compile-cache"))
    c.rec["next_prompt_ran"] = r["status"] == "success"
    c.rec["ok"] = c.rec["next_prompt_ran"] and "ran compiled" in rep


def _multigpu_skip(c: Case, a) -> bool:
    """Record why a multi-GPU case cannot run here (True), else False."""
    if a.smoke:
        import importlib.util

        if importlib.util.find_spec("yunchang") is None:
            c.rec.update(ok=None, skipped="yunchang is not installed")
            return True
    else:
        import torch

        if torch.cuda.device_count() < a.gpus:
            c.rec.update(ok=None, skipped=f"{torch.cuda.device_count()} GPU(s) visible, {a.gpus} needed")
            return True
    return False


def _alive(pids) -> list:
    return [p for p in pids if Path(f"/proc/{p}").exists()
            and Path(f"/proc/{p}/stat").read_text().rsplit(")", 1)[1].split()[0] != "Z"]


def case_multigpu_kill(c: Case, a):
    if _multigpu_skip(c, a):
        return
    c.start(c.a.server_args)
    # the kill lands once the first sampling step of the prompt has finished (the progress bar in the server log says
    # so; workers compute every step), then --kill-after; enough steps that the prompt cannot end first (a killed
    # prompt stops at once, so they cost nothing)
    steps = 200 if a.smoke else max(a.steps, 8)
    c.run(prompt(a, multigpu_node(a), steps=2), "workers start and load the model")
    workers = worker_pids(c.srv.proc.pid)
    c.rec["workers"] = workers
    t0 = time.monotonic()
    pid = c.submit(prompt(a, multigpu_node(a), steps=steps, prefix="kill"))
    while time.monotonic() - t0 < a.timeout and c.srv.alive() and not stepped(c, steps):
        time.sleep(0.02)
    c.rec["first_step_s"] = round(time.monotonic() - t0, 2)
    time.sleep(a.kill_after)
    killed = workers[-1] if workers else None
    if killed:
        os.kill(killed, signal.SIGKILL)
    c.rec["killed"] = killed
    r = c.finish(pid, f"worker pid {killed} SIGKILLed {a.kill_after:g} s after the first sampling step", t0)
    time.sleep(1)
    c.rec["old_workers_left"] = _alive(workers)
    # another seed: the same prompt as the first would be ComfyUI's cached output, sampling nothing
    nxt = c.run(prompt(a, multigpu_node(a), steps=2, prefix="next", seed=1), "the next prompt (new workers)")
    c.rec["new_workers"] = worker_pids(c.srv.proc.pid)
    c.rec["next_prompt_ran"] = nxt["status"] == "success"
    fresh = bool(c.rec["new_workers"]) and not set(c.rec["new_workers"]) & set(workers)
    c.rec["ok"] = (r["status"] == "error" and c.rec["next_prompt_ran"] and fresh and not c.rec["old_workers_left"]
                   and f"pid {killed}" in str(r.get("error_text")))
    if c.rec["next_prompt_ran"] and not fresh:
        c.rec["error"] = "the next prompt ran without new workers (cached, or sampled without Multi-GPU)"
    if r["status"] == "success":
        c.rec["error"] = "the prompt finished before the worker was killed: use a smaller --kill-after"


def case_multigpu_oom(c: Case, a):
    if a.smoke:
        c.rec.update(ok=None, skipped="a real out-of-memory needs GPUs (tests/multigpu covers a worker failing in a "
                                      "step)")
        return
    if _multigpu_skip(c, a):
        return
    c.start(c.a.server_args)
    c.run(prompt(a, multigpu_node(a), steps=2), "workers start and load the model")
    workers = worker_pids(c.srv.proc.pid)
    c.rec["workers"] = workers
    gpu = a.gpus - 1
    free = runner.gpu_free_gib(gpu)
    occupier = runner.occupy(a.oom_left, free, log, gpu=gpu) if free else None
    c.rec["occupied_gib"] = round(free - a.oom_left, 1) if occupier else None
    try:
        r = c.run(prompt(a, multigpu_node(a), a.oom_width, a.oom_height, a.oom_frames, steps=2, prefix="oom"),
                  f"{a.oom_width}x{a.oom_height} {a.oom_frames} frames with {a.oom_left:g} GiB left on GPU {gpu}")
        time.sleep(1)
        c.rec["old_workers_left"] = _alive(workers)
    finally:
        runner.release(occupier)
    nxt = c.run(prompt(a, multigpu_node(a), steps=2, prefix="next", seed=1), "the next prompt (GPU given back)")
    c.rec["new_workers"] = worker_pids(c.srv.proc.pid)
    c.rec["next_prompt_ran"] = nxt["status"] == "success"
    text = str(r.get("error_text"))
    c.rec["oom_seen"] = "out of memory" in text.lower()
    fresh = bool(c.rec["new_workers"]) and not set(c.rec["new_workers"]) & set(workers)
    c.rec["ok"] = (r["status"] == "error" and c.rec["oom_seen"] and "lower the resolution" in text
                   and f"worker {gpu}" in text and not c.rec["old_workers_left"] and c.rec["next_prompt_ran"] and fresh)
    if r["status"] == "success":
        c.rec["error"] = "the prompt fitted: use a larger --oom-width/--oom-height/--oom-frames or a smaller --oom-left"


# ---------------------------------------------------------------------------------------------------- results

def markdown(res) -> str:
    m = res["meta"]
    lines = ["# Reliability: the GPU fault paths (issue #29 item 6)", "",
             f"{m['device']} x{m.get('gpus', 1)}, ComfyUI {m.get('comfyui', '?')}, torch {m['torch']}, Wan 2.1 T2V "
             f"{m['size']}"
             + (f", card {m['card']} GiB ({'occupied' if m['occupy'] else '--reserve-vram'})" if m.get("card") else "")
             + (", faults injected" if m["inject"] else "") + f". Command: `{m['command']}`", "",
             "| case | ok | next prompt ran | what the user saw |", "| --- | --- | --- | --- |"]
    for c in res["cases"]:
        saw = "; ".join(f"{p['what']}: {p['status']}" + (f" ({str(p['error_type']).rsplit('.', 1)[-1]})"
                                                        if p.get("error_type") else "")
                        for p in c.get("prompts", []))
        lines.append(f"| {c['case']} | {c.get('ok')} | {c.get('next_prompt_ran')} | "
                     f"{c.get('skipped') or c.get('error') or saw} |")
    for c in res["cases"]:
        lines += ["", f"## {c['case']}", ""]
        for k in ("skipped", "error", "oom_seen", "started_from", "damaged_files", "cache_folders", "workers",
                  "first_step_s", "killed", "occupied_gib", "old_workers_left", "new_workers", "interrupt_at_s"):
            if k in c:
                lines.append(f"- {k}: {c[k]}")
        for p in c.get("prompts", []):
            lines.append(f"- **{p['what']}**: {p['status']} in {p['seconds']} s")
            if p.get("error_text"):
                lines += ["", "  ```", *("  " + ln for ln in str(p["error_text"]).splitlines()), "  ```"]
            for node, text in (p.get("reports") or {}).items():
                lines += ["", f"  report of node {node} after the run:", "  ```",
                          *("  " + ln for ln in str(text).splitlines()[:8]), "  ```"]
            if p.get("pack_log"):
                lines += ["", "  server log:", "  ```", *("  " + ln[:300] for ln in p["pack_log"][-10:]), "  ```"]
    return "\n".join(lines) + "\n"


def main(argv=None) -> int:
    a = parse(argv)
    sys.path.insert(0, str(REPO / "harness"))
    import accel_harness as H

    H.bootstrap(cpu=True if a.smoke else False)  # the model writer uses ComfyUI's ops
    import torch

    from accel_harness import models as M

    out = Path(a.out)
    out.mkdir(parents=True, exist_ok=True)
    root = Path(a.base) if a.base else Path(tempfile.mkdtemp(prefix="accel-reliability-"))
    cuda = torch.cuda.is_available() and not a.smoke
    res = {"run_meta": runner.metadata("cuda" if cuda else "cpu"),
           "meta": {"device": torch.cuda.get_device_name(0) if cuda else "cpu", "torch": torch.__version__,
                    "size": a.size, "card": a.card, "occupy": a.occupy, "inject": a.inject, "smoke": a.smoke,
                    "gpus": torch.cuda.device_count() if cuda else 0,
                    "command": " ".join([Path(sys.argv[0]).name] + list(argv if argv is not None else sys.argv[1:]))},
           "cases": []}
    try:
        from accel_harness.env import comfy_root

        res["meta"]["comfyui"] = (comfy_root() / "comfyui_version.py").read_text().split('"')[1]
    except Exception:  # noqa: BLE001
        pass

    def save():
        runner.write(out, "reliability", res, markdown(res))

    unet = root / "models" / "diffusion_models" / UNET
    if not unet.exists():
        unet.parent.mkdir(parents=True, exist_ok=True)
        M.save_safetensors(M.wan_state_dict("t2v", a.size, dtype=torch.bfloat16,
                                            device="cuda" if cuda else "cpu"), unet)
        if cuda:
            torch.cuda.empty_cache()
    a.server_args, occupier = [], None
    try:
        if a.card and cuda:
            from accel_harness import mainlike

            free = torch.cuda.mem_get_info()[0] / 2 ** 30
            if a.occupy:
                occupier = runner.occupy(a.card, free, log)
            else:
                a.server_args = mainlike.simulate_card_args(runner.gpu_total_gib() or free, a.card)
        for name in [n for n in a.cases.split(",") if n]:
            base = root / name
            for sub in ("custom_nodes", "models"):
                (base / sub).mkdir(parents=True, exist_ok=True)
            link = base / "models" / "diffusion_models"
            if not link.exists():
                link.symlink_to(unet.parent, target_is_directory=True)
            c = Case(a, name, base)
            try:
                globals()[f"case_{name}"](c, a)
            except Exception as e:  # keep the other cases
                c.rec.update(ok=False, error=f"{type(e).__name__}: {e}"[:2000],
                             traceback=traceback.format_exc()[-3000:])
                log(f"{name}: FAILED {e!r}"[:1000])
            finally:
                c.stop()
            res["cases"].append(c.rec)
            save()
    finally:
        runner.release(occupier)
    save()
    print(markdown(res))
    return 0


if __name__ == "__main__":
    sys.exit(main())
