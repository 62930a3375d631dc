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
      level1_fast   as shipped with Level-1's `quality: fast` on every Level-1 node (FP8 attention, opt-in);
  * queues the prompt `--queues` times on the same server (default 2), the KSampler seed changed each time:
    Queue 1 pays loading, compiles and cuDNN searches like a user's first Queue; Queue 2 is what every later
    Queue costs (ComfyUI's cache skips the unchanged loaders, text encode and patch nodes, as for a user);
    then one Queue per `--changes` entry (default lora,resolution), each changing one thing from the Queue before:
    every LoRA's strength 1.0 -> 0.7 (workflows with LoRAs), then width and height swapped (832x480 -> 480x832):
    what a user's first Queue after such a change costs (a recompile, a re-patch);
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

The users' workflow (issue #27 item 4): `--workflow wan22_t2v_lightx2v` / `wan22_i2v_lightx2v` posts the shipped
API twins workflows/api/wan2.2_{t2v,i2v}_A14B_lightx2v_4step_level1.json: two experts (UNETLoader x2), a LightX2V
LoRA on each (LoraLoaderModelOnly), ModelSamplingSD3 shift 5, 4 steps at CFG 1 split 2 + 2 over two
KSamplerAdvanced, the umt5 text encoder, the Wan 2.1 VAE (I2V: LoadImage -> WanImageToVideo; the Wan 2.2 I2V
experts take no CLIP vision). Every file name the workflow loads gets a random file in the published layout:
  * experts: ComfyUI's scaled-fp8 layout (fp8 e4m3fn block weights, per-tensor `scale_weight`, the `scaled_fp8`
    marker; accel_harness.models.comfy_scaled_fp8) of a Wan state dict at --size (14B = the A14B experts' Wan
    dims) generated on the GPU in bf16. ONE random file is written; both expert names are symlinks to it (the meta
    says so: both experts load one random file, as two separate models);
  * LoRAs: LightX2V key layout (lora_down / lora_up / alpha on every block Linear, diff_b, diff), rank
    --lora-rank (32), factors x0.02, bf16, a different seed per expert;
  * text encoder umt5_xxl_fp8_e4m3fn_scaled: random umt5-xxl in ComfyUI's scaled-fp8 text-encoder layout
    (--te-format fp8_scaled, the default for these workflows; bf16 for the 1.3B workflow, as before);
  * VAE wan_2.1_vae at its true config; I2V: a random PNG as the workflow's input image.
  The real files are written once per --base under `random_*` names (size, rank and format in the name) and the
  workflow's names are symlinks to them, so one --base serves several sizes and is reused on the next run.
  Samplers are reported per expert ("sampler high-noise", "sampler low-noise": the UNETLoader file name at the
  head of the sampler's model chain).
Variants with Accel Save Video in place of VAE Decode -> Create Video -> Save Video (the node decodes and encodes
while decoding; its stage is "decode + save"): level1+save (the shipped A14B graph without its Accel VAE: it
saves with Accel Save Video, x264 preset faster), level1+save_medium (the same at Save Video's preset, medium),
level1+vae+save (the shipped A14B graph with Level-1's prefetch_weights off: Accel VAE at the workflow's values in
front of Accel Save Video; on a workflow without one, Accel VAE at the node's defaults), stock+save (stock ComfyUI
with it only). `stock`, `level1` and `level1+vae` run the graph with ComfyUI's own three nodes in its place
(with_core_save); every variant
but the `+vae` ones leaves the shipped Accel VAE out (without_accel_vae), and every one but the `+prefetch` ones
runs Level-1 with prefetch_weights off (the A14B workflows ship it on).
Variants, besides the ones above (each replaces every Accel Wan Level-1 node, at its place in the model chain):
      kj_sage_compile  KJNodes PathchSageAttentionKJ (sage_attention auto) -> TorchCompileModelAdvanced (defaults);
                       KJNodes from $KJNODES_PATH (default /tmp/carry/kjnodes), linked into the server's
                       custom_nodes for this variant only;
      core_compile     ComfyUI's TorchCompileModel (backend inductor);
      core_ck_int8     ComfyUI's ModelAttentionBackend "comfy kitchen attention" (an error row where this
                       ComfyUI / GPU does not offer it in /object_info).
      level1+prefetch  level1 with Level-1's prefetch_weights on (the next block's streamed weights fetched
                       while a block runs: cards where ComfyUI streams the weights, --card N --occupy), ComfyUI's save;
      level1+save+prefetch  the same with Accel Save Video (level1+save, prefetch_weights on);
      level1+vae+save+prefetch  the shipped A14B graph as it is (level1+vae+save with prefetch_weights on);
      level1_fast+vae+save+prefetch  the shipped A14B graph with Level-1's opt-in `quality: fast` (FP8 attention
                       outside the schedule's first and last steps): the opt-in row of the whole Queue;
      level1_sparse+vae+save+prefetch  the same with Level-1's opt-in `quality: sparse (radial, opt-in)` (radial
                       sparse attention, dense on the first steps and blocks; flash-attn-4 where installed);
  and, for the A14B workflows, the experts loaded from a Q8_0 GGUF file of the same random weights
  (accel_harness.gguf_files) by ComfyUI-GGUF's UnetLoaderGGUF in place of each UNETLoader:
      gguf             stock ComfyUI on the GGUF experts;
      gguf+level1      the shipped graph (Accel Wan Level-1 on each expert) on the GGUF experts;
                       ComfyUI-GGUF from $GGUF_NODES_PATH (default /tmp/gguf/ComfyUI-GGUF: bench/prepare_gguf_carry.sh),
                       linked into the server's custom_nodes for these variants only; the `gguf` package importable.
  Inputs the command does not set take the node's defaults from the live server's /object_info.
`--compile-cache fresh`: each server gets an empty TORCHINDUCTOR_CACHE_DIR (Queue 1 = a user's very first run);
the default `shared` leaves the cache as set (gpu_env.sh: /tmp/inductor-cache), so a variant whose graphs an
earlier one (or an earlier run) compiled starts warm, like a ComfyUI restart.
A variant may end in `@FLAG@FLAG...`: its server gets these ComfyUI flags besides the run's own (`--comfy-args`, the
card's), so one run compares a flag with the default, e.g. `--variants stock,level1+vae+save+prefetch,
level1+vae+save+prefetch@--disable-cuda-malloc` (the row's `server_flags` lists them; its variant is the whole string).
Simulated small card: `--card N` gives the server --reserve-vram (total - N); `--card N --occupy` instead has a
child process take (free - N) GiB of the GPU (a plain torch allocation, bench_matrix.occupy) after the model files
are written and before the first server starts, held until the benchmark ends: every allocator sees N GiB.

Per stage, every time (the whole Queue on the shipped A14B workflows, with the workflow's own save: PyAV carried,
bench/prepare_av_carry.sh): stock, the pack and Accel Save Video, then the peers, each call with its own stock:
    python3 bench/bench_e2e.py --workflow wan22_t2v_lightx2v --size 14B --variants stock,level1,level1+save \
        --save video --compile-cache fresh --base /tmp/e2e-base --out bench/results/h200/e2e_queue_t2v
    python3 bench/bench_e2e.py --workflow wan22_t2v_lightx2v --size 14B \
        --variants stock,level1+vae+save,kj_sage_compile,core_ck_int8 --save video --compile-cache fresh \
        --base /tmp/e2e-base --out bench/results/h200/e2e_queue_t2v_peers
Run the users' workflow (GPU machine, repo root, after `source bench/gpu_env.sh 033`); measured on an H100 (before
the change Queues): the first command 5.3 min (35 s of it writing the files), the second 2.9 min:
    python3 bench/bench_e2e.py --workflow wan22_t2v_lightx2v --size 14B --variants stock,level1,level1+vae \\
        --compile-cache fresh --base /tmp/e2e-base --out bench/results/h100
    python3 bench/bench_e2e.py --workflow wan22_t2v_lightx2v --size 14B --variants stock,level1 \\
        --card 24 --occupy --compile-cache fresh --base /tmp/e2e-base --out bench/results/h100
    python3 bench/bench_e2e.py --workflow wan22_t2v_lightx2v --size 14B \\
        --variants kj_sage_compile,core_compile,core_ck_int8 --compile-cache fresh --base /tmp/e2e-base \\
        --out bench/results/h100/e2e_peers
    python3 bench/bench_e2e.py --workflow wan22_i2v_lightx2v --size 14B --variants stock,level1 \\
        --compile-cache fresh --base /tmp/e2e-base --out bench/results/h100
    python3 bench/bench_e2e.py --workflow wan22_t2v_lightx2v --size 14B --variants gguf,gguf+level1 \\
        --compile-cache fresh --base /tmp/e2e-base --out bench/results/h100/e2e_gguf
  Each variant's server reports its peak host RSS (VmHWM of the ComfyUI process, after each Queue: the row's
  `server_peak_rss_gib`, listed under the table).
  Small cards, stock vs Level-1 vs Level-1 + prefetch (H200; each call about 5 min, the first one plus the files):
    python3 bench/bench_e2e.py --workflow wan22_t2v_lightx2v --size 14B --variants stock,level1,level1+prefetch \\
        --changes none --card 16 --occupy --base /tmp/e2e-base --out bench/results/h200/e2e_prefetch_033/card16
  Results: <out>/e2e_<workflow>[_card<N>].json / .md (a second run into the same --out replaces them), and each
  variant's own part of the server console in <out>/server_logs/<variant>.log (its notable lines, such as a VAE decode
  retried tiled or a fallback, in the row's `server_log_notes` and under the table). Random weights show speed,
  never quality.
CPU smoke of the users' workflow (tiny experts in the scaled-fp8 layout, tiny LoRAs, random conditioning
instead of umt5, tiny VAE): python bench/bench_e2e.py --smoke --workflow wan22_t2v_lightx2v --out /tmp/e2esmoke
"""
from __future__ import annotations

import copy
import json
import os
import re
import statistics
import sys
import tempfile
import time
import traceback
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "bench"))
import runner  # noqa: E402  bench/runner.py: shared CLI, metadata, result files (imports no torch)

NAME = "e2e"
WORKFLOWS = {  # --workflow -> the shipped API twin
    "wan21_t2v_1.3B": "wan2.1_t2v_1.3B_level1.json",
    "wan22_t2v_lightx2v": "wan2.2_t2v_A14B_lightx2v_4step_level1.json",
    "wan22_i2v_lightx2v": "wan2.2_i2v_A14B_lightx2v_4step_level1.json",
}
DEFAULT_WORKFLOW = "wan21_t2v_1.3B"
WORKFLOW = REPO / "workflows" / "api" / WORKFLOWS[DEFAULT_WORKFLOW]
VARIANTS = ("stock", "level1", "level1+vae", "level1+vae_fused", "level1+vae_fast", "level1_fast")
# Accel Save Video in place of VAE Decode -> Create Video -> Save Video (it decodes and encodes while decoding): the
# shipped A14B graph without its Accel VAE (`level1+save`; at Save Video's x264 preset `level1+save_medium`), with it
# (`level1+vae+save`: the shipped graph with prefetch_weights off), and stock ComfyUI with it only
SAVE_VARIANTS = ("level1+save", "level1+save_medium", "level1+vae+save", "stock+save")
# what each Queue after the seed-changed ones changes (--changes), each from the Queue before it
CHANGES = {"lora": "LoRA strength 1.0 -> 0.7", "resolution": "resolution swapped (portrait)"}
PEER_VARIANTS = ("kj_sage_compile", "core_compile", "core_ck_int8")
# Level-1 with prefetch_weights on (accel/compile/prefetch.py): with ComfyUI's save (`level1+prefetch`), and with
# Accel Save Video (`level1+save+prefetch`), both without the shipped Accel VAE; the shipped graph as it is with it
# on (`level1+vae+save+prefetch`)
PREFETCH_VARIANTS = ("level1+prefetch", "level1+save+prefetch", "level1+vae+save+prefetch")
# the shipped A14B graph with an opt-in choice that trades accuracy (its report says what it cost)
OPTIN_VARIANTS = ("level1_fast+vae+save+prefetch", "level1_sparse+vae+save+prefetch")
OPTIN_QUALITY = {"level1_fast": "fast", "level1_sparse": "sparse (radial, opt-in)"}  # a variant's head -> quality
# the A14B workflows with their experts loaded from a Q8_0 GGUF file by ComfyUI-GGUF's "Unet Loader (GGUF)" (a peer
# pack, benchmarks only) in place of Load Diffusion Model: stock, and the shipped graph (Level-1 on each expert)
GGUF_VARIANTS = ("gguf", "gguf+level1")
ALL_VARIANTS = VARIANTS + SAVE_VARIANTS + PREFETCH_VARIANTS + OPTIN_VARIANTS + PEER_VARIANTS + GGUF_VARIANTS
DEFAULT_VARIANTS = {DEFAULT_WORKFLOW: VARIANTS[:5], "wan22_t2v_lightx2v": ("stock", "level1", "level1+vae"),
                    "wan22_i2v_lightx2v": ("stock", "level1", "level1+vae")}
PEER_NODES = ("PathchSageAttentionKJ", "TorchCompileModelAdvanced", "TorchCompileModel", "ModelAttentionBackend",
              "UnetLoaderGGUF")
KJNODES_LINK = "ComfyUI-KJNodes"
GGUF_LINK = "ComfyUI-GGUF"
STAGES = {  # class_type -> stage (samplers: sampler_stage names them per expert where there are several)
    "CLIPLoader": "text encoder load", "CLIPTextEncode": "text encode", "AccelRandomConditioning": "text encode",
    "UNETLoader": "model load", "UnetLoaderGGUF": "model load", "LoraLoaderModelOnly": "LoRA load",
    "VAELoader": "vae load",
    "LoadImage": "image load", "WanImageToVideo": "image encode",
    "KSampler": "sampler", "KSamplerAdvanced": "sampler",
    "VAEDecode": "VAE decode", "VAEDecodeTiled": "VAE decode", "CreateVideo": "save", "SaveVideo": "save",
    "SaveLatent": "save", "SaveImage": "save", "SaveAnimatedWEBP": "save", "AccelSaveVideo": "decode + save",
    **{c: "peer patch" for c in PEER_NODES if c != "UnetLoaderGGUF"},
}
STAGE_ORDER = ["text encoder load", "text encode", "model load", "LoRA load", "vae load", "image load",
               "image encode", "accel patch", "peer patch", "sampler", "sampler high-noise", "sampler low-noise",
               "VAE decode", "save", "decode + save", "other"]


def parse(argv=None):
    ap = runner.parser(__doc__, smoke="tiny models and random conditioning, a live server started with --cpu",
                       out_help="folder for e2e*.json / e2e*.md")
    ap.add_argument("--workflow", default=DEFAULT_WORKFLOW, choices=list(WORKFLOWS),
                    help="which shipped API workflow: " + ", ".join(f"{k} ({v})" for k, v in WORKFLOWS.items()))
    ap.add_argument("--size", default=None, choices=["tiny", "1.3B", "14B"],
                    help="Wan diffusion model size (default: 1.3B for wan21_t2v_1.3B, 14B for the A14B workflows; "
                         "--smoke: tiny)")
    ap.add_argument("--variants", default=None,
                    help="comma list of: " + ", ".join(ALL_VARIANTS) + "; NAME@FLAG@FLAG... runs NAME on a server "
                         "started with these ComfyUI flags too (e.g. level1+vae+save+prefetch@--disable-cuda-malloc)"
                         + " (default: all of the first five for wan21_t2v_1.3B, stock,level1,level1+vae otherwise)")
    ap.add_argument("--steps", type=int, default=4)
    ap.add_argument("--frames", type=int, default=81)
    ap.add_argument("--width", type=int, default=832)
    ap.add_argument("--height", type=int, default=480)
    ap.add_argument("--queues", type=int, default=2, help="Queues per server (seed changed each time; >= 1); from 3 "
                    "on, each variant's median of Queue 2 to N too (`later_median`, a table of its own)")
    ap.add_argument("--changes", default="lora,resolution",
                    help="after those Queues, one Queue per change, each from the Queue before: lora (every LoRA's "
                         "strength 1.0 -> 0.7; workflows with LoRAs), resolution (width and height swapped); none")
    ap.add_argument("--base", default=None, help="server base folder (model files are reused when present)")
    ap.add_argument("--timeout", type=float, default=540.0, help="seconds per prompt")
    ap.add_argument("--save", default="auto", choices=["auto", "video", "webp"],
                    help="video: the shipped CreateVideo -> SaveVideo (needs PyAV); webp: SaveAnimatedWEBP (Pillow); "
                         "auto: video where PyAV is installed")
    ap.add_argument("--lora-rank", type=int, default=32, help="rank of the random LightX2V LoRAs (A14B workflows)")
    ap.add_argument("--expert-format", default="fp8_scaled", choices=["fp8_scaled", "bf16"],
                    help="A14B workflows: the experts' file layout (fp8_scaled: ComfyUI's scaled-fp8, as published)")
    ap.add_argument("--te-format", default=None, choices=["fp8_scaled", "bf16"],
                    help="the umt5 file's layout (default: fp8_scaled for the A14B workflows, bf16 for the 1.3B one)")
    ap.add_argument("--card", type=float, default=None,
                    help="simulate a card of N GiB: the server gets --reserve-vram (total - N), or with --occupy a "
                         "child process holds the rest of the GPU")
    ap.add_argument("--compile-cache", default="shared", choices=["shared", "fresh"],
                    help="shared: every server uses TORCHINDUCTOR_CACHE_DIR as set (a later variant or run may find "
                         "its graphs compiled: Queue 1 as after a ComfyUI restart); fresh: an empty inductor cache "
                         "per server (Queue 1 as a user's very first run)")
    ap.add_argument("--comfy-args", default="",
                    help="extra ComfyUI command-line arguments for every server, written with '=' since they start "
                         "with a dash (e.g. --comfy-args=--disable-dynamic-vram: the legacy loader)")
    ap.add_argument("--occupy", action="store_true", help="with --card: occupy (free - N) GiB of the GPU in a child "
                    "process before the first server starts, until the benchmark ends")
    a = ap.parse_args(argv)
    if a.queues < 1:
        ap.error("--queues must be at least 1")
    if a.occupy and not a.card:
        ap.error("--occupy needs --card N (the GiB the server may use)")
    a.wan22 = a.workflow != DEFAULT_WORKFLOW
    if a.smoke:
        a.steps, a.frames, a.width, a.height = 2, 5, 64, 48
        a.size = "tiny"
    elif a.size is None:
        a.size = "14B" if a.wan22 else "1.3B"
    if a.te_format is None:
        a.te_format = "fp8_scaled" if a.wan22 else "bf16"
    if a.variants is None:
        a.variants = ",".join(DEFAULT_VARIANTS[a.workflow])
    known = ALL_VARIANTS
    bad = [v for v in a.variants.split(",") if v.strip() and split_variant(v)[0] not in known]
    if bad:
        ap.error(f"--variants: unknown {', '.join(bad)} (choose from {', '.join(known)}; a variant may end in "
                 "@FLAG@FLAG...: ComfyUI flags for its server only)")
    empty = [v for v in a.variants.split(",") if v.strip() and "" in split_variant(v)[1]]
    if empty:
        ap.error(f"--variants: an empty @FLAG in {', '.join(empty)} (write NAME@--flag@value)")
    a.changes = [c.strip() for c in a.changes.split(",") if c.strip() and c.strip() != "none"]
    if set(a.changes) - set(CHANGES):
        ap.error(f"--changes: unknown {', '.join(sorted(set(a.changes) - set(CHANGES)))} (choose from "
                 f"{', '.join(CHANGES)}, none)")
    if not a.wan22 and any(split_variant(v)[0] in GGUF_VARIANTS for v in a.variants.split(",")):
        ap.error("--variants gguf*: only for the A14B workflows (--workflow wan22_*)")
    if a.save == "auto":
        a.save = "video" if pyav_installed() else "webp"
    if a.save == "webp" and any("+save" in split_variant(v)[0] for v in a.variants.split(",")):
        ap.error("--variants *+save: Accel Save Video writes a video with PyAV (not installed here, or --save webp)")
    return a


def pyav_installed() -> bool:
    """True when the real PyAV imports (the GPU carry has an import-only stand-in that ComfyUI 0.33 needs to
    start; SaveVideo fails with it)."""
    try:
        import av
    except ImportError:
        return False
    return "stand-in" not in (av.__doc__ or "")


log = runner.Log("bench_e2e")


def result_name(a) -> str:
    name = NAME if a.workflow == DEFAULT_WORKFLOW else f"{NAME}_{a.workflow}"
    return name + (f"_card{a.card:g}" if a.card else "")


# --- prompts -----------------------------------------------------------------------------------------------

def workflow_path(name: str | None = None) -> Path:
    return REPO / "workflows" / "api" / WORKFLOWS[name or DEFAULT_WORKFLOW]


def load_workflow(name: str | None = None) -> dict:
    return json.loads(workflow_path(name).read_text())


def bypass_accel(prompt: dict) -> dict:
    """The stock twin: Accel Save Video back to ComfyUI's own nodes (with_core_save), then every Accel* node with a
    `model` input, and every Accel VAE, removed, links to it going to its model (VAE) input."""
    p = with_core_save(prompt)
    accel = {k: v["inputs"][k_in] for k, v in p.items() for k_in in ("model", "vae")
             if v["class_type"].startswith("Accel") and isinstance(v["inputs"].get(k_in), list)
             and (k_in == "model" or v["class_type"] == "AccelVAE")}

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


# what each peer variant puts where the workflow has Accel Wan Level-1: (class_type, inputs) from the model
# input on; inputs left out take the node's defaults from the server's /object_info (fill_defaults)
PEER_CHAINS = {
    "kj_sage_compile": [("PathchSageAttentionKJ", {"sage_attention": "auto"}), ("TorchCompileModelAdvanced", {})],
    "core_compile": [("TorchCompileModel", {"backend": "inductor"})],
    "core_ck_int8": [("ModelAttentionBackend", {"attention": "comfy kitchen attention"})],
}


def replace_level1(prompt: dict, chain: list) -> dict:
    """Every AccelWanLevel1 replaced by `chain` (class_type, inputs) nodes fed by its model input; the last node of
    the chain takes the Level-1 node's id, so whatever used its output now uses the chain's."""
    p = copy.deepcopy(prompt)
    nxt = max(int(k) for k in p) + 1
    for nid in [k for k, v in p.items() if v["class_type"] == "AccelWanLevel1"]:
        link = p[nid]["inputs"]["model"]
        for i, (ct, inputs) in enumerate(chain):
            last = i == len(chain) - 1
            new_id = nid if last else str(nxt)
            if not last:
                nxt += 1
            p[new_id] = {"class_type": ct, "_meta": {"title": ct}, "inputs": {**copy.deepcopy(inputs), "model": link}}
            link = [new_id, 0]
    return p


def fill_defaults(prompt: dict, object_info: dict, classes=PEER_NODES) -> dict:
    """Required inputs the prompt leaves out, for nodes of `classes`, at the node's default from /object_info
    (a combo without a default: its first option). Raises naming the node when the server does not know it, or
    when a value given is not one of a combo's options."""
    p = copy.deepcopy(prompt)
    for nid, v in p.items():
        ct = v["class_type"]
        if ct not in classes:
            continue
        if ct not in object_info:
            raise RuntimeError(f"node {nid}: this ComfyUI server has no {ct} node (for KJNodes: set KJNODES_PATH "
                               "to a ComfyUI-KJNodes checkout; see the server log for its import errors)")
        spec = object_info[ct].get("input", {})
        for group in ("required", "optional"):
            for name, decl in (spec.get(group) or {}).items():
                opts = decl[1] if len(decl) > 1 and isinstance(decl[1], dict) else {}
                options = decl[0] if isinstance(decl[0], list) else opts.get("options") if decl[0] == "COMBO" else None
                if name in v["inputs"]:
                    val = v["inputs"][name]
                    if options is not None and not isinstance(val, list) and val not in options:
                        raise RuntimeError(f"node {nid} ({ct}): {name}={val!r} is not offered by this server "
                                           f"(options: {options})")
                    continue
                if group != "required" or decl[0] in ("MODEL", "CLIP", "VAE", "LATENT", "CONDITIONING", "IMAGE"):
                    continue
                if "default" in opts:
                    v["inputs"][name] = opts["default"]
                elif options:
                    v["inputs"][name] = options[0]
    return p


def without_accel_vae(prompt: dict) -> tuple[dict, dict]:
    """(the prompt with every Accel VAE removed, its consumers taking its VAE input; the option inputs of the one
    removed, {} where there was none): the shipped A14B workflows decode through one, which the `level1` and
    `level1+save` variants leave out and the `+vae` ones put back with these values."""
    p = copy.deepcopy(prompt)
    found = {k: v for k, v in p.items() if v["class_type"] == "AccelVAE"}
    if len(found) > 1:
        raise ValueError(f"{len(found)} Accel VAE nodes: the variants put back one")
    options = {}
    for k, v in found.items():
        options = {n: x for n, x in v["inputs"].items() if n != "vae"}
        del p[k]
        for w in p.values():
            for name, val in w["inputs"].items():
                if val == [k, 0]:
                    w["inputs"][name] = v["inputs"]["vae"]
    return p, options


def with_accel_vae(prompt: dict, **options) -> dict:
    """Accel VAE (the node's defaults, `options` on top) between the VAE loader and every VAE Decode."""
    if any(v["class_type"] == "AccelVAE" for v in prompt.values()):
        raise ValueError("the prompt has an Accel VAE already (without_accel_vae takes it out)")
    p = copy.deepcopy(prompt)
    loader = next(k for k, v in p.items() if v["class_type"] == "VAELoader")
    nid = str(max(int(k) for k in p) + 1)
    p[nid] = {"class_type": "AccelVAE", "_meta": {"title": "Accel VAE"},
              "inputs": {**node_defaults("AccelVAE"), **options, "vae": [loader, 0]}}
    for v in p.values():
        if v["class_type"].startswith("VAEDecode") and v["inputs"].get("vae") == [loader, 0]:
            v["inputs"]["vae"] = [nid, 0]
    return p


def node_defaults(node_id: str) -> dict:
    """A pack node's inputs at its own defaults (read from its schema: one source of truth)."""
    sys.path.insert(0, str(REPO / "harness"))
    import accel_harness as H

    cls = H.pack_module("nodes").NODE_CLASS_MAPPINGS[node_id]
    return {i.id: i.default for i in cls.define_schema().inputs if getattr(i, "default", None) is not None}


def with_core_save(prompt: dict) -> dict:
    """Every Accel Save Video replaced by ComfyUI's own VAE Decode -> Create Video -> Save Video (`samples` + `vae`;
    with `images`, Create Video -> Save Video) with its fps, prefix, format and codec: VAE Decode (or Create Video)
    at its node id, the others at new ids. The shipped A14B workflows save with Accel Save Video; this is their
    graph as ComfyUI's own nodes save it (what the `stock` and `level1` variants run). with_accel_save undoes it."""
    p = copy.deepcopy(prompt)
    nxt = max(int(k) for k in p) + 1
    for nid in [k for k, v in p.items() if v["class_type"] == "AccelSaveVideo"]:
        inp = p[nid]["inputs"]
        meta = p[nid].get("_meta", {})
        if "samples" in inp:
            p[nid] = {"inputs": {"samples": inp["samples"], "vae": inp["vae"]}, "class_type": "VAEDecode",
                      "_meta": {"title": "VAE Decode"}}
            create, images = str(nxt), [nid, 0]
            nxt += 1
        else:
            if any(val == [nid, 0] for v in p.values() for val in v["inputs"].values()):
                raise ValueError(f"Accel Save Video {nid} ({meta.get('title')}) passes its images on: no core twin")
            create, images = nid, inp["images"]
        p[create] = {"inputs": {"images": images, "fps": inp.get("fps", 16.0)}, "class_type": "CreateVideo",
                     "_meta": {"title": "Create Video"}}
        p[str(nxt)] = {"inputs": {"video": [create, 0], "filename_prefix": inp["filename_prefix"],
                                  "format": inp.get("format", "auto"), "codec": inp.get("codec", "auto")},
                       "class_type": "SaveVideo", "_meta": {"title": "Save Video"}}
        nxt += 1
    return p


# Accel Save Video's inputs where it stands in for ComfyUI's nodes: the CPU encoder at Save Video's CRF (the node's
# `auto` would take NVENC where it opens, whose quality scale is not x264's), x264's preset the shipped A14B workflows
# set (scripts/workflow_defs.py FEWSTEP_CPU_PRESET; tests/workflows checks the two agree). `level1+save_medium`: the
# same with Save Video's own preset.
ACCEL_SAVE_INPUTS = {"encoder": "cpu", "cpu_preset": "faster"}
SAVE_VIDEO_PRESET = "medium"


def with_accel_save(prompt: dict, **inputs) -> dict:
    """Every VAE Decode -> Create Video -> Save Video replaced by one Accel Save Video (the node's defaults with
    ACCEL_SAVE_INPUTS and `inputs`, the workflow's fps, prefix, format and codec) taking VAE Decode's latent and VAE,
    at VAE Decode's node id: what scripts/workflow_defs.py builds for the shipped A14B workflows (save "accel")."""
    p = copy.deepcopy(prompt)
    for sid, save in [(k, v) for k, v in p.items() if v["class_type"] == "SaveVideo"]:
        vid = p[save["inputs"]["video"][0]]
        dec_id = vid["inputs"]["images"][0]
        dec = p[dec_id]
        if vid["class_type"] != "CreateVideo" or not dec["class_type"].startswith("VAEDecode"):
            raise ValueError(f"SaveVideo {sid} is not fed by VAE Decode -> Create Video")
        node = {**node_defaults("AccelSaveVideo"), **ACCEL_SAVE_INPUTS, **inputs, "samples": dec["inputs"]["samples"],
                "vae": dec["inputs"]["vae"], "fps": vid["inputs"]["fps"],
                "filename_prefix": save["inputs"]["filename_prefix"], "format": save["inputs"].get("format", "auto"),
                "codec": save["inputs"].get("codec", "auto")}
        del p[save["inputs"]["video"][0]], p[sid]
        p[dec_id] = {"inputs": node, "class_type": "AccelSaveVideo", "_meta": {"title": "Accel Save Video"}}
    return p


def changed(prompt: dict, change: str) -> dict:
    """The prompt with one CHANGES entry applied (None: the workflow has nothing it changes)."""
    p = copy.deepcopy(prompt)
    hit = False
    for v in p.values():
        inp = v["inputs"]
        if change == "lora" and v["class_type"] == "LoraLoaderModelOnly":
            inp["strength_model"] = round(inp["strength_model"] * 0.7, 6)
            hit = True
        elif change == "resolution" and v["class_type"] in ("EmptyHunyuanLatentVideo", "WanImageToVideo"):
            inp["width"], inp["height"] = inp["height"], inp["width"]
            hit = True
    return p if hit else None


def with_level1_inputs(prompt: dict, **inputs) -> dict:
    """The same prompt with `inputs` set on every Accel Wan Level-1 node."""
    p = copy.deepcopy(prompt)
    for v in p.values():
        if v["class_type"] == "AccelWanLevel1":
            v["inputs"].update(inputs)
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


def reduce(prompt: dict, a, unet_name: str | None, prefix: str) -> dict:
    """Steps, size, frames and file names from the options; smoke: random conditioning, no compile.
    `unet_name` None keeps the workflow's UNETLoader file names (the A14B workflows: links to the random file)."""
    p = copy.deepcopy(prompt)
    for nid, v in p.items():
        ct, inp = v["class_type"], v["inputs"]
        if ct in ("EmptyHunyuanLatentVideo", "WanImageToVideo"):
            inp.update(width=a.width, height=a.height, length=a.frames)
        elif ct == "KSampler":
            inp["steps"] = a.steps
        elif ct == "KSamplerAdvanced":  # the A14B split: high-noise expert 0 -> steps/2, low-noise steps/2 -> end
            if inp.get("start_at_step", 0) > 0:
                inp["start_at_step"] = a.steps // 2
            if inp.get("end_at_step", 10000) < inp.get("steps", 0):
                inp["end_at_step"] = a.steps // 2
            inp["steps"] = a.steps
        elif ct == "UNETLoader" and unet_name is not None:
            inp["unet_name"] = unet_name
        elif ct in ("SaveVideo", "AccelSaveVideo"):
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
                saver = next(k for k, w in p.items()
                             if w["class_type"] == "SaveVideo" and w["inputs"]["video"][0] == nid)
                p[saver] = {"class_type": "SaveAnimatedWEBP", "_meta": {"title": "save (animated WEBP: no PyAV)"},
                            "inputs": {"images": v["inputs"]["images"], "filename_prefix": f"e2e/{prefix}",
                                       "fps": float(v["inputs"].get("fps", 16)), "lossless": False, "quality": 80,
                                       "method": "fastest"}}
                del p[nid]
    return p


def gguf_name(unet_name: str) -> str:
    """The GGUF file name a workflow's expert file goes by (`..._fp8_scaled.safetensors` -> `..._Q8_0.gguf`)."""
    stem = unet_name.rsplit(".", 1)[0]
    for tag in ("_fp8_scaled", "_fp16", "_bf16"):
        if stem.endswith(tag):
            stem = stem[: -len(tag)]
    return stem + "_Q8_0.gguf"


def gguf_loaders(prompt: dict) -> dict:
    """Every UNETLoader replaced by ComfyUI-GGUF's UnetLoaderGGUF of the same expert's Q8_0 file (gguf_name)."""
    p = copy.deepcopy(prompt)
    for nid, v in p.items():
        if v["class_type"] == "UNETLoader":
            p[nid] = {"class_type": "UnetLoaderGGUF", "_meta": {"title": "Unet Loader (GGUF)"},
                      "inputs": {"unet_name": gguf_name(v["inputs"]["unet_name"])}}
    return p


def variant_prompt(variant: str, a, unet_name: str | None) -> dict:
    # level1: the shipped chain with core's save, without the shipped Accel VAE and with Level-1's prefetch_weights
    # off; the +vae variants put Accel VAE back. Level-1's inputs: a `level1_fast` / `level1_sparse` head sets its
    # opt-in quality (OPTIN_QUALITY), a `+prefetch` tail prefetch_weights on (so level1+vae+save+prefetch is the
    # shipped A14B graph as it is, since card16_output_vae/)
    base, shipped_vae = without_accel_vae(with_core_save(load_workflow(getattr(a, "workflow", None))))
    base = with_level1_inputs(base, prefetch_weights=False)
    graph, inputs = variant, {}
    if graph.endswith("+prefetch"):
        graph, inputs["prefetch_weights"] = graph[: -len("+prefetch")], True
    head = graph.split("+", 1)[0]
    if head in OPTIN_QUALITY:
        graph, inputs["quality"] = "level1" + graph[len(head):], OPTIN_QUALITY[head]
    if graph == "stock":
        p = bypass_accel(base)
    elif graph == "level1":
        p = base
    elif graph == "level1+vae":
        p = with_accel_vae(base, **shipped_vae)
    elif graph == "level1+vae_fused":
        p = with_accel_vae(base, fused_norm=True)
    elif graph == "level1+vae_fast":
        p = with_accel_vae(base, fused_norm=True, cudnn_benchmark=True)
    elif graph == "level1+save":
        p = with_accel_save(base)
    elif graph == "level1+save_medium":
        p = with_accel_save(base, cpu_preset=SAVE_VIDEO_PRESET)
    elif graph == "level1+vae+save":
        p = with_accel_save(with_accel_vae(base, **shipped_vae))
    elif graph == "stock+save":
        p = with_accel_save(bypass_accel(base))
    elif graph in PEER_CHAINS:
        p = replace_level1(base, PEER_CHAINS[graph])
    elif graph in GGUF_VARIANTS:
        p = gguf_loaders(bypass_accel(base) if graph == "gguf" else base)
    else:
        raise ValueError(f"unknown variant {variant!r}")
    if inputs:
        p = with_level1_inputs(p, **inputs)
    return reduce(p, a, unet_name, variant.replace("+", "_"))


def sampler_stage(prompt: dict, nid: str) -> str:
    """A sampler's stage name: "sampler high-noise" / "sampler low-noise" where the UNETLoader at the head of its
    model chain loads a high_noise / low_noise file, "sampler" for a single sampler, else "sampler (node N)"."""
    link = prompt[nid]["inputs"].get("model")
    seen = set()
    while isinstance(link, list) and link[0] in prompt and link[0] not in seen:
        seen.add(link[0])
        node = prompt[link[0]]
        if node["class_type"] in ("UNETLoader", "UnetLoaderGGUF"):
            name = str(node["inputs"].get("unet_name", ""))
            for tag in ("high_noise", "low_noise"):
                if tag in name:
                    return "sampler " + tag.replace("_", "-")
            break
        link = node["inputs"].get("model")
    n = sum(1 for v in prompt.values() if v["class_type"] in ("KSampler", "KSamplerAdvanced"))
    return "sampler" if n <= 1 else f"sampler (node {nid})"


def stage_times(prompt: dict, node_seconds: dict) -> dict:
    out: dict = {}
    for nid, s in node_seconds.items():
        ct = prompt.get(nid, {}).get("class_type", "?")
        stage = STAGES.get(ct, "accel patch" if ct.startswith("Accel") else "other")
        if stage == "sampler":
            stage = sampler_stage(prompt, nid)
        out[stage] = round(out.get(stage, 0.0) + s, 3)
    return out


# --- model files ----------------------------------------------------------------------------------------

def umt5_xxl_state_dict(device="cpu", dtype=None, seed=0, config: dict | None = None, fmt: str = "bf16") -> dict:
    """Random umt5-xxl encoder weights in the checkpoint layout CLIPLoader(type wan) reads (true size; `config`
    overrides entries of ComfyUI's umt5_config_xxl.json, for small stand-ins). fmt "fp8_scaled": ComfyUI's
    scaled-fp8 text-encoder layout (accel_harness.models.comfy_scaled_fp8_text_encoder, converted on `device`)."""
    import comfy.ops
    import torch
    from comfy.text_encoders import t5

    cfg = json.loads((Path(t5.__file__).parent / "umt5_config_xxl.json").read_text())
    cfg.update(config or {})
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
        sd[name] = x.to(dtype or torch.bfloat16)
    if fmt == "fp8_scaled":
        sys.path.insert(0, str(REPO / "harness"))
        from accel_harness import models as M

        sd = M.comfy_scaled_fp8_text_encoder(sd)
    elif fmt != "bf16":
        raise ValueError(f"unknown text encoder format {fmt!r}")
    sd = {k: v.cpu() for k, v in sd.items()}
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


def _written(path: Path, make, M) -> dict:
    """Write make() to `path` unless it exists (through a .partial file: an interrupted write is not reused)."""
    import torch

    if path.exists():
        return {"file": path.name, "reused": True}
    t0 = time.perf_counter()
    sd = make()
    tmp = path.with_name(path.name + ".partial")
    M.save_safetensors(sd, tmp)
    os.replace(tmp, path)
    n = sum(t.numel() for t in sd.values())
    del sd
    info = {"file": path.name, "params": n, "bytes": path.stat().st_size, "write_s": round(time.perf_counter() - t0, 1)}
    log(f"wrote {path.parent.name}/{path.name}: {n / 1e9:.2f} B params, {info['bytes'] / 2 ** 30:.1f} GiB "
        f"in {info['write_s']} s")
    if torch.cuda.is_available():
        torch.cuda.empty_cache()
    return info


def _link(link: Path, target: Path) -> None:
    """`link` (a workflow's file name) -> `target` (the random file beside it), replacing an older link."""
    if link.is_symlink() or link.exists():
        if link.is_symlink() and os.readlink(link) == target.name:
            return
        if not link.is_symlink():
            raise RuntimeError(f"{link} is a real file, not a link this benchmark made: give another --base")
        link.unlink()
    link.symlink_to(target.name)


def write_models(a, base: Path, M) -> dict:
    """The model files the prompt names, written once per base folder. Returns what was written and how long."""
    if getattr(a, "wan22", False):
        return write_models_wan22(a, base, M)
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
            sd = umt5_xxl_state_dict(device="cuda" if cuda else "cpu", fmt=getattr(a, "te_format", "bf16"))
        M.save_safetensors(sd, path)
        n = sum(t.numel() for t in sd.values())
        del sd
        info[folder] = {"file": fname, "params": n, "write_s": round(time.perf_counter() - t0, 1)}
        log(f"wrote {folder}/{fname}: {n / 1e9:.2f} B params in {info[folder]['write_s']} s")
        if cuda:
            torch.cuda.empty_cache()
    return {"unet": unet, "files": info}


def write_models_wan22(a, base: Path, M) -> dict:
    """The A14B workflows' files: one random expert file (both expert names link to it), a LoRA per expert, the
    umt5 text encoder (not in the smoke: random conditioning there), the Wan 2.1 VAE, I2V: the input image."""
    import torch

    wf = load_workflow(a.workflow)
    variant = "i2v" if "i2v" in a.workflow else "t2v"
    dev = "cuda" if torch.cuda.is_available() and not a.smoke else "cpu"
    models = base / "models"
    for sub in ("diffusion_models", "loras", "text_encoders", "vae"):
        (models / sub).mkdir(parents=True, exist_ok=True)
    info = {"diffusion_models": {}, "loras": {}}

    def expert():
        sd = M.wan_state_dict(variant, a.size, dtype=torch.bfloat16, device=dev)
        return M.comfy_scaled_fp8(sd) if a.expert_format == "fp8_scaled" else sd

    real = models / "diffusion_models" / f"random_wan22_{variant}_{a.size}_{a.expert_format}.safetensors"
    info["diffusion_models"]["random file"] = _written(real, expert, M)
    gguf = None
    if any(split_variant(v)[0] in GGUF_VARIANTS for v in a.variants.split(",")):
        # the same random weights (bf16, seed 0) as a Q8_0 GGUF file in ComfyUI-GGUF's layout
        from accel_harness import gguf_files

        gguf = models / "diffusion_models" / f"random_wan22_{variant}_{a.size}_Q8_0.gguf"
        took = gguf_files.wan_q8_0_file(gguf, variant, a.size, dev)
        if took is not None:
            log(f"wrote diffusion_models/{gguf.name} in {took:.0f} s")
        info["diffusion_models"]["random GGUF file"] = {"file": gguf.name, "format": "Q8_0"}
    loras = []
    for _, v in sorted(wf.items(), key=lambda kv: int(kv[0])):
        if v["class_type"] == "UNETLoader":
            _link(models / "diffusion_models" / v["inputs"]["unet_name"], real)
            info["diffusion_models"][v["inputs"]["unet_name"]] = f"-> {real.name}"
            if gguf is not None:
                _link(models / "diffusion_models" / gguf_name(v["inputs"]["unet_name"]), gguf)
                info["diffusion_models"][gguf_name(v["inputs"]["unet_name"])] = f"-> {gguf.name}"
        elif v["class_type"] == "LoraLoaderModelOnly":
            loras.append(v["inputs"]["lora_name"])
    for i, name in enumerate(loras):
        seed = 31 + i  # a different LoRA per expert
        lp = models / "loras" / f"random_lightx2v_{variant}_{a.size}_r{a.lora_rank}_seed{seed}.safetensors"
        info["loras"][name] = _written(lp, lambda seed=seed: M.wan_lora(a.size, rank=a.lora_rank, seed=seed,
                                                                        layout="lightx2v", scale=0.02,
                                                                        dtype=torch.bfloat16), M)
        _link(models / "loras" / name, lp)
    for v in wf.values():
        ct, inp = v["class_type"], v["inputs"]
        if ct == "CLIPLoader" and not a.smoke:
            tp = models / "text_encoders" / f"random_umt5_xxl_{a.te_format}.safetensors"
            info["text_encoders"] = _written(tp, lambda: umt5_xxl_state_dict(device=dev, fmt=a.te_format), M)
            info["text_encoders"]["format"] = a.te_format
            _link(models / "text_encoders" / inp["clip_name"], tp)
        elif ct == "VAELoader":
            info["vae"] = _written(models / "vae" / inp["vae_name"], lambda: M.wan21_vae_state_dict(
                "tiny" if a.smoke else "true", dtype=torch.bfloat16), M)
        elif ct == "LoadImage":
            ip = base / "input" / inp["image"]
            ip.parent.mkdir(parents=True, exist_ok=True)
            if not ip.exists():
                import numpy as np
                from PIL import Image

                rng = np.random.default_rng(0)
                Image.fromarray(rng.integers(0, 256, (a.height, a.width, 3), dtype=np.uint8)).save(ip)
            info["input image"] = inp["image"]
    info["note"] = "both experts load one random file (two UNETLoaders, two models in memory, same weights)"
    return {"unet": None, "files": info}


# --- the run --------------------------------------------------------------------------------------------

def link_peers(base: Path, variant: str) -> None:
    """KJNodes and ComfyUI-GGUF linked into the server's custom_nodes for their variants only (no peer code in the
    others)."""
    for name, wanted, peer in ((KJNODES_LINK, variant.startswith("kj_"), "kjnodes"),
                               (GGUF_LINK, variant in GGUF_VARIANTS, "gguf")):
        link = base / "custom_nodes" / name
        if link.is_symlink():
            link.unlink()
        if wanted:
            src, var = runner.peer_path(peer), runner.PEER_PATHS[peer][0]
            if not (src / "__init__.py").exists():
                raise RuntimeError(f"{name} not found at {src}: set {var} to a {name} checkout")
            link.parent.mkdir(parents=True, exist_ok=True)
            link.symlink_to(src.resolve(), target_is_directory=True)


def split_variant(variant: str) -> tuple[str, list[str]]:
    """`NAME@FLAG@FLAG...` -> (NAME, [FLAG, ...]): the graph variant NAME on a server started with these ComfyUI flags
    besides the run's own (`--comfy-args`, the card's), e.g. `level1+vae+save+prefetch@--disable-cuda-malloc` or
    `stock@--reserve-vram@2`; a plain NAME has none. The row keeps the whole string as its variant."""
    name, *flags = variant.strip().split("@")
    return name, flags


def run_variant(a, base: Path, variant: str, unet: str | None, extra_args=(), row: dict | None = None) -> dict:
    """One variant on a fresh server: its Queues' timings into `row` (the caller's dict, so a variant that fails
    keeps what it measured and its server console), which is returned."""
    row = {"variant": variant} if row is None else row
    row["variant"] = variant
    name, flags = split_variant(variant)
    if flags:
        row["server_flags"] = flags
    extra_args = [*extra_args, *flags]
    prompt = variant_prompt(name, a, unet)
    link_peers(base, name)
    env = {}
    if getattr(a, "compile_cache", "shared") == "fresh":
        env["TORCHINDUCTOR_CACHE_DIR"] = tempfile.mkdtemp(prefix=f"inductor-{name.replace('+', '_')}-")
        row["inductor_cache"] = env["TORCHINDUCTOR_CACHE_DIR"]
    t0 = time.perf_counter()
    log_path = base / "server.log"  # ComfyServer appends every server's console to it
    log_start = log_path.stat().st_size if log_path.exists() else 0
    try:
        _serve_variant(a, base, variant, prompt, row, extra_args, env, t0)
    finally:
        row.update(keep_server_log(log_path, log_start, Path(a.out), variant))
    first = row["queues"][0]  # the first Queue's figures also at the top level (earlier results' layout)
    row.update(total_s=first["total_s"], stages_s=first["stages_s"], per_node_s=first["per_node_s"],
               outputs=first["outputs"])
    later = later_median(row["queues"])
    if later:
        row["later_median"] = later
    return row


def later_median(queues: list) -> dict | None:
    """The median of the seed-changed Queues after the first (Queue 2 on, changes left out): total and each stage,
    with how many Queues it took. None with fewer than two such Queues (one Queue is its own figure)."""
    later = [q for q in queues[1:] if not q.get("change")]
    if len(later) < 2:
        return None

    def med(xs):
        return round(statistics.median(xs), 3)

    stages = {k for q in later for k in q["stages_s"]}
    return {"queues": len(later), "total_s": med([q["total_s"] for q in later]),
            "stages_s": {k: med([q["stages_s"][k] for q in later if k in q["stages_s"]]) for k in sorted(stages)}}


# server console lines worth reading beside the timings: ComfyUI's fallbacks (a VAE decode retried tiled after an
# out-of-memory, lowvram), warnings and errors, and the pack's own report and fallback lines
NOTABLE = re.compile(r"(?i)warning|error|out of memory|retrying|tiled|fall(?:ing|s)? back|fell back|traceback|"
                     r"comfyui-accel|\[accel|weights of this model call")


def keep_server_log(log_path: Path, start: int, out: Path, variant: str, cap: int = 4 << 20,
                    notable: int = 40) -> dict:
    """This variant's part of the server console (from byte `start` of `log_path`) written to
    out/server_logs/<variant>.log (at most `cap` bytes, its end), and its notable lines (NOTABLE, at most `notable`,
    progress bars left out) for the result row. Notes start at the first queued prompt ("got prompt") when the part
    has one: what ComfyUI prints while starting (missing optional imports, its database notice) is the same for every
    variant and would fill the notes."""
    try:
        with open(log_path, "rb") as f:
            f.seek(start)
            data = f.read()
    except OSError as e:
        return {"server_log": None, "server_log_notes": [f"(no server log: {e})"]}
    if len(data) > cap:
        data = data[-cap:]
    dest = out / "server_logs" / f"{re.sub(r'[^A-Za-z0-9_.-]+', '_', variant)}.log"
    dest.parent.mkdir(parents=True, exist_ok=True)
    dest.write_bytes(data)
    lines = [ln.strip() for ln in data.decode(errors="replace").replace("\r", "\n").splitlines()]
    first = next((i for i, ln in enumerate(lines) if ln.endswith("got prompt")), 0)
    notes = [ln[:300] for ln in lines[first:] if ln and NOTABLE.search(ln) and "it/s]" not in ln and "s/it]" not in ln]
    return {"server_log": str(dest.relative_to(out)), "server_log_notes": notes[:notable]}


def _serve_variant(a, base: Path, variant: str, prompt: dict, row: dict, extra_args, env: dict, t0: float) -> None:
    from accel_harness.server import EventListener, serving

    with serving(base, cpu=True if a.smoke else None, extra_args=list(extra_args), env=env) as srv:
        row["server_start_s"] = round(srv.startup_s or (time.perf_counter() - t0), 2)
        if any(v["class_type"] in PEER_NODES for v in prompt.values()):
            prompt = fill_defaults(prompt, srv.object_info())
        row["nodes"] = {k: v["class_type"] for k, v in prompt.items()}
        row["queues"] = []
        with EventListener(srv) as ev:
            queued = [(reseeded(prompt, i), None) for i in range(a.queues)]
            p = queued[-1][0]
            for change in getattr(a, "changes", ()):
                p = changed(p, change) or p
                queued.append((p, CHANGES[change]) if p is not queued[-1][0] else (p, None))
            for i, (p, change) in enumerate(queued):
                if i >= a.queues and change is None:
                    continue  # nothing in this workflow to change (no LoRA)
                row["queues"].append(_queue(srv, ev, base, p, (f"{variant}, Queue {i + 1}", i + 1, change), a.timeout))
                row["server_peak_rss_gib"] = row["queues"][-1]["server_peak_rss_gib"]
        row["listener_error"] = repr(ev.error) if ev.error else None


def pack_reports(prompt: dict, entry: dict) -> dict:
    """Each pack node's report after this Queue, as API clients read it in the prompt's history (the after-run
    `accel_report` entry where the node keeps one, else its `text`): "<id> <class_type>" -> text."""
    out = {}
    for nid, node in prompt.items():
        if not node["class_type"].startswith("Accel"):
            continue
        ui = entry.get("outputs", {}).get(str(nid), {})
        items = ui.get("accel_report") or []
        text = items[0].get("text") if items and isinstance(items[0], dict) else None
        if text is None and ui.get("text") is not None:
            t = ui["text"]
            text = "".join(str(x) for x in t) if isinstance(t, list) else str(t)
        if text:
            out[f"{nid} {node['class_type']}"] = text
    return out


_SAVE_SPLIT = (("decode", r"decode (\d+\.\d+) s; the encoder finished"),
               ("encoder tail", r"the encoder finished (\d+\.\d+) s after it"),
               ("node", r"time: (\d+\.\d+) s in this node"))


def save_split(reports: dict) -> dict:
    """Accel Save Video's decode + save stage taken apart by its own report: the decode (ComfyUI's, the output's way
    to the CPU included), the encoder's tail after it, the node's own time ({} where the report does not say)."""
    import re

    for node, text in (reports or {}).items():
        if node.endswith(" AccelSaveVideo"):
            return {k: float(m.group(1)) for k, rx in _SAVE_SPLIT if (m := re.search(rx, text))}
    return {}


def _queue(srv, ev, base: Path, p: dict, what: tuple, timeout: float) -> dict:
    """One measured Queue (what: its label, number and change or None): total, per-stage and per-node seconds,
    outputs."""
    from accel_harness.server import execution_error

    label, number, change = what
    t1 = time.perf_counter()
    pid = srv.submit(p, client_id=ev.client_id)
    entry = srv.wait(pid, timeout=timeout)
    total = round(time.perf_counter() - t1, 3)
    time.sleep(0.3)  # the last websocket events
    if entry.get("status", {}).get("status_str") != "success":
        raise RuntimeError(f"{label}: {execution_error(entry)}")
    per_node = ev.node_seconds(pid)
    out = {"queue": number, "total_s": total, "stages_s": stage_times(p, per_node),
           "per_node_s": {f"{k} {p.get(k, {}).get('class_type', '?')}": round(v, 3) for k, v in per_node.items()},
           "outputs": [str(f.relative_to(base)) for f in srv.output_files(entry)],
           "server_peak_rss_gib": peak_rss_gib(srv.proc.pid),  # the server's peak so far (this Queue included)
           "reports": pack_reports(p, entry)}
    if change:
        out["change"] = change
    log(f"{label}{' (' + change + ')' if change else ''}: total {total} s, " + ", ".join(
        f"{k} {v}" for k, v in out["stages_s"].items()))
    return out


def markdown(res: dict) -> str:
    m = res.get("meta", {})
    seen = {s for r in res["rows"] for q in (r.get("queues") or [r]) for s in (q.get("stages_s") or {})}
    stages = [s for s in STAGE_ORDER if s in seen] + sorted(seen - set(STAGE_ORDER))
    if not stages:
        stages = ["text encode", "model load", "sampler", "VAE decode", "save"]
    model = (f"Wan 2.2 A14B experts at Wan {m.get('size')} dims ({m.get('expert_format')}; "
             f"{m.get('experts_note', '')}), LightX2V LoRA rank {m.get('lora_rank')} on each, text encoder: "
             f"{m.get('text_encoder')}" if m.get("expert_format") else f"Wan 2.1 T2V {m.get('size')}")
    card = (" Compile cache: an empty inductor cache per server." if m.get("compile_cache") == "fresh" else
            " Compile cache: shared by every server (TORCHINDUCTOR_CACHE_DIR): a variant run after another that "
            "compiled the same graphs starts warm.")
    if m.get("card"):
        card += (f" Simulated {m['card']:g} GiB card ("
                + ("the rest of the GPU held by another process" if m.get("occupy") else "--reserve-vram") + ").")
    lines = [f"# End to end: {m.get('workflow')} ({m.get('gpu') or 'CPU smoke'})", "",
             f"torch {m.get('torch')}, ComfyUI {m.get('comfyui')}, {model}, {m.get('steps')} steps, "
             f"{m.get('frames')} frames {m.get('width')}x{m.get('height')}; random weights at true configs (they show "
             f"speed, not quality); a fresh "
             f"server per variant, queued {m.get('queues', 1)} time(s) with the seed changed (Queue 1: loads, compiles "
             "and cuDNN searches included, as a user's first Queue; Queue 2 on: what every later Queue costs, "
             "unchanged loaders and encoders served from ComfyUI's cache), then one Queue per change named in the "
             "Queue column, each from the Queue before it. Stage = wall time between the node's "
             "`executing` event and the next one (websocket). Total = POST /prompt to the history entry."
             + card
             + (" Save: SaveAnimatedWEBP (PyAV not installed there), not the shipped SaveVideo."
                if m.get("save") == "webp" else ""), "",
             f"Command: `{res.get('command')}`", *runner.meta_markdown(res.get("run_meta")), "",
             "| variant | Queue | " + " | ".join(stages) + " | total (s) |", "|---" * (len(stages) + 3) + "|"]
    for r in res["rows"]:
        if "error" in r:
            lines.append(f"| {r['variant']} | | error: {r['error'][:200]} |" + " |" * len(stages))
            continue
        for q in r.get("queues") or [{"queue": 1, "stages_s": r.get("stages_s", {}), "total_s": r["total_s"]}]:
            st = q["stages_s"]
            queue = f"{q['queue']} ({q['change']})" if q.get("change") else str(q["queue"])
            lines.append(f"| {r['variant']} | {queue} | " + " | ".join(str(st.get(s, "")) for s in stages)
                         + f" | {q['total_s']} |")
    meds = [r for r in res["rows"] if r.get("later_median")]
    if meds:
        lines += ["", "Median of the Queues after the first (seed changed, nothing else):", "",
                  "| variant | Queues | " + " | ".join(stages) + " | total (s) |", "|---" * (len(stages) + 3) + "|"]
        for r in meds:
            lm = r["later_median"]
            lines.append(f"| {r['variant']} | {lm['queues']} | "
                         + " | ".join(str(lm["stages_s"].get(s, "")) for s in stages) + f" | {lm['total_s']} |")
    rss = [r for r in res["rows"] if r.get("server_peak_rss_gib")]
    if rss:
        lines += ["", "Peak host RSS of each variant's ComfyUI server (VmHWM, GiB): "
                  + ", ".join(f"{r['variant']} {r['server_peak_rss_gib']}" for r in rss)]
    splits = [(r["variant"], [save_split(q.get("reports")) for q in r.get("queues") or []]) for r in res["rows"]]
    splits = [(variant, per_q) for variant, per_q in splits if any(per_q)]
    if splits:
        lines += ["", "Accel Save Video's stage by its own report, per Queue (decode: ComfyUI's decode with the "
                  "output's way to the CPU; encoder tail: the encoder still running after it; node: the node's own "
                  "time; the rest of the stage is ComfyUI's, before and after the node):"]
        for variant, per_q in splits:
            lines.append(f"- {variant}: " + "; ".join(
                f"Queue {i + 1}: " + ", ".join(f"{k} {v:.2f} s" for k, v in sp.items()) for i, sp in enumerate(per_q)
                if sp))
    reps = [(r["variant"], r["queues"][-1]["reports"]) for r in res["rows"]
            if r.get("queues") and r["queues"][-1].get("reports")]
    if reps:
        lines += ["", "The pack's reports after each variant's last Queue (the first lines; every line in the JSON, "
                  "`queues[].reports`):"]
        for variant, rep in reps:
            for node, text in rep.items():
                first = " / ".join(x.strip() for x in text.splitlines()[:3] if x.strip())
                lines.append(f"- {variant}, {node}: `{first[:300]}`")
    logs = [r for r in res["rows"] if r.get("server_log")]
    if logs:
        lines += ["", "Server consoles: " + ", ".join(f"`{r['server_log']}`" for r in logs) + " (beside the results; "
                  "git keeps them out); the lines worth reading (fallbacks, warnings, errors, the pack's own lines):"]
        for r in logs:
            notes = r.get("server_log_notes") or []
            lines.append(f"- {r['variant']}: "
                         + (f"{len(notes)} line(s); " + " / ".join(f"`{n[:160]}`" for n in notes[:6])
                            if notes else "none"))
    if res.get("errors"):
        lines += ["", "Errors: " + "; ".join(res["errors"])]
    return "\n".join(lines) + "\n"


def peak_rss_gib(pid: int) -> float | None:
    """A process's peak resident memory so far (VmHWM in /proc/<pid>/status, Linux), in GiB; None elsewhere."""
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmHWM:"):
                return round(int(line.split()[1]) / 2**20, 2)
    except (OSError, ValueError, IndexError):
        pass
    return None


def gpu_free_gib() -> float | None:
    import subprocess

    try:
        out = subprocess.run(["nvidia-smi", "--query-gpu=memory.free", "--format=csv,noheader,nounits", "-i", "0"],
                             capture_output=True, text=True, timeout=20).stdout.strip()
        return float(out.splitlines()[0]) / 1024
    except Exception:  # noqa: BLE001
        return None


def main(argv=None):
    a = parse(argv)
    out = Path(a.out)
    out.mkdir(parents=True, exist_ok=True)
    sys.path.insert(0, str(REPO / "harness"))
    import accel_harness as H

    H.bootstrap(cpu=True if a.smoke else False)
    import torch

    from accel_harness import models as M

    name = result_name(a)
    res = {"name": name, "command": runner.command(), "rows": [], "errors": [],
           "run_meta": runner.metadata("cpu" if a.smoke else None)}
    comfy_v = H.comfy_version()
    res["meta"] = {"workflow": workflow_path(a.workflow).name, "torch": torch.__version__, "comfyui": comfy_v,
                   "gpu": torch.cuda.get_device_name(0) if torch.cuda.is_available() and not a.smoke else None,
                   "size": a.size, "steps": a.steps, "frames": a.frames, "width": a.width,
                   "height": a.height, "save": a.save, "queues": a.queues, "te_format": a.te_format,
                   "card": a.card, "occupy": a.occupy, "compile_cache": a.compile_cache, "changes": a.changes,
                   "inductor_cache_dir": os.environ.get("TORCHINDUCTOR_CACHE_DIR"),
                   "weights": "random weights at true configs: they show speed, not quality"}
    if a.wan22:
        res["meta"].update(expert_format=a.expert_format, lora_rank=a.lora_rank,
                           experts_note="both experts load one random file",
                           lora="LightX2V key layout (lora_down/lora_up/alpha on every block Linear, diff_b, diff), "
                                "factors x0.02, bf16, one seed per expert",
                           text_encoder=("random conditioning (AccelRandomConditioning), no umt5" if a.smoke else
                                         f"random umt5-xxl, {a.te_format}"))

    def save():
        runner.write(out, name, res, markdown(res))

    base = Path(a.base) if a.base else Path(tempfile.mkdtemp(prefix="accel-e2e-"))
    t0 = time.time()
    models = write_models(a, base, M)
    res["meta"]["models"] = models["files"]
    save()
    occupier, extra_args = None, a.comfy_args.split()
    try:
        if a.card and not a.smoke:
            from accel_harness import mainlike

            total, free = runner.gpu_total_gib(), gpu_free_gib()
            res["meta"].update(gpu_total_gib=total, gpu_free_gib_before_server=free)
            if a.occupy:
                # (free - N): this process's own CUDA context (it wrote the files) is not left to the server
                occupier = runner.occupy(a.card, free, log)
            elif total:
                extra_args = extra_args + mainlike.simulate_card_args(total, a.card)
        res["meta"]["server_args"] = extra_args
        save()
        for variant in [v.strip() for v in a.variants.split(",") if v.strip()]:
            row = {"variant": variant}
            try:
                run_variant(a, base, variant, models["unet"], extra_args, row=row)
                log(f"{variant}: total {row['total_s']} s, stages {row['stages_s']}"
                    + (f"; Queue 2 total {row['queues'][1]['total_s']} s" if len(row["queues"]) > 1 else ""))
            except Exception as e:  # keep the other variants
                row.update(error=f"{type(e).__name__}: {e}"[:2000], traceback=traceback.format_exc()[-3000:])
                res["errors"].append(f"{variant}: {type(e).__name__}: {str(e)[:300]}")
                log(f"FAILED {variant}: {e!r}"[:1000])
            res["rows"].append(row)
            save()
    finally:
        link_peers(base, "")
        runner.release(occupier)
    res["total_s"] = round(time.time() - t0, 1)
    save()
    print(markdown(res))
    return 0


if __name__ == "__main__":
    sys.exit(main())
