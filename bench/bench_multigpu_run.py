"""Accel Multi-GPU on whole sampling runs through ComfyUI's sampler: N GPUs against one GPU in the same process.

Workloads (--workload), random weights in the published key layout (bf16, written once to --weights as a file and
loaded by ComfyUI's loader as UNETLoader does; the Wan 2.1 T2V 14B and Wan 2.2 A14B T2V experts share the dims, so
one file serves both):
  wan14b_720p  Wan 2.1 T2V 14B, 1280x720, 81 frames (latent 21x90x160 = 75,600 tokens), text context 512 tokens,
               CFG 5 (cond + uncond batched: CFG parallel, and sequence parallel within each half), --steps (default
               3), euler / simple (KSampler).
  a14b_720p    the Wan 2.2 A14B T2V LightX2V workflow: two experts (both loaded from the one file, as two models), a
               random rank-32 LightX2V LoRA on each (different seeds), ModelSamplingSD3 shift 5, 4 steps at CFG 1 split
               2 + 2 (KSamplerAdvanced: high-noise expert 0-2 keeping its leftover noise, low-noise 2-4), 1280x720,
               81 frames, euler / simple: sequence parallel only (CFG 1). The experts are bf16: Accel Multi-GPU cannot
               send the run-time layer classes of ComfyUI's fp8_scaled loader to its workers.
Chain per expert, as a user builds it: loader -> [LoRA -> ModelSamplingSD3] -> Accel Attention (--attention, default
auto; empty: none) -> [Accel Compile with --compile] -> Accel Multi-GPU (gpus N, cfg_parallel) for N > 1.
Measured per configuration (all in this one process, ComfyUI started as main.py starts it):
  * 1 GPU (stock sampling in ComfyUI's process): a warm-up run of --warmup-steps steps (weights to the GPU; A14B: 1 + 1
    so both experts load), then --runs timed runs; its final latent is the reference;
  * N GPUs for each of --gpus (and each --cfg-parallel mode): the first run (worker processes start, the weights go
    to every worker, then the run; `first_run_s`, with the pool's own `workers_start_s` and `weights_s`), then --runs
    timed runs; speed-up = 1-GPU run time / N-GPU run time; cosine and max |diff| of the final latent vs 1 GPU;
  * before each N-GPU configuration ComfyUI's models are unloaded, so GPU 0 holds only worker 0's copy; per GPU the
    peak memory in use (nvidia-smi, all processes), ComfyUI's process's own torch peak on GPU 0, and per worker (its
    `pool.info()`): torch peak, the attention override and compile status of each model it holds, and how many
    models it holds (A14B: both experts stay, so a timed run sends no weights: `weights_sent_in_timed_runs`).
  A second --cfg-parallel mode for the same N reuses the workers and the patched model (its runtime's cfg_parallel
  switched): its first run sends nothing.
Results ($OUT/multigpu_run_<workload>.json and .md) are written after every measurement.

Run on nvidia-h200-x4 (repo root, carry .gpu, `source bench/gpu_env.sh 033`); a run longer than the 10-minute command
limit goes detached (setsid nohup ... &), polled by short calls (tail its log, copy its folder to $OUT):
    python3 bench/bench_multigpu_run.py --workload wan14b_720p --gpus 2,4 --cfg-parallel both --out /tmp/mg/wan
    python3 bench/bench_multigpu_run.py --workload a14b_720p --gpus 2,4 --out /tmp/mg/a14b
Estimated on H200 (NOT measured). One GPU, from the Wan 14B 480p CFG step of bench/results/h200x2/multigpu_033_wan14B.md
(7.85 s SDPA, 5.33 s FA3) scaled to 75,600 tokens (linear layers x2.3, attention x5.3): ~20 s per CFG-5 step with FA3,
~10 s per CFG-1 step. Weights: the 14B file written once (~45 s); per N-GPU configuration ComfyUI re-reads it for its
CPU copy (~10-20 s per expert; A14B: plus the LoRA computed on the CPU), workers start (~15 s) and the weights go once
to worker 0, which broadcasts them (28.6 GB per expert at a few GB/s: ~10-20 s).
  wan14b_720p --steps 3 --cfg-parallel both: 1 GPU ~1.5 min (1-step warm-up + a 3-step run); 2 GPUs ~1.7 min; 4 GPUs
  ~1.2 min; with the file ~6 min.  a14b_720p: 1 GPU ~1.5 min, 2 GPUs ~2 min, 4 GPUs ~1.7 min: ~5.5 min.
CPU smoke (tiny Wan file, 2 CPU workers over gloo): python bench/bench_multigpu_run.py --smoke [--workload a14b_720p]
"""
from __future__ import annotations

import argparse
import gc
import json
import os
import shutil
import subprocess
import sys
import threading
import time
import traceback
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "bench"))
import runner  # noqa: E402  bench/runner.py: shared CLI, metadata, result files, compare() (imports no torch)
from bench_matrix import call_node  # noqa: E402  (imports no torch)

NAME = "multigpu_run"
# workload -> (title, experts, cfg, steps, LoRA + shift 5)
WORKLOADS = {
    "wan14b_720p": ("Wan 2.1 T2V 14B", 1, 5.0, 3, False),
    "a14b_720p": ("Wan 2.2 A14B T2V LightX2V workflow (two experts, LoRA rank {rank}, shift 5, split 2 + 2)", 2, 1.0,
                  4, True),
}
LORA_SEEDS = (31, 32)  # high-noise, low-noise expert (bench_matrix's)

log = runner.Log(NAME)


def parse(argv=None):
    ap = runner.parser(__doc__, smoke="tiny Wan file, 2 CPU workers over gloo",
                       out_help="folder for multigpu_run_<workload>.json / .md")
    ap.add_argument("--workload", default="wan14b_720p", choices=sorted(WORKLOADS))
    ap.add_argument("--size", default="14B", help="Wan size (harness models.WAN_SIZES); --smoke: tiny")
    ap.add_argument("--gpus", default="2,4", help="comma list of GPU counts measured against 1 GPU; those above the "
                    "visible count are skipped")
    ap.add_argument("--cfg-parallel", default="on", choices=["on", "off", "both"])
    ap.add_argument("--steps", type=int, default=None, help="default: the workload's (wan14b_720p 3, a14b_720p 4)")
    ap.add_argument("--warmup-steps", type=int, default=None, help="1-GPU warm-up run (default 1; A14B 2: one per "
                    "expert)")
    ap.add_argument("--runs", type=int, default=1, help="timed runs per configuration")
    ap.add_argument("--width", type=int, default=1280)
    ap.add_argument("--height", type=int, default=720)
    ap.add_argument("--frames", type=int, default=81)
    ap.add_argument("--tokens", type=int, default=512, help="text tokens of the conditioning")
    ap.add_argument("--attention", default="auto", help="Accel Attention backend on every configuration (the workers "
                    "resolve it per GPU); empty: ComfyUI's attention")
    ap.add_argument("--compile", action="store_true", help="Accel Compile (defaults) after Accel Attention")
    ap.add_argument("--lora-rank", type=int, default=32)
    ap.add_argument("--weights", default="/tmp/accel-mg-weights", help="folder of the random model file (reused)")
    ap.add_argument("--write-weights", default=None, help=argparse.SUPPRESS)  # the child process that writes the file
    a = ap.parse_args(argv)
    title, _, cfg, steps, _ = WORKLOADS[a.workload]
    a.cfg, a.steps = cfg, a.steps or steps
    experts = WORKLOADS[a.workload][1]
    a.warmup_steps = a.warmup_steps or experts
    if a.smoke:
        a.size, a.gpus, a.frames, a.height, a.width, a.tokens = "tiny", "2", 5, 32, 32, 16
        a.cfg_parallel, a.lora_rank = "both", 4
    if experts > 1 and (a.steps % 2 or a.warmup_steps % 2):
        ap.error("the two-expert workflow splits the steps in halves: use even --steps and --warmup-steps")
    return a


def write_weights(path: str, size: str, smoke: bool) -> None:
    """The random Wan T2V file (bf16, the published key layout), generated on the GPU when there is one (this runs in
    a child process on the GPU: its memory goes back to the driver when it exits)."""
    sys.path.insert(0, str(REPO / "harness"))
    import accel_harness as H

    H.bootstrap(cpu=smoke)
    import torch

    from accel_harness import models as M

    dev = "cuda" if torch.cuda.is_available() and not smoke else "cpu"
    sd = M.wan_state_dict("t2v", size, dtype=torch.bfloat16, device=dev)
    tmp = Path(path).with_suffix(".partial")
    M.save_safetensors(sd, tmp)
    os.replace(tmp, path)


class GpuPeaks:
    """Peak memory in use per GPU (nvidia-smi, every process on the GPU) while the block runs; {} without nvidia-smi."""

    def __init__(self, interval_s: float = 0.25):
        self.interval_s, self.peak, self._stop = interval_s, {}, threading.Event()
        self.available = shutil.which("nvidia-smi") is not None

    def sample(self):
        out = subprocess.run(["nvidia-smi", "--query-gpu=index,memory.used", "--format=csv,noheader,nounits"],
                             capture_output=True, text=True, timeout=10).stdout
        for line in out.splitlines():
            i, used = (s.strip() for s in line.split(","))
            self.peak[int(i)] = max(self.peak.get(int(i), 0), int(used))

    def _run(self):
        while not self._stop.wait(self.interval_s):
            try:
                self.sample()
            except Exception:  # noqa: BLE001 - a monitor never breaks the benchmark
                pass

    def __enter__(self):
        if self.available:
            self._t = threading.Thread(target=self._run, daemon=True)
            self._t.start()
        return self

    def __exit__(self, *exc):
        self._stop.set()
        if self.available:
            self._t.join()
        return False

    def gib(self) -> dict:
        return {str(i): round(mib / 1024, 1) for i, mib in sorted(self.peak.items())}


class Bench:
    def __init__(self, a):
        self.a = a
        self.name = f"{NAME}_{a.workload}"
        self.out = Path(a.out)
        self.res = {"name": self.name, "command": runner.command(), "runs": {}, "errors": []}

    # --- setup ----------------------------------------------------------------------------------
    def boot(self):
        sys.path.insert(0, str(REPO / "harness"))
        from accel_harness import mainlike

        start = mainlike.start(["--cpu"] if self.a.smoke else [])
        import accel_harness as H

        H.bootstrap(cpu=self.a.smoke)
        H.load_pack()
        import comfy.model_management as mm
        import torch

        self.H, self.torch, self.mm = H, torch, mm
        self.cuda = torch.cuda.is_available() and not self.a.smoke
        self.visible = torch.cuda.device_count() if self.cuda else 2
        self.pool = H.pack_module("accel.multigpu.pool")
        self.mg = H.pack_module("accel.multigpu.patch")
        a = self.a
        title, experts, _, _, lora = WORKLOADS[a.workload]
        self.experts, self.lora = experts, lora
        try:
            from importlib.metadata import version

            yunchang = version("yunchang")
        except Exception:  # noqa: BLE001
            yunchang = None
        self.res["meta"] = {
            "workload": a.workload, "title": title.format(rank=a.lora_rank), "size": a.size, "dtype": "bf16",
            "width": a.width, "height": a.height, "frames": a.frames, "tokens": a.tokens, "steps": a.steps,
            "cfg": a.cfg, "warmup_steps": a.warmup_steps, "runs": a.runs, "attention": a.attention or None,
            "compile": a.compile, "visible_gpus": self.visible, "yunchang": yunchang, "start": start,
            "latent": [1, 16, (a.frames - 1) // 4 + 1, a.height // 8, a.width // 8],
            "image_tokens": ((a.frames - 1) // 4 + 1) * (a.height // 16) * (a.width // 16)}
        self.res["run_meta"] = runner.metadata("cuda" if self.cuda else "cpu")

    def weights(self) -> Path:
        path = Path(self.a.weights) / f"wan_t2v_{self.a.size}_bf16_seed0.safetensors"
        if not path.exists():
            path.parent.mkdir(parents=True, exist_ok=True)
            t0 = time.time()
            cmd = [sys.executable, __file__, "--write-weights", str(path), "--size", self.a.size]
            subprocess.run(cmd + (["--smoke"] if self.a.smoke else []), check=True)
            self.res["meta"]["weights_write_s"] = round(time.time() - t0, 1)
            log(f"wrote {path} in {time.time() - t0:.0f} s")
        return path

    def bases(self, path):
        """Per expert: the model as loaded (UNETLoader's call) -> [LoRA -> ModelSamplingSD3 shift 5]."""
        import comfy.sd
        import torch

        from accel_harness import models as M

        out = []
        for i in range(self.experts):
            t0 = time.time()
            m = comfy.sd.load_diffusion_model(str(path))
            if self.lora:
                lora = M.wan_lora(self.a.size, rank=self.a.lora_rank, seed=LORA_SEEDS[i], layout="lightx2v", scale=0.02,
                                  dtype=torch.bfloat16)
                m = comfy.sd.load_lora_for_models(m, None, lora, 1.0, 0.0)[0]
                m = call_node("ModelSamplingSD3", model=m, shift=5.0)[0]
            out.append(m)
            log(f"loaded expert {i + 1}/{self.experts} ({type(m).__name__}) in {time.time() - t0:.1f} s")
        return out

    def chain(self, base, gpus, cfg_parallel):
        """(model, report) of the chain on one expert: Accel Attention, [Accel Compile], [Accel Multi-GPU]."""
        m, reports = base, []
        if self.a.attention:
            m, rep = call_node("AccelAttention", model=m, backend=self.a.attention)[:2]
            reports.append(str(rep))
        if self.a.compile:
            m, rep = call_node("AccelCompile", model=m)[:2]
            reports.append(str(rep))
        if gpus > 1:
            m, rep = call_node("AccelMultiGPU", model=m, gpus=gpus, device="cuda" if self.cuda else "cpu",
                               cfg_parallel=cfg_parallel)[:2]
            reports.append(str(rep))
        return m, "\n".join(reports)

    # --- sampling -------------------------------------------------------------------------------
    def sample(self, models, steps):
        """(seconds, final latent) of one run through ComfyUI's KSampler / KSamplerAdvanced path."""
        import nodes

        from accel_harness import models as M

        a, torch = self.a, self.torch
        pos, neg = M.conditioning(a.tokens, seed=1), M.conditioning(a.tokens, seed=2)
        lat = M.wan_latent(a.frames, a.height, a.width)
        if self.cuda:
            torch.cuda.synchronize()
        t0 = time.perf_counter()
        with torch.inference_mode():  # as ComfyUI's executor runs every node
            if len(models) == 1:
                out = M.sample(models[0], pos, neg, lat, steps=steps, cfg=a.cfg, seed=0)
            else:
                half = steps // 2
                x = nodes.common_ksampler(models[0], 0, steps, a.cfg, "euler", "simple", pos, neg, lat, start_step=0,
                                          last_step=half, force_full_denoise=False)[0]
                out = nodes.common_ksampler(models[1], 0, steps, a.cfg, "euler", "simple", pos, neg, x,
                                            disable_noise=True, start_step=half, last_step=steps,
                                            force_full_denoise=True)[0]["samples"]
        if self.cuda:
            torch.cuda.synchronize()
        return round(time.perf_counter() - t0, 2), out.float().cpu()

    def free_gpu0(self):
        """ComfyUI's models off the GPU (the N-GPU rows then show only the workers' copies) and the peaks reset."""
        self.mm.unload_all_models()
        gc.collect()
        self.mm.soft_empty_cache()
        if self.cuda:
            self.torch.cuda.reset_peak_memory_stats()

    def comfy_peak(self):
        return round(self.torch.cuda.max_memory_allocated() / 2 ** 30, 2) if self.cuda else None

    # --- configurations -------------------------------------------------------------------------
    def one_gpu(self, bases):
        models = [self.chain(b, 1, "on")[0] for b in bases]
        with GpuPeaks() as peaks:
            warm, _ = self.sample(models, self.a.warmup_steps)
            times, out = [], None
            for _ in range(self.a.runs):
                t, out = self.sample(models, self.a.steps)
                times.append(t)
        self.ref = out
        return {"gpus": 1, "warmup_s": warm, "run_s": times, "run_s_median": _median(times),
                "peak_gpu_gib": peaks.gib(), "comfy_process_peak_gib": self.comfy_peak()}

    def multi(self, bases, gpus, mode, models):
        """One N-GPU configuration; `models` (a list) keeps the patched models for the next mode of the same N."""
        pool = self.pool
        reports = []
        if not models:
            for b in bases:
                m, rep = self.chain(b, gpus, mode)
                models.append(m)
                reports.append(rep)
        else:  # the same workers and patched model: only the runtime's cfg_parallel changes
            for m in models:
                self.mg.runtime_of(m).cfg_parallel = mode
        r = {"gpus": gpus, "cfg_parallel": mode}
        with GpuPeaks() as peaks:
            before = pool.current_pool()
            loads0 = len(before.stats["loads"]) if before is not None else 0
            first, out = self.sample(models, self.a.steps)
            p = pool.current_pool()
            if p is not before:  # new workers (another GPU count): their own stats
                loads0 = 0
            r.update(first_run_s=first, workers_start_s=p.stats["start_s"],
                     weights_s=round(sum(s for _, _, s in p.stats["loads"][loads0:]), 1),
                     weights_sent_gb=round(sum(b for _, b, _ in p.stats["loads"][loads0:]) / 1e9, 1),
                     first_run_cosine=self.compare(out)["cosine"])
            loads1 = len(p.stats["loads"])
            times = []
            for _ in range(self.a.runs):
                t, out = self.sample(models, self.a.steps)
                times.append(t)
        r.update(run_s=times, run_s_median=_median(times), weights_sent_in_timed_runs=len(p.stats["loads"]) - loads1,
                 **self.compare(out), split=[list(self.mg.runtime_of(m).last_split or ()) for m in models],
                 peak_gpu_gib=peaks.gib(), comfy_process_peak_gib=self.comfy_peak(), workers=p.info(),
                 report=reports[0] if reports else "(the previous row's model and workers)")
        base = self.res["runs"].get("1gpu", {}).get("run_s_median")
        if base and r["run_s_median"]:
            r["speedup"] = round(base / r["run_s_median"], 2)
        return r

    def compare(self, out):
        c = runner.compare(out, self.ref)
        return {"cosine": c["cosine"], "max_abs_diff": c["max_abs_diff"]}

    def record(self, key, fn):
        log(f"{key} ...")
        try:
            self.res["runs"][key] = fn()
            shown = {k: v for k, v in self.res["runs"][key].items() if k != "workers"}
            log(f"{key} = {json.dumps(shown, default=str)[:600]}")
        except Exception as e:  # noqa: BLE001 - keep the other configurations
            self.res["runs"][key] = runner.failed_entry(self.res, key, e, log)
        self.save()

    def run(self):
        path = self.weights()
        bases = self.bases(path)
        self.record("1gpu", lambda: self.one_gpu(bases))
        if getattr(self, "ref", None) is None:
            return
        modes = ["on", "off"] if self.a.cfg_parallel == "both" else [self.a.cfg_parallel]
        for n in [int(s) for s in self.a.gpus.split(",") if s.strip()]:
            if n > self.visible:
                log(f"{n} GPUs: skipped ({self.visible} visible)")
                continue
            models: list = []
            for mode in modes:
                self.free_gpu0()
                self.record(f"{n}gpu_cfg_{mode}",
                            lambda n=n, mode=mode, models=models: self.multi(bases, n, mode, models))
            models.clear()
        self.pool.shutdown_all()

    # --- results --------------------------------------------------------------------------------
    def save(self):
        runner.write(self.out, self.name, self.res, self.markdown())

    def markdown(self):
        m = self.res.get("meta", {})
        rm = self.res.get("run_meta") or {}
        lines = [f"# Accel Multi-GPU, whole sampling runs: {m.get('title')}", "",
                 f"{rm.get('gpu')} x{m.get('visible_gpus')}, ComfyUI {rm.get('comfyui')}, torch {rm.get('torch')}, "
                 f"yunchang {m.get('yunchang')}; Wan {m.get('size')} bf16 random weights, "
                 f"{m.get('width')}x{m.get('height')} {m.get('frames')} frames (latent {m.get('latent')}), "
                 f"{m.get('steps')} steps, CFG {m.get('cfg')}, Accel Attention {m.get('attention') or 'none'}, Accel "
                 f"Compile {'on' if m.get('compile') else 'off'}", "",
                 *runner.meta_markdown(rm), "",
                 "| config | GPUs | CFG parallel | run s | speed-up vs 1 | first run s (workers start, weights s) | "
                 "cosine vs 1 | max abs diff | peak GiB per GPU (all processes) | ComfyUI process GPU 0 peak GiB |",
                 "|---|---|---|---|---|---|---|---|---|---|"]
        for key, r in self.res["runs"].items():
            if "error" in r:
                lines.append(f"| {key} | | | error: {r['error'][:160]} | | | | | | |")
                continue
            first = (f"{r['first_run_s']} ({r['workers_start_s']}, {r['weights_s']})" if "first_run_s" in r
                     else f"warm-up {r.get('warmup_s')}")
            peaks = ", ".join(f"{i}: {v}" for i, v in (r.get("peak_gpu_gib") or {}).items())
            lines.append(f"| {key} | {r['gpus']} | {r.get('cfg_parallel', '')} | {r.get('run_s_median')} | "
                         f"{r.get('speedup', '1.00' if r['gpus'] == 1 else '')} | {first} | {r.get('cosine', '')} | "
                         f"{r.get('max_abs_diff', '')} | {peaks} | {r.get('comfy_process_peak_gib')} |")
        for key, r in self.res["runs"].items():
            if "workers" not in r:
                continue
            why = next((w for _, w in r["split"] if w), "")
            lines += ["", f"## {key}: the workers", "",
                      f"- weights sent in the timed runs: {r['weights_sent_in_timed_runs']}; rank groups per forward, "
                      f"per expert: {[s[0] for s in r['split']]}" + (f" ({why[:90]})" if why else "")]
            for i, w in enumerate(r["workers"]):
                held = "; ".join(f"attention {v['attention']}, compile {v['compile']}" for v in w["models"].values())
                lines.append(f"- worker {i} ({w['device']}): {len(w['models'])} model(s) held, torch peak "
                             f"{w.get('peak_allocated_gib')} GiB; {held}")
        if self.res["errors"]:
            lines += ["", "Errors:"] + [f"- {e}" for e in self.res["errors"]]
        return "\n".join(lines) + "\n"


def _median(xs):
    xs = sorted(xs)
    return xs[len(xs) // 2] if xs else None


def main(argv=None):
    a = parse(argv)
    if a.write_weights:
        write_weights(a.write_weights, a.size, a.smoke)
        return 0
    b = Bench(a)
    b.boot()
    log(f"{a.workload}: device {b.res['run_meta'].get('gpu')} x{b.visible}, torch {b.res['run_meta'].get('torch')}")
    try:
        b.run()
    except Exception as e:  # noqa: BLE001
        b.res["errors"].append(f"{type(e).__name__}: {e}")
        b.res["traceback"] = traceback.format_exc()[-3000:]
        log("FAILED " + traceback.format_exc())
    finally:
        b.pool.shutdown_all()
    b.save()
    log(f"wrote {b.out / (b.name + '.json')} and .md")
    return 1 if b.res["errors"] else 0


if __name__ == "__main__":
    sys.exit(main())
