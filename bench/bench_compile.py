#!/usr/bin/env python3
"""Benchmark Accel Compile on true-config Wan 2.1 (random weights, bf16, 480p 81 frames).

Measures, side by side in one process, for Wan 2.1 1.3B and 14B:
  - eager forward time (ComfyUI's own attention: SDPA);
  - Accel Compile per mode (default; max-autotune-no-cudagraphs on 1.3B): forward time (median of
    repeats after warm-up), cold compile time (first call minus one forward, fresh cache folder),
    accuracy against eager (max abs diff, cosine), peak memory, compile_status();
  - ComfyUI core's TorchCompileModel node (comfy_extras/nodes_torch_compile.py; whole model, inductor);
  - warm restart: a second Python process with the same cache folder builds the model again and
    times its first compiled call (targets: default mode >= 1.08x over eager, warm compile <= 15 s on 1.3B).

Shapes: latent (1, 16, 21, 60, 104), context (1, 512, 4096), sigma 0.5, batch 1.

Usage (GPU machine, repo root, after `source bench/gpu_env.sh`):
    python3 bench/bench_compile.py --out bench/results/h100
    python3 bench/bench_compile.py --models 1.3B --modes default,max-autotune-no-cudagraphs --core-models 1.3B
    python3 bench/bench_compile.py --smoke          # tiny Wan on CPU: checks the script end to end
Options: --models, --modes (ours), --mant-models (models that run max-autotune* modes), --core-models,
--warm-modes, --warm-models, --repeats, --warmup, --budget-s (skips optional steps past it).

Expected runtime, default selection, one H100: about 7-8 min. Order (optional steps are skipped, and
recorded as skipped, once --budget-s would be exceeded): 1.3B build 5 s, eager 5 s, Accel default
compile ~20 s, max-autotune-no-cudagraphs compile 1-3 min, core whole-model compile ~1-2 min, warm
child ~35 s; 14B build ~30 s, eager ~20 s, default compile ~25 s, warm child ~70 s (usually skipped by
the budget: run `--models 14B` alone for it). Writes <out>/bench_compile.json and .md; progress on stdout.
"""
from __future__ import annotations

import argparse
import gc
import json
import os
import subprocess
import sys
import tempfile
import time
import traceback
from pathlib import Path

T_START = time.time()
HERE = Path(__file__).resolve()
sys.path.insert(0, str(HERE.parent))
import runner  # noqa: E402  bench/runner.py: shared CLI, metadata, result files, compare()

LATENT = (1, 16, 21, 60, 104)
CONTEXT = (1, 512, 4096)
SMOKE_LATENT = (1, 16, 1, 4, 4)
SMOKE_CONTEXT = (1, 8, 4096)
MANT = ("max-autotune-no-cudagraphs", "max-autotune")


log = runner.Log("bench_compile")


def parse(argv=None):
    ap = runner.parser(__doc__, smoke="tiny Wan on the CPU, fp32, default mode only, 2 repeats")
    ap.add_argument("--models", default="1.3B,14B")
    ap.add_argument("--modes", default="default,max-autotune-no-cudagraphs", help="Accel Compile modes")
    ap.add_argument("--mant-models", default="1.3B", help="models on which max-autotune* modes run")
    ap.add_argument("--core-models", default="1.3B", help="models on which core TorchCompileModel runs ('' = none)")
    ap.add_argument("--warm-modes", default="default", help="modes measured for warm restart ('' = none)")
    ap.add_argument("--warm-models", default="1.3B,14B")
    ap.add_argument("--repeats", type=int, default=5)
    ap.add_argument("--warmup", type=int, default=2)
    ap.add_argument("--interleave", type=int, default=4,
                    help="after each candidate, this many rounds alternating eager and it (mirrored order) with GPU "
                         "clock/power sampling; 0 = off")
    ap.add_argument("--budget-s", type=float, default=470.0, help="skip optional steps once this much time has passed")
    ap.add_argument("--cache-dir", default=None, help="compile cache folder (default: a fresh temp folder = cold)")
    ap.add_argument("--child", default=None, help=argparse.SUPPRESS)  # "<model>:<mode>": warm-restart child
    a = ap.parse_args(argv)
    split = lambda s: [x for x in (s or "").split(",") if x]  # noqa: E731
    a.models, a.modes, a.mant_models = split(a.models), split(a.modes), split(a.mant_models)
    a.core_models, a.warm_modes, a.warm_models = split(a.core_models), split(a.warm_modes), split(a.warm_models)
    if a.smoke:
        a.models, a.mant_models, a.core_models, a.warm_models = ["tiny"], [], ["tiny"], ["tiny"]
        a.modes = [m for m in a.modes if m not in MANT] or ["default"]
        a.repeats, a.warmup = 2, 1
        a.interleave = min(a.interleave, 2)
    return a


def setup_env(a):
    """Fresh (cold) cache folder, used through the pack's own mechanism: ACCEL_COMPILE_CACHE_DIR with
    no TORCHINDUCTOR_CACHE_DIR (bench/gpu_env.sh sets one; a child inherits ours)."""
    if a.child is None:
        a.cache_dir = a.cache_dir or tempfile.mkdtemp(prefix="accel-compile-bench-")
        os.environ["ACCEL_COMPILE_CACHE_DIR"] = a.cache_dir
    os.environ.pop("TORCHINDUCTOR_CACHE_DIR", None)
    import accel_harness as H

    H.bootstrap(cpu=True if a.smoke else False)
    H.load_pack()
    return H


def device_and_dtype(a):
    import torch

    return ("cpu", torch.float32) if a.smoke else ("cuda", torch.bfloat16)


def sync():
    import torch

    if torch.cuda.is_available():
        torch.cuda.synchronize()


def build(a, size):
    from accel_harness import models as M

    dev, dt = device_and_dtype(a)
    t = time.perf_counter()
    m = M.wan_model("t2v", "tiny" if a.smoke else size, device=dev, dtype=dt, seed=0)
    sync()
    return m, time.perf_counter() - t


def make_inputs(a):
    import torch

    dev, dt = device_and_dtype(a)
    g = torch.Generator(device="cpu").manual_seed(0)
    lat, ctx = (SMOKE_LATENT, SMOKE_CONTEXT) if a.smoke else (LATENT, CONTEXT)
    return (torch.randn(*lat, generator=g).to(dev, dt), torch.randn(*ctx, generator=g).to(dev, dt))


def run_candidate(a, patcher, x, ctx, eager_ms=None):
    """First call (compile + forward), then warm-up and timed repeats. Returns (dict, output)."""
    import torch

    from accel_harness.forward import Forward
    from accel_harness.timing import first_call, timed

    r = {}
    if torch.cuda.is_available():
        torch.cuda.reset_peak_memory_stats()
    with Forward(patcher) as f:
        first_s, out = first_call(lambda: f(x, 0.5, ctx), device_and_dtype(a)[0])
        r["first_call_s"] = round(first_s, 3)
        med, ts, _ = timed(lambda: f(x, 0.5, ctx), device_and_dtype(a)[0], warmup=a.warmup, reps=a.repeats)
    r["forward_ms"] = round(med, 2)
    r["forward_ms_all"] = [round(v, 2) for v in ts]
    r["compile_s"] = round(max(0.0, r["first_call_s"] - r["forward_ms"] / 1000), 3)
    if eager_ms:
        r["speedup_vs_eager"] = round(eager_ms / r["forward_ms"], 4)
    if torch.cuda.is_available():
        r["peak_mem_gib"] = round(torch.cuda.max_memory_allocated() / 2**30, 2)
    return r, out.float()


def compare(out, ref):
    c = runner.compare(out, ref)
    return {"max_abs_diff": round(c["max_abs_diff"], 5), "cosine_vs_eager": round(c["cosine"], 6)}


def ab_rounds(a, eager, cand, name, x, ctx):
    """Eager and a candidate timed in alternating rounds (drift and heat cost both the same), with the
    GPU's SM clock, power and temperature while each ran (accel_harness.timing)."""
    from accel_harness.timing import ab_forwards

    return ab_forwards({"eager": eager, name: cand}, x, ctx, 0.5, device_and_dtype(a)[0], rounds=a.interleave,
                       reps=max(1, a.repeats // 2 + 1))


def core_compile(model):
    """ComfyUI core's TorchCompileModel node (V3), as a user would wire it (backend inductor)."""
    from comfy_extras.nodes_torch_compile import TorchCompileModel

    try:
        out = TorchCompileModel.execute(model, "inductor")
        res = getattr(out, "result", None) or getattr(out, "args", None)
        return res[0] if isinstance(res, (tuple, list)) else out[0]
    except Exception as e:  # older/newer node API: the helper it calls
        log(f"core node call failed ({type(e).__name__}: {e}); using its helper set_torch_compile_wrapper")
        from comfy_api.torch_helpers import set_torch_compile_wrapper

        m = model.clone()
        set_torch_compile_wrapper(model=m, backend="inductor")
        return m


class fresh_inductor_cache:
    """A separate, empty inductor cache folder for one candidate (so that core's compile is as cold as ours)."""

    def __enter__(self):
        self.old = os.environ.get("TORCHINDUCTOR_CACHE_DIR")
        os.environ["TORCHINDUCTOR_CACHE_DIR"] = tempfile.mkdtemp(prefix="accel-bench-core-")
        self._clear()
        return self

    def __exit__(self, *exc):
        if self.old is None:
            os.environ.pop("TORCHINDUCTOR_CACHE_DIR", None)
        else:
            os.environ["TORCHINDUCTOR_CACHE_DIR"] = self.old
        self._clear()
        return False

    @staticmethod
    def _clear():
        try:
            from torch._inductor.utils import clear_caches

            clear_caches()
        except Exception:
            pass


def free(*objs):
    import torch

    for o in objs:
        del o
    gc.collect()
    if torch.cuda.is_available():
        torch.cuda.empty_cache()


def reset_dynamo():
    import torch._dynamo

    torch._dynamo.reset()


def over_budget(a, need_s):
    return (time.time() - T_START) + need_s > a.budget_s


# ------------------------------------------------------------------------------------------------ phases

def bench_model(a, H, size, modes, core, results):
    C = H.pack_module("accel.compile")
    key = "tiny" if a.smoke else size
    entry = results["models"].setdefault(key, {"candidates": {}})
    log(f"== Wan {key}: building")
    try:
        m, build_s = build(a, size)
        entry["build_s"] = round(build_s, 2)
    except Exception as e:
        entry["error"] = f"build: {type(e).__name__}: {e}"
        log(entry["error"])
        return
    x, ctx = make_inputs(a)
    try:
        r, ref = run_candidate(a, m, x, ctx)
        r.pop("compile_s", None)
        entry["candidates"]["eager"] = r
        eager_ms = r["forward_ms"]
        log(f"Wan {key} eager: {eager_ms:.1f} ms")
    except Exception as e:
        entry["candidates"]["eager"] = {"error": traceback.format_exc(limit=3)}
        log(f"eager failed: {e}")
        free(m)
        return
    for mode in modes:
        name = f"accel:{mode}"
        if mode in MANT and over_budget(a, 200):
            entry["candidates"][name] = {"skipped": "time budget"}
            log(f"{name}: skipped (budget)")
            continue
        log(f"Wan {key} {name}: compiling + timing")
        try:
            reset_dynamo()
            c, report = C.apply_compile(m, mode=mode, scope="blocks", backend="inductor", policy="fall back")
            r, out = run_candidate(a, c, x, ctx, eager_ms)
            r.update(compare(out, ref))
            r["status"] = C.compile_status(c)
            r["report"] = report
            entry["candidates"][name] = r
            log(f"  forward {r['forward_ms']:.1f} ms ({r.get('speedup_vs_eager', 0):.3f}x), compile "
                f"{r['compile_s']:.1f} s, cos {r['cosine_vs_eager']}, status mode={r['status']['mode']} "
                f"graphs={r['status']['graphs']}")
            if a.interleave:
                r["interleaved"] = ab_rounds(a, m, c, name, x, ctx)
                log(f"  interleaved x{a.interleave}: {r['interleaved']['median_ms']} -> "
                    f"{r['interleaved']['speedup'][name]}x; gpu {r['interleaved']['gpu']}")
            free(c, out)
        except Exception as e:
            entry["candidates"][name] = {"error": traceback.format_exc(limit=4)}
            log(f"  failed: {type(e).__name__}: {e}")
    if core:
        name = "core:TorchCompileModel"
        if over_budget(a, 150):
            entry["candidates"][name] = {"skipped": "time budget"}
            log(f"{name}: skipped (budget)")
        else:
            log(f"Wan {key} {name}: compiling + timing (whole model)")
            try:
                reset_dynamo()
                c = core_compile(m)
                with fresh_inductor_cache():
                    r, out = run_candidate(a, c, x, ctx, eager_ms)
                r.update(compare(out, ref))
                entry["candidates"][name] = r
                log(f"  forward {r['forward_ms']:.1f} ms ({r.get('speedup_vs_eager', 0):.3f}x), compile "
                    f"{r['compile_s']:.1f} s")
                if a.interleave:
                    r["interleaved"] = ab_rounds(a, m, c, name, x, ctx)
                    log(f"  interleaved x{a.interleave}: {r['interleaved']['speedup'][name]}x")
                free(c, out)
            except Exception as e:
                entry["candidates"][name] = {"error": traceback.format_exc(limit=4)}
                log(f"  failed: {type(e).__name__}: {e}")
    reset_dynamo()
    free(m, ref, x, ctx)


def warm_restart(a, size, mode, results):
    key = "tiny" if a.smoke else size
    entry = results["models"].setdefault(key, {"candidates": {}})
    name = f"warm_restart:{mode}"
    need = 60 if size == "1.3B" or a.smoke else 120
    if over_budget(a, need):
        entry[name] = {"skipped": "time budget"}
        log(f"{name} {key}: skipped (budget)")
        return
    log(f"Wan {key} {name}: second process, same cache folder")
    cmd = [sys.executable, str(HERE), "--child", f"{size}:{mode}", "--out", a.out,
           "--repeats", "2", "--warmup", "1"] + (["--smoke"] if a.smoke else [])
    try:
        t = time.perf_counter()
        p = subprocess.run(cmd, capture_output=True, text=True, timeout=max(60, a.budget_s), env=dict(os.environ))
        wall = time.perf_counter() - t
        lines = [ln for ln in p.stdout.splitlines() if ln.startswith("CHILD_RESULT=")]
        if p.returncode != 0 or not lines:
            entry[name] = {"error": f"rc={p.returncode}", "stderr_tail": p.stderr[-2000:]}
            log(f"  child failed rc={p.returncode}: {p.stderr[-500:]}")
            return
        r = json.loads(lines[-1][len("CHILD_RESULT="):])
        r["process_wall_s"] = round(wall, 1)
        entry[name] = r
        cold = entry["candidates"].get(f"accel:{mode}", {}).get("compile_s")
        log(f"  warm compile {r['compile_s']:.1f} s (cold {cold} s), fxgraph hits {r.get('fxgraph_cache_hit')}, "
            f"misses {r.get('fxgraph_cache_miss')}, process {wall:.0f} s")
    except Exception as e:
        entry[name] = {"error": traceback.format_exc(limit=3)}
        log(f"  failed: {e}")


def child_main(a):
    """Warm restart: a fresh process, same cache folder; report the first compiled call."""
    size, mode = a.child.split(":", 1)
    t0 = time.perf_counter()
    H = setup_env(a)
    boot_s = time.perf_counter() - t0
    from torch._dynamo.utils import counters

    C = H.pack_module("accel.compile")
    m, build_s = build(a, size)
    x, ctx = make_inputs(a)
    c, _ = C.apply_compile(m, mode=mode, scope="blocks", backend="inductor")
    r, _out = run_candidate(a, c, x, ctx)
    r.update({"boot_s": round(boot_s, 2), "build_s": round(build_s, 2), "status": C.compile_status(c),
              "fxgraph_cache_hit": counters["inductor"]["fxgraph_cache_hit"],
              "fxgraph_cache_miss": counters["inductor"]["fxgraph_cache_miss"],
              "aotautograd_cache_hit": counters["aot_autograd"]["autograd_cache_hit"],
              "cache": H.pack_module("accel.compile.cache").info()})
    print("CHILD_RESULT=" + json.dumps(r, default=str), flush=True)


# ------------------------------------------------------------------------------------------------ output

def env_info(a):
    import torch

    info = {"torch": torch.__version__, "python": sys.version.split()[0], "argv": sys.argv,
            "cache_dir": a.cache_dir, "smoke": a.smoke}
    if torch.cuda.is_available():
        info["gpu"] = torch.cuda.get_device_name(0)
        info["sm"] = "{}{}".format(*torch.cuda.get_device_capability(0))
    else:
        info["gpu"] = "cpu"
    try:
        import triton

        info["triton"] = triton.__version__
    except Exception:
        info["triton"] = None
    import accel_harness as H

    info["comfyui"] = H.comfy_version()
    return info


def write(a, results):
    out = Path(a.out)
    e = results["env"]
    lines = ["# Accel Compile benchmark", "",
             f"GPU {e.get('gpu')} (sm{e.get('sm', '-')}), torch {e['torch']}, triton {e.get('triton')}, "
             f"ComfyUI {e.get('comfyui', '?')}, python {e['python']}", "",
             "Command: `" + " ".join(e["argv"]) + "`", "", *runner.meta_markdown(results.get("run_meta")), "",
             ("SMOKE RUN (tiny Wan, fp32, CPU): numbers mean nothing. " if a.smoke else "")
             + f"Wan 2.1 true configs, random weights, bf16, latent {LATENT if not a.smoke else SMOKE_LATENT}, "
             f"context {CONTEXT if not a.smoke else SMOKE_CONTEXT}, batch 1; forward = median of {a.repeats} after "
             f"{a.warmup} warm-up; compile = first call minus one forward (fresh cache folder); warm restart = the "
             "same in a second process with the same cache folder.", "",
             "| model | candidate | forward ms | vs eager | compile s | warm restart compile s | cosine vs eager | max "
             "abs diff | peak GiB | notes |",
             "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |"]
    for model, entry in results["models"].items():
        for name, r in entry.get("candidates", {}).items():
            mode = name.split(":", 1)[1] if name.startswith("accel:") else None
            warm = entry.get(f"warm_restart:{mode}", {}) if mode else {}
            note = r.get("skipped") or ("error" if r.get("error") else "")
            st = r.get("status") or {}
            if st.get("fell_back"):
                note = f"fell back to eager: {st.get('reason')}"
            elif st:
                note = (note + f" graphs {st.get('graphs')}, recompiles {st.get('recompiles')}").strip()
            lines.append(f"| {model} | {name} | {r.get('forward_ms', '-')} | {r.get('speedup_vs_eager', '-')} | "
                         f"{r.get('compile_s', '-')} | {warm.get('compile_s', warm.get('skipped', '-'))} | "
                         f"{r.get('cosine_vs_eager', '-')} | {r.get('max_abs_diff', '-')} | "
                         f"{r.get('peak_mem_gib', '-')} | {note} |")
        if entry.get("error"):
            lines.append(f"| {model} | build | - | - | - | - | - | - | - | {entry['error']} |")
    ab = [(model, name, r["interleaved"]) for model, entry in results["models"].items()
          for name, r in entry.get("candidates", {}).items() if r.get("interleaved")]
    if ab:
        from accel_harness.timing import ab_markdown

        lines += [""] + ab_markdown(ab)
    lines += ["", "Targets (issue #3): default mode forward >= 1.08x eager on H100/H200; warm-restart compile <= 15 s "
                  "for 1.3B.",
              "", f"Total bench wall time: {results.get('wall_s')} s"]
    runner.write(out, "bench_compile", results, lines)
    log(f"wrote {out / 'bench_compile.json'} and .md")


def main(argv=None):
    a = parse(argv)
    if a.child:
        return child_main(a)
    H = setup_env(a)
    cc = H.pack_module("accel.compile.cache").activate()
    log(f"compile cache (cold): {cc['dir']} ({cc['source']})")
    results = {"env": env_info(a), "models": {}, "run_meta": runner.metadata(device_and_dtype(a)[0])}
    log(f"env: {results['env']}")
    try:
        for size in a.models:
            modes = [m for m in a.modes if m not in MANT or size in a.mant_models]
            bench_model(a, H, size, modes, size in a.core_models or a.smoke, results)
            write(a, results)
            for mode in modes:
                if mode in a.warm_modes and (size in a.warm_models or a.smoke):
                    warm_restart(a, size, mode, results)
                    write(a, results)
    finally:
        results["wall_s"] = round(time.time() - T_START, 1)
        write(a, results)


if __name__ == "__main__":
    main()
