"""End to end through a live ComfyUI server: the shipped Wan 2.1 T2V API workflow, stock vs accelerated, per stage.

What it does (issue #15 item 3):
  * writes random-weight model files at the true configs into a server base folder: the Wan 2.1 T2V
    diffusion model (1.3B or 14B, bf16), the umt5-xxl text encoder (random bf16, ~11 GB: generated on the GPU
    when there is one, written once and reused with --base), the Wan 2.1 VAE (bf16), under the file names the
    shipped workflow names;
  * starts ComfyUI's own main.py on that folder (accel_harness.server.ComfyServer: a fresh server per variant,
    so every run pays text-encoder and model loading like a user's first Queue);
  * posts workflows/api/wan2.1_t2v_1.3B_level1.json with steps / frames / size reduced by the options:
      stock         the same prompt with every Accel node bypassed (links go to the node's model input);
      level1        as shipped (Accel Wan Level-1 on the model);
      level1+vae    as shipped plus Accel VAE with the node's defaults on the VAE;
      level1+vae_fused  as level1+vae with fused_norm on (the fused RMSNorm+SiLU);
      level1+vae_fast   as level1+vae_fused with cudnn_benchmark on too (fastest decode; the first pays a search);
  * queues the prompt `--queues` times on the same server (default 2), the KSampler seed changed each time:
    Queue 1 pays loading, compiles and cuDNN searches like a user's first Queue; Queue 2 is what every later
    Queue costs (ComfyUI's cache skips the unchanged loaders, text encode and patch nodes, as for a user);
  * records the websocket `executing` events per node and reports per-stage wall time (text encoder load,
    text encode, model load (file -> CPU; the GPU load happens inside the sampler), accel patch, sampler,
    VAE decode, save) and the total from POST /prompt to the history entry.

Run (GPU machine, repo root, after `source bench/gpu_env.sh 033`):
    python3 bench/bench_e2e.py --out bench/results/h100                     # 1.3B, 4 steps, 81 frames 480p
    python3 bench/bench_e2e.py --out bench/results/h100 --size 14B --variants stock,level1+vae
CPU smoke (tiny Wan + tiny Wan VAE, AccelRandomConditioning instead of umt5, no compile):
    python bench/bench_e2e.py --smoke --out /tmp/e2esmoke
Expected GPU time (H100, 1.3B): ~1.5 min writing model files (umt5 11 GB), then ~1-1.5 min per variant
(server start, loads, 4 steps, a ~1 min cold compile for Level-1, decode of 81 frames). Results are written
after every variant.
"""
from __future__ import annotations

import argparse
import copy
import json
import os
import sys
import tempfile
import time
import traceback
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
NAME = "e2e"
WORKFLOW = REPO / "workflows" / "api" / "wan2.1_t2v_1.3B_level1.json"
VARIANTS = ("stock", "level1", "level1+vae", "level1+vae_fused", "level1+vae_fast")
STAGES = {  # class_type -> stage
    "CLIPLoader": "text encoder load", "CLIPTextEncode": "text encode", "AccelRandomConditioning": "text encode",
    "UNETLoader": "model load", "VAELoader": "vae load", "KSampler": "sampler", "KSamplerAdvanced": "sampler",
    "VAEDecode": "VAE decode", "VAEDecodeTiled": "VAE decode", "CreateVideo": "save", "SaveVideo": "save",
    "SaveLatent": "save", "SaveImage": "save", "SaveAnimatedWEBP": "save",
}


def parse(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--out", default=os.environ.get("OUT", "."), help="folder for e2e.json / e2e.md")
    ap.add_argument("--smoke", action="store_true", help="CPU, tiny models, random conditioning: end to end")
    ap.add_argument("--size", default="1.3B", choices=["1.3B", "14B"], help="Wan 2.1 T2V diffusion model size")
    ap.add_argument("--variants", default=",".join(VARIANTS), help="comma list of: " + ", ".join(VARIANTS))
    ap.add_argument("--steps", type=int, default=4)
    ap.add_argument("--frames", type=int, default=81)
    ap.add_argument("--width", type=int, default=832)
    ap.add_argument("--height", type=int, default=480)
    ap.add_argument("--queues", type=int, default=2, help="Queues per server (seed changed each time; >= 1)")
    ap.add_argument("--base", default=None, help="server base folder (model files are reused when present)")
    ap.add_argument("--timeout", type=float, default=540.0, help="seconds per prompt")
    ap.add_argument("--save", default="auto", choices=["auto", "video", "webp"],
                    help="video: the shipped CreateVideo -> SaveVideo (needs PyAV); webp: SaveAnimatedWEBP (Pillow); "
                         "auto: video where PyAV is installed")
    a = ap.parse_args(argv)
    if a.queues < 1:
        ap.error("--queues must be at least 1")
    if a.smoke:
        a.steps, a.frames, a.width, a.height = 2, 5, 64, 48
    if a.save == "auto":
        a.save = "video" if pyav_installed() else "webp"
    return a


def pyav_installed() -> bool:
    """True when the real PyAV imports (the GPU carry has an import-only stand-in that ComfyUI 0.33 needs to
    start; SaveVideo fails with it)."""
    try:
        import av
    except ImportError:
        return False
    return "stand-in" not in (av.__doc__ or "")


def log(msg):
    print(f"[bench_e2e {time.strftime('%H:%M:%S')}] {msg}", flush=True)


# --- prompts -----------------------------------------------------------------------------------------------

def load_workflow() -> dict:
    return json.loads(WORKFLOW.read_text())


def bypass_accel(prompt: dict) -> dict:
    """The stock twin: every Accel* node with a `model` input is removed, links to it go to its model input."""
    p = copy.deepcopy(prompt)
    accel = {k: v["inputs"]["model"] for k, v in p.items()
             if v["class_type"].startswith("Accel") and isinstance(v["inputs"].get("model"), list)}

    def resolve(link):
        while isinstance(link, list) and link[0] in accel:
            link = accel[link[0]]
        return link

    for k in accel:
        del p[k]
    for v in p.values():
        for name, val in v["inputs"].items():
            v["inputs"][name] = resolve(val)
    return p


def accel_vae_defaults() -> dict:
    """Accel VAE's inputs at the node's own defaults (read from its schema: one source of truth)."""
    sys.path.insert(0, str(REPO / "harness"))
    import accel_harness as H

    return {i.id: i.default for i in H.pack_module("nodes.vae").AccelVAE.inputs()
            if getattr(i, "default", None) is not None}


def with_accel_vae(prompt: dict, **options) -> dict:
    """Accel VAE (the node's defaults, `options` on top) between the VAE loader and every VAE Decode."""
    p = copy.deepcopy(prompt)
    loader = next(k for k, v in p.items() if v["class_type"] == "VAELoader")
    nid = str(max(int(k) for k in p) + 1)
    p[nid] = {"class_type": "AccelVAE", "_meta": {"title": "Accel VAE"},
              "inputs": {**accel_vae_defaults(), **options, "vae": [loader, 0]}}
    for v in p.values():
        if v["class_type"].startswith("VAEDecode") and v["inputs"].get("vae") == [loader, 0]:
            v["inputs"]["vae"] = [nid, 0]
    return p


def reseeded(prompt: dict, offset: int) -> dict:
    """The same prompt with every sampler's seed moved by `offset` (ComfyUI then re-runs the sampler, the VAE
    decode and the save, and serves the unchanged loaders, text encode and patch nodes from its cache)."""
    p = copy.deepcopy(prompt)
    for v in p.values():
        for key in ("seed", "noise_seed"):
            if v["class_type"].startswith("KSampler") and isinstance(v["inputs"].get(key), int):
                v["inputs"][key] += offset
    return p


def reduce(prompt: dict, a, unet_name: str, prefix: str) -> dict:
    """Steps, size, frames and file names from the options; smoke: random conditioning, no compile."""
    p = copy.deepcopy(prompt)
    for nid, v in p.items():
        ct, inp = v["class_type"], v["inputs"]
        if ct == "EmptyHunyuanLatentVideo":
            inp.update(width=a.width, height=a.height, length=a.frames)
        elif ct in ("KSampler", "KSamplerAdvanced"):
            inp["steps"] = a.steps
        elif ct == "UNETLoader":
            inp["unet_name"] = unet_name
        elif ct == "SaveVideo":
            inp["filename_prefix"] = f"e2e/{prefix}"
        elif ct == "AccelWanLevel1" and a.smoke:
            inp["compile"] = False  # an inductor compile of even the tiny model takes minutes on 2 CPU cores
        elif ct == "CLIPTextEncode" and a.smoke:
            p[nid] = {"class_type": "AccelRandomConditioning", "_meta": {"title": "random conditioning"},
                      "inputs": {"seed": int(nid), "tokens": 8, "dim": 4096, "scale": 1.0}}
    if a.smoke:
        p = {k: v for k, v in p.items() if v["class_type"] != "CLIPLoader"}
    if a.save == "webp":  # without PyAV: the decoded frames as an animated WEBP (Pillow), same frames and fps
        for nid, v in list(p.items()):
            if v["class_type"] == "CreateVideo":
                saver = next(k for k, w in p.items() if w["class_type"] == "SaveVideo" and w["inputs"]["video"][0] == nid)
                p[saver] = {"class_type": "SaveAnimatedWEBP", "_meta": {"title": "save (animated WEBP: no PyAV)"},
                            "inputs": {"images": v["inputs"]["images"], "filename_prefix": f"e2e/{prefix}",
                                       "fps": float(v["inputs"].get("fps", 16)), "lossless": False, "quality": 80,
                                       "method": "fastest"}}
                del p[nid]
    return p


def variant_prompt(variant: str, a, unet_name: str) -> dict:
    base = load_workflow()
    if variant == "stock":
        p = bypass_accel(base)
    elif variant == "level1":
        p = base
    elif variant == "level1+vae":
        p = with_accel_vae(base)
    elif variant == "level1+vae_fused":
        p = with_accel_vae(base, fused_norm=True)
    elif variant == "level1+vae_fast":
        p = with_accel_vae(base, fused_norm=True, cudnn_benchmark=True)
    else:
        raise ValueError(f"unknown variant {variant!r}")
    return reduce(p, a, unet_name, variant.replace("+", "_"))


def stage_times(prompt: dict, node_seconds: dict) -> dict:
    out: dict = {}
    for nid, s in node_seconds.items():
        ct = prompt.get(nid, {}).get("class_type", "?")
        stage = STAGES.get(ct, "accel patch" if ct.startswith("Accel") else "other")
        out[stage] = round(out.get(stage, 0.0) + s, 3)
    return out


# --- model files ----------------------------------------------------------------------------------------

def umt5_xxl_state_dict(device="cpu", dtype=None, seed=0) -> dict:
    """Random umt5-xxl encoder weights in the checkpoint layout CLIPLoader(type wan) reads (true size)."""
    import torch

    import comfy.ops
    from comfy.text_encoders import t5

    cfg = json.loads((Path(t5.__file__).parent / "umt5_config_xxl.json").read_text())
    with torch.device("meta"):
        m = t5.T5(cfg, dtype=torch.bfloat16, device="meta", operations=comfy.ops.manual_cast)
    g = torch.Generator(device=device).manual_seed(seed)
    sd = {}
    for name, t in m.state_dict().items():
        if "norm" in name:
            x = torch.ones(t.shape, device=device)
        elif name.endswith("relative_attention_bias.weight"):
            x = 0.1 * torch.randn(t.shape, generator=g, device=device)
        else:
            x = torch.randn(t.shape, generator=g, device=device) / (t.shape[-1] ** 0.5)
        sd[name] = x.to(dtype or torch.bfloat16).cpu()
    # the published umt5 checkpoints carry their SentencePiece model as a uint8 tensor `spiece_model`;
    # ComfyUI's CLIPLoader builds the tokenizer from it ("invalid tokenizer" without it)
    sd["spiece_model"] = torch.frombuffer(bytearray(spiece_model_bytes()), dtype=torch.uint8)
    return sd


def spiece_model_bytes(vocab_size: int = 512) -> bytes:
    """A small SentencePiece model trained here on a fixed English word list (no download): token ids stay
    below umt5's vocabulary, so any prompt encodes; its ids are not umt5's (random weights anyway)."""
    import io

    import sentencepiece as spm

    words = ("a the of and in on with at by from red green blue cat dog bird tree river mountain sky city night "
             "day light dark fast slow walking running flying camera pans zooms close wide shot video of scene "
             "high quality detailed cinematic sunset rain snow wind water fire smoke street car boat").split()
    lines = [" ".join(words[(i * 7 + j) % len(words)] for j in range(12)) for i in range(2000)]
    buf = io.BytesIO()
    spm.SentencePieceTrainer.train(sentence_iterator=iter(lines), model_writer=buf, vocab_size=vocab_size,
                                   hard_vocab_limit=False, model_type="unigram", character_coverage=1.0,
                                   minloglevel=2)
    return buf.getvalue()


def write_models(a, base: Path, M) -> dict:
    """The model files the prompt names, written once per base folder. Returns what was written and how long."""
    import torch

    wf = load_workflow()
    names = {v["class_type"]: v["inputs"] for v in wf.values()}
    unet = f"wan2.1_t2v_{a.size}_random.safetensors" if not a.smoke else "wan2.1_t2v_tiny_random.safetensors"
    files = {"diffusion_models": unet, "vae": names["VAELoader"]["vae_name"]}
    if not a.smoke:
        files["text_encoders"] = names["CLIPLoader"]["clip_name"]
    info = {}
    cuda = torch.cuda.is_available() and not a.smoke
    for folder, fname in files.items():
        path = base / "models" / folder / fname
        if path.exists():
            info[folder] = {"file": fname, "reused": True}
            continue
        t0 = time.perf_counter()
        if folder == "diffusion_models":
            sd = M.wan_state_dict("t2v", "tiny" if a.smoke else a.size, dtype=torch.bfloat16,
                                  device="cuda" if cuda else "cpu")
        elif folder == "vae":
            sd = M.wan21_vae_state_dict("tiny" if a.smoke else "true", dtype=torch.bfloat16)
        else:
            sd = umt5_xxl_state_dict(device="cuda" if cuda else "cpu")
        M.save_safetensors(sd, path)
        n = sum(t.numel() for t in sd.values())
        del sd
        info[folder] = {"file": fname, "params": n, "write_s": round(time.perf_counter() - t0, 1)}
        log(f"wrote {folder}/{fname}: {n / 1e9:.2f} B params in {info[folder]['write_s']} s")
        if cuda:
            torch.cuda.empty_cache()
    return {"unet": unet, "files": info}


# --- the run --------------------------------------------------------------------------------------------

def run_variant(a, base: Path, variant: str, unet: str) -> dict:
    from accel_harness.server import EventListener, execution_error, serving

    prompt = variant_prompt(variant, a, unet)
    row = {"variant": variant, "nodes": {k: v["class_type"] for k, v in prompt.items()}}
    t0 = time.perf_counter()
    with serving(base, cpu=True if a.smoke else None) as srv:
        row["server_start_s"] = round(srv.startup_s or (time.perf_counter() - t0), 2)
        row["queues"] = []
        with EventListener(srv) as ev:
            for i in range(a.queues):
                p = reseeded(prompt, i)
                t1 = time.perf_counter()
                pid = srv.submit(p, client_id=ev.client_id)
                entry = srv.wait(pid, timeout=a.timeout)
                total = round(time.perf_counter() - t1, 3)
                time.sleep(0.3)  # the last websocket events
                if entry.get("status", {}).get("status_str") != "success":
                    raise RuntimeError(f"{variant}, Queue {i + 1}: {execution_error(entry)}")
                per_node = ev.node_seconds(pid)
                row["queues"].append({
                    "queue": i + 1, "total_s": total, "stages_s": stage_times(p, per_node),
                    "per_node_s": {f"{k} {p.get(k, {}).get('class_type', '?')}": round(v, 3) for k, v in per_node.items()},
                    "outputs": [str(f.relative_to(base)) for f in srv.output_files(entry)]})
        row["listener_error"] = repr(ev.error) if ev.error else None
    first = row["queues"][0]  # the first Queue's figures also at the top level (earlier results' layout)
    row.update(total_s=first["total_s"], stages_s=first["stages_s"], per_node_s=first["per_node_s"],
               outputs=first["outputs"])
    return row


def markdown(res: dict) -> str:
    m = res.get("meta", {})
    stages = ["text encoder load", "text encode", "model load", "vae load", "accel patch", "sampler", "VAE decode",
              "save", "other"]
    lines = [f"# End to end: {m.get('workflow')} ({m.get('gpu') or 'CPU smoke'})", "",
             f"torch {m.get('torch')}, ComfyUI {m.get('comfyui')}, Wan 2.1 T2V {m.get('size')}, {m.get('steps')} steps, "
             f"{m.get('frames')} frames {m.get('width')}x{m.get('height')}; random weights at true configs; a fresh "
             f"server per variant, queued {m.get('queues', 1)} time(s) with the seed changed (Queue 1: loads, compiles "
             "and cuDNN searches included, as a user's first Queue; Queue 2 on: what every later Queue costs, "
             "unchanged loaders and encoders served from ComfyUI's cache). Stage = wall time between the node's "
             "`executing` event and the next one (websocket). Total = POST /prompt to the history entry."
             + (" Save: SaveAnimatedWEBP (PyAV not installed there), not the shipped SaveVideo."
                if m.get("save") == "webp" else ""), "",
             f"Command: `{res.get('command')}`", "",
             "| variant | Queue | " + " | ".join(stages) + " | total (s) |", "|---" * (len(stages) + 3) + "|"]
    for r in res["rows"]:
        if "error" in r:
            lines.append(f"| {r['variant']} | | error: {r['error'][:200]} |" + " |" * len(stages))
            continue
        for q in r.get("queues") or [{"queue": 1, "stages_s": r.get("stages_s", {}), "total_s": r["total_s"]}]:
            st = q["stages_s"]
            lines.append(f"| {r['variant']} | {q['queue']} | " + " | ".join(str(st.get(s, "")) for s in stages)
                         + f" | {q['total_s']} |")
    if res.get("errors"):
        lines += ["", "Errors: " + "; ".join(res["errors"])]
    return "\n".join(lines) + "\n"


def main(argv=None):
    a = parse(argv)
    out = Path(a.out)
    out.mkdir(parents=True, exist_ok=True)
    sys.path.insert(0, str(REPO / "harness"))
    import accel_harness as H

    H.bootstrap(cpu=True if a.smoke else False)
    import torch

    from accel_harness import models as M

    res = {"name": NAME, "command": " ".join([sys.executable] + sys.argv), "rows": [], "errors": []}
    comfy_v = H.comfy_version()
    res["meta"] = {"workflow": WORKFLOW.name, "torch": torch.__version__, "comfyui": comfy_v,
                   "gpu": torch.cuda.get_device_name(0) if torch.cuda.is_available() and not a.smoke else None,
                   "size": "tiny" if a.smoke else a.size, "steps": a.steps, "frames": a.frames, "width": a.width,
                   "height": a.height, "save": a.save, "queues": a.queues}

    def save():
        (out / f"{NAME}.json").write_text(json.dumps(res, indent=1, default=str))
        (out / f"{NAME}.md").write_text(markdown(res))

    base = Path(a.base) if a.base else Path(tempfile.mkdtemp(prefix="accel-e2e-"))
    t0 = time.time()
    models = write_models(a, base, M)
    res["meta"]["models"] = models["files"]
    save()
    for variant in [v.strip() for v in a.variants.split(",") if v.strip()]:
        try:
            row = run_variant(a, base, variant, models["unet"])
            log(f"{variant}: total {row['total_s']} s, stages {row['stages_s']}")
        except Exception as e:  # keep the other variants
            row = {"variant": variant, "error": f"{type(e).__name__}: {e}"[:2000], "traceback": traceback.format_exc()[-3000:]}
            res["errors"].append(f"{variant}: {type(e).__name__}: {str(e)[:300]}")
            log(f"FAILED {variant}: {e!r}"[:1000])
        res["rows"].append(row)
        save()
    res["total_s"] = round(time.time() - t0, 1)
    save()
    print(markdown(res))
    return 0


if __name__ == "__main__":
    sys.exit(main())
