"""Accel Wan Level-1 vs stock ComfyUI, same process: per-forward time, 4-step sampling time, fidelity, compile time.

What it measures, per Wan size (true configs, random weights, bf16, 480p 81 frames: latent (1,16,21,60,104),
text context (1,512,4096)):
  * one forward (harness Forward = exactly what sampling runs), batch 1: stock, attention-only
    (Accel Attention 'auto', no compile; skip with --no-breakdown) and full Level-1 (attention + per-block
    compile + TF32); median of --repeats after warm-up, CUDA-synchronized; cosine and max |diff| to stock;
  * cold compile: wall time of Level-1's first forward minus a warm forward, with an EMPTY inductor/triton
    cache dir (a fresh one per run unless --cache-dir is given);
  * a 4-step run (ComfyUI's KSampler path, euler/simple, cfg 5 -> cond and uncond batched, batch 2), random
    latent and conditioning, fixed seed: stock vs Level-1 time (Level-1 after one warm-up run, which also
    absorbs the batch-2 recompile, reported as recompile_batch2_s) and cosine / max |diff| of the final latents;
  * warm restart: a second process with the same cache dir applies Level-1 and times its first forward
    (compile from inductor's FX-graph + autotune caches) — what a user sees after restarting ComfyUI.

Run (GPU machine, repo root, after `source bench/gpu_env.sh`):
    python3 bench/bench_level1.py --out bench/results/h100                      # Wan 1.3B
    python3 bench/bench_level1.py --out bench/results/h100 --sizes 14B           # Wan 14B (separate run)
    python3 bench/bench_level1.py --out bench/results/h100 --mode default        # fast compile mode
CPU smoke (tiny model, end to end): python bench/bench_level1.py --smoke --out /tmp/l1smoke

Expected GPU time (H100): 1.3B with max-autotune-no-cudagraphs about 4-7 min (two autotuned compiles: batch 1
and batch 2, ~1-3 min each, plus ~1 min warm restart); with --mode default about 2 min. 14B: about 6-9 min
(28 GB of weights built on the GPU; stock forward ~2.8 s); run it on its own and use --no-warm-restart or
--no-sample if the 10-minute limit is near. Progress lines are printed as it goes; results are written after
every measurement, so a timeout keeps what was measured.
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

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "bench"))
import runner  # noqa: E402  bench/runner.py: shared CLI, metadata, result files, compare() (imports no torch)

NAME = "level1"


def parse(argv=None):
    ap = runner.parser(__doc__, smoke="tiny Wan on the CPU, 5 frames at 64x64, 2 steps",
                       out_help="folder for level1.json / level1.md")
    ap.add_argument("--sizes", default="1.3B", help="comma list of Wan sizes: 1.3B,14B (14B: run alone)")
    ap.add_argument("--mode", default="auto", choices=["auto", "max-autotune-no-cudagraphs", "default"],
                    help="Level-1 compile mode (auto = accel.common.defaults: max-autotune-no-cudagraphs on sm>=80)")
    ap.add_argument("--steps", type=int, default=4)
    ap.add_argument("--cfg", type=float, default=5.0)
    ap.add_argument("--repeats", type=int, default=5)
    ap.add_argument("--warmup", type=int, default=2)
    ap.add_argument("--frames", type=int, default=81)
    ap.add_argument("--height", type=int, default=480)
    ap.add_argument("--width", type=int, default=832)
    ap.add_argument("--tokens", type=int, default=512, help="text tokens of the context")
    ap.add_argument("--no-breakdown", action="store_true", help="skip the attention-only variant")
    ap.add_argument("--interleave", type=int, default=4,
                    help="rounds alternating stock and Level-1 forwards (mirrored order, GPU clocks sampled); 0 = off")
    ap.add_argument("--no-sample", action="store_true", help="skip the 4-step sampling runs")
    ap.add_argument("--no-warm-restart", action="store_true", help="skip the second-process warm-cache compile")
    ap.add_argument("--cache-dir", default=None, help="inductor/triton cache dir (default: a fresh empty one = cold)")
    ap.add_argument("--child", default=None, help=argparse.SUPPRESS)  # warm-restart child: the size to measure
    a = ap.parse_args(argv)
    if a.smoke:
        a.sizes = "tiny"
        a.frames, a.height, a.width, a.tokens = 5, 64, 64, 16
        a.steps, a.repeats, a.warmup = 2, 2, 1
        a.interleave = min(a.interleave, 2)
    return a


log = runner.Log("bench_level1")


def setup_cache(a):
    """Point inductor and triton at one cache dir before torch is imported (cold unless reused)."""
    if a.cache_dir is None:
        a.cache_dir = tempfile.mkdtemp(prefix="accel-l1-inductor-")
    Path(a.cache_dir).mkdir(parents=True, exist_ok=True)
    os.environ["TORCHINDUCTOR_CACHE_DIR"] = a.cache_dir
    os.environ["TRITON_CACHE_DIR"] = str(Path(a.cache_dir) / "triton")


class Bench:
    def __init__(self, a):
        self.a = a
        self.res = {"name": NAME, "command": runner.command(), "sizes": {}, "errors": []}
        self.out = Path(a.out)

    # --- environment -----------------------------------------------------------------------------
    def boot(self):
        sys.path.insert(0, str(REPO / "harness"))
        import accel_harness as H

        H.bootstrap(cpu=True if self.a.smoke else False)
        H.load_pack()
        import torch

        self.torch = torch
        self.H = H
        from accel_harness import models as M
        from accel_harness.forward import Forward

        self.M, self.Forward = M, Forward
        self.level1 = H.pack_module("accel.wan_level1.preset")
        self.cuda = torch.cuda.is_available() and not self.a.smoke
        self.dev = "cuda" if self.cuda else "cpu"
        self.dtype = torch.bfloat16 if self.cuda else torch.float32
        meta = {"torch": torch.__version__, "python": sys.version.split()[0], "device": self.dev,
                "gpu": torch.cuda.get_device_name(0) if self.cuda else None,
                "cache_dir": self.a.cache_dir, "compile_mode_arg": self.a.mode,
                "latent": [1, 16, (self.a.frames - 1) // 4 + 1, self.a.height // 8, self.a.width // 8],
                "context": [1, self.a.tokens, 4096], "dtype": str(self.dtype), "steps": self.a.steps,
                "cfg": self.a.cfg, "repeats": self.a.repeats, "warmup": self.a.warmup}
        try:
            import triton

            meta["triton"] = triton.__version__
        except Exception:
            meta["triton"] = None
        try:
            meta["hardware_report"] = H.pack_module("accel.common.hardware").hardware_report()
        except Exception as e:
            meta["hardware_report"] = f"failed: {e!r}"
        self.res["meta"] = meta
        self.res["run_meta"] = runner.metadata(self.dev)

    # --- helpers ---------------------------------------------------------------------------------
    def sync(self):
        if self.cuda:
            self.torch.cuda.synchronize()

    def time_calls(self, fn, warmup, repeats):
        """(median ms, [ms of each call], last output) of `repeats` calls after `warmup`: the harness timer."""
        from accel_harness.timing import timed

        return timed(fn, "cuda" if self.cuda else "cpu", warmup=warmup, reps=repeats)

    def compare(self, a, b):
        c = runner.compare(a, b)
        return {"cosine": c["cosine"], "max_abs_diff": c["max_abs_diff"], "ref_max_abs": float(b.detach().abs().max())}

    def save(self):
        runner.write(self.out, NAME, self.res, self.markdown())

    def record(self, size, key, fn):
        """Run one measurement; on failure record the error and go on. (Not runner.captured: the error also goes
        into the size's entry under the measurement's key, where level1.md shows it in that row.)"""
        entry = self.res["sizes"].setdefault(size, {})
        log(f"{size}: {key} ...")
        try:
            val = fn()
            entry[key] = val
            log(f"{size}: {key} = {json.dumps(val, default=str)[:400]}")
        except Exception as e:  # noqa: BLE001 - keep the other measurements
            entry[key] = runner.failed_entry(self.res, f"{size}/{key}", e, log)
        self.save()
        return entry.get(key)

    def inputs(self, batch=1, seed=0):
        torch = self.torch
        g = torch.Generator(device="cpu").manual_seed(seed)
        t = (self.a.frames - 1) // 4 + 1
        x = torch.randn(batch, 16, t, self.a.height // 8, self.a.width // 8, generator=g).to(self.dev)
        ctx = torch.randn(batch, self.a.tokens, 4096, generator=g).to(self.dev, self.dtype)
        return x, ctx

    # --- one size ----------------------------------------------------------------------------------
    def run_size(self, size):
        torch, M = self.torch, self.M
        a = self.a
        st = {}
        t = time.time()
        model = M.wan_model("t2v", size, device=self.dev, dtype=self.dtype)
        self.res["sizes"].setdefault(size, {})["build_s"] = round(time.time() - t, 1)
        log(f"{size}: built in {time.time() - t:.1f} s")
        x, ctx = self.inputs()

        def fwd(patcher, key, first_call_key=None):
            def run():
                with self.Forward(patcher) as f:
                    r = {}
                    if first_call_key:
                        self.sync()
                        t0 = time.perf_counter()
                        st[key + "_first"] = f(x, 0.9, ctx)
                        self.sync()
                        r["first_call_s"] = round(time.perf_counter() - t0, 2)
                    med, all_ms, out = self.time_calls(lambda: f(x, 0.9, ctx), a.warmup, a.repeats)
                    st[key] = out.float().clone()
                    r.update({"median_ms": round(med, 2), "all_ms": [round(v, 2) for v in all_ms]})
                    if first_call_key:
                        r["cold_compile_s"] = round(r["first_call_s"] - med / 1000.0, 2)
                    if key != "stock" and "stock" in st:
                        r.update(self.compare(st[key], st["stock"]))
                        r["speedup_vs_stock"] = round(self.res["sizes"][size]["forward_stock"]["median_ms"] / med, 3)
                    return r
            return run

        self.record(size, "forward_stock", fwd(model, "stock"))

        if not a.no_breakdown:
            def attn_only():
                m, rep = self.H.pack_module("accel.attention.override").apply_attention(model, backend="auto")
                r = fwd(m, "attn")()
                r["report"] = rep
                return r
            self.record(size, "forward_attention_only", attn_only)

        l1 = {}

        def level1_fwd():
            m, rep = self.level1.apply_level1(model, compile_mode=a.mode)
            l1["model"] = m
            r = fwd(m, "level1", first_call_key=True)()
            r["report"] = rep
            r["compile_summary"] = self.level1.compile_summary(m)
            if "speedup_vs_stock" in r:  # issue #8 target on H100/H200 with FA3: >= 1.20x at cosine >= 0.9995
                r["meets_target_1.20x_cos0.9995"] = bool(r["speedup_vs_stock"] >= 1.20 and r["cosine"] >= 0.9995)
            return r
        self.record(size, "forward_level1", level1_fwd)

        if a.interleave and "model" in l1:
            def interleaved():
                from accel_harness.timing import ab_forwards

                return ab_forwards({"stock": model, "Level-1": l1["model"]}, x, ctx, 0.9, self.dev,
                                   rounds=a.interleave, reps=max(1, a.repeats // 2 + 1))
            self.record(size, "forward_interleaved", interleaved)

        if not a.no_sample:
            lat = {"samples": self.inputs(seed=3)[0].cpu()}
            pos = [[self.inputs(seed=1)[1].cpu().float(), {}]]
            neg = [[self.inputs(seed=2)[1].cpu().float(), {}]]

            def sample(m):
                self.sync()
                t0 = time.perf_counter()
                with torch.inference_mode():  # as ComfyUI's executor runs a prompt
                    out = M.sample(m, pos, neg, lat, steps=a.steps, cfg=a.cfg, seed=0)
                self.sync()
                return out.float(), time.perf_counter() - t0

            def stock_sample():
                out, s = sample(model)
                st["sample_stock"] = out
                return {"seconds": round(s, 2)}
            self.record(size, "sample_stock", stock_sample)

            def l1_sample():
                m = l1.get("model") or self.level1.apply_level1(model, compile_mode=a.mode)[0]
                _, warm = sample(m)  # absorbs the batch-2 (cond+uncond) recompile
                out, s = sample(m)
                r = {"seconds": round(s, 2), "warmup_run_s": round(warm, 2),
                     "recompile_batch2_s": round(warm - s, 2), "compile_summary": self.level1.compile_summary(m)}
                if "sample_stock" in st:
                    r.update(self.compare(out, st["sample_stock"]))
                    r["speedup_vs_stock"] = round(self.res["sizes"][size]["sample_stock"]["seconds"] / s, 3)
                return r
            self.record(size, "sample_level1", l1_sample)

        model = l1 = st = x = ctx = None  # frees the memory before the next step (a `del` would leave names the
                                          # closures above read)
        self.free()

        if not a.no_warm_restart:
            self.record(size, "warm_restart", lambda: self.warm_restart(size))

    def warm_restart(self, size):
        """A second process, same cache dir: Level-1's first forward compiles from the caches."""
        cmd = [sys.executable, str(Path(__file__).resolve()), "--child", size, "--out", str(self.out / "child"),
               "--cache-dir", self.a.cache_dir, "--mode", self.a.mode, "--repeats", "2", "--warmup", "1",
               "--frames", str(self.a.frames), "--height", str(self.a.height), "--width", str(self.a.width),
               "--tokens", str(self.a.tokens)] + (["--smoke"] if self.a.smoke else [])
        t0 = time.time()
        p = subprocess.run(cmd, capture_output=True, text=True, timeout=900)
        wall = time.time() - t0
        line = [ln for ln in p.stdout.splitlines() if ln.startswith("CHILD_RESULT=")]
        if p.returncode != 0 or not line:
            raise RuntimeError(f"child exited {p.returncode}: {(p.stdout + p.stderr)[-2000:]}")
        r = json.loads(line[-1][len("CHILD_RESULT="):])
        r["process_wall_s"] = round(wall, 1)
        return r

    def child(self, size):
        """Warm-restart child: build, apply Level-1, time the first forward and a warm one; print JSON."""
        M = self.M
        model = M.wan_model("t2v", size, device=self.dev, dtype=self.dtype)
        x, ctx = self.inputs()
        m, _ = self.level1.apply_level1(model, compile_mode=self.a.mode)
        with self.Forward(m) as f:
            self.sync()
            t0 = time.perf_counter()
            f(x, 0.9, ctx)
            self.sync()
            first = time.perf_counter() - t0
            med, _, _ = self.time_calls(lambda: f(x, 0.9, ctx), 1, 2)
        r = {"first_call_s": round(first, 2), "median_ms": round(med, 2),
             "warm_compile_s": round(first - med / 1000.0, 2), "compile_summary": self.level1.compile_summary(m)}
        print("CHILD_RESULT=" + json.dumps(r), flush=True)

    def free(self):
        """Drop every model ComfyUI keeps loaded (its list holds references) and the cached GPU memory."""
        import comfy.model_management as mm

        mm.unload_all_models()
        gc.collect()
        mm.soft_empty_cache()
        if self.cuda:
            self.torch.cuda.empty_cache()

    # --- report ------------------------------------------------------------------------------------
    def markdown(self):
        meta = self.res.get("meta", {})
        lines = [f"# Wan Level-1 vs stock ComfyUI ({meta.get('gpu') or meta.get('device')})", "",
                 f"- command: `{self.res['command']}`",
                 f"- torch {meta.get('torch')}, triton {meta.get('triton')}, python {meta.get('python')}, dtype "
                 f"{meta.get('dtype')}",
                 f"- latent {meta.get('latent')}, context {meta.get('context')}, {meta.get('steps')} steps, cfg "
                 f"{meta.get('cfg')}",
                 f"- compile mode argument: {meta.get('compile_mode_arg')}; random weights, true configs",
                 *runner.meta_markdown(self.res.get("run_meta")), ""]
        lines += ["| size | variant | forward ms (median) | speedup | cosine to stock | max abs diff |",
                  "| --- | --- | --- | --- | --- | --- |"]
        for size, e in self.res["sizes"].items():
            for key, label in (("forward_stock", "stock"), ("forward_attention_only", "attention auto only"),
                               ("forward_level1", "Level-1")):
                r = e.get(key)
                if not isinstance(r, dict):
                    continue
                if "error" in r:
                    lines.append(f"| {size} | {label} | {_cell(r)} | | | |")
                    continue
                lines.append(f"| {size} | {label} | {r.get('median_ms')} | "
                             f"{r.get('speedup_vs_stock', 1.0 if key == 'forward_stock' else '')} | "
                             f"{_f(r.get('cosine'), 6)} | {_e(r.get('max_abs_diff'))} |")
        lines += ["", "| size | stock run s | Level-1 run s | speedup | cosine (final latent) | max abs diff | "
                  "cold compile s | batch-2 recompile s | warm-restart compile s |",
                  "| --- | --- | --- | --- | --- | --- | --- | --- | --- |"]
        for size, e in self.res["sizes"].items():
            s, lv, f1, w = (e.get(k) if isinstance(e.get(k), dict) else {} for k in
                           ("sample_stock", "sample_level1", "forward_level1", "warm_restart"))
            lines.append(f"| {size} | {_cell(s.get('seconds', s))} | {_cell(lv.get('seconds', lv))} | "
                         f"{lv.get('speedup_vs_stock', '')} | {_f(lv.get('cosine'), 6)} | {_e(lv.get('max_abs_diff'))} "
                         f"| {f1.get('cold_compile_s', '')} | {lv.get('recompile_batch2_s', '')} | "
                         f"{_cell(w.get('warm_compile_s', w)) if w else ''} |")
        ab = [(size, "Level-1", e["forward_interleaved"]) for size, e in self.res["sizes"].items()
              if isinstance(e.get("forward_interleaved"), dict) and "rounds" in e["forward_interleaved"]]
        if ab:
            from accel_harness.timing import ab_markdown

            lines += [""] + ab_markdown(ab)
        for size, e in self.res["sizes"].items():
            r = e.get("forward_level1")
            if isinstance(r, dict) and r.get("report"):
                lines += ["", f"Level-1 report ({size}):", "", "```", r["report"], "```",
                          f"compile summary: {r.get('compile_summary')}"]
        if self.res["errors"]:
            lines += ["", "Errors:"] + [f"- {e}" for e in self.res["errors"]]
        return "\n".join(lines) + "\n"


def _f(v, n):
    return "" if v is None else f"{v:.{n}f}"


def _e(v):
    return "" if v is None else f"{v:.2e}"


def _cell(v):
    """A value for one markdown table cell: errors shortened to one line."""
    if v is None or v == {}:
        return ""
    if isinstance(v, dict) and "error" in v:
        v = "error: " + v["error"]
    text = " ".join(str(v).split())
    return text[:90] + ("..." if len(text) > 90 else "")


def main(argv=None):
    a = parse(argv)
    setup_cache(a)
    b = Bench(a)
    t0 = time.time()
    b.boot()
    if a.child:
        b.child(a.child)
        return 0
    log(f"device {b.res['meta'].get('gpu') or b.dev}, torch {b.res['meta']['torch']}, cache {a.cache_dir}")
    for size in [s.strip() for s in a.sizes.split(",") if s.strip()]:
        try:
            b.run_size(size)
        except Exception as e:  # e.g. out of memory while building: keep the other sizes
            b.res["errors"].append(f"{size}: {type(e).__name__}: {e}")
            b.res["sizes"].setdefault(size, {})["error"] = traceback.format_exc()[-3000:]
            log(f"FAILED {size}: {e!r}")
        b.free()
    b.res["total_s"] = round(time.time() - t0, 1)
    b.save()
    log(f"done in {b.res['total_s']} s -> {Path(a.out) / (NAME + '.md')}")
    print(b.markdown())
    return 0


if __name__ == "__main__":
    sys.exit(main())
