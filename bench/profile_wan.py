#!/usr/bin/env python3
"""Where the time of one Wan forward goes: CUDA kernel time by category, per variant, same process.

Builds a Wan model with the true block shapes of a size (default 14B: dim 5120, ffn 13824, 40 heads) but
fewer blocks (--layers), so a profile takes seconds; per-block figures carry over to the full model
(the blocks are identical). Variants (pick with --variants):
  stock        ComfyUI as loaded (its dtype choice, its attention)
  (a suffix "#n" repeats a variant, e.g. stock,compile,compile_nogelu,compile#2,compile_nogelu#2,stock#2)
  attn         Accel Attention 'auto'
  compile      Accel Compile, default mode, per-block scope
  compile_cdt  the same with inductor's coordinate_descent_tuning on (set globally: run it last)
  compile_nogelu  Accel Compile without the Linear->GELU(tanh) epilogue fusion (kernels/epilogue.py)
  l1           Accel Wan Level-1 with compile mode 'default'
  l1_mant      Accel Wan Level-1 with max-autotune-no-cudagraphs (its default on sm >= 80; ~1 min compile)
  fp8          FP8 per-channel weights (accel.fp8.load_state_dict), the loader's automatic compute dtype
  fp8_fp16     the same with fp16 activations forced (what the loader did before choosing bf16 on sm90)
  fp8_l1       fp8 + Level-1 (default compile mode)
For each: median forward ms (CUDA-synchronized), then one profiled forward: kernel time per category
(matmul, attention, triton-fused, other elementwise/copies) and the top kernels.

Run (GPU machine, repo root, after `source bench/gpu_env.sh`):
    python3 bench/profile_wan.py --out bench/results/local/profile --layers 8
CPU smoke: python bench/profile_wan.py --smoke --out /tmp/prof
"""
from __future__ import annotations

import gc
import sys
import time
import traceback
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "bench"))
import runner  # noqa: E402  bench/runner.py: shared CLI, metadata, result files, compare() (imports no torch)

log = runner.Log("profile_wan")


# kernel categories and the profiler summary: bench/runner.py (shared with profile_family and bench_matrix --profile)
CATEGORIES, category = runner.KERNEL_CATEGORIES, runner.kernel_category
kernel_times, kernel_summary = runner.kernel_times, runner.kernel_summary


def parse(argv=None):
    ap = runner.parser(__doc__, smoke="Wan tiny shapes, 2 blocks, 5 frames at 64x64, variants stock,attn,compile,fp8")
    ap.add_argument("--size", default="14B")
    ap.add_argument("--layers", type=int, default=8)
    ap.add_argument("--variants", default=None, help="comma list (default: stock,attn,compile,l1,fp8,fp8_l1)")
    ap.add_argument("--frames", type=int, default=81)
    ap.add_argument("--height", type=int, default=480)
    ap.add_argument("--width", type=int, default=832)
    ap.add_argument("--repeats", type=int, default=5)
    ap.add_argument("--top", type=int, default=14)
    a = ap.parse_args(argv)
    if a.smoke:
        a.size, a.layers, a.frames, a.height, a.width, a.repeats = "tiny", 2, 5, 64, 64, 2
        a.variants = a.variants or "stock,attn,compile,fp8"
    a.variants = a.variants or "stock,attn,compile,l1,fp8,fp8_l1"
    return a


def main(argv=None):
    a = parse(argv)
    import accel_harness as H

    H.bootstrap(cpu=a.smoke)
    H.load_pack()
    import torch

    from accel_harness import models as M
    from accel_harness.forward import Forward

    cuda = torch.cuda.is_available() and not a.smoke
    dev = torch.device("cuda" if cuda else "cpu")
    out_dir = Path(a.out)
    out_dir.mkdir(parents=True, exist_ok=True)
    res = {"command": runner.command(), "torch": torch.__version__, "run_meta": runner.metadata(dev),
           "gpu": torch.cuda.get_device_name(0) if cuda else "cpu", "size": a.size, "layers": a.layers,
           "latent": [1, 16, (a.frames - 1) // 4 + 1, a.height // 8, a.width // 8], "variants": {}, "checks": {}}

    def save():
        runner.write(out_dir, "profile_wan", res, markdown(res))

    def sync():
        if cuda:
            torch.cuda.synchronize()

    from accel_harness.timing import first_call, timed

    def time_ms(fn):  # median ms per call (CUDA events), the harness timer
        return timed(fn, dev, warmup=2, reps=20)[0]

    # --- a check the FP8 loader's dtype choice rests on -------------------------------------------
    if cuda:
        try:
            x8 = torch.randn(256, 512, device=dev).to(torch.float8_e4m3fn)
            w8 = torch.randn(384, 512, device=dev).to(torch.float8_e4m3fn)
            sx = torch.ones(256, 1, device=dev)
            sw = torch.ones(1, 384, device=dev)
            torch._scaled_mm(x8, w8.t(), scale_a=sx, scale_b=sw, out_dtype=torch.float16)
            res["checks"]["scaled_mm_rowwise_fp16_out"] = "works"
        except Exception as e:
            res["checks"]["scaled_mm_rowwise_fp16_out"] = f"{type(e).__name__}: {str(e)[:200]}"
        log(f"scaled_mm row-wise with fp16 output: {res['checks']['scaled_mm_rowwise_fp16_out']}")

    if cuda:  # the fp16<->bf16 conversion around a bf16-only attention kernel: torch vs kernels/convert
        try:
            conv = H.pack_module("kernels.convert")
            t16 = torch.randn(32760, 5120, device=dev, dtype=torch.float16)
            t16[0, :4] = torch.tensor([float("inf"), float("nan"), 6e-8, -0.0])

            ref16 = t16.to(torch.bfloat16)
            fast16 = conv.convert(t16, torch.bfloat16)
            exact = bool(((fast16.view(torch.int16) == ref16.view(torch.int16)) | fast16.isnan()).all())
            back = conv.convert(ref16, torch.float16)
            exact_back = bool(((back.view(torch.int16) == ref16.to(torch.float16).view(torch.int16))
                               | back.isnan()).all())
            res["checks"]["convert_32760x5120"] = {
                "torch_to_bf16_ms": round(time_ms(lambda: t16.to(torch.bfloat16)), 3),
                "triton_to_bf16_ms": round(time_ms(lambda: conv.convert(t16, torch.bfloat16)), 3),
                "torch_to_fp16_ms": round(time_ms(lambda: ref16.to(torch.float16)), 3),
                "triton_to_fp16_ms": round(time_ms(lambda: conv.convert(ref16, torch.float16)), 3),
                "bit_exact_vs_torch": exact and exact_back}
            del t16, ref16, fast16, back
        except Exception as e:
            res["checks"]["convert_32760x5120"] = f"{type(e).__name__}: {e}"
        log(f"conversion: {res['checks']['convert_32760x5120']}")

    if cuda:  # Linear -> GELU(tanh): addmm + separate GELU vs cuBLASLt's GELU epilogue (kernels/epilogue.py)
        try:
            import torch.nn.functional as Fn

            xa = torch.randn(32760, 5120, device=dev, dtype=torch.float16)
            wa = torch.randn(13824, 5120, device=dev, dtype=torch.float16) / 72
            ba = torch.randn(13824, device=dev, dtype=torch.float16) * 0.02
            sep = lambda: Fn.gelu(torch.addmm(ba, xa, wa.t()), approximate="tanh")  # noqa: E731
            fused = lambda: torch.ops.aten._addmm_activation(ba, xa, wa.t(), use_gelu=True)  # noqa: E731
            d = (sep().float() - fused().float()).abs().max().item()
            res["checks"]["gelu_epilogue_32760x5120x13824"] = {"addmm_then_gelu_ms": round(time_ms(sep), 3),
                                                               "addmm_gelu_epilogue_ms": round(time_ms(fused), 3),
                                                             "max_abs_diff": d}
            del xa, wa, ba
        except Exception as e:
            res["checks"]["gelu_epilogue_32760x5120x13824"] = f"{type(e).__name__}: {e}"
        log(f"gelu epilogue: {res['checks']['gelu_epilogue_32760x5120x13824']}")

    g = torch.Generator(device="cpu").manual_seed(0)
    x = torch.randn(*res["latent"], generator=g).to(dev)
    ctx = torch.randn(1, 512 if not a.smoke else 16, 4096, generator=g).to(dev, torch.bfloat16)

    A = H.pack_module("accel.attention.override")
    C = H.pack_module("accel.compile")
    L1 = H.pack_module("accel.wan_level1.preset")
    F = H.pack_module("accel.fp8")
    wdt = torch.bfloat16 if cuda else torch.float32
    cache = {}

    def stock():
        if "stock" not in cache:
            cache["stock"] = M.wan_model("t2v", a.size, device=dev, dtype=wdt, num_layers=a.layers)
        return cache["stock"]

    def fp8(compute_dtype=None):
        sd = M.wan_state_dict("t2v", a.size, seed=0, dtype=wdt, device=dev, num_layers=a.layers)
        options = F.FP8LoadOptions(weight_format="fp8_e4m3fn per-channel scaled", compute_dtype=compute_dtype)
        r = F.load_state_dict(sd, None, f"random Wan {a.size} x{a.layers}", options)
        return r.patcher

    def compile_with(inductor_config, gelu_epilogue=True):
        """Accel Compile (default mode) with extra inductor settings, from a fresh dynamo cache."""
        import torch._inductor.config as ic

        torch._dynamo.reset()
        H.pack_module("accel.compile.runners")._RUNNERS.clear()
        H.pack_module("accel.compile.config").GELU_EPILOGUE = gelu_epilogue
        for k, val in inductor_config.items():
            setattr(ic, k, val)
        return C.apply_compile(stock(), mode="default")[0]

    builders = {
        "stock": lambda: stock(),
        "attn": lambda: A.apply_attention(stock(), backend="auto")[0],
        "compile": lambda: compile_with({}),
        "compile_cdt": lambda: compile_with({"coordinate_descent_tuning": True}),
        "compile_nogelu": lambda: compile_with({}, gelu_epilogue=False),
        "l1": lambda: L1.apply_level1(stock(), compile_mode="default")[0],
        "l1_mant": lambda: L1.apply_level1(stock(), compile_mode="max-autotune-no-cudagraphs")[0],
        "fp8": lambda: fp8(),
        "fp8_fp16": lambda: fp8(torch.float16),
        "fp8_l1": lambda: L1.apply_level1(fp8(), compile_mode="default")[0],
    }
    ref = None
    for name in [v for v in a.variants.split(",") if v]:
        v = res["variants"].setdefault(name, {})
        try:
            t = time.time()
            patcher = builders[name.split("#")[0]]()  # "compile#2": the same variant again (drift check)
            v["build_s"] = round(time.time() - t, 1)
            with Forward(patcher) as f:
                first_s, o = first_call(lambda: f(x, 0.9, ctx), dev)
                v["first_call_s"] = round(first_s, 2)
                med, _, o = timed(lambda: f(x, 0.9, ctx), dev, warmup=1, reps=a.repeats)
                v["median_ms"] = round(med, 2)
                v["dtype"] = str(o.dtype)
                of = o.float().flatten()
                if ref is None:
                    ref = of.clone()
                v["cosine_vs_first"] = round(runner.compare(of, ref)["cosine"], 6)
                acts = [torch.profiler.ProfilerActivity.CPU] + ([torch.profiler.ProfilerActivity.CUDA] if cuda else [])
                with torch.profiler.profile(activities=acts) as prof:
                    f(x, 0.9, ctx)
                    sync()
            v.update(kernel_summary(kernel_times(prof, cuda), a.top))
            log(f"{name}: {v['median_ms']} ms/forward (first call {v['first_call_s']} s), kernels "
                f"{v['kernel_total_ms']} ms: {v['category_ms']}")
            if patcher is not cache.get("stock"):
                del patcher
        except Exception as e:
            v["error"] = f"{type(e).__name__}: {e}"
            v["traceback"] = traceback.format_exc()[-2000:]
            log(f"{name}: FAILED {v['error']}")
        gc.collect()
        if cuda:
            torch.cuda.empty_cache()
        save()
    save()
    print(markdown(res))
    return 0


def markdown(res) -> str:
    L = [f"# Wan forward profile ({res['gpu']})", "",
         f"- command: `{res['command']}`",
         f"- torch {res['torch']}; Wan {res['size']} block shapes, {res['layers']} blocks; "
         f"latent {res['latent']}, text context 512 tokens", f"- checks: {res['checks']}",
         *runner.meta_markdown(res.get("run_meta")), "",
         "| variant | ms / forward | per block ms | first call s | cosine vs first | kernel ms by category |",
         "| --- | ---: | ---: | ---: | ---: | --- |"]
    for name, v in res["variants"].items():
        if "error" in v:
            L.append(f"| {name} | error: {v['error'][:120]} | | | | |")
            continue
        per_block = v["median_ms"] / max(1, res["layers"])
        cats = ", ".join(f"{k} {t}" for k, t in v.get("category_ms", {}).items())
        L.append(f"| {name} | {v['median_ms']} | {per_block:.2f} | {v['first_call_s']} | {v['cosine_vs_first']} | "
                 f"{cats} |")
    for name, v in res["variants"].items():
        if "top" in v:
            L += ["", f"## {name}: top kernels (ms per forward)", "", "| kernel | ms | category |",
                  "| --- | ---: | --- |"]
            L += [f"| `{k}` | {t} | {c} |" for k, t, c in v["top"]]
    return "\n".join(L) + "\n"


if __name__ == "__main__":
    sys.exit(main())
