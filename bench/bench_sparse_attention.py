#!/usr/bin/env python3
"""Block-sparse attention per call (issue #32): dense FA3 and SDPA vs the radial pattern on each sparse kernel.

    python3 bench/bench_sparse_attention.py --out bench/results/h100/sparse_attention   # GPU: Wan 14B, HunyuanVideo
    python3 bench/bench_sparse_attention.py --smoke --out /tmp/sa                        # CPU: tiny shape, plumbing

Per shape (B=1, the model's heads, head_dim 128, bf16, q/k/v stored (B, L, H, D) as ComfyUI passes them; Wan 14B
480p/720p 81 frames, HunyuanVideo 720p 129 frames with its text in the same sequence):
- dense baselines: FA3 (`fa3_fwd_interface.flash_attn_func`, when importable) and torch SDPA (its own choice);
- for each radial decay factor (2-3 sparsities): the measured sparsity, then each sparse backend of
  kernels/attention/sparse (flex_attention compiled, FA4 block-sparse when importable): time per call (CUDA
  events, median of --reps after warm-up; the first call, compile included, is reported apart) and the output's
  cosine / rel. L2 / max abs diff vs the dense masked float32 reference (exact for the mask), plus its rel. L2
  vs dense exact attention (what the mask drops on random data, where attention is nearly uniform: not a
  quality measure);
- comfy-kitchen's sol_attn (a different, data-dependent method; ComfyUI's BlockSparseAttention uses it), when
  importable: time and deviation vs dense exact only.
Writes sparse_attention.json and sparse_attention.md (GPU, torch, CUDA, library versions) after every row.
Standalone on purpose: needs torch (and optionally fa3-fwd, flash-attn-4, comfy-kitchen), not ComfyUI.
"""
from __future__ import annotations

import importlib
import sys
import time
import traceback
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))  # `kernels` as a top-level package: it imports nothing of ComfyUI
sys.path.insert(0, str(REPO / "bench"))

import runner  # noqa: E402  bench/runner.py: shared CLI, metadata, result files, compare()
import torch  # noqa: E402

from kernels.attention.autotune import time_call  # noqa: E402
from kernels.attention.sparse import ops as SO  # noqa: E402
from kernels.attention.sparse import pattern as SP  # noqa: E402

SHAPES = {  # name: (grid, heads, model_type, text tokens in the sequence, text before the video)
    "wan14B_480p_81f": (SP.WAN_480P_81F, 40, "wan", 0, False),
    "wan14B_720p_81f": (SP.WAN_720P_81F, 40, "wan", 0, False),
    # HunyuanVideo T2V 13B, 1280x720 129 frames: latent 33 x 90 x 160, patch 1x2x2 -> 33 x 45 x 80; 24 heads; its joint
    # attention holds the text too (256 tokens here; ComfyUI 0.33 puts them first)
    "hunyuan_720p_129f": (SP.VideoGrid(33, 45, 80), 24, "hunyuan", 256, True),
}
SMOKE_SHAPES = {"smoke_5x15x26": (SP.VideoGrid(5, 15, 26), 2, "wan", 0, False),
                "smoke_hunyuan_5x15x26_text40": (SP.VideoGrid(5, 15, 26), 2, "hunyuan", 40, True)}
DECAYS = (0.2, 0.5, 1.0)


def log(msg):
    print(f"[bench_sparse_attention] {msg}", flush=True)


def versions() -> dict:
    """The sparse kernels' libraries (runner.metadata names torch, CUDA, triton, fa3 and the rest)."""
    v = {}
    for mod, name in (("flash_attn.cute", "flash-attn-4"), ("comfy_kitchen", "comfy-kitchen")):
        try:
            m = importlib.import_module(mod)
            # the distribution's version first (flash-attn-4's module says 0.0.0)
            v[name] = runner.library_version(name) or getattr(m, "__version__", "importable")
        except Exception as e:  # noqa: BLE001
            v[name] = f"not importable: {type(e).__name__}: {str(e)[:120]}"
    return v


def timer(fn, device, warmup, reps):
    """(first call s, median ms of reps after warmup), with the pack's one timer (kernels.attention.autotune.time_call:
    CUDA events on a GPU) imported directly: this kernel-only benchmark does not start ComfyUI, which the harness's
    accel_harness.timing needs to load the pack."""
    t0 = time.perf_counter()
    fn()
    if device.type == "cuda":
        torch.cuda.synchronize()
    return time.perf_counter() - t0, time_call(fn, device, warmup=warmup, reps=reps)


def error_vs(out, ref) -> dict:
    return runner.compare(out, ref)


def fa3_dense():
    try:
        from fa3_fwd_interface import flash_attn_func
    except Exception as e:  # noqa: BLE001
        return None, f"fa3-fwd not importable: {type(e).__name__}: {e}"

    def call(q, k, v):  # (B, L, H, D)
        out = flash_attn_func(q, k, v)
        return out[0] if isinstance(out, tuple) else out
    return call, None


def sol_attn():
    try:
        import comfy_kitchen as ck
    except Exception as e:  # noqa: BLE001
        return None, f"comfy-kitchen not importable: {type(e).__name__}: {e}"
    if not hasattr(ck, "sol_attn") or not ck.sol_attn_is_available():
        return None, "comfy-kitchen has no usable sol_attn here (needs its CUDA backend, sm80+)"
    return (lambda q, k, v: ck.sol_attn(q, k, v)), None


def markdown(res: dict) -> str:
    v = res["versions"]
    lines = [f"# Block-sparse attention per call - {res['device_name']}", "",
             *runner.meta_markdown(res.get("run_meta")),
             f"- flash-attn-4 {v.get('flash-attn-4')}, comfy-kitchen {v.get('comfy-kitchen')}",
             f"- reps {res['reps']} (median, CUDA events), first call reported apart",
             "- random bf16 q/k/v: errors vs the dense masked fp32 reference check the kernel, not visual quality; "
             "rel. L2 vs dense shows what the mask drops on near-uniform random attention", "",
             "| shape | variant | decay | sparsity | ms | speed-up vs FA3 dense | first call s | cosine vs masked ref "
             "| rel. L2 vs masked ref | max abs diff | rel. L2 vs dense |",
             "| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |"]
    f = lambda x, fmt: format(x, fmt) if isinstance(x, (int, float)) else ""  # noqa: E731
    for r in res["rows"]:
        if "error" in r:
            lines.append(f"| {r['shape']} | {r['variant']} | {f(r.get('decay'), 'g')} | | failed: "
                         f"{r['error'][:100]} | | | | | | |")
            continue
        e = r.get("vs_masked_reference") or {}
        lines.append(f"| {r['shape']} | {r['variant']} | {f(r.get('decay'), 'g')} | {f(r.get('sparsity'), '.4f')} | "
                     f"{f(r.get('ms'), '.3f')} | {f(r.get('speedup_vs_fa3'), '.3f')} | "
                     f"{f(r.get('first_call_s'), '.2f')} | {f(e.get('cosine'), '.6f')} | {f(e.get('rel_l2'), '.2e')} | "
                     f"{f(e.get('max_abs_diff'), '.4f')} | {f((r.get('vs_dense') or {}).get('rel_l2'), '.3f')} |")
    if res.get("skipped"):
        lines += ["", "## Not run", ""] + [f"- {k}: {w}" for k, w in res["skipped"].items()]
    return "\n".join(lines) + "\n"


def main(argv=None):
    ap = runner.parser(__doc__, smoke="one tiny shape on the CPU", full_doc=True,
                       out_help="folder for sparse_attention.json / .md")
    ap.add_argument("--shapes", default=",".join(SHAPES), help=f"comma list of {list(SHAPES)}")
    ap.add_argument("--decays", default=",".join(map(str, DECAYS)), help="radial decay factors (sparsity levels)")
    ap.add_argument("--backends", default="flex,fa4", help="sparse backends of kernels/attention/sparse")
    ap.add_argument("--reps", type=int, default=10)
    ap.add_argument("--warmup", type=int, default=3)
    a = ap.parse_args(argv)
    out = Path(a.out)
    out.mkdir(parents=True, exist_ok=True)
    device = torch.device("cuda" if torch.cuda.is_available() and not a.smoke else "cpu")
    dtype = torch.bfloat16
    shapes = SMOKE_SHAPES if a.smoke else {n: SHAPES[n] for n in a.shapes.split(",") if n}
    reps, warmup = (min(a.reps, 2), 0) if a.smoke else (a.reps, a.warmup)
    meta = runner.metadata(device)
    res = {"device_name": meta["gpu"], "run_meta": meta, "versions": versions(), "reps": reps, "rows": [],
           "skipped": {}}

    def save():
        runner.write(out, "sparse_attention", res, markdown(res))

    fa3, why = fa3_dense() if device.type == "cuda" else (None, "CPU run")
    if fa3 is None:
        res["skipped"]["fa3 dense"] = why
    sol, why = sol_attn() if device.type == "cuda" else (None, "CPU run")
    if sol is None:
        res["skipped"]["comfy-kitchen sol_attn"] = why
    status = SO.backend_status(device)
    backends = [b for b in a.backends.split(",") if b]
    for b in backends:
        if status.get(b):
            res["skipped"][b] = status[b]

    def one(shape, grid, heads, model_type, text, text_first):
        """One shape's rows."""
        L = grid.tokens + text
        g = torch.Generator(device=device).manual_seed(0)
        q, k, v = (torch.randn(1, L, heads, 128, generator=g, device=device, dtype=dtype) for _ in range(3))
        qh, kh, vh = (t.transpose(1, 2) for t in (q, k, v))  # (B, H, L, D) views
        base = {"shape": shape, "tokens": L, "heads": heads, "text_tokens": text, "model_type": model_type}
        dense_ref = torch.nn.functional.scaled_dot_product_attention(qh, kh, vh)
        fa3_ms = None
        dense_variants = [("sdpa dense", lambda: torch.nn.functional.scaled_dot_product_attention(qh, kh, vh))]
        if fa3 is not None:
            dense_variants.insert(0, ("fa3 dense", lambda: fa3(q, k, v)))
        for name, fn in dense_variants:
            try:
                first, ms = timer(fn, device, warmup, reps)
                o = fn()
                o = o.transpose(1, 2) if name.startswith("fa3") else o
                row = dict(base, variant=name, sparsity=0.0, ms=ms, first_call_s=first, vs_dense=error_vs(o, dense_ref))
                if name.startswith("fa3"):
                    fa3_ms = ms
                res["rows"].append(row)
            except Exception as e:  # noqa: BLE001
                res["rows"].append(dict(base, variant=name, error=f"{type(e).__name__}: {e}",
                                        traceback=traceback.format_exc()))
            save()
        if sol is not None:
            try:
                first, ms = timer(lambda: sol(q, k, v), device, warmup, reps)
                o = sol(q, k, v).transpose(1, 2)
                res["rows"].append(dict(base, variant="comfy-kitchen sol_attn (adaptive)", ms=ms, first_call_s=first,
                                        speedup_vs_fa3=fa3_ms / ms if fa3_ms else None,
                                        vs_dense=error_vs(o, dense_ref)))
            except Exception as e:  # noqa: BLE001
                res["rows"].append(dict(base, variant="comfy-kitchen sol_attn (adaptive)",
                                        error=f"{type(e).__name__}: {e}", traceback=traceback.format_exc()))
            save()
        for decay in (float(x) for x in a.decays.split(",") if x):
            pat = SP.RadialPattern(grid, decay, model_type=model_type, text_tokens=text, text_first=text_first)
            t0 = time.perf_counter()
            stats = pat.stats()
            mask_s = time.perf_counter() - t0
            ref = SO.reference_attention(qh, kh, vh, pat)
            log(f"{shape} decay {decay}: sparsity {stats['sparsity']:.4f} (mask {mask_s:.2f} s)")
            for b in backends:
                if b in res["skipped"]:
                    continue
                row = dict(base, variant=f"radial/{b}", decay=decay, sparsity=stats["sparsity"],
                           block_sparsity=stats["block_sparsity"], mask_build_s=mask_s)
                try:
                    fn = lambda pat=pat, b=b: SO.sparse_attention(qh, kh, vh, pat, backend=b)  # noqa: E731
                    first, ms = timer(fn, device, warmup, reps)
                    o = fn()
                    row.update(ms=ms, first_call_s=first, speedup_vs_fa3=fa3_ms / ms if fa3_ms else None,
                               vs_masked_reference=error_vs(o, ref), vs_dense=error_vs(o, dense_ref))
                except Exception as e:  # noqa: BLE001
                    row.update(error=f"{type(e).__name__}: {e}", traceback=traceback.format_exc())
                res["rows"].append(row)
                log(f"  {row['variant']}: {row.get('ms', row.get('error'))}")
                save()
            ref = None  # frees the memory before the next step (a `del` would leave names the closures above read)

    for shape, (grid, heads, model_type, text, text_first) in shapes.items():
        one(shape, grid, heads, model_type, text, text_first)  # its tensors go when it returns
        if device.type == "cuda":
            torch.cuda.empty_cache()
    save()
    log(f"wrote {out / 'sparse_attention.md'}")
    return res


if __name__ == "__main__":
    main()
