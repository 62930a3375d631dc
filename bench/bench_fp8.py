"""FP8 weights benchmark: Wan 14B (true config, random weights) at 480p / 81 frames.

Measures, side by side in one process:
  1. per-linear micro-benchmark at the Wan 14B shapes (tokens 32760; 5120->5120, 5120->13824,
     13824->5120): bf16 F.linear, our FP8 linear (row-wise: per-token x per-channel, with and without
     fast accumulation; tensor-wise: per-tensor x per-tensor), the activation quantizer and
     torch._scaled_mm alone, our Linear module, and ComfyUI's `fp8_e4m3fn_fast` Linear (fp8_ops);
     accuracy of each vs the fp32 product, of the GPU path vs the plain-torch reference
     (kernels.fp8_linear.fp8_linear_ref), and of the Triton quantizer vs quantize_rows_ref.
  2. whole model, one forward as sampling runs it (latent (1,16,21,60,104), context (1,512,4096)):
     stock bf16, our FP8 per-tensor, our FP8 per-channel, ComfyUI's fp8_e4m3fn_fast (UNETLoader
     weight_dtype: dtype fp8 + fp8_optimizations). Weight memory, forward time (median), cosine
     similarity of the output to the bf16 model's. One 14B model at a time, built on the GPU.

Targets (H100/H200): weight memory <= 0.55x bf16, linears >= 1.4x faster, forward >= 1.15x faster,
cosine >= 0.995.

Usage (GPU machine, from the repo root, after `source bench/gpu_env.sh`):
    python3 bench/bench_fp8.py --out bench/results/h100
    python3 bench/bench_fp8.py --smoke --out /tmp/fp8-smoke     # tiny config on CPU (checks the script)
Expected GPU runtime: about 3-4 minutes on an H100 (four 14B builds of ~15-45 s each, 4 forwards of
~2-3 s per variant, ~20 s of micro-benchmarks). Writes fp8.json and fp8.md into --out.
"""
from __future__ import annotations

import gc
import platform
import sys
import time
import traceback
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import runner  # noqa: E402  bench/runner.py: shared CLI, metadata, result files, compare()

import accel_harness as H  # noqa: E402
from accel_harness.timing import timed as timed_all  # noqa: E402

T0 = time.time()
log = runner.Log("fp8")


def main():
    ap = runner.parser(__doc__, smoke="tiny Wan config and 256-token linears on the CPU")
    ap.add_argument("--repeats", type=int, default=3, help="timed forwards per model variant (median)")
    ap.add_argument("--skip-model", action="store_true", help="micro-benchmark only")
    ap.add_argument("--skip-micro", action="store_true", help="whole-model benchmark only")
    a = ap.parse_args()
    smoke = a.smoke
    H.bootstrap(cpu=True if smoke else False)
    H.load_pack()
    import torch

    dev = torch.device("cpu" if smoke else "cuda")
    res = {"command": runner.command(), "smoke": smoke, "torch": torch.__version__,
           "python": platform.python_version(), "device": str(dev), "errors": {}, "run_meta": runner.metadata(dev)}
    if dev.type == "cuda":
        res["gpu"] = torch.cuda.get_device_name(0)
        res["sm"] = ".".join(map(str, torch.cuda.get_device_capability(0)))
    try:
        import triton

        res["triton"] = triton.__version__
    except Exception:
        res["triton"] = None
    prof = H.pack_module("accel.common.hardware").profile(refresh=True)
    d = H.pack_module("accel.common.defaults").choose(prof)
    res["fp8_compute_auto"] = d.fp8_compute
    res["fp8_compute_reason"] = d.fp8_reason
    log(f"device {res.get('gpu', 'cpu')}; torch {torch.__version__}; fp8 auto = {d.fp8_compute}")

    out_dir = Path(a.out)
    out_dir.mkdir(parents=True, exist_ok=True)
    try:
        if not a.skip_micro:
            res["micro"] = micro(dev, smoke, res["errors"], d.fp8_compute)
        if not a.skip_model:
            res["model"] = whole_model(dev, smoke, a.repeats, res["errors"])
        res["targets"] = targets(res)
    finally:
        res["wall_s"] = round(time.time() - T0, 1)
        runner.write(out_dir, "fp8", res, markdown(res))
        log(f"wrote {out_dir / 'fp8.json'} and fp8.md")
    print(markdown(res))


# --- timing helpers ---------------------------------------------------------------------------------------

def timed(fn, dev, warmup=3, reps=10):
    """Median milliseconds of fn() (the harness timer: CUDA events on GPU)."""
    return timed_all(fn, dev, warmup=warmup, reps=reps)[0]


def relerr(a, b):
    return runner.compare(a, b)["rel_l2"]


# not runner.captured: fp8.json's errors hold one line per failed step (the tests match on the message)
def attempt(errors, key, fn):
    try:
        return fn()
    except Exception as e:
        errors[key] = f"{type(e).__name__}: {e}"
        log(f"FAILED {key}: {errors[key]}")
        traceback.print_exc()
        return None


# --- 1. per-linear micro-benchmark ---------------------------------------------------------------------------

WAN14B_SHAPES = [(32760, 5120, 5120), (32760, 5120, 13824), (32760, 13824, 5120)]  # (tokens M, in K, out N)
SMOKE_SHAPES = [(256, 128, 128), (256, 128, 256), (256, 256, 128)]


def micro(dev, smoke, errors, auto_mode, shapes=None):
    """One row per (M, K, N) of `shapes` (default: Wan 14B's, the smoke's tiny ones): bf16 F.linear, the FP8 linear
    per activation scaling, the quantizer and torch._scaled_mm alone, the loader's Linear module, ComfyUI's
    fp8_e4m3fn_fast Linear; each one's ms, TFLOP/s and error vs the fp32 product (bench/profile_family.py reuses it)."""
    import torch

    K = H.pack_module("kernels.fp8_linear")
    F = H.pack_module("accel.fp8")
    shapes = shapes or (SMOKE_SHAPES if smoke else WAN14B_SHAPES)
    reps = 3 if smoke else 10

    def row(m, k, n):
        """One shape's row; its tensors and closures go when it returns."""
        name = f"{m}x{k}->{n}"
        log(f"micro {name}")
        r = {"shape": name, "M": m, "K": k, "N": n, "flop": 2 * m * k * n}
        g = torch.Generator(device=dev).manual_seed(0)
        x = torch.randn(m, k, generator=g, device=dev, dtype=torch.float32)
        x[:: max(1, m // 64)] *= 8.0  # some larger tokens, as real activations have
        x = x.to(torch.bfloat16)
        w = (torch.randn(n, k, generator=g, device=dev) / k ** 0.5).to(torch.bfloat16)
        b = (torch.randn(n, generator=g, device=dev) * 0.02).to(torch.bfloat16)
        exact = torch.addmm(b.float(), x.float(), w.float().t())
        w8c, swc = K.quantize_weight(w, K.E4M3, per_channel=True)
        w8t, swt = K.quantize_weight(w, K.E4M3, per_channel=False)

        def add(key, fn, out=None, ref=None):
            t = attempt(errors, f"micro {name} {key}", lambda: timed(fn, dev, warmup=2 if smoke else 3, reps=reps))
            if t is not None:
                r[f"{key}_ms"] = round(t, 4)
                r[f"{key}_tflops"] = round(r["flop"] / t / 1e9, 1)
            if out is not None:
                o = attempt(errors, f"micro {name} {key} accuracy", out)
                if o is not None:
                    c = runner.compare(o, exact)
                    r[f"{key}_cos_vs_fp32"] = round(c["cosine"], 6)
                    r[f"{key}_rel_vs_fp32"] = round(c["rel_l2"], 5)
                    if ref is not None:
                        rr = attempt(errors, f"micro {name} {key} reference", ref)
                        if rr is not None:
                            r[f"{key}_rel_vs_reference"] = round(relerr(o, rr), 6)

        lin = lambda: torch.nn.functional.linear(x, w, b)  # noqa: E731
        add("bf16", lin, lin)
        for fa in (True, False):
            key = "fp8_rowwise" + ("_fastaccum" if fa else "")

            def f(fa=fa):
                return K.fp8_linear(x, w8c, swc, b, "scaled_mm_rowwise", use_fast_accum=fa)
            add(key, f, f, lambda: K.fp8_linear_ref(x, w8c, swc, b, act="row"))
        ft = lambda: K.fp8_linear(x, w8t, swt, b, "scaled_mm_tensorwise", use_fast_accum=True)  # noqa: E731
        add("fp8_tensorwise_fastaccum", ft, ft, lambda: K.fp8_linear_ref(x, w8t, swt, b, act="tensor"))
        add("quantize_rows", lambda: K.quantize_rows(x))
        x8, sx = K.quantize_rows(x)
        add("scaled_mm_rowwise_only", lambda: K.scaled_mm(x8, sx, w8c, swc, b, torch.bfloat16, True))

        def quant_check():
            q8, qs = K.quantize_rows(x)
            r8, rs = K.quantize_rows_ref(x)
            r["quantize_rows_scale_maxrel"] = float(((qs - rs).abs() / rs).max())
            r["quantize_rows_mismatch_frac"] = float((q8.float() != r8.float()).float().mean())
        attempt(errors, f"micro {name} quantizer check", quant_check)

        # our Linear module (what the model runs: cast_bias_weight + fp8_linear)
        def module_fn():
            rt = F.FP8Runtime(source="bench", mode=auto_mode if auto_mode != "dequant" else "scaled_mm_rowwise",
                              fast=True, allow_cpu=True)
            ops = F.make_operations(rt)
            mod = ops.Linear(k, n, bias=True, device=dev, dtype=torch.bfloat16)
            mod.weight = torch.nn.Parameter(w8c, requires_grad=False)
            mod.weight_scale = torch.nn.Parameter(swc, requires_grad=False)
            mod.bias = torch.nn.Parameter(b, requires_grad=False)
            return mod
        mod = attempt(errors, f"micro {name} module build", module_fn)
        if mod is not None:
            f = lambda: mod(x)  # noqa: E731
            add("accel_module", f, f)
        # ComfyUI's fp8_e4m3fn_fast Linear (fp8_ops: unit-scale cast of weights and activations)
        def comfy_fast():
            import comfy.ops

            c = comfy.ops.fp8_ops.Linear(k, n, bias=True, device=dev, dtype=torch.float8_e4m3fn)
            c.weight = torch.nn.Parameter(w.to(torch.float8_e4m3fn), requires_grad=False)
            c.bias = torch.nn.Parameter(b, requires_grad=False)
            return c
        cf = attempt(errors, f"micro {name} comfy fp8_ops build", comfy_fast)
        if cf is not None:
            f = lambda: cf(x.clone())  # noqa: E731  (fp8_linear clamps its input in place)
            add("comfy_fp8_fast", f, f)
        for key in ("fp8_rowwise_fastaccum", "fp8_rowwise", "fp8_tensorwise_fastaccum", "accel_module",
                    "comfy_fp8_fast"):
            if f"{key}_ms" in r and "bf16_ms" in r:
                r[f"{key}_speedup"] = round(r["bf16_ms"] / r[f"{key}_ms"], 3)
        log("  " + ", ".join(f"{k2}={v}" for k2, v in r.items() if k2.endswith(("_ms", "_speedup", "_cos_vs_fp32"))))
        return r

    rows = []
    for m, k, n in shapes:
        rows.append(row(m, k, n))
        gc.collect()
        if dev.type == "cuda":
            torch.cuda.empty_cache()
    return rows


# --- 2. whole model --------------------------------------------------------------------------------------------

def model_bytes(patcher):
    dm = patcher.model.diffusion_model
    return sum(t.numel() * t.element_size() for t in list(dm.parameters()) + list(dm.buffers()))


def whole_model(dev, smoke, repeats, errors):
    import comfy.model_management as mm
    import torch

    from accel_harness import models as M
    from accel_harness.forward import Forward

    F = H.pack_module("accel.fp8")
    size = "tiny" if smoke else "14B"
    if smoke:
        lat, ctx_len = (1, 16, 2, 8, 8), 16
    else:
        lat, ctx_len = (1, 16, 21, 60, 104), 512
    g = torch.Generator(device=dev).manual_seed(1)
    x = torch.randn(lat, generator=g, device=dev)
    ctx = torch.randn(1, ctx_len, 4096, generator=g, device=dev).to(torch.bfloat16)
    sigma = 0.9
    out = {"size": size, "latent": list(lat), "context": [1, ctx_len, 4096], "variants": []}

    def build_stock():
        return M.wan_model("t2v", size, seed=0, dtype=torch.bfloat16, device=dev), ""

    def build_comfy_fast():
        return M.wan_model("t2v", size, seed=0, dtype=torch.bfloat16, device=dev,
                           model_options={"dtype": torch.float8_e4m3fn, "fp8_optimizations": True}), ""

    def build_ours(fmt):
        def b():
            sd = M.wan_state_dict("t2v", size, seed=0, dtype=torch.bfloat16, device=dev)
            r = F.load_state_dict(sd, None, f"random Wan {size} bf16", F.FP8LoadOptions(weight_format=fmt))
            sd = None  # frees the memory before the next step (a `del` would leave names the closures above read)
            return r.patcher, r.report
        return b

    variants = [("bf16 (stock)", build_stock),
                ("fp8 per-tensor (accel)", build_ours("fp8_e4m3fn per-tensor scaled")),
                ("fp8 per-channel (accel)", build_ours("fp8_e4m3fn per-channel scaled")),
                ("fp8_e4m3fn_fast (ComfyUI)", build_comfy_fast)]
    ref_out = None
    for name, build in variants:
        v = {"name": name}
        out["variants"].append(v)
        log(f"model {name}: building")
        if dev.type == "cuda":
            torch.cuda.synchronize()
            base_alloc = torch.cuda.memory_allocated()
        t = time.time()
        built = attempt(errors, f"model {name} build", build)
        if built is None:
            continue
        patcher, report = built
        v["build_s"] = round(time.time() - t, 1)
        if report:
            v["report"] = report
            print(report, flush=True)
        v["weight_bytes"] = model_bytes(patcher)
        f = None
        try:
            with Forward(patcher) as f:
                if dev.type == "cuda":
                    torch.cuda.synchronize()
                    v["gpu_allocated_after_load_bytes"] = torch.cuda.memory_allocated() - base_alloc
                    torch.cuda.reset_peak_memory_stats()
                log(f"model {name}: loaded ({v['weight_bytes'] / 2**30:.2f} GiB weights); forward warm-up")
                y = f(x, sigma, ctx)
                med, ts, y = timed_all(lambda f=f: f(x, sigma, ctx), dev, warmup=0, reps=repeats)
                v["forward_ms"] = round(med, 2)
                v["forward_ms_all"] = [round(t2, 2) for t2 in ts]
                if dev.type == "cuda":
                    v["gpu_peak_forward_bytes"] = torch.cuda.max_memory_allocated() - base_alloc
                y = y.float()
                if ref_out is None:
                    ref_out = y.clone()
                c = runner.compare(y, ref_out)
                v["cosine_vs_bf16"] = round(c["cosine"], 6)
                v["rel_err_vs_bf16"] = round(c["rel_l2"], 5)
                rt = getattr(patcher.model.diffusion_model.blocks[0].self_attn.q, "accel_fp8_runtime", None)
                if rt is not None:
                    v["accel_calls"] = dict(rt.calls)
                    v["accel_compute"] = rt.mode if rt.fast else "dequant"
                log(f"model {name}: forward {v['forward_ms']} ms, cosine {v['cosine_vs_bf16']}")
        except Exception as e:
            errors[f"model {name} forward"] = f"{type(e).__name__}: {e}"
            traceback.print_exc()
        finally:
            f = patcher = built = None  # drop every reference before the next 14B model is built
            mm.unload_all_models()
            gc.collect()
            if dev.type == "cuda":
                torch.cuda.empty_cache()
            mm.soft_empty_cache()
    bf = out["variants"][0]
    for v in out["variants"][1:]:
        if "weight_bytes" in v and "weight_bytes" in bf:
            v["weight_ratio_vs_bf16"] = round(v["weight_bytes"] / bf["weight_bytes"], 4)
        if "forward_ms" in v and "forward_ms" in bf:
            v["forward_speedup_vs_bf16"] = round(bf["forward_ms"] / v["forward_ms"], 3)
    return out


# --- targets and report ---------------------------------------------------------------------------------------------

def targets(res):
    t = {}
    for v in (res.get("model") or {}).get("variants", []):
        if "(accel)" not in v["name"]:
            continue
        t[v["name"]] = {
            "weight_ratio<=0.55": v.get("weight_ratio_vs_bf16") is not None and v["weight_ratio_vs_bf16"] <= 0.55,
            "forward_speedup>=1.15": (v.get("forward_speedup_vs_bf16") is not None
                                      and v["forward_speedup_vs_bf16"] >= 1.15),
            "cosine>=0.995": v.get("cosine_vs_bf16") is not None and v["cosine_vs_bf16"] >= 0.995,
        }
    for r in res.get("micro") or []:
        t[f"linear {r['shape']}"] = {"speedup>=1.4 (rowwise fast-accum)":
                                      r.get("fp8_rowwise_fastaccum_speedup", 0) >= 1.4,
                                      "speedup>=1.4 (accel module)": r.get("accel_module_speedup", 0) >= 1.4}
    return t


def markdown(res):
    L = [f"# FP8 benchmark ({'SMOKE, CPU tiny' if res['smoke'] else res.get('gpu', '?')})", "",
         f"- command: `{res['command']}`",
         f"- torch {res['torch']}, triton {res.get('triton')}, python {res['python']}, sm {res.get('sm', '-')}",
         f"- fp8 compute auto: {res.get('fp8_compute_auto')} ({res.get('fp8_compute_reason')})",
         f"- wall time: {res.get('wall_s')} s", *runner.meta_markdown(res.get("run_meta")), ""]
    L += micro_markdown(res.get("micro") or [], "Linear layers (Wan 14B shapes, bf16 activations)")
    model = res.get("model")
    if model:
        L += ["", f"## Whole model: Wan {model['size']} T2V, latent {tuple(model['latent'])}, context "
                  f"{tuple(model['context'])}", "",
              "| variant | weights GiB | x bf16 | forward ms | speedup | cosine vs bf16 | rel err | build s | compute "
              "|",
              "|---|---|---|---|---|---|---|---|---|"]
        for v in model["variants"]:
            wb = v.get("weight_bytes")
            L.append(f"| {v['name']} | {wb / 2**30:.2f} | {v.get('weight_ratio_vs_bf16', '-')} | "
                     f"{v.get('forward_ms', '-')} | {v.get('forward_speedup_vs_bf16', '-')} | "
                     f"{v.get('cosine_vs_bf16', '-')} | {v.get('rel_err_vs_bf16', '-')} | {v.get('build_s', '-')} | "
                     f"{v.get('accel_compute', '-')} |" if wb else f"| {v['name']} | failed | | | | | | | |")
    if res.get("targets"):
        L += ["", "## Targets", ""]
        for k, d in res["targets"].items():
            L.append(f"- {k}: " + ", ".join(f"{n} {'PASS' if ok else 'FAIL'}" for n, ok in d.items()))
    if res.get("errors"):
        L += ["", "## Errors", ""] + [f"- {k}: {v}" for k, v in res["errors"].items()]
    return "\n".join(L) + "\n"


def micro_markdown(micro_rows, title):
    """The two tables of micro()'s rows (times and speed-ups; accuracy) under a "## title" heading, as lines."""
    L = []
    if micro_rows:
        L += [f"## {title}", "",
              "| shape | bf16 ms | fp8 rowwise ms (fast acc) | x | fp8 rowwise ms (fp32 acc) | x | fp8 tensorwise ms | "
              "x | accel module ms | x | ComfyUI fp8_fast ms | x | quantize ms | scaled_mm ms |",
              "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|"]
        for r in micro_rows:
            g = lambda k, r=r: r.get(k, "-")  # noqa: E731
            L.append(f"| {r['shape']} | {g('bf16_ms')} | {g('fp8_rowwise_fastaccum_ms')} | "
                     f"{g('fp8_rowwise_fastaccum_speedup')} | {g('fp8_rowwise_ms')} | {g('fp8_rowwise_speedup')} | "
                     f"{g('fp8_tensorwise_fastaccum_ms')} | {g('fp8_tensorwise_fastaccum_speedup')} | "
                     f"{g('accel_module_ms')} | {g('accel_module_speedup')} | {g('comfy_fp8_fast_ms')} | "
                     f"{g('comfy_fp8_fast_speedup')} | {g('quantize_rows_ms')} | {g('scaled_mm_rowwise_only_ms')} |")
        L += ["", "| shape | cos vs fp32: bf16 | fp8 rowwise (fast acc) | fp8 rowwise | fp8 tensorwise | ComfyUI "
                  "fp8_fast | GPU vs reference (rel) rowwise / tensorwise | quantizer: scale max rel, fp8 mismatch |",
              "|---|---|---|---|---|---|---|---|"]
        for r in micro_rows:
            g = lambda k, r=r: r.get(k, "-")  # noqa: E731
            L.append(f"| {r['shape']} | {g('bf16_cos_vs_fp32')} | {g('fp8_rowwise_fastaccum_cos_vs_fp32')} | "
                     f"{g('fp8_rowwise_cos_vs_fp32')} | {g('fp8_tensorwise_fastaccum_cos_vs_fp32')} | "
                     f"{g('comfy_fp8_fast_cos_vs_fp32')} | {g('fp8_rowwise_rel_vs_reference')} / "
                     f"{g('fp8_tensorwise_fastaccum_rel_vs_reference')} | {g('quantize_rows_scale_maxrel')}, "
                     f"{g('quantize_rows_mismatch_frac')} |")
    return L


if __name__ == "__main__":
    main()
