"""Accel Multi-GPU vs one GPU: Wan per-step forward time on N GPUs, speed-up, cosine to the one-GPU output.

One sampling step with CFG is one diffusion-model forward of batch 2 (cond + uncond batched, as ComfyUI
does when they fit). Measured per configuration, true Wan config with random weights (bf16, 480p 81 frames:
latent (2,16,21,60,104), text context (2,512,4096)):
  * 1 GPU: ComfyUI's forward in this process (stock attention), median of --repeats after --warmup;
  * N GPUs (each of --gpus that this machine has), CFG parallel on and off (--cfg-parallel): the same forward
    through Accel Multi-GPU's worker processes (NCCL), median of --repeats after --warmup; `first_call_s` is
    the first forward (workers start + weights sent to every worker), not part of the median;
  * cosine and max |diff| of each output vs the one-GPU output; speed-up = 1-GPU ms / N-GPU ms.
Issue #16 targets (Wan 14B): 2 GPUs >= 1.8x, 4 >= 3.4x, 8 >= 6x; cosine >= 0.9999.

Run (GPU machine with 2/4/8 GPUs, repo root, after `source bench/gpu_env.sh` [033]):
    python3 bench/bench_multigpu.py --out $OUT                    # Wan 14B, every GPU count available
    python3 bench/bench_multigpu.py --out $OUT --gpus 2 --size 1.3B
CPU smoke (tiny Wan, 2 CPU workers over gloo): python bench/bench_multigpu.py --smoke --out /tmp/mgsmoke
Results are written after every measurement ($OUT/multigpu.json and .md), so a timeout keeps what was measured.
Expected time (14B, 8x H200): building the model ~1 min, each N-GPU configuration ~1-2 min (sending 28 GB to
each worker dominates the first call); pass fewer --gpus values if the 10-minute limit is near.
"""
from __future__ import annotations

import argparse
import json
import os
import sys
import time
import traceback
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
NAME = "multigpu"


def log(msg):
    print(f"[{NAME} {time.strftime('%H:%M:%S')}] {msg}", flush=True)


def parse(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--out", default=os.environ.get("OUT", "."), help="folder for multigpu.json / multigpu.md")
    ap.add_argument("--smoke", action="store_true", help="tiny Wan, 2 CPU workers over gloo: checks the script end to end")
    ap.add_argument("--size", default="14B", help="Wan size (harness models.WAN_SIZES): 14B, 1.3B, ...")
    ap.add_argument("--gpus", default="2,4,8", help="comma list of GPU counts; those above the visible count are skipped")
    ap.add_argument("--cfg-parallel", default="both", choices=["on", "off", "both"])
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--warmup", type=int, default=1)
    ap.add_argument("--frames", type=int, default=81)
    ap.add_argument("--height", type=int, default=480)
    ap.add_argument("--width", type=int, default=832)
    ap.add_argument("--tokens", type=int, default=512, help="text tokens of the context")
    ap.add_argument("--attention", default="", help="an Accel Attention backend (e.g. auto, flash_attn_3) applied to the "
                    "model before both the 1-GPU and the N-GPU runs (the workers run it per rank); empty: ComfyUI's own")
    a = ap.parse_args(argv)
    if a.smoke:
        a.size, a.gpus, a.frames, a.height, a.width, a.tokens, a.repeats, a.warmup = "tiny", "2", 5, 32, 32, 16, 2, 1
    return a


class Bench:
    def __init__(self, a):
        self.a = a
        self.res = {"name": NAME, "command": " ".join([sys.executable] + sys.argv), "runs": {}, "errors": []}
        self.out = Path(a.out)

    def boot(self):
        sys.path.insert(0, str(REPO / "harness"))
        import accel_harness as H

        H.bootstrap(cpu=True if self.a.smoke else False)
        H.load_pack()
        import torch

        self.torch, self.H = torch, H
        from accel_harness import models as M
        from accel_harness.forward import Forward

        self.M, self.Forward = M, Forward
        self.mg = H.pack_module("accel.multigpu.patch")
        self.pool = H.pack_module("accel.multigpu.pool")
        self.cuda = torch.cuda.is_available() and not self.a.smoke
        self.dev = "cuda" if self.cuda else "cpu"
        self.dtype = torch.bfloat16 if self.cuda else torch.float32
        self.visible = torch.cuda.device_count() if self.cuda else 2
        import comfy.model_management  # noqa: F401

        try:
            import comfyui_version

            version = comfyui_version.__version__
        except Exception:
            version = None
        t = (self.a.frames - 1) // 4 + 1
        self.res["meta"] = {
            "torch": torch.__version__, "comfyui": version, "python": sys.version.split()[0], "device": self.dev,
            "gpu": torch.cuda.get_device_name(0) if self.cuda else None, "visible_gpus": self.visible,
            "size": self.a.size, "latent": [2, 16, t, self.a.height // 8, self.a.width // 8],
            "context": [2, self.a.tokens, 4096], "dtype": str(self.dtype), "repeats": self.a.repeats,
            "warmup": self.a.warmup}

    def save(self):
        self.out.mkdir(parents=True, exist_ok=True)
        (self.out / f"{NAME}.json").write_text(json.dumps(self.res, indent=1, default=str))
        (self.out / f"{NAME}.md").write_text(self.markdown())

    def markdown(self):
        m = self.res.get("meta", {})
        lines = [f"# Accel Multi-GPU: Wan {m.get('size')} per-step forward (batch 2 = cond + uncond)", "",
                 f"GPU: {m.get('gpu') or m.get('device')} x{m.get('visible_gpus')}, ComfyUI {m.get('comfyui')}, "
                 f"torch {m.get('torch')}, {m.get('dtype')}, latent {m.get('latent')}, context {m.get('context')}", "",
                 f"Attention (1 GPU and every rank): {m.get('attention') or 'ComfyUI default'}", "",
                 "| config | GPUs | CFG parallel | step ms | speed-up vs 1 | first call s | cosine vs 1 | max abs diff |",
                 "|---|---|---|---|---|---|---|---|"]
        base = self.res["runs"].get("1gpu", {}).get("ms")
        for key, r in self.res["runs"].items():
            if "error" in r:
                lines.append(f"| {key} | | | error: {r['error'][:120]} | | | | |")
                continue
            sp = f"{base / r['ms']:.2f}x" if base and r.get("ms") else ""
            lines.append(f"| {key} | {r.get('gpus')} | {r.get('cfg_parallel', '')} | {r.get('ms', 0):.1f} | {sp} | "
                         f"{r.get('first_call_s', '')} | {r.get('cosine', '')} | {r.get('max_abs_diff', '')} |")
        if self.res["errors"]:
            lines += ["", "Errors:"] + [f"- {e}" for e in self.res["errors"]]
        return "\n".join(lines) + "\n"

    def compare(self, a, b):
        F = self.torch.nn.functional
        a, b = a.detach().double().flatten(), b.detach().double().flatten()
        return {"cosine": float(F.cosine_similarity(a, b, dim=0)), "max_abs_diff": float((a - b).abs().max())}

    def timed(self, f, x, ctx):
        from accel_harness.timing import timed

        return timed(lambda: f(x, 0.9, ctx, cond_or_uncond=[0, 1]), "cuda" if self.cuda else "cpu",
                     warmup=self.a.warmup, reps=self.a.repeats)

    def record(self, key, fn):
        log(f"{key} ...")
        try:
            self.res["runs"][key] = fn()
            log(f"{key} = {json.dumps(self.res['runs'][key], default=str)[:300]}")
        except Exception as e:
            err = f"{key}: {type(e).__name__}: {e}"
            self.res["runs"][key] = {"error": err, "traceback": traceback.format_exc()[-3000:]}
            self.res["errors"].append(err)
            log("FAILED " + err)
        self.save()

    def run(self):
        torch, a = self.torch, self.a
        t0 = time.time()
        model = self.M.wan_model("t2v", a.size, device=self.dev, dtype=self.dtype)
        self.res["meta"]["build_s"] = round(time.time() - t0, 1)
        log(f"built Wan {a.size} in {time.time() - t0:.1f} s")
        if a.attention:
            model, rep = self.H.pack_module("accel.attention").apply_attention(model, a.attention, fallback="error")
            self.res["meta"]["attention"] = rep
            log(f"attention: {rep}")
        g = torch.Generator().manual_seed(0)
        t = (a.frames - 1) // 4 + 1
        x = torch.randn(2, 16, t, a.height // 8, a.width // 8, generator=g)
        ctx = torch.randn(2, a.tokens, 4096, generator=g).to(self.dtype)
        ref = {}

        def one():
            with self.Forward(model) as f:
                med, _, out = self.timed(f, x, ctx)
            ref["out"] = out.float().cpu()
            return {"gpus": 1, "ms": round(med, 2)}

        self.record("1gpu", one)
        if "out" not in ref:
            return
        modes = ["on", "off"] if a.cfg_parallel == "both" else [a.cfg_parallel]
        for n in [int(s) for s in a.gpus.split(",") if s.strip()]:
            if n > self.visible:
                log(f"{n} GPUs: skipped ({self.visible} visible)")
                continue
            for mode in modes:
                def multi(n=n, mode=mode):
                    m, report = self.mg.apply_multigpu(model, gpus=n, device=self.dev, cfg_parallel=mode)
                    with self.Forward(m) as f:
                        t1 = time.perf_counter()
                        f(x, 0.9, ctx, cond_or_uncond=[0, 1])
                        first = round(time.perf_counter() - t1, 2)
                        med, _, out = self.timed(f, x, ctx)
                    rt = self.mg.runtime_of(m)
                    r = {"gpus": n, "cfg_parallel": mode, "ms": round(med, 2), "first_call_s": first,
                         "split": list(rt.last_split) if rt and rt.last_split else None, "report": report}
                    r.update(self.compare(out.float().cpu(), ref["out"]))
                    return r

                self.record(f"{n}gpu_cfg_{mode}", multi)
        self.pool.shutdown_all()


def main(argv=None):
    a = parse(argv)
    b = Bench(a)
    b.boot()
    log(f"device {b.res['meta'].get('gpu') or b.dev} x{b.visible}, torch {b.res['meta']['torch']}")
    try:
        b.run()
    except Exception as e:
        b.res["errors"].append(f"{type(e).__name__}: {e}")
        b.res["traceback"] = traceback.format_exc()[-3000:]
        log("FAILED " + traceback.format_exc())
    b.save()
    log(f"wrote {b.out / (NAME + '.json')} and .md")
    return 1 if b.res["errors"] else 0


if __name__ == "__main__":
    sys.exit(main())
