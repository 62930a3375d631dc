"""Quantized attention: speed and fidelity of FP8 / INT8 attention against exact FlashAttention-3, per call and
end to end through ComfyUI's sampler.

Usage (GPU machine, repo root, after `source bench/gpu_env.sh 033`):
    python3 bench/bench_quant_attention.py --out $OUT/quant_attention     (or: bash bench/run_gpu.sh quant_attention)
    python3 bench/bench_quant_attention.py --smoke --out /tmp/qa          # CPU: tiny shapes, checks the plumbing

1. Per call (B=1, head_dim 128, q/k/v random normal with a per-head K bias like real models' keys, in the
   attention dtype: bf16; `--dtype fp16` too): Wan 2.1 1.3B / 14B at 480p and 720p 81 frames, Flux 1024^2,
   Qwen-Image 1024^2. Variants: FA3 bf16 (the reference), cuDNN SDPA, flash_attn_3_fp8 with the fused Triton
   quantization and with plain-torch quantization, each with and without K smoothing, the FP8 kernel alone on
   pre-quantized inputs, the quantization alone (fused / torch / the torch reference compiled by inductor, the
   candidate for quantizing inside compiled blocks) and inductor's quantization + the FP8 kernel, comfy_kitchen_int8
   where this ComfyUI registered
   it, SageAttention (`sageattn`) where installed. Median of `--reps` calls (CUDA events) after 2 warm-ups.
   Error of each output vs FA3 bf16 on the full output: cosine, max |diff|, relative L2. Also: the fused and the
   torch quantization give the same e4m3 bytes (fraction equal) and the same scales.
2. End to end (a child process: bench/bench_matrix.py): Wan 2.1 1.3B with seeded random weights through ComfyUI's
   loader and KSampler, `--e2e-steps` steps (default 8: with the default hybrid schedule 2 exact + 4 FP8 + 2
   exact), chains stock / attention (exact auto) / attention_fp8 / attention_fp8_all / attention_ck_int8 /
   level1_fast; final-latent cosine and max |diff| vs stock, time per run.
Random weights cannot show visual quality: these are deviations from exact attention, not image quality.
Writes $OUT/quant_attention.json and .md after every measurement. Expected runtime on one H100: ~5 minutes.
"""
from __future__ import annotations

import json
import os
import platform
import subprocess
import sys
import traceback
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "bench"))
import runner  # noqa: E402  bench/runner.py: shared CLI, metadata, result files, compare()

import accel_harness as H  # noqa: E402
from accel_harness.timing import timed  # noqa: E402

# (name, query/key tokens, heads): true sequence lengths of one attention call (head_dim 128)
SHAPES = [
    ("wan1.3B_480p_81f", 32760, 12),
    ("wan14B_480p_81f", 32760, 40),
    ("wan1.3B_720p_81f", 75600, 12),
    ("wan14B_720p_81f", 75600, 40),
    ("flux_1024px", 4608, 24),  # 4096 image + 512 text tokens
    ("qwen_image_1024px", 4352, 24),  # 4096 image + 256 text tokens (typical prompt)
]
K_BIAS = 4.0  # per-head K offset (std of the per-channel bias), as in real models' keys
E2E_CHAINS = "stock,attention,attention_fp8,attention_fp8_all,attention_ck_int8,level1_fast"

log = runner.Log("bench_quant_attention")


def save(out: Path, res: dict):
    runner.write(out, "quant_attention", res, markdown(res))


def _f(x, fmt):
    return format(x, fmt) if isinstance(x, (int, float)) else ""


def markdown(res: dict) -> str:
    lines = [f"# Quantized attention - {res.get('gpu')}", "",
             f"- ComfyUI {res.get('comfyui')}, torch {res.get('torch')}, CUDA {res.get('cuda')}, triton "
             f"{res.get('triton')}",
             f"- libraries: {res.get('libraries')}; comfy_kitchen_int8 registered: {res.get('ck_int8_registered')}",
             f"- command: `{res.get('command')}`", f"- wall time: {res.get('elapsed_s')} s",
             *runner.meta_markdown(res.get("run_meta")),
             "- random data with a per-head K bias (per call) and random weights (end to end): deviations from exact "
             "attention, not visual quality", ""]
    calls = res.get("calls", [])
    if calls:
        lines += [f"## One attention call (B=1, head_dim 128), error vs {res.get('reference', 'FA3 bf16')}", "",
                  "| shape | dtype | variant | ms | speed-up vs FA3 bf16 | cosine | max abs diff | rel. L2 |",
                  "| --- | --- | --- | ---: | ---: | ---: | ---: | ---: |"]
        for r in calls:
            if "error" in r:
                lines.append(f"| {r['shape']} | {r.get('dtype', '')} | {r['variant']} | failed: {r['error'][:90]} | | "
                             "| | |")
                continue
            lines.append(f"| {r['shape']} | {r['dtype']} | {r['variant']} | {_f(r.get('ms'), '.3f')} | "
                         f"{_f(r.get('speedup'), '.3f')} | {_f(r.get('cosine'), '.6f')} | "
                         f"{_f(r.get('max_abs_diff'), '.4f')} | {_f(r.get('rel_l2'), '.2e')} |")
        lines.append("")
    q = res.get("quantizer_match", [])
    if q:
        lines += ["## Fused vs torch quantization (same inputs)", "",
                  "On the GPU every e4m3 byte must be equal (1.000000). Under the Triton interpreter (CPU smoke) the "
                  "interpreter's own float->e4m3 cast rounds wrongly near powers of two, so fewer are equal there "
                  "(tests/attention/test_quant_attention.py compares the float32 pre-cast values bit for bit instead).",
                  "",
                  "| shape | dtype | e4m3 bytes equal | max scale rel. diff | K mean max abs diff |",
                  "| --- | --- | ---: | ---: | ---: |"]
        for r in q:
            lines.append(f"| {r['shape']} | {r['dtype']} | {_f(r.get('bytes_equal'), '.6f')} | "
                         f"{_f(r.get('scale_rel_diff'), '.2e')} | {_f(r.get('mean_abs_diff'), '.2e')} |")
        lines.append("")
    e2e = res.get("e2e")
    if e2e:
        lines += [f"## End to end: {e2e.get('what')}", "",
                  "| chain | what | time (s) | speed-up | final-latent cosine vs stock | max abs diff |",
                  "| --- | --- | ---: | ---: | ---: | ---: |"]
        for n, r in (e2e.get("chains") or {}).items():
            t = sorted(r.get("times_s") or ([r["first_run_s"]] if r.get("first_run_s") is not None else []))
            lines.append(f"| {n} | {r.get('what', '')} | {t[len(t) // 2] if t else ''} | {r.get('speedup', '')} | "
                         f"{r.get('cosine', '')} | {r.get('max_abs_diff', '')} |")
        for e in e2e.get("errors") or []:
            lines.append(f"\n- {e.get('chain')}: {str(e.get('error'))[:300]}")
        lines.append("")
    if res.get("summary"):
        lines += ["## Summary", ""] + [f"- {s}" for s in res["summary"]] + [""]
    if res.get("errors"):
        lines += ["## Errors", ""] + [f"- {e[:500]}" for e in res["errors"]]
    return "\n".join(lines) + "\n"


def make_qkv(torch, L, heads, dtype, device, seed=0):
    g = torch.Generator(device=device).manual_seed(seed)
    shape = (1, L, heads, 128)
    q = torch.randn(shape, generator=g, device=device, dtype=torch.float32)
    k = torch.randn(shape, generator=g, device=device, dtype=torch.float32)
    k += K_BIAS * torch.randn((1, 1, heads, 128), generator=g, device=device)
    v = torch.randn(shape, generator=g, device=device, dtype=torch.float32)
    return q.to(dtype), k.to(dtype), v.to(dtype)


def error_vs(torch, out, ref):
    c = runner.compare(out, ref)
    return {"cosine": c["cosine"], "max_abs_diff": c["max_abs_diff"], "rel_l2": c["rel_l2"]}


def variants(torch, device, smoke):
    """{name: fn(q, k, v) -> out in (B, L, H, D)} usable here, and {name: why not}."""
    fp8 = H.pack_module("kernels.attention.fp8_attention")
    base = H.pack_module("kernels.attention.base")
    reg = H.pack_module("kernels.attention.registry")
    out, missing = {}, {}
    fa3 = None
    for modname in ("flash_attn_interface", "fa3_fwd_interface"):
        try:
            fa3 = __import__(modname).flash_attn_func
            break
        except Exception as e:  # noqa: BLE001
            missing[f"fa3 ({modname})"] = f"{type(e).__name__}: {e}"
    if smoke or fa3 is None:
        # CPU smoke: exact SDPA as the reference, the FP8 backend emulated (quantize -> dequantize -> exact)
        out["exact (sdpa)"] = lambda q, k, v: torch.nn.functional.scaled_dot_product_attention(
            q.transpose(1, 2), k.transpose(1, 2), v.transpose(1, 2)).transpose(1, 2)
        out["fp8 emulated, K smoothed"] = lambda q, k, v: fp8.emulate(q, k, v, "blhd")
        out["fp8 emulated, no smoothing"] = lambda q, k, v: fp8.emulate(q, k, v, "blhd", smooth_k=False)
        out["quantize only: torch"] = lambda q, k, v: fp8.quantize_reference(q, k, v)
        if os.environ.get("TRITON_INTERPRET") == "1" or device.type == "cuda":
            out["quantize only: fused"] = lambda q, k, v: fp8.quantize_fused(q, k, v)
        missing["fa3 fp8"] = "not on this machine: the FP8 backend is emulated"
        return out, missing

    def fa3_bf16(q, k, v):
        r = fa3(q if q.dtype == torch.bfloat16 else q.to(torch.bfloat16), k.to(torch.bfloat16), v.to(torch.bfloat16),
                causal=False)
        r = r[0] if isinstance(r, (tuple, list)) else r
        return r.to(q.dtype)

    out["fa3 bf16 (reference)"] = fa3_bf16

    def cudnn(q, k, v):
        from torch.nn.attention import SDPBackend, sdpa_kernel

        with sdpa_kernel(SDPBackend.CUDNN_ATTENTION):
            return torch.nn.functional.scaled_dot_product_attention(
                q.transpose(1, 2), k.transpose(1, 2), v.transpose(1, 2)).transpose(1, 2)

    out["sdpa cudnn"] = cudnn
    for method in ("fused", "torch"):
        for smooth in (True, False):
            out[f"fp8 {method} quantize, {'K smoothed' if smooth else 'no smoothing'}"] = \
                (lambda impl: lambda q, k, v: impl(q, k, v, None, None, "blhd"))(fp8.make_impl(fa3, smooth, method))
    out["quantize only: fused"] = lambda q, k, v: fp8.quantize_fused(q, k, v)
    out["quantize only: torch"] = lambda q, k, v: fp8.quantize_reference(q, k, v)
    # the fused quantization's launch configurations (chunk tokens / tokens per step / warps), with the FP8 kernel
    kern = H.pack_module("kernels.attention.fp8_attention_triton")
    for cfg in kern.CONFIGS:
        def fp8_cfg(q, k, v, cfg=cfg):
            qq = fp8.quantize_fused(q, k, v, config=cfg)
            r = fa3(qq.q, qq.k, qq.v, causal=False, q_descale=qq.q_descale, k_descale=qq.k_descale,
                    v_descale=qq.v_descale)
            r = r[0] if isinstance(r, (tuple, list)) else r
            return r.to(q.dtype)
        out["fp8 fused quantize {}/{}/w{}, K smoothed".format(*cfg)] = fp8_cfg
        out["quantize only: fused {}/{}/w{}".format(*cfg)] = (
            lambda q, k, v, cfg=cfg: fp8.quantize_fused(q, k, v, config=cfg))
    # the same reference quantization compiled by inductor (what a compiled block could run instead of the opaque
    # Triton quantizer, fused with the ops that produce q/k/v): its cost alone and with the FP8 kernel
    qind = torch.compile(lambda q, k, v: tuple(fp8.quantize_reference(q, k, v)))
    out["quantize only: inductor"] = qind

    def fp8_inductor(q, k, v):
        q8, k8, v8, qd, kd, vd, _ = qind(q, k, v)
        r = fa3(q8, k8, v8, causal=False, q_descale=qd, k_descale=kd, v_descale=vd)
        r = r[0] if isinstance(r, (tuple, list)) else r
        return r.to(q.dtype)

    out["fp8 inductor quantize, K smoothed"] = fp8_inductor
    ck = reg.comfy_function("comfy_kitchen_int8")
    if ck is not None:
        out["comfy_kitchen_int8"] = lambda q, k, v: ck(
            q.transpose(1, 2), k.transpose(1, 2), v.transpose(1, 2), q.shape[2], None, skip_reshape=True,
            skip_output_reshape=True, _inside_attn_wrapper=True).transpose(1, 2)
    else:
        missing["comfy_kitchen_int8"] = "this ComfyUI did not register it"
    try:
        import sageattention

        out["sageattn (SageAttention)"] = lambda q, k, v: sageattention.sageattn(q, k, v, tensor_layout="NHD",
                                                                                  is_causal=False)
    except Exception as e:  # noqa: BLE001
        missing["sageattention"] = f"{type(e).__name__}: {e}"
    _ = base
    return out, missing


def per_call(res, out_dir, device, shapes, dtypes, reps, smoke):
    import torch

    fp8 = H.pack_module("kernels.attention.fp8_attention")
    fns, missing = variants(torch, device, smoke)
    res["missing"] = missing
    log(f"variants: {', '.join(fns)}; not here: {missing}")
    for shape, L, heads in shapes:
        for dtype in dtypes:
            dt = getattr(torch, dtype)
            try:
                q, k, v = make_qkv(torch, L, heads, dt, device)
            except Exception as e:  # noqa: BLE001
                res["calls"].append({"shape": shape, "dtype": dtype, "variant": "-",
                                     "error": f"{type(e).__name__}: {e}"})
                continue
            ref, ref_ms = None, None
            # the FP8 kernel alone on pre-quantized inputs (what the fusion can at best reach)
            kernel_only = None
            if "fa3 bf16 (reference)" in fns:
                fa3 = None
                for modname in ("flash_attn_interface", "fa3_fwd_interface"):
                    try:
                        fa3 = __import__(modname).flash_attn_func
                        break
                    except Exception:  # noqa: BLE001
                        pass
                if fa3 is not None:
                    qq = fp8.quantize(q, k, v)
                    kernel_only = lambda fa3=fa3, qq=qq: fa3(  # noqa: E731
                        qq.q, qq.k, qq.v, causal=False, q_descale=qq.q_descale, k_descale=qq.k_descale,
                        v_descale=qq.v_descale)
            items = list(fns.items()) + ([("fp8 kernel only (pre-quantized)", None)] if kernel_only else [])
            for name, fn in items:
                row = {"shape": shape, "tokens": L, "heads": heads, "dtype": dtype, "variant": name}
                try:
                    call = kernel_only if fn is None else (lambda fn=fn, q=q, k=k, v=v: fn(q, k, v))
                    with torch.inference_mode():
                        o = call()
                        if isinstance(o, (tuple, list)) and not name.startswith("quantize"):
                            o = o[0]
                        ms, all_ms, _ = timed(call, device, 2, reps)
                    row.update(ms=ms, all_ms=[round(x, 3) for x in all_ms])
                    if name.startswith("quantize"):
                        pass
                    elif ref is None:  # the first variant is the exact reference
                        ref, ref_ms = o.float(), ms
                        res["reference"] = name
                        row.update(cosine=1.0, max_abs_diff=0.0, rel_l2=0.0, speedup=1.0)
                    else:
                        row.update(error_vs(torch, o, ref))
                        row["speedup"] = ref_ms / ms if ms else None
                    del o
                    log(f"{shape:20s} {dtype:9s} {name:40s} {ms:9.3f} ms " +
                        (f"cos {row['cosine']:.6f} rel {row['rel_l2']:.2e}" if "cosine" in row else ""))
                except Exception as e:  # noqa: BLE001
                    row["error"] = f"{type(e).__name__}: {e}".splitlines()[0][:300]
                    res["errors"].append(f"{shape} {dtype} {name}: {traceback.format_exc(limit=3)}")
                    log(f"{shape} {dtype} {name} FAILED: {row['error']}")
                res["calls"].append(row)
                save(out_dir, res)
            try:
                res["quantizer_match"].append(quantizer_match(torch, fp8, shape, dtype, q, k, v, device))
            except Exception as e:  # noqa: BLE001
                res["errors"].append(f"quantizer match {shape} {dtype}: {type(e).__name__}: {e}")
            del q, k, v, ref
            if device.type == "cuda":
                torch.cuda.empty_cache()
            save(out_dir, res)


def quantizer_match(torch, fp8, shape, dtype, q, k, v, device):
    if not (device.type == "cuda" or os.environ.get("TRITON_INTERPRET") == "1"):
        return {"shape": shape, "dtype": dtype, "note": "fused quantization needs CUDA or the Triton interpreter"}
    a = fp8.quantize_reference(q, k, v)
    b = fp8.quantize_fused(q, k, v)
    eq = sum(int((x.view(torch.uint8) == y.view(torch.uint8)).sum()) for x, y in ((a.q, b.q), (a.k, b.k), (a.v, b.v)))
    n = a.q.numel() + a.k.numel() + a.v.numel()
    sd = max(float(((x - y).abs() / x).max()) for x, y in ((a.q_descale, b.q_descale), (a.k_descale, b.k_descale),
                                                            (a.v_descale, b.v_descale)))
    return {"shape": shape, "dtype": dtype, "bytes_equal": eq / n, "scale_rel_diff": sd,
            "mean_abs_diff": float((a.k_mean - b.k_mean).abs().max())}


def end_to_end(res, out_dir, a):
    """bench_matrix.py in a child process (its own ComfyUI start, clean GPU memory)."""
    sub = out_dir / "e2e"
    cmd = [sys.executable, str(REPO / "bench" / "bench_matrix.py"), "--out", str(sub), "--chains", a.e2e_chains,
           "--steps", str(a.e2e_steps), "--rounds", str(a.e2e_rounds)]
    if a.smoke:
        cmd.append("--smoke")
    else:
        cmd += ["--size", a.e2e_size, "--frames", str(a.e2e_frames)]
    log("end to end: " + " ".join(cmd))
    r = subprocess.run(cmd, capture_output=True, text=True, timeout=a.e2e_timeout)
    (out_dir / "e2e.log").write_text(r.stdout[-200000:] + "\n--- stderr ---\n" + r.stderr[-200000:])
    mj = sub / "matrix.json"
    if not mj.exists():
        res["errors"].append(f"end to end: bench_matrix exited {r.returncode} without results: {r.stderr[-1500:]}")
        return
    m = json.loads(mj.read_text())
    meta = m.get("meta", {})
    res["e2e"] = {"what": (f"Wan 2.1 T2V {meta.get('size')} random weights, {meta.get('frames')}f "
                           f"{meta.get('height')}x{meta.get('width')}, {meta.get('steps')} steps cfg "
                           f"{meta.get('cfg')}, ComfyUI {meta.get('comfyui')} (bench/bench_matrix.py, "
                           f"{sub / 'matrix.md'})"),
                  "rc": r.returncode, "chains": m.get("chains", {}), "errors": m.get("errors", [])}
    for c in res["e2e"]["chains"].values():
        if isinstance(c.get("report"), str):
            c["report"] = c["report"][:3000]


def summarize(res):
    out = []
    for shape in ("wan14B_480p_81f", "wan1.3B_480p_81f"):
        rows = {r["variant"]: r for r in res["calls"] if r.get("shape") == shape and r.get("dtype") == "bfloat16"
                and "error" not in r}
        s = rows.get("fp8 fused quantize, K smoothed")
        if s and s.get("speedup"):
            out.append(f"{shape}: flash_attn_3_fp8 (fused, K smoothed) {s['ms']:.2f} ms, {s['speedup']:.3f}x FA3 bf16, "
                       f"cosine {s['cosine']:.6f} (targets: >= 1.3x, >= 0.998)")
    for n, c in ((res.get("e2e") or {}).get("chains") or {}).items():
        if n != "stock" and "cosine" in c:
            out.append(f"end to end {n}: final-latent cosine vs stock {c['cosine']}, speed-up {c.get('speedup', '')}")
    out.append("fill accel/common/defaults.py QUANT_ATTENTION_DEVIATION from these rows (per_call_cosine_wan14b_480p, "
               "final_latent_cosine_wan1.3b, gpu, result)")
    res["summary"] = out


def main():
    ap = runner.parser(__doc__, smoke="tiny shapes (300 tokens x 2 heads) and a tiny Wan, 2 steps")
    ap.add_argument("--shapes", default=",".join(s[0] for s in SHAPES))
    ap.add_argument("--dtype", default="bfloat16", help="comma list: bfloat16,float16")
    ap.add_argument("--reps", type=int, default=5)
    ap.add_argument("--skip-calls", action="store_true")
    ap.add_argument("--skip-e2e", action="store_true")
    ap.add_argument("--e2e-chains", default=E2E_CHAINS)
    ap.add_argument("--e2e-size", default="1.3B")
    ap.add_argument("--e2e-frames", type=int, default=81)
    ap.add_argument("--e2e-steps", type=int, default=8)
    ap.add_argument("--e2e-rounds", type=int, default=1)
    ap.add_argument("--e2e-timeout", type=int, default=420)
    a = ap.parse_args()
    out = Path(a.out)
    H.bootstrap(cpu=True if a.smoke else None)
    H.load_pack()
    import comfy.model_management as mm
    import torch

    device = mm.get_torch_device()
    prof = H.pack_module("accel.common.hardware").profile()
    reg = H.pack_module("kernels.attention.registry")
    comfyui = H.comfy_version()
    res = {
        "name": "quant_attention", "gpu": torch.cuda.get_device_name(device) if device.type == "cuda" else
        (platform.processor() or "cpu"), "comfyui": comfyui, "torch": torch.__version__, "cuda": torch.version.cuda,
        "triton": prof.triton_version, "libraries": {k: i.version for k, i in prof.libraries.items() if i.available},
        "ck_int8_registered": reg.comfy_function("comfy_kitchen_int8") is not None,
        "fp8_backend_available": reg.available("flash_attn_3_fp8", prof),
        "command": runner.command(), "smoke": a.smoke, "k_bias": K_BIAS,
        "calls": [], "quantizer_match": [], "errors": [], "run_meta": runner.metadata(device),
    }
    save(out, res)
    if a.smoke:
        shapes = [("smoke_300x2", 300, 2)]
        dtypes = ["bfloat16"]
        a.e2e_chains = "stock,attention_fp8"  # no compile on the CPU: the FP8 chain must fail cleanly here
        a.e2e_steps = 2
    else:
        want = [s for s in a.shapes.split(",") if s]
        shapes = [s for s in SHAPES if s[0] in want]
        dtypes = [d for d in a.dtype.split(",") if d]
    if not a.skip_calls:
        try:
            per_call(res, out, device, shapes, dtypes, 2 if a.smoke else a.reps, a.smoke)
        except Exception:  # noqa: BLE001
            res["errors"].append("per call: " + traceback.format_exc(limit=5))
        save(out, res)
    if not a.skip_e2e:
        try:
            end_to_end(res, out, a)
        except Exception:  # noqa: BLE001
            res["errors"].append("end to end: " + traceback.format_exc(limit=5))
    summarize(res)
    res["elapsed_s"] = round(log.elapsed(), 1)
    save(out, res)
    log(f"done in {res['elapsed_s']} s -> {out / 'quant_attention.json'}")
    for line in res["summary"]:
        log(line)


if __name__ == "__main__":
    main()
