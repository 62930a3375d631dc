"""FP8 linears: quality and speed of each `activation_scaling` option of Accel Load Diffusion Model (FP8).

Three parts (all by default; `--part` picks one):
- micro: per Wan layer type at true Wan 1.3B / 14B shapes (480p 81f: 32760 tokens; text k/v: 512 tokens), time
  and error vs the fp32 matmul of: the 16-bit linear, dequantized FP8 weights (weights-only error), FP8 matmul
  per-token (today), per-token with fp32 accumulation, 1x128 activation blocks. Also the GPU kernels against
  their plain-torch references (checks the blockwise scale layouts on this torch/cuBLAS). Synthetic activations
  per layer type (modulated-norm output with a few outlier channels, GELU hidden, attention output, text).
- e2e: Wan 2.1 T2V (random weights, bench_matrix's machinery: ComfyUI started like main.py, its loader and
  sampler, 2 steps CFG 5, 480p 81f) per option, one model at a time: first-run and timed-run seconds,
  final-latent cosine and max |diff| vs stock.
- sensitivity: FP8 (per-token) with one layer type kept in 16-bit at a time (the loader's extra_keep patterns),
  final-latent cosine vs stock: which layers cost the most fidelity.
Random weights show speed and deviation from stock, never visual quality.

Writes $OUT/fp8_quality.json and .md (partial results as it goes).

GPU (repo root, after `source bench/gpu_env.sh 033`), each within ~6 min on an H100:
    python3 bench/bench_fp8_quality.py --part micro --out $OUT
    python3 bench/bench_fp8_quality.py --part e2e --size 14B --out $OUT
    python3 bench/bench_fp8_quality.py --part sensitivity --size 14B --out $OUT
CPU smoke: python bench/bench_fp8_quality.py --smoke --out /tmp/fp8q
"""
from __future__ import annotations

import sys
import time
import traceback
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "bench"))
import bench_matrix as BM  # noqa: E402
import runner  # noqa: E402  bench/runner.py: shared CLI, metadata, result files, compare()

SIZES = {"1.3B": (1536, 8960), "14B": (5120, 13824), "tiny": (128, 256)}
OPTIONS = ("per-token", "per-token, fp32 accumulation", "1x128 blocks")  # accel.fp8 ACT_CHOICES (checked at start)
E2E_CHAINS = ("fp8", "fp8_dequant", "fp8_fp32acc", "fp8_block")
# layer type -> extra_keep pattern (Wan block linears)
KEEP = {
    "none": "",  # the baseline: every block linear FP8
    "self_attn": "blocks.*.self_attn.*",
    "cross_attn.q+o": "blocks.*.cross_attn.q, blocks.*.cross_attn.o",
    "cross_attn.k+v (text)": "blocks.*.cross_attn.k, blocks.*.cross_attn.v",
    "ffn.0": "blocks.*.ffn.0",
    "ffn.2": "blocks.*.ffn.2",
    "first & last block": "blocks.0.*, blocks.{last}.*",
}


def parse(argv=None):
    ap = runner.parser(__doc__, smoke="tiny shapes (256 tokens) and a tiny Wan on the CPU")
    ap.add_argument("--part", default="all", choices=["all", "micro", "e2e", "sensitivity"])
    ap.add_argument("--micro-sizes", default="1.3B,14B")
    ap.add_argument("--tokens-video", type=int, default=32760, help="tokens of the video stream (480p 81f: 21*30*52)")
    ap.add_argument("--size", default="14B", choices=["1.3B", "14B"])
    ap.add_argument("--chains", default=",".join(E2E_CHAINS), help="e2e chains (bench_matrix names), after stock")
    ap.add_argument("--keep", default=",".join(KEEP), help="sensitivity: layer types kept in 16-bit, one at a time")
    ap.add_argument("--rounds", type=int, default=1, help="e2e: timed runs per chain after the first run")
    ap.add_argument("--reps", type=int, default=10)
    ap.add_argument("--steps", type=int, default=2)
    ap.add_argument("--cfg", type=float, default=5.0)
    ap.add_argument("--weights", default="/tmp/accel-bench-weights")
    ap.add_argument("--comfy-args", default="")
    a = ap.parse_args(argv)
    if a.smoke:
        a.micro_sizes, a.tokens_video, a.reps, a.rounds = "tiny", 256, 2, 1
    return a


log = runner.Log("bench_fp8_quality")


class Bench:
    def __init__(self, a):
        self.a = a
        self.out = Path(a.out)
        self.out.mkdir(parents=True, exist_ok=True)
        self.res = {"name": "fp8_quality", "command": runner.command(), "micro": [], "e2e": {},
                    "sensitivity": {}, "errors": [], "notes": []}
        margs = ["--out", str(self.out / "matrix_work"), "--size", "tiny" if a.smoke else a.size, "--steps",
                 str(a.steps), "--cfg", str(a.cfg), "--weights", a.weights, "--rounds", str(a.rounds)]
        if a.comfy_args:
            margs += ["--comfy-args", a.comfy_args]
        if a.smoke:
            margs.append("--smoke")
        self.m = BM.Matrix(BM.parse(margs))

    # not runner.captured: fp8_quality.json's errors are {"what", "error", "trace"} dicts (the .md lists them)
    def attempt(self, what, fn):
        try:
            return fn()
        except Exception as e:  # noqa: BLE001 - recorded, the other measurements go on
            self.res["errors"].append({"what": what, "error": f"{type(e).__name__}: {e}",
                                       "trace": traceback.format_exc()[-2000:]})
            log(f"{what}: FAILED {type(e).__name__}: {e}")
            return None

    def run(self):
        m = self.m
        if not self.a.smoke and self.a.part != "micro":
            # generate the weights in a child process: its GPU memory is returned to the driver when it exits
            import subprocess

            subprocess.run([sys.executable, BM.__file__, "--weights-only", "--size", m.a.size, "--dtype", m.a.dtype,
                            "--weights", m.a.weights, "--out", m.a.out], check=True)
        m.boot()
        self.torch, self.H = m.torch, m.H
        self.K = self.H.pack_module("kernels.fp8_linear")
        self.F = self.H.pack_module("accel.fp8")
        assert tuple(self.F.ACT_CHOICES) == OPTIONS, self.F.ACT_CHOICES
        self.res["meta"] = dict(m.res["meta"])
        self.res["run_meta"] = runner.metadata(m.dev)
        if m.cuda:
            cuda = self.torch.device("cuda")
            self.res["meta"]["block_out_dtypes"] = [str(d) for d in self.K.block_out_dtypes(cuda)]
            self.res["meta"]["rowwise_out_dtypes"] = [str(d) for d in self.K.rowwise_out_dtypes(cuda)]
        if self.a.part in ("all", "micro"):
            self.micro()
        if self.a.part in ("all", "e2e", "sensitivity"):
            path = m.weights_file()
            self.stock_latent(path)
            if self.a.part in ("all", "e2e"):
                for c in [c.strip() for c in self.a.chains.split(",") if c.strip()]:
                    self.res["e2e"][c] = self.attempt(f"e2e {c}",
                                                      lambda c=c: self.one_chain(c, path)) or {"failed": True}
                    self.save()
            if self.a.part in ("all", "sensitivity"):
                for k in [k.strip() for k in self.a.keep.split(",") if k.strip()]:
                    key = f"keep:{k}"
                    self.res["sensitivity"][key] = self.attempt(
                        f"sensitivity {k}",
                        lambda k=k, key=key: self.one_chain(key, path, keep=KEEP[k])) or {"failed": True}
                    self.save()
        self.save()
        print("\n".join(self.markdown()))

    # --- micro --------------------------------------------------------------------------------------------
    def timed(self, fn):
        torch = self.torch
        if not self.m.cuda:
            t0 = time.perf_counter()
            for _ in range(self.a.reps):
                fn()
            return (time.perf_counter() - t0) / self.a.reps * 1e3
        for _ in range(3):
            fn()
        torch.cuda.synchronize()
        s, e = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        s.record()
        for _ in range(self.a.reps):
            fn()
        e.record()
        torch.cuda.synchronize()
        return s.elapsed_time(e) / self.a.reps

    def activations(self, kind, m, k, g, dev, dtype):
        torch = self.torch
        if kind == "gelu hidden":
            x = torch.nn.functional.gelu(torch.randn(m, k, generator=g, device=dev) * 1.5, approximate="tanh")
        elif kind == "attention out":
            x = torch.randn(m, k, generator=g, device=dev) * 0.5
        else:  # modulated norm output / text embedding: per-channel gain and shift, a few outlier channels
            gain = 1 + 0.5 * torch.randn(k, generator=g, device=dev)
            x = torch.randn(m, k, generator=g, device=dev) * gain + 0.2 * torch.randn(k, generator=g, device=dev)
            idx = torch.randperm(k, generator=g, device=dev)[: max(1, k // 512)]
            x[:, idx] *= 20.0
        return x.to(dtype)

    def micro(self):
        torch = self.torch
        dev = "cuda" if self.m.cuda else "cpu"
        dtype = torch.float16 if self.m.a.dtype == "fp16" else torch.bfloat16  # ComfyUI runs Wan in fp16
        for size in [s.strip() for s in self.a.micro_sizes.split(",") if s.strip()]:
            dim, ffn = SIZES[size]
            mv = self.a.tokens_video
            rows = [("self_attn q/k/v/o, cross_attn q/o", mv, dim, dim, "modulated norm"),
                    ("cross_attn k/v (text)", 512 if not self.a.smoke else 64, dim, dim, "text"),
                    ("ffn.0", mv, dim, ffn, "modulated norm"),
                    ("ffn.2", mv, ffn, dim, "gelu hidden")]
            for name, m, k, n, kind in rows:
                self._micro_layer(size, name, m, k, n, kind, dev, dtype)

    def _micro_layer(self, size, name, m, k, n, kind, dev, dtype):
        """micro(): one layer shape's rows (each option's accuracy and time, the quantizer check)."""
        torch, K = self.torch, self.K
        log(f"micro {size} {name} {m}x{k}->{n}")
        g = torch.Generator(device=dev).manual_seed(0)
        x = self.activations(kind, m, k, g, dev, dtype)
        w = torch.randn(n, k, generator=g, device=dev) / k ** 0.5
        b = (torch.randn(n, generator=g, device=dev) * 0.02).to(dtype)
        exact = torch.addmm(b.float(), x.float(), w.t())
        w16 = w.to(dtype)
        w8, sw = K.quantize_weight(w, K.E4M3, per_channel=True)
        variants = {
            "16-bit": (lambda: torch.nn.functional.linear(x, w16, b), None),
            "dequantize": (lambda: torch.nn.functional.linear(x, K.dequantize(w8, sw, dtype), b), None),
            "per-token": (lambda: K.fp8_linear(x, w8, sw, b, "scaled_mm_rowwise", True),
                          lambda: K.fp8_linear_ref(x, w8, sw, b, act="row")),
            "per-token, fp32 accumulation": (lambda: K.fp8_linear(x, w8, sw, b, "scaled_mm_rowwise", False),
                                             lambda: K.fp8_linear_ref(x, w8, sw, b, act="row")),
            "1x128 blocks": (lambda: K.fp8_linear(x, w8, sw, b, K.BLOCK_MODE),
                             lambda: K.fp8_linear_ref(x, w8, sw, b, act="block")),
        }
        for opt, (fn, ref) in variants.items():
            r = {"size": size, "layer": name, "M": m, "K": k, "N": n, "activations": kind, "option": opt}
            out = self.attempt(f"micro {size} {name} {opt}", fn)
            if out is not None:
                c = runner.compare(out, exact)
                r["cos_vs_fp32"], r["rel_vs_fp32"] = round(c["cosine"], 6), round(c["rel_l2"], 5)
                t = self.attempt(f"micro {size} {name} {opt} timing", lambda fn=fn: self.timed(fn))
                if t is not None:
                    r["ms"] = round(t, 4)
                    r["tflops"] = round(2 * m * k * n / t / 1e9, 1)
                if ref is not None:
                    rr = self.attempt(f"micro {size} {name} {opt} reference", ref)
                    if rr is not None:
                        r["rel_vs_reference"] = round(_rel(out, rr), 6)  # the kernel vs its own math
                del out
            self.res["micro"].append(r)
        if self.m.cuda:
            def qcheck():
                q8, qs = K.quantize_blocks(x.reshape(-1, k))
                r8, rs = K.quantize_blocks_ref(x.reshape(-1, k))
                return {"size": size, "layer": name, "option": "quantize_blocks check",
                        "scale_maxrel": float(((qs - rs).abs() / rs).max()),
                        "fp8_mismatch_frac": float((q8.float() != r8.float()).float().mean()),
                        "ms_blocks": round(self.timed(lambda: K.quantize_blocks(x)), 4),
                        "ms_rows": round(self.timed(lambda: K.quantize_rows(x)), 4)}
            qc = self.attempt(f"micro {size} {name} quantizer check", qcheck)
            if qc:
                self.res["micro"].append(qc)
        self.save()

    # --- end to end ----------------------------------------------------------------------------------------
    def stock_latent(self, path):
        m = self.m
        base = m.base(path)
        first, _ = m.sample(base)
        times, lat = [], None
        for _ in range(max(1, self.a.rounds)):
            t, lat = m.sample(base)
            times.append(round(t, 3))
        self.ref = lat
        self.res["e2e"]["stock"] = {"what": BM.CHAINS["stock"], "first_run_s": round(first, 2), "times_s": times,
                                    **BM._fidelity(lat, lat)}
        del base, m._base
        m._unload()
        self.save()

    def one_chain(self, name, path, keep=None):
        m = self.m
        t0 = time.perf_counter()
        if keep is not None:
            last = _num_blocks(self.a, m) - 1
            rep_res = self.F.load_file(str(path), extra_keep=keep.replace("{last}", str(last)))
            model, report = rep_res.patcher, rep_res.report
        else:
            model, report = m.build(name, path)
        build = time.perf_counter() - t0
        if m.cuda:
            self.torch.cuda.reset_peak_memory_stats()
        first, lat = m.sample(model)
        times = []
        for _ in range(self.a.rounds if keep is None else 0):
            t, lat = m.sample(model)
            times.append(round(t, 3))
        r = {"what": BM.CHAINS.get(name, name), "build_s": round(build, 2), "first_run_s": round(first, 2),
             "times_s": times, **BM._fidelity(lat, self.ref), "report": report}
        if keep is not None:
            r["extra_keep"] = keep
        if m.cuda:
            r["peak_alloc_gib"] = round(self.torch.cuda.max_memory_allocated() / 2 ** 30, 2)
        st = self.res["e2e"].get("stock", {})
        if times and st.get("times_s"):
            r["speedup_vs_stock"] = round(BM._median(st["times_s"]) / BM._median(times), 3)
        log(f"{name}: first {first:.1f} s, timed {times}, cos {r['cosine']} maxdiff {r['max_abs_diff']}")
        del model
        m._unload()
        return r

    # --- output --------------------------------------------------------------------------------------------
    def save(self):
        runner.write(self.out, "fp8_quality", self.res, self.markdown())

    def markdown(self):
        meta = self.res.get("meta", {})
        lines = ["# FP8 linears: quality and speed per activation_scaling option", "",
                 f"GPU {meta.get('gpu')}, ComfyUI {meta.get('comfyui')}, torch {meta.get('torch')}, blockwise "
                 f"_scaled_mm output dtypes: {meta.get('block_out_dtypes')}. Random weights: speed and deviation, not "
                 "visual quality.",
                 f"Command: `{self.res['command']}`", *runner.meta_markdown(self.res.get("run_meta")), ""]
        if self.res["micro"]:
            lines += ["## Per layer type (synthetic activations, per-channel e4m3 weights)", "",
                      "| size | layer | M x K -> N | option | ms | TFLOP/s | cos vs fp32 | rel vs fp32 | kernel vs its "
                      "reference |",
                      "| --- | --- | --- | --- | --- | --- | --- | --- | --- |"]
            for r in self.res["micro"]:
                if r["option"] == "quantize_blocks check":
                    lines.append(f"| {r['size']} | {r['layer']} | | quantizer: 1x128 {r['ms_blocks']} ms vs per-token "
                                 f"{r['ms_rows']} ms; scale max rel {r['scale_maxrel']:.2g}, fp8 mismatch "
                                 f"{r['fp8_mismatch_frac']:.2g} | | | | | |")
                    continue
                lines.append(f"| {r['size']} | {r['layer']} | {r['M']}x{r['K']}->{r['N']} | {r['option']} | "
                             f"{r.get('ms', '')} | {r.get('tflops', '')} | {r.get('cos_vs_fp32', '')} | "
                             f"{r.get('rel_vs_fp32', '')} | {r.get('rel_vs_reference', '')} |")
            lines.append("")
        for title, part in (("End to end", "e2e"), ("Sensitivity: one layer type kept 16-bit (FP8 per-token elsewhere)",
                                                   "sensitivity")):
            if not self.res[part]:
                continue
            lines += [f"## {title}: Wan 2.1 T2V {meta.get('size')}, {meta.get('frames')}f {meta.get('height')}x"
                      f"{meta.get('width')}, {meta.get('steps')} steps CFG {meta.get('cfg')}", "",
                      "| chain | what | time (s) | speedup vs stock | cosine vs stock | max abs diff | first run (s) |",
                      "| --- | --- | --- | --- | --- | --- | --- |"]
            for n, r in self.res[part].items():
                if r.get("failed"):
                    lines.append(f"| {n} | failed (see errors) | | | | | |")
                    continue
                lines.append(f"| {n} | {r.get('extra_keep', r.get('what', ''))} | "
                             f"{BM._median(r.get('times_s') or []) or ''} | {r.get('speedup_vs_stock', '')} | "
                             f"{r.get('cosine')} | {r.get('max_abs_diff')} | {r.get('first_run_s')} |")
            lines.append("")
        for e in self.res["errors"]:
            lines.append(f"ERROR {e['what']}: {e['error'][:300]}")
        return lines


def _num_blocks(a, m):
    return {"tiny": 2, "1.3B": 30, "14B": 40}[m.a.size]


def _rel(a, b):
    return runner.compare(a, b)["rel_l2"]


if __name__ == "__main__":
    Bench(parse()).run()
