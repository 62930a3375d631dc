"""One matrix, side by side: stock ComfyUI vs every chain of the pack and what users pick instead, through
ComfyUI's own loader and sampler, in one process started the way main.py starts ComfyUI (DynamicVRAM where
that ComfyUI turns it on), optionally on a simulated smaller card (`--card 24` -> --reserve-vram).

Per chain: first-run time (includes compiling), then `--rounds` timed runs interleaved across the chains
(round-robin, order reversed every other round), cosine and max |diff| of the final latent vs stock (same
seed, noise and conditioning), peak VRAM: torch's max_memory_allocated and the device's used memory
sampled every 50 ms (comfy-aimdo's weight buffers are not torch allocations), and the memory left
allocated after `comfy.model_management.unload_all_models()` (memory hygiene), then what each chain's model
object still held (released when it is dropped, one chain at a time).

Model: Wan 2.1 T2V at a true config (1.3B or 14B) with seeded random weights in the official key layout,
written once to a safetensors file (reused between runs) and loaded with `comfy.sd.load_diffusion_model`.
Random weights show speed and deviation from stock, never visual quality.

`--workflow lightx2v`: the workflow most users run instead (workflows/wan2.2_t2v_A14B_lightx2v_4step_level1.json):
Wan 2.2 A14B, two experts loaded by ComfyUI's loader from a file in ComfyUI's scaled-fp8 layout (the `*_fp8_scaled`
files Comfy-Org publishes: fp8 weights, `scale_weight`, the `scaled_fp8` marker; one random file, loaded once per
expert), a rank-32 LoRA in LightX2V's key layout on each expert (`lora_down`/`lora_up`/`alpha`, `diff_b`, `diff`),
ModelSamplingSD3 shift 5, 4 steps at CFG 1 split 2 + 2 (KSamplerAdvanced: the high-noise expert keeps its leftover
noise). Each chain patches both experts in that order: loader -> LoRA -> shift -> the chain's nodes; FP8-loader
chains load the fp8_scaled file with Accel Load Diffusion Model (FP8). Times are of both experts' sampling.

`--occupy` (with `--card N`): a helper process takes the rest of the GPU's memory before ComfyUI starts, so every
allocator (torch's, comfy-aimdo's, cuBLAS/cuDNN workspaces) sees an N GiB card; without it only ComfyUI's
accounting (--reserve-vram) is reduced and the device peak can exceed N.

Usage (GPU machine, repo root, after `source bench/gpu_env.sh`):
    python3 bench/bench_matrix.py --size 14B --out $OUT/m80
    python3 bench/bench_matrix.py --size 14B --card 24 --chains stock,attention,compile,level1 --out $OUT/m24
    python3 bench/bench_matrix.py --family flux --steps 20 --rounds 3 --out $OUT/flux80
    python3 bench/bench_matrix.py --workflow lightx2v --size 14B --sequential --card 16 --occupy \\
        --chains stock,level1,level1_prefetch --rounds 2 --out $OUT/prefetch16   # prefetch_weights, sampling only
      (one half of it alone: add --switch prefetch_room=off or --switch prefetch_ahead=off, one process each)
CPU smoke (tiny Wan, CPU): python bench/bench_matrix.py --smoke --out /tmp/msmoke  (--family F: that family's tiny
model)

`--family` flux | qwen_image | hunyuan_video | ltxv | wan_ti2v_5b, and ComfyUI 0.33's minimax_h3 | minimax_h3_turbo |
hunyuan_video15 | ltxav | flux2 | kandinsky5 (bench/families.py): that family's true config with random weights in the
published key layout, written once and loaded with ComfyUI's loader; its workflow's latent, conditioning shapes,
sampler, shift and resolution; chains `shipped` (the pack's chain for it: MiniMax-H3's is its Level-1 node),
`fp8_shipped` and `fp8_auto_shipped` (the FP8 loader's `auto`). `--edit` (flux, qwen_image, flux2): the family's
image-edit model (FLUX.1 Kontext dev, Qwen-Image-Edit), one reference latent of the output size in the conditioning:
    python3 bench/bench_matrix.py --family flux --edit --chains stock,shipped,core_compile --rounds 3 --out $OUT/kontext
"""
from __future__ import annotations

import contextlib
import functools
import json
import os
import subprocess
import sys
import threading
import time
import traceback
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "bench"))
import families  # noqa: E402  bench/families.py: --family's models, inputs, sampler settings (imports no torch)
import runner  # noqa: E402  bench/runner.py: shared CLI, metadata, result files, compare() (imports no torch)

# chain name -> what it is (the table's second column). Node chains are built in Matrix.build().
CHAINS = {
    "stock": "ComfyUI as loaded (Load Diffusion Model)",
    "attention": "Accel Attention (auto)",
    "attention_sparse": "Accel Attention radial_sparse (opt-in sparse attention, defaults)",
    "sparse_compile": "Accel Attention radial_sparse -> Accel CUDA Settings -> Accel Compile",
    "sparse_nodense_compile": "sparse_compile with dense_steps 0 (every step sparse; the published recipe keeps about "
                              "a quarter dense): what issue #32's workflow target would take",
    "compile": "Accel Compile (defaults)",
    "cuda_attn_compile": "Accel CUDA Settings -> Accel Attention -> Accel Compile (defaults)",
    "cuda_attn_compile_graphs": "Accel CUDA Settings -> Accel Attention -> Accel Compile, cuda_graphs on",
    "cuda_attn_compile_model_scope": "Accel CUDA Settings -> Accel Attention -> Accel Compile, scope model",
    "cuda_attn_compile_resident": "Accel CUDA Settings -> Accel Attention -> Accel Compile, resident_weights on",
    "cuda_attn_compile_sdpa": "Accel CUDA Settings -> Accel Attention sdpa -> Accel Compile (PyTorch's SDPA in "
                              "place of the Hopper default FlashAttention-3)",
    "cuda_attn_compile_model_scope_sdpa": "Accel CUDA Settings -> Accel Attention sdpa -> Accel Compile, scope model",
    "cuda_attn_compile_model_scope_static": "Accel CUDA Settings -> Accel Attention -> Accel Compile, scope model, "
                                            "dynamic false",
    "level1": "Accel Wan Level-1 (defaults)",
    "level1_default": "Accel Wan Level-1, compile_mode default",
    "level1_prefetch": "Accel Wan Level-1, prefetch_weights on (the next block's streamed weights fetched while a "
                       "block runs; on_failure error)",
    "fp8_level1": "Accel Load Diffusion Model (FP8) -> Accel Wan Level-1",
    "fp8own_level1": "Accel Load Diffusion Model (FP8), compute 'FP8 matmul' named (its own FP8 layers also where auto "
                     "would load a scaled-fp8 file as ComfyUI does) -> Accel Wan Level-1",
    "fp8": "Accel Load Diffusion Model (FP8), defaults (per-token activations)",
    "fp8_dequant": "Accel Load Diffusion Model (FP8), compute dequantize (weights-only FP8)",
    "fp8_fp32acc": "Accel Load Diffusion Model (FP8), activation_scaling per-token, fp32 accumulation",
    "fp8_block": "Accel Load Diffusion Model (FP8), activation_scaling 1x128 blocks",
    "fp8_level1_fp32acc": "Accel Load Diffusion Model (FP8, per-token fp32 accumulation) -> Accel Wan Level-1",
    "fp8_level1_block": "Accel Load Diffusion Model (FP8, 1x128 blocks) -> Accel Wan Level-1",
    "core_compile": "ComfyUI TorchCompileModel (inductor)",
    "core_fp8_fast": "ComfyUI Load Diffusion Model, weight_dtype fp8_e4m3fn_fast",
    "core_ck_int8": "ComfyUI ModelAttentionBackend, comfy kitchen attention (INT8; ComfyUI 0.33+)",
    "kj_sage_compile": "KJNodes PathchSageAttentionKJ (auto) -> TorchCompileModelAdvanced (defaults)",
    "gguf": "ComfyUI-GGUF Unet Loader (GGUF), a Q8_0 file of the same weights (--workflow)",
    "gguf_level1": "ComfyUI-GGUF Unet Loader (GGUF), Q8_0 -> Accel Wan Level-1 (--workflow)",
    "gguf_pod": "ComfyUI-GGUF Unet Loader (GGUF/Advanced), Q8_0, patch_on_device on (the LoRA kept on the GPU) "
                "(--workflow)",
    "gguf_pod_level1": "ComfyUI-GGUF Unet Loader (GGUF/Advanced), Q8_0, patch_on_device on -> Accel Wan Level-1 "
                       "(--workflow)",
    "attention_fp8": "Accel Attention flash_attn_3_fp8 (hybrid schedule defaults: exact first/last steps)",
    "attention_fp8_all": "Accel Attention flash_attn_3_fp8 on every step (no hybrid schedule)",
    "attention_ck_int8": "Accel Attention comfy_kitchen_int8 (hybrid schedule defaults; ComfyUI 0.33+ with "
                         "comfy-kitchen)",
    "level1_fast": "Accel Wan Level-1 quality fast, compile_mode default",
    "level1_sparse": "Accel Wan Level-1 quality sparse (radial, opt-in; dense first steps and blocks)",
    "fp8_level1_fast": "Accel Load Diffusion Model (FP8) -> Accel Wan Level-1 quality fast (hybrid schedule defaults)",
    "fp8_attnfp8_compile": "Accel Load Diffusion Model (FP8) -> Accel CUDA Settings -> Accel Attention "
                           "flash_attn_3_fp8 on every step -> Accel Compile (the combined quantized path per forward)",
    "fp8_keepxattn_level1": "Accel Load Diffusion Model (FP8, extra_keep cross_attn q/o in 16-bit) -> Accel Wan "
                            "Level-1",
    # --family (bench/families.py): the pack's chain as the family's workflow ships it, and with the FP8 loader
    "shipped": "the pack's shipped chain for the family (Accel CUDA Settings -> Accel Attention -> Accel Compile; "
               "Wan: Accel Wan Level-1)",
    "shipped_graphs": "the shipped chain with Accel Compile's cuda_graphs on (each model call replayed as one CUDA "
                      "graph where the weights are resident; the compile summary says which path ran)",
    "shipped_model_scope": "the shipped chain with Accel Compile's scope model (the whole diffusion model one compiled "
                           "region, as ComfyUI's TorchCompileModel compiles it; the pack's attention and DynamicVRAM "
                           "kept)",
    "shipped_resident": "the shipped chain with Accel Compile's resident_weights on (a model that fits the card loads "
                        "resident instead of DynamicVRAM's per-step fetch; the compile summary's memory line says "
                        "which path ran)",
    "shipped_sdpa": "the shipped chain with Accel Attention's backend sdpa (PyTorch's SDPA kernels, cuDNN first "
                    "after Accel CUDA Settings on Hopper, in place of FlashAttention-3)",
    "shipped_model_scope_sdpa": "shipped_model_scope with Accel Attention's backend sdpa",
    "shipped_model_scope_static": "shipped_model_scope with Accel Compile's dynamic false (a static graph per size: "
                                  "the shipped SDXL workflow's setting)",
    "shipped_model_scope_resident": "shipped_model_scope with resident_weights on (the whole model one compiled region "
                                    "over weights loaded resident, as TorchCompileModel loads them)",
    "shipped_model_scope_static_resident": "shipped_model_scope_static with resident_weights on",
    "fp8_shipped": "Accel Load Diffusion Model (FP8), defaults but weight_format fp8_e4m3fn per-channel -> the shipped "
                   "chain",
    "fp8_shipped_graphs": "Accel Load Diffusion Model (FP8), weight_format fp8_e4m3fn per-channel -> the shipped chain "
                          "with cuda_graphs on",
    "fp8_auto_shipped": "Accel Load Diffusion Model (FP8), defaults (weight_format auto: what a user gets) -> the "
                        "shipped chain",
    "fp8_shipped_resident": "fp8_shipped with Accel Compile's resident_weights on",
    "fp8_shipped_resident_keep1": "fp8_shipped_resident, keep_high_precision 'standard + first & last block'",
    "fp8_shipped_resident_keep2": "fp8_shipped_resident, keep_high_precision 'standard + first 2 & last 2 blocks'",
    "fp8_shipped_resident_fp32acc": "fp8_shipped_resident, activation_scaling 'per-token, fp32 accumulation'",
    "fp8_shipped_resident_block": "fp8_shipped_resident, activation_scaling '1x128 blocks'",
    "level1_h3": "Accel MiniMax-H3 Level-1 (defaults)",
    "level1_h3_sparse": "Accel MiniMax-H3 Level-1 quality sparse (radial, opt-in; dense first steps and blocks)",
    "level1_h3_prefetch": "Accel MiniMax-H3 Level-1, prefetch_weights on (on_failure error)",
    "fp8_forced": "Accel Load Diffusion Model (FP8), defaults but weight_format fp8_e4m3fn per-channel (FP8 matmuls "
                  "even where `auto` keeps a 16-bit file 16-bit)",
}
# issue #19: cross-attention q/o kept in 16-bit moved Wan 1.3B's final latent from 0.9950 to 0.9977
# (bench/results/h200/fp8_quality_sensitivity_1.3B.md); the pattern names those layers for Wan 1.3B and 14B
_KEEP_XATTN_QO = "blocks.*.cross_attn.q, blocks.*.cross_attn.o"
# fp8_shipped names the format `auto` quantizes a 16-bit file to: `auto` itself keeps a family 16-bit where FP8
# measured slower (accel.common.defaults.FP8_AUTO_MEASURED), and the chain measures the FP8 path
_FP8_FORMAT = "fp8_e4m3fn per-channel scaled"
_NO_HYBRID = dict(exact_first_steps=0, exact_last_steps=0, exact_first_blocks=0, exact_last_blocks=0)


# --switch NAME=on|off: the pack's module-level switches, for A/B runs of one change in separate processes (each
# process's files say which were set: meta "switches", read back from the modules after setting them)
SWITCHES = {
    "rope_trace": ("accel.compile.config", "ROPE_TRACE"),  # comfy-kitchen's RoPE traced into compiled blocks
    "gelu_epilogue": ("accel.compile.config", "GELU_EPILOGUE"),  # Linear -> GELU(tanh) in the matmul's epilogue
    "fa3_direct": ("kernels.attention.flash", "DIRECT_FA3"),  # fa3-fwd through its raw forward op
    # prefetch_weights' halves (accel/compile/prefetch.py): other models give back room at once; fetch the next block
    "prefetch_room": ("accel.compile.prefetch", "MAKE_ROOM"),
    "prefetch_ahead": ("accel.compile.prefetch", "FETCH_AHEAD"),
}


def parse_switches(items, error) -> dict:
    out = {}
    for item in items:
        for part in filter(None, (x.strip() for x in item.split(","))):
            name, _, value = part.partition("=")
            if name not in SWITCHES or value not in ("on", "off"):
                error(f"--switch {part!r}: use NAME=on|off with NAME one of {', '.join(SWITCHES)}")
            out[name] = value == "on"
    return out


def apply_switches(pack_module, switches: dict) -> dict:
    """Set each switch on the loaded pack's module; returns what the modules hold afterwards."""
    got = {}
    for name, value in switches.items():
        mod, attr = SWITCHES[name]
        if not hasattr(pack_module(mod), attr):  # a renamed switch must not be set as a new, unread attribute
            raise SystemExit(f"--switch {name}: the pack has no {mod}.{attr}")
        setattr(pack_module(mod), attr, value)
        got[name] = "on" if getattr(pack_module(mod), attr) else "off"
    return got


def parse(argv=None):
    ap = runner.parser(__doc__, smoke="tiny Wan on the CPU (ComfyUI started with --cpu), 5 frames at 64x64, 2 steps "
                       "(4 with --workflow)")
    ap.epilog += ("\nRecompute speed-ups and matrix.md of a finished or cut-short run (not through argparse):\n"
                  "  python3 bench/bench_matrix.py --rerender <folder holding matrix.json>")
    ap.add_argument("--family", default="wan", choices=list(families.FAMILIES),
                    help="model family (bench/families.py): wan = Wan 2.1 T2V at --size; the others at their true "
                         "config, with their workflow's resolution, frames, steps, CFG and sampler as defaults")
    ap.add_argument("--size", default="14B", choices=["1.3B", "14B", "tiny"], help="Wan 2.1 size (--family wan)")
    ap.add_argument("--dtype", default=None, choices=["fp16", "bf16"],
                    help="weights in the file (default: the published file's: fp16 for Wan, bf16 for the others)")
    ap.add_argument("--card", type=float, default=0,
                    help="simulate a card of this many GiB (--reserve-vram); 0 = the whole GPU")
    ap.add_argument("--hard-cap", action="store_true", help="with --card: also cap torch's allocator at the card size "
                    "(torch.cuda.set_per_process_memory_fraction), so an allocation past it fails as on a real card; "
                    "memory that comfy-aimdo maps itself is not under this cap")
    ap.add_argument("--chains", default=None,
                    help="comma-separated CHAINS names; default for wan: stock,attention,compile,"
                    "cuda_attn_compile,level1,core_compile; for the other families: " + families.DEFAULT_CHAINS +
                    " (the image families add shipped_graphs, fp8_shipped_graphs; ComfyUI 0.33's newer families, "
                    "minimax_h3 ...: their own; bench/families.py default_chains)")
    ap.add_argument("--steps", type=int, default=None, help="default: the family's (wan 2, the others 20)")
    ap.add_argument("--cfg", type=float, default=None, help="default: the family's (wan 5; flux and hunyuan_video 1 "
                    "with their guidance input; qwen_image 2.5; ltxv 3; wan_ti2v_5b 5)")
    ap.add_argument("--rounds", type=int, default=1, help="timed runs per chain after the first run")
    ap.add_argument("--frames", type=int, default=None, help="default: the family's (wan 81)")
    ap.add_argument("--height", type=int, default=None, help="default: the family's (wan 480)")
    ap.add_argument("--width", type=int, default=None, help="default: the family's (wan 832)")
    ap.add_argument("--tokens", type=int, default=None, help="text tokens (default: the family's; wan 512)")
    ap.add_argument("--weights", default="/tmp/accel-bench-weights", help="folder for the random-weight files")
    ap.add_argument("--hygiene", type=int, default=0, help="memory hygiene: N runs of a two-expert (Wan 2.2 A14B "
                    "style) workflow, high-noise then low-noise model every run, both patched with --hygiene-chain; "
                    "allocated memory per run and after unload vs the baseline before loading")
    ap.add_argument("--hygiene-chain", default="level1")
    ap.add_argument("--weights-only", action="store_true", help="write the weights file and exit (run in its own "
                    "process first, so the GPU memory used to generate it is gone before the measurement)")
    ap.add_argument("--workflow", default="", choices=["", "lightx2v"],
                    help="lightx2v: Wan 2.2 A14B fp8_scaled experts + LightX2V LoRAs, shift 5, 4 steps CFG 1 (see "
                         "above)")
    ap.add_argument("--occupy", action="store_true", help="with --card: occupy the rest of the GPU in a helper "
                    "process before ComfyUI starts (every allocator then sees the card size)")
    ap.add_argument("--lora-rank", type=int, default=32)
    ap.add_argument("--sequential", action="store_true", help="each chain on its own: first run, --rounds timed runs, "
                    "then its models are dropped and unloaded before the next chain (no chain's weights evict "
                    "another's; stock runs again last to show the drift over the run)")
    ap.add_argument("--profile", action="store_true", help="with --sequential: after each chain's timed runs, one more "
                    "run under torch.profiler: GPU kernel time by category, top kernels, GPU-busy share of the wall "
                    "time")
    ap.add_argument("--clocks", action="store_true",
                    help="sample the GPU's SM clock, power, temperature and clock slowdown reasons (nvidia-smi, "
                    "every 0.1 s) while each chain's timed runs, and its profiled run (the sampling, not the "
                    "profiler's processing after it), run: each chain's `clocks` and `clocks_profiled` in "
                    "matrix.json, a table in matrix.md (to tell a slower kernel from a slower clock)")
    ap.add_argument("--sync-sites", action="store_true",
                    help="with --profile: one more run with torch's CUDA sync debug "
                    "mode on: where the host waited for the GPU, grouped by the Python frames that led there")
    ap.add_argument("--host-profile", action="store_true", help="with --profile: one more run under Python's cProfile: "
                    "the Python functions that take the host's time (for host-bound chains)")
    ap.add_argument("--switch", action="append", default=[], metavar="NAME=on|off",
                    help=f"set one of the pack's switches for this process ({', '.join(SWITCHES)}); repeat or join "
                         "with commas. For A/B runs of one change: one process per setting")
    ap.add_argument("--resolution-change", default="", metavar="WxH",
                    help="with --sequential: after each chain's timed runs, sample at WxH, at the run's size again, "
                         "then both once more: the times and the compile summary's recompiles and CUDA-graph captures "
                         "after each pair (a size change should recompile at most once, then never again)")
    ap.add_argument("--stored", default="", choices=["", "fp8_scaled", "fp8_e4m3fn"],
                    help="--family: write the random weights in ComfyUI's scaled-fp8 layout (fp8_scaled: every 2-D "
                    "weight of the family's block lists float8_e4m3fn with a per-tensor scale, the `scaled_fp8` "
                    "marker: the *_fp8_scaled files Comfy-Org publishes) or as a plain fp8 file (fp8_e4m3fn: the same "
                    "weights cast to float8_e4m3fn, no scale: the *_fp8_e4m3fn files, e.g. Qwen-Image's), loaded by "
                    "ComfyUI's loader as such a file; half the disk of bf16 (MiniMax-H3 33B: about 33 GB, where its "
                    "66 GB bf16 file does not fit the GPU machine's 64 GiB disk)")
    ap.add_argument("--edit", action="store_true",
                    help="--family flux / qwen_image / flux2: an image-edit run (FLUX.1 Kontext dev, Qwen-Image-Edit, "
                    "Flux.2 with a reference): one random reference latent of the output's size in the conditioning, "
                    "as ReferenceLatent / TextEncodeQwenImageEdit give it; the weights are the family's (the edit "
                    "models share its layout)")
    ap.add_argument("--comfy-args", default="",
                    help="extra ComfyUI command-line arguments, written with '=' since they start with a dash "
                    "(e.g. --comfy-args=--disable-dynamic-vram, --comfy-args='--disable-cuda-malloc --reserve-vram 2')")
    a = ap.parse_args(argv)
    a.switches = parse_switches(a.switch, ap.error)
    if a.resolution_change:
        w, _, h = a.resolution_change.lower().partition("x")
        if not (w.isdigit() and h.isdigit()) or not a.sequential:
            ap.error("--resolution-change takes WxH (e.g. 768x1344) and runs with --sequential")
        a.resolution_change = (int(w), int(h))
    if (a.sync_sites or a.host_profile) and not a.profile:
        ap.error("--sync-sites and --host-profile run with --profile (and --sequential)")
    if a.workflow == "lightx2v":
        a.steps, a.cfg = 4, 1.0
    if a.smoke:
        a.size, a.frames, a.height, a.width, a.tokens = "tiny", 5, 64, 64, 16
        a.steps = 4 if a.workflow else 2
    if (a.workflow or a.hygiene) and a.family != "wan":
        ap.error("--workflow and --hygiene run Wan models: use them with --family wan")
    if a.stored and (a.family == "wan" or families.smoke_in_memory(a.family, a.smoke)):
        ap.error("--stored takes a --family other than wan whose weights come from a file (Wan's fp8_scaled files: "
                 "--workflow lightx2v; the smoke builds tiny flux, qwen_image, hunyuan_video, z_image and sdxl in "
                 "memory)")
    if a.edit and a.family not in families.EDIT_FAMILIES:
        ap.error(f"--edit takes --family {' / '.join(families.EDIT_FAMILIES)} (their edit models), not {a.family}")
    families.defaults(a)  # the family's values for what was not given (wan: the values above)
    if a.chains is None:
        a.chains = ("stock,attention,compile,cuda_attn_compile,level1,core_compile" if a.family == "wan"
                    else families.default_chains(a.family))
    return a


log = runner.Log("bench_matrix")


def clock_lines(chains: dict) -> list[str]:
    """matrix.md's table of the GPU's clocks per chain (--clocks): its timed runs, then its profiled run."""
    rows = []
    for n, r in chains.items():
        for field, what in (("clocks", "timed runs"), ("clocks_profiled", "profiled run")):
            c = r.get(field)
            if not c:
                continue
            if not c.get("samples"):
                rows.append(f"| {n} | {what} | 0 | | | | | {c.get('error', '')} |")
                continue
            slow = ", ".join(f"{k[6:]} {v}" for k, v in c.items() if k.startswith("share_")) or "none"
            rows.append(f"| {n} | {what} | {c['samples']} | {c['sm_mhz_median']} | {c['sm_mhz_min']} | "
                        f"{c['power_w_median']} | {c['temp_c_max']} | {slow} |")
    if not rows:
        return []
    return ["", "## GPU clocks while each chain ran (nvidia-smi every 0.1 s)", "",
            "| chain | runs | samples | SM MHz median | SM MHz min | power W median | temp C max | share of samples "
            "slowed, by reason |", "| --- | --- | ---: | ---: | ---: | ---: | ---: | --- |", *rows]


def monitor_gpu_index(env=None) -> int:
    """nvidia-smi's index of the first GPU CUDA_VISIBLE_DEVICES names (0 where it is unset or names a UUID)."""
    first = (os.environ if env is None else env).get("CUDA_VISIBLE_DEVICES", "").split(",")[0].strip()
    return int(first) if first.isdigit() else 0


class MemSampler:
    """Peak device memory in use (all processes' view of this GPU: torch + comfy-aimdo + cudaMallocAsync pools)."""

    def __init__(self, torch):
        self.torch, self.peak, self._stop = torch, 0, threading.Event()

    def used(self):
        free, total = self.torch.cuda.mem_get_info()
        return total - free

    def __enter__(self):
        self.peak = self.used()
        self._t = threading.Thread(target=self._run, daemon=True)
        self._t.start()
        return self

    def _run(self):
        while not self._stop.wait(0.05):
            self.peak = max(self.peak, self.used())

    def __exit__(self, *exc):
        self._stop.set()
        self._t.join()
        self.peak = max(self.peak, self.used())


def call_node(name, **inputs):
    """Run a ComfyUI node (V1 or V3) by class name with its declared defaults for inputs not given."""
    import nodes

    cls = nodes.NODE_CLASS_MAPPINGS[name]
    if hasattr(cls, "define_schema"):  # V3
        schema = cls.define_schema()
        kw = {}
        for i in schema.inputs:
            if i.id not in inputs and getattr(i, "default", None) is not None:
                kw[i.id] = i.default
        kw.update(inputs)
        from accel_harness import call_node as run_v3  # the executor's path (class clone, hidden inputs)

        return run_v3(cls, **kw)["result"]
    spec = cls.INPUT_TYPES()
    kw = {}
    for group in ("required", "optional"):
        for k, v in spec.get(group, {}).items():
            if k in inputs:
                continue
            if len(v) > 1 and isinstance(v[1], dict) and "default" in v[1]:
                kw[k] = v[1]["default"]
            elif isinstance(v[0], list) and v[0]:
                kw[k] = v[0][0]
    kw.update(inputs)
    out = getattr(cls(), cls.FUNCTION)(**kw)
    return tuple(out["result"]) if isinstance(out, dict) else tuple(out)


class Matrix:
    def __init__(self, a):
        self.a = a
        self.out = Path(a.out)
        self.out.mkdir(parents=True, exist_ok=True)
        # errors: {"chain", "error", ...} dicts (matrix.md lists them per chain), not runner.captured's strings
        self.res = {"name": "matrix", "command": runner.command(), "chains": {}, "errors": []}

    def boot(self):
        sys.path.insert(0, str(REPO / "harness"))
        from accel_harness import mainlike
        from accel_harness.timing import GpuMonitor

        # the GPU this process sees first, by nvidia-smi's index (bench/run_parallel.sh sets CUDA_VISIBLE_DEVICES)
        self.mon = GpuMonitor(gpu=monitor_gpu_index()).__enter__() if self.a.clocks and not self.a.smoke else None

        comfy_args = self.a.comfy_args.split()
        total = None if self.a.smoke else runner.gpu_total_gib()
        self.occupier = None
        if self.a.card and total and self.a.occupy:
            self.occupier = runner.occupy(self.a.card, total, log)  # before ComfyUI and torch's CUDA context start here
        elif self.a.card and total:
            comfy_args += mainlike.simulate_card_args(total, self.a.card)
        if self.a.smoke:
            comfy_args += ["--cpu"]
        self.start = mainlike.start(comfy_args)
        import accel_harness as H

        H.bootstrap(cpu=self.a.smoke)
        H.load_pack()
        switches = apply_switches(H.pack_module, self.a.switches)
        import torch

        self.H, self.torch = H, torch
        self.cuda = torch.cuda.is_available() and not self.a.smoke
        self.dev = "cuda" if self.cuda else "cpu"
        hard_cap = None
        if self.a.hard_cap and self.a.card and total and self.cuda:
            hard_cap = min(1.0, self.a.card / total)
            torch.cuda.set_per_process_memory_fraction(hard_cap)
        import comfy.model_management as mm

        self.mm = mm
        self.res["meta"] = {
            "comfyui": self.start.get("comfyui"), "start": self.start, "torch": torch.__version__,
            "gpu": torch.cuda.get_device_name(0) if self.cuda else None, "gpu_total_gib": total,
            "simulated_card_gib": self.a.card or None,
            "dtype": "fp32" if families.smoke_in_memory(self.a.family, self.a.smoke) else self.a.dtype,
            "stored": self.a.stored or None, "edit": self.a.edit or None,
            "size": self.a.size if self.a.family == "wan" else ("tiny" if self.a.smoke else "true"),
            "steps": self.a.steps, "cfg": self.a.cfg, "frames": self.a.frames, "height": self.a.height,
            "width": self.a.width, "rounds": self.a.rounds,
            "patcher": getattr(sys.modules["comfy.model_patcher"], "CoreModelPatcher",
                               sys.modules["comfy.model_patcher"].ModelPatcher).__name__,
            "inductor_cache": os.environ.get("TORCHINDUCTOR_CACHE_DIR"),
            "torch_memory_fraction": hard_cap, "occupied_rest_of_gpu": self.occupier is not None,
            "workflow": self.a.workflow or None, "family": self.a.family, "tokens": self.a.tokens,
            "smoke": self.a.smoke,
            "sampler": f"{families.spec(self.a.family).sampler}/{families.spec(self.a.family).scheduler}",
            "switches": switches or None,
        }
        self.res["run_meta"] = runner.metadata(self.dev)
        log(f"started: {self.res['meta']}")

    # --- model, inputs ---------------------------------------------------------------------------
    def weights_file(self, seed=0):
        from accel_harness import models as M

        torch = self.torch
        dt = {"fp16": torch.float16, "bf16": torch.bfloat16}[self.a.dtype]
        if self.a.family != "wan":
            return self.family_weights_file(seed, dt)
        if self.a.workflow:
            dt = torch.bfloat16
            path = Path(self.a.weights) / f"wan_t2v_{self.a.size}_fp8_scaled_seed{seed}.safetensors"
        else:
            path = Path(self.a.weights) / f"wan21_t2v_{self.a.size}_{self.a.dtype}_seed{seed}.safetensors"
        if not path.exists():
            t0 = time.time()
            sd = M.wan_state_dict("t2v", self.a.size, seed=seed, dtype=dt, device=self.dev)
            if not sd:
                raise RuntimeError("the random Wan state dict is empty")
            if self.a.workflow:
                sd = M.comfy_scaled_fp8(sd)
            tmp = path.with_suffix(".partial")
            M.save_safetensors(sd, tmp)
            os.replace(tmp, path)
            del sd
            log(f"wrote {path} in {time.time() - t0:.0f} s")
        if self.a.workflow:
            for expert, lseed in (("high", 31), ("low", 32)):
                lp = Path(self.a.weights) / f"lora_lightx2v_{self.a.size}_r{self.a.lora_rank}_{expert}.safetensors"
                if not lp.exists():
                    M.save_safetensors(M.wan_lora(self.a.size, rank=self.a.lora_rank, seed=lseed, layout="lightx2v",
                                                  scale=0.02, dtype=torch.bfloat16), lp)
        return path

    def block_prefixes(self) -> tuple:
        """Key prefixes of the family's block lists, as the pack finds its blocks (accel.common.families): what a
        `*_fp8_scaled` or `*_fp8_e4m3fn` file stores in fp8 (--stored)."""
        fam = self.H.pack_module("accel.common.families")
        key = families.NEW_FAMILIES.get(self.a.family, self.a.family)
        return tuple(f"{b}." for b in fam.FAMILY_BLOCK_LISTS.get(key, fam.BLOCK_LISTS))

    def family_weights_file(self, seed, dt, depth=None):
        """--family: the family's random weights in the published key layout, written once (None: the smoke's tiny
        model of this family is built in memory, see families.IN_MEMORY_SMOKE). `depth` (families.reduced_depth):
        the true widths with fewer blocks (bench/profile_family.py)."""
        from accel_harness import models as M

        if families.smoke_in_memory(self.a.family, self.a.smoke):
            return None
        path = Path(self.a.weights) / families.weights_name(self.a, depth).format(seed=seed)
        if not path.exists():
            t0 = time.time()
            sd, metadata = families.state_dict(self.a.family, self.a.smoke, seed, dt, self.dev, depth)
            if self.a.stored == "fp8_scaled":
                sd = M.comfy_scaled_fp8(sd, self.block_prefixes())
            elif self.a.stored == "fp8_e4m3fn":
                sd = M.comfy_plain_fp8(sd, self.block_prefixes())
            tmp = path.with_suffix(".partial")
            M.save_safetensors(sd, tmp, metadata=metadata)
            os.replace(tmp, path)
            del sd
            log(f"wrote {path} in {time.time() - t0:.0f} s")
        return path

    def gguf_file(self):
        """The users' workflow's experts as a Q8_0 GGUF file (ComfyUI-GGUF's layout, accel_harness.gguf_files) from the
        same random weights (seed 0) as the fp8_scaled file: what the `gguf*` chains load through ComfyUI-GGUF."""
        from accel_harness import gguf_files

        path = Path(self.a.weights) / f"wan_t2v_{self.a.size}_q8_0_seed0.gguf"
        took = gguf_files.wan_q8_0_file(path, "t2v", self.a.size, self.dev)
        if took is not None:
            log(f"wrote {path} in {took:.0f} s")
        return path

    def gguf_expert(self, expert, patch_on_device=False):
        """One expert loaded by ComfyUI-GGUF's "Unet Loader (GGUF)" node (a peer pack, benchmarks only: carried as
        bench/prepare_gguf_carry.sh says, or where GGUF_NODES_PATH points); with `patch_on_device` by its "Unet Loader
        (GGUF/Advanced)" with that option on (LoRA tensors moved to the GPU once, not per layer call)."""
        if not hasattr(self, "_gguf_experts"):
            self._gguf_experts = {}
        key = (expert, patch_on_device)
        if key not in self._gguf_experts:
            import folder_paths

            self._load_peer(runner.peer_path("gguf"), "UnetLoaderGGUF")
            path = self.gguf_file()
            folder_paths.add_model_folder_path("diffusion_models", str(path.parent))
            t0 = time.time()
            if patch_on_device:
                m = call_node("UnetLoaderGGUFAdvanced", unet_name=path.name, dequant_dtype="default",
                              patch_dtype="default", patch_on_device=True)[0]
            else:
                m = call_node("UnetLoaderGGUF", unet_name=path.name)[0]
            self._gguf_experts[key] = m
            log(f"loaded {path.name} through ComfyUI-GGUF as the {expert}-noise expert "
                f"({type(m).__name__}{', patch_on_device' if patch_on_device else ''}) in {time.time() - t0:.1f} s")
        return self._gguf_experts[key]

    def lora(self, expert):
        p = Path(self.a.weights) / f"lora_lightx2v_{self.a.size}_r{self.a.lora_rank}_{expert}.safetensors"
        if not hasattr(self, "_loras"):
            self._loras = {}
        if expert not in self._loras:
            import comfy.utils

            self._loras[expert] = comfy.utils.load_torch_file(str(p), safe_load=True)
        return self._loras[expert]

    def inputs(self):
        from accel_harness import models as M

        if self.a.family != "wan":
            return families.inputs(self.a)
        pos = M.conditioning(self.a.tokens, seed=1)
        neg = M.conditioning(self.a.tokens, seed=2)
        lat = M.wan_latent(self.a.frames, self.a.height, self.a.width)
        return pos, neg, lat

    def spanned(self, model):
        """The chain's model (the workflow's pair of experts: each) with every model call a profiler range of its own,
        named after the expert (runner.call_spans)."""
        n = [0]
        if self.a.workflow:
            high, low = model
            return runner.call_spans(high, "high-noise", n), runner.call_spans(low, "low-noise", n)
        return runner.call_spans(model, self.a.family or "model", n)

    def sample(self, model):
        pos, neg, lat = self.inputs()
        if self.cuda:
            self.torch.cuda.synchronize()
        t0 = time.perf_counter()
        with self.torch.inference_mode():  # as ComfyUI's executor runs every node
            out = self._sample(model, pos, neg, lat)
        if self.cuda:
            self.torch.cuda.synchronize()
        if getattr(out, "is_nested", False):  # video + audio (MiniMax-H3, LTX-2): one flat latent to compare
            out = self.torch.cat([t.float().flatten() for t in out.unbind()])
        return time.perf_counter() - t0, out.float().cpu()

    def _sample(self, model, pos, neg, lat):
        from accel_harness import models as M

        if self.a.workflow:  # KSamplerAdvanced 0 -> half (leftover noise kept), then half -> end without new noise
            import nodes

            high, low = model
            half = self.a.steps // 2
            x = nodes.common_ksampler(high, 0, self.a.steps, self.a.cfg, "euler", "simple", pos, neg, lat,
                                      start_step=0, last_step=half, force_full_denoise=False)[0]
            out = nodes.common_ksampler(low, 0, self.a.steps, self.a.cfg, "euler", "simple", pos, neg, x,
                                        disable_noise=True, start_step=half, last_step=self.a.steps,
                                        force_full_denoise=True)[0]["samples"]
            return out
        f = families.spec(self.a.family)
        return M.sample(model, pos, neg, lat, steps=self.a.steps, cfg=self.a.cfg, seed=0, sampler=f.sampler,
                        scheduler=f.scheduler)

    # --- chains ----------------------------------------------------------------------------------
    def build(self, name, path):
        """(model, report text) for one chain; loads what the chain loads."""
        if self.a.workflow:
            return self.build_workflow(name, path)
        why = families.not_applicable(self.a.family, name) or graphs_chain_problem(
            name, self.torch.cuda.get_allocator_backend() if self.cuda else None)
        if why or (path is None and (name == "core_fp8_fast" or name.startswith("fp8"))):
            raise Skipped(why or f"the smoke's tiny {self.a.family} is built in memory (ComfyUI's detection cannot "
                                 "read its config from a file), so file-loader chains do not run; the GPU run loads "
                                 "the file")
        torch = self.torch
        if name == "core_fp8_fast":
            # what UNETLoader does for weight_dtype fp8_e4m3fn_fast
            return self._shift(self._load(path, {"dtype": torch.float8_e4m3fn, "fp8_optimizations": True})), ""
        fp8_opts = families.chain_options(name, "fp8_shipped")
        if fp8_opts is not None or name in ("fp8_forced", "fp8_auto_shipped"):
            # the weight format `auto` quantizes to, named: `auto` keeps a family 16-bit where FP8 measured slower
            # (accel.common.defaults.FP8_AUTO_MEASURED), and these chains measure the FP8 path that rule is based on;
            # fp8_auto_shipped: `auto` itself (a family it has no measurement for: quantized, and the report says so)
            compile_opts, loader = fp8_opts or (set(), {})
            fmt = {} if name == "fp8_auto_shipped" else {"weight_format": _FP8_FORMAT}
            res = self.H.pack_module("accel.fp8").load_file(str(path), **fmt, **loader)
            if name == "fp8_forced":
                return self._shift(res.patcher), res.report
            m, rep = self.patch(families.compile_chain(compile_opts, "shipped"), self._shift(res.patcher))
            return m, res.report + "\n" + rep
        if name.startswith("fp8") and name in CHAINS:  # FP8 loader options (bench_fp8_quality.py), +- Level-1
            F = self.H.pack_module("accel.fp8")
            act = {"fp32acc": F.ACT_PER_TOKEN_FP32, "block": F.ACT_BLOCK}.get(name.rsplit("_", 1)[-1], F.ACT_DEFAULT)
            compute = F.COMPUTE_DEQUANT if name == "fp8_dequant" else F.COMPUTE_AUTO
            keep = _KEEP_XATTN_QO if name == "fp8_keepxattn_level1" else ""
            res = F.load_file(str(path), compute=compute, activation_scaling=act, extra_keep=keep)
            res.patcher = self._shift(res.patcher)
            if name == "fp8_attnfp8_compile":
                m = call_node("AccelCUDASettings", model=res.patcher)[0]
                m = call_node("AccelAttention", model=m, backend="flash_attn_3_fp8", fallback="error", **_NO_HYBRID)[0]
                m, rep = call_node("AccelCompile", model=m)[:2]
                return m, res.report + "\n" + rep
            if "level1" not in name:
                return res.patcher, res.report
            opts = {"compile_mode": "default", "quality": "fast",
                    "on_failure": "error"} if name == "fp8_level1_fast" else {}
            m, rep = call_node("AccelWanLevel1", model=res.patcher, **opts)[:2]
            return m, getattr(res, "report", "") + "\n" + rep
        return self.patch(name, self.base(path))

    # chains of the users' workflow: name -> (loader, chain applied after LoRA and shift)
    WORKFLOW_CHAINS = {"stock": ("core", "stock"), "attention": ("core", "attention"), "level1": ("core", "level1"),
                       "level1_prefetch": ("core", "level1_prefetch"),
                       "level1_fast": ("core", "level1_fast"), "kj_sage_compile": ("core", "kj_sage_compile"),
                       "core_compile": ("core", "core_compile"), "core_ck_int8": ("core", "core_ck_int8"),
                       "compile": ("core", "compile"), "fp8": ("fp8", "stock"), "fp8_level1": ("fp8", "level1"),
                       "fp8own_level1": ("fp8own", "level1"),
                       "fp8_level1_fast": ("fp8", "level1_fast"), "level1_sparse": ("core", "level1_sparse"),
                       "sparse_compile": ("core", "sparse_compile"),
                       "sparse_nodense_compile": ("core", "sparse_nodense_compile"),
                       "gguf": ("gguf", "stock"), "gguf_level1": ("gguf", "level1"),
                       "gguf_pod": ("gguf_pod", "stock"), "gguf_pod_level1": ("gguf_pod", "level1")}

    def build_workflow(self, name, path):
        """((high, low) experts, report) for one chain of the users' workflow (see the module docstring)."""
        import comfy.sd

        if name not in self.WORKFLOW_CHAINS:
            raise SystemExit(f"chain {name} is not defined for --workflow; known: {', '.join(self.WORKFLOW_CHAINS)}")
        loader, chain = self.WORKFLOW_CHAINS[name]
        experts, reports = [], []
        for expert in ("high", "low"):
            if loader in ("fp8", "fp8own"):
                F = self.H.pack_module("accel.fp8")
                res = F.load_file(str(path), **({"compute": F.COMPUTE_FP8} if loader == "fp8own" else {}))
                m, rep = res.patcher, [res.report]
            elif loader in ("gguf", "gguf_pod"):
                m, rep = self.gguf_expert(expert, patch_on_device=loader == "gguf_pod"), []
            else:
                m, rep = self.expert_base(expert, path, name), []
            m = comfy.sd.load_lora_for_models(m, None, self.lora(expert), 1.0, 0.0)[0]
            m = call_node("ModelSamplingSD3", model=m, shift=5.0)[0]
            m, r = self.patch(chain, m)
            experts.append(m)
            reports.append("\n".join(rep + [r]).strip())
        return tuple(experts), f"high-noise expert:\n{reports[0]}\nlow-noise expert:\n{reports[1]}"

    def expert_base(self, expert, path, chain):
        """ComfyUI's loader's model for one expert. With --sequential the chains share it (one chain's models at a
        time); interleaved, each chain loads its own: on shared experts, whose clones' LoRA patches alternated run by
        run, Level-1 took 9.23 s against 8.55 s on experts of its own (H200, the median of 3 each:
        bench/results/h200/fp8_stored_033_interleaved/README.md)."""
        if not hasattr(self, "_experts"):
            self._experts = {}
        key = expert if self.a.sequential else (chain, expert)
        if key not in self._experts:
            t0 = time.time()
            self._experts[key] = self._load(path, {})
            log(f"loaded {path.name} as the {expert}-noise expert ({type(self._experts[key]).__name__}) in "
                f"{time.time() - t0:.1f} s" + ("" if self.a.sequential else f" for {chain}"))
        return self._experts[key]

    def patch(self, name, base):
        """(model, report) of chain `name` applied to a loaded model."""
        if name == "stock":
            return base, ""
        opts = families.chain_options(name, "shipped")
        if opts is not None:  # the family's chain, +- Accel Compile options (families.not_applicable: a preset's none)
            shipped = families.spec(self.a.family).shipped
            return self.patch(families.compile_chain(opts[0]) if opts[0] else shipped, base)
        if name == "attention":
            return call_node("AccelAttention", model=base)[:2]
        if name == "compile":
            return call_node("AccelCompile", model=base)[:2]
        opts = families.chain_options(name, "cuda_attn_compile")
        if opts is not None:  # cuda_attn_compile[_graphs][_model_scope][_resident][_sdpa][_static]
            opts = opts[0]
            m = call_node("AccelCUDASettings", model=base)[0]
            # fallback error: a call sdpa cannot serve fails the chain instead of measuring ComfyUI's attention
            m = (call_node("AccelAttention", model=m, backend="sdpa", fallback="error") if "sdpa" in opts
                 else call_node("AccelAttention", model=m))[0]
            return call_node("AccelCompile", model=m, cuda_graphs="on" if "graphs" in opts else "off",
                             scope="model" if "model_scope" in opts else "blocks",
                             resident_weights="resident" in opts, dynamic="false" if "static" in opts else "auto")[:2]
        if name == "level1":
            return call_node("AccelWanLevel1", model=base)[:2]
        if name == "level1_h3":
            return call_node("AccelMiniMaxH3Level1", model=base)[:2]
        if name == "level1_h3_sparse":  # fails instead of running dense where radial_sparse cannot run
            return call_node("AccelMiniMaxH3Level1", model=base, quality="sparse (radial, opt-in)",
                             on_failure="error")[:2]
        if name == "level1_h3_prefetch":  # on_failure error, as level1_prefetch
            return call_node("AccelMiniMaxH3Level1", model=base, prefetch_weights=True, on_failure="error")[:2]
        if name == "level1_default":
            return call_node("AccelWanLevel1", model=base, compile_mode="default")[:2]
        if name == "level1_prefetch":  # on_failure error: a prefetch that fails stops the chain instead of falling back
            return call_node("AccelWanLevel1", model=base, prefetch_weights=True, on_failure="error")[:2]
        if name in ("attention_fp8", "attention_fp8_all", "attention_ck_int8"):
            backend = "comfy_kitchen_int8" if name == "attention_ck_int8" else "flash_attn_3_fp8"
            extra = _NO_HYBRID if name == "attention_fp8_all" else {}
            # fallback error: a backend that cannot run here fails the chain instead of measuring stock again
            return call_node("AccelAttention", model=base, backend=backend, fallback="error", **extra)[:2]
        if name in ("attention_sparse", "sparse_compile", "sparse_nodense_compile"):  # radial_sparse (issue #32)
            extra = {"dense_steps": 0} if name == "sparse_nodense_compile" else {}
            # fallback error: fails instead of running dense
            m, rep = call_node("AccelAttention", model=base, backend="radial_sparse", fallback="error", **extra)[:2]
            if name == "attention_sparse":
                return m, rep
            m = call_node("AccelCUDASettings", model=m)[0]
            return call_node("AccelCompile", model=m)[:2]
        if name == "level1_fast":
            return call_node("AccelWanLevel1", model=base, compile_mode="default", quality="fast",
                             on_failure="error")[:2]
        if name == "level1_sparse":  # the option's text (accel.wan_level1.preset.SPARSE); the node validates it
            return call_node("AccelWanLevel1", model=base, quality="sparse (radial, opt-in)", on_failure="error")[:2]
        if name == "core_ck_int8":
            import nodes

            if "ModelAttentionBackend" not in nodes.NODE_CLASS_MAPPINGS:
                raise RuntimeError("this ComfyUI has no ModelAttentionBackend node (added after 0.3.75)")
            import comfy.ldm.modules.attention as attn

            if not getattr(attn, "COMFY_KITCHEN_INT8_ATTENTION_IS_AVAILABLE", False):
                raise RuntimeError("comfy-kitchen INT8 attention is not available in this install")
            return call_node("ModelAttentionBackend", model=base, attention="comfy kitchen attention")[0], ""
        if name == "core_compile":
            return call_node("TorchCompileModel", model=base, backend="inductor")[0], ""
        if name == "kj_sage_compile":
            self._load_peer(runner.peer_path("kjnodes"), "PathchSageAttentionKJ")
            m = call_node("PathchSageAttentionKJ", model=base, sage_attention="auto")[0]
            return call_node("TorchCompileModelAdvanced", model=m)[0], ""
        raise SystemExit(f"unknown chain {name}; known: {', '.join(CHAINS)}")

    def _load_peer(self, path, node):
        """Load a peer pack (benchmarks only) through ComfyUI's own custom-node loader."""
        import asyncio

        import nodes

        if node in nodes.NODE_CLASS_MAPPINGS:
            return
        if not Path(path).is_dir():
            raise RuntimeError(f"peer pack not found at {path} (bench/prepare_gpu_carry.sh with KJNODES=...)")
        asyncio.run(nodes.load_custom_node(str(path), set(nodes.NODE_CLASS_MAPPINGS), module_parent="custom_nodes"))
        if node not in nodes.NODE_CLASS_MAPPINGS:
            raise RuntimeError(f"{path} did not register {node} (see its import errors above)")

    def _load(self, path, opts):
        import comfy.sd

        return comfy.sd.load_diffusion_model(str(path), model_options=opts)

    def base(self, path):
        if not hasattr(self, "_base"):
            t0 = time.time()
            if path is None:  # the smoke's in-memory tiny model (families.IN_MEMORY_SMOKE)
                self._base = self._shift(families.tiny_model(self.a.family))
                log(f"built the tiny {self.a.family} in memory ({type(self._base).__name__})")
                return self._base
            self._base = self._shift(self._load(path, {}))
            log(f"loaded {path.name} as {type(self._base).__name__} in {time.time() - t0:.1f} s")
        return self._base

    def _shift(self, m):
        """The model-sampling node the family's workflow puts after the loader (wan_ti2v_5b: ModelSamplingSD3 8)."""
        f = families.spec(self.a.family)
        return call_node(f.shift[0], model=m, **f.shift[1])[0] if f.shift and not self.a.workflow else m

    # --- run -------------------------------------------------------------------------------------
    def run(self):
        if not self.a.smoke and not self.a.weights_only:
            # generate the weights in a child process: its GPU memory is returned to the driver when it exits
            subprocess.run([sys.executable, __file__, "--weights-only", "--family", self.a.family, "--size",
                            self.a.size, "--dtype", self.a.dtype,
                            "--weights", self.a.weights, "--out", self.a.out, "--hygiene", str(self.a.hygiene),
                            "--workflow", self.a.workflow, "--lora-rank", str(self.a.lora_rank),
                            "--stored", self.a.stored, "--chains", self.a.chains], check=True)
        self.boot()
        if self.cuda:
            self.res["baseline_alloc_gib"] = round(self.torch.cuda.memory_allocated() / 2 ** 30, 3)
        path = self.weights_file()
        if self.a.hygiene:
            self.weights_file(seed=1)
        if self.a.workflow and any(self.WORKFLOW_CHAINS.get(c.strip(), ("",))[0].startswith("gguf")
                                   for c in self.a.chains.split(",")):
            self.gguf_file()
        if self.a.weights_only:
            return
        if self.a.chains.strip():
            (self.sequential if self.a.sequential else self.matrix)(path)
        if self.a.hygiene:
            self.hygiene(path)
        self.save()
        print("\n".join(self.markdown()[-(len(self.res["chains"]) + 6):]))

    def matrix(self, path):
        names = [c.strip() for c in self.a.chains.split(",") if c.strip()]
        if names[0] != "stock":
            names.insert(0, "stock")
        models, ref, firsts = {}, None, {}
        torch = self.torch
        for n in names:  # first runs, in order: builds, compiles, gives the reference latent
            try:
                t0 = time.perf_counter()
                m, report = self.build(n, path)
                build_s = time.perf_counter() - t0
                if self.cuda:
                    torch.cuda.reset_peak_memory_stats()
                with MemSampler(torch) if self.cuda else _Null() as ms:
                    first_s, lat = self.sample(m)
                r = self.res["chains"][n] = {"what": CHAINS.get(n, n), "build_s": round(build_s, 2),
                                             "first_run_s": round(first_s, 2), "report": report, "times_s": []}
                if self.cuda:
                    r["first_peak_alloc_gib"] = round(torch.cuda.max_memory_allocated() / 2 ** 30, 2)
                    r["first_peak_device_gib"] = round(ms.peak / 2 ** 30, 2)
                if ref is None:
                    ref = lat
                firsts[n] = lat
                r.update(_fidelity(lat, ref))
                r["patcher"] = type(m).__name__
                r["compile"] = self.compile_summary(m)
                models[n] = m
                log(f"{n}: first run {first_s:.1f} s (build {build_s:.1f} s) {_short(r)}")
            except Skipped as e:
                self.res["chains"][n] = {"what": CHAINS.get(n, n), "skipped": str(e)}
                log(f"{n}: skipped ({e})")
            except Exception as e:  # noqa: BLE001 - record and go on with the other chains
                self.res["errors"].append({"chain": n, "error": f"{type(e).__name__}: {e}",
                                           "trace": traceback.format_exc()[-3000:]})
                log(f"{n}: FAILED {type(e).__name__}: {e}")
                if "out of memory" in str(e).lower():
                    self.res["chains"][n] = {"what": CHAINS.get(n, n), "oom": True, "error": str(e)[:300]}
            self.save()
        order = [n for n in names if n in models]
        for rnd in range(self.a.rounds):
            for n in (order if rnd % 2 == 0 else order[::-1]):
                r = self.res["chains"][n]
                t, lat = self.timed(models[n], r, n)
                r.update(_fidelity(lat, ref))
                r["self_max_abs_diff"] = _self_diff(lat, firsts[n], r)
                log(f"round {rnd}: {n} {t:.2f} s {_short(r)}")
            _speedups(self.res)
            self.save()  # a run stopped by a time limit keeps every round measured so far, with its speed-ups
        for n in order:
            self.res["chains"][n]["fp8_calls"] = self.fp8_calls(models[n])
            self.res["chains"][n]["after_run"] = self.after_run(models[n])
        _speedups(self.res)
        # unload, measure what stays allocated; then drop the chains' model objects one at a time and record what
        # each one held beyond ComfyUI's unload (compiled graphs, patches' buffers): attribution, in one run
        m = lat = None  # noqa: F841 - the loop variables held the last chain's model and latent
        self.res["after_unload_alloc_gib"] = self._unload()
        released = {}
        for n in order:
            before = self._alloc()
            del models[n]
            released[n] = round(before - self._unload(), 3)
        self.res["released_per_chain_gib"] = released
        if hasattr(self, "_base"):
            del self._base
        if hasattr(self, "_experts"):
            del self._experts
        self.res["after_dropping_all_gib"] = self._unload()
        self.torch._dynamo.reset()  # compiled code cached on shared code objects outlives the model objects
        self.res["after_dynamo_reset_gib"] = self._unload()

    def timed(self, model, r, label: str):
        """One timed sample: its time appended to r["times_s"], torch's and the device's peak memory in r; with
        --clocks the GPU's clocks while it ran in r["clocks"] (every timed run of `label` so far)."""
        torch = self.torch
        if self.cuda:
            torch.cuda.reset_peak_memory_stats()
        with MemSampler(torch) if self.cuda else _Null() as ms, self.clocks(label, r, "clocks"):
            t, lat = self.sample(model)
        r["times_s"].append(round(t, 3))
        if self.cuda:
            r["peak_alloc_gib"] = round(torch.cuda.max_memory_allocated() / 2 ** 30, 2)
            r["peak_device_gib"] = round(ms.peak / 2 ** 30, 2)
        return t, lat

    @contextlib.contextmanager
    def clocks(self, label: str, r: dict, field: str):
        """With --clocks: the monitor files its samples under `label` while the block runs; r[field] = their summary."""
        mon = getattr(self, "mon", None)
        if mon is None:
            yield
            return
        mon.phase(label)
        try:
            yield
        finally:
            mon.phase(None)
            summ = mon.summary()
            r[field] = summ.get(label) or {"samples": 0, **({"error": summ["_error"]} if "_error" in summ else {})}

    def clocked(self, label: str, r: dict, field: str, model):
        """self.sample(model) with --clocks' samples of that run alone in r[field] (not the profiler's processing
        after it, when the GPU idles)."""
        with self.clocks(label, r, field):
            return self.sample(model)

    def fp8_calls(self, m):
        """Layer calls per path of the FP8 loader's model(s) of a chain over its runs (accel.fp8.ops FP8Runtime.calls:
        "fp8" / "dequant" matmuls, "lora_lowrank" / "lora_dense" for a LoRA applied per call), or None."""
        ops = self.H.pack_module("accel.fp8.ops")
        out = []
        for x in (m if isinstance(m, tuple) else (m,)):
            rt = next((mod.accel_fp8_runtime for mod in x.model.diffusion_model.modules() if ops.is_accel_linear(mod)),
                      None)
            if rt is not None:
                out.append(dict(rt.calls))
        return out or None

    def after_run(self, m):
        """The lines the chain's nodes add to their report after a run (accel.common.live_report: compile status,
        sparse attention's sparsity and kept attention mass per shape, FP8 call counts), or None."""
        L = self.H.pack_module("accel.common.live_report")
        out = [line for x in (m if isinstance(m, tuple) else (m,)) for line in L.run_lines(x)]
        return out or None

    def compile_summary(self, m):
        """What Accel Compile did on the chain's model(s) (accel.compile.compile_status), or None."""
        C = self.H.pack_module("accel.compile")
        out = []
        for x in (m if isinstance(m, tuple) else (m,)):
            st = C.compile_status(x)
            if st.get("enabled"):
                out.append({k: st[k] for k in ("mode", "fell_back", "reason", "graphs", "recompiles", "compile_seconds",
                                               "regions", "streamed_regions", "quantized_plans", "fetch_host_ms",
                                               "call_host_ms", "memory", "graph_captures", "graph_replays",
                                               "graph_drops", "graph_failures", "graph_reason", "graph_last_run",
                                               "prefetch")})
        return out or None

    def sequential(self, path):
        """Each chain on its own (see --sequential); stock first and last."""
        names = [c.strip() for c in self.a.chains.split(",") if c.strip()]
        names = ["stock"] + [n for n in names if n != "stock"] + ["stock"]
        ref = None
        for i, n in enumerate(names):
            key = n if i < len(names) - 1 else "stock_again"
            try:
                t0 = time.perf_counter()
                m, report = self.build(n, path)
                build_s = time.perf_counter() - t0
                first_s, lat = self.sample(m)
                r = self.res["chains"][key] = {"what": CHAINS.get(n, n) + (" (again, last)" if key != n else ""),
                                               "build_s": round(build_s, 2), "first_run_s": round(first_s, 2),
                                               "report": report, "times_s": [], "compile": self.compile_summary(m)}
                if ref is None:
                    ref = lat
                first = lat
                for _ in range(self.a.rounds):
                    t, lat = self.timed(m, r, key)
                    r["self_max_abs_diff"] = _self_diff(lat, first, r)
                if self.a.resolution_change:
                    r["resolution_change"] = self.resolution_change(m)
                if self.a.profile:  # each model call a range of its own (runner.call_spans): the profile splits by call
                    r["profile"], _ = runner.profile_kernels(functools.partial(
                        self.clocked, key + " (profiled)", r, "clocks_profiled", self.spanned(m)))
                    if self.a.sync_sites and self.cuda:  # sync debug mode needs CUDA
                        r["profile"]["sync_sites"], _ = runner.sync_sites(lambda m=m: self.sample(m))
                    if self.a.host_profile:
                        tables, _ = runner.host_profile_tables(lambda m=m: self.sample(m), top=40)
                        r["profile"]["host_functions"] = tables["own"]
                        r["profile"]["host_cumulative"] = tables["cumulative"]
                r["fp8_calls"] = self.fp8_calls(m)
                r["after_run"] = self.after_run(m)
                r["compile"] = self.compile_summary(m)  # as of the last run (host times of its last model call)
                r.update(_fidelity(lat, ref))
                log(f"{key}: first {first_s:.1f} s, timed {r['times_s']} {_short(r)} compile {r['compile']}")
            except Skipped as e:
                self.res["chains"][key] = {"what": CHAINS.get(n, n), "skipped": str(e)}
                log(f"{key}: skipped ({e})")
            except Exception as e:  # noqa: BLE001
                self.res["errors"].append({"chain": n, "error": f"{type(e).__name__}: {e}",
                                           "trace": traceback.format_exc()[-3000:]})
                log(f"{n}: FAILED {type(e).__name__}: {e}")
                if "out of memory" in str(e).lower():
                    self.res["chains"][key] = {"what": CHAINS.get(n, n), "oom": True, "error": str(e)[:300]}
            m = lat = None  # the chain's patched clones go; the loaded base models stay (shared, as in a user's graph)
            self._unload()
            _speedups(self.res)
            self.save()  # a run stopped by a time limit keeps every chain measured so far, with its speed-up
        self.res["after_unload_alloc_gib"] = self._unload()

    def resolution_change(self, m) -> dict:
        """--resolution-change: the other size, back, and both again; times and what the compile summary counted
        (recompiles, CUDA-graph captures) before and after each pair."""
        def counts():
            summary = self.compile_summary(m) or []
            return {"recompiles": sum(x["recompiles"] for x in summary),
                    "graph_captures": sum(x["graph_captures"] for x in summary)}

        size = (self.a.width, self.a.height)
        out = {"size": "{}x{}".format(*self.a.resolution_change), "back_to": "{}x{}".format(*size), "before": counts(),
               "pairs": []}
        for _ in range(2):
            times = []
            for w, h in (self.a.resolution_change, size):
                self.a.width, self.a.height = w, h
                try:
                    times.append(round(self.sample(m)[0], 3))
                finally:
                    self.a.width, self.a.height = size
            out["pairs"].append({"times_s": times, **counts()})
        log(f"resolution change {out['size']} and back: {out['pairs']}")
        return out

    def _alloc(self):
        return self.torch.cuda.memory_allocated() / 2 ** 30 if self.cuda else 0.0

    def _unload(self):
        import gc

        self.mm.unload_all_models()
        gc.collect()
        self.mm.soft_empty_cache()
        return round(self.torch.cuda.memory_allocated() / 2 ** 30, 3) if self.cuda else 0.0

    def hygiene(self, path):
        """N runs of a two-expert workflow (high-noise model for the first half of the steps, low-noise for the
        rest, like Wan 2.2 A14B), both experts patched with one chain: allocated memory after every run, and
        after unloading everything, against the baseline taken before anything was loaded."""
        import nodes

        torch, chain = self.torch, self.a.hygiene_chain
        if hasattr(self, "_base"):
            del self._base
        self._unload()
        self._base = self._load(path, {})
        high = self.build(chain, path)[0]
        del self._base
        low_path = self.weights_file(seed=1)
        self._base = self._load(low_path, {})
        low = self.build(chain, low_path)[0]
        del self._base
        pos, neg, lat = self.inputs()
        half = max(1, self.a.steps // 2)
        rows = []
        for i in range(self.a.hygiene):
            t0 = time.perf_counter()
            x = nodes.common_ksampler(high, 0, self.a.steps, self.a.cfg, "euler", "simple", pos, neg, lat,
                                      start_step=0, last_step=half, force_full_denoise=False)[0]
            out = nodes.common_ksampler(low, 0, self.a.steps, self.a.cfg, "euler", "simple", pos, neg, x,
                                        disable_noise=True, start_step=half, last_step=self.a.steps,
                                        force_full_denoise=True)[0]["samples"]
            if self.cuda:
                torch.cuda.synchronize()
            rows.append({"run": i, "s": round(time.perf_counter() - t0, 3), "finite": bool(torch.isfinite(out).all()),
                         "alloc_gib": round(torch.cuda.memory_allocated() / 2 ** 30, 3) if self.cuda else None})
            log(f"hygiene run {i}: {rows[-1]}")
            self.res["hygiene"] = {"chain": chain, "runs": rows, "partial": True}
            self.save()  # a timeout keeps the runs measured so far
        del high, low, x, out
        after = self._unload()
        allocs = [r["alloc_gib"] for r in rows if r["alloc_gib"] is not None]
        self.res["hygiene"] = {"chain": chain, "runs": rows, "after_unload_alloc_gib": after,
                               "baseline_alloc_gib": self.res.get("baseline_alloc_gib"),
                               "growth_gib_first_to_last": round(allocs[-1] - allocs[0], 3) if allocs else None}

    def save(self):
        runner.write(self.out, "matrix", self.res, self.markdown())

    def markdown(self):
        m = self.res.get("meta", {})
        title = (f"Wan 2.2 A14B T2V users' workflow ({m.get('size')}: fp8_scaled experts + LightX2V LoRA rank "
                 f"{self.a.lora_rank}, shift 5)" if m.get("workflow")
                 else f"Wan 2.1 T2V {m.get('size')} {m.get('dtype')}")
        head = (f"# Matrix: {title}, {m.get('frames')}f {m.get('height')}x{m.get('width')}, "
                f"{m.get('steps')} steps CFG {m.get('cfg')}")
        if m.get("family", "wan") != "wan":
            head = f"# Matrix: {families.title(m)}"
        lines = [head,
                 "", f"GPU {m.get('gpu')} ({m.get('gpu_total_gib') and round(m['gpu_total_gib'])} GiB"
                 + (f", simulated {m['simulated_card_gib']:g} GiB card" if m.get("simulated_card_gib") else "")
                 + (f", torch allocator capped at {m['torch_memory_fraction']:.3f} of the GPU"
                    if m.get("torch_memory_fraction") else "")
                 + (", the rest of the GPU occupied by another process before ComfyUI started"
                    if m.get("occupied_rest_of_gpu") else "")
                 + f"), ComfyUI {m.get('comfyui')}, torch {m.get('torch')}, DynamicVRAM "
                   f"{m.get('start', {}).get('dynamic_vram')}, patcher {m.get('patcher')}. Random weights: speed and "
                   "deviation only, not visual quality."
                 + (" Pack switches set: " + ", ".join(f"{k}={v}" for k, v in m["switches"].items()) + "."
                    if m.get("switches") else ""),
                 f"Command: `{self.res['command']}`", *runner.meta_markdown(self.res.get("run_meta")), "",
                 "| chain | what | time (s) | speedup | cosine vs stock | max abs diff | peak alloc (GiB) | peak "
                 "device (GiB) | first run (s) | max abs diff vs its own first run |",
                 "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |"]
        for n, r in self.res["chains"].items():
            if r.get("oom"):
                lines.append(f"| {n} | {r['what']} | OOM | | | | | | | |")
                continue
            if r.get("skipped"):
                lines.append(f"| {n} | {r['what']} | skipped: {r['skipped']} | | | | | | | |")
                continue
            t = _median(r.get("times_s") or [])
            lines.append(f"| {n} | {r['what']} | {t if t is not None else ''} | {r.get('speedup', '')} | "
                         f"{r.get('cosine', '')} | {r.get('max_abs_diff', '')} | "
                         f"{r.get('peak_alloc_gib', r.get('first_peak_alloc_gib', ''))} | "
                         f"{r.get('peak_device_gib', r.get('first_peak_device_gib', ''))} | {r.get('first_run_s', '')} "
                         f"| {r.get('self_max_abs_diff', '')} |")
        if "after_unload_alloc_gib" in self.res:
            lines.append(f"\nAllocated after unload_all_models(): {self.res['after_unload_alloc_gib']} GiB "
                         f"(baseline before loading: {self.res.get('baseline_alloc_gib')} GiB)")
        lines += clock_lines(self.res["chains"])
        if "released_per_chain_gib" in self.res:
            rel = ", ".join(f"{n} {g}" for n, g in self.res["released_per_chain_gib"].items())
            lines.append(f"Then each chain's model object dropped in turn, GiB released: {rel}; allocated with every "
                         f"model object dropped: {self.res.get('after_dropping_all_gib')} GiB, after "
                         f"torch._dynamo.reset(): {self.res.get('after_dynamo_reset_gib')} GiB")
        h = self.res.get("hygiene")
        if h:
            lines += ["", f"## Memory hygiene: {len(h['runs'])} two-expert runs (high -> low noise), both experts: "
                          f"{h['chain']}",
                      "", "| run | time (s) | allocated after (GiB) | finite |", "| --- | --- | --- | --- |"]
            lines += [f"| {r['run']} | {r['s']} | {r['alloc_gib']} | {r['finite']} |" for r in h["runs"]]
            if h.get("partial"):
                lines.append("\nPartial: the run stopped before all runs and the unload were measured.")
            else:
                lines.append(f"\nGrowth first -> last run: {h['growth_gib_first_to_last']} GiB; after unload: "
                             f"{h['after_unload_alloc_gib']} GiB (baseline {h['baseline_alloc_gib']} GiB)")
        for n, r in self.res["chains"].items():
            p = r.get("profile")
            if p:
                cats = ", ".join(f"{k} {v}" for k, v in p["by_category_ms"].items())
                busy = f"busy {p['busy_ms']} ms, " if "busy_ms" in p else ""  # files before the interval union
                lines += ["", f"## {n}: one profiled run: wall {p['wall_ms']} ms, GPU kernels {p['kernel_ms']} ms "
                              f"({busy}busy share {p['gpu_busy']}); {cats}"]
                if "copy_ms" in p:
                    lines += ["", f"Copies {p['copy_ms']} ms, compute busy {p['compute_busy_ms']} ms; copies with no "
                                  f"compute running beside them {p['copy_alone_ms']} ms (the GPU waited on those "
                                  "transfers)."]
                if p.get("calls"):
                    lines += ["", "| model call | host ms | GPU window ms | busy ms | copies ms | copies alone ms | "
                                  "GPU idle ms |", "| --- | ---: | ---: | ---: | ---: | ---: | ---: |"]
                    lines += [f"| {c['name']} | {c['host_ms']} | {c.get('window_ms', '')} | {c.get('busy_ms', '')} | "
                              f"{c.get('copy_ms', '')} | {c.get('copy_alone_ms', '')} | {c.get('idle_ms', '')} |"
                              for c in p["calls"]]
                lines += ["", "| kernel | ms | category |", "| --- | ---: | --- |"]
                lines += [f"| `{k}` | {ms} | {c} |" for k, ms, c in p["top"]]
                if p.get("host_top"):
                    lines += ["", "| host op (self CPU time) | calls | ms |", "| --- | ---: | ---: |"]
                    lines += [f"| `{k}` | {n} | {ms} |" for k, n, ms in p["host_top"]]
                if p.get("host_functions"):
                    lines += ["", "| Python function (cProfile, own time) | calls | own ms | cumulative ms |",
                              "| --- | ---: | ---: | ---: |"]
                    lines += [f"| `{f}` | {n} | {own} | {cum} |" for f, n, own, cum in p["host_functions"]]
                if p.get("host_cumulative"):
                    lines += ["", "| Python function (cProfile, cumulative: with what it calls) | calls | own ms | "
                                  "cumulative ms |",
                              "| --- | ---: | ---: | ---: |"]
                    lines += [f"| `{f}` | {n} | {own} | {cum} |" for f, n, own, cum in p["host_cumulative"]]
                if p.get("sync_sites"):
                    lines += ["", "| host waited for the GPU (calls) | where (innermost Python frame first) |",
                              "| ---: | --- |"]
                    lines += [f"| {n} | {' < '.join(f'`{x}`' for x in fr) or '(no Python frame)'} |"
                              for n, fr in p["sync_sites"]]
        lines += _path_lines(self.res["chains"])
        unstable = {n: r["unstable"] for n, r in self.res["chains"].items() if r.get("unstable")}
        if unstable:
            lines.append("\n**Unstable, not a speed measurement**: "
                         + "; ".join(f"{n}: {w}" for n, w in unstable.items())
                         + ". Something besides the chain changed between runs (weights reloaded between chains when "
                         "they do not all fit the card?): measure with --sequential.")
        for e in self.res["errors"]:
            lines.append(f"\nERROR {e['chain']}: {e['error'][:300]}")
        return lines


def graphs_chain_problem(name: str, allocator: str | None) -> str | None:
    """Why a cuda_graphs chain would measure no graph in this process (None: it can): Accel Compile records none with
    PyTorch's cudaMallocAsync allocator (accel.compile.graphs.backend_problem), ComfyUI's default as main.py starts it.
    `allocator`: torch.cuda.get_allocator_backend() on a CUDA run, None elsewhere (the CPU smoke's stand-in records)."""
    if "graphs" in name.split("_") and allocator == "cudaMallocAsync":
        return ("Accel Compile records no CUDA graph with the cudaMallocAsync allocator this ComfyUI started with: run "
                "with --comfy-args=--disable-cuda-malloc to measure the graphs")
    return None


class Skipped(Exception):
    """A chain that does not apply to this run (its reason is recorded in the chain's row)."""


class _Null:
    peak = 0

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False


def _path_lines(chains) -> list:
    """matrix.md: which path each compiled chain's model took (where its weights lived, how many calls replayed a CUDA
    graph and why the others did not), with --resolution-change what a size change cost, and what the nodes' reports
    added after the runs (sparse attention's sparsity and kept mass per shape, prefetch, FP8 call counts)."""
    lines = []
    for n, r in chains.items():
        for c in r.get("compile") or []:
            run = c.get("graph_last_run") or {}
            graphs = (f"CUDA graphs: {run['replays']} of {run['calls']} calls of the last run replayed, "
                      f"{c['graph_captures']} captured in all" + (" (not replayed: "
                                                                  f"{run['reason']})" if run.get("reason") else "")
                      if run.get("calls") else "")
            if c.get("memory") or graphs:
                lines.append(f"- {n}: " + "; ".join(x for x in (c.get("memory"), graphs) if x))
        rc = r.get("resolution_change")
        if rc:
            pairs = "; ".join(f"{p['times_s'][0]} s / {p['times_s'][1]} s, {p['recompiles']} recompile(s) and "
                              f"{p['graph_captures']} capture(s) in all after it" for p in rc["pairs"])
            lines.append(f"- {n}: {rc['size']} then back to {rc['back_to']}, twice: {pairs} (before: "
                         f"{rc['before']['recompiles']} recompile(s), {rc['before']['graph_captures']} capture(s))")
    after = [f"- {n}: {line}" for n, r in chains.items() for line in r.get("after_run") or []
             if not line.startswith("compile:")]  # the compile line restates the status above
    return ([*(["", "## Which path ran", "", *lines] if lines else []),
             *(["", "## What the nodes reported after the runs", "", *after] if after else [])])


def _fidelity(lat, ref):
    import torch

    c = runner.compare(lat, ref)
    return {"cosine": round(c["cosine"], 6), "max_abs_diff": round(c["max_abs_diff"], 5),
            "finite": bool(torch.isfinite(lat).all())}


def _self_diff(lat, first, r) -> float:
    """The largest max |diff| of a chain's timed runs so far from its own first run: 0.0 where the chain's path
    reproduces bit for bit (the only way to tell a change from run-to-run noise on the GPU)."""
    d = round(runner.compare(lat, first)["max_abs_diff"], 5)
    return max(d, r.get("self_max_abs_diff", 0.0))


UNSTABLE_RATIO = 2.0  # a chain whose timed runs differ by more than this measured something else too


def _speedups(res):
    """speed-up of every chain vs stock (median times) in place; a chain whose timed runs differ by more than
    UNSTABLE_RATIO is marked `unstable` (e.g. all chains' models in one process do not fit the card, so DynamicVRAM
    reloads weights between chains: measure such a family with --sequential)."""
    stock = res["chains"].get("stock", {})
    base_t = _median(stock.get("times_s") or [])
    for r in res["chains"].values():
        ts = r.get("times_s") or []
        t = _median(ts)
        if t and base_t:
            r["speedup"] = round(base_t / t, 3)
        if len(ts) > 1 and min(ts) > 0 and max(ts) / min(ts) > UNSTABLE_RATIO:
            r["unstable"] = f"timed runs {min(ts)}-{max(ts)} s differ by more than {UNSTABLE_RATIO:g}x"


def _median(xs):
    xs = sorted(xs)
    return xs[len(xs) // 2] if xs else None


def _short(r):
    return (f"cos {r.get('cosine')} maxdiff {r.get('max_abs_diff')} peak dev "
            f"{r.get('peak_device_gib', r.get('first_peak_device_gib'))} GiB")


def rerender(folder):
    """Recompute speed-ups and rewrite matrix.md from a folder's matrix.json (a run stopped by a time limit)."""
    import types

    mx = Matrix.__new__(Matrix)
    mx.out = Path(folder)
    mx.res = json.loads((mx.out / "matrix.json").read_text())
    mx.a = types.SimpleNamespace(lora_rank=int(mx.res["command"].split("--lora-rank")[1].split()[0])
                                 if "--lora-rank" in mx.res["command"] else 32)
    _speedups(mx.res)
    mx.save()


if __name__ == "__main__":
    if len(sys.argv) == 3 and sys.argv[1] == "--rerender":
        rerender(sys.argv[2])
    else:
        Matrix(parse()).run()
