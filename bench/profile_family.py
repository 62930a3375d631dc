#!/usr/bin/env python3
"""Where the time of one diffusion-model forward goes, per chain, for Flux, Qwen-Image and HunyuanVideo.

The family's true config (widths, heads, MLP ratios) with fewer blocks (--layers), random weights in the published
key layout written once to a safetensors file and loaded by ComfyUI's loader (the FP8 loader reads the same file),
in one process started the way main.py starts ComfyUI (bench_matrix.Matrix: DynamicVRAM where that ComfyUI turns it
on). --layers N: Flux and HunyuanVideo get N double and 2N single blocks (the published 19 + 38 and 20 + 40 ratio,
so the mix of layers is the full model's; --single-layers overrides), Qwen-Image N of its 60 blocks. Each variant is
a bench_matrix chain, built by bench_matrix's own code (Matrix.build):
  stock         ComfyUI as loaded (chain stock)
  attn          Accel Attention auto (chain attention)
  shipped       the pack's exact chain: Accel CUDA Settings -> Accel Attention -> Accel Compile (chain shipped)
  fp8           Accel Load Diffusion Model (FP8) with its defaults for a 16-bit file (compute auto = FP8 matmul on
                sm89+, per-token activation scales, keep auto), FORCED to FP8 where its `auto` keeps a 16-bit file
                16-bit (Flux on Hopper): weight_format is named 'fp8_e4m3fn per-channel scaled', the format `auto`
                quantizes to (chain fp8_forced; an explicit weight_format is always honoured)
  fp8_shipped   the same loader -> the shipped chain (chain fp8_shipped)
  core_compile  ComfyUI TorchCompileModel, inductor default mode (chain core_compile)
  (any other bench_matrix chain name works too, e.g. core_fp8_fast, kj_sage_compile)
A variant is measured inside a real sampling run: one step of ComfyUI's KSampler path with the family's CFG, so the
batch and the model's inputs are the sampler's (Flux CFG 1: batch 1; Qwen-Image CFG 2.5: cond + uncond, batch 2),
through a model_function_wrapper that, on the step's model call, runs: the first call (compiling, timed: first
call s), --warmup calls, --repeats timed calls (harness timer, CUDA events: median ms; host ms = when the call
returned to Python, before the GPU finished: near the wall time means the CPU issues kernels no faster than the GPU
runs them), then one call under torch.profiler: kernel ms per category (attention, matmul, fp8 quantize (our
quantizer kernels, float8 casts, inductor kernels that fuse an amax), triton (other inductor-fused kernels),
copy/cast, other elementwise), the top kernels, kernel launches, GPU busy ms (the union of the kernel intervals) and
the CPU gap = median ms - GPU busy ms (launch overhead, the GPU waiting for the host). Output cosine vs stock.
After stock: the FP8 linears at the shapes the stock forward ran (hooks on exactly the Linears the FP8 loader
quantizes: M tokens x K -> N and calls per forward), bench_fp8.micro per shape (bf16 F.linear, the loader's FP8
Linear module, per-token FP8 linear with fast / fp32 accumulation, per-tensor FP8 linear, the activation quantizer
alone, torch._scaled_mm alone, ComfyUI's fp8_e4m3fn_fast), and their sum over one forward.
Variants run in the order given (stock first); results are rewritten after each step, and no variant starts after
--budget-s seconds (recorded as skipped), so a time limit keeps what was measured.

Run (GPU machine, repo root; estimated, not measured: about 2.5-3 min for Flux --layers 6 on an H100, of which ~30 s
start + writing the 7.4 GB weights file, ~10 s per eager variant, ~15 s per FP8 load, ~20-40 s per compile variant):
    source bench/gpu_env.sh 033; python3 bench/profile_family.py --family flux --layers 6 --out $OUT/pf
    python3 bench/profile_family.py --family qwen_image --layers 4 --out $OUT/pq
CPU smoke: python bench/profile_family.py --smoke --family flux --out /tmp/pf
Writes profile_<family>.json and profile_<family>.md into --out.
"""
from __future__ import annotations

import gc
import re
import sys
import time
import traceback
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "bench"))
import bench_matrix  # noqa: E402  the chains (Matrix.build), ComfyUI started like main.py (imports no torch)
import families  # noqa: E402  bench/families.py: the families' configs, inputs, sampler settings (imports no torch)
import runner  # noqa: E402  bench/runner.py: shared CLI, metadata, result files, compare() (imports no torch)

log = runner.Log("profile_family")

FAMILIES = tuple(families.DEPTH_KEYS)  # flux, hunyuan_video, qwen_image
# variant -> bench_matrix chain
VARIANTS = {"stock": "stock", "attn": "attention", "shipped": "shipped", "fp8": "fp8_forced",
            "fp8_shipped": "fp8_shipped", "core_compile": "core_compile"}
DEFAULT_VARIANTS = "stock,attn,shipped,fp8,fp8_shipped,core_compile"
# the smoke's tiny Flux / Qwen-Image / HunyuanVideo are built in memory: the FP8 loader cannot read them from a file
# (its variants are recorded as skipped with bench_matrix's reason), and inductor would compile for minutes on the CPU
SMOKE_VARIANTS = "stock,attn,fp8"


def parse(argv=None):
    ap = runner.parser(__doc__, smoke="the family's tiny model built in memory (its depth, not --layers), 64x64, "
                       "variants stock,attn,fp8 (fp8 recorded as skipped: the FP8 loader needs the file), the micro "
                       "table at the tiny model's linear shapes")
    ap.add_argument("--family", default="flux", choices=FAMILIES)
    ap.add_argument("--layers", type=int, default=6, help="blocks (Flux / HunyuanVideo: double blocks; default 6)")
    ap.add_argument("--single-layers", type=int, default=None,
                    help="Flux / HunyuanVideo single blocks (default: twice --layers, the published ratio)")
    ap.add_argument("--variants", default=None, help=f"comma list (default {DEFAULT_VARIANTS}); names: "
                    f"{', '.join(VARIANTS)} or any bench_matrix chain")
    ap.add_argument("--repeats", type=int, default=10, help="timed forwards per variant (median)")
    ap.add_argument("--warmup", type=int, default=2, help="untimed forwards after the first call")
    ap.add_argument("--top", type=int, default=15, help="kernels listed per variant")
    ap.add_argument("--height", type=int, default=None, help="default: the family's (Flux 1024, Qwen-Image 1328)")
    ap.add_argument("--width", type=int, default=None)
    ap.add_argument("--frames", type=int, default=None, help="HunyuanVideo (default 129)")
    ap.add_argument("--cfg", type=float, default=None,
                    help="default: the family's (CFG > 1 runs cond + uncond as batch 2)")
    ap.add_argument("--tokens", type=int, default=None, help="text tokens (default: the family's)")
    ap.add_argument("--dtype", default=None, choices=["fp16", "bf16"], help="weights in the file (default bf16)")
    ap.add_argument("--weights", default="/tmp/accel-bench-weights", help="folder for the random-weight file")
    ap.add_argument("--skip-micro", action="store_true", help="no FP8 linear micro table")
    ap.add_argument("--budget-s", type=float, default=180.0,
                    help="start no variant after this many seconds (0: no limit; default 180, the smoke: none)")
    ap.add_argument("--comfy-args", default="", help="extra ComfyUI command-line arguments")
    a = ap.parse_args(argv)
    a.variants = a.variants or (SMOKE_VARIANTS if a.smoke else DEFAULT_VARIANTS)
    if a.smoke:
        a.repeats, a.warmup, a.budget_s = 2, 1, 0
    return a


def matrix_args(a):
    """bench_matrix's arguments for the same family, shapes and weights folder (its parser fills the family's
    defaults)."""
    argv = ["--family", a.family, "--out", a.out, "--weights", a.weights, "--chains", "stock"]
    for flag in ("height", "width", "frames", "cfg", "tokens", "dtype", "comfy_args"):
        if getattr(a, flag) not in (None, ""):
            argv.append(f"--{flag.replace('_', '-')}={getattr(a, flag)}")  # '=': a value may start with '-'
    if a.smoke:
        argv.append("--smoke")
    m = bench_matrix.parse(argv)
    m.steps = 1  # one sampling step: one model call (CFG > 1: cond + uncond in one batch)
    return m


# the profiler's device intervals and their union: bench/runner.py (shared with bench_matrix --profile)
device_intervals, busy_ms = runner.device_intervals, runner.busy_ms


# --- the Linears the FP8 loader quantizes, as the stock forward calls them -------------------------------------------

BLOCK_INDEX = re.compile(r"((?:^|\.)\w*blocks)\.\d+")  # double_blocks.3.img_attn.qkv -> double_blocks.*.img_attn.qkv


class LinearShapes:
    """Forward pre-hooks on the Linears of `patcher`'s diffusion model that the FP8 loader's plan quantizes
    (accel.fp8.plan_layers, keep auto): per call the tokens M (all leading dims), K and N, and the layer name with its
    block index as '*'. with LinearShapes(H, patcher) as rec: ...; rec.rows()"""

    def __init__(self, H, patcher):
        F = H.pack_module("accel.fp8")
        fam = H.pack_module("accel.common.families").detect(patcher)
        self.dm = patcher.model.diffusion_model
        self.plan = F.plan_layers(self.dm, fam)
        self.calls, self.handles, self.active = {}, [], True

    def __enter__(self):
        for name, mod in self.dm.named_modules():
            if self.plan.quantize.get(name):
                self.handles.append(mod.register_forward_pre_hook(self._hook(BLOCK_INDEX.sub(r"\1.*", name))))
        return self

    def _hook(self, pattern):
        def hook(mod, args):
            if self.active and args:
                x = args[0]
                key = (pattern, x.numel() // x.shape[-1], mod.in_features, mod.out_features)
                self.calls[key] = self.calls.get(key, 0) + 1
        return hook

    def __exit__(self, *exc):
        for h in self.handles:
            h.remove()
        self.handles = []
        return False

    def rows(self) -> list:
        """[{"shape": (M, K, N), "calls": per forward, "layers": [patterns]}], most multiply-adds per forward first."""
        by = {}
        for (pattern, m, k, n), c in self.calls.items():
            r = by.setdefault((m, k, n), {"shape": [m, k, n], "calls": 0, "layers": []})
            r["calls"] += c
            r["layers"].append(pattern)
        return sorted(by.values(), key=lambda r: -r["calls"] * r["shape"][0] * r["shape"][1] * r["shape"][2])


# --- one forward, measured inside sampling ---------------------------------------------------------------------------

class Probe:
    """A model_function_wrapper: on the sampler's first model call it measures the forward (first call, warm-up, timed
    calls, one profiled call) and returns its output; later calls pass through."""

    def __init__(self, a, torch, dev, cuda, recorder=None):
        self.a, self.torch, self.dev, self.cuda, self.recorder = a, torch, dev, cuda, recorder
        self.r, self.out, self.kern, self.intervals = {}, None, None, []

    def sync(self):
        if self.cuda:
            self.torch.cuda.synchronize()

    def __call__(self, apply_model, args):
        x, t, c = args["input"], args["timestep"], args["c"]
        if self.out is not None:
            return apply_model(x, t, **c)
        from accel_harness.timing import first_call, timed

        torch = self.torch

        def call():
            c2 = dict(c)
            if isinstance(c.get("transformer_options"), dict):
                c2["transformer_options"] = dict(c["transformer_options"])
            return apply_model(x, t, **c2)

        self.r["batch"] = int(x.shape[0])
        self.r["cond_or_uncond"] = list(args.get("cond_or_uncond") or [])
        self.r["input_shape"] = list(x.shape)
        first_s, out = first_call(call, self.dev)
        self.r["first_call_s"] = round(first_s, 3)
        if self.recorder is not None:
            self.recorder.active = False  # shapes of one forward
        hosts = []

        def host_timed():
            t0 = time.perf_counter()
            o = call()
            hosts.append((time.perf_counter() - t0) * 1000.0)
            return o

        med, times, out = timed(host_timed, self.dev, warmup=self.a.warmup, reps=self.a.repeats)
        hosts = sorted(hosts[self.a.warmup:])
        self.r["median_ms"] = round(med, 3)
        self.r["times_ms"] = [round(v, 3) for v in times]
        self.r["host_ms"] = round(hosts[len(hosts) // 2], 3) if hosts else None
        acts = [torch.profiler.ProfilerActivity.CPU] + ([torch.profiler.ProfilerActivity.CUDA] if self.cuda else [])
        with torch.profiler.profile(activities=acts) as prof:
            self.sync()
            t0 = time.perf_counter()  # inside: the profiler's own start and stop are not the forward's
            out = call()
            self.sync()
            self.r["profiled_wall_ms"] = round((time.perf_counter() - t0) * 1000.0, 3)
        self.kern = runner.kernel_times(prof, self.cuda)
        self.intervals = device_intervals(prof)
        self.out = out.float().cpu()
        return out


def measure(mx, a, name, chain, path, state):
    """One variant: build the chain (bench_matrix), sample one step with a Probe, summarize the profile."""
    torch, cuda = mx.torch, mx.cuda
    v = {"chain": chain, "what": bench_matrix.CHAINS.get(chain, chain)}
    t0 = time.time()
    m, report = mx.build(chain, path)
    v["build_s"] = round(time.time() - t0, 2)
    v["report"] = (report or "")[:3000]
    probe = Probe(a, torch, mx.dev, cuda)
    m2 = m.clone()
    if m2.model_options.get("model_function_wrapper") is not None:
        raise RuntimeError(f"chain {chain} sets a model_function_wrapper of its own; this profile measures the forward "
                           "through one and does not wrap another")
    m2.set_model_unet_function_wrapper(probe)
    rec = None
    if name == "stock" and not a.skip_micro:
        rec = LinearShapes(mx.H, m)
        probe.recorder = rec
    try:
        if rec is not None:
            rec.__enter__()
        t0 = time.time()
        mx.sample(m2)
        v["sample_s"] = round(time.time() - t0, 2)
    finally:
        if rec is not None:
            rec.__exit__(None, None, None)
    if probe.out is None:
        raise RuntimeError("the sampler never called the model (no forward was measured)")
    v.update(probe.r)
    s = runner.kernel_summary(probe.kern, a.top)
    v.update(s)
    v["kernel_launches"] = len(probe.intervals) if cuda else None
    if cuda and probe.intervals:
        busy = busy_ms(probe.intervals)
        v["gpu_busy_ms"] = round(busy, 3)
        v["cpu_gap_ms"] = round(v["median_ms"] - busy, 3)
        v["gpu_idle_in_profiled_ms"] = round(v["profiled_wall_ms"] - busy, 3)
    else:
        v["gpu_busy_ms"] = v["cpu_gap_ms"] = v["gpu_idle_in_profiled_ms"] = None
    if name == "stock":
        state["ref"] = probe.out
    v["cosine_vs_stock"] = v["max_abs_diff"] = None  # stock failed: nothing to compare with
    if state.get("ref") is not None:
        c = runner.compare(probe.out, state["ref"])
        v["cosine_vs_stock"], v["max_abs_diff"] = round(c["cosine"], 6), round(c["max_abs_diff"], 5)
    v["fp8_calls"] = mx.fp8_calls(m)
    v["compile"] = mx.compile_summary(m)
    if rec is not None:
        state["shapes"] = rec.rows()
    return v


# --- the FP8 linears at the forward's shapes -------------------------------------------------------------------------

MICRO_KEYS = ("bf16", "accel_module", "fp8_rowwise_fastaccum", "fp8_rowwise", "fp8_tensorwise_fastaccum",
              "quantize_rows", "scaled_mm_rowwise_only", "comfy_fp8_fast")


def per_forward(shapes, micro_rows) -> dict:
    """Each micro timing times the calls per forward of its shape, summed over the shapes: ms per forward spent in the
    quantized Linears per implementation (None where a shape lacks that timing)."""
    by = {tuple(r["shape"]): r for r in shapes}
    tot = {}
    for row in micro_rows:
        calls = by.get((row["M"], row["K"], row["N"]), {}).get("calls", 0)
        for k in MICRO_KEYS:
            if tot.get(k, 0) is None:
                continue
            tot[k] = None if f"{k}_ms" not in row else tot.get(k, 0.0) + calls * row[f"{k}_ms"]
    return {k: (round(t, 3) if t is not None else None) for k, t in tot.items()}


def run_micro(mx, res, shapes):
    import bench_fp8  # imports torch and the harness: after Matrix.boot

    prof = mx.H.pack_module("accel.common.hardware").profile()
    mode = mx.H.pack_module("accel.common.defaults").choose(prof).fp8_compute
    res["micro_fp8_compute_auto"] = mode
    errors = res.setdefault("micro_errors", {})
    rows = bench_fp8.micro(mx.torch.device(mx.dev), mx.a.smoke, errors, mode, [tuple(r["shape"]) for r in shapes])
    res["micro"] = rows
    res["micro_per_forward_ms"] = per_forward(shapes, rows)


# --- main ------------------------------------------------------------------------------------------------------------

def unload(mx):
    mx.mm.unload_all_models()
    gc.collect()
    mx.mm.soft_empty_cache()


def main(argv=None):
    a = parse(argv)
    mx = bench_matrix.Matrix(matrix_args(a))
    mx.boot()  # ComfyUI as main.py starts it, before torch is imported; then the pack
    torch, cuda = mx.torch, mx.cuda
    fam = families.spec(a.family)
    name = f"profile_{a.family}"
    out_dir = Path(a.out)
    res = {"name": name, "command": runner.command(), "run_meta": runner.metadata(mx.dev), "variants": {}, "errors": []}
    meta = res["meta"] = {k: mx.res["meta"].get(k) for k in ("comfyui", "torch", "gpu", "patcher", "family", "dtype",
                                                           "height", "width", "frames", "cfg", "tokens", "sampler")}
    meta.update(label=fam.label, dynamic_vram=mx.res["meta"]["start"].get("dynamic_vram"), smoke=a.smoke,
                guidance=fam.guidance, repeats=a.repeats, warmup=a.warmup)

    def save():
        runner.write(out_dir, name, res, markdown(res))

    depth = None
    if not a.smoke:
        from accel_harness import models as M

        depth = meta["depth"] = families.reduced_depth(a.family, a.layers, a.single_layers)
        true = M.true_unet_config(a.family)
        meta["true_depth"] = {k: true[k] for k in depth}
    dt = {"fp16": torch.float16, "bf16": torch.bfloat16}[mx.a.dtype]
    t0 = time.time()
    path = mx.family_weights_file(0, dt, depth)
    meta["weights_file"] = str(path) if path else "built in memory (smoke)"
    meta["weights_s"] = round(time.time() - t0, 1)
    if cuda:
        gc.collect()
        torch.cuda.empty_cache()
    log(f"{fam.label}: depth {depth or 'tiny'}, {meta['height']}x{meta['width']}, CFG {meta['cfg']}, weights "
        f"{meta['weights_file']} ({meta['weights_s']} s)")
    save()
    state = {}
    names = [n.strip() for n in a.variants.split(",") if n.strip()]
    if "stock" not in names:
        names.insert(0, "stock")  # the reference of every cosine
    for n in names:
        chain = VARIANTS.get(n, n)
        if chain not in bench_matrix.CHAINS:
            raise SystemExit(f"--variants: unknown {n!r}; use {', '.join(VARIANTS)} or a bench_matrix chain")
        if a.budget_s and log.elapsed() > a.budget_s and n != "stock":
            res["variants"][n] = {"chain": chain, "skipped": f"--budget-s {a.budget_s:g} s reached before it started"}
            log(f"{n}: skipped (budget)")
            continue
        try:
            v = res["variants"][n] = measure(mx, a, n, chain, path, state)
            log(f"{n}: {v['median_ms']} ms/forward (host {v['host_ms']} ms, GPU busy {v['gpu_busy_ms']} ms, "
                f"first call {v['first_call_s']} s, batch {v['batch']}), cosine {v['cosine_vs_stock']}: "
                f"{v['category_ms']}")
        except bench_matrix.Skipped as e:
            res["variants"][n] = {"chain": chain, "skipped": str(e)}
            log(f"{n}: skipped ({e})")
        except Exception as e:  # noqa: BLE001 - record and go on with the other variants
            res["variants"][n] = {"chain": chain, "error": f"{type(e).__name__}: {e}",
                                  "traceback": traceback.format_exc()[-3000:]}
            res["errors"].append(f"{n}: {type(e).__name__}: {e}")
            log(f"{n}: FAILED {type(e).__name__}: {e}")
        unload(mx)  # the variant's model goes; the next one loads what it needs (not timed: before the forward)
        save()
        if n == "stock" and not a.skip_micro and state.get("shapes"):
            res["linear_shapes"] = state["shapes"]
            with runner.captured(res, "micro"):
                run_micro(mx, res, state["shapes"])
            save()
    res["wall_s"] = round(log.elapsed(), 1)
    save()
    print(markdown(res))
    return 0


# --- report ----------------------------------------------------------------------------------------------------------

def _g(d, k, default="-"):
    v = d.get(k)
    return default if v is None else v


def markdown(res) -> str:
    m = res["meta"]
    depth = m.get("depth")
    if depth:
        true = m.get("true_depth") or {}
        blocks = " + ".join(f"{n} of {true.get(k, '?')} {k}" for k, n in depth.items())
    else:
        blocks = "tiny config (smoke)"
    frames = f", {m.get('frames')} frames" if (m.get("frames") or 1) > 1 else ""
    batch = next((v.get("batch") for v in res["variants"].values() if v.get("batch")), None)
    L = [f"# Forward profile: {m.get('label')}, {blocks}, {m.get('height')}x{m.get('width')}{frames}, batch {batch} "
         f"(CFG {m.get('cfg')}), {m.get('tokens')} text tokens", "",
         f"GPU {m.get('gpu') or 'none (CPU: timings mean nothing)'}, ComfyUI {m.get('comfyui')}, torch "
         f"{m.get('torch')}, DynamicVRAM {m.get('dynamic_vram')}, patcher {m.get('patcher')}, {m.get('dtype')} "
         "weights. Random weights: speed and deviation only. One sampling step per variant; the forward timed inside "
         f"it (median of {m.get('repeats')} after the first call and {m.get('warmup')} warm-up calls).",
         f"Command: `{res['command']}`", *runner.meta_markdown(res.get("run_meta")), "",
         *([f"Fewer blocks than published ({blocks}): block time scales with the block count; the embedders and the "
            "final layer (a small part) do not.", ""] if depth else []),
         "ms: median forward (CUDA events). host: when the call returned to Python. GPU busy: union of the profiled "
         "forward's kernel intervals; CPU gap = ms - GPU busy (the GPU waiting for the host: launch overhead, sync).",
         "",
         "| variant | chain | ms / forward | x stock | host ms | GPU busy ms | CPU gap ms | kernels | first call s | "
         "cosine vs stock | kernel ms by category |",
         "| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- |"]
    base = (res["variants"].get("stock") or {}).get("median_ms")
    for n, v in res["variants"].items():
        if "skipped" in v or "error" in v:
            L.append(f"| {n} | {v['chain']} | "
                     f"{'skipped: ' + v['skipped'] if 'skipped' in v else 'error: ' + v['error'][:200]} | | | | | | | "
                     "| |")
            continue
        x = f"{base / v['median_ms']:.3f}" if base and v.get("median_ms") else "-"
        cats = ", ".join(f"{k} {t}" for k, t in v.get("category_ms", {}).items())
        L.append(f"| {n} | {v['chain']} | {v['median_ms']} | {x} | {_g(v, 'host_ms')} | {_g(v, 'gpu_busy_ms')} | "
                 f"{_g(v, 'cpu_gap_ms')} | {_g(v, 'kernel_launches')} | {v['first_call_s']} | "
                 f"{_g(v, 'cosine_vs_stock')} | {cats} |")
    for n, v in res["variants"].items():
        if v.get("compile") or v.get("fp8_calls"):
            L.append(f"\n{n}: compile {v.get('compile')}; FP8 layer calls {v.get('fp8_calls')}")
    shapes = res.get("linear_shapes")
    if shapes:
        micro = {(r["M"], r["K"], r["N"]): r for r in res.get("micro") or []}
        L += ["", "## Linears the FP8 loader quantizes, as the stock forward calls them (bench_fp8.micro per shape)",
              "",
              f"FP8 compute `auto` here: {res.get('micro_fp8_compute_auto')}. Per call ms; the last row: each column "
              "times the calls per forward, summed.", "",
              "| M x K -> N | calls / forward | layers | bf16 | accel module | fp8 per-token | quantize alone | "
              "scaled_mm alone | fp8 per-tensor | ComfyUI fp8_fast |",
              "| --- | ---: | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |"]
        for r in shapes:
            mm = micro.get(tuple(r["shape"]), {})
            M_, K_, N_ = r["shape"]
            L.append(f"| {M_} x {K_} -> {N_} | {r['calls']} | {', '.join(r['layers'])[:120]} | {_g(mm, 'bf16_ms')} | "
                     f"{_g(mm, 'accel_module_ms')} | {_g(mm, 'fp8_rowwise_fastaccum_ms')} | "
                     f"{_g(mm, 'quantize_rows_ms')} | {_g(mm, 'scaled_mm_rowwise_only_ms')} | "
                     f"{_g(mm, 'fp8_tensorwise_fastaccum_ms')} | {_g(mm, 'comfy_fp8_fast_ms')} |")
        t = res.get("micro_per_forward_ms") or {}
        L.append(f"| per forward (ms) | | | {_g(t, 'bf16')} | {_g(t, 'accel_module')} | "
                 f"{_g(t, 'fp8_rowwise_fastaccum')} | {_g(t, 'quantize_rows')} | {_g(t, 'scaled_mm_rowwise_only')} | "
                 f"{_g(t, 'fp8_tensorwise_fastaccum')} | {_g(t, 'comfy_fp8_fast')} |")
        if res.get("micro"):
            import bench_fp8  # the same tables as fp8.md (imported here only: it imports torch)

            L += [""] + bench_fp8.micro_markdown(res["micro"], "The micro rows in full (as bench_fp8's fp8.md)")
        if res.get("micro_errors"):
            L += ["", "Micro errors: " + "; ".join(f"{k}: {e}" for k, e in res["micro_errors"].items())]
    for n, v in res["variants"].items():
        if v.get("top"):
            L += ["", f"## {n}: top kernels (ms in the profiled forward)", "", "| kernel | ms | category |",
                  "| --- | ---: | --- |"]
            L += [f"| `{k}` | {t} | {c} |" for k, t, c in v["top"]]
    for e in res.get("errors") or []:
        L.append(f"\nERROR {e[:600]}")
    if res.get("wall_s") is not None:
        L.append(f"\nWall time of the script: {res['wall_s']} s")
    return "\n".join(L) + "\n"


if __name__ == "__main__":
    sys.exit(main())
