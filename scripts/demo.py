"""Stock vs accelerated Wan on a REAL ComfyUI server: per-run times, the speedup, the max difference.

Run through `bash scripts/demo.sh` (it builds the test bed first), or directly with the test bed's Python:
    .testbed/venv/bin/python scripts/demo.py [--preset tiny|small|1.3B] [--chain AccelAttention,AccelCompile]
    .testbed/venv/bin/python scripts/demo.py --write-workflow    # regenerate workflows/api/demo_before_after.json

What it does: writes a random-weight Wan 2.1 T2V model (tiny on the CPU, the true 1.3B config on a GPU)
into <work>/models/diffusion_models, starts ComfyUI's own main.py on 127.0.0.1 with this repository as
custom_nodes/comfyui_accel, composes the accelerated branch from the accel nodes the server reports in
/object_info, submits a stock prompt and an accelerated prompt (same loaded model, same seed) over HTTP
after a warm-up of each, streams progress from the websocket, compares the two saved latents, prints
the report, and stops the server.
"""
from __future__ import annotations

import argparse
import importlib.util
import json
import os
import statistics
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "harness"))

from accel_harness import demo as D  # noqa: E402
from accel_harness.server import ComfyServer, EventListener, execution_seconds, gpu_available, ui_text  # noqa: E402

T0 = time.perf_counter()


def say(msg: str = "") -> None:
    print(f"[demo {time.perf_counter() - T0:6.1f}s] {msg}", flush=True)


def _compare_module():
    """accel/common/compare.py loaded by path (it imports nothing of the pack); never put the repo root on sys.path."""
    spec = importlib.util.spec_from_file_location("_accel_compare", REPO / "accel" / "common" / "compare.py")
    m = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(m)
    return m


def default_work_dir() -> Path:
    """$ACCEL_DEMO_DIR, else <test bed>/demo; a test bed shared by several checkouts gets one dir per checkout."""
    if os.environ.get("ACCEL_DEMO_DIR"):
        return Path(os.environ["ACCEL_DEMO_DIR"])
    tb = Path(os.environ.get("ACCEL_TESTBED", REPO / ".testbed")).resolve()
    return tb / "demo" if tb.is_relative_to(REPO.resolve()) else tb / f"demo-{REPO.name}"


def ensure_model(work: Path, size: str, gpu: bool) -> Path:
    """Write the random-weight Wan model once per size (reused while its metadata says the same size)."""
    path = work / "models" / "diffusion_models" / D.DEMO_MODEL
    if path.exists():
        try:
            from safetensors import safe_open

            with safe_open(str(path), "pt") as f:
                if (f.metadata() or {}).get("accel_demo_size") == size:
                    say(f"model: reusing {path} (random Wan 2.1 T2V, {size} config)")
                    return path
        except Exception:
            pass
    say(f"model: writing a random-weight Wan 2.1 T2V ({size} config, official key layout) to {path}")
    import accel_harness as H

    H.bootstrap(work / "headless", cpu=not gpu)
    import torch

    from accel_harness import models as M

    t = time.perf_counter()
    sd = M.wan_state_dict("t2v", size, seed=0, dtype=torch.bfloat16, device="cuda" if gpu else "cpu")
    n = sum(v.numel() for v in sd.values())
    tmp = path.with_suffix(".tmp")
    M.save_safetensors(sd, tmp, metadata={"accel_demo_size": size})
    os.replace(tmp, path)
    del sd
    if gpu:
        torch.cuda.empty_cache()  # the server, not this process, needs the GPU memory now
    say(f"model: {n / 1e6:.1f} M parameters, {path.stat().st_size / 2**20:.1f} MiB, written in "
        f"{time.perf_counter() - t:.1f} s")
    return path


class Progress:
    """Prints node starts and sampler steps from the websocket as they come."""

    def __init__(self, titles: dict):
        self.titles = titles
        self.tag = ""

    def __call__(self, t, typ, data):
        if typ == "executing" and data.get("node") is not None:
            nid = str(data["node"])
            print(f"      {self.tag}: {self.titles.get(nid, nid)}", flush=True)
        elif typ == "progress" and data.get("max"):
            v, m = data.get("value"), data.get("max")
            print(f"      {self.tag}:   step {v}/{m}", flush=True)
        elif typ == "execution_cached" and data.get("nodes"):
            print(f"      {self.tag}: {len(data['nodes'])} node(s) reused from ComfyUI's cache", flush=True)


def run_one(srv: ComfyServer, listener: EventListener, progress: Progress, wf: D.DemoWorkflow, role: str,
            tag: str, timeout: float) -> dict:
    progress.tag = tag
    roles = {"stock": ("stock_save",), "accel": ("accel_save",), "both": ("stock_save", "accel_save", "diff", "report")}
    prompt = wf.part(*roles[role])
    t = time.perf_counter()
    pid = srv.submit(prompt, client_id=listener.client_id)
    entry = srv.wait(pid, timeout=timeout)
    wall = time.perf_counter() - t
    time.sleep(0.05)  # let the final websocket events arrive
    nodes = listener.node_seconds(pid)
    sampler_id = wf.ids["stock_sampler" if role == "stock" else "accel_sampler"]
    return {"prompt_id": pid, "wall_s": wall, "server_s": execution_seconds(entry),
            "sampler_s": nodes.get(sampler_id), "entry": entry}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--preset", choices=sorted(D.PRESETS), default=None,
                    help="model size and run settings (default: 1.3B with a GPU, tiny on the CPU)")
    ap.add_argument("--chain", default=None,
                    help="comma-separated accel nodes for the accelerated branch (default "
                         f"{','.join(D.DEFAULT_CHAIN)}; AccelCompile is left out on the CPU unless named here)")
    ap.add_argument("--steps", type=int, default=None)
    ap.add_argument("--seed", type=int, default=42)
    ap.add_argument("--repeats", type=int, default=None, help="timed runs per branch (default 1 on CPU, 3 on GPU)")
    ap.add_argument("--work", type=Path, default=None, help="work dir: model, server base dir, outputs, log "
                                                           "(default $ACCEL_TESTBED/demo)")
    ap.add_argument("--timeout", type=float, default=900.0, help="seconds per prompt")
    ap.add_argument("--cpu", action="store_true", help="run on the CPU even with a GPU")
    ap.add_argument("--write-workflow", nargs="?", const=str(REPO / D.STATIC_WORKFLOW), default=None, metavar="PATH",
                    help="only regenerate the static API workflow from the live server's node set, then exit")
    a = ap.parse_args(argv)

    work = (a.work or default_work_dir()).resolve()
    work.mkdir(parents=True, exist_ok=True)
    gpu = (not a.cpu) and gpu_available()
    preset = a.preset or ("1.3B" if gpu else "tiny")
    repeats = a.repeats or (3 if gpu else 1)
    say(f"comfyui-accel demo: repo {REPO}, work dir {work}")
    say(f"device: {'GPU (CUDA)' if gpu else 'CPU (no GPU found: tiny model, timings are not meaningful)'}; "
        f"preset {preset}")

    if a.write_workflow:
        return write_workflow(work, Path(a.write_workflow), gpu)

    ensure_model(work, D.PRESETS[preset]["size"], gpu)
    out_dir = work / "output" / "accel_demo"
    if out_dir.exists():
        for f in out_dir.glob("*.latent"):
            f.unlink()

    srv = ComfyServer(work, cpu=not gpu)
    say(f"server: starting ComfyUI main.py on {srv.url} (log {srv.log_path})")
    result = {}
    try:
        srv.start(timeout=300)
        say(f"server: up in {srv.startup_s:.1f} s; UI at {srv.url}/")
        chain = tuple(x.strip() for x in a.chain.split(",") if x.strip()) if a.chain else D.DEFAULT_CHAIN
        skip = {} if (gpu or a.chain) else D.CPU_SKIP
        result = run_demo(srv, preset=preset, chain=chain, skip=skip, seed=a.seed, steps=a.steps,
                          repeats=repeats, timeout=a.timeout, gpu=gpu)
    finally:
        srv.stop()
        say("server: stopped")
    (work / "demo_result.json").write_text(json.dumps(result, indent=2, default=str))
    say(f"result written to {work / 'demo_result.json'}")
    return 0 if result.get("ok") else 1


def run_demo(srv: ComfyServer, preset: str = "tiny", chain=D.DEFAULT_CHAIN, skip=None, seed: int = 42,
             steps=None, repeats: int = 1, timeout: float = 900.0, gpu: bool = False) -> dict:
    """The demo on a running server (its models/ must hold D.DEMO_MODEL): compose, warm up, time, compare."""
    info = srv.object_info()
    ours = sorted(k for k in info if info[k].get("python_module", "").endswith("comfyui_accel"))
    say(f"server: {len(info)} node types, ours: {', '.join(ours)}")
    wf = D.build(info, preset=preset, chain=chain, seed=seed, skip=skip, steps=steps)
    say("accelerated branch: " + (" -> ".join(["UNETLoader", *wf.used, "KSampler"]) if wf.used else
                                  "UNETLoader -> KSampler (no accel patch node available: the two branches are "
                                  "the same graph; only the hardware report is ours)"))
    for name, why in wf.skipped.items():
        say(f"  skipped {name}: {why}")
    titles = {k: v.get("_meta", {}).get("title", v["class_type"]) for k, v in wf.prompt.items()}
    progress = Progress(titles)
    with EventListener(srv, on_event=progress) as listener:
        if listener.error:
            say(f"websocket: {listener.error} (no per-node times; prompt times come from /history)")
        warm = wf.with_seed(seed + 1000)
        say("warm-up: stock (loads the model)")
        run_one(srv, listener, progress, warm, "stock", "warm-up stock", timeout)
        say("warm-up: accelerated (first run patches/compiles)")
        run_one(srv, listener, progress, warm, "accel", "warm-up accel", timeout)
        runs = {"stock": [], "accel": []}
        for r in range(repeats):
            wr = wf.with_seed(seed + r)
            for role in ("stock", "accel"):
                say(f"timed run {r + 1}/{repeats}: {role}")
                res = run_one(srv, listener, progress, wr, role, f"run {r + 1} {role}", timeout)
                runs[role].append(res)
                say(f"  {role}: sampler {fmt(res['sampler_s'])}, prompt {fmt(res['server_s'])} (server), "
                    f"{res['wall_s']:.2f} s (HTTP wall)")
        say("comparing: the whole before/after workflow (cached samplers, runs AccelLatentDiff + report)")
        both = run_one(srv, listener, progress, wf.with_seed(seed + repeats - 1), "both", "compare", timeout)
    return summarize(srv, wf, runs, both, preset, gpu, chain)


def fmt(s):
    return "n/a" if s is None else f"{s:.3f} s"


def med(xs):
    xs = [x for x in xs if x is not None]
    return statistics.median(xs) if xs else None


def summarize(srv, wf, runs, both, preset, gpu, chain) -> dict:
    C = _compare_module()
    import torch  # noqa: F401  (safetensors' torch loader)
    from safetensors.torch import load_file

    entry = both["entry"]
    files = {Path(p).name: p for p in srv.output_files(entry)}
    latents = {}
    for role in ("stock", "accel"):
        last = runs[role][-1]["entry"]
        fs = [p for p in srv.output_files(last) if p.suffix == ".latent"]
        latents[role] = load_file(str(fs[0]))["latent_tensor"] if fs else None
    d = C.tensor_diff(latents["accel"], latents["stock"]) if all(v is not None for v in latents.values()) else None
    st, ac = med(r["sampler_s"] for r in runs["stock"]), med(r["sampler_s"] for r in runs["accel"])
    sp = (st / ac) if st and ac else None
    report = ui_text(entry, wf.ids["report"]) if "report" in wf.ids else None
    diff_text = ui_text(entry, wf.ids["diff"]) if "diff" in wf.ids else None

    print()
    print("=" * 78)
    print(f"comfyui-accel demo  ({'GPU' if gpu else 'CPU'}, Wan 2.1 T2V {D.PRESETS[preset]['size']} random weights, "
          f"{preset} preset)")
    print("=" * 78)
    if report:
        print(report)
        print("-" * 78)
    print("accelerated branch : " + (" -> ".join(wf.used) if wf.used else "(no accel patch nodes available)"))
    for name, why in wf.skipped.items():
        print(f"  not used {name}: {why}")
    print(f"{'run':<10}{'sampler (ws)':>14}{'prompt (server)':>17}{'HTTP wall':>12}")
    for role in ("stock", "accel"):
        for i, r in enumerate(runs[role]):
            print(f"{role + ' ' + str(i + 1):<10}{fmt(r['sampler_s']):>14}{fmt(r['server_s']):>17}"
                  f"{r['wall_s']:>10.3f} s")
    if sp is None and not wf.used:
        print("speedup: n/a - no accel patch node on this server, so both branches are one graph and ComfyUI "
              "reused the stock result")
    else:
        print(f"speedup (stock / accelerated sampler time, median): {'n/a' if sp is None else f'{sp:.2f}x'}")
    if d is not None:
        print(f"max |accelerated - stock| = {d['max_abs']:.4g}   (latent max |x| {d['ref_max_abs']:.4g}, "
              f"rel L2 {d['rel_l2']:.3g}, cosine {d['cosine']:.6f})")
    if diff_text:
        print(f"AccelLatentDiff node  : {diff_text}")
    if not gpu:
        print("note: CPU + tiny model: the speedup is not meaningful here; on a GPU the demo uses the true "
              "1.3B config.")
    print("=" * 78)
    ok = d is not None and d["finite"]
    return {"ok": ok, "preset": preset, "gpu": gpu, "chain_requested": list(chain), "chain_used": wf.used,
            "skipped": wf.skipped, "speedup": sp, "stock_sampler_s": [r["sampler_s"] for r in runs["stock"]],
            "accel_sampler_s": [r["sampler_s"] for r in runs["accel"]],
            "stock_prompt_s": [r["server_s"] for r in runs["stock"]],
            "accel_prompt_s": [r["server_s"] for r in runs["accel"]], "diff": d, "diff_node": diff_text,
            "hardware_report": report, "outputs": sorted(str(p) for p in files.values()),
            "prompt": wf.prompt}


def write_workflow(work: Path, path: Path, gpu: bool) -> int:
    srv = ComfyServer(work, cpu=not gpu)
    say(f"server: starting to read /object_info ({srv.url})")
    with srv:
        info = srv.object_info()
    wf = D.static_workflow(info)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(wf.prompt, indent=2) + "\n")
    say(f"wrote {path}: accelerated branch {' -> '.join(wf.used) or '(none available)'}")
    for name, why in wf.skipped.items():
        say(f"  NOT in the file: {name}: {why}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
