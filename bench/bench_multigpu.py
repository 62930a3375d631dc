"""Accel Multi-GPU vs one GPU: per-step forward time on N GPUs, speed-up, cosine to the one-GPU output.

Families (--family): wan (default, Wan 2.1 T2V), flux (Flux.1-dev), qwen_image (Qwen-Image).

One sampling step with CFG is one diffusion-model forward of batch 2 (cond + uncond batched, as ComfyUI
does when they fit). Models: ComfyUI's own classes with random weights (bf16) in the true configs, inputs at a
typical resolution (override with --height/--width/--tokens):
  * wan (--size 14B): 480p 81 frames: latent (2,16,21,60,104), text context (2,512,4096);
  * flux (--size true = Flux.1-dev 12B, the config ComfyUI detects for flux1-dev.safetensors): 1024x1024:
    latent (2,16,128,128) (4096 image tokens), T5 context (2,256,4096) (ComfyUI pads Flux's T5 prompt to 256
    tokens), pooled CLIP y (2,768), guidance (2,) = 3.5;
  * qwen_image (--size true = Qwen-Image 20B, ComfyUI's detected config): 1328x1328: latent (2,16,1,166,166)
    (6889 image tokens), Qwen2.5-VL context (2,256,3584) (a long prompt; Qwen-Image's text is not padded),
    no text mask (every token valid).
Measured per configuration:
  * 1 GPU: ComfyUI's forward in this process (stock attention), median of --repeats after --warmup;
  * N GPUs (each of --gpus that this machine has), CFG parallel on and off (--cfg-parallel): the same forward
    through Accel Multi-GPU's worker processes (NCCL), median of --repeats after --warmup; `first_call_s` is
    the first forward (workers start + weights sent to every worker), not part of the median;
  * cosine and max |diff| of each output vs the one-GPU output; speed-up = 1-GPU ms / N-GPU ms.
Issue #16 targets (Wan 14B): 2 GPUs >= 1.8x, 4 >= 3.4x, 8 >= 6x; cosine >= 0.9999.

Run (GPU machine with 2/4/8 GPUs, repo root, after `source bench/gpu_env.sh` [033]):
    python3 bench/bench_multigpu.py --out $OUT                    # Wan 14B, every GPU count available
    python3 bench/bench_multigpu.py --out $OUT --gpus 2 --size 1.3B
    python3 bench/bench_multigpu.py --family flux --gpus 2 --out $OUT/mg_flux
    python3 bench/bench_multigpu.py --family qwen_image --gpus 2 --out $OUT/mg_qwen
CPU smoke (tiny model, 2 CPU workers over gloo): python bench/bench_multigpu.py --smoke [--family flux] --out
/tmp/mgsmoke
Results are written after every measurement ($OUT/multigpu.json and .md for Wan, multigpu_flux.* and
multigpu_qwen_image.* for the others), so a timeout keeps what was measured.
Expected time (14B, 8x H200): building the model ~1 min, each N-GPU configuration ~1-2 min (sending 28 GB to
each worker dominates the first call); pass fewer --gpus values if the 10-minute limit is near.
Estimates for 2x H200, --gpus 2, --cfg-parallel both (NOT measured: scaled from the Wan 14B run, where building
took 42-46 s and the first multi-GPU call, 28 GB sent to 2 workers, 71-80 s; the 1-GPU step time from the FLOPs
at the ~460 TFLOP/s that the Wan 14B 1-GPU step reached, ~3.6 PFLOP in 7.85 s):
  * flux: 11.9 B parameters, 23.8 GB bf16. GPU 0: the random state dict while building (freed after), then
    ComfyUI's 1-GPU copy and worker 0's copy, at most ~48 GB + activations (< 5 GB); GPU 1: worker 1's copy
    (~24 GB); host RAM ~24 GB (ComfyUI's CPU copy that the workers are sent). 1-GPU step ~0.5 s (~235 TFLOP);
    build ~40 s, first multi-GPU call ~60-70 s, the CFG-off row reuses the workers: ~3 minutes in all;
  * qwen_image: 20.4 B parameters, 40.9 GB bf16: GPU 0 at most ~82 GB + activations, GPU 1 ~41 GB, host RAM
    ~41 GB. 1-GPU step ~1.4 s (~660 TFLOP); build ~60-70 s, first multi-GPU call ~100-120 s: ~4-5 minutes.
Both fit an H200 (141 GB) and stay under the 10-minute limit per command; 4/8 GPUs add ~1-2 minutes per count.
"""
from __future__ import annotations

import json
import sys
import time
import traceback
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "bench"))
import runner  # noqa: E402  bench/runner.py: shared CLI, metadata, result files, compare() (imports no torch)

NAME = "multigpu"
FAMILIES = ("wan", "flux", "qwen_image")
# family -> (default --size, --height, --width, --tokens, output name)
DEFAULTS = {"wan": ("14B", 480, 832, 512, NAME), "flux": ("true", 1024, 1024, 256, f"{NAME}_flux"),
            "qwen_image": ("true", 1328, 1328, 256, f"{NAME}_qwen_image")}
LABELS = {"wan": "Wan", "flux": "Flux.1-dev", "qwen_image": "Qwen-Image"}


log = runner.Log(NAME)


def parse(argv=None):
    ap = runner.parser(__doc__, smoke="tiny model, 2 CPU workers over gloo",
                       out_help="folder for multigpu.json / .md (flux: multigpu_flux.*, qwen_image: "
                                "multigpu_qwen_image.*)")
    ap.add_argument("--family", default="wan", choices=FAMILIES,
                    help="wan (Wan 2.1 T2V), flux (Flux.1-dev), qwen_image")
    ap.add_argument("--size", default=None,
                    help="wan: harness models.WAN_SIZES (14B, 1.3B, ...; default 14B); flux and "
                    "qwen_image: true (the published config, default) or tiny")
    ap.add_argument("--gpus", default="2,4,8",
                    help="comma list of GPU counts; those above the visible count are skipped")
    ap.add_argument("--cfg-parallel", default="both", choices=["on", "off", "both"])
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--warmup", type=int, default=1)
    ap.add_argument("--frames", type=int, default=81, help="wan only")
    ap.add_argument("--height", type=int, default=None, help="pixels; default wan 480, flux 1024, qwen_image 1328")
    ap.add_argument("--width", type=int, default=None, help="pixels; default wan 832, flux 1024, qwen_image 1328")
    ap.add_argument("--tokens", type=int, default=None, help="text tokens of the context; default wan 512, flux 256 "
                    "(ComfyUI pads Flux's T5 prompt to 256), qwen_image 256")
    ap.add_argument("--guidance", type=float, default=3.5, help="flux only: the distilled guidance input")
    ap.add_argument("--attention", default="",
                    help="an Accel Attention backend (e.g. auto, flash_attn_3) applied to the "
                    "model before both the 1-GPU and the N-GPU runs (the workers run it per rank); empty: ComfyUI's "
                    "own")
    a = ap.parse_args(argv)
    size, height, width, tokens, _ = DEFAULTS[a.family]
    a.size = a.size or size
    if a.family != "wan" and a.size not in ("true", "tiny"):
        ap.error(f"--size {a.size}: {a.family} has the sizes true (the published config) and tiny")
    a.height = a.height or height
    a.width = a.width or width
    a.tokens = a.tokens or tokens
    if a.smoke:
        a.size, a.gpus, a.frames, a.height, a.width, a.tokens, a.repeats, a.warmup = "tiny", "2", 5, 32, 32, 16, 2, 1
    return a


class Bench:
    def __init__(self, a):
        self.a = a
        self.name = DEFAULTS[a.family][4]
        self.res = {"name": self.name, "command": runner.command(), "runs": {}, "errors": []}
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

        version = H.comfy_version()
        self.res["meta"] = {
            "torch": torch.__version__, "comfyui": version, "python": sys.version.split()[0], "device": self.dev,
            "gpu": torch.cuda.get_device_name(0) if self.cuda else None, "visible_gpus": self.visible,
            "family": self.a.family, "size": self.a.size, "latent": self.latent_shape(),
            "context": [2, self.a.tokens, 4096] if self.a.family == "wan" else None, "dtype": str(self.dtype),
            "repeats": self.a.repeats, "warmup": self.a.warmup}
        self.res["run_meta"] = runner.metadata(self.dev)

    def latent_shape(self):
        """(2, 16, ...) at --height x --width: Wan (B, C, T, H/8, W/8), Flux (B, C, H/8, W/8), Qwen-Image
        (B, C, 1, H/8, W/8) (ComfyUI gives it a one-frame video latent)."""
        a, h, w = self.a, self.a.height // 8, self.a.width // 8
        if a.family == "wan":
            return [2, 16, (a.frames - 1) // 4 + 1, h, w]
        return [2, 16, h, w] if a.family == "flux" else [2, 16, 1, h, w]

    def save(self):
        runner.write(self.out, self.name, self.res, self.markdown())

    def markdown(self):
        m = self.res.get("meta", {})
        fam = m.get("family", "wan")
        title = f"Wan {m.get('size')}" if fam == "wan" else f"{LABELS[fam]} ({m.get('size')} config)"
        if m.get("params_B"):
            title += f", {m['params_B']} B parameters"
        more = "".join(f", {k} {m[k]}" for k in ("y", "guidance") if m.get(k))
        lines = [f"# Accel Multi-GPU: {title} per-step forward (batch 2 = cond + uncond)", "",
                 f"GPU: {m.get('gpu') or m.get('device')} x{m.get('visible_gpus')}, ComfyUI {m.get('comfyui')}, "
                 f"torch {m.get('torch')}, {m.get('dtype')}, latent {m.get('latent')}, context "
                 f"{m.get('context')}{more}", "",
                 f"Attention (1 GPU and every rank): {m.get('attention') or 'ComfyUI default'}", "",
                 *runner.meta_markdown(self.res.get("run_meta")), "",
                 "| config | GPUs | CFG parallel | step ms | speed-up vs 1 | first call s | cosine vs 1 | max abs diff "
                 "|",
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
        c = runner.compare(a, b)
        return {"cosine": c["cosine"], "max_abs_diff": c["max_abs_diff"]}

    def timed(self, f, x, ctx, extra):
        from accel_harness.timing import timed

        return timed(lambda: f(x, 0.9, ctx, cond_or_uncond=[0, 1], **extra), "cuda" if self.cuda else "cpu",
                     warmup=self.a.warmup, reps=self.a.repeats)

    def build(self):
        """(ModelPatcher, label) of --family at --size: ComfyUI's own model class, random weights."""
        a, M = self.a, self.M
        if a.family == "wan":
            return M.wan_model("t2v", a.size, device=self.dev, dtype=self.dtype), f"Wan {a.size}"
        make = M.flux_model if a.family == "flux" else M.qwen_image_model
        return make(a.size, device=self.dev, dtype=self.dtype), f"{LABELS[a.family]} {a.size}"

    def inputs(self, model):
        """(x, context, extra conds) of one batch-2 forward (cond + uncond), seeded; the extra conds are what
        ComfyUI's model_base gives the family's forward besides x, timestep and context (Flux: y = the pooled
        CLIP output, guidance; Qwen-Image: none without a text mask). Shapes go into the results' meta."""
        torch, a, meta = self.torch, self.a, self.res["meta"]
        g = torch.Generator().manual_seed(0)
        x = torch.randn(*self.latent_shape(), generator=g)
        if a.family == "wan":
            return x, torch.randn(2, a.tokens, 4096, generator=g).to(self.dtype), {}
        dm = model.model.diffusion_model
        ctx = torch.randn(2, a.tokens, dm.txt_in.in_features, generator=g).to(self.dtype)
        meta["context"] = list(ctx.shape)
        extra = {}
        if a.family == "flux":
            extra["y"] = torch.randn(2, dm.vector_in.in_layer.in_features, generator=g).to(self.dtype)
            extra["guidance"] = torch.full((2,), a.guidance)
            meta["y"], meta["guidance"] = list(extra["y"].shape), f"{list(extra['guidance'].shape)} = {a.guidance}"
        meta["params_B"] = round(sum(p.numel() for p in dm.state_dict().values()) / 1e9, 2)
        return x, ctx, extra

    def record(self, key, fn):
        log(f"{key} ...")
        try:
            self.res["runs"][key] = fn()
            log(f"{key} = {json.dumps(self.res['runs'][key], default=str)[:300]}")
        except Exception as e:  # noqa: BLE001 - keep the other configurations
            self.res["runs"][key] = runner.failed_entry(self.res, key, e, log)
        self.save()

    def run(self):
        a = self.a
        t0 = time.time()
        model, label = self.build()
        self.res["meta"]["build_s"] = round(time.time() - t0, 1)
        log(f"built {label} in {time.time() - t0:.1f} s")
        if a.attention:
            override = self.H.pack_module("accel.attention.override")
            model, rep = override.apply_attention(model, a.attention, policy="error")
            self.res["meta"]["attention"] = rep
            log(f"attention: {rep}")
        x, ctx, extra = self.inputs(model)
        ref = {}

        def one():
            with self.Forward(model) as f:
                med, _, out = self.timed(f, x, ctx, extra)
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
                        f(x, 0.9, ctx, cond_or_uncond=[0, 1], **extra)
                        first = round(time.perf_counter() - t1, 2)
                        med, _, out = self.timed(f, x, ctx, extra)
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
    log(f"wrote {b.out / (b.name + '.json')} and .md")
    return 1 if b.res["errors"] else 0


if __name__ == "__main__":
    sys.exit(main())
