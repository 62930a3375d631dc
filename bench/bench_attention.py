"""Attention backends on the GPU: kernel timings at Wan/Flux shapes and whole Wan forwards.

Usage (GPU machine, repo root, after `source bench/gpu_env.sh`):
    python3 bench/bench_attention.py --out bench/results/<gpu>
    python3 bench/bench_attention.py --smoke --out /tmp/x     # tiny shapes on the CPU (plumbing check)

What it measures (bf16, B=1, head_dim 128; every usable backend side by side in one process):
  1. kernels - one attention call through our override exactly as Wan calls it ((B, L, H*D) with
     heads=H): Wan 2.1 1.3B 480p 81f (32760 tokens x 12 heads), 14B 480p (32760 x 40), 14B 720p
     (75600 x 40), Flux 1024^2 (4608 x 24). ComfyUI's own default attention function is the
     baseline. Median of 5 timed calls (CUDA events) after 2 warm-ups; TFLOP/s = 4*S^2*D*H / t;
     error vs a float32 reference on 2 heads x the first 1024 queries (relative L2, cosine).
  2. model - one ComfyUI WanModel forward (true 1.3B and 14B configs, random weights, bf16, 480p
     81 frames: latent (1,16,21,60,104), context (1,512,4096)) as sampling runs it (harness Forward,
     inference mode): stock vs `auto` and each backend (sdpa_cudnn, sdpa_flash, flash_attn_3, sage
     where usable). 1.3B: 2 warm-ups + 5 timed; 14B: 2 + 3. Cosine similarity to the stock output,
     peak memory, and how many attention calls each backend served / sent to ComfyUI.
Expected runtime on one H100: about 3-4 minutes (14B build ~1 min, 14B forwards ~2.8 s each).
Each measurement is in its own try/except; results are written after every step.
"""
from __future__ import annotations

import collections
import gc
import platform
import sys
import time
import traceback
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import runner  # noqa: E402  bench/runner.py: shared CLI, metadata, result files, compare()

import accel_harness as H  # noqa: E402
from accel_harness.timing import ab_forwards, ab_markdown, timed  # noqa: E402

MICRO_SHAPES = [  # (name, tokens, heads)
    ("wan1.3B_480p_81f", 32760, 12),
    ("wan14B_480p_81f", 32760, 40),
    ("wan14B_720p_81f", 75600, 40),
    ("flux_1024px", 4608, 24),
]
MODEL_BACKENDS = ["auto", "sdpa_cudnn", "sdpa_flash", "flash_attn_3", "sage"]
REF_HEADS, REF_QUERIES = 2, 1024

log = runner.Log("bench_attention")


def save(out: Path, res: dict):
    runner.write(out, "bench_attention", res, markdown(res))


def markdown(res: dict) -> str:
    lines = [f"# Attention backends - {res.get('gpu')}", "",
             f"- torch {res.get('torch')}, CUDA {res.get('cuda')}, cuDNN {res.get('cudnn')}, triton "
             f"{res.get('triton')}",
             f"- libraries: {res.get('libraries')}",
             f"- ComfyUI default attention (the stock baseline): `{res.get('comfy_attention')}`",
             f"- command: `{res.get('command')}`", f"- wall time: {res.get('elapsed_s')} s",
             *runner.meta_markdown(res.get("run_meta")), ""]
    if res.get("auto_report"):
        lines += ["`auto` here:", "```", res["auto_report"], "```", ""]
    micro = res.get("micro", [])
    if micro:
        lines += ["## One attention call (bf16, B=1, head_dim 128, Wan call convention)", "",
                  "| shape | backend | ms | TFLOP/s | rel. L2 err vs fp32 | cosine | served by |",
                  "| --- | --- | ---: | ---: | ---: | ---: | --- |"]
        for r in micro:
            if "error" in r:
                lines.append(f"| {r['shape']} | {r['backend']} | failed: {r['error'][:80]} | | | | |")
            else:
                lines.append(f"| {r['shape']} | {r['backend']} | {r['ms']:.2f} | {r['tflops']:.0f} | "
                             f"{r['rel_err']:.2e} | {r['cosine']:.6f} | {r.get('served_by', '')} |")
        lines.append("")
    model = res.get("model", [])
    if model:
        lines += ["## Whole WanModel forward (bf16, 480p 81 frames, random weights)", "",
                  "| model | backend | ms / forward | speed-up vs stock | cosine vs stock | peak GiB | attention calls "
                  "served / to ComfyUI |",
                  "| --- | --- | ---: | ---: | ---: | ---: | --- |"]
        for r in model:
            if "error" in r:
                lines.append(f"| {r['model']} | {r['backend']} | failed: {r['error'][:80]} | | | | |")
            else:
                lines.append(f"| {r['model']} | {r['backend']}{' -> ' + r['resolved'] if r.get('resolved') else ''} | "
                             f"{r['ms']:.1f} | {r.get('speedup', 1.0):.3f}x | {r.get('cosine', 1.0):.6f} | "
                             f"{r.get('peak_gib', 0):.1f} | {r.get('served', '')} / {r.get('fallback', '')} |")
        lines.append("")
        ab = [(r["model"], r["backend"], r["interleaved"]) for r in model if r.get("interleaved")]
        if ab:
            lines += ab_markdown(ab) + [""]
    if res.get("not_timed"):
        lines += [f"Not timed here: {res['not_timed']}.", ""]
    if res.get("not_usable"):
        lines += ["Not usable here: " + "; ".join(f"`{n}`: {why}" for n, why in res["not_usable"].items()) + ".", ""]
    if res.get("errors"):
        lines += ["## Errors", ""] + [f"- {e}" for e in res["errors"]]
    return "\n".join(lines) + "\n"


def micro_bench(res, out, device, shapes, backends, warmup, reps):
    import comfy.ldm.modules.attention as cattn
    import torch

    A = H.pack_module("accel.attention.override")
    adapters = H.pack_module("kernels.attention.adapters")
    base = H.pack_module("kernels.attention.base")
    prof = H.pack_module("accel.common.hardware").profile()
    comfy_attn = cattn.optimized_attention
    res["comfy_attention"] = getattr(comfy_attn, "__name__", str(comfy_attn))
    overrides = {}
    for name in backends:
        try:
            kern = adapters.build_kernel(name, prof)
            ok, why = adapters.probe_kernel(kern, device)
            if not ok:
                raise RuntimeError(why)
            overrides[name] = A.AttentionOverride(kern)
        except Exception as e:
            res["micro"].append({"shape": "-", "backend": name, "error": f"not usable: {type(e).__name__}: {e}"})

    def one(shape, L, Hh):
        """One shape's rows."""
        D = 128
        g = torch.Generator(device=device).manual_seed(0)
        q, k, v = (torch.randn(1, L, Hh * D, generator=g, device=device, dtype=torch.bfloat16) for _ in range(3))
        heads = torch.tensor([0, Hh // 2])
        nq = min(REF_QUERIES, L)

        def sub(t):
            return t.view(1, L, Hh, D)[:, :, heads].transpose(1, 2)  # (1, 2, L, D)

        ref = base.reference(sub(q)[:, :, :nq].float(), sub(k).float(), sub(v).float()).float()
        flops = 4.0 * L * L * D * Hh
        for name in ["comfy_default"] + list(overrides):
            if name == "sdpa_math" and L > 8192:
                continue  # materialises the full attention matrix
            row = {"shape": shape, "tokens": L, "heads": Hh, "backend": name}
            try:
                A.STATS = collections.Counter()
                if name == "comfy_default":
                    fn = lambda: comfy_attn(q, k, v, Hh)  # noqa: E731
                    row["served_by"] = res["comfy_attention"]
                else:
                    ov = overrides[name]
                    fn = lambda ov=ov: ov(comfy_attn, q, k, v, heads=Hh, transformer_options={},  # noqa: E731
                                          _inside_attn_wrapper=True)
                with torch.inference_mode():
                    o = fn()
                    if name != "comfy_default":
                        served = [k_[0] for k_ in A.STATS if k_[1] == "served"]
                        row["served_by"] = served[0] if served else "ComfyUI (fallback)"
                    c = runner.compare(sub(o)[:, :, :nq], ref)
                    row["rel_err"], row["cosine"] = c["rel_l2"], c["cosine"]
                    o = None  # frees the memory before the next step (a `del` would leave names the closures above
                              # read)
                    ms, all_ms, _ = timed(fn, device, warmup, reps)
                row.update(ms=ms, all_ms=[round(x, 3) for x in all_ms], tflops=flops / (ms * 1e-3) / 1e12)
                log(f"kernel {shape:18s} {name:32s} {ms:9.3f} ms {row['tflops']:6.0f} TFLOP/s err {row['rel_err']:.2e}")
            except Exception as e:
                row["error"] = f"{type(e).__name__}: {e}".splitlines()[0][:300]
                res["errors"].append(f"micro {shape} {name}: {traceback.format_exc(limit=3)}")
                log(f"kernel {shape} {name} FAILED: {row['error']}")
            finally:
                A.STATS = None
            res["micro"].append(row)
            save(out, res)

    for shape, L, Hh in shapes:
        one(shape, L, Hh)  # its tensors go when it returns
        if device.type == "cuda":
            torch.cuda.empty_cache()


def model_bench(res, out, device, size, latent_shape, ctx_shape, backends, warmup, reps, interleave=0):
    import torch

    from accel_harness import models as M
    from accel_harness.forward import Forward

    A = H.pack_module("accel.attention.override")
    t = time.time()
    try:
        m = M.wan_model("t2v", size, device=str(device), dtype=torch.bfloat16)
    except Exception as e:
        res["errors"].append(f"model {size} build: {traceback.format_exc(limit=3)}")
        log(f"model {size} build FAILED: {e}")
        return
    log(f"model {size} built in {time.time() - t:.1f}s")
    g = torch.Generator(device="cpu").manual_seed(0)
    x = torch.randn(*latent_shape, generator=g).to(device, torch.bfloat16)
    ctx = torch.randn(*ctx_shape, generator=g).to(device, torch.bfloat16)

    def run(patcher):
        A.STATS = collections.Counter()
        if device.type == "cuda":
            torch.cuda.reset_peak_memory_stats(device)
        with torch.inference_mode(), Forward(patcher) as f:
            ms, all_ms, o = timed(lambda: f(x, 0.9, ctx), device, warmup, reps)
            o = o.float()
        calls = warmup + reps
        served = sum(v for k_, v in A.STATS.items() if k_[1] == "served") // calls
        fallback = {"/".join(map(str, k_[2:])): v // calls for k_, v in A.STATS.items() if k_[1] == "fallback"}
        A.STATS = None
        peak = torch.cuda.max_memory_allocated(device) / 2**30 if device.type == "cuda" else 0.0
        return ms, all_ms, o, served, fallback, peak

    stock, stock_ms = None, None
    try:
        ms, all_ms, stock, _, _, peak = run(m)
        stock_ms = ms
        res["model"].append({"model": size, "backend": "stock", "ms": ms, "all_ms": all_ms, "speedup": 1.0,
                             "cosine": 1.0, "peak_gib": peak, "served": 0, "fallback": "all (ComfyUI)"})
        log(f"model {size} stock {ms:.1f} ms / forward")
    except Exception as e:
        res["errors"].append(f"model {size} stock: {traceback.format_exc(limit=3)}")
        log(f"model {size} stock FAILED: {e}")
    save(out, res)
    done = set()
    for name in backends:
        row = {"model": size, "backend": name}
        try:
            patched, report = A.apply_attention(m, name, "fall back")
            ov = patched.model_options.get("transformer_options", {}).get(A.OVERRIDE_KEY)
            if ov is None:
                row["error"] = "not usable here: " + report.splitlines()[-1].strip()
                res["model"].append(row)
                log(f"model {size} {name}: not usable")
                continue
            if name == "auto":
                row["resolved"] = ov.backend
                res.setdefault("auto_report", report)
            elif ov.backend in done:
                log(f"model {size} {name}: same as auto, not timed again")
                continue
            done.add(ov.backend)
            ms, all_ms, o, served, fallback, peak = run(patched)
            row.update(ms=ms, all_ms=all_ms, peak_gib=peak, served=served, fallback=fallback or 0)
            if stock is not None:
                row["speedup"] = stock_ms / ms
                c = runner.compare(o, stock)
                row["cosine"], row["rel_err"] = c["cosine"], c["rel_l2"]
            log(f"model {size} {name:14s} {ms:9.1f} ms  x{row.get('speedup', 0):.3f}  cos {row.get('cosine', 0):.6f}")
            if name == "auto" and interleave:
                row["interleaved"] = ab_forwards({"stock": m, "auto": patched}, x, ctx, 0.9, device,
                                                 rounds=interleave, reps=max(1, reps // 2 + 1))
                log(f"model {size} auto interleaved x{interleave}: {row['interleaved']['median_ms']} -> "
                    f"{row['interleaved']['speedup']['auto']}x")
            o = patched = None  # frees the memory before the next step (a `del` would leave names the closures above
                                # read)
        except Exception as e:
            row["error"] = f"{type(e).__name__}: {e}".splitlines()[0][:300]
            res["errors"].append(f"model {size} {name}: {traceback.format_exc(limit=3)}")
            log(f"model {size} {name} FAILED: {row['error']}")
        res["model"].append(row)
        save(out, res)
    m = x = ctx = stock = None  # frees the memory before the next step (a `del` would leave names the closures above
                                # read)
    gc.collect()
    try:
        import comfy.model_management as mm

        mm.unload_all_models()
        mm.soft_empty_cache()
    except Exception:
        pass
    if device.type == "cuda":
        torch.cuda.empty_cache()


def main():
    ap = runner.parser(__doc__, smoke="tiny shapes and a tiny Wan")
    ap.add_argument("--skip-micro", action="store_true")
    ap.add_argument("--skip-model", action="store_true")
    ap.add_argument("--sizes", default="1.3B,14B", help="Wan sizes for the whole-model part")
    ap.add_argument("--interleave", type=int, default=4,
                    help="rounds alternating stock and `auto` (mirrored order, GPU clocks sampled); 0 = off")
    a = ap.parse_args()
    out = Path(a.out)
    H.bootstrap(cpu=None)
    H.load_pack()
    import comfy.model_management as mm
    import torch

    device = mm.get_torch_device()
    prof = H.pack_module("accel.common.hardware").profile()
    registry = H.pack_module("kernels.attention.registry")
    res = {
        "gpu": torch.cuda.get_device_name(device) if device.type == "cuda" else platform.processor() or "cpu",
        "torch": torch.__version__, "cuda": torch.version.cuda,
        "cudnn": torch.backends.cudnn.version() if device.type == "cuda" else None,
        "triton": prof.triton_version, "python": platform.python_version(),
        "libraries": {k: i.version for k, i in prof.libraries.items() if i.available},
        "command": runner.command(), "smoke": a.smoke,
        "micro": [], "model": [], "errors": [], "run_meta": runner.metadata(device),
    }
    usable = [n for n in registry.BACKENDS if registry.available(n, prof)[0]]
    # every backend not usable here, with the pack's reason (a library that imports but cannot run says why)
    res["not_usable"] = {n: registry.available(n, prof)[1] for n in registry.BACKENDS if n not in usable}
    # a sparse backend decides per model call (grid, step, block) inside a sampling run; called bare, as here, every
    # call runs its dense path, so its row would time the dense kernel under its name: bench_sparse_attention.py
    # measures the sparse kernels
    sparse = [n for n in usable if registry.BACKENDS[n].sparse]
    usable = [n for n in usable if n not in sparse]
    res["usable_backends"] = usable
    if sparse:
        res["not_timed"] = (f"{', '.join(sparse)}: sparse, decided per model call in a sampling run "
                            "(bench_sparse_attention.py)")
    log(f"device {res['gpu']}; usable backends: {', '.join(usable)}")
    if a.smoke:
        shapes = [("smoke_256x2", 256, 2)]
        model_sizes = [("tiny", (1, 16, 2, 8, 8), (1, 16, 4096), 1, 2)]
    else:
        shapes = MICRO_SHAPES
        model_sizes = [(s, (1, 16, 21, 60, 104), (1, 512, 4096), 2, 5 if s == "1.3B" else 3)
                       for s in a.sizes.split(",") if s]
    if not a.skip_micro:
        try:
            micro_bench(res, out, device, shapes, usable, warmup=2, reps=5)
        except Exception:
            res["errors"].append("micro: " + traceback.format_exc(limit=5))
    save(out, res)
    if not a.skip_model:
        backends = [b for b in MODEL_BACKENDS if b == "auto" or b in usable]
        if a.smoke:
            backends = ["auto", "sdpa_math"]
        for size, lat, ctx, warm, reps in model_sizes:
            try:
                model_bench(res, out, device, size, lat, ctx, backends, warm, reps,
                            interleave=min(a.interleave, 2) if a.smoke else a.interleave)
            except Exception:
                res["errors"].append(f"model {size}: " + traceback.format_exc(limit=5))
            save(out, res)
    res["elapsed_s"] = round(log.elapsed(), 1)
    save(out, res)
    log(f"done in {res['elapsed_s']} s -> {out / 'bench_attention.json'}")
    ok14 = [r for r in res["model"] if r.get("model") == "14B" and r.get("backend") == "auto" and "ms" in r]
    if ok14:
        r = ok14[0]
        log(f"Wan 14B 480p 81f auto ({r.get('resolved')}): {r.get('speedup', 0):.3f}x stock, cosine "
            f"{r.get('cosine', 0):.6f} (target >= 1.10x, >= 0.9999)")


if __name__ == "__main__":
    main()
