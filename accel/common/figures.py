"""Every measured figure the pack shows a user, with the result file it comes from (issue #28).

One row per figure: an id, the file under `bench/results/` that holds it, where in that file (`src`), the value
as the file holds it, how it is written (`fmt`), and what was measured (`config`: GPU, ComfyUI, model, settings).
Tooltips, descriptions and reason strings read their numbers from here (`text(id)`), and the Markdown docs cite
a row after the number with an HTML comment, e.g. `**1.50x**<!--fig:level1.h200.140-->`.
`tests/common/test_figures.py` reads every cited file and fails when a value here differs from its file, when a cited
number differs from its row, or when README.md or a string of the pack states a figure that cites no row.
How to add a figure: CONTRIBUTING.md, "Figures".

`src` forms:
  "json:a/b/0/c"                     key path in a JSON file ("/" between keys, integers index lists)
  "md:<cell>/<cell>/...|<column>"    a Markdown table of the file: the row whose first cells are these, the
                                     column with this header (the first table that has both); `**` and a
                                     trailing `x` are stripped from the cell

No file is read at import: the values are literal here, and the test keeps them equal to their files. The
module imports nothing from the pack (the test loads it by path, without ComfyUI).
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from decimal import ROUND_HALF_UP, Decimal

RESULTS = "bench/results"


@dataclass(frozen=True)
class Figure:
    id: str
    file: str       # relative to bench/results/
    src: str        # see the module docstring
    value: float    # as the file holds it (times `scale`)
    fmt: str        # how docs and strings write it, e.g. "{:.2f}x"
    config: str     # GPU, ComfyUI version, model and settings it was measured with
    scale: float = 1.0  # file value * scale = value (e.g. s -> ms)

    @property
    def number(self) -> str:
        """The number as written, without its unit: "1.50" for 1.503 with "{:.2f}x". Rounded half up from the
        decimal digits the file holds (1.765 -> "1.77"; binary floating point would give "1.76")."""
        start, end = self.fmt.index("{"), self.fmt.index("}") + 1
        spec = self.fmt[start + 2:end - 1]  # ".2f"
        m = re.fullmatch(r"\.(\d+)f", spec)
        if not m:
            return self.fmt[start:end].format(self.value)
        digits = int(m.group(1))
        quantum = Decimal(1).scaleb(-digits)
        return str(Decimal(repr(self.value)).quantize(quantum, rounding=ROUND_HALF_UP))

    @property
    def text(self) -> str:
        start, end = self.fmt.index("{"), self.fmt.index("}") + 1
        return self.fmt[:start] + self.number + self.fmt[end:]


# --- configurations (the text a row's config starts with) ----------------------------------------------------
_M033 = "Wan 2.1 T2V 14B fp16 random weights, 480p 81 frames, 2 steps CFG 5, ComfyUI 0.33.0 as main.py starts it"
_M075 = "Wan 2.1 T2V 14B fp16 random weights, 480p 81 frames, 2 steps CFG 5, ComfyUI 0.3.75"
H100_80 = f"H100 80GB, {_M033}, whole card; nodes before the V3 move, Level-1 compiling with max-autotune"
H100_24 = (f"H100 80GB told it is a 24 GB card (--reserve-vram 55.65, no allocator cap), {_M033}; nodes before the "
           "V3 move, Level-1 compiling with max-autotune")
H200_140 = f"H200 141GB, {_M033}, whole card, current nodes (Level-1 compile mode default)"
H200_48 = f"H200 told it is a 48 GB card (--reserve-vram only, no allocator cap), {_M033}, current nodes"
H200_32 = f"H200 told it is a 32 GB card (--reserve-vram only, no allocator cap), {_M033}, current nodes"
H200_24 = (f"H200 as a 24 GB card: --reserve-vram plus torch's caching allocator capped at 24 GiB (--hard-cap); "
           f"other allocations not capped; {_M033}, current nodes")
H200_075 = f"H200 141GB, {_M075}, whole model loaded"
H100_075 = f"H100 80GB, {_M075}, whole model loaded"
ATTN_H100 = "H100 80GB, one attention call, bf16, batch 1, head_dim 128, ComfyUI 0.3.75, torch 2.11"
LEVEL1_H100 = ("H100 80GB, ComfyUI 0.3.75, Wan 2.1 true config random weights, 480p 81 frames, one forward, "
               "Level-1 with max-autotune-no-cudagraphs (bench_level1.py)")
COMPILE_H100 = ("H100 80GB, ComfyUI 0.3.75, Wan 2.1 1.3B random weights, 480p 81 frames, per-block compile, "
                "default mode; warm restart = compile time in a second process with the same cache")
VAE = "Wan 2.1 VAE random weights, bf16, 81 frames 832x480, ComfyUI 0.33.0"
E2E = ("H100 80GB, ComfyUI 0.33.0 live server, the shipped Wan 2.1 T2V 1.3B API workflow's graph run at 4 steps and "
       "81 frames 480p (the file: 30 steps, 33 frames), animated WEBP save (no PyAV), one sample per variant, Queue 2")

_WF = ("Wan 2.2 A14B T2V users' workflow: two experts loaded by ComfyUI's loader from a random file in ComfyUI's "
       "scaled-fp8 layout, a rank-32 LightX2V-layout LoRA on each, shift 5, 480p 81 frames, 4 steps CFG 1 split 2+2, "
       "ComfyUI 0.33.0 as main.py starts it (DynamicVRAM), sampling of both experts, median of 2 runs "
       "(bench_matrix.py --workflow lightx2v --sequential)")
WF_H100_80 = f"H100 80GB, {_WF}, whole card"
WF_H100_24 = (f"H100 80GB as a 24 GB card: another process holds the other 55.6 GiB before ComfyUI starts, so every "
              f"allocator sees 24 GiB; {_WF}")
WF_H200_141 = f"H200 141GB, {_WF}, whole card"

_E2E_WF = ("the shipped workflows/api/wan2.2_t2v_A14B_lightx2v_4step_level1.json on a live ComfyUI 0.33.0 server "
           "(main.py), random files in the published layouts (both experts one scaled-fp8 14B file, LightX2V-layout "
           "rank-32 LoRAs, umt5-xxl in ComfyUI's scaled-fp8 layout, Wan 2.1 VAE), 480p 81 frames 4 steps, animated "
           "WEBP save (no PyAV), a fresh server per variant (bench_e2e.py --workflow wan22_t2v_lightx2v)")
E2E_WF_H200 = f"H200 141GB, {_E2E_WF}, an empty inductor cache per server"
E2E_WF_H100 = (f"H100 80GB, {_E2E_WF}; the servers shared one inductor cache (level1+vae's Queue 1 reused "
               "level1's kernels)")
E2E_WF_H100_24 = (f"H100 80GB as a 24 GB card (another process holds the rest before the servers start), "
                  f"{_E2E_WF}")

_NOW = "h100/matrix_033_wan14B_fp16_current_node/"
H100_80_RUN2 = (f"H100 80GB, {_M033}, whole card, current nodes (Level-1 compile mode default), one process, one timed "
                "run per chain after its first run (second run, after the house move of issue #31)")


def h100_occupied(gib: int) -> str:
    return (f"H100 80GB as a {gib} GB card: another process holds the rest of the GPU before ComfyUI starts, so every "
            f"allocator sees {gib} GiB (--card {gib} --occupy); {_M033}, current nodes, one process, one timed run per "
            "chain after its first run")


LEVEL1_SAMPLE_H100 = ("H100 80GB, ComfyUI 0.33.0, Wan 2.1 T2V 1.3B true config random weights, bf16, 480p 81 frames, "
                      "4 steps CFG 5, final latent of Level-1 vs stock, cosine summed in float64 (bench_level1.py)")
_FLUX = "h100/family_033_flux_1024/matrix.json"
_TI2V = "h100/family_033_wan_ti2v_5b/matrix.json"
_FAMILY = ("ComfyUI 0.33.0 as main.py starts it (DynamicVRAM), random weights in the published key layout loaded by "
           "ComfyUI's loader, one process, first run then the chains interleaved, median of the timed runs (of two: the slower) "
           "(bench_matrix.py --family)")
FAMILY_FLUX = f"H100 80GB, Flux.1-dev 12B bf16, 1024x1024, 20 steps CFG 1 guidance 3.5, euler/simple, 3 timed runs, {_FAMILY}"
FAMILY_TI2V = (f"H100 80GB, Wan 2.2 TI2V-5B fp16, 1280x704 121 frames, 4 steps CFG 5, uni_pc/simple, shift 8, 2 timed "
               f"runs, {_FAMILY}")
_HV = "h100/family_033_hunyuan_video_33f/matrix.json"
_LTXV = "h100/family_033_ltxv/matrix.json"
_QWEN = "h100/family_033_qwen_image_8steps/matrix.json"
FAMILY_HV = ("H100 80GB, HunyuanVideo T2V 13B bf16, 960x544 33 frames, 4 steps CFG 1 guidance 6, euler/simple, ONE timed run "
             "(the call's time limit stopped the second round), " + _FAMILY)
FAMILY_LTXV = (f"H100 80GB, LTX-Video 2B bf16, 768x512 121 frames, 20 steps CFG 3, euler/simple, 2 timed runs, {_FAMILY}")
FAMILY_QWEN = ("H100 80GB, Qwen-Image 20B bf16 (41 GB: DynamicVRAM streams part of it), 1328x1328, 8 steps CFG 2.5, "
               "euler/simple, shift 3.1, ComfyUI 0.33.0 as main.py starts it (DynamicVRAM), random weights in the "
               "published key layout loaded by ComfyUI's loader, one process, each chain on its own (--sequential), one "
               "timed run after its first run (bench_matrix.py --family)")
H100_80_NOW = (f"H100 80GB, {_M033}, whole card, current nodes (Level-1 compile mode default), each chain on its own "
               "(bench_matrix.py --sequential), median of 2 runs (the slower of the two)")
H100_24_NOW = (f"H100 80GB as a 24 GB card: another process holds the other 55.6 GiB before ComfyUI starts (every "
               f"allocator sees 24 GiB), {_M033}, current nodes, one timed run (bench_matrix.py --sequential --occupy)")

_A = "attention_kernels_and_model_before_fp16_fix.md"
_SPARSE = "h100/sparse_attention/sparse_attention.json"
SPARSE_H100 = ("H100 80GB HBM3, torch 2.11, one attention call, Wan 14B shape (40 heads of 128), bf16 random q/k/v, "
               "radial pattern via compiled flex_attention vs FA3 dense (fa3-fwd), median of 10 "
               "(bench/bench_sparse_attention.py --backends flex)")

_FA4 = "h100/attention_033_fa4/"
SPARSE_FA4_H100 = ("H100 80GB HBM3, torch 2.11, flash-attn-4 4.0.0b36 (nvidia-cutlass-dsl 4.8.1, cu13), one attention call, Wan "
                   "14B shape (40 heads of 128), bf16 random q/k/v, radial pattern via FA4 block-sparse or compiled "
                   "flex_attention vs FA3 dense (fa3-fwd), median of 10 (bench/bench_sparse_attention.py --backends flex,fa4)")
ATTN_FA4_H100 = ("H100 80GB HBM3, torch 2.11, fa3-fwd 0.0.3, flash-attn-4 4.0.0b36, one attention call through the pack's "
                 "adapter as Wan calls it, bf16, median of 5 (bench/bench_attention.py --skip-model)")
_WF_SPARSE = ("Wan 2.2 A14B T2V users' workflow (fp8_scaled experts + rank-32 LightX2V LoRA, shift 5, 4 steps CFG 1 split "
              "2+2) at {res} 81 frames, H100 80GB, ComfyUI 0.33.0 (DynamicVRAM), all chains in one process, one timed run "
              "after each first run (bench_matrix.py --workflow lightx2v --chains stock,level1,level1_sparse)")
WF720_FLEX_OLD = _WF_SPARSE.format(res="720x1280") + ", sparse kernel flex_attention, each expert's first step dense"
WF720_FLEX = _WF_SPARSE.format(res="720x1280") + ", sparse kernel flex_attention, the high-noise expert's first step dense"
WF720_FA4 = (_WF_SPARSE.format(res="720x1280") + ", sparse kernel FlashAttention-4 block-sparse (flash-attn-4 4.0.0b36), "
             "the high-noise expert's first step dense")
WF121_FA4_24 = ("Wan 2.2 A14B T2V users' workflow (fp8_scaled experts + rank-32 LightX2V LoRA, shift 5, 4 steps CFG 1 split "
                "2+2) at 720x1280 121 frames, H100 80GB as a 24 GB card (another process holds the other 55.6 GiB before "
                "ComfyUI starts, so every allocator sees 24 GiB), ComfyUI 0.33.0 (DynamicVRAM), each chain on its own, one "
                "timed run after its first run (bench_matrix.py --workflow lightx2v --frames 121 --card 24 --occupy "
                "--sequential), sparse kernel FlashAttention-4 block-sparse (flash-attn-4 4.0.0b36), the high-noise "
                "expert's first step dense")
WF480_SPARSE = _WF_SPARSE.format(res="480x832") + ", sparse kernel flex_attention, each expert's first step dense"
WF_FP8_LOWRANK = (f"H100 80GB, {_WF.replace('median of 2 runs', 'one timed run')}, FP8 loader with the LoRA beside "
                  "the FP8 matmul (low-rank path)")
WF_FP8_FIXES_H200 = (f"H200 141GB, {_WF.replace('median of 2 runs', 'the slower of 2 timed runs')}, whole card, after the FP8 "
                     "loader's two fixes (fp8 dtype declared to DynamicVRAM; LoRA factors copied from pinned memory)")
WF_FP8_DTYPE_H100 = (f"H100 80GB, {_WF.replace('median of 2 runs', 'one timed run')}, whole card, after the FP8 loader "
                     "declares its fp8 dtype to DynamicVRAM (before the LoRA copy fix)")
WF_FP8_FIXES_H100 = WF_FP8_FIXES_H200.replace("H200 141GB", "H100 80GB")
_QWEN_FIX = "h100/family_033_qwen_image_8steps_fp8_fix/matrix.json"
FAMILY_QWEN_FIX = (FAMILY_QWEN.replace("one timed run after its first run", "the slower of 2 timed runs after its first run")
                   + ", after the FP8 loader declares its fp8 dtype to DynamicVRAM")
_FLUX_H200 = "h200/family_033_flux_1024_sequential_profile/matrix.json"
FAMILY_FLUX_H200 = ("H200 141GB, Flux.1-dev 12B bf16, 1024x1024, 20 steps CFG 1 guidance 3.5, euler/simple, ComfyUI 0.33.0 as "
                    "main.py starts it (DynamicVRAM), random weights, each chain on its own (--sequential), the slower of "
                    "2 timed runs (bench_matrix.py --family flux)")
_FLUX_TRIMS = "h200/family_033_flux_1024_host_trims/new/matrix.json"
FAMILY_FLUX_TRIMS = FAMILY_FLUX_H200 + ", after the compiled blocks' host-time trims (RoPE traced, FA3 raw call, attribute swaps)"
_FLUX_TRIMS_H100 = "h100/family_033_flux_1024_host_trims/matrix.json"
FAMILY_FLUX_TRIMS_H100 = (FAMILY_FLUX_TRIMS.replace("H200 141GB", "H100 80GB").replace("the slower of 2 timed runs", "one timed run"))
_WF_TRIMS = "h200/wf_lightx2v_033/sequential_141GB_host_trims/matrix.json"
WF_TRIMS_H200 = WF_FP8_FIXES_H200 + ", and the compiled blocks' host-time trims (RoPE traced, FA3 raw call, attribute swaps)"
WF_H100_24_NOW = (WF_H100_24.replace("median of 2 runs", "one timed run") + ", this version (the FP8 loader's fixes and the "
                  "compiled blocks' host-time trims), then one run under torch.profiler (--profile)")
WF_H200_24 = (WF_H100_24_NOW.replace("H100 80GB as a 24 GB card", "H200 141GB as a 24 GB card")
              .replace("the other 55.6 GiB", "the rest of the GPU").replace(", then one run under torch.profiler (--profile)", ""))
_E2E_WF_SAVE = _E2E_WF.replace("animated WEBP save (no PyAV)", "the workflow's own CreateVideo -> SaveVideo (PyAV 19.0.2 "
                                                                "carried: h264 MP4)")
E2E_WF_H200_SAVE = f"H200 141GB, {_E2E_WF_SAVE}, an empty inductor cache per server"
E2E_WF_H200_24_SAVE = (f"H200 141GB as a 24 GB card (another process holds the rest before the servers start), "
                       f"{_E2E_WF_SAVE}, an empty inductor cache per server")
E2E_WF_H100_SAVE = f"H100 80GB, {_E2E_WF_SAVE}, an empty inductor cache per server"
E2E_WF_H100_FRESH = f"H100 80GB, {_E2E_WF}, an empty inductor cache per server"
_HV_SPARSE = ("HunyuanVideo T2V 13B bf16 (random weights, true config), 1280x720, 3 steps CFG 1 guidance 6, 256 text tokens, "
              "ComfyUI 0.33.0 as main.py starts it (DynamicVRAM), torch 2.11, fa3-fwd 0.0.3, sparse kernel flex_attention, "
              "each chain on its own (--sequential)")
HV_SPARSE_65 = f"H100 80GB, {_HV_SPARSE}, 65 frames"
HV_SPARSE_129 = f"H100 80GB, {_HV_SPARSE}, 129 frames, after the int32-offset fix"
HV_SPARSE_KERNEL = ("H100 80GB, one attention call at HunyuanVideo 720p 129 frames (33x45x80 video tokens + 256 text tokens "
                    "before them, 24 heads of 128, bf16), median of 10 after warm-up, torch 2.11")
HV_SPARSE_FA4 = _HV_SPARSE.replace("sparse kernel flex_attention", "sparse kernel FlashAttention-4 block-sparse "
                                    "(flash-attn-4 4.0.0b36 carried)")
HV_SPARSE_FA4_65 = f"H100 80GB, {HV_SPARSE_FA4}, 65 frames"
HV_SPARSE_FA4_129 = f"H100 80GB, {HV_SPARSE_FA4}, 129 frames"
HV_SPARSE_KERNEL_FA4 = HV_SPARSE_KERNEL + ", flash-attn-4 4.0.0b36"
WAN_SPARSE_KERNEL_FA4 = ("H100 80GB, one attention call at Wan 14B 720p 81 frames (21x45x80 tokens, 40 heads of 128, bf16), "
                         "median of 10 after warm-up, torch 2.11, flash-attn-4 4.0.0b36")
E2E_WF_H100_24_SAVE = (f"H100 80GB as a 24 GB card (another process holds the rest before the servers start), "
                       f"{_E2E_WF_SAVE}, an empty inductor cache per server")
SAVE_H100 = ("ComfyUI 0.33.0's video save (VideoFromComponents.save_to as SaveVideo calls it: h264 MP4, format and codec auto), "
             "81 frames 832x480 at 16 fps, PyAV 19.0.2, on the 16 CPU cores of the H100 GPU machine (bench_save.py)")
WF_H100_24_AIMDO = (WF_H100_24_NOW.replace("one timed run", "2 timed runs") + ", comfy-aimdo's native log level set as "
                    "main.py sets it (the harness did not before), and one run under Python's cProfile (--host-profile)")
WF_H100_24_RESERVE = (WF_H100_24.replace("median of 2 runs", "one timed run") + ", this version, an A/B of comfy-aimdo's "
                      "headroom: ComfyUI's default --reserve-vram")
WF_H100_24_RESERVE3 = WF_H100_24_RESERVE.replace("ComfyUI's default --reserve-vram", "ComfyUI started with --reserve-vram 3")
WF_H100_80_SAME = (WF_H100_80.replace("median of 2 runs", "one timed run") + ", this version, the same H100 machine right "
                   "after the 24 GB A/B")
_SHARED_X2 = ("one of the two H100 80GB GPUs of one machine, another benchmark on the other GPU at the same time "
              "(bench/run_parallel.sh: shared CPU, RAM and disk)")
_WF_SPARSE_NOW = ("Wan 2.2 A14B T2V users' workflow (fp8_scaled experts + rank-32 LightX2V LoRA, shift 5, 4 steps CFG 1 split "
                  "2+2) at 720x1280 {frames} frames, ComfyUI 0.33.0 (DynamicVRAM), torch 2.11, fa3-fwd 0.0.3, all chains in "
                  "one process, one timed run after each first run (bench_matrix.py --workflow lightx2v --height 720 "
                  "--width 1280{extra})")
WF720_FA4_NODENSE = (f"{_SHARED_X2}, "
                     + _WF_SPARSE_NOW.format(frames=81, extra=" --chains stock,level1,level1_sparse,sparse_nodense_compile")
                     + ", sparse kernel FlashAttention-4 block-sparse (flash-attn-4 4.0.0b36)")
WF720_FA4_24 = (f"H100 80GB as a 24 GB card (another process holds the other 55.6 GiB before ComfyUI starts), {_SHARED_X2}, "
                + _WF_SPARSE_NOW.format(frames=81, extra=" --card 24 --occupy --chains stock,level1,level1_sparse")
                + ", sparse kernel FlashAttention-4 block-sparse (flash-attn-4 4.0.0b36), the high-noise expert's first "
                  "step dense")
WF121_EXACT_24 = (f"H100 80GB as a 24 GB card (another process holds the other 55.6 GiB before ComfyUI starts), {_SHARED_X2}, "
                  + _WF_SPARSE_NOW.format(frames=121, extra=" --frames 121 --card 24 --occupy --chains stock,level1"))
HV_SAME_GPU = (f"{_SHARED_X2}, " + _HV_SPARSE.replace("sparse kernel flex_attention, each chain on its own (--sequential)",
                                                        "chains in one process (not --sequential)")
               + ", 129 frames, two calls in succession on the same GPU, each with its own stock: {which}")
HV_SAME_GPU_EXACT = HV_SAME_GPU.format(which="the exact chain (first call)")
HV_SAME_GPU_SPARSE = HV_SAME_GPU.format(which="the radial_sparse chain with FlashAttention-4 block-sparse (flash-attn-4 "
                                              "4.0.0b36; second call)")
LTXV_SPARSE = (f"{_SHARED_X2}, LTX-Video 2B bf16, 768x512 121 frames (6,144 video tokens), 20 steps CFG 3, euler/simple, "
               f"128 text tokens (their mask passed to cross-attention), 2 timed runs, {_FAMILY}, FlashAttention-4 "
               "block-sparse (flash-attn-4 4.0.0b36), after the masked-call fix")
WF_FP8_AUTO_H100 = (f"H100 80GB, {_WF.replace('median of 2 runs', 'one timed run')}, whole card, this version: the FP8 "
                    "loader's auto loads the fp8_scaled experts as ComfyUI's Load Diffusion Model does (its own FP8 "
                    "layers, accel.common.defaults.FP8_STORED_MEASURED)")
WF_H100_24_NATIVE = (WF_H100_24_NOW + ", ComfyUI started with --disable-cuda-malloc (PyTorch's caching allocator instead "
                     "of cudaMallocAsync)")
FAMILY_LTXV_CC = FAMILY_LTXV + ", each chain on its own (--sequential), after the AdaLN tracing; ComfyUI's TorchCompileModel again"
FAMILY_FLUX_RUN2_H100 = FAMILY_FLUX_TRIMS_H100.replace("one timed run", "the slower of 2 timed runs")
_SHARED_H200X2 = _SHARED_X2.replace("H100 80GB", "H200 141GB")
_OCC24 = "as a 24 GB card (another process holds the rest of the GPU before ComfyUI starts, so every allocator sees 24 GiB)"
_E2E_I2V = (_E2E_WF_SAVE.replace("wan2.2_t2v_A14B", "wan2.2_i2v_A14B").replace("wan22_t2v_lightx2v", "wan22_i2v_lightx2v")
            .replace("Wan 2.1 VAE)", "Wan 2.1 VAE, a random PNG through LoadImage -> WanImageToVideo)")
            + ", an empty inductor cache per server")
E2E_I2V_H200 = f"{_SHARED_H200X2}, {_E2E_I2V}"
E2E_I2V_H200_24 = f"{_SHARED_H200X2}, {_OCC24}, {_E2E_I2V}"
E2E_I2V_H100 = f"H100 80GB (one GPU, the machine to itself), {_E2E_I2V}"
E2E_I2V_H100_24 = f"H100 80GB {_OCC24}, {_E2E_I2V}"
SPARSE_H200 = (f"{_SHARED_H200X2}, torch 2.11, one attention call, bf16 random q/k/v (Wan 14B: 40 heads of 128; "
               "HunyuanVideo: 24 heads of 128), radial pattern via compiled flex_attention vs FA3 dense (fa3-fwd 0.0.3), "
               "median of 10 (bench/bench_sparse_attention.py --backends flex --decays 0.2; flash-attn-4 not carried)")
_FAMILY_SEQ = ("ComfyUI 0.33.0 as main.py starts it (DynamicVRAM), random weights in the published key layout loaded by "
               "ComfyUI's loader, each chain on its own (--sequential) after its first run, {runs} (bench_matrix.py "
               "--family)")
_FAMILY_H200 = {
    "ti2v": ("Wan 2.2 TI2V-5B fp16, 1280x704 121 frames, 4 steps CFG 5, uni_pc/simple, shift 8", 2),
    "ltxv": ("LTX-Video 2B bf16, 768x512 121 frames, 20 steps CFG 3, euler/simple", 2),
    "qwen": ("Qwen-Image 20B bf16 (41 GB), 1328x1328, 8 steps CFG 2.5, euler/simple, shift 3.1", 1),
    "hv": ("HunyuanVideo T2V 13B bf16, 960x544 33 frames, 4 steps CFG 1 guidance 6, euler/simple", 1),
    "flux": ("Flux.1-dev 12B bf16, 1024x1024, 20 steps CFG 1 guidance 3.5, euler/simple", 1),
}


def family_h200(key: str, card24: bool = False) -> str:
    """The config of one H200 family run of issue #30 (whole card or a simulated 24 GB card, one timed run there)."""
    what, runs = _FAMILY_H200[key]
    runs = 1 if card24 else runs
    seq = _FAMILY_SEQ.format(runs="one timed run" if runs == 1 else "the slower of 2 timed runs")
    card = f", {_OCC24}" if card24 else ", whole card"
    return f"{_SHARED_H200X2}{card}, {what}, {seq}"


MGKILL = ("two H100 80GB (one host, NCCL), ComfyUI 0.33.0 live server, Wan 2.1 T2V 1.3B random bf16 weights, Accel Multi-GPU "
          "2 workers, one worker SIGKILLed after the first sampling step (bench_reliability.py --cases multigpu_kill --gpus 2)")

_ROWS = [
    # Wan 14B matrix, ComfyUI 0.33 -------------------------------------------------------------------------------
    ("matrix.h100.80.attention.speedup", "h100/matrix_033_wan14B_fp16_80GB.json", "json:chains/attention/speedup", 1.476, "{:.2f}x", H100_80),
    ("matrix.h100.80.level1_old.speedup", "h100/matrix_033_wan14B_fp16_80GB.json", "json:chains/level1/speedup", 1.534, "{:.2f}x", H100_80),
    ("matrix.h100.80.core_compile.speedup", "h100/matrix_033_wan14B_fp16_80GB.json", "json:chains/core_compile/speedup", 1.018, "{:.2f}x", H100_80),
    ("matrix.h100.24.attention.speedup", "h100/matrix_033_wan14B_fp16_24GB.json", "json:chains/attention/speedup", 1.5, "{:.2f}x", H100_24),
    ("matrix.h100.24.level1_old.speedup", "h100/matrix_033_wan14B_fp16_24GB.json", "json:chains/level1/speedup", 1.561, "{:.2f}x", H100_24),
    ("matrix.h200.140.attention.speedup", "h200/matrix_033_wan14B_fp16_140GB.json", "json:chains/attention/speedup", 1.459, "{:.2f}x", H200_140),
    ("matrix.h200.140.level1.speedup", "h200/matrix_033_wan14B_fp16_140GB.json", "json:chains/level1/speedup", 1.503, "{:.2f}x", H200_140),
    ("matrix.h200.140.level1.first_run", "h200/matrix_033_wan14B_fp16_140GB.json", "json:chains/level1/first_run_s", 21.34, "{:.0f} s", H200_140 + ", first run on a cold compile cache"),
    ("matrix.h200.140.fp8_level1.speedup", "h200/matrix_033_wan14B_fp16_140GB.json", "json:chains/fp8_level1/speedup", 1.82, "{:.2f}x", H200_140),
    ("matrix.h200.140.ck_int8.speedup", "h200/matrix_033_wan14B_fp16_140GB.json", "json:chains/core_ck_int8/speedup", 1.152, "{:.2f}x", H200_140),
    ("matrix.h200.140.attention.cosine", "h200/matrix_033_wan14B_fp16_140GB.json", "json:chains/attention/cosine", 0.999956, "{:.5f}", H200_140 + ", final latent vs stock"),
    ("matrix.h200.140.level1.cosine", "h200/matrix_033_wan14B_fp16_140GB.json", "json:chains/level1/cosine", 0.999953, "{:.5f}", H200_140 + ", final latent vs stock"),
    ("matrix.h200.140.fp8_level1.cosine", "h200/matrix_033_wan14B_fp16_140GB.json", "json:chains/fp8_level1/cosine", 0.994069, "{:.4f}", H200_140 + ", final latent vs stock"),
    ("matrix.h200.140.ck_int8.cosine", "h200/matrix_033_wan14B_fp16_140GB.json", "json:chains/core_ck_int8/cosine", 0.999957, "{:.5f}", H200_140 + ", final latent vs stock"),
    ("matrix.h200.140.stock.time", "h200/matrix_033_wan14B_fp16_140GB.json", "json:chains/stock/times_s/0", 16.138, "{:.1f} s", H200_140),
    ("matrix.h200.48.attention.speedup", "h200/matrix_033_wan14B_fp16_48GB.json", "json:chains/attention/speedup", 1.447, "{:.2f}x", H200_48),
    ("matrix.h200.48.level1.speedup", "h200/matrix_033_wan14B_fp16_48GB.json", "json:chains/level1/speedup", 1.517, "{:.2f}x", H200_48),
    ("matrix.h200.48.fp8_level1.speedup", "h200/matrix_033_wan14B_fp16_48GB.json", "json:chains/fp8_level1/speedup", 1.762, "{:.2f}x", H200_48),
    ("matrix.h200.32.attention.speedup", "h200/matrix_033_wan14B_fp16_32GB.json", "json:chains/attention/speedup", 1.357, "{:.2f}x", H200_32),
    ("matrix.h200.32.level1.speedup", "h200/matrix_033_wan14B_fp16_32GB.json", "json:chains/level1/speedup", 1.5, "{:.2f}x", H200_32),
    ("matrix.h200.32.fp8_level1.speedup", "h200/matrix_033_wan14B_fp16_32GB.json", "json:chains/fp8_level1/speedup", 1.803, "{:.2f}x", H200_32),
    ("matrix.h200.24.level1.speedup", "h200/matrix_033_wan14B_fp16_24GB_hardcap.json", "json:chains/level1/speedup", 1.494, "{:.2f}x", H200_24),
    ("matrix.h200.24.fp8_level1.speedup", "h200/matrix_033_wan14B_fp16_24GB_hardcap.json", "json:chains/fp8_level1/speedup", 1.824, "{:.2f}x", H200_24),
    ("matrix.h200.24.kj_sage_compile.speedup", "h200/matrix_033_wan14B_fp16_24GB_hardcap.json", "json:chains/kj_sage_compile/speedup", 1.141, "{:.2f}x", H200_24),
    ("matrix.h200.24.stock.peak_device", "h200/matrix_033_wan14B_fp16_24GB_hardcap.json", "json:chains/stock/peak_device_gib", 28.89, "{:.1f} GiB", H200_24 + ", device peak (cudaMemGetInfo)"),
    ("matrix.h200.24.level1.peak_device", "h200/matrix_033_wan14B_fp16_24GB_hardcap.json", "json:chains/level1/peak_device_gib", 31.33, "{:.1f} GiB", H200_24 + ", device peak (cudaMemGetInfo)"),
    ("matrix.h200.24.stock.peak_alloc", "h200/matrix_033_wan14B_fp16_24GB_hardcap.json", "json:chains/stock/peak_alloc_gib", 6.1, "{:.1f} GiB", H200_24 + ", torch peak allocated"),
    ("matrix.h200.24.level1.peak_alloc", "h200/matrix_033_wan14B_fp16_24GB_hardcap.json", "json:chains/level1/peak_alloc_gib", 4.41, "{:.1f} GiB", H200_24 + ", torch peak allocated"),
    ("matrix.h200.24.fp8_level1.peak_alloc", "h200/matrix_033_wan14B_fp16_24GB_hardcap.json", "json:chains/fp8_level1/peak_alloc_gib", 4.96, "{:.1f} GiB", H200_24 + ", torch peak allocated"),
    ("hygiene.h200.after_unload", "h200/hygiene_033_wan14B_level1_20runs.json", "json:hygiene/after_unload_alloc_gib", 0.032, "{:.2f} GiB", "H200, ComfyUI 0.33.0, 20 two-expert Wan 14B runs through Level-1, allocated after unloading"),
    ("restart.h200.fp8_level1.cold", "h200/restart_033_fp8_level1_cold.json", "json:chains/fp8_level1/first_run_s", 25.05, "{:.0f} s", "H200, ComfyUI 0.33.0, FP8 loader -> Level-1 first run, fresh process on a cold inductor/Triton cache (" + _M033 + ")"),
    ("restart.h200.fp8_level1.warm", "h200/restart_033_fp8_level1_warm.json", "json:chains/fp8_level1/first_run_s", 16.62, "{:.0f} s", "H200, ComfyUI 0.33.0, FP8 loader -> Level-1 first run after a ComfyUI restart (warm cache)"),
    ("restart.h200.fp8_level1.load", "h200/restart_033_fp8_level1_cold.json", "json:chains/fp8_level1/build_s", 18.0, "{:.0f} s", "H200, FP8 loader load + quantize of Wan 14B fp16"),
    ("matrix.h200.075.stock.time", "h200/matrix_075_wan14B_fp16_140GB.json", "json:chains/stock/times_s/0", 12.384, "{:.1f} s", H200_075),
    ("matrix.h200.075.level1.speedup", "h200/matrix_075_wan14B_fp16_140GB.json", "json:chains/level1/speedup", 1.212, "{:.2f}x", H200_075),
    ("matrix.h200.075.fp8_level1.speedup", "h200/matrix_075_wan14B_fp16_140GB.json", "json:chains/fp8_level1/speedup", 1.504, "{:.2f}x", H200_075),
    ("matrix.h200.075.kj_sage_compile.speedup", "h200/matrix_075_wan14B_fp16_140GB.json", "json:chains/kj_sage_compile/speedup", 0.915, "{:.2f}x", H200_075),
    ("matrix.h200.075.core_compile.speedup", "h200/matrix_075_wan14B_fp16_140GB.json", "json:chains/core_compile/speedup", 1.067, "{:.2f}x", H200_075),
    ("matrix.h100.075.level1.speedup", "h100/matrix_075_wan14B_fp16_80GB.json", "json:chains/level1/speedup", 1.214, "{:.2f}x", H100_075),
    ("matrix.h100.075.fp8_level1.speedup", "h100/matrix_075_wan14B_fp16_80GB.json", "json:chains/fp8_level1/speedup", 1.478, "{:.2f}x", H100_075),
    ("matrix.h100.075.kj_sage_compile.speedup", "h100/matrix_075_wan14B_fp16_80GB.json", "json:chains/kj_sage_compile/speedup", 0.911, "{:.2f}x", H100_075),
    ("matrix.h100.075.core_compile.speedup", "h100/matrix_075_wan14B_fp16_80GB.json", "json:chains/core_compile/speedup", 1.071, "{:.2f}x", H100_075),
    ("matrix.h100.1.3B.level1_maxautotune.first_run", "h100/matrix_033_wan1.3B_first_runs_maxautotune.json", "json:chains/level1/first_run_s", 162.54, "{:.0f} s", "H100, ComfyUI 0.33.0, Wan 1.3B, Level-1 with max-autotune-no-cudagraphs, first run on a cold cache"),
    ("matrix.h100.80.core_compile.cosine", "h100/matrix_033_wan14B_fp16_80GB.json", "json:chains/core_compile/cosine", 0.999965, "{:.5f}", H100_80 + ", ComfyUI TorchCompileModel, final latent vs stock"),
    ("matrix.h200.24.kj_sage_compile.cosine", "h200/matrix_033_wan14B_fp16_24GB_hardcap.json", "json:chains/kj_sage_compile/cosine", 0.999962, "{:.5f}", H200_24 + ", KJNodes Sage -> TorchCompileModelAdvanced, final latent vs stock"),
    # quantized paths (H200, ComfyUI 0.33) --------------------------------------------------------------------------
    ("quant.h200.1.3B.level1_fast.speedup", "h200/quant_attention_033_after_guard_fix.json", "json:e2e/chains/level1_fast/speedup", 1.765, "{:.2f}x", "H200, ComfyUI 0.33.0, Wan 2.1 1.3B random weights, 480p 81 frames, 8 steps CFG 5, Level-1 quality fast"),
    ("quant.h200.1.3B.level1.speedup", "h200/quant_attention_033_after_guard_fix.json", "json:e2e/chains/level1/speedup", 1.648, "{:.2f}x", "H200, ComfyUI 0.33.0, Wan 2.1 1.3B random weights, 480p 81 frames, 8 steps CFG 5, exact Level-1"),
    ("quant.h200.1.3B.level1_fast.cosine", "h200/quant_attention_033_after_guard_fix.json", "json:e2e/chains/level1_fast/cosine", 0.999533, "{:.5f}", "H200, ComfyUI 0.33.0, Wan 2.1 1.3B, 8 steps CFG 5, Level-1 quality fast, final latent vs stock"),
    ("quantpath.h200.fp8_attnfp8_compile.time", "h200/quant_path_033_wan14B.json", "json:chains/fp8_attnfp8_compile/times_s/0", 7.834, "{:.2f} s", "H200, " + _M033 + ", FP8 loader -> CUDA Settings -> FP8 attention every step -> Compile; one sampling run = 2 batch-2 (cond+uncond) forwards"),
    ("quantpath.h200.fp8_attnfp8_compile.speedup", "h200/quant_path_033_wan14B.json", "json:chains/fp8_attnfp8_compile/speedup", 2.046, "{:.2f}x", "H200, " + _M033 + ", FP8 loader -> CUDA Settings -> FP8 attention every step -> Compile"),
    # per-call attention (H100, ComfyUI 0.3.75) ------------------------------------------------------------------------
    ("attn.h100.wan14B_480p.fa3", "h100/" + _A, "md:wan14B_480p_81f/flash_attn_3|ms", 31.50, "{:.1f} ms", ATTN_H100 + ", Wan 14B 480p 81 frames (32760 x 40)"),
    ("attn.h100.wan14B_480p.comfy_default", "h100/" + _A, "md:wan14B_480p_81f/comfy_default|ms", 37.72, "{:.1f} ms", ATTN_H100 + ", Wan 14B 480p, ComfyUI's default attention (attention_pytorch)"),
    ("attn.h100.wan14B_480p.cudnn", "h100/" + _A, "md:wan14B_480p_81f/sdpa_cudnn|ms", 38.68, "{:.1f} ms", ATTN_H100 + ", Wan 14B 480p, SDPA restricted to cuDNN"),
    ("attn.h100.wan14B_480p.fa2", "h100/" + _A, "md:wan14B_480p_81f/sdpa_flash|ms", 59.14, "{:.1f} ms", ATTN_H100 + ", Wan 14B 480p, SDPA restricted to FlashAttention-2"),
    ("attn.h100.wan1.3B_480p.cudnn", "h100/" + _A, "md:wan1.3B_480p_81f/sdpa_cudnn|ms", 11.63, "{:.1f} ms", ATTN_H100 + ", Wan 1.3B 480p 81 frames (32760 x 12), SDPA restricted to cuDNN"),
    ("attn.h100.wan1.3B_480p.fa2", "h100/" + _A, "md:wan1.3B_480p_81f/sdpa_flash|ms", 18.49, "{:.1f} ms", ATTN_H100 + ", Wan 1.3B 480p, SDPA restricted to FlashAttention-2"),
    ("attn.h100.flux1024.cudnn", "h100/" + _A, "md:flux_1024px/sdpa_cudnn|ms", 0.55, "{:.2f} ms", ATTN_H100 + ", Flux 1024x1024 (4608 x 24), SDPA restricted to cuDNN"),
    ("attn.h100.flux1024.fa2", "h100/" + _A, "md:flux_1024px/sdpa_flash|ms", 0.84, "{:.2f} ms", ATTN_H100 + ", Flux 1024x1024, SDPA restricted to FlashAttention-2"),
    # Level-1 per forward (H100, ComfyUI 0.3.75) -----------------------------------------------------------------------
    ("level1.h100.1.3B.forward.cosine", "h100/level1_1.3B.json", "json:sizes/1.3B/forward_level1/cosine", 0.9999985694885254, "{:.6f}", LEVEL1_H100 + ", Wan 1.3B, cosine vs stock"),
    ("level1.h100.14B.forward.cosine", "h100/level1_14B.json", "json:sizes/14B/forward_level1/cosine", 0.9999983254209176, "{:.6f}", LEVEL1_H100 + ", Wan 14B, cosine vs stock"),
    ("level1.h100.1.3B.forward.maxdiff", "h100/level1_1.3B.md", "md:1.3B/Level-1|max abs diff", 1.23e-2, "{:.3f}", LEVEL1_H100 + ", Wan 1.3B, max |diff| vs stock (outputs of order 1)"),
    ("level1.h100.14B.forward.maxdiff", "h100/level1_14B.md", "md:14B/Level-1|max abs diff", 1.32e-2, "{:.3f}", LEVEL1_H100 + ", Wan 14B, max |diff| vs stock (outputs of order 1)"),
    # compile (H100, ComfyUI 0.3.75) ------------------------------------------------------------------------------------
    ("compile.h100.1.3B.warm_restart.epilogue_warm", "h100/compile_1.3B_epilogue_warm.md", "md:1.3B/accel:default|warm restart compile s", 8.152, "{:.1f} s", COMPILE_H100 + " (compile_1.3B_epilogue_warm)"),
    ("compile.h100.1.3B.warm_restart.epilogue_run1", "h100/compile_epilogue_run1.md", "md:1.3B/accel:default|warm restart compile s", 12.458, "{:.1f} s", COMPILE_H100 + " (compile_epilogue_run1)"),
    ("compile.h100.1.3B.maxautotune.cold", "h100/compile.md", "md:1.3B/accel:max-autotune-no-cudagraphs|compile s", 225.856, "{:.0f} s", "H100, ComfyUI 0.3.75, Wan 1.3B, per-block compile, max-autotune-no-cudagraphs, cold"),
    ("compile.h100.1.3B.default.cold", "h100/compile.md", "md:1.3B/accel:default|compile s", 8.598, "{:.1f} s", "H100, ComfyUI 0.3.75, Wan 1.3B, per-block compile, default mode, cold"),
    # FP8 weights (H100, ComfyUI 0.3.75) --------------------------------------------------------------------------------
    ("fp8.h100.14B.forward.speedup", "h100/fp8.json", "json:model/variants/1/forward_speedup_vs_bf16", 1.166, "{:.2f}x", "H100, ComfyUI 0.3.75, Wan 14B 480p 81 frames, one forward, Accel FP8 per-tensor (row-wise _scaled_mm) vs bf16"),
    ("fp8.h100.14B.forward.cosine", "h100/fp8.json", "json:model/variants/1/cosine_vs_bf16", 0.999264, "{:.4f}", "H100, ComfyUI 0.3.75, Wan 14B 480p 81 frames, one forward, Accel FP8 per-tensor vs bf16"),
    # multi-GPU (2x H200, ComfyUI 0.33) ---------------------------------------------------------------------------------
    ("multigpu.h200x2.wan14B.cfg_seq.speedup", "h200x2/multigpu_033_wan14B.md", "md:Accel Attention flash_attn_3/2 GPUs, CFG parallel + sequence parallel|speed-up vs 1 GPU", 1.96, "{:.2f}x", "2x H200, ComfyUI 0.33.0, Wan 14B one sampling step (batch 2), CFG + sequence parallel vs one GPU"),
    # Accel VAE (ComfyUI 0.33) ------------------------------------------------------------------------------------------
    ("vae.h200.fused_norm_nobench.run3", "h200/vae_033_run3/vae.md", "md:wan2.1/fused_norm_nobench|speedup", 1.276, "{:.2f}x", "H200, " + VAE + ", fused_norm + channels_last (node defaults otherwise), median of 5"),
    ("vae.h200.fused_norm_bench.vae033", "h200/vae_033/vae.md", "md:wan2.1/fused_norm|speedup", 1.329, "{:.2f}x", "H200, " + VAE + ", fused_norm + channels_last + cudnn_benchmark, median of 2"),
    ("vae.h200.fused_norm_bench.run2", "h200/vae_033_run2/vae.md", "md:wan2.1/fused_norm|speedup", 1.388, "{:.2f}x", "H200, " + VAE + ", fused_norm + channels_last + cudnn_benchmark, median of 3"),
    ("vae.h200.fused_norm_nobench.run3.maxdiff", "h200/vae_033_run3/vae.md", "md:wan2.1/fused_norm_nobench|max abs diff", 0.0703, "{:.3f}", "H200, " + VAE + ", fused_norm + channels_last, max|diff| vs stock on [-1, 1]"),
    ("vae.h200.fused_norm_bench.vae033.maxdiff", "h200/vae_033/vae.md", "md:wan2.1/fused_norm|max abs diff", 0.0625, "{:.3f}", "H200, " + VAE + ", fused_norm + channels_last + cudnn_benchmark, max|diff| vs stock on [-1, 1]"),
    ("vae.h100.fused_norm_nobench.run3", "h100/vae_033_run3/vae.md", "md:wan2.1/fused_norm_nobench|speedup", 1.213, "{:.2f}x", "H100, " + VAE + ", fused_norm + channels_last, median of 5"),
    ("vae.h100.fused_norm_nobench.vae033", "h100/vae_033/vae.md", "md:wan2.1/fused_norm_nobench|speedup", 1.305, "{:.2f}x", "H100, " + VAE + ", fused_norm + channels_last, median of 2"),
    ("vae.h100.fused_norm_bench.vae033", "h100/vae_033/vae.md", "md:wan2.1/fused_norm|speedup", 1.179, "{:.2f}x", "H100, " + VAE + ", fused_norm + channels_last + cudnn_benchmark, median of 2"),
    ("vae.h100.fused_norm_bench.run2", "h100/vae_033_run2/vae.md", "md:wan2.1/fused_norm|speedup", 1.205, "{:.2f}x", "H100, " + VAE + ", fused_norm + channels_last + cudnn_benchmark, median of 5"),
    ("vae.h100.default.vae033", "h100/vae_033/vae.md", "md:wan2.1/default|speedup", 1.074, "{:.2f}x", "H100, " + VAE + ", node defaults (channels_last only), median of 2"),
    ("vae.h100.default.run2", "h100/vae_033_run2/vae.md", "md:wan2.1/default|speedup", 1.029, "{:.2f}x", "H100, " + VAE + ", node defaults (channels_last only), median of 5"),
    ("vae.h100.compile.run3", "h100/vae_033_run3/vae.md", "md:wan2.1/fused_norm+compile|speedup", 1.249, "{:.2f}x", "H100, " + VAE + ", fused_norm + compile + channels_last + cudnn_benchmark, median of 5"),
    ("vae.h100.compile.vae033", "h100/vae_033/vae.md", "md:wan2.1/fused_norm+compile|speedup", 1.383, "{:.2f}x", "H100, " + VAE + ", fused_norm + compile + channels_last + cudnn_benchmark, median of 2"),
    ("vae.h200.compile.fp32ref", "h200/vae_033_fp32ref/vae.md", "md:wan2.1/fused_norm+compile|speedup", 1.294, "{:.2f}x", "H200, " + VAE + ", fused_norm + compile + channels_last + cudnn_benchmark, median of 3"),
    ("vae.h200.compile.run2", "h200/vae_033_run2/vae.md", "md:wan2.1/fused_norm+compile|speedup", 1.484, "{:.2f}x", "H200, " + VAE + ", fused_norm + compile + channels_last + cudnn_benchmark, median of 3"),
    ("vae.h200.compile_nobench.run3", "h200/vae_033_run3/vae.md", "md:wan2.1/fused_norm_nobench+compile|speedup", 1.367, "{:.2f}x", "H200, " + VAE + ", fused_norm + compile + channels_last, median of 5"),
    ("vae.h100.compile_nobench.run3", "h100/vae_033_run3/vae.md", "md:wan2.1/fused_norm_nobench+compile|speedup", 1.262, "{:.2f}x", "H100, " + VAE + ", fused_norm + compile + channels_last, median of 5"),
    ("vae.h100.cl_bench.cold.first", "h100/vae_033_cold_channels_last_benchmark/vae.md", "md:wan2.1/channels_last+benchmark|first (s)", 12.2564, "{:.1f} s", "H100, " + VAE + ", channels_last + cudnn_benchmark alone in a fresh process: first decode"),
    ("vae.h100.cl_bench.cold.stock_first", "h100/vae_033_cold_channels_last_benchmark/vae.md", "md:wan2.1/stock|first (s)", 2.8527, "{:.1f} s", "H100, " + VAE + ", stock first decode in the same process"),
    ("vae.h100.cl_bench.cold.speedup", "h100/vae_033_cold_channels_last_benchmark/vae.md", "md:wan2.1/channels_last+benchmark|speedup", 1.07, "{:.2f}x", "H100, " + VAE + ", channels_last + cudnn_benchmark, median of 2"),
    ("vae.h200.cl_bench.first.fp32ref", "h200/vae_033_fp32ref/vae.md", "md:wan2.1/default|first (s)", 13.9048, "{:.1f} s", "H200, " + VAE + ", the node defaults of that run (channels_last + cudnn_benchmark): first decode"),
    ("vae.h200.cl_bench.first.vae033", "h200/vae_033/vae.md", "md:wan2.1/default|first (s)", 15.3239, "{:.1f} s", "H200, " + VAE + ", the node defaults of that run (channels_last + cudnn_benchmark): first decode"),
    ("vae.h200.stock.first.fp32ref", "h200/vae_033_fp32ref/vae.md", "md:wan2.1/stock|first (s)", 2.0863, "{:.1f} s", "H200, " + VAE + ", stock first decode"),
    ("vae.h200.stock.first.vae033", "h200/vae_033/vae.md", "md:wan2.1/stock|first (s)", 3.2198, "{:.1f} s", "H200, " + VAE + ", stock first decode"),
    ("vae.h200.cl_bench.run2.speedup", "h200/vae_033_run2/vae.md", "md:wan2.1/default|speedup", 1.131, "{:.2f}x", "H200, " + VAE + ", the node defaults of that run (channels_last + cudnn_benchmark), median of 3"),
    ("vae.h100.default.vae033.maxdiff", "h100/vae_033/vae.md", "md:wan2.1/default|max abs diff", 0.0449, "{:.3f}", "H100, " + VAE + ", channels_last, max|diff| vs stock on [-1, 1]"),
    ("vae.h200.fused_norm.fp32ref.vs_fp32", "h200/vae_033_fp32ref/vae.md", "md:wan2.1/fused_norm|max abs diff vs float32", 0.0491, "{:.3f}", "H200, " + VAE + ", fused_norm + channels_last + cudnn_benchmark, max|diff| vs a float32 decode"),
    ("vae.h200.stock.fp32ref.vs_fp32", "h200/vae_033_fp32ref/vae.md", "md:wan2.1/stock|max abs diff vs float32", 0.0599, "{:.3f}", "H200, " + VAE + ", stock bf16 decode, max|diff| vs a float32 decode"),
    ("vae.h200.compile.fp32ref.maxdiff", "h200/vae_033_fp32ref/vae.md", "md:wan2.1/fused_norm+compile|max abs diff", 0.0664, "{:.3f}", "H200, " + VAE + ", fused_norm + compile, max|diff| vs stock"),
    ("vae.h100.compile.first.run2", "h100/vae_033_run2/vae.md", "md:wan2.1/fused_norm+compile|first (s)", 32.263, "{:.0f} s", "H100, " + VAE + ", fused_norm + compile, first decode with a warm inductor cache"),
    ("vae.h100.compile.first.vae033", "h100/vae_033/vae.md", "md:wan2.1/fused_norm+compile|first (s)", 92.8778, "{:.0f} s", "H100, " + VAE + ", fused_norm + compile, first decode on a cold cache"),
    ("vae.h200.tiled.peak", "h200/vae_033/vae.md", "md:wan2.1/tiled|peak VRAM (GiB)", 1.917, "{:.1f} GiB", "H200, " + VAE + ", tiled decode (512 px tiles), torch peak"),
    ("vae.h200.stock.peak", "h200/vae_033/vae.md", "md:wan2.1/stock|peak VRAM (GiB)", 3.13, "{:.1f} GiB", "H200, " + VAE + ", stock decode, torch peak"),
    ("vae.h200.tiled.speedup", "h200/vae_033/vae.md", "md:wan2.1/tiled|speedup", 0.709, "{:.2f}x", "H200, " + VAE + ", tiled decode (512 px tiles)"),
    ("vae.h200.kl.cl_bench.speedup", "h200/vae_033/vae.md", "md:kl_flux/default|speedup", 0.644, "{:.2f}x", "H200, ComfyUI 0.33.0, Flux KL VAE 1024x1024 bf16 random weights, channels_last + cudnn_benchmark"),
    ("fp8.h200.block.cosine", "h200/matrix_033_wan14B_fp16_140GB.json", "json:chains/fp8_level1_block/cosine", 0.994568, "{:.4f}", H200_140 + ", FP8 loader with 1x128 blocks -> Level-1, final latent vs stock"),
    # whole workflow (H100, ComfyUI 0.33, live server) ---------------------------------------------------------------
    ("e2e.h100.stock.total", "h100/e2e_033_wan1.3B.md", "md:stock/2|total (s)", 14.496, "{:.1f} s", E2E + ", stock"),
    ("e2e.h100.level1.total", "h100/e2e_033_wan1.3B.md", "md:level1/2|total (s)", 12.048, "{:.1f} s", E2E + ", Level-1"),
    ("e2e.h100.level1_vae.total", "h100/e2e_033_wan1.3B.md", "md:level1+vae/2|total (s)", 11.426, "{:.1f} s", E2E + ", Level-1 + Accel VAE (defaults)"),
    ("e2e.h100.level1.save", "h100/e2e_033_wan1.3B.md", "md:level1/2|save", 5.547, "{:.2f} s", E2E + ", Level-1, save stage (animated WEBP)"),
    ("e2e.h100.level1_vae.save", "h100/e2e_033_wan1.3B.md", "md:level1+vae/2|save", 4.652, "{:.2f} s", E2E + ", Level-1 + Accel VAE, save stage (animated WEBP)"),
    ("e2e.h100.stock.sampler", "h100/e2e_033_wan1.3B.md", "md:stock/2|sampler", 6.3, "{:.1f} s", E2E + ", stock, sampler stage"),
    ("e2e.h100.level1.sampler", "h100/e2e_033_wan1.3B.md", "md:level1/2|sampler", 3.898, "{:.1f} s", E2E + ", Level-1, sampler stage"),
    ("e2e.h100.level1.decode", "h100/e2e_033_wan1.3B.md", "md:level1/2|VAE decode", 2.59, "{:.2f} s", E2E + ", Level-1, VAE decode stage"),
    # current Level-1 node on the H100 (issue #28), ComfyUI 0.33 ----------------------------------------------------
    ("matrix.h100.80.level1.speedup", "h100/matrix_033_wan14B_fp16_current_node/80GB/matrix.json", "json:chains/level1/speedup", 1.469, "{:.2f}x", H100_80_NOW),
    ("matrix.h100.80.level1.fast_run", "h100/matrix_033_wan14B_fp16_current_node/80GB/matrix.json", "json:chains/level1/times_s/1", 10.6, "{:.2f} s", H100_80_NOW + ", the faster of the two timed runs"),
    ("matrix.h100.80.stock.time", "h100/matrix_033_wan14B_fp16_current_node/80GB/matrix.json", "json:chains/stock/times_s/0", 16.221, "{:.2f} s", H100_80_NOW),
    ("matrix.h100.80.level1.cosine", "h100/matrix_033_wan14B_fp16_current_node/80GB/matrix.json", "json:chains/level1/cosine", 0.999953, "{:.5f}", H100_80_NOW + ", final latent vs stock"),
    ("matrix.h100.24.level1.speedup", "h100/matrix_033_wan14B_fp16_current_node/24GB_occupied/matrix.json", "json:chains/level1/speedup", 1.537, "{:.2f}x", H100_24_NOW),
    # second 80 GB run of the current nodes and the small cards with every allocator limited (issues #28, #31) -------
    ("matrix.h100.80.run2.attention.speedup", _NOW + "80GB_run2/matrix.json", "json:chains/attention/speedup", 1.473, "{:.2f}x", H100_80_RUN2),
    ("matrix.h100.80.run2.level1.speedup", _NOW + "80GB_run2/matrix.json", "json:chains/level1/speedup", 1.509, "{:.2f}x", H100_80_RUN2),
    ("matrix.h100.80.run2.fp8_level1.speedup", _NOW + "80GB_run2/matrix.json", "json:chains/fp8_level1/speedup", 1.835, "{:.2f}x", H100_80_RUN2),
    ("matrix.h100.80.run2.fp8_level1.cosine", _NOW + "80GB_run2/matrix.json", "json:chains/fp8_level1/cosine", 0.994077, "{:.4f}", H100_80_RUN2 + ", final latent vs stock"),
    ("matrix.h100.48.attention.speedup", _NOW + "48GB_occupied/matrix.json", "json:chains/attention/speedup", 1.472, "{:.2f}x", h100_occupied(48)),
    ("matrix.h100.48.level1.speedup", _NOW + "48GB_occupied/matrix.json", "json:chains/level1/speedup", 1.522, "{:.2f}x", h100_occupied(48)),
    ("matrix.h100.48.fp8_level1.speedup", _NOW + "48GB_occupied/matrix.json", "json:chains/fp8_level1/speedup", 1.722, "{:.2f}x", h100_occupied(48)),
    ("matrix.h100.32.attention.speedup", _NOW + "32GB_occupied/matrix.json", "json:chains/attention/speedup", 1.48, "{:.2f}x", h100_occupied(32)),
    ("matrix.h100.32.level1.speedup", _NOW + "32GB_occupied/matrix.json", "json:chains/level1/speedup", 1.527, "{:.2f}x", h100_occupied(32)),
    ("matrix.h100.32.fp8_level1.speedup", _NOW + "32GB_occupied/matrix.json", "json:chains/fp8_level1/speedup", 1.807, "{:.2f}x", h100_occupied(32)),
    ("matrix.h100.32.peak_device", _NOW + "32GB_occupied/matrix.json", "json:chains/fp8_level1/peak_device_gib", 78.92, "{:.1f} GiB", h100_occupied(32) + ", FP8 -> Level-1, device memory peak (the occupying process included)"),
    ("level1.h100.1.3B.sample.cosine", "h100/level1_033_1.3B_fp64/level1.json", "json:sizes/1.3B/sample_level1/cosine", 0.9999705749995683, "{:.5f}", LEVEL1_SAMPLE_H100),
    ("level1.h100.1.3B.sample.speedup", "h100/level1_033_1.3B_fp64/level1.json", "json:sizes/1.3B/sample_level1/speedup_vs_stock", 1.69, "{:.2f}x", LEVEL1_SAMPLE_H100),
    ("wf.h100.80.run2.level1.speedup", "h100/wf_lightx2v_033/sequential_80GB_run2/matrix.json", "json:chains/level1/speedup", 1.636, "{:.2f}x", WF_H100_80 + ", second run (after the house move, issue #31)"),
    ("wf.h100.80.run2.level1.time", "h100/wf_lightx2v_033/sequential_80GB_run2/matrix.json", "json:chains/level1/times_s/1", 8.833, "{:.2f} s", WF_H100_80 + ", second run"),
    # other families (issue #30), ComfyUI 0.33, H100 80 GB ----------------------------------------------------------
    ("family.h100.flux.stock.time", _FLUX, "json:chains/stock/times_s/1", 3.88, "{:.2f} s", FAMILY_FLUX),
    ("family.h100.flux.attention.speedup", _FLUX, "json:chains/attention/speedup", 1.079, "{:.2f}x", FAMILY_FLUX),
    ("family.h100.flux.shipped.speedup", _FLUX, "json:chains/shipped/speedup", 1.281, "{:.2f}x", FAMILY_FLUX + ", Accel CUDA Settings -> Attention -> Compile"),
    ("family.h100.flux.shipped.cosine", _FLUX, "json:chains/shipped/cosine", 0.999995, "{:.6f}", FAMILY_FLUX + ", final latent vs stock"),
    ("family.h100.flux.fp8_shipped.speedup", _FLUX, "json:chains/fp8_shipped/speedup", 1.145, "{:.2f}x", FAMILY_FLUX + ", FP8 loader -> the exact chain"),
    ("family.h100.flux.fp8_shipped.cosine", _FLUX, "json:chains/fp8_shipped/cosine", 0.999412, "{:.4f}", FAMILY_FLUX + ", final latent vs stock"),
    ("family.h100.flux.core_compile.speedup", _FLUX, "json:chains/core_compile/speedup", 0.515, "{:.2f}x", FAMILY_FLUX + ", ComfyUI TorchCompileModel"),
    ("family.h100.flux.core_fp8_fast.speedup", _FLUX, "json:chains/core_fp8_fast/speedup", 0.192, "{:.2f}x", FAMILY_FLUX + ", ComfyUI weight_dtype fp8_e4m3fn_fast"),
    ("family.h100.flux.kj_sage_compile.speedup", _FLUX, "json:chains/kj_sage_compile/speedup", 0.783, "{:.2f}x", FAMILY_FLUX + ", KJNodes Sage -> TorchCompileModelAdvanced"),
    ("family.h100.ti2v.stock.time", _TI2V, "json:chains/stock/times_s/1", 10.562, "{:.1f} s", FAMILY_TI2V),
    ("family.h100.ti2v.attention.speedup", _TI2V, "json:chains/attention/speedup", 1.453, "{:.2f}x", FAMILY_TI2V),
    ("family.h100.ti2v.shipped.speedup", _TI2V, "json:chains/shipped/speedup", 1.539, "{:.2f}x", FAMILY_TI2V + ", Accel Wan Level-1"),
    ("family.h100.ti2v.shipped.cosine", _TI2V, "json:chains/shipped/cosine", 0.999959, "{:.5f}", FAMILY_TI2V + ", final latent vs stock"),
    ("family.h100.ti2v.fp8_shipped.speedup", _TI2V, "json:chains/fp8_shipped/speedup", 1.782, "{:.2f}x", FAMILY_TI2V + ", FP8 loader -> Level-1"),
    ("family.h100.ti2v.fp8_shipped.cosine", _TI2V, "json:chains/fp8_shipped/cosine", 0.994164, "{:.4f}", FAMILY_TI2V + ", final latent vs stock"),
    ("family.h100.ti2v.core_compile.speedup", _TI2V, "json:chains/core_compile/speedup", 1.018, "{:.2f}x", FAMILY_TI2V + ", ComfyUI TorchCompileModel"),
    ("family.h100.ti2v.core_fp8_fast.speedup", _TI2V, "json:chains/core_fp8_fast/speedup", 1.03, "{:.2f}x", FAMILY_TI2V + ", ComfyUI weight_dtype fp8_e4m3fn_fast"),
    ("family.h100.ti2v.kj_sage_compile.speedup", _TI2V, "json:chains/kj_sage_compile/speedup", 1.143, "{:.2f}x", FAMILY_TI2V + ", KJNodes Sage -> TorchCompileModelAdvanced"),
    ("family.h100.hv.stock.time", _HV, "json:chains/stock/times_s/0", 5.195, "{:.2f} s", FAMILY_HV),
    ("family.h100.hv.attention.speedup", _HV, "json:chains/attention/speedup", 1.381, "{:.2f}x", FAMILY_HV),
    ("family.h100.hv.shipped.speedup", _HV, "json:chains/shipped/speedup", 1.532, "{:.2f}x", FAMILY_HV + ", Accel CUDA Settings -> Attention -> Compile"),
    ("family.h100.hv.shipped.cosine", _HV, "json:chains/shipped/cosine", 0.999967, "{:.5f}", FAMILY_HV + ", final latent vs stock"),
    ("family.h100.hv.fp8_shipped.speedup", _HV, "json:chains/fp8_shipped/speedup", 1.717, "{:.2f}x", FAMILY_HV + ", FP8 loader -> the exact chain"),
    ("family.h100.hv.fp8_shipped.cosine", _HV, "json:chains/fp8_shipped/cosine", 0.99911, "{:.5f}", FAMILY_HV + ", final latent vs stock"),
    ("family.h100.hv.core_compile.speedup", _HV, "json:chains/core_compile/speedup", 0.117, "{:.2f}x", FAMILY_HV + ", ComfyUI TorchCompileModel"),
    ("family.h100.hv.core_fp8_fast.speedup", _HV, "json:chains/core_fp8_fast/speedup", 0.473, "{:.2f}x", FAMILY_HV + ", ComfyUI weight_dtype fp8_e4m3fn_fast"),
    ("family.h100.hv.kj_sage_compile.speedup", _HV, "json:chains/kj_sage_compile/speedup", 1.132, "{:.2f}x", FAMILY_HV + ", KJNodes Sage -> TorchCompileModelAdvanced"),
    ("family.h100.hv.shipped.first_run", _HV, "json:chains/shipped/first_run_s", 17.78, "{:.0f} s", FAMILY_HV + ", first run of the exact chain (compiles)"),
    ("family.h100.ltxv.stock.time", _LTXV, "json:chains/stock/times_s/1", 3.22, "{:.2f} s", FAMILY_LTXV + ", the median (of two: the slower)"),
    ("family.h100.ltxv.attention.speedup", _LTXV, "json:chains/attention/speedup", 1.163, "{:.2f}x", FAMILY_LTXV),
    ("family.h100.ltxv.shipped.speedup", _LTXV, "json:chains/shipped/speedup", 1.128, "{:.2f}x", FAMILY_LTXV + ", Accel CUDA Settings -> Attention -> Compile"),
    ("family.h100.ltxv.shipped.cosine", _LTXV, "json:chains/shipped/cosine", 0.999873, "{:.5f}", FAMILY_LTXV + ", final latent vs stock"),
    ("family.h100.ltxv.fp8_shipped.speedup", _LTXV, "json:chains/fp8_shipped/speedup", 1.276, "{:.2f}x", FAMILY_LTXV + ", FP8 loader -> the exact chain"),
    ("family.h100.ltxv.fp8_shipped.cosine", _LTXV, "json:chains/fp8_shipped/cosine", 0.99871, "{:.5f}", FAMILY_LTXV + ", final latent vs stock"),
    ("family.h100.ltxv.core_compile.speedup", _LTXV, "json:chains/core_compile/speedup", 1.127, "{:.2f}x", FAMILY_LTXV + ", ComfyUI TorchCompileModel"),
    ("family.h100.ltxv.core_fp8_fast.speedup", _LTXV, "json:chains/core_fp8_fast/speedup", 0.929, "{:.2f}x", FAMILY_LTXV + ", ComfyUI weight_dtype fp8_e4m3fn_fast"),
    ("family.h100.ltxv.kj_sage_compile.speedup", _LTXV, "json:chains/kj_sage_compile/speedup", 0.567, "{:.2f}x", FAMILY_LTXV + ", KJNodes Sage -> TorchCompileModelAdvanced"),
    ("family.h100.ltxv.shipped.first_run", _LTXV, "json:chains/shipped/first_run_s", 10.83, "{:.0f} s", FAMILY_LTXV + ", first run of the exact chain (compiles)"),
    ("family.h100.qwen.stock.time", _QWEN, "json:chains/stock/times_s/0", 5.472, "{:.2f} s", FAMILY_QWEN),
    ("family.h100.qwen.attention.speedup", _QWEN, "json:chains/attention/speedup", 1.206, "{:.2f}x", FAMILY_QWEN),
    ("family.h100.qwen.shipped.speedup", _QWEN, "json:chains/shipped/speedup", 1.309, "{:.2f}x", FAMILY_QWEN + ", Accel CUDA Settings -> Attention -> Compile"),
    ("family.h100.qwen.shipped.cosine", _QWEN, "json:chains/shipped/cosine", 0.999876, "{:.5f}", FAMILY_QWEN + ", final latent vs stock"),
    ("family.h100.qwen.fp8_shipped.speedup", _QWEN, "json:chains/fp8_shipped/speedup", 1.427, "{:.2f}x", FAMILY_QWEN + ", FP8 loader -> the exact chain"),
    ("family.h100.qwen.fp8_shipped.cosine", _QWEN, "json:chains/fp8_shipped/cosine", 0.999261, "{:.5f}", FAMILY_QWEN + ", final latent vs stock"),
    ("family.h100.qwen.core_compile.speedup", _QWEN, "json:chains/core_compile/speedup", 1.179, "{:.2f}x", FAMILY_QWEN + ", ComfyUI TorchCompileModel"),
    ("family.h100.qwen.core_fp8_fast.speedup", _QWEN, "json:chains/core_fp8_fast/speedup", 0.955, "{:.2f}x", FAMILY_QWEN + ", ComfyUI weight_dtype fp8_e4m3fn_fast"),
    ("family.h100.qwen.kj_sage_compile.speedup", _QWEN, "json:chains/kj_sage_compile/speedup", 1.074, "{:.2f}x", FAMILY_QWEN + ", KJNodes Sage -> TorchCompileModelAdvanced"),
    ("family.h100.qwen.shipped.first_run", _QWEN, "json:chains/shipped/first_run_s", 42.35, "{:.0f} s", FAMILY_QWEN + ", first run of the exact chain (compiles)"),
    # the users' workflow (issue #27), ComfyUI 0.33 ---------------------------------------------------------------
    ("wf.h100.80.gguf.time", "h100/wf_lightx2v_033/gguf_80GB/matrix.json", "json:chains/gguf/times_s/1", 16.52, "{:.1f} s", WF_H100_80 + ", the experts as Q8_0 GGUF files through ComfyUI-GGUF's Unet Loader (GGUF), stock"),
    ("wf.h100.80.gguf.stock.time", "h100/wf_lightx2v_033/gguf_80GB/matrix.json", "json:chains/stock/times_s/1", 13.979, "{:.1f} s", WF_H100_80 + ", fp8_scaled stock in the GGUF run"),
    ("wf.h100.80.gguf_level1.time", "h100/wf_lightx2v_033/gguf_80GB/matrix.json", "json:chains/gguf_level1/times_s/1", 11.011, "{:.1f} s", WF_H100_80 + ", Q8_0 GGUF experts -> Accel Wan Level-1"),
    ("wf.h100.80.gguf_level1.first_run", "h100/wf_lightx2v_033/gguf_80GB/matrix.json", "json:chains/gguf_level1/first_run_s", 27.95, "{:.0f} s", WF_H100_80 + ", Q8_0 GGUF experts -> Level-1, first run (compiles)"),
    ("wf.h100.80.stock.time", "h100/wf_lightx2v_033/sequential_80GB/matrix.json", "json:chains/stock/times_s/1", 14.612, "{:.1f} s", WF_H100_80),
    ("wf.h100.80.stock.first_run", "h100/wf_lightx2v_033/sequential_80GB/matrix.json", "json:chains/stock/first_run_s", 23.22, "{:.0f} s", WF_H100_80 + ", first run (compiles; weights already loaded)"),
    ("wf.h100.80.level1.time", "h100/wf_lightx2v_033/sequential_80GB/matrix.json", "json:chains/level1/times_s/1", 8.962, "{:.1f} s", WF_H100_80),
    ("wf.h100.80.level1.speedup", "h100/wf_lightx2v_033/sequential_80GB/matrix.json", "json:chains/level1/speedup", 1.63, "{:.2f}x", WF_H100_80),
    ("wf.h100.80.level1.cosine", "h100/wf_lightx2v_033/sequential_80GB/matrix.json", "json:chains/level1/cosine", 0.999927, "{:.5f}", WF_H100_80 + ", final latent vs stock"),
    ("wf.h100.80.level1.first_run", "h100/wf_lightx2v_033/sequential_80GB/matrix.json", "json:chains/level1/first_run_s", 30.26, "{:.0f} s", WF_H100_80 + ", first run (compiles; weights already loaded)"),
    ("wf.h100.80.level1_fast.time", "h100/wf_lightx2v_033/sequential_80GB/matrix.json", "json:chains/level1_fast/times_s/1", 9.043, "{:.1f} s", WF_H100_80),
    ("wf.h100.80.level1_fast.speedup", "h100/wf_lightx2v_033/sequential_80GB/matrix.json", "json:chains/level1_fast/speedup", 1.616, "{:.2f}x", WF_H100_80),
    ("wf.h100.80.level1_fast.cosine", "h100/wf_lightx2v_033/sequential_80GB/matrix.json", "json:chains/level1_fast/cosine", 0.999927, "{:.5f}", WF_H100_80 + ", final latent vs stock"),
    ("wf.h100.80.level1_fast.first_run", "h100/wf_lightx2v_033/sequential_80GB/matrix.json", "json:chains/level1_fast/first_run_s", 15.08, "{:.0f} s", WF_H100_80 + ", first run (compiles; weights already loaded)"),
    ("wf.h100.80.fp8_level1.time", "h100/wf_lightx2v_033/sequential_80GB/matrix.json", "json:chains/fp8_level1/times_s/1", 11.131, "{:.1f} s", WF_H100_80),
    ("wf.h100.80.fp8_level1.speedup", "h100/wf_lightx2v_033/sequential_80GB/matrix.json", "json:chains/fp8_level1/speedup", 1.313, "{:.2f}x", WF_H100_80),
    ("wf.h100.80.fp8_level1.cosine", "h100/wf_lightx2v_033/sequential_80GB/matrix.json", "json:chains/fp8_level1/cosine", 0.998842, "{:.5f}", WF_H100_80 + ", final latent vs stock"),
    ("wf.h100.80.fp8_level1.first_run", "h100/wf_lightx2v_033/sequential_80GB/matrix.json", "json:chains/fp8_level1/first_run_s", 19.72, "{:.0f} s", WF_H100_80 + ", first run (compiles; weights already loaded)"),
    ("wf.h100.80.kj_sage_compile.time", "h100/wf_lightx2v_033/sequential_80GB/matrix.json", "json:chains/kj_sage_compile/times_s/0", 12.375, "{:.1f} s", WF_H100_80),
    ("wf.h100.80.kj_sage_compile.speedup", "h100/wf_lightx2v_033/sequential_80GB/matrix.json", "json:chains/kj_sage_compile/speedup", 1.181, "{:.2f}x", WF_H100_80),
    ("wf.h100.80.kj_sage_compile.cosine", "h100/wf_lightx2v_033/sequential_80GB/matrix.json", "json:chains/kj_sage_compile/cosine", 0.999941, "{:.5f}", WF_H100_80 + ", final latent vs stock"),
    ("wf.h100.80.kj_sage_compile.first_run", "h100/wf_lightx2v_033/sequential_80GB/matrix.json", "json:chains/kj_sage_compile/first_run_s", 38.03, "{:.0f} s", WF_H100_80 + ", first run (compiles; weights already loaded)"),
    ("wf.h100.24.stock.time", "h100/wf_lightx2v_033/sequential_24GB_occupied/matrix.json", "json:chains/stock/times_s/0", 16.302, "{:.1f} s", WF_H100_24),
    ("wf.h100.24.stock.first_run", "h100/wf_lightx2v_033/sequential_24GB_occupied/matrix.json", "json:chains/stock/first_run_s", 30.13, "{:.0f} s", WF_H100_24 + ", first run (compiles; weights already loaded)"),
    ("wf.h100.24.level1.time", "h100/wf_lightx2v_033/sequential_24GB_occupied/matrix.json", "json:chains/level1/times_s/0", 12.64, "{:.1f} s", WF_H100_24),
    ("wf.h100.24.level1.speedup", "h100/wf_lightx2v_033/sequential_24GB_occupied/matrix.json", "json:chains/level1/speedup", 1.29, "{:.2f}x", WF_H100_24),
    ("wf.h100.24.level1.cosine", "h100/wf_lightx2v_033/sequential_24GB_occupied/matrix.json", "json:chains/level1/cosine", 0.999927, "{:.5f}", WF_H100_24 + ", final latent vs stock"),
    ("wf.h100.24.level1.first_run", "h100/wf_lightx2v_033/sequential_24GB_occupied/matrix.json", "json:chains/level1/first_run_s", 38.58, "{:.0f} s", WF_H100_24 + ", first run (compiles; weights already loaded)"),
    ("wf.h100.24.kj_sage_compile.time", "h100/wf_lightx2v_033/sequential_24GB_occupied/matrix.json", "json:chains/kj_sage_compile/times_s/0", 15.229, "{:.1f} s", WF_H100_24),
    ("wf.h100.24.kj_sage_compile.speedup", "h100/wf_lightx2v_033/sequential_24GB_occupied/matrix.json", "json:chains/kj_sage_compile/speedup", 1.07, "{:.2f}x", WF_H100_24),
    ("wf.h100.24.kj_sage_compile.cosine", "h100/wf_lightx2v_033/sequential_24GB_occupied/matrix.json", "json:chains/kj_sage_compile/cosine", 0.999941, "{:.5f}", WF_H100_24 + ", final latent vs stock"),
    ("wf.h100.24.kj_sage_compile.first_run", "h100/wf_lightx2v_033/sequential_24GB_occupied/matrix.json", "json:chains/kj_sage_compile/first_run_s", 51.25, "{:.0f} s", WF_H100_24 + ", first run (compiles; weights already loaded)"),
    ("wf.h200.141.stock.time", "h200/wf_lightx2v_033/sequential_141GB/matrix.json", "json:chains/stock/times_s/1", 14.341, "{:.1f} s", WF_H200_141),
    ("wf.h200.141.stock.first_run", "h200/wf_lightx2v_033/sequential_141GB/matrix.json", "json:chains/stock/first_run_s", 21.17, "{:.0f} s", WF_H200_141 + ", first run (compiles; weights already loaded)"),
    ("wf.h200.141.level1.time", "h200/wf_lightx2v_033/sequential_141GB/matrix.json", "json:chains/level1/times_s/0", 8.809, "{:.1f} s", WF_H200_141),
    ("wf.h200.141.level1.speedup", "h200/wf_lightx2v_033/sequential_141GB/matrix.json", "json:chains/level1/speedup", 1.628, "{:.2f}x", WF_H200_141),
    ("wf.h200.141.level1.cosine", "h200/wf_lightx2v_033/sequential_141GB/matrix.json", "json:chains/level1/cosine", 0.999927, "{:.5f}", WF_H200_141 + ", final latent vs stock"),
    ("wf.h200.141.level1.first_run", "h200/wf_lightx2v_033/sequential_141GB/matrix.json", "json:chains/level1/first_run_s", 26.03, "{:.0f} s", WF_H200_141 + ", first run (compiles; weights already loaded)"),
    ("wf.h200.141.fp8_level1.time", "h200/wf_lightx2v_033/sequential_141GB/matrix.json", "json:chains/fp8_level1/times_s/0", 10.577, "{:.1f} s", WF_H200_141),
    ("wf.h200.141.fp8_level1.speedup", "h200/wf_lightx2v_033/sequential_141GB/matrix.json", "json:chains/fp8_level1/speedup", 1.356, "{:.2f}x", WF_H200_141),
    ("wf.h200.141.fp8_level1.cosine", "h200/wf_lightx2v_033/sequential_141GB/matrix.json", "json:chains/fp8_level1/cosine", 0.998842, "{:.5f}", WF_H200_141 + ", final latent vs stock"),
    ("wf.h200.141.fp8_level1.first_run", "h200/wf_lightx2v_033/sequential_141GB/matrix.json", "json:chains/fp8_level1/first_run_s", 19.62, "{:.0f} s", WF_H200_141 + ", first run (compiles; weights already loaded)"),
    ("wf.h200.141.kj_sage_compile.time", "h200/wf_lightx2v_033/sequential_141GB/matrix.json", "json:chains/kj_sage_compile/times_s/0", 11.881, "{:.1f} s", WF_H200_141),
    ("wf.h200.141.kj_sage_compile.speedup", "h200/wf_lightx2v_033/sequential_141GB/matrix.json", "json:chains/kj_sage_compile/speedup", 1.207, "{:.2f}x", WF_H200_141),
    ("wf.h200.141.kj_sage_compile.cosine", "h200/wf_lightx2v_033/sequential_141GB/matrix.json", "json:chains/kj_sage_compile/cosine", 0.99994, "{:.5f}", WF_H200_141 + ", final latent vs stock"),
    ("wf.h200.141.kj_sage_compile.first_run", "h200/wf_lightx2v_033/sequential_141GB/matrix.json", "json:chains/kj_sage_compile/first_run_s", 37.36, "{:.0f} s", WF_H200_141 + ", first run (compiles; weights already loaded)"),
    ("wf.h100.80.level1.compile_s", "h100/wf_lightx2v_033/sequential_80GB/matrix.json", "json:chains/level1/compile/0/compile_seconds", 16.919, "{:.0f} s", WF_H100_80 + ", compile time of the high-noise expert (the low-noise one reuses its graph)"),
    ("wf.h100.24.stock.peak_device", "h100/wf_lightx2v_033/sequential_24GB_occupied/matrix.json", "json:chains/stock/peak_device_gib", 79.15, "{:.1f} GiB", WF_H100_24 + ", device memory in use at the peak, the occupying process included"),
    # the users' workflow end to end (issue #27), ComfyUI 0.33 live server -----------------------------------------
    ("e2e_wf.h200.stock.q1.total", "h200/e2e_lightx2v_033/whole_card/e2e_wan22_t2v_lightx2v.json", "json:rows/0/queues/0/total_s", 33.854, "{:.1f} s", E2E_WF_H200 + ", Queue 1, total"),
    ("e2e_wf.h200.stock.q1.high_noise", "h200/e2e_lightx2v_033/whole_card/e2e_wan22_t2v_lightx2v.json", "json:rows/0/queues/0/stages_s/sampler high-noise", 11.901, "{:.1f} s", E2E_WF_H200 + ", Queue 1, sampler high-noise stage"),
    ("e2e_wf.h200.stock.q1.low_noise", "h200/e2e_lightx2v_033/whole_card/e2e_wan22_t2v_lightx2v.json", "json:rows/0/queues/0/stages_s/sampler low-noise", 9.28, "{:.1f} s", E2E_WF_H200 + ", Queue 1, sampler low-noise stage"),
    ("e2e_wf.h200.stock.q1.vae_decode", "h200/e2e_lightx2v_033/whole_card/e2e_wan22_t2v_lightx2v.json", "json:rows/0/queues/0/stages_s/VAE decode", 2.78, "{:.1f} s", E2E_WF_H200 + ", Queue 1, VAE decode stage"),
    ("e2e_wf.h200.stock.q1.save", "h200/e2e_lightx2v_033/whole_card/e2e_wan22_t2v_lightx2v.json", "json:rows/0/queues/0/stages_s/save", 4.523, "{:.1f} s", E2E_WF_H200 + ", Queue 1, save stage"),
    ("e2e_wf.h200.stock.q2.total", "h200/e2e_lightx2v_033/whole_card/e2e_wan22_t2v_lightx2v.json", "json:rows/0/queues/1/total_s", 20.273, "{:.1f} s", E2E_WF_H200 + ", Queue 2, total"),
    ("e2e_wf.h200.stock.q2.high_noise", "h200/e2e_lightx2v_033/whole_card/e2e_wan22_t2v_lightx2v.json", "json:rows/0/queues/1/stages_s/sampler high-noise", 6.921, "{:.1f} s", E2E_WF_H200 + ", Queue 2, sampler high-noise stage"),
    ("e2e_wf.h200.stock.q2.low_noise", "h200/e2e_lightx2v_033/whole_card/e2e_wan22_t2v_lightx2v.json", "json:rows/0/queues/1/stages_s/sampler low-noise", 6.909, "{:.1f} s", E2E_WF_H200 + ", Queue 2, sampler low-noise stage"),
    ("e2e_wf.h200.stock.q2.vae_decode", "h200/e2e_lightx2v_033/whole_card/e2e_wan22_t2v_lightx2v.json", "json:rows/0/queues/1/stages_s/VAE decode", 2.105, "{:.1f} s", E2E_WF_H200 + ", Queue 2, VAE decode stage"),
    ("e2e_wf.h200.stock.q2.save", "h200/e2e_lightx2v_033/whole_card/e2e_wan22_t2v_lightx2v.json", "json:rows/0/queues/1/stages_s/save", 4.33, "{:.1f} s", E2E_WF_H200 + ", Queue 2, save stage"),
    ("e2e_wf.h200.level1.q1.total", "h200/e2e_lightx2v_033/whole_card/e2e_wan22_t2v_lightx2v.json", "json:rows/1/queues/0/total_s", 38.052, "{:.1f} s", E2E_WF_H200 + ", Queue 1, total"),
    ("e2e_wf.h200.level1.q1.high_noise", "h200/e2e_lightx2v_033/whole_card/e2e_wan22_t2v_lightx2v.json", "json:rows/1/queues/0/stages_s/sampler high-noise", 20.081, "{:.1f} s", E2E_WF_H200 + ", Queue 1, sampler high-noise stage"),
    ("e2e_wf.h200.level1.q1.low_noise", "h200/e2e_lightx2v_033/whole_card/e2e_wan22_t2v_lightx2v.json", "json:rows/1/queues/0/stages_s/sampler low-noise", 6.191, "{:.1f} s", E2E_WF_H200 + ", Queue 1, sampler low-noise stage"),
    ("e2e_wf.h200.level1.q1.vae_decode", "h200/e2e_lightx2v_033/whole_card/e2e_wan22_t2v_lightx2v.json", "json:rows/1/queues/0/stages_s/VAE decode", 2.569, "{:.1f} s", E2E_WF_H200 + ", Queue 1, VAE decode stage"),
    ("e2e_wf.h200.level1.q1.save", "h200/e2e_lightx2v_033/whole_card/e2e_wan22_t2v_lightx2v.json", "json:rows/1/queues/0/stages_s/save", 4.69, "{:.1f} s", E2E_WF_H200 + ", Queue 1, save stage"),
    ("e2e_wf.h200.level1.q2.total", "h200/e2e_lightx2v_033/whole_card/e2e_wan22_t2v_lightx2v.json", "json:rows/1/queues/1/total_s", 15.984, "{:.1f} s", E2E_WF_H200 + ", Queue 2, total"),
    ("e2e_wf.h200.level1.q2.high_noise", "h200/e2e_lightx2v_033/whole_card/e2e_wan22_t2v_lightx2v.json", "json:rows/1/queues/1/stages_s/sampler high-noise", 4.302, "{:.1f} s", E2E_WF_H200 + ", Queue 2, sampler high-noise stage"),
    ("e2e_wf.h200.level1.q2.low_noise", "h200/e2e_lightx2v_033/whole_card/e2e_wan22_t2v_lightx2v.json", "json:rows/1/queues/1/stages_s/sampler low-noise", 4.351, "{:.1f} s", E2E_WF_H200 + ", Queue 2, sampler low-noise stage"),
    ("e2e_wf.h200.level1.q2.vae_decode", "h200/e2e_lightx2v_033/whole_card/e2e_wan22_t2v_lightx2v.json", "json:rows/1/queues/1/stages_s/VAE decode", 2.191, "{:.1f} s", E2E_WF_H200 + ", Queue 2, VAE decode stage"),
    ("e2e_wf.h200.level1.q2.save", "h200/e2e_lightx2v_033/whole_card/e2e_wan22_t2v_lightx2v.json", "json:rows/1/queues/1/stages_s/save", 5.126, "{:.1f} s", E2E_WF_H200 + ", Queue 2, save stage"),
    ("e2e_wf.h200.level1_vae.q1.total", "h200/e2e_lightx2v_033/whole_card/e2e_wan22_t2v_lightx2v.json", "json:rows/2/queues/0/total_s", 35.578, "{:.1f} s", E2E_WF_H200 + ", Queue 1, total"),
    ("e2e_wf.h200.level1_vae.q1.high_noise", "h200/e2e_lightx2v_033/whole_card/e2e_wan22_t2v_lightx2v.json", "json:rows/2/queues/0/stages_s/sampler high-noise", 17.285, "{:.1f} s", E2E_WF_H200 + ", Queue 1, sampler high-noise stage"),
    ("e2e_wf.h200.level1_vae.q1.low_noise", "h200/e2e_lightx2v_033/whole_card/e2e_wan22_t2v_lightx2v.json", "json:rows/2/queues/0/stages_s/sampler low-noise", 6.5, "{:.1f} s", E2E_WF_H200 + ", Queue 1, sampler low-noise stage"),
    ("e2e_wf.h200.level1_vae.q1.vae_decode", "h200/e2e_lightx2v_033/whole_card/e2e_wan22_t2v_lightx2v.json", "json:rows/2/queues/0/stages_s/VAE decode", 2.576, "{:.1f} s", E2E_WF_H200 + ", Queue 1, VAE decode stage"),
    ("e2e_wf.h200.level1_vae.q1.save", "h200/e2e_lightx2v_033/whole_card/e2e_wan22_t2v_lightx2v.json", "json:rows/2/queues/0/stages_s/save", 4.397, "{:.1f} s", E2E_WF_H200 + ", Queue 1, save stage"),
    ("e2e_wf.h200.level1_vae.q2.total", "h200/e2e_lightx2v_033/whole_card/e2e_wan22_t2v_lightx2v.json", "json:rows/2/queues/1/total_s", 15.329, "{:.1f} s", E2E_WF_H200 + ", Queue 2, total"),
    ("e2e_wf.h200.level1_vae.q2.high_noise", "h200/e2e_lightx2v_033/whole_card/e2e_wan22_t2v_lightx2v.json", "json:rows/2/queues/1/stages_s/sampler high-noise", 4.284, "{:.1f} s", E2E_WF_H200 + ", Queue 2, sampler high-noise stage"),
    ("e2e_wf.h200.level1_vae.q2.low_noise", "h200/e2e_lightx2v_033/whole_card/e2e_wan22_t2v_lightx2v.json", "json:rows/2/queues/1/stages_s/sampler low-noise", 4.272, "{:.1f} s", E2E_WF_H200 + ", Queue 2, sampler low-noise stage"),
    ("e2e_wf.h200.level1_vae.q2.vae_decode", "h200/e2e_lightx2v_033/whole_card/e2e_wan22_t2v_lightx2v.json", "json:rows/2/queues/1/stages_s/VAE decode", 2.399, "{:.1f} s", E2E_WF_H200 + ", Queue 2, VAE decode stage"),
    ("e2e_wf.h200.level1_vae.q2.save", "h200/e2e_lightx2v_033/whole_card/e2e_wan22_t2v_lightx2v.json", "json:rows/2/queues/1/stages_s/save", 3.913, "{:.1f} s", E2E_WF_H200 + ", Queue 2, save stage"),
    ("e2e_wf.h100.stock.q1.total", "h100/e2e_lightx2v_033/whole_card_shared_cache/e2e_wan22_t2v_lightx2v.json", "json:rows/0/queues/0/total_s", 37.158, "{:.1f} s", E2E_WF_H100 + ", Queue 1, total"),
    ("e2e_wf.h100.stock.q1.high_noise", "h100/e2e_lightx2v_033/whole_card_shared_cache/e2e_wan22_t2v_lightx2v.json", "json:rows/0/queues/0/stages_s/sampler high-noise", 11.88, "{:.1f} s", E2E_WF_H100 + ", Queue 1, sampler high-noise stage"),
    ("e2e_wf.h100.stock.q1.low_noise", "h100/e2e_lightx2v_033/whole_card_shared_cache/e2e_wan22_t2v_lightx2v.json", "json:rows/0/queues/0/stages_s/sampler low-noise", 10.777, "{:.1f} s", E2E_WF_H100 + ", Queue 1, sampler low-noise stage"),
    ("e2e_wf.h100.stock.q1.vae_decode", "h100/e2e_lightx2v_033/whole_card_shared_cache/e2e_wan22_t2v_lightx2v.json", "json:rows/0/queues/0/stages_s/VAE decode", 3.051, "{:.1f} s", E2E_WF_H100 + ", Queue 1, VAE decode stage"),
    ("e2e_wf.h100.stock.q1.save", "h100/e2e_lightx2v_033/whole_card_shared_cache/e2e_wan22_t2v_lightx2v.json", "json:rows/0/queues/0/stages_s/save", 5.838, "{:.1f} s", E2E_WF_H100 + ", Queue 1, save stage"),
    ("e2e_wf.h100.stock.q2.total", "h100/e2e_lightx2v_033/whole_card_shared_cache/e2e_wan22_t2v_lightx2v.json", "json:rows/0/queues/1/total_s", 22.535, "{:.1f} s", E2E_WF_H100 + ", Queue 2, total"),
    ("e2e_wf.h100.stock.q2.high_noise", "h100/e2e_lightx2v_033/whole_card_shared_cache/e2e_wan22_t2v_lightx2v.json", "json:rows/0/queues/1/stages_s/sampler high-noise", 7.16, "{:.1f} s", E2E_WF_H100 + ", Queue 2, sampler high-noise stage"),
    ("e2e_wf.h100.stock.q2.low_noise", "h100/e2e_lightx2v_033/whole_card_shared_cache/e2e_wan22_t2v_lightx2v.json", "json:rows/0/queues/1/stages_s/sampler low-noise", 7.095, "{:.1f} s", E2E_WF_H100 + ", Queue 2, sampler low-noise stage"),
    ("e2e_wf.h100.stock.q2.vae_decode", "h100/e2e_lightx2v_033/whole_card_shared_cache/e2e_wan22_t2v_lightx2v.json", "json:rows/0/queues/1/stages_s/VAE decode", 2.501, "{:.1f} s", E2E_WF_H100 + ", Queue 2, VAE decode stage"),
    ("e2e_wf.h100.stock.q2.save", "h100/e2e_lightx2v_033/whole_card_shared_cache/e2e_wan22_t2v_lightx2v.json", "json:rows/0/queues/1/stages_s/save", 5.767, "{:.1f} s", E2E_WF_H100 + ", Queue 2, save stage"),
    ("e2e_wf.h100.level1.q1.total", "h100/e2e_lightx2v_033/whole_card_shared_cache/e2e_wan22_t2v_lightx2v.json", "json:rows/1/queues/0/total_s", 46.73, "{:.1f} s", E2E_WF_H100 + ", Queue 1, total"),
    ("e2e_wf.h100.level1.q1.high_noise", "h100/e2e_lightx2v_033/whole_card_shared_cache/e2e_wan22_t2v_lightx2v.json", "json:rows/1/queues/0/stages_s/sampler high-noise", 24.44, "{:.1f} s", E2E_WF_H100 + ", Queue 1, sampler high-noise stage"),
    ("e2e_wf.h100.level1.q1.low_noise", "h100/e2e_lightx2v_033/whole_card_shared_cache/e2e_wan22_t2v_lightx2v.json", "json:rows/1/queues/0/stages_s/sampler low-noise", 7.403, "{:.1f} s", E2E_WF_H100 + ", Queue 1, sampler low-noise stage"),
    ("e2e_wf.h100.level1.q1.vae_decode", "h100/e2e_lightx2v_033/whole_card_shared_cache/e2e_wan22_t2v_lightx2v.json", "json:rows/1/queues/0/stages_s/VAE decode", 3.201, "{:.1f} s", E2E_WF_H100 + ", Queue 1, VAE decode stage"),
    ("e2e_wf.h100.level1.q1.save", "h100/e2e_lightx2v_033/whole_card_shared_cache/e2e_wan22_t2v_lightx2v.json", "json:rows/1/queues/0/stages_s/save", 5.756, "{:.1f} s", E2E_WF_H100 + ", Queue 1, save stage"),
    ("e2e_wf.h100.level1.q2.total", "h100/e2e_lightx2v_033/whole_card_shared_cache/e2e_wan22_t2v_lightx2v.json", "json:rows/1/queues/1/total_s", 17.323, "{:.1f} s", E2E_WF_H100 + ", Queue 2, total"),
    ("e2e_wf.h100.level1.q2.high_noise", "h100/e2e_lightx2v_033/whole_card_shared_cache/e2e_wan22_t2v_lightx2v.json", "json:rows/1/queues/1/stages_s/sampler high-noise", 4.42, "{:.1f} s", E2E_WF_H100 + ", Queue 2, sampler high-noise stage"),
    ("e2e_wf.h100.level1.q2.low_noise", "h100/e2e_lightx2v_033/whole_card_shared_cache/e2e_wan22_t2v_lightx2v.json", "json:rows/1/queues/1/stages_s/sampler low-noise", 4.385, "{:.1f} s", E2E_WF_H100 + ", Queue 2, sampler low-noise stage"),
    ("e2e_wf.h100.level1.q2.vae_decode", "h100/e2e_lightx2v_033/whole_card_shared_cache/e2e_wan22_t2v_lightx2v.json", "json:rows/1/queues/1/stages_s/VAE decode", 2.461, "{:.1f} s", E2E_WF_H100 + ", Queue 2, VAE decode stage"),
    ("e2e_wf.h100.level1.q2.save", "h100/e2e_lightx2v_033/whole_card_shared_cache/e2e_wan22_t2v_lightx2v.json", "json:rows/1/queues/1/stages_s/save", 6.017, "{:.1f} s", E2E_WF_H100 + ", Queue 2, save stage"),
    ("e2e_wf.h100.level1_vae.q1.total", "h100/e2e_lightx2v_033/whole_card_shared_cache/e2e_wan22_t2v_lightx2v.json", "json:rows/2/queues/0/total_s", 36.024, "{:.1f} s", E2E_WF_H100 + ", Queue 1, total"),
    ("e2e_wf.h100.level1_vae.q1.high_noise", "h100/e2e_lightx2v_033/whole_card_shared_cache/e2e_wan22_t2v_lightx2v.json", "json:rows/2/queues/0/stages_s/sampler high-noise", 14.033, "{:.1f} s", E2E_WF_H100 + ", Queue 1, sampler high-noise stage"),
    ("e2e_wf.h100.level1_vae.q1.low_noise", "h100/e2e_lightx2v_033/whole_card_shared_cache/e2e_wan22_t2v_lightx2v.json", "json:rows/2/queues/0/stages_s/sampler low-noise", 6.93, "{:.1f} s", E2E_WF_H100 + ", Queue 1, sampler low-noise stage"),
    ("e2e_wf.h100.level1_vae.q1.vae_decode", "h100/e2e_lightx2v_033/whole_card_shared_cache/e2e_wan22_t2v_lightx2v.json", "json:rows/2/queues/0/stages_s/VAE decode", 2.877, "{:.1f} s", E2E_WF_H100 + ", Queue 1, VAE decode stage"),
    ("e2e_wf.h100.level1_vae.q1.save", "h100/e2e_lightx2v_033/whole_card_shared_cache/e2e_wan22_t2v_lightx2v.json", "json:rows/2/queues/0/stages_s/save", 5.381, "{:.1f} s", E2E_WF_H100 + ", Queue 1, save stage"),
    ("e2e_wf.h100.level1_vae.q2.total", "h100/e2e_lightx2v_033/whole_card_shared_cache/e2e_wan22_t2v_lightx2v.json", "json:rows/2/queues/1/total_s", 15.801, "{:.1f} s", E2E_WF_H100 + ", Queue 2, total"),
    ("e2e_wf.h100.level1_vae.q2.high_noise", "h100/e2e_lightx2v_033/whole_card_shared_cache/e2e_wan22_t2v_lightx2v.json", "json:rows/2/queues/1/stages_s/sampler high-noise", 4.36, "{:.1f} s", E2E_WF_H100 + ", Queue 2, sampler high-noise stage"),
    ("e2e_wf.h100.level1_vae.q2.low_noise", "h100/e2e_lightx2v_033/whole_card_shared_cache/e2e_wan22_t2v_lightx2v.json", "json:rows/2/queues/1/stages_s/sampler low-noise", 4.352, "{:.1f} s", E2E_WF_H100 + ", Queue 2, sampler low-noise stage"),
    ("e2e_wf.h100.level1_vae.q2.vae_decode", "h100/e2e_lightx2v_033/whole_card_shared_cache/e2e_wan22_t2v_lightx2v.json", "json:rows/2/queues/1/stages_s/VAE decode", 2.582, "{:.1f} s", E2E_WF_H100 + ", Queue 2, VAE decode stage"),
    ("e2e_wf.h100.level1_vae.q2.save", "h100/e2e_lightx2v_033/whole_card_shared_cache/e2e_wan22_t2v_lightx2v.json", "json:rows/2/queues/1/stages_s/save", 4.461, "{:.1f} s", E2E_WF_H100 + ", Queue 2, save stage"),
    ("e2e_wf.h100.24.stock.q1.total", "h100/e2e_lightx2v_033/card24_occupied/e2e_wan22_t2v_lightx2v_card24.json", "json:rows/0/queues/0/total_s", 28.811, "{:.1f} s", E2E_WF_H100_24 + ", Queue 1, total"),
    ("e2e_wf.h100.24.stock.q1.high_noise", "h100/e2e_lightx2v_033/card24_occupied/e2e_wan22_t2v_lightx2v_card24.json", "json:rows/0/queues/0/stages_s/sampler high-noise", 8.636, "{:.1f} s", E2E_WF_H100_24 + ", Queue 1, sampler high-noise stage"),
    ("e2e_wf.h100.24.stock.q1.low_noise", "h100/e2e_lightx2v_033/card24_occupied/e2e_wan22_t2v_lightx2v_card24.json", "json:rows/0/queues/0/stages_s/sampler low-noise", 8.559, "{:.1f} s", E2E_WF_H100_24 + ", Queue 1, sampler low-noise stage"),
    ("e2e_wf.h100.24.stock.q1.vae_decode", "h100/e2e_lightx2v_033/card24_occupied/e2e_wan22_t2v_lightx2v_card24.json", "json:rows/0/queues/0/stages_s/VAE decode", 2.847, "{:.1f} s", E2E_WF_H100_24 + ", Queue 1, VAE decode stage"),
    ("e2e_wf.h100.24.stock.q1.save", "h100/e2e_lightx2v_033/card24_occupied/e2e_wan22_t2v_lightx2v_card24.json", "json:rows/0/queues/0/stages_s/save", 4.646, "{:.1f} s", E2E_WF_H100_24 + ", Queue 1, save stage"),
    ("e2e_wf.h100.24.stock.q2.total", "h100/e2e_lightx2v_033/card24_occupied/e2e_wan22_t2v_lightx2v_card24.json", "json:rows/0/queues/1/total_s", 23.147, "{:.1f} s", E2E_WF_H100_24 + ", Queue 2, total"),
    ("e2e_wf.h100.24.stock.q2.high_noise", "h100/e2e_lightx2v_033/card24_occupied/e2e_wan22_t2v_lightx2v_card24.json", "json:rows/0/queues/1/stages_s/sampler high-noise", 7.654, "{:.1f} s", E2E_WF_H100_24 + ", Queue 2, sampler high-noise stage"),
    ("e2e_wf.h100.24.stock.q2.low_noise", "h100/e2e_lightx2v_033/card24_occupied/e2e_wan22_t2v_lightx2v_card24.json", "json:rows/0/queues/1/stages_s/sampler low-noise", 7.548, "{:.1f} s", E2E_WF_H100_24 + ", Queue 2, sampler low-noise stage"),
    ("e2e_wf.h100.24.stock.q2.vae_decode", "h100/e2e_lightx2v_033/card24_occupied/e2e_wan22_t2v_lightx2v_card24.json", "json:rows/0/queues/1/stages_s/VAE decode", 2.579, "{:.1f} s", E2E_WF_H100_24 + ", Queue 2, VAE decode stage"),
    ("e2e_wf.h100.24.stock.q2.save", "h100/e2e_lightx2v_033/card24_occupied/e2e_wan22_t2v_lightx2v_card24.json", "json:rows/0/queues/1/stages_s/save", 5.343, "{:.1f} s", E2E_WF_H100_24 + ", Queue 2, save stage"),
    ("e2e_wf.h100.24.level1.q1.total", "h100/e2e_lightx2v_033/card24_occupied/e2e_wan22_t2v_lightx2v_card24.json", "json:rows/1/queues/0/total_s", 33.234, "{:.1f} s", E2E_WF_H100_24 + ", Queue 1, total"),
    ("e2e_wf.h100.24.level1.q1.high_noise", "h100/e2e_lightx2v_033/card24_occupied/e2e_wan22_t2v_lightx2v_card24.json", "json:rows/1/queues/0/stages_s/sampler high-noise", 11.621, "{:.1f} s", E2E_WF_H100_24 + ", Queue 1, sampler high-noise stage"),
    ("e2e_wf.h100.24.level1.q1.low_noise", "h100/e2e_lightx2v_033/card24_occupied/e2e_wan22_t2v_lightx2v_card24.json", "json:rows/1/queues/0/stages_s/sampler low-noise", 7.463, "{:.1f} s", E2E_WF_H100_24 + ", Queue 1, sampler low-noise stage"),
    ("e2e_wf.h100.24.level1.q1.vae_decode", "h100/e2e_lightx2v_033/card24_occupied/e2e_wan22_t2v_lightx2v_card24.json", "json:rows/1/queues/0/stages_s/VAE decode", 2.819, "{:.1f} s", E2E_WF_H100_24 + ", Queue 1, VAE decode stage"),
    ("e2e_wf.h100.24.level1.q1.save", "h100/e2e_lightx2v_033/card24_occupied/e2e_wan22_t2v_lightx2v_card24.json", "json:rows/1/queues/0/stages_s/save", 5.621, "{:.1f} s", E2E_WF_H100_24 + ", Queue 1, save stage"),
    ("e2e_wf.h100.24.level1.q2.total", "h100/e2e_lightx2v_033/card24_occupied/e2e_wan22_t2v_lightx2v_card24.json", "json:rows/1/queues/1/total_s", 19.635, "{:.1f} s", E2E_WF_H100_24 + ", Queue 2, total"),
    ("e2e_wf.h100.24.level1.q2.high_noise", "h100/e2e_lightx2v_033/card24_occupied/e2e_wan22_t2v_lightx2v_card24.json", "json:rows/1/queues/1/stages_s/sampler high-noise", 5.282, "{:.1f} s", E2E_WF_H100_24 + ", Queue 2, sampler high-noise stage"),
    ("e2e_wf.h100.24.level1.q2.low_noise", "h100/e2e_lightx2v_033/card24_occupied/e2e_wan22_t2v_lightx2v_card24.json", "json:rows/1/queues/1/stages_s/sampler low-noise", 5.592, "{:.1f} s", E2E_WF_H100_24 + ", Queue 2, sampler low-noise stage"),
    ("e2e_wf.h100.24.level1.q2.vae_decode", "h100/e2e_lightx2v_033/card24_occupied/e2e_wan22_t2v_lightx2v_card24.json", "json:rows/1/queues/1/stages_s/VAE decode", 2.556, "{:.1f} s", E2E_WF_H100_24 + ", Queue 2, VAE decode stage"),
    ("e2e_wf.h100.24.level1.q2.save", "h100/e2e_lightx2v_033/card24_occupied/e2e_wan22_t2v_lightx2v_card24.json", "json:rows/1/queues/1/stages_s/save", 6.18, "{:.1f} s", E2E_WF_H100_24 + ", Queue 2, save stage"),
    ("e2e_wf.h200.kj_sage_compile.q1.total", "h200/e2e_lightx2v_033/peers/e2e_wan22_t2v_lightx2v.json", "json:rows/0/queues/0/total_s", 53.552, "{:.1f} s", E2E_WF_H200 + ", Queue 1, total"),
    ("e2e_wf.h200.kj_sage_compile.q1.high_noise", "h200/e2e_lightx2v_033/peers/e2e_wan22_t2v_lightx2v.json", "json:rows/0/queues/0/stages_s/sampler high-noise", 27.26, "{:.1f} s", E2E_WF_H200 + ", Queue 1, sampler high-noise stage"),
    ("e2e_wf.h200.kj_sage_compile.q1.low_noise", "h200/e2e_lightx2v_033/peers/e2e_wan22_t2v_lightx2v.json", "json:rows/0/queues/0/stages_s/sampler low-noise", 10.683, "{:.1f} s", E2E_WF_H200 + ", Queue 1, sampler low-noise stage"),
    ("e2e_wf.h200.kj_sage_compile.q1.vae_decode", "h200/e2e_lightx2v_033/peers/e2e_wan22_t2v_lightx2v.json", "json:rows/0/queues/0/stages_s/VAE decode", 2.62, "{:.1f} s", E2E_WF_H200 + ", Queue 1, VAE decode stage"),
    ("e2e_wf.h200.kj_sage_compile.q1.save", "h200/e2e_lightx2v_033/peers/e2e_wan22_t2v_lightx2v.json", "json:rows/0/queues/0/stages_s/save", 4.517, "{:.1f} s", E2E_WF_H200 + ", Queue 1, save stage"),
    ("e2e_wf.h200.kj_sage_compile.q2.total", "h200/e2e_lightx2v_033/peers/e2e_wan22_t2v_lightx2v.json", "json:rows/0/queues/1/total_s", 18.689, "{:.1f} s", E2E_WF_H200 + ", Queue 2, total"),
    ("e2e_wf.h200.kj_sage_compile.q2.high_noise", "h200/e2e_lightx2v_033/peers/e2e_wan22_t2v_lightx2v.json", "json:rows/0/queues/1/stages_s/sampler high-noise", 5.846, "{:.1f} s", E2E_WF_H200 + ", Queue 2, sampler high-noise stage"),
    ("e2e_wf.h200.kj_sage_compile.q2.low_noise", "h200/e2e_lightx2v_033/peers/e2e_wan22_t2v_lightx2v.json", "json:rows/0/queues/1/stages_s/sampler low-noise", 5.846, "{:.1f} s", E2E_WF_H200 + ", Queue 2, sampler low-noise stage"),
    ("e2e_wf.h200.kj_sage_compile.q2.vae_decode", "h200/e2e_lightx2v_033/peers/e2e_wan22_t2v_lightx2v.json", "json:rows/0/queues/1/stages_s/VAE decode", 2.137, "{:.1f} s", E2E_WF_H200 + ", Queue 2, VAE decode stage"),
    ("e2e_wf.h200.kj_sage_compile.q2.save", "h200/e2e_lightx2v_033/peers/e2e_wan22_t2v_lightx2v.json", "json:rows/0/queues/1/stages_s/save", 4.846, "{:.1f} s", E2E_WF_H200 + ", Queue 2, save stage"),
    # block-sparse attention per call (radial pattern, issue #32) ----------------------------------------------------
    ("sparse.h100.480p.decay0.2.speedup", _SPARSE, "json:rows/2/speedup_vs_fa3", 1.2530550427295521, "{:.2f}x", SPARSE_H100 + ", 480p 81 frames (32,760 tokens), decay 0.2"),
    ("sparse.h100.720p.decay0.2.speedup", _SPARSE, "json:rows/7/speedup_vs_fa3", 1.8490722430700195, "{:.2f}x", SPARSE_H100 + ", 720p 81 frames (75,600 tokens), decay 0.2"),
    ("sparse.h100.480p.decay1.speedup", _SPARSE, "json:rows/4/speedup_vs_fa3", 0.9911020478282272, "{:.2f}x", SPARSE_H100 + ", 480p 81 frames, decay 1"),
    ("sparse.h100.720p.decay0.2.cosine", _SPARSE, "json:rows/7/vs_masked_reference/cosine", 0.9999968490958904, "{:.6f}", SPARSE_H100 + ", 720p 81 frames, decay 0.2, output vs the dense masked fp32 reference"),
    # FlashAttention-4 on Hopper, dense adapter and block-sparse (issues #28, #32) -----------------------------------
    ("fa4.h100.720p.dense.ms", _FA4 + "bench_attention.json", "json:micro/28/ms", 176.77261352539062, "{:.0f} ms", ATTN_FA4_H100 + ", Wan 14B 720p 81 frames, flash_attn_4"),
    ("fa3.h100.720p.dense.ms", _FA4 + "bench_attention.json", "json:micro/27/ms", 172.2314910888672, "{:.0f} ms", ATTN_FA4_H100 + ", Wan 14B 720p 81 frames, flash_attn_3"),
    ("fa4.h100.480p.dense.ms", _FA4 + "bench_attention.json", "json:micro/17/ms", 32.52191925048828, "{:.1f} ms", ATTN_FA4_H100 + ", Wan 14B 480p 81 frames, flash_attn_4"),
    ("fa3.h100.480p.dense.ms", _FA4 + "bench_attention.json", "json:micro/16/ms", 33.003326416015625, "{:.1f} ms", ATTN_FA4_H100 + ", Wan 14B 480p 81 frames, flash_attn_3"),
    ("fa4.h100.720p.dense.cosine", _FA4 + "bench_attention.json", "json:micro/28/cosine", 0.999997263990402, "{:.6f}", ATTN_FA4_H100 + ", Wan 14B 720p, vs a float32 reference"),
    ("sparse_fa4.h100.720p.decay0.2.speedup", _FA4 + "sparse_attention.json", "json:rows/11/speedup_vs_fa3", 3.393829458268823, "{:.2f}x", SPARSE_FA4_H100 + ", 720p 81 frames (75,600 tokens), decay 0.2, FA4 block-sparse"),
    ("sparse_flex.h100.720p.decay0.2.speedup.run2", _FA4 + "sparse_attention.json", "json:rows/10/speedup_vs_fa3", 1.848175726567294, "{:.2f}x", SPARSE_FA4_H100 + ", 720p 81 frames, decay 0.2, flex_attention"),
    ("sparse_fa4.h100.480p.decay0.2.speedup", _FA4 + "sparse_attention.json", "json:rows/3/speedup_vs_fa3", 2.4924431288288647, "{:.2f}x", SPARSE_FA4_H100 + ", 480p 81 frames (32,760 tokens), decay 0.2, FA4 block-sparse"),
    ("sparse_fa4.h100.720p.decay0.2.cosine", _FA4 + "sparse_attention.json", "json:rows/11/vs_masked_reference/cosine", 0.9999968490361827, "{:.6f}", SPARSE_FA4_H100 + ", 720p, decay 0.2, FA4 block-sparse output vs the dense masked fp32 reference"),
    # sparse attention in the users' workflow (issue #32) ------------------------------------------------------------
    ("wf720.h100.stock.time", "h100/wf_lightx2v_033/sparse_720p_80GB_fa4/matrix.json", "json:chains/stock/times_s/0", 64.38, "{:.1f} s", WF720_FA4),
    ("wf720.h100.level1.speedup", "h100/wf_lightx2v_033/sparse_720p_80GB_fa4/matrix.json", "json:chains/level1/speedup", 1.775, "{:.2f}x", WF720_FA4),
    ("wf720.h100.level1_sparse_fa4.speedup", "h100/wf_lightx2v_033/sparse_720p_80GB_fa4/matrix.json", "json:chains/level1_sparse/speedup", 2.817, "{:.2f}x", WF720_FA4),
    ("wf720.h100.level1_sparse_fa4.time", "h100/wf_lightx2v_033/sparse_720p_80GB_fa4/matrix.json", "json:chains/level1_sparse/times_s/0", 22.851, "{:.1f} s", WF720_FA4),
    ("wf720.h100.level1_sparse_fa4.cosine", "h100/wf_lightx2v_033/sparse_720p_80GB_fa4/matrix.json", "json:chains/level1_sparse/cosine", 0.999912, "{:.5f}", WF720_FA4 + ", final latent vs stock (random weights: says little for sparse attention)"),
    ("wf121.h100.24.stock.time", "h100/wf_lightx2v_033/sparse_720p_121f_24GB_fa4/matrix.json", "json:chains/stock/times_s/0", 130.859, "{:.0f} s", WF121_FA4_24),
    ("wf121.h100.24.level1_sparse_fa4.time", "h100/wf_lightx2v_033/sparse_720p_121f_24GB_fa4/matrix.json", "json:chains/level1_sparse/times_s/0", 40.325, "{:.1f} s", WF121_FA4_24),
    ("wf121.h100.24.level1_sparse_fa4.speedup", "h100/wf_lightx2v_033/sparse_720p_121f_24GB_fa4/matrix.json", "json:chains/level1_sparse/speedup", 3.245, "{:.2f}x", WF121_FA4_24),
    ("wf121.h100.24.level1_sparse_fa4.first_run", "h100/wf_lightx2v_033/sparse_720p_121f_24GB_fa4/matrix.json", "json:chains/level1_sparse/first_run_s", 58.88, "{:.0f} s", WF121_FA4_24 + ", first run (compiles)"),
    ("wf720.h100.level1_sparse_flex.speedup", "h100/wf_lightx2v_033/sparse_720p_80GB_fixed_dense_steps/matrix.json", "json:chains/level1_sparse/speedup", 2.238, "{:.2f}x", WF720_FLEX),
    ("wf720.h100.level1_sparse_flex_old.speedup", "h100/wf_lightx2v_033/sparse_720p_80GB/matrix.json", "json:chains/level1_sparse/speedup", 2.036, "{:.2f}x", WF720_FLEX_OLD),
    ("wf480.h100.level1.time", "h100/wf_lightx2v_033/sparse_480p_80GB/matrix.json", "json:chains/level1/times_s/0", 10.509, "{:.2f} s", WF480_SPARSE),
    ("wf480.h100.level1_sparse.time", "h100/wf_lightx2v_033/sparse_480p_80GB/matrix.json", "json:chains/level1_sparse/times_s/0", 9.882, "{:.2f} s", WF480_SPARSE),
    # FP8 loader + LoRA, low-rank path (issue #27) ---------------------------------------------------------------------
    ("wf.h100.80.fp8_lowrank.speedup", "h100/wf_lightx2v_033/sequential_80GB_fp8_lora_lowrank/matrix.json", "json:chains/fp8_level1/speedup", 1.428, "{:.2f}x", WF_FP8_LOWRANK),
    ("wf.h100.80.fp8_lowrank.time", "h100/wf_lightx2v_033/sequential_80GB_fp8_lora_lowrank/matrix.json", "json:chains/fp8_level1/times_s/0", 9.842, "{:.2f} s", WF_FP8_LOWRANK),
    ("wf.h100.80.fp8_lowrank.first_run", "h100/wf_lightx2v_033/sequential_80GB_fp8_lora_lowrank/matrix.json", "json:chains/fp8_level1/first_run_s", 19.67, "{:.0f} s", WF_FP8_LOWRANK + ", first run (compiles; model already loaded)"),
    ("wf.h100.80.fp8_lowrank.cosine", "h100/wf_lightx2v_033/sequential_80GB_fp8_lora_lowrank/matrix.json", "json:chains/fp8_level1/cosine", 0.999256, "{:.5f}", WF_FP8_LOWRANK + ", final latent vs stock"),
    ("wf.h100.80.fp8_lowrank.level1.speedup", "h100/wf_lightx2v_033/sequential_80GB_fp8_lora_lowrank/matrix.json", "json:chains/level1/speedup", 1.635, "{:.2f}x", WF_FP8_LOWRANK + ", Level-1 on ComfyUI's loader in the same run"),
    ("wf.h100.80.fp8_lowrank.peak_device", "h100/wf_lightx2v_033/sequential_80GB_fp8_lora_lowrank/matrix.json", "json:chains/fp8_level1/peak_device_gib", 61.96, "{:.0f} GiB", WF_FP8_LOWRANK + ", device memory peak"),
    ("wf.h200.141.fix.fp8_level1.speedup", "h200/wf_lightx2v_033/sequential_141GB_fp8_fixes/matrix.json", "json:chains/fp8_level1/speedup", 1.46, "{:.2f}x", WF_FP8_FIXES_H200),
    ("wf.h200.141.fix.fp8_level1.cosine", "h200/wf_lightx2v_033/sequential_141GB_fp8_fixes/matrix.json", "json:chains/fp8_level1/cosine", 0.999256, "{:.5f}", WF_FP8_FIXES_H200 + ", final latent vs stock"),
    ("wf.h200.141.fix.fp8_level1.peak_device", "h200/wf_lightx2v_033/sequential_141GB_fp8_fixes/matrix.json", "json:chains/fp8_level1/peak_device_gib", 35.15, "{:.0f} GiB", WF_FP8_FIXES_H200 + ", device memory peak"),
    ("wf.h200.141.fix.level1.speedup", "h200/wf_lightx2v_033/sequential_141GB_fp8_fixes/matrix.json", "json:chains/level1/speedup", 1.585, "{:.2f}x", WF_FP8_FIXES_H200 + ", Level-1 on ComfyUI's loader in the same run"),
    ("wf.h100.80.dtypefix.fp8_level1.speedup", "h100/wf_lightx2v_033/sequential_80GB_profile_fp8_dtype_fix/matrix.json", "json:chains/fp8_level1/speedup", 1.442, "{:.2f}x", WF_FP8_DTYPE_H100),
    ("wf.h100.80.dtypefix.fp8_level1.peak_device", "h100/wf_lightx2v_033/sequential_80GB_profile_fp8_dtype_fix/matrix.json", "json:chains/fp8_level1/peak_device_gib", 35.57, "{:.0f} GiB", WF_FP8_DTYPE_H100 + ", device memory peak"),
    ("wf.h100.80.dtypefix.level1.speedup", "h100/wf_lightx2v_033/sequential_80GB_profile_fp8_dtype_fix/matrix.json", "json:chains/level1/speedup", 1.617, "{:.2f}x", WF_FP8_DTYPE_H100 + ", Level-1 on ComfyUI's loader in the same run"),
    ("wf.h100.80.profile.fp8_level1.peak_device", "h100/wf_lightx2v_033/sequential_80GB_profile/matrix.json", "json:chains/fp8_level1/peak_device_gib", 61.72, "{:.0f} GiB", WF_H100_80.replace("median of 2 runs", "one timed run") + ", FP8 loader -> LoRA -> Level-1 before the fixes, device memory peak"),
    ("wf.h100.80.fix.fp8_level1.speedup", "h100/wf_lightx2v_033/sequential_80GB_fp8_fixes/matrix.json", "json:chains/fp8_level1/speedup", 1.51, "{:.2f}x", WF_FP8_FIXES_H100),
    ("wf.h100.80.fix.fp8_level1.cosine", "h100/wf_lightx2v_033/sequential_80GB_fp8_fixes/matrix.json", "json:chains/fp8_level1/cosine", 0.999256, "{:.5f}", WF_FP8_FIXES_H100 + ", final latent vs stock"),
    ("wf.h100.80.fix.fp8_level1.first_run", "h100/wf_lightx2v_033/sequential_80GB_fp8_fixes/matrix.json", "json:chains/fp8_level1/first_run_s", 21.07, "{:.0f} s", WF_FP8_FIXES_H100 + ", first run (compiles; model already loaded)"),
    ("wf.h100.80.fix.fp8_level1.peak_device", "h100/wf_lightx2v_033/sequential_80GB_fp8_fixes/matrix.json", "json:chains/fp8_level1/peak_device_gib", 35.24, "{:.0f} GiB", WF_FP8_FIXES_H100 + ", device memory peak"),
    ("wf.h100.80.fix.level1.speedup", "h100/wf_lightx2v_033/sequential_80GB_fp8_fixes/matrix.json", "json:chains/level1/speedup", 1.657, "{:.2f}x", WF_FP8_FIXES_H100 + ", Level-1 on ComfyUI's loader in the same run"),
    ("family.h100.qwen.fix.stock.time", _QWEN_FIX, "json:chains/stock/times_s/1", 5.35, "{:.2f} s", FAMILY_QWEN_FIX),
    ("family.h100.qwen.fix.shipped.speedup", _QWEN_FIX, "json:chains/shipped/speedup", 1.376, "{:.2f}x", FAMILY_QWEN_FIX + ", Accel CUDA Settings -> Attention -> Compile"),
    ("family.h100.qwen.fix.shipped.cosine", _QWEN_FIX, "json:chains/shipped/cosine", 0.999876, "{:.5f}", FAMILY_QWEN_FIX + ", exact chain, final latent vs stock"),
    ("family.h100.qwen.fix.fp8_shipped.speedup", _QWEN_FIX, "json:chains/fp8_shipped/speedup", 1.556, "{:.2f}x", FAMILY_QWEN_FIX + ", FP8 loader -> exact chain"),
    ("family.h100.qwen.fix.fp8_shipped.cosine", _QWEN_FIX, "json:chains/fp8_shipped/cosine", 0.999257, "{:.5f}", FAMILY_QWEN_FIX + ", FP8 loader -> exact chain, final latent vs stock"),
    ("family.h100.qwen.fix.fp8_shipped.peak_device", _QWEN_FIX, "json:chains/fp8_shipped/peak_device_gib", 27.26, "{:.0f} GiB", FAMILY_QWEN_FIX + ", FP8 loader -> exact chain, device memory peak"),
    ("family.h100.qwen.fp8_shipped.peak_device", _QWEN, "json:chains/fp8_shipped/peak_device_gib", 40.45, "{:.0f} GiB", FAMILY_QWEN + ", FP8 loader -> exact chain before the dtype fix, device memory peak"),
    # Flux on the H200, each chain on its own (issue #30) --------------------------------------------------------------
    ("family.h200.flux.stock.time", _FLUX_H200, "json:chains/stock/times_s/0", 3.548, "{:.2f} s", FAMILY_FLUX_H200),
    ("family.h200.flux.shipped.speedup", _FLUX_H200, "json:chains/shipped/speedup", 1.232, "{:.2f}x", FAMILY_FLUX_H200 + ", Accel CUDA Settings -> Attention -> Compile"),
    ("family.h200.flux.attention.speedup", _FLUX_H200, "json:chains/attention/speedup", 1.148, "{:.2f}x", FAMILY_FLUX_H200 + ", Accel Attention (auto)"),
    ("family.h200.flux.core_compile.speedup", _FLUX_H200, "json:chains/core_compile/speedup", 1.183, "{:.2f}x", FAMILY_FLUX_H200 + ", ComfyUI TorchCompileModel (DynamicVRAM on, as ComfyUI starts)"),
    ("family.h200.flux.shipped.gpu_busy", _FLUX_H200, "json:chains/shipped/profile/gpu_busy", 0.795, "{:.2f}", FAMILY_FLUX_H200 + ", exact chain, one profiled run: GPU-busy share of the wall time"),
    ("family.h200.flux.fp8_shipped.gpu_busy", _FLUX_H200, "json:chains/fp8_shipped/profile/gpu_busy", 0.526, "{:.2f}", FAMILY_FLUX_H200 + ", FP8 loader -> exact chain, one profiled run: GPU-busy share of the wall time"),
    # after the host-time trims (this version): Flux and the users' workflow on the H200 ----------------------------
    ("family.h200.flux.trims.stock.time", _FLUX_TRIMS, "json:chains/stock/times_s/0", 3.447, "{:.2f} s", FAMILY_FLUX_TRIMS),
    ("family.h200.flux.trims.shipped.time", _FLUX_TRIMS, "json:chains/shipped/times_s/0", 2.598, "{:.2f} s", FAMILY_FLUX_TRIMS + ", Accel CUDA Settings -> Attention -> Compile"),
    ("family.h200.flux.trims.shipped.speedup", _FLUX_TRIMS, "json:chains/shipped/speedup", 1.327, "{:.2f}x", FAMILY_FLUX_TRIMS + ", Accel CUDA Settings -> Attention -> Compile"),
    ("family.h200.flux.trims.shipped.cosine", _FLUX_TRIMS, "json:chains/shipped/cosine", 0.999995, "{:.6f}", FAMILY_FLUX_TRIMS + ", exact chain, final latent vs stock"),
    ("family.h200.flux.trims.fp8_shipped.speedup", _FLUX_TRIMS, "json:chains/fp8_shipped/speedup", 1.603, "{:.2f}x", FAMILY_FLUX_TRIMS + ", FP8 loader -> exact chain"),
    ("family.h200.flux.trims.fp8_shipped.cosine", _FLUX_TRIMS, "json:chains/fp8_shipped/cosine", 0.999412, "{:.4f}", FAMILY_FLUX_TRIMS + ", FP8 loader -> exact chain, final latent vs stock"),
    ("family.h200.flux.before_trims.shipped.time", "h200/family_033_flux_1024_host_trims/before_profile/matrix.json", "json:chains/shipped/times_s/0", 2.895, "{:.2f} s", FAMILY_FLUX_H200 + ", exact chain before the trims (same day, another process)"),
    ("family.h100.flux.trims.stock.time", _FLUX_TRIMS_H100, "json:chains/stock/times_s/0", 3.598, "{:.2f} s", FAMILY_FLUX_TRIMS_H100),
    ("family.h100.flux.trims.shipped.speedup", _FLUX_TRIMS_H100, "json:chains/shipped/speedup", 1.228, "{:.2f}x", FAMILY_FLUX_TRIMS_H100 + ", Accel CUDA Settings -> Attention -> Compile"),
    ("family.h100.flux.trims.fp8_shipped.speedup", _FLUX_TRIMS_H100, "json:chains/fp8_shipped/speedup", 1.118, "{:.2f}x", FAMILY_FLUX_TRIMS_H100 + ", FP8 loader -> exact chain"),
    ("family.h100.flux.trims.stock_again.time", _FLUX_TRIMS_H100, "json:chains/stock_again/times_s/0", 4.348, "{:.2f} s", FAMILY_FLUX_TRIMS_H100 + ", stock again at the end of the run"),
    ("wf.h200.141.trims.stock.time", _WF_TRIMS, "json:chains/stock/times_s/1", 14.416, "{:.1f} s", WF_TRIMS_H200),
    ("wf.h200.141.trims.level1.speedup", _WF_TRIMS, "json:chains/level1/speedup", 1.666, "{:.2f}x", WF_TRIMS_H200 + ", Level-1 on ComfyUI's loader"),
    ("wf.h200.141.trims.level1.cosine", _WF_TRIMS, "json:chains/level1/cosine", 0.999927, "{:.5f}", WF_TRIMS_H200 + ", Level-1, final latent vs stock"),
    ("wf.h200.141.trims.level1.first_run", _WF_TRIMS, "json:chains/level1/first_run_s", 23.48, "{:.0f} s", WF_TRIMS_H200 + ", Level-1 first run (compiles; weights already loaded)"),
    ("wf.h200.141.trims.fp8_level1.speedup", _WF_TRIMS, "json:chains/fp8_level1/speedup", 1.546, "{:.2f}x", WF_TRIMS_H200 + ", FP8 loader -> LoRA -> Level-1"),
    ("wf.h200.141.trims.fp8_level1.cosine", _WF_TRIMS, "json:chains/fp8_level1/cosine", 0.999256, "{:.5f}", WF_TRIMS_H200 + ", FP8 loader -> LoRA -> Level-1, final latent vs stock"),
    ("wf.h100.24.now.stock.time", "h100/wf_lightx2v_033/sequential_24GB_occupied_profile/matrix.json", "json:chains/stock/times_s/0", 15.656, "{:.1f} s", WF_H100_24_NOW),
    ("wf.h100.24.now.level1.time", "h100/wf_lightx2v_033/sequential_24GB_occupied_profile/matrix.json", "json:chains/level1/times_s/0", 10.773, "{:.1f} s", WF_H100_24_NOW),
    ("wf.h100.24.now.level1.speedup", "h100/wf_lightx2v_033/sequential_24GB_occupied_profile/matrix.json", "json:chains/level1/speedup", 1.453, "{:.2f}x", WF_H100_24_NOW),
    ("wf.h100.24.now.level1.cosine", "h100/wf_lightx2v_033/sequential_24GB_occupied_profile/matrix.json", "json:chains/level1/cosine", 0.999928, "{:.5f}", WF_H100_24_NOW + ", final latent vs stock"),
    ("wf.h100.24.now.level1.first_run", "h100/wf_lightx2v_033/sequential_24GB_occupied_profile/matrix.json", "json:chains/level1/first_run_s", 26.95, "{:.0f} s", WF_H100_24_NOW + ", first run (compiles; weights already loaded)"),
    ("wf.h100.24.now.profile.stock.gpu_busy", "h100/wf_lightx2v_033/sequential_24GB_occupied_profile/matrix.json", "json:chains/stock/profile/gpu_busy", 0.926, "{:.2f}", WF_H100_24_NOW + ", stock, one profiled run: GPU-busy share of the wall time"),
    ("wf.h100.24.now.profile.stock.copy_ms", "h100/wf_lightx2v_033/sequential_24GB_occupied_profile/matrix.json", "json:chains/stock/profile/copy_ms", 591.7, "{:.0f} ms", WF_H100_24_NOW + ", stock, one profiled run: weight copies"),
    ("wf.h100.24.now.profile.stock.copy_alone_ms", "h100/wf_lightx2v_033/sequential_24GB_occupied_profile/matrix.json", "json:chains/stock/profile/copy_alone_ms", 152.8, "{:.0f} ms", WF_H100_24_NOW + ", stock, one profiled run: copies with no compute beside them"),
    ("wf.h100.24.now.profile.level1.gpu_busy", "h100/wf_lightx2v_033/sequential_24GB_occupied_profile/matrix.json", "json:chains/level1/profile/gpu_busy", 0.75, "{:.2f}", WF_H100_24_NOW + ", level1, one profiled run: GPU-busy share of the wall time"),
    ("wf.h100.24.now.profile.level1.copy_ms", "h100/wf_lightx2v_033/sequential_24GB_occupied_profile/matrix.json", "json:chains/level1/profile/copy_ms", 525.0, "{:.0f} ms", WF_H100_24_NOW + ", level1, one profiled run: weight copies"),
    ("wf.h100.24.now.profile.level1.copy_alone_ms", "h100/wf_lightx2v_033/sequential_24GB_occupied_profile/matrix.json", "json:chains/level1/profile/copy_alone_ms", 450.5, "{:.0f} ms", WF_H100_24_NOW + ", level1, one profiled run: copies with no compute beside them"),
    ("wf.h100.24.now.profile.level1.malloc_calls", "h100/wf_lightx2v_033/sequential_24GB_occupied_profile/matrix.json", "json:chains/level1/profile/host_top/0/1", 20040, "{:d}", WF_H100_24_NOW + ", level1, one profiled run: cudaMallocAsync calls (host)"),
    ("wf.h100.24.now.profile.level1.malloc_s", "h100/wf_lightx2v_033/sequential_24GB_occupied_profile/matrix.json", "json:chains/level1/profile/host_top/0/2", 3.48261, "{:.1f} s", WF_H100_24_NOW + ", level1, one profiled run: host self time in cudaMallocAsync (ms in the file)", 0.001),
    ("wf.h100.80.dtypefix.profile.level1.malloc_s", "h100/wf_lightx2v_033/sequential_80GB_profile_fp8_dtype_fix/matrix.json", "json:chains/level1/profile/host_top/5/2", 0.0665, "{:.2f} s", WF_FP8_DTYPE_H100 + ", level1, one profiled run: host self time in cudaMallocAsync (ms in the file)", 0.001),
    ("wf.h200.24.stock.time", "h200/wf_lightx2v_033/sequential_24GB_occupied/matrix.json", "json:chains/stock/times_s/0", 15.382, "{:.1f} s", WF_H200_24),
    ("wf.h200.24.level1.speedup", "h200/wf_lightx2v_033/sequential_24GB_occupied/matrix.json", "json:chains/level1/speedup", 1.427, "{:.2f}x", WF_H200_24),
    ("wf.h200.24.level1.cosine", "h200/wf_lightx2v_033/sequential_24GB_occupied/matrix.json", "json:chains/level1/cosine", 0.999927, "{:.5f}", WF_H200_24 + ", final latent vs stock"),
    ("e2e_wf.h200.save.stock.q1.total", "h200/e2e_lightx2v_033/whole_card_savevideo/e2e_wan22_t2v_lightx2v.json", "json:rows/0/queues/0/total_s", 35.214, "{:.1f} s", E2E_WF_H200_SAVE + ", Queue 1, total"),
    ("e2e_wf.h200.save.stock.q2.total", "h200/e2e_lightx2v_033/whole_card_savevideo/e2e_wan22_t2v_lightx2v.json", "json:rows/0/queues/1/total_s", 19.746, "{:.1f} s", E2E_WF_H200_SAVE + ", Queue 2, total"),
    ("e2e_wf.h200.save.stock.q2.high_noise", "h200/e2e_lightx2v_033/whole_card_savevideo/e2e_wan22_t2v_lightx2v.json", "json:rows/0/queues/1/stages_s/sampler high-noise", 7.0, "{:.1f} s", E2E_WF_H200_SAVE + ", Queue 2, sampler high-noise stage"),
    ("e2e_wf.h200.save.stock.q2.vae_decode", "h200/e2e_lightx2v_033/whole_card_savevideo/e2e_wan22_t2v_lightx2v.json", "json:rows/0/queues/1/stages_s/VAE decode", 2.238, "{:.1f} s", E2E_WF_H200_SAVE + ", Queue 2, VAE decode stage"),
    ("e2e_wf.h200.save.stock.q2.save", "h200/e2e_lightx2v_033/whole_card_savevideo/e2e_wan22_t2v_lightx2v.json", "json:rows/0/queues/1/stages_s/save", 3.45, "{:.1f} s", E2E_WF_H200_SAVE + ", Queue 2, save stage"),
    ("e2e_wf.h200.save.level1.q1.total", "h200/e2e_lightx2v_033/whole_card_savevideo/e2e_wan22_t2v_lightx2v.json", "json:rows/1/queues/0/total_s", 44.394, "{:.1f} s", E2E_WF_H200_SAVE + ", Queue 1, total"),
    ("e2e_wf.h200.save.level1.q2.total", "h200/e2e_lightx2v_033/whole_card_savevideo/e2e_wan22_t2v_lightx2v.json", "json:rows/1/queues/1/total_s", 14.87, "{:.1f} s", E2E_WF_H200_SAVE + ", Queue 2, total"),
    ("e2e_wf.h200.save.level1.q2.high_noise", "h200/e2e_lightx2v_033/whole_card_savevideo/e2e_wan22_t2v_lightx2v.json", "json:rows/1/queues/1/stages_s/sampler high-noise", 4.364, "{:.1f} s", E2E_WF_H200_SAVE + ", Queue 2, sampler high-noise stage"),
    ("e2e_wf.h200.save.level1.q2.vae_decode", "h200/e2e_lightx2v_033/whole_card_savevideo/e2e_wan22_t2v_lightx2v.json", "json:rows/1/queues/1/stages_s/VAE decode", 2.466, "{:.1f} s", E2E_WF_H200_SAVE + ", Queue 2, VAE decode stage"),
    ("e2e_wf.h200.save.level1.q2.save", "h200/e2e_lightx2v_033/whole_card_savevideo/e2e_wan22_t2v_lightx2v.json", "json:rows/1/queues/1/stages_s/save", 3.71, "{:.1f} s", E2E_WF_H200_SAVE + ", Queue 2, save stage"),
    ("e2e_wf.h200.save.level1_vae.q1.total", "h200/e2e_lightx2v_033/whole_card_savevideo/e2e_wan22_t2v_lightx2v.json", "json:rows/2/queues/0/total_s", 38.513, "{:.1f} s", E2E_WF_H200_SAVE + ", Queue 1, total"),
    ("e2e_wf.h200.save.level1_vae.q2.total", "h200/e2e_lightx2v_033/whole_card_savevideo/e2e_wan22_t2v_lightx2v.json", "json:rows/2/queues/1/total_s", 13.983, "{:.1f} s", E2E_WF_H200_SAVE + ", Queue 2, total"),
    ("e2e_wf.h200.save.level1_vae.q2.high_noise", "h200/e2e_lightx2v_033/whole_card_savevideo/e2e_wan22_t2v_lightx2v.json", "json:rows/2/queues/1/stages_s/sampler high-noise", 4.294, "{:.1f} s", E2E_WF_H200_SAVE + ", Queue 2, sampler high-noise stage"),
    ("e2e_wf.h200.save.level1_vae.q2.vae_decode", "h200/e2e_lightx2v_033/whole_card_savevideo/e2e_wan22_t2v_lightx2v.json", "json:rows/2/queues/1/stages_s/VAE decode", 2.273, "{:.1f} s", E2E_WF_H200_SAVE + ", Queue 2, VAE decode stage"),
    ("e2e_wf.h200.save.level1_vae.q2.save", "h200/e2e_lightx2v_033/whole_card_savevideo/e2e_wan22_t2v_lightx2v.json", "json:rows/2/queues/1/stages_s/save", 3.145, "{:.1f} s", E2E_WF_H200_SAVE + ", Queue 2, save stage"),
    ("e2e_wf.h200.24.save.stock.q1.total", "h200/e2e_lightx2v_033/card24_occupied_savevideo/e2e_wan22_t2v_lightx2v_card24.json", "json:rows/0/queues/0/total_s", 28.569, "{:.1f} s", E2E_WF_H200_24_SAVE + ", Queue 1, total"),
    ("e2e_wf.h200.24.save.stock.q2.total", "h200/e2e_lightx2v_033/card24_occupied_savevideo/e2e_wan22_t2v_lightx2v_card24.json", "json:rows/0/queues/1/total_s", 21.159, "{:.1f} s", E2E_WF_H200_24_SAVE + ", Queue 2, total"),
    ("e2e_wf.h200.24.save.stock.q2.high_noise", "h200/e2e_lightx2v_033/card24_occupied_savevideo/e2e_wan22_t2v_lightx2v_card24.json", "json:rows/0/queues/1/stages_s/sampler high-noise", 7.482, "{:.1f} s", E2E_WF_H200_24_SAVE + ", Queue 2, sampler high-noise stage"),
    ("e2e_wf.h200.24.save.stock.q2.low_noise", "h200/e2e_lightx2v_033/card24_occupied_savevideo/e2e_wan22_t2v_lightx2v_card24.json", "json:rows/0/queues/1/stages_s/sampler low-noise", 7.538, "{:.1f} s", E2E_WF_H200_24_SAVE + ", Queue 2, sampler low-noise stage"),
    ("e2e_wf.h200.24.save.level1_vae.q1.total", "h200/e2e_lightx2v_033/card24_occupied_savevideo/e2e_wan22_t2v_lightx2v_card24.json", "json:rows/1/queues/0/total_s", 42.882, "{:.1f} s", E2E_WF_H200_24_SAVE + ", Queue 1, total"),
    ("e2e_wf.h200.24.save.level1_vae.q2.total", "h200/e2e_lightx2v_033/card24_occupied_savevideo/e2e_wan22_t2v_lightx2v_card24.json", "json:rows/1/queues/1/total_s", 16.94, "{:.1f} s", E2E_WF_H200_24_SAVE + ", Queue 2, total"),
    ("e2e_wf.h200.24.save.level1_vae.q2.high_noise", "h200/e2e_lightx2v_033/card24_occupied_savevideo/e2e_wan22_t2v_lightx2v_card24.json", "json:rows/1/queues/1/stages_s/sampler high-noise", 5.369, "{:.1f} s", E2E_WF_H200_24_SAVE + ", Queue 2, sampler high-noise stage"),
    ("e2e_wf.h200.24.save.level1_vae.q2.low_noise", "h200/e2e_lightx2v_033/card24_occupied_savevideo/e2e_wan22_t2v_lightx2v_card24.json", "json:rows/1/queues/1/stages_s/sampler low-noise", 5.736, "{:.1f} s", E2E_WF_H200_24_SAVE + ", Queue 2, sampler low-noise stage"),
    ("family.h100.flux.run2.stock.time", "h100/family_033_flux_1024_run2/matrix.json", "json:chains/stock/times_s/0", 3.625, "{:.2f} s", FAMILY_FLUX_RUN2_H100),
    ("family.h100.flux.run2.stock_again.time", "h100/family_033_flux_1024_run2/matrix.json", "json:chains/stock_again/times_s/0", 3.809, "{:.2f} s", FAMILY_FLUX_RUN2_H100 + ", stock again after the other chains"),
    ("family.h100.flux.run2.shipped.time", "h100/family_033_flux_1024_run2/matrix.json", "json:chains/shipped/times_s/0", 2.896, "{:.2f} s", FAMILY_FLUX_RUN2_H100),
    ("family.h100.flux.run2.shipped.speedup", "h100/family_033_flux_1024_run2/matrix.json", "json:chains/shipped/speedup", 1.252, "{:.2f}x", FAMILY_FLUX_RUN2_H100),
    ("family.h100.flux.run2.shipped.cosine", "h100/family_033_flux_1024_run2/matrix.json", "json:chains/shipped/cosine", 0.999995, "{:.6f}", FAMILY_FLUX_RUN2_H100 + ", final latent vs stock"),
    ("family.h100.flux.run2.fp8_shipped.speedup", "h100/family_033_flux_1024_run2/matrix.json", "json:chains/fp8_shipped/speedup", 1.192, "{:.2f}x", FAMILY_FLUX_RUN2_H100),
    ("family.h100.flux.run2.fp8_shipped.cosine", "h100/family_033_flux_1024_run2/matrix.json", "json:chains/fp8_shipped/cosine", 0.999412, "{:.5f}", FAMILY_FLUX_RUN2_H100 + ", final latent vs stock"),
    # Multi-GPU worker lost mid-step (issue #29) -------------------------------------------------------------------
    ("mgkill.h100x2.next_prompt.seconds", "h100x2/reliability_multigpu_kill/reliability.json", "json:cases/0/prompts/2/seconds", 17.1, "{:.0f} s", MGKILL + ", the next prompt (new workers start and load)"),
    ("e2e.h100.level1_vae.decode", "h100/e2e_033_wan1.3B.md", "md:level1+vae/2|VAE decode", 2.852, "{:.2f} s", E2E + ", Level-1 + Accel VAE (defaults), VAE decode stage"),
    # Stop 43: H100 whole workflow with SaveVideo, GGUF, VAE options, save content, 24 GB allocator/aimdo, LTX-Video --
    ("e2e_wf.h100.save.stock.q1.total", "h100/e2e_lightx2v_033/whole_card_savevideo_gguf/e2e_wan22_t2v_lightx2v.json", "json:rows/0/queues/0/total_s", 30.826, "{:.1f} s", E2E_WF_H100_SAVE + ", Queue 1, total"),
    ("e2e_wf.h100.save.stock.q2.total", "h100/e2e_lightx2v_033/whole_card_savevideo_gguf/e2e_wan22_t2v_lightx2v.json", "json:rows/0/queues/1/total_s", 19.887, "{:.1f} s", E2E_WF_H100_SAVE + ", Queue 2, total"),
    ("e2e_wf.h100.save.stock.q2.high_noise", "h100/e2e_lightx2v_033/whole_card_savevideo_gguf/e2e_wan22_t2v_lightx2v.json", "json:rows/0/queues/1/stages_s/sampler high-noise", 7.221, "{:.1f} s", E2E_WF_H100_SAVE + ", Queue 2, sampler high-noise stage"),
    ("e2e_wf.h100.save.stock.q2.low_noise", "h100/e2e_lightx2v_033/whole_card_savevideo_gguf/e2e_wan22_t2v_lightx2v.json", "json:rows/0/queues/1/stages_s/sampler low-noise", 7.166, "{:.1f} s", E2E_WF_H100_SAVE + ", Queue 2, sampler low-noise stage"),
    ("e2e_wf.h100.save.stock.q2.vae_decode", "h100/e2e_lightx2v_033/whole_card_savevideo_gguf/e2e_wan22_t2v_lightx2v.json", "json:rows/0/queues/1/stages_s/VAE decode", 2.313, "{:.2f} s", E2E_WF_H100_SAVE + ", Queue 2, VAE decode stage"),
    ("e2e_wf.h100.save.stock.q2.save", "h100/e2e_lightx2v_033/whole_card_savevideo_gguf/e2e_wan22_t2v_lightx2v.json", "json:rows/0/queues/1/stages_s/save", 3.175, "{:.1f} s", E2E_WF_H100_SAVE + ", Queue 2, save stage"),
    ("e2e_wf.h100.save.gguf.q1.total", "h100/e2e_lightx2v_033/whole_card_savevideo_gguf/e2e_wan22_t2v_lightx2v.json", "json:rows/1/queues/0/total_s", 31.612, "{:.1f} s", E2E_WF_H100_SAVE + ", Queue 1, total"),
    ("e2e_wf.h100.save.gguf.q2.total", "h100/e2e_lightx2v_033/whole_card_savevideo_gguf/e2e_wan22_t2v_lightx2v.json", "json:rows/1/queues/1/total_s", 22.087, "{:.1f} s", E2E_WF_H100_SAVE + ", Queue 2, total"),
    ("e2e_wf.h100.save.gguf.q2.high_noise", "h100/e2e_lightx2v_033/whole_card_savevideo_gguf/e2e_wan22_t2v_lightx2v.json", "json:rows/1/queues/1/stages_s/sampler high-noise", 8.37, "{:.1f} s", E2E_WF_H100_SAVE + ", Queue 2, sampler high-noise stage"),
    ("e2e_wf.h100.save.gguf.q2.low_noise", "h100/e2e_lightx2v_033/whole_card_savevideo_gguf/e2e_wan22_t2v_lightx2v.json", "json:rows/1/queues/1/stages_s/sampler low-noise", 8.359, "{:.1f} s", E2E_WF_H100_SAVE + ", Queue 2, sampler low-noise stage"),
    ("e2e_wf.h100.save.gguf.q2.vae_decode", "h100/e2e_lightx2v_033/whole_card_savevideo_gguf/e2e_wan22_t2v_lightx2v.json", "json:rows/1/queues/1/stages_s/VAE decode", 2.27, "{:.2f} s", E2E_WF_H100_SAVE + ", Queue 2, VAE decode stage"),
    ("e2e_wf.h100.save.gguf.q2.save", "h100/e2e_lightx2v_033/whole_card_savevideo_gguf/e2e_wan22_t2v_lightx2v.json", "json:rows/1/queues/1/stages_s/save", 3.076, "{:.1f} s", E2E_WF_H100_SAVE + ", Queue 2, save stage"),
    ("e2e_wf.h100.save.gguf_level1.q1.total", "h100/e2e_lightx2v_033/whole_card_savevideo_gguf/e2e_wan22_t2v_lightx2v.json", "json:rows/2/queues/0/total_s", 37.547, "{:.1f} s", E2E_WF_H100_SAVE + ", Queue 1, total"),
    ("e2e_wf.h100.save.gguf_level1.q2.total", "h100/e2e_lightx2v_033/whole_card_savevideo_gguf/e2e_wan22_t2v_lightx2v.json", "json:rows/2/queues/1/total_s", 17.374, "{:.1f} s", E2E_WF_H100_SAVE + ", Queue 2, total"),
    ("e2e_wf.h100.save.gguf_level1.q2.high_noise", "h100/e2e_lightx2v_033/whole_card_savevideo_gguf/e2e_wan22_t2v_lightx2v.json", "json:rows/2/queues/1/stages_s/sampler high-noise", 5.754, "{:.1f} s", E2E_WF_H100_SAVE + ", Queue 2, sampler high-noise stage"),
    ("e2e_wf.h100.save.gguf_level1.q2.low_noise", "h100/e2e_lightx2v_033/whole_card_savevideo_gguf/e2e_wan22_t2v_lightx2v.json", "json:rows/2/queues/1/stages_s/sampler low-noise", 5.804, "{:.1f} s", E2E_WF_H100_SAVE + ", Queue 2, sampler low-noise stage"),
    ("e2e_wf.h100.save.gguf_level1.q2.vae_decode", "h100/e2e_lightx2v_033/whole_card_savevideo_gguf/e2e_wan22_t2v_lightx2v.json", "json:rows/2/queues/1/stages_s/VAE decode", 2.387, "{:.2f} s", E2E_WF_H100_SAVE + ", Queue 2, VAE decode stage"),
    ("e2e_wf.h100.save.gguf_level1.q2.save", "h100/e2e_lightx2v_033/whole_card_savevideo_gguf/e2e_wan22_t2v_lightx2v.json", "json:rows/2/queues/1/stages_s/save", 2.964, "{:.1f} s", E2E_WF_H100_SAVE + ", Queue 2, save stage"),
    ("e2e_wf.h100.save.level1.q1.total", "h100/e2e_lightx2v_033/whole_card_savevideo_level1/e2e_wan22_t2v_lightx2v.json", "json:rows/0/queues/0/total_s", 43.548, "{:.1f} s", E2E_WF_H100_SAVE + ", Queue 1, total"),
    ("e2e_wf.h100.save.level1.q2.total", "h100/e2e_lightx2v_033/whole_card_savevideo_level1/e2e_wan22_t2v_lightx2v.json", "json:rows/0/queues/1/total_s", 14.893, "{:.1f} s", E2E_WF_H100_SAVE + ", Queue 2, total"),
    ("e2e_wf.h100.save.level1.q2.high_noise", "h100/e2e_lightx2v_033/whole_card_savevideo_level1/e2e_wan22_t2v_lightx2v.json", "json:rows/0/queues/1/stages_s/sampler high-noise", 4.375, "{:.1f} s", E2E_WF_H100_SAVE + ", Queue 2, sampler high-noise stage"),
    ("e2e_wf.h100.save.level1.q2.low_noise", "h100/e2e_lightx2v_033/whole_card_savevideo_level1/e2e_wan22_t2v_lightx2v.json", "json:rows/0/queues/1/stages_s/sampler low-noise", 4.37, "{:.1f} s", E2E_WF_H100_SAVE + ", Queue 2, sampler low-noise stage"),
    ("e2e_wf.h100.save.level1.q2.vae_decode", "h100/e2e_lightx2v_033/whole_card_savevideo_level1/e2e_wan22_t2v_lightx2v.json", "json:rows/0/queues/1/stages_s/VAE decode", 2.464, "{:.2f} s", E2E_WF_H100_SAVE + ", Queue 2, VAE decode stage"),
    ("e2e_wf.h100.save.level1.q2.save", "h100/e2e_lightx2v_033/whole_card_savevideo_level1/e2e_wan22_t2v_lightx2v.json", "json:rows/0/queues/1/stages_s/save", 3.662, "{:.1f} s", E2E_WF_H100_SAVE + ", Queue 2, save stage"),
    ("e2e_wf.h100.save.level1_vae.q1.total", "h100/e2e_lightx2v_033/whole_card_savevideo_level1/e2e_wan22_t2v_lightx2v.json", "json:rows/1/queues/0/total_s", 44.734, "{:.1f} s", E2E_WF_H100_SAVE + ", Queue 1, total"),
    ("e2e_wf.h100.save.level1_vae.q2.total", "h100/e2e_lightx2v_033/whole_card_savevideo_level1/e2e_wan22_t2v_lightx2v.json", "json:rows/1/queues/1/total_s", 15.537, "{:.1f} s", E2E_WF_H100_SAVE + ", Queue 2, total"),
    ("e2e_wf.h100.save.level1_vae.q2.high_noise", "h100/e2e_lightx2v_033/whole_card_savevideo_level1/e2e_wan22_t2v_lightx2v.json", "json:rows/1/queues/1/stages_s/sampler high-noise", 4.406, "{:.1f} s", E2E_WF_H100_SAVE + ", Queue 2, sampler high-noise stage"),
    ("e2e_wf.h100.save.level1_vae.q2.low_noise", "h100/e2e_lightx2v_033/whole_card_savevideo_level1/e2e_wan22_t2v_lightx2v.json", "json:rows/1/queues/1/stages_s/sampler low-noise", 4.363, "{:.1f} s", E2E_WF_H100_SAVE + ", Queue 2, sampler low-noise stage"),
    ("e2e_wf.h100.save.level1_vae.q2.vae_decode", "h100/e2e_lightx2v_033/whole_card_savevideo_level1/e2e_wan22_t2v_lightx2v.json", "json:rows/1/queues/1/stages_s/VAE decode", 2.84, "{:.2f} s", E2E_WF_H100_SAVE + ", Queue 2, VAE decode stage"),
    ("e2e_wf.h100.save.level1_vae.q2.save", "h100/e2e_lightx2v_033/whole_card_savevideo_level1/e2e_wan22_t2v_lightx2v.json", "json:rows/1/queues/1/stages_s/save", 3.905, "{:.1f} s", E2E_WF_H100_SAVE + ", Queue 2, save stage"),
    ("e2e_wf.h100.vaeopt.level1.q2.total", "h100/e2e_lightx2v_033/whole_card_webp_vae_options/e2e_wan22_t2v_lightx2v.json", "json:rows/0/queues/1/total_s", 16.689, "{:.1f} s", E2E_WF_H100_FRESH + ", Queue 2, total"),
    ("e2e_wf.h100.vaeopt.level1.q2.vae_decode", "h100/e2e_lightx2v_033/whole_card_webp_vae_options/e2e_wan22_t2v_lightx2v.json", "json:rows/0/queues/1/stages_s/VAE decode", 2.339, "{:.2f} s", E2E_WF_H100_FRESH + ", Queue 2, VAE decode stage"),
    ("e2e_wf.h100.vaeopt.level1.q1.vae_decode", "h100/e2e_lightx2v_033/whole_card_webp_vae_options/e2e_wan22_t2v_lightx2v.json", "json:rows/0/queues/0/stages_s/VAE decode", 3.124, "{:.1f} s", E2E_WF_H100_FRESH + ", Queue 1, VAE decode stage (cuDNN searches included)"),
    ("e2e_wf.h100.vaeopt.level1_vae_fused.q2.total", "h100/e2e_lightx2v_033/whole_card_webp_vae_options/e2e_wan22_t2v_lightx2v.json", "json:rows/1/queues/1/total_s", 16.964, "{:.1f} s", E2E_WF_H100_FRESH + ", Queue 2, total"),
    ("e2e_wf.h100.vaeopt.level1_vae_fused.q2.vae_decode", "h100/e2e_lightx2v_033/whole_card_webp_vae_options/e2e_wan22_t2v_lightx2v.json", "json:rows/1/queues/1/stages_s/VAE decode", 2.173, "{:.2f} s", E2E_WF_H100_FRESH + ", Queue 2, VAE decode stage"),
    ("e2e_wf.h100.vaeopt.level1_vae_fused.q1.vae_decode", "h100/e2e_lightx2v_033/whole_card_webp_vae_options/e2e_wan22_t2v_lightx2v.json", "json:rows/1/queues/0/stages_s/VAE decode", 5.792, "{:.1f} s", E2E_WF_H100_FRESH + ", Queue 1, VAE decode stage (cuDNN searches included)"),
    ("e2e_wf.h100.vaeopt.level1_vae_fast.q2.total", "h100/e2e_lightx2v_033/whole_card_webp_vae_options/e2e_wan22_t2v_lightx2v.json", "json:rows/2/queues/1/total_s", 16.585, "{:.1f} s", E2E_WF_H100_FRESH + ", Queue 2, total"),
    ("e2e_wf.h100.vaeopt.level1_vae_fast.q2.vae_decode", "h100/e2e_lightx2v_033/whole_card_webp_vae_options/e2e_wan22_t2v_lightx2v.json", "json:rows/2/queues/1/stages_s/VAE decode", 2.263, "{:.2f} s", E2E_WF_H100_FRESH + ", Queue 2, VAE decode stage"),
    ("e2e_wf.h100.vaeopt.level1_vae_fast.q1.vae_decode", "h100/e2e_lightx2v_033/whole_card_webp_vae_options/e2e_wan22_t2v_lightx2v.json", "json:rows/2/queues/0/stages_s/VAE decode", 24.014, "{:.1f} s", E2E_WF_H100_FRESH + ", Queue 1, VAE decode stage (cuDNN searches included)"),
    ("save.h100.noise.run1", "h100/save_video_033/save_video.json", "json:clips/noise/seconds/0", 3.315, "{:.2f} s", SAVE_H100 + ", noise clip, save 1"),
    ("save.h100.noise.run2", "h100/save_video_033/save_video.json", "json:clips/noise/seconds/1", 3.278, "{:.2f} s", SAVE_H100 + ", noise clip, save 2"),
    ("save.h100.noise.mb", "h100/save_video_033/save_video.json", "json:clips/noise/bytes/0", 16.347237, "{:.1f} MB", SAVE_H100 + ", noise clip, file size (bytes in the file)", 1e-6),
    ("save.h100.smooth.run1", "h100/save_video_033/save_video.json", "json:clips/smooth/seconds/0", 1.856, "{:.2f} s", SAVE_H100 + ", smooth clip, save 1"),
    ("save.h100.smooth.run2", "h100/save_video_033/save_video.json", "json:clips/smooth/seconds/1", 1.986, "{:.2f} s", SAVE_H100 + ", smooth clip, save 2"),
    ("save.h100.smooth.mb", "h100/save_video_033/save_video.json", "json:clips/smooth/bytes/0", 2.243896, "{:.1f} MB", SAVE_H100 + ", smooth clip, file size (bytes in the file)", 1e-6),
    ("wf.h100.24.aimdo.stock.time", "h100/wf_lightx2v_033/sequential_24GB_occupied_aimdo_log_profile/matrix.json", "json:chains/stock/times_s/0", 15.778, "{:.1f} s", WF_H100_24_AIMDO + ", the slower of 2 timed runs"),
    ("wf.h100.24.aimdo.level1.time", "h100/wf_lightx2v_033/sequential_24GB_occupied_aimdo_log_profile/matrix.json", "json:chains/level1/times_s/0", 11.331, "{:.1f} s", WF_H100_24_AIMDO + ", the slower of 2 timed runs"),
    ("wf.h100.24.aimdo.level1.speedup", "h100/wf_lightx2v_033/sequential_24GB_occupied_aimdo_log_profile/matrix.json", "json:chains/level1/speedup", 1.392, "{:.2f}x", WF_H100_24_AIMDO),
    ("wf.h100.24.aimdo.level1.cosine", "h100/wf_lightx2v_033/sequential_24GB_occupied_aimdo_log_profile/matrix.json", "json:chains/level1/cosine", 0.999927, "{:.5f}", WF_H100_24_AIMDO + ", final latent vs stock"),
    ("wf.h100.24.aimdo.profile.level1.wall_ms", "h100/wf_lightx2v_033/sequential_24GB_occupied_aimdo_log_profile/matrix.json", "json:chains/level1/profile/wall_ms", 11.6762, "{:.1f} s", WF_H100_24_AIMDO + ", level1, one profiled run: wall time (ms in the file)", 0.001),
    ("wf.h100.24.native.stock.time", "h100/wf_lightx2v_033/sequential_24GB_occupied_native_allocator_profile/matrix.json", "json:chains/stock/times_s/0", 17.336, "{:.1f} s", WF_H100_24_NATIVE),
    ("wf.h100.24.native.stock_again.time", "h100/wf_lightx2v_033/sequential_24GB_occupied_native_allocator_profile/matrix.json", "json:chains/stock_again/times_s/0", 16.912, "{:.1f} s", WF_H100_24_NATIVE + ", stock again at the end"),
    ("wf.h100.24.native.level1.time", "h100/wf_lightx2v_033/sequential_24GB_occupied_native_allocator_profile/matrix.json", "json:chains/level1/times_s/0", 11.471, "{:.1f} s", WF_H100_24_NATIVE),
    ("wf.h100.24.native.profile.level1.wall_ms", "h100/wf_lightx2v_033/sequential_24GB_occupied_native_allocator_profile/matrix.json", "json:chains/level1/profile/wall_ms", 12.2848, "{:.1f} s", WF_H100_24_NATIVE + ", level1, one profiled run: wall time (ms in the file)", 0.001),
    ("wf.h100.24.native.profile.level1.sync_ms", "h100/wf_lightx2v_033/sequential_24GB_occupied_native_allocator_profile/matrix.json", "json:chains/level1/profile/host_top/0/2", 2.82815, "{:.1f} s", WF_H100_24_NATIVE + ", level1, one profiled run: host time waiting in cudaStreamSynchronize (ms in the file)", 0.001),
    ("wf.h100.80.gguf_pod.time", "h100/wf_lightx2v_033/gguf_pod_80GB/matrix.json", "json:chains/gguf_pod/times_s/1", 16.952, "{:.1f} s", WF_H100_80 + ", Q8_0 GGUF experts through ComfyUI-GGUF's Unet Loader (GGUF/Advanced) with patch_on_device, stock, the slower of 2"),
    ("wf.h100.80.gguf_pod_level1.time", "h100/wf_lightx2v_033/gguf_pod_80GB/matrix.json", "json:chains/gguf_pod_level1/times_s/1", 11.866, "{:.1f} s", WF_H100_80 + ", the same -> Accel Wan Level-1, the slower of 2"),
    ("family.h100.ltxv_cc.stock.time1", "h100/family_033_ltxv_core_compile/matrix.json", "json:chains/stock/times_s/0", 3.455, "{:.2f} s", FAMILY_LTXV_CC + ", stock, timed run 1"),
    ("family.h100.ltxv_cc.stock.time2", "h100/family_033_ltxv_core_compile/matrix.json", "json:chains/stock/times_s/1", 3.089, "{:.2f} s", FAMILY_LTXV_CC + ", stock, timed run 2"),
    ("family.h100.ltxv_cc.attention.time1", "h100/family_033_ltxv_core_compile/matrix.json", "json:chains/attention/times_s/0", 2.631, "{:.2f} s", FAMILY_LTXV_CC + ", attention, timed run 1"),
    ("family.h100.ltxv_cc.attention.time2", "h100/family_033_ltxv_core_compile/matrix.json", "json:chains/attention/times_s/1", 2.605, "{:.2f} s", FAMILY_LTXV_CC + ", attention, timed run 2"),
    ("family.h100.ltxv_cc.shipped.time1", "h100/family_033_ltxv_core_compile/matrix.json", "json:chains/shipped/times_s/0", 2.372, "{:.2f} s", FAMILY_LTXV_CC + ", shipped, timed run 1"),
    ("family.h100.ltxv_cc.shipped.time2", "h100/family_033_ltxv_core_compile/matrix.json", "json:chains/shipped/times_s/1", 2.383, "{:.2f} s", FAMILY_LTXV_CC + ", shipped, timed run 2"),
    ("family.h100.ltxv_cc.core_compile.time1", "h100/family_033_ltxv_core_compile/matrix.json", "json:chains/core_compile/times_s/0", 2.878, "{:.2f} s", FAMILY_LTXV_CC + ", core_compile, timed run 1"),
    ("family.h100.ltxv_cc.core_compile.time2", "h100/family_033_ltxv_core_compile/matrix.json", "json:chains/core_compile/times_s/1", 2.901, "{:.2f} s", FAMILY_LTXV_CC + ", core_compile, timed run 2"),
    ("family.h100.ltxv_cc.fp8_shipped.time1", "h100/family_033_ltxv_core_compile/matrix.json", "json:chains/fp8_shipped/times_s/0", 2.1, "{:.2f} s", FAMILY_LTXV_CC + ", fp8_shipped, timed run 1"),
    ("family.h100.ltxv_cc.fp8_shipped.time2", "h100/family_033_ltxv_core_compile/matrix.json", "json:chains/fp8_shipped/times_s/1", 2.094, "{:.2f} s", FAMILY_LTXV_CC + ", fp8_shipped, timed run 2"),
    ("family.h100.ltxv_cc.stock_again.time1", "h100/family_033_ltxv_core_compile/matrix.json", "json:chains/stock_again/times_s/0", 3.092, "{:.2f} s", FAMILY_LTXV_CC + ", stock_again, timed run 1"),
    ("family.h100.ltxv_cc.stock_again.time2", "h100/family_033_ltxv_core_compile/matrix.json", "json:chains/stock_again/times_s/1", 3.122, "{:.2f} s", FAMILY_LTXV_CC + ", stock_again, timed run 2"),
    ("family.h100.ltxv_cc.shipped.cosine", "h100/family_033_ltxv_core_compile/matrix.json", "json:chains/shipped/cosine", 0.999872, "{:.5f}", FAMILY_LTXV_CC + ", exact chain, final latent vs stock"),
    ("family.h100.ltxv_cc.fp8_shipped.cosine", "h100/family_033_ltxv_core_compile/matrix.json", "json:chains/fp8_shipped/cosine", 0.998707, "{:.5f}", FAMILY_LTXV_CC + ", FP8 loader chain, final latent vs stock"),
    ("family.h100.ltxv_cc.core_compile.first_run", "h100/family_033_ltxv_core_compile/matrix.json", "json:chains/core_compile/first_run_s", 52.19, "{:.0f} s", FAMILY_LTXV_CC + ", ComfyUI TorchCompileModel, first run"),
    ("family.h100.ltxv_cc.shipped.first_run", "h100/family_033_ltxv_core_compile/matrix.json", "json:chains/shipped/first_run_s", 13.27, "{:.0f} s", FAMILY_LTXV_CC + ", exact chain, first run"),
    ("hv720.h100.65f.run1.stock.time", "h100/sparse_033_hunyuan_video/hv720_65f/matrix.json", "json:chains/stock/times_s/0", 29.536, "{:.1f} s", HV_SPARSE_65 + ", stock, one timed run (run1)"),
    ("hv720.h100.65f.run1.shipped.time", "h100/sparse_033_hunyuan_video/hv720_65f/matrix.json", "json:chains/shipped/times_s/0", 16.492, "{:.1f} s", HV_SPARSE_65 + ", shipped, one timed run (run1)"),
    ("hv720.h100.65f.run1.sparse_compile.time", "h100/sparse_033_hunyuan_video/hv720_65f/matrix.json", "json:chains/sparse_compile/times_s/0", 13.177, "{:.1f} s", HV_SPARSE_65 + ", sparse_compile, one timed run (run1)"),
    ("hv720.h100.65f.run1.shipped.speedup", "h100/sparse_033_hunyuan_video/hv720_65f/matrix.json", "json:chains/shipped/speedup", 1.791, "{:.2f}x", HV_SPARSE_65 + ", shipped vs stock (run1)"),
    ("hv720.h100.65f.run1.sparse_compile.speedup", "h100/sparse_033_hunyuan_video/hv720_65f/matrix.json", "json:chains/sparse_compile/speedup", 2.241, "{:.2f}x", HV_SPARSE_65 + ", sparse_compile vs stock (run1)"),
    ("hv720.h100.65f.run2.stock.time", "h100/sparse_033_hunyuan_video/hv720_65f_run2/matrix.json", "json:chains/stock/times_s/0", 29.346, "{:.1f} s", HV_SPARSE_65 + ", stock, one timed run (run2)"),
    ("hv720.h100.65f.run2.shipped.time", "h100/sparse_033_hunyuan_video/hv720_65f_run2/matrix.json", "json:chains/shipped/times_s/0", 16.54, "{:.1f} s", HV_SPARSE_65 + ", shipped, one timed run (run2)"),
    ("hv720.h100.65f.run2.sparse_compile.time", "h100/sparse_033_hunyuan_video/hv720_65f_run2/matrix.json", "json:chains/sparse_compile/times_s/0", 13.24, "{:.1f} s", HV_SPARSE_65 + ", sparse_compile, one timed run (run2)"),
    ("hv720.h100.65f.run2.shipped.speedup", "h100/sparse_033_hunyuan_video/hv720_65f_run2/matrix.json", "json:chains/shipped/speedup", 1.774, "{:.2f}x", HV_SPARSE_65 + ", shipped vs stock (run2)"),
    ("hv720.h100.65f.run2.sparse_compile.speedup", "h100/sparse_033_hunyuan_video/hv720_65f_run2/matrix.json", "json:chains/sparse_compile/speedup", 2.216, "{:.2f}x", HV_SPARSE_65 + ", sparse_compile vs stock (run2)"),
    ("hv720.h100.65f.run1.sparse_compile.cosine", "h100/sparse_033_hunyuan_video/hv720_65f/matrix.json", "json:chains/sparse_compile/cosine", 0.999746, "{:.5f}", HV_SPARSE_65 + ", radial_sparse chain, final latent vs stock"),
    ("hv720.h100.129f.stock.time", "h100/sparse_033_hunyuan_video/hv720_129f/matrix.json", "json:chains/stock/times_s/0", 98.905, "{:.1f} s", HV_SPARSE_129 + ", stock, one timed run"),
    ("hv720.h100.129f.sparse_compile.time", "h100/sparse_033_hunyuan_video/hv720_129f/matrix.json", "json:chains/sparse_compile/times_s/0", 36.178, "{:.1f} s", HV_SPARSE_129 + ", sparse_compile, one timed run"),
    ("hv720.h100.129f.sparse_compile.speedup", "h100/sparse_033_hunyuan_video/hv720_129f/matrix.json", "json:chains/sparse_compile/speedup", 2.734, "{:.2f}x", HV_SPARSE_129 + ", radial_sparse chain vs stock"),
    ("hv720.h100.129f.sparse_compile.first_run", "h100/sparse_033_hunyuan_video/hv720_129f/matrix.json", "json:chains/sparse_compile/first_run_s", 56.89, "{:.0f} s", HV_SPARSE_129 + ", radial_sparse chain, first run (compiles)"),
    ("hv720.h100.129f.sparse_compile.cosine", "h100/sparse_033_hunyuan_video/hv720_129f/matrix.json", "json:chains/sparse_compile/cosine", 0.999768, "{:.5f}", HV_SPARSE_129 + ", radial_sparse chain, final latent vs stock"),
    ("hv720.h100.129f.exact.stock.time", "h100/sparse_033_hunyuan_video/hv720_129f_exact/matrix.json", "json:chains/stock/times_s/0", 98.886, "{:.1f} s", HV_SPARSE_129.replace(", after the int32-offset fix", ", another H100") + ", stock, one timed run"),
    ("hv720.h100.129f.exact.shipped.time", "h100/sparse_033_hunyuan_video/hv720_129f_exact/matrix.json", "json:chains/shipped/times_s/0", 53.511, "{:.1f} s", HV_SPARSE_129.replace(", after the int32-offset fix", ", another H100") + ", the exact chain, one timed run"),
    ("hv720.h100.129f.exact.shipped.speedup", "h100/sparse_033_hunyuan_video/hv720_129f_exact/matrix.json", "json:chains/shipped/speedup", 1.848, "{:.2f}x", HV_SPARSE_129.replace(", after the int32-offset fix", ", another H100") + ", the exact chain vs stock"),
    ("sparse_hv.h100.720p129f.fa3.ms", "h100/sparse_033_hunyuan_video/kernel_720p_129f/sparse_attention.json", "json:rows/0/ms", 250.14089965820312, "{:.0f} ms", HV_SPARSE_KERNEL + ", FA3 dense"),
    ("sparse_hv.h100.720p129f.flex.ms", "h100/sparse_033_hunyuan_video/kernel_720p_129f/sparse_attention.json", "json:rows/2/ms", 94.92082977294922, "{:.0f} ms", HV_SPARSE_KERNEL + ", radial flex at decay 0.2"),
    ("sparse_hv.h100.720p129f.flex.speedup", "h100/sparse_033_hunyuan_video/kernel_720p_129f/sparse_attention.json", "json:rows/2/speedup_vs_fa3", 2.6352582489695946, "{:.2f}x", HV_SPARSE_KERNEL + ", radial flex vs FA3 dense"),
    ("sparse_hv.h100.720p129f.flex.sparsity", "h100/sparse_033_hunyuan_video/kernel_720p_129f/sparse_attention.json", "json:rows/2/sparsity", 82.33744393312867, "{:.1f}%", HV_SPARSE_KERNEL + ", the pattern's sparsity (fraction in the file)", 100),
    ("e2e_wf.h100.peers.stock.q1.total", "h100/e2e_lightx2v_033/whole_card_savevideo_peers/e2e_wan22_t2v_lightx2v.json", "json:rows/0/queues/0/total_s", 32.884, "{:.1f} s", E2E_WF_H100_SAVE + ", Queue 1, total"),
    ("e2e_wf.h100.peers.stock.q2.total", "h100/e2e_lightx2v_033/whole_card_savevideo_peers/e2e_wan22_t2v_lightx2v.json", "json:rows/0/queues/1/total_s", 20.292, "{:.1f} s", E2E_WF_H100_SAVE + ", Queue 2, total"),
    ("e2e_wf.h100.peers.stock.q2.high_noise", "h100/e2e_lightx2v_033/whole_card_savevideo_peers/e2e_wan22_t2v_lightx2v.json", "json:rows/0/queues/1/stages_s/sampler high-noise", 7.235, "{:.1f} s", E2E_WF_H100_SAVE + ", Queue 2, sampler high-noise stage"),
    ("e2e_wf.h100.peers.stock.q2.low_noise", "h100/e2e_lightx2v_033/whole_card_savevideo_peers/e2e_wan22_t2v_lightx2v.json", "json:rows/0/queues/1/stages_s/sampler low-noise", 7.187, "{:.1f} s", E2E_WF_H100_SAVE + ", Queue 2, sampler low-noise stage"),
    ("e2e_wf.h100.peers.stock.q2.vae_decode", "h100/e2e_lightx2v_033/whole_card_savevideo_peers/e2e_wan22_t2v_lightx2v.json", "json:rows/0/queues/1/stages_s/VAE decode", 2.448, "{:.2f} s", E2E_WF_H100_SAVE + ", Queue 2, VAE decode stage"),
    ("e2e_wf.h100.peers.stock.q2.save", "h100/e2e_lightx2v_033/whole_card_savevideo_peers/e2e_wan22_t2v_lightx2v.json", "json:rows/0/queues/1/stages_s/save", 3.411, "{:.1f} s", E2E_WF_H100_SAVE + ", Queue 2, save stage"),
    ("e2e_wf.h100.peers.kj_sage_compile.q1.total", "h100/e2e_lightx2v_033/whole_card_savevideo_peers/e2e_wan22_t2v_lightx2v.json", "json:rows/1/queues/0/total_s", 53.934, "{:.1f} s", E2E_WF_H100_SAVE + ", Queue 1, total"),
    ("e2e_wf.h100.peers.kj_sage_compile.q2.total", "h100/e2e_lightx2v_033/whole_card_savevideo_peers/e2e_wan22_t2v_lightx2v.json", "json:rows/1/queues/1/total_s", 17.698, "{:.1f} s", E2E_WF_H100_SAVE + ", Queue 2, total"),
    ("e2e_wf.h100.peers.kj_sage_compile.q2.high_noise", "h100/e2e_lightx2v_033/whole_card_savevideo_peers/e2e_wan22_t2v_lightx2v.json", "json:rows/1/queues/1/stages_s/sampler high-noise", 6.108, "{:.1f} s", E2E_WF_H100_SAVE + ", Queue 2, sampler high-noise stage"),
    ("e2e_wf.h100.peers.kj_sage_compile.q2.low_noise", "h100/e2e_lightx2v_033/whole_card_savevideo_peers/e2e_wan22_t2v_lightx2v.json", "json:rows/1/queues/1/stages_s/sampler low-noise", 6.088, "{:.1f} s", E2E_WF_H100_SAVE + ", Queue 2, sampler low-noise stage"),
    ("e2e_wf.h100.peers.kj_sage_compile.q2.vae_decode", "h100/e2e_lightx2v_033/whole_card_savevideo_peers/e2e_wan22_t2v_lightx2v.json", "json:rows/1/queues/1/stages_s/VAE decode", 2.295, "{:.2f} s", E2E_WF_H100_SAVE + ", Queue 2, VAE decode stage"),
    ("e2e_wf.h100.peers.kj_sage_compile.q2.save", "h100/e2e_lightx2v_033/whole_card_savevideo_peers/e2e_wan22_t2v_lightx2v.json", "json:rows/1/queues/1/stages_s/save", 3.189, "{:.1f} s", E2E_WF_H100_SAVE + ", Queue 2, save stage"),
    ("e2e_wf.h100.int8vae.stock.q1.total", "h100/e2e_lightx2v_033/whole_card_savevideo_int8_vae/e2e_wan22_t2v_lightx2v.json", "json:rows/0/queues/0/total_s", 28.324, "{:.1f} s", E2E_WF_H100_SAVE + ", Queue 1, total"),
    ("e2e_wf.h100.int8vae.stock.q2.total", "h100/e2e_lightx2v_033/whole_card_savevideo_int8_vae/e2e_wan22_t2v_lightx2v.json", "json:rows/0/queues/1/total_s", 20.786, "{:.1f} s", E2E_WF_H100_SAVE + ", Queue 2, total"),
    ("e2e_wf.h100.int8vae.stock.q2.high_noise", "h100/e2e_lightx2v_033/whole_card_savevideo_int8_vae/e2e_wan22_t2v_lightx2v.json", "json:rows/0/queues/1/stages_s/sampler high-noise", 7.159, "{:.1f} s", E2E_WF_H100_SAVE + ", Queue 2, sampler high-noise stage"),
    ("e2e_wf.h100.int8vae.stock.q2.low_noise", "h100/e2e_lightx2v_033/whole_card_savevideo_int8_vae/e2e_wan22_t2v_lightx2v.json", "json:rows/0/queues/1/stages_s/sampler low-noise", 7.145, "{:.1f} s", E2E_WF_H100_SAVE + ", Queue 2, sampler low-noise stage"),
    ("e2e_wf.h100.int8vae.stock.q2.vae_decode", "h100/e2e_lightx2v_033/whole_card_savevideo_int8_vae/e2e_wan22_t2v_lightx2v.json", "json:rows/0/queues/1/stages_s/VAE decode", 2.573, "{:.2f} s", E2E_WF_H100_SAVE + ", Queue 2, VAE decode stage"),
    ("e2e_wf.h100.int8vae.stock.q2.save", "h100/e2e_lightx2v_033/whole_card_savevideo_int8_vae/e2e_wan22_t2v_lightx2v.json", "json:rows/0/queues/1/stages_s/save", 3.898, "{:.1f} s", E2E_WF_H100_SAVE + ", Queue 2, save stage"),
    ("e2e_wf.h100.int8vae.core_ck_int8.q1.total", "h100/e2e_lightx2v_033/whole_card_savevideo_int8_vae/e2e_wan22_t2v_lightx2v.json", "json:rows/1/queues/0/total_s", 26.0, "{:.1f} s", E2E_WF_H100_SAVE + ", Queue 1, total"),
    ("e2e_wf.h100.int8vae.core_ck_int8.q2.total", "h100/e2e_lightx2v_033/whole_card_savevideo_int8_vae/e2e_wan22_t2v_lightx2v.json", "json:rows/1/queues/1/total_s", 17.496, "{:.1f} s", E2E_WF_H100_SAVE + ", Queue 2, total"),
    ("e2e_wf.h100.int8vae.core_ck_int8.q2.high_noise", "h100/e2e_lightx2v_033/whole_card_savevideo_int8_vae/e2e_wan22_t2v_lightx2v.json", "json:rows/1/queues/1/stages_s/sampler high-noise", 6.011, "{:.1f} s", E2E_WF_H100_SAVE + ", Queue 2, sampler high-noise stage"),
    ("e2e_wf.h100.int8vae.core_ck_int8.q2.low_noise", "h100/e2e_lightx2v_033/whole_card_savevideo_int8_vae/e2e_wan22_t2v_lightx2v.json", "json:rows/1/queues/1/stages_s/sampler low-noise", 5.965, "{:.1f} s", E2E_WF_H100_SAVE + ", Queue 2, sampler low-noise stage"),
    ("e2e_wf.h100.int8vae.core_ck_int8.q2.vae_decode", "h100/e2e_lightx2v_033/whole_card_savevideo_int8_vae/e2e_wan22_t2v_lightx2v.json", "json:rows/1/queues/1/stages_s/VAE decode", 2.299, "{:.2f} s", E2E_WF_H100_SAVE + ", Queue 2, VAE decode stage"),
    ("e2e_wf.h100.int8vae.core_ck_int8.q2.save", "h100/e2e_lightx2v_033/whole_card_savevideo_int8_vae/e2e_wan22_t2v_lightx2v.json", "json:rows/1/queues/1/stages_s/save", 2.82, "{:.1f} s", E2E_WF_H100_SAVE + ", Queue 2, save stage"),
    ("e2e_wf.h100.int8vae.level1_vae.q1.total", "h100/e2e_lightx2v_033/whole_card_savevideo_int8_vae/e2e_wan22_t2v_lightx2v.json", "json:rows/2/queues/0/total_s", 41.559, "{:.1f} s", E2E_WF_H100_SAVE + ", Queue 1, total"),
    ("e2e_wf.h100.int8vae.level1_vae.q2.total", "h100/e2e_lightx2v_033/whole_card_savevideo_int8_vae/e2e_wan22_t2v_lightx2v.json", "json:rows/2/queues/1/total_s", 14.406, "{:.1f} s", E2E_WF_H100_SAVE + ", Queue 2, total"),
    ("e2e_wf.h100.int8vae.level1_vae.q2.high_noise", "h100/e2e_lightx2v_033/whole_card_savevideo_int8_vae/e2e_wan22_t2v_lightx2v.json", "json:rows/2/queues/1/stages_s/sampler high-noise", 4.353, "{:.1f} s", E2E_WF_H100_SAVE + ", Queue 2, sampler high-noise stage"),
    ("e2e_wf.h100.int8vae.level1_vae.q2.low_noise", "h100/e2e_lightx2v_033/whole_card_savevideo_int8_vae/e2e_wan22_t2v_lightx2v.json", "json:rows/2/queues/1/stages_s/sampler low-noise", 4.268, "{:.1f} s", E2E_WF_H100_SAVE + ", Queue 2, sampler low-noise stage"),
    ("e2e_wf.h100.int8vae.level1_vae.q2.vae_decode", "h100/e2e_lightx2v_033/whole_card_savevideo_int8_vae/e2e_wan22_t2v_lightx2v.json", "json:rows/2/queues/1/stages_s/VAE decode", 2.438, "{:.2f} s", E2E_WF_H100_SAVE + ", Queue 2, VAE decode stage"),
    ("e2e_wf.h100.int8vae.level1_vae.q2.save", "h100/e2e_lightx2v_033/whole_card_savevideo_int8_vae/e2e_wan22_t2v_lightx2v.json", "json:rows/2/queues/1/stages_s/save", 3.326, "{:.1f} s", E2E_WF_H100_SAVE + ", Queue 2, save stage"),
    ("e2e_wf.h100.save24.stock.q1.total", "h100/e2e_lightx2v_033/card24_occupied_savevideo/e2e_wan22_t2v_lightx2v_card24.json", "json:rows/0/queues/0/total_s", 27.33, "{:.1f} s", E2E_WF_H100_24_SAVE + ", Queue 1, total"),
    ("e2e_wf.h100.save24.stock.q2.total", "h100/e2e_lightx2v_033/card24_occupied_savevideo/e2e_wan22_t2v_lightx2v_card24.json", "json:rows/0/queues/1/total_s", 21.145, "{:.1f} s", E2E_WF_H100_24_SAVE + ", Queue 2, total"),
    ("e2e_wf.h100.save24.stock.q2.high_noise", "h100/e2e_lightx2v_033/card24_occupied_savevideo/e2e_wan22_t2v_lightx2v_card24.json", "json:rows/0/queues/1/stages_s/sampler high-noise", 7.619, "{:.1f} s", E2E_WF_H100_24_SAVE + ", Queue 2, sampler high-noise stage"),
    ("e2e_wf.h100.save24.stock.q2.low_noise", "h100/e2e_lightx2v_033/card24_occupied_savevideo/e2e_wan22_t2v_lightx2v_card24.json", "json:rows/0/queues/1/stages_s/sampler low-noise", 7.666, "{:.1f} s", E2E_WF_H100_24_SAVE + ", Queue 2, sampler low-noise stage"),
    ("e2e_wf.h100.save24.stock.q2.vae_decode", "h100/e2e_lightx2v_033/card24_occupied_savevideo/e2e_wan22_t2v_lightx2v_card24.json", "json:rows/0/queues/1/stages_s/VAE decode", 2.497, "{:.2f} s", E2E_WF_H100_24_SAVE + ", Queue 2, VAE decode stage"),
    ("e2e_wf.h100.save24.stock.q2.save", "h100/e2e_lightx2v_033/card24_occupied_savevideo/e2e_wan22_t2v_lightx2v_card24.json", "json:rows/0/queues/1/stages_s/save", 3.353, "{:.1f} s", E2E_WF_H100_24_SAVE + ", Queue 2, save stage"),
    ("e2e_wf.h100.save24.level1.q1.total", "h100/e2e_lightx2v_033/card24_occupied_savevideo/e2e_wan22_t2v_lightx2v_card24.json", "json:rows/1/queues/0/total_s", 42.331, "{:.1f} s", E2E_WF_H100_24_SAVE + ", Queue 1, total"),
    ("e2e_wf.h100.save24.level1.q2.total", "h100/e2e_lightx2v_033/card24_occupied_savevideo/e2e_wan22_t2v_lightx2v_card24.json", "json:rows/1/queues/1/total_s", 17.809, "{:.1f} s", E2E_WF_H100_24_SAVE + ", Queue 2, total"),
    ("e2e_wf.h100.save24.level1.q2.high_noise", "h100/e2e_lightx2v_033/card24_occupied_savevideo/e2e_wan22_t2v_lightx2v_card24.json", "json:rows/1/queues/1/stages_s/sampler high-noise", 5.638, "{:.1f} s", E2E_WF_H100_24_SAVE + ", Queue 2, sampler high-noise stage"),
    ("e2e_wf.h100.save24.level1.q2.low_noise", "h100/e2e_lightx2v_033/card24_occupied_savevideo/e2e_wan22_t2v_lightx2v_card24.json", "json:rows/1/queues/1/stages_s/sampler low-noise", 5.624, "{:.1f} s", E2E_WF_H100_24_SAVE + ", Queue 2, sampler low-noise stage"),
    ("e2e_wf.h100.save24.level1.q2.vae_decode", "h100/e2e_lightx2v_033/card24_occupied_savevideo/e2e_wan22_t2v_lightx2v_card24.json", "json:rows/1/queues/1/stages_s/VAE decode", 2.521, "{:.2f} s", E2E_WF_H100_24_SAVE + ", Queue 2, VAE decode stage"),
    ("e2e_wf.h100.save24.level1.q2.save", "h100/e2e_lightx2v_033/card24_occupied_savevideo/e2e_wan22_t2v_lightx2v_card24.json", "json:rows/1/queues/1/stages_s/save", 3.991, "{:.1f} s", E2E_WF_H100_24_SAVE + ", Queue 2, save stage"),
    ("sparse_hv_fa4.h100.720p129f.fa3.ms", "h100/sparse_033_hunyuan_video/kernel_fa4/sparse_attention.json", "json:rows/0/ms", 250.30812072753906, "{:.0f} ms", HV_SPARSE_KERNEL_FA4 + ", FA3 dense"),
    ("sparse_hv_fa4.h100.720p129f.flex.ms", "h100/sparse_033_hunyuan_video/kernel_fa4/sparse_attention.json", "json:rows/2/ms", 94.33296203613281, "{:.0f} ms", HV_SPARSE_KERNEL_FA4 + ", radial flex at decay 0.2"),
    ("sparse_hv_fa4.h100.720p129f.fa4.ms", "h100/sparse_033_hunyuan_video/kernel_fa4/sparse_attention.json", "json:rows/3/ms", 49.08272171020508, "{:.0f} ms", HV_SPARSE_KERNEL_FA4 + ", radial FA4 block-sparse at decay 0.2"),
    ("sparse_hv_fa4.h100.720p129f.fa4.speedup", "h100/sparse_033_hunyuan_video/kernel_fa4/sparse_attention.json", "json:rows/3/speedup_vs_fa3", 5.099719657060012, "{:.2f}x", HV_SPARSE_KERNEL_FA4 + ", radial FA4 block-sparse vs FA3 dense"),
    ("sparse_hv_fa4.h100.720p129f.fa4.cosine", "h100/sparse_033_hunyuan_video/kernel_fa4/sparse_attention.json", "json:rows/3/vs_masked_reference/cosine", 0.9999968521217087, "{:.6f}", HV_SPARSE_KERNEL_FA4 + ", radial FA4 output vs the dense masked fp32 reference"),
    ("sparse_hv_fa4.h100.wan720p.fa4.speedup", "h100/sparse_033_hunyuan_video/kernel_fa4/sparse_attention.json", "json:rows/7/speedup_vs_fa3", 3.29855392456805, "{:.2f}x", WAN_SPARSE_KERNEL_FA4 + ", radial FA4 block-sparse vs FA3 dense"),
    ("hv720_fa4.h100.65f.stock.time", "h100/sparse_033_hunyuan_video/hv720_65f_fa4/matrix.json", "json:chains/stock/times_s/0", 29.023, "{:.1f} s", HV_SPARSE_FA4_65 + ", stock, one timed run"),
    ("hv720_fa4.h100.65f.shipped.time", "h100/sparse_033_hunyuan_video/hv720_65f_fa4/matrix.json", "json:chains/shipped/times_s/0", 16.272, "{:.1f} s", HV_SPARSE_FA4_65 + ", shipped, one timed run"),
    ("hv720_fa4.h100.65f.shipped.speedup", "h100/sparse_033_hunyuan_video/hv720_65f_fa4/matrix.json", "json:chains/shipped/speedup", 1.784, "{:.2f}x", HV_SPARSE_FA4_65 + ", shipped vs stock"),
    ("hv720_fa4.h100.65f.sparse_compile.time", "h100/sparse_033_hunyuan_video/hv720_65f_fa4/matrix.json", "json:chains/sparse_compile/times_s/0", 10.837, "{:.1f} s", HV_SPARSE_FA4_65 + ", sparse_compile, one timed run"),
    ("hv720_fa4.h100.65f.sparse_compile.speedup", "h100/sparse_033_hunyuan_video/hv720_65f_fa4/matrix.json", "json:chains/sparse_compile/speedup", 2.678, "{:.2f}x", HV_SPARSE_FA4_65 + ", sparse_compile vs stock"),
    ("hv720_fa4.h100.65f.sparse_compile.first_run", "h100/sparse_033_hunyuan_video/hv720_65f_fa4/matrix.json", "json:chains/sparse_compile/first_run_s", 20.35, "{:.0f} s", HV_SPARSE_FA4_65 + ", radial_sparse chain, first run (compiles)"),
    ("hv720_fa4.h100.65f.sparse_compile.cosine", "h100/sparse_033_hunyuan_video/hv720_65f_fa4/matrix.json", "json:chains/sparse_compile/cosine", 0.999746, "{:.5f}", HV_SPARSE_FA4_65 + ", radial_sparse chain, final latent vs stock"),
    ("hv720_fa4.h100.129f.stock.time", "h100/sparse_033_hunyuan_video/hv720_129f_fa4/matrix.json", "json:chains/stock/times_s/0", 98.754, "{:.1f} s", HV_SPARSE_FA4_129 + ", stock, one timed run"),
    ("hv720_fa4.h100.129f.sparse_compile.time", "h100/sparse_033_hunyuan_video/hv720_129f_fa4/matrix.json", "json:chains/sparse_compile/times_s/0", 30.559, "{:.1f} s", HV_SPARSE_FA4_129 + ", sparse_compile, one timed run"),
    ("hv720_fa4.h100.129f.sparse_compile.speedup", "h100/sparse_033_hunyuan_video/hv720_129f_fa4/matrix.json", "json:chains/sparse_compile/speedup", 3.232, "{:.2f}x", HV_SPARSE_FA4_129 + ", sparse_compile vs stock"),
    ("hv720_fa4.h100.129f.sparse_compile.first_run", "h100/sparse_033_hunyuan_video/hv720_129f_fa4/matrix.json", "json:chains/sparse_compile/first_run_s", 46.65, "{:.0f} s", HV_SPARSE_FA4_129 + ", radial_sparse chain, first run (compiles)"),
    ("hv720_fa4.h100.129f.sparse_compile.cosine", "h100/sparse_033_hunyuan_video/hv720_129f_fa4/matrix.json", "json:chains/sparse_compile/cosine", 0.999768, "{:.5f}", HV_SPARSE_FA4_129 + ", radial_sparse chain, final latent vs stock"),
    ("wf_ab.h100.24.reserve_default.stock.time", "h100/wf_lightx2v_033/sequential_24GB_reserve_vram_ab/reserve_default/matrix.json", "json:chains/stock/times_s/0", 15.412, "{:.1f} s", WF_H100_24_RESERVE + ", stock, one timed run"),
    ("wf_ab.h100.24.reserve_default.level1.time", "h100/wf_lightx2v_033/sequential_24GB_reserve_vram_ab/reserve_default/matrix.json", "json:chains/level1/times_s/0", 10.122, "{:.1f} s", WF_H100_24_RESERVE + ", Level-1, one timed run"),
    ("wf_ab.h100.24.reserve_default.level1.speedup", "h100/wf_lightx2v_033/sequential_24GB_reserve_vram_ab/reserve_default/matrix.json", "json:chains/level1/speedup", 1.523, "{:.2f}x", WF_H100_24_RESERVE + ", Level-1 vs stock"),
    ("wf_ab.h100.24.reserve_default.stock_again.time", "h100/wf_lightx2v_033/sequential_24GB_reserve_vram_ab/reserve_default/matrix.json", "json:chains/stock_again/times_s/0", 15.071, "{:.1f} s", WF_H100_24_RESERVE + ", stock again at the end, one timed run"),
    ("wf_ab.h100.24.reserve3.stock.time", "h100/wf_lightx2v_033/sequential_24GB_reserve_vram_ab/reserve_3GiB/matrix.json", "json:chains/stock/times_s/0", 15.36, "{:.1f} s", WF_H100_24_RESERVE3 + ", stock, one timed run"),
    ("wf_ab.h100.24.reserve3.level1.time", "h100/wf_lightx2v_033/sequential_24GB_reserve_vram_ab/reserve_3GiB/matrix.json", "json:chains/level1/times_s/0", 10.461, "{:.1f} s", WF_H100_24_RESERVE3 + ", Level-1, one timed run"),
    ("wf_ab.h100.24.reserve3.level1.speedup", "h100/wf_lightx2v_033/sequential_24GB_reserve_vram_ab/reserve_3GiB/matrix.json", "json:chains/level1/speedup", 1.468, "{:.2f}x", WF_H100_24_RESERVE3 + ", Level-1 vs stock"),
    ("wf_ab.h100.24.reserve3.stock_again.time", "h100/wf_lightx2v_033/sequential_24GB_reserve_vram_ab/reserve_3GiB/matrix.json", "json:chains/stock_again/times_s/0", 15.078, "{:.1f} s", WF_H100_24_RESERVE3 + ", stock again at the end, one timed run"),
    ("wf_ab.h100.80.same.stock.time", "h100/wf_lightx2v_033/sequential_24GB_reserve_vram_ab/whole_card/matrix.json", "json:chains/stock/times_s/0", 14.159, "{:.1f} s", WF_H100_80_SAME + ", stock, one timed run"),
    ("wf_ab.h100.80.same.level1.time", "h100/wf_lightx2v_033/sequential_24GB_reserve_vram_ab/whole_card/matrix.json", "json:chains/level1/times_s/0", 8.458, "{:.1f} s", WF_H100_80_SAME + ", Level-1, one timed run"),
    ("wf_ab.h100.80.same.level1.speedup", "h100/wf_lightx2v_033/sequential_24GB_reserve_vram_ab/whole_card/matrix.json", "json:chains/level1/speedup", 1.674, "{:.2f}x", WF_H100_80_SAME + ", Level-1 vs stock"),
    ("wf_ab.h100.80.same.stock_again.time", "h100/wf_lightx2v_033/sequential_24GB_reserve_vram_ab/whole_card/matrix.json", "json:chains/stock_again/times_s/0", 14.136, "{:.1f} s", WF_H100_80_SAME + ", stock again at the end, one timed run"),
    ("wf720nd.h100.stock.time", "h100/wf_lightx2v_033/sparse_720p_80GB_fa4_nodense/matrix.json", "json:chains/stock/times_s/0", 64.173, "{:.1f} s", WF720_FA4_NODENSE + ", stock, one timed run"),
    ("wf720nd.h100.level1.time", "h100/wf_lightx2v_033/sparse_720p_80GB_fa4_nodense/matrix.json", "json:chains/level1/times_s/0", 35.806, "{:.1f} s", WF720_FA4_NODENSE + ", level1, one timed run"),
    ("wf720nd.h100.level1.speedup", "h100/wf_lightx2v_033/sparse_720p_80GB_fa4_nodense/matrix.json", "json:chains/level1/speedup", 1.792, "{:.2f}x", WF720_FA4_NODENSE + ", level1 vs stock"),
    ("wf720nd.h100.level1_sparse.time", "h100/wf_lightx2v_033/sparse_720p_80GB_fa4_nodense/matrix.json", "json:chains/level1_sparse/times_s/0", 22.589, "{:.1f} s", WF720_FA4_NODENSE + ", level1_sparse, one timed run"),
    ("wf720nd.h100.level1_sparse.speedup", "h100/wf_lightx2v_033/sparse_720p_80GB_fa4_nodense/matrix.json", "json:chains/level1_sparse/speedup", 2.841, "{:.2f}x", WF720_FA4_NODENSE + ", level1_sparse vs stock"),
    ("wf720nd.h100.sparse_nodense_compile.time", "h100/wf_lightx2v_033/sparse_720p_80GB_fa4_nodense/matrix.json", "json:chains/sparse_nodense_compile/times_s/0", 18.275, "{:.1f} s", WF720_FA4_NODENSE + ", sparse_nodense_compile, one timed run"),
    ("wf720nd.h100.sparse_nodense_compile.speedup", "h100/wf_lightx2v_033/sparse_720p_80GB_fa4_nodense/matrix.json", "json:chains/sparse_nodense_compile/speedup", 3.512, "{:.2f}x", WF720_FA4_NODENSE + ", sparse_nodense_compile vs stock"),
    ("wf720nd.h100.sparse_nodense_compile.first_run", "h100/wf_lightx2v_033/sparse_720p_80GB_fa4_nodense/matrix.json", "json:chains/sparse_nodense_compile/first_run_s", 20.32, "{:.0f} s", WF720_FA4_NODENSE + ", every step sparse, first run (compiled graphs from level1_sparse in the same process)"),
    ("wf720nd.h100.sparse_nodense_compile.cosine", "h100/wf_lightx2v_033/sparse_720p_80GB_fa4_nodense/matrix.json", "json:chains/sparse_nodense_compile/cosine", 0.999912, "{:.5f}", WF720_FA4_NODENSE + ", every step sparse, final latent vs stock (random weights: says little for sparse attention)"),
    ("wf720.h100.24.stock.time", "h100/wf_lightx2v_033/sparse_720p_24GB_fa4/matrix.json", "json:chains/stock/times_s/0", 64.4, "{:.1f} s", WF720_FA4_24 + ", stock, one timed run"),
    ("wf720.h100.24.level1.time", "h100/wf_lightx2v_033/sparse_720p_24GB_fa4/matrix.json", "json:chains/level1/times_s/0", 37.027, "{:.1f} s", WF720_FA4_24 + ", level1, one timed run"),
    ("wf720.h100.24.level1.speedup", "h100/wf_lightx2v_033/sparse_720p_24GB_fa4/matrix.json", "json:chains/level1/speedup", 1.739, "{:.2f}x", WF720_FA4_24 + ", level1 vs stock"),
    ("wf720.h100.24.level1_sparse.time", "h100/wf_lightx2v_033/sparse_720p_24GB_fa4/matrix.json", "json:chains/level1_sparse/times_s/0", 23.284, "{:.1f} s", WF720_FA4_24 + ", level1_sparse, one timed run"),
    ("wf720.h100.24.level1_sparse.speedup", "h100/wf_lightx2v_033/sparse_720p_24GB_fa4/matrix.json", "json:chains/level1_sparse/speedup", 2.766, "{:.2f}x", WF720_FA4_24 + ", level1_sparse vs stock"),
    ("wf121.h100.24.exact_run.stock.time", "h100/wf_lightx2v_033/sparse_720p_121f_24GB_exact/matrix.json", "json:chains/stock/times_s/0", 130.922, "{:.1f} s", WF121_EXACT_24 + ", stock, one timed run"),
    ("wf121.h100.24.exact_run.level1.time", "h100/wf_lightx2v_033/sparse_720p_121f_24GB_exact/matrix.json", "json:chains/level1/times_s/0", 69.811, "{:.1f} s", WF121_EXACT_24 + ", level1, one timed run"),
    ("wf121.h100.24.exact_run.level1.speedup", "h100/wf_lightx2v_033/sparse_720p_121f_24GB_exact/matrix.json", "json:chains/level1/speedup", 1.875, "{:.2f}x", WF121_EXACT_24 + ", exact Level-1 vs stock"),
    ("wf121.h100.24.exact_run.level1.first_run", "h100/wf_lightx2v_033/sparse_720p_121f_24GB_exact/matrix.json", "json:chains/level1/first_run_s", 85.12, "{:.0f} s", WF121_EXACT_24 + ", exact Level-1, first run (compiles)"),
    ("hv129same.h100.exact.stock.time", "h100/sparse_033_hunyuan_video/hv720_129f_exact_then_fa4_same_gpu/exact/matrix.json", "json:chains/stock/times_s/0", 98.965, "{:.1f} s", HV_SAME_GPU_EXACT + ", stock, one timed run"),
    ("hv129same.h100.exact.shipped.time", "h100/sparse_033_hunyuan_video/hv720_129f_exact_then_fa4_same_gpu/exact/matrix.json", "json:chains/shipped/times_s/0", 53.438, "{:.1f} s", HV_SAME_GPU_EXACT + ", the exact chain, one timed run"),
    ("hv129same.h100.exact.shipped.speedup", "h100/sparse_033_hunyuan_video/hv720_129f_exact_then_fa4_same_gpu/exact/matrix.json", "json:chains/shipped/speedup", 1.852, "{:.2f}x", HV_SAME_GPU_EXACT + ", the exact chain vs stock"),
    ("hv129same.h100.sparse.stock.time", "h100/sparse_033_hunyuan_video/hv720_129f_exact_then_fa4_same_gpu/sparse_fa4/matrix.json", "json:chains/stock/times_s/0", 99.782, "{:.1f} s", HV_SAME_GPU_SPARSE + ", stock, one timed run"),
    ("hv129same.h100.sparse.sparse_compile.time", "h100/sparse_033_hunyuan_video/hv720_129f_exact_then_fa4_same_gpu/sparse_fa4/matrix.json", "json:chains/sparse_compile/times_s/0", 30.667, "{:.1f} s", HV_SAME_GPU_SPARSE + ", the radial_sparse chain, one timed run"),
    ("hv129same.h100.sparse.sparse_compile.speedup", "h100/sparse_033_hunyuan_video/hv720_129f_exact_then_fa4_same_gpu/sparse_fa4/matrix.json", "json:chains/sparse_compile/speedup", 3.254, "{:.2f}x", HV_SAME_GPU_SPARSE + ", the radial_sparse chain vs stock"),
    ("ltxv_sparse.h100.stock.time", "h100/sparse_033_ltxv/after_mask_fix_fa4_exact_vs_sparse/matrix.json", "json:chains/stock/times_s/0", 3.115, "{:.2f} s", LTXV_SPARSE + ", stock, the slower timed run"),
    ("ltxv_sparse.h100.shipped.time", "h100/sparse_033_ltxv/after_mask_fix_fa4_exact_vs_sparse/matrix.json", "json:chains/shipped/times_s/1", 2.443, "{:.2f} s", LTXV_SPARSE + ", shipped, the slower timed run"),
    ("ltxv_sparse.h100.shipped.speedup", "h100/sparse_033_ltxv/after_mask_fix_fa4_exact_vs_sparse/matrix.json", "json:chains/shipped/speedup", 1.275, "{:.2f}x", LTXV_SPARSE + ", shipped vs stock"),
    ("ltxv_sparse.h100.sparse_compile.time", "h100/sparse_033_ltxv/after_mask_fix_fa4_exact_vs_sparse/matrix.json", "json:chains/sparse_compile/times_s/1", 2.355, "{:.2f} s", LTXV_SPARSE + ", sparse_compile, the slower timed run"),
    ("ltxv_sparse.h100.sparse_compile.speedup", "h100/sparse_033_ltxv/after_mask_fix_fa4_exact_vs_sparse/matrix.json", "json:chains/sparse_compile/speedup", 1.323, "{:.2f}x", LTXV_SPARSE + ", sparse_compile vs stock"),
    ("ltxv_sparse.h100.sparse_compile.cosine", "h100/sparse_033_ltxv/after_mask_fix_fa4_exact_vs_sparse/matrix.json", "json:chains/sparse_compile/cosine", 0.999845, "{:.5f}", LTXV_SPARSE + ", radial_sparse chain, final latent vs stock"),
    ("wf.h100.80.fp8auto.stock.time", "h100/wf_lightx2v_033/fp8_auto_comfy_layers/matrix.json", "json:chains/stock/times_s/0", 14.593, "{:.2f} s", WF_FP8_AUTO_H100 + ", stock, one timed run"),
    ("wf.h100.80.fp8auto.level1.time", "h100/wf_lightx2v_033/fp8_auto_comfy_layers/matrix.json", "json:chains/level1/times_s/0", 8.659, "{:.2f} s", WF_FP8_AUTO_H100 + ", Level-1 on ComfyUI's loader, one timed run"),
    ("wf.h100.80.fp8auto.level1.speedup", "h100/wf_lightx2v_033/fp8_auto_comfy_layers/matrix.json", "json:chains/level1/speedup", 1.685, "{:.2f}x", WF_FP8_AUTO_H100 + ", Level-1 on ComfyUI's loader vs stock"),
    ("wf.h100.80.fp8auto.fp8_level1.time", "h100/wf_lightx2v_033/fp8_auto_comfy_layers/matrix.json", "json:chains/fp8_level1/times_s/0", 8.871, "{:.2f} s", WF_FP8_AUTO_H100 + ", FP8 loader (auto) -> LoRA -> Level-1, one timed run"),
    ("wf.h100.80.fp8auto.fp8_level1.speedup", "h100/wf_lightx2v_033/fp8_auto_comfy_layers/matrix.json", "json:chains/fp8_level1/speedup", 1.645, "{:.2f}x", WF_FP8_AUTO_H100 + ", FP8 loader (auto) -> LoRA -> Level-1 vs stock"),
    ("wf.h100.80.fp8auto.fp8_level1.first_run", "h100/wf_lightx2v_033/fp8_auto_comfy_layers/matrix.json", "json:chains/fp8_level1/first_run_s", 13.23, "{:.1f} s", WF_FP8_AUTO_H100 + ", FP8 loader (auto) -> LoRA -> Level-1, first run (after Level-1 in the same process: its compiled graph reused)"),
    ("wf.h100.80.fp8auto.fp8_level1.cosine", "h100/wf_lightx2v_033/fp8_auto_comfy_layers/matrix.json", "json:chains/fp8_level1/cosine", 0.999927, "{:.6f}", WF_FP8_AUTO_H100 + ", FP8 loader (auto) chain, final latent vs stock"),
    ("wf.h100.80.fp8auto.level1.cosine", "h100/wf_lightx2v_033/fp8_auto_comfy_layers/matrix.json", "json:chains/level1/cosine", 0.999927, "{:.6f}", WF_FP8_AUTO_H100 + ", Level-1 on ComfyUI's loader, final latent vs stock"),
    ("wf.h100.80.fp8auto.stock_again.time", "h100/wf_lightx2v_033/fp8_auto_comfy_layers/matrix.json", "json:chains/stock_again/times_s/0", 14.652, "{:.2f} s", WF_FP8_AUTO_H100 + ", stock again at the end, one timed run"),
    # issue #27 I2V and issue #30 families on two H200s of one host (stop 47) ----------------------------------
    ("e2e_i2v.h200.stock.q1.total", "h200/e2e_lightx2v_033/i2v_whole_card_savevideo/e2e_wan22_i2v_lightx2v.json", "json:rows/0/queues/0/total_s", 38.692, "{:.1f} s", E2E_I2V_H200 + ", stock, Queue 1, total"),
    ("e2e_i2v.h200.stock.q2.total", "h200/e2e_lightx2v_033/i2v_whole_card_savevideo/e2e_wan22_i2v_lightx2v.json", "json:rows/0/queues/1/total_s", 19.205, "{:.1f} s", E2E_I2V_H200 + ", stock, Queue 2, total"),
    ("e2e_i2v.h200.stock.q2.high_noise", "h200/e2e_lightx2v_033/i2v_whole_card_savevideo/e2e_wan22_i2v_lightx2v.json", "json:rows/0/queues/1/stages_s/sampler high-noise", 7.022, "{:.1f} s", E2E_I2V_H200 + ", stock, Queue 2, sampler high-noise stage"),
    ("e2e_i2v.h200.stock.q2.low_noise", "h200/e2e_lightx2v_033/i2v_whole_card_savevideo/e2e_wan22_i2v_lightx2v.json", "json:rows/0/queues/1/stages_s/sampler low-noise", 6.941, "{:.1f} s", E2E_I2V_H200 + ", stock, Queue 2, sampler low-noise stage"),
    ("e2e_i2v.h200.stock.q2.vae_decode", "h200/e2e_lightx2v_033/i2v_whole_card_savevideo/e2e_wan22_i2v_lightx2v.json", "json:rows/0/queues/1/stages_s/VAE decode", 2.201, "{:.1f} s", E2E_I2V_H200 + ", stock, Queue 2, VAE decode stage"),
    ("e2e_i2v.h200.stock.q2.save", "h200/e2e_lightx2v_033/i2v_whole_card_savevideo/e2e_wan22_i2v_lightx2v.json", "json:rows/0/queues/1/stages_s/save", 2.672, "{:.1f} s", E2E_I2V_H200 + ", stock, Queue 2, save stage"),
    ("e2e_i2v.h200.level1.q1.total", "h200/e2e_lightx2v_033/i2v_whole_card_savevideo/e2e_wan22_i2v_lightx2v.json", "json:rows/1/queues/0/total_s", 49.834, "{:.1f} s", E2E_I2V_H200 + ", level1, Queue 1, total"),
    ("e2e_i2v.h200.level1.q2.total", "h200/e2e_lightx2v_033/i2v_whole_card_savevideo/e2e_wan22_i2v_lightx2v.json", "json:rows/1/queues/1/total_s", 14.466, "{:.1f} s", E2E_I2V_H200 + ", level1, Queue 2, total"),
    ("e2e_i2v.h200.level1.q2.high_noise", "h200/e2e_lightx2v_033/i2v_whole_card_savevideo/e2e_wan22_i2v_lightx2v.json", "json:rows/1/queues/1/stages_s/sampler high-noise", 4.398, "{:.1f} s", E2E_I2V_H200 + ", level1, Queue 2, sampler high-noise stage"),
    ("e2e_i2v.h200.level1.q2.low_noise", "h200/e2e_lightx2v_033/i2v_whole_card_savevideo/e2e_wan22_i2v_lightx2v.json", "json:rows/1/queues/1/stages_s/sampler low-noise", 4.364, "{:.1f} s", E2E_I2V_H200 + ", level1, Queue 2, sampler low-noise stage"),
    ("e2e_i2v.h200.level1.q2.vae_decode", "h200/e2e_lightx2v_033/i2v_whole_card_savevideo/e2e_wan22_i2v_lightx2v.json", "json:rows/1/queues/1/stages_s/VAE decode", 2.355, "{:.1f} s", E2E_I2V_H200 + ", level1, Queue 2, VAE decode stage"),
    ("e2e_i2v.h200.level1.q2.save", "h200/e2e_lightx2v_033/i2v_whole_card_savevideo/e2e_wan22_i2v_lightx2v.json", "json:rows/1/queues/1/stages_s/save", 3.323, "{:.1f} s", E2E_I2V_H200 + ", level1, Queue 2, save stage"),
    ("e2e_i2v.h200.level1_vae.q1.total", "h200/e2e_lightx2v_033/i2v_whole_card_savevideo/e2e_wan22_i2v_lightx2v.json", "json:rows/2/queues/0/total_s", 44.067, "{:.1f} s", E2E_I2V_H200 + ", level1+vae, Queue 1, total"),
    ("e2e_i2v.h200.level1_vae.q2.total", "h200/e2e_lightx2v_033/i2v_whole_card_savevideo/e2e_wan22_i2v_lightx2v.json", "json:rows/2/queues/1/total_s", 15.632, "{:.1f} s", E2E_I2V_H200 + ", level1+vae, Queue 2, total"),
    ("e2e_i2v.h200.level1_vae.q2.high_noise", "h200/e2e_lightx2v_033/i2v_whole_card_savevideo/e2e_wan22_i2v_lightx2v.json", "json:rows/2/queues/1/stages_s/sampler high-noise", 4.248, "{:.1f} s", E2E_I2V_H200 + ", level1+vae, Queue 2, sampler high-noise stage"),
    ("e2e_i2v.h200.level1_vae.q2.low_noise", "h200/e2e_lightx2v_033/i2v_whole_card_savevideo/e2e_wan22_i2v_lightx2v.json", "json:rows/2/queues/1/stages_s/sampler low-noise", 4.219, "{:.1f} s", E2E_I2V_H200 + ", level1+vae, Queue 2, sampler low-noise stage"),
    ("e2e_i2v.h200.level1_vae.q2.vae_decode", "h200/e2e_lightx2v_033/i2v_whole_card_savevideo/e2e_wan22_i2v_lightx2v.json", "json:rows/2/queues/1/stages_s/VAE decode", 2.661, "{:.1f} s", E2E_I2V_H200 + ", level1+vae, Queue 2, VAE decode stage"),
    ("e2e_i2v.h200.level1_vae.q2.save", "h200/e2e_lightx2v_033/i2v_whole_card_savevideo/e2e_wan22_i2v_lightx2v.json", "json:rows/2/queues/1/stages_s/save", 4.486, "{:.1f} s", E2E_I2V_H200 + ", level1+vae, Queue 2, save stage"),
    ("e2e_i2v.h200.24.stock.q1.total", "h200/e2e_lightx2v_033/i2v_card24_occupied_savevideo/e2e_wan22_i2v_lightx2v_card24.json", "json:rows/0/queues/0/total_s", 29.358, "{:.1f} s", E2E_I2V_H200_24 + ", stock, Queue 1, total"),
    ("e2e_i2v.h200.24.stock.q2.total", "h200/e2e_lightx2v_033/i2v_card24_occupied_savevideo/e2e_wan22_i2v_lightx2v_card24.json", "json:rows/0/queues/1/total_s", 20.032, "{:.1f} s", E2E_I2V_H200_24 + ", stock, Queue 2, total"),
    ("e2e_i2v.h200.24.stock.q2.high_noise", "h200/e2e_lightx2v_033/i2v_card24_occupied_savevideo/e2e_wan22_i2v_lightx2v_card24.json", "json:rows/0/queues/1/stages_s/sampler high-noise", 7.688, "{:.1f} s", E2E_I2V_H200_24 + ", stock, Queue 2, sampler high-noise stage"),
    ("e2e_i2v.h200.24.stock.q2.low_noise", "h200/e2e_lightx2v_033/i2v_card24_occupied_savevideo/e2e_wan22_i2v_lightx2v_card24.json", "json:rows/0/queues/1/stages_s/sampler low-noise", 7.474, "{:.1f} s", E2E_I2V_H200_24 + ", stock, Queue 2, sampler low-noise stage"),
    ("e2e_i2v.h200.24.stock.q2.vae_decode", "h200/e2e_lightx2v_033/i2v_card24_occupied_savevideo/e2e_wan22_i2v_lightx2v_card24.json", "json:rows/0/queues/1/stages_s/VAE decode", 2.132, "{:.1f} s", E2E_I2V_H200_24 + ", stock, Queue 2, VAE decode stage"),
    ("e2e_i2v.h200.24.stock.q2.save", "h200/e2e_lightx2v_033/i2v_card24_occupied_savevideo/e2e_wan22_i2v_lightx2v_card24.json", "json:rows/0/queues/1/stages_s/save", 2.718, "{:.1f} s", E2E_I2V_H200_24 + ", stock, Queue 2, save stage"),
    ("e2e_i2v.h200.24.level1.q1.total", "h200/e2e_lightx2v_033/i2v_card24_occupied_savevideo/e2e_wan22_i2v_lightx2v_card24.json", "json:rows/1/queues/0/total_s", 41.118, "{:.1f} s", E2E_I2V_H200_24 + ", level1, Queue 1, total"),
    ("e2e_i2v.h200.24.level1.q2.total", "h200/e2e_lightx2v_033/i2v_card24_occupied_savevideo/e2e_wan22_i2v_lightx2v_card24.json", "json:rows/1/queues/1/total_s", 16.692, "{:.1f} s", E2E_I2V_H200_24 + ", level1, Queue 2, total"),
    ("e2e_i2v.h200.24.level1.q2.high_noise", "h200/e2e_lightx2v_033/i2v_card24_occupied_savevideo/e2e_wan22_i2v_lightx2v_card24.json", "json:rows/1/queues/1/stages_s/sampler high-noise", 5.903, "{:.1f} s", E2E_I2V_H200_24 + ", level1, Queue 2, sampler high-noise stage"),
    ("e2e_i2v.h200.24.level1.q2.low_noise", "h200/e2e_lightx2v_033/i2v_card24_occupied_savevideo/e2e_wan22_i2v_lightx2v_card24.json", "json:rows/1/queues/1/stages_s/sampler low-noise", 5.47, "{:.1f} s", E2E_I2V_H200_24 + ", level1, Queue 2, sampler low-noise stage"),
    ("e2e_i2v.h200.24.level1.q2.vae_decode", "h200/e2e_lightx2v_033/i2v_card24_occupied_savevideo/e2e_wan22_i2v_lightx2v_card24.json", "json:rows/1/queues/1/stages_s/VAE decode", 2.231, "{:.1f} s", E2E_I2V_H200_24 + ", level1, Queue 2, VAE decode stage"),
    ("e2e_i2v.h200.24.level1.q2.save", "h200/e2e_lightx2v_033/i2v_card24_occupied_savevideo/e2e_wan22_i2v_lightx2v_card24.json", "json:rows/1/queues/1/stages_s/save", 3.066, "{:.1f} s", E2E_I2V_H200_24 + ", level1, Queue 2, save stage"),
    ("family.h200.ti2v.stock.time", "h200/family_033_wan_ti2v_5b/matrix.json", "json:chains/stock/times_s/0", 10.868, "{:.2f} s", family_h200("ti2v") + ", stock"),
    ("family.h200.ti2v.attention.speedup", "h200/family_033_wan_ti2v_5b/matrix.json", "json:chains/attention/speedup", 1.482, "{:.2f}x", family_h200("ti2v") + ", Accel Attention vs stock"),
    ("family.h200.ti2v.shipped.speedup", "h200/family_033_wan_ti2v_5b/matrix.json", "json:chains/shipped/speedup", 1.567, "{:.2f}x", family_h200("ti2v") + ", the exact chain vs stock"),
    ("family.h200.ti2v.shipped.cosine", "h200/family_033_wan_ti2v_5b/matrix.json", "json:chains/shipped/cosine", 0.999959, "{:.5f}", family_h200("ti2v") + ", the exact chain, final latent vs stock"),
    ("family.h200.ti2v.shipped.first_run", "h200/family_033_wan_ti2v_5b/matrix.json", "json:chains/shipped/first_run_s", 17.86, "{:.0f} s", family_h200("ti2v") + ", the exact chain, first run (compiles)"),
    ("family.h200.ti2v.fp8_shipped.speedup", "h200/family_033_wan_ti2v_5b/matrix.json", "json:chains/fp8_shipped/speedup", 1.847, "{:.2f}x", family_h200("ti2v") + ", FP8 loader -> the exact chain vs stock"),
    ("family.h200.ti2v.fp8_shipped.cosine", "h200/family_033_wan_ti2v_5b/matrix.json", "json:chains/fp8_shipped/cosine", 0.994164, "{:.5f}", family_h200("ti2v") + ", FP8 loader -> the exact chain, final latent vs stock"),
    ("family.h200.ti2v.core_compile.speedup", "h200/family_033_wan_ti2v_5b/matrix.json", "json:chains/core_compile/speedup", 1.057, "{:.2f}x", family_h200("ti2v") + ", ComfyUI TorchCompileModel vs stock"),
    ("family.h200.ti2v.core_compile.first_run", "h200/family_033_wan_ti2v_5b/matrix.json", "json:chains/core_compile/first_run_s", 74.25, "{:.0f} s", family_h200("ti2v") + ", ComfyUI TorchCompileModel, first run (compiles)"),
    ("family.h200.ti2v.kj_sage_compile.speedup", "h200/family_033_wan_ti2v_5b/matrix.json", "json:chains/kj_sage_compile/speedup", 1.187, "{:.2f}x", family_h200("ti2v") + ", KJNodes Sage -> TorchCompileModelAdvanced vs stock"),
    ("family.h200.ti2v.stock_again.speedup", "h200/family_033_wan_ti2v_5b/matrix.json", "json:chains/stock_again/speedup", 1.032, "{:.2f}x", family_h200("ti2v") + ", stock again at the end vs the first stock"),
    ("family.h200.24.ti2v.stock.time", "h200/family_033_wan_ti2v_5b_24GB_occupied/matrix.json", "json:chains/stock/times_s/0", 10.795, "{:.2f} s", family_h200("ti2v", card24=True) + ", stock"),
    ("family.h200.24.ti2v.shipped.speedup", "h200/family_033_wan_ti2v_5b_24GB_occupied/matrix.json", "json:chains/shipped/speedup", 1.556, "{:.2f}x", family_h200("ti2v", card24=True) + ", the exact chain vs stock"),
    ("family.h200.24.ti2v.shipped.cosine", "h200/family_033_wan_ti2v_5b_24GB_occupied/matrix.json", "json:chains/shipped/cosine", 0.999959, "{:.5f}", family_h200("ti2v", card24=True) + ", the exact chain, final latent vs stock"),
    ("family.h200.24.ti2v.fp8_shipped.speedup", "h200/family_033_wan_ti2v_5b_24GB_occupied/matrix.json", "json:chains/fp8_shipped/speedup", 1.872, "{:.2f}x", family_h200("ti2v", card24=True) + ", FP8 loader -> the exact chain vs stock"),
    ("family.h200.24.ti2v.fp8_shipped.cosine", "h200/family_033_wan_ti2v_5b_24GB_occupied/matrix.json", "json:chains/fp8_shipped/cosine", 0.994164, "{:.5f}", family_h200("ti2v", card24=True) + ", FP8 loader -> the exact chain, final latent vs stock"),
    ("family.h200.24.ti2v.stock_again.speedup", "h200/family_033_wan_ti2v_5b_24GB_occupied/matrix.json", "json:chains/stock_again/speedup", 1.025, "{:.2f}x", family_h200("ti2v", card24=True) + ", stock again at the end vs the first stock"),
    ("family.h200.ltxv.fp8_shipped.time0", "h200/family_033_ltxv/matrix.json", "json:chains/fp8_shipped/times_s/0", 2.573, "{:.2f} s", family_h200("ltxv") + ", FP8 loader -> the exact chain, first timed run"),
    ("family.h200.ltxv.fp8_shipped.time1", "h200/family_033_ltxv/matrix.json", "json:chains/fp8_shipped/times_s/1", 2.12, "{:.2f} s", family_h200("ltxv") + ", FP8 loader -> the exact chain, second timed run"),
    ("family.h200.ltxv.shipped.time0", "h200/family_033_ltxv/matrix.json", "json:chains/shipped/times_s/0", 2.294, "{:.2f} s", family_h200("ltxv") + ", the exact chain, first timed run"),
    ("family.h200.ltxv.stock.time", "h200/family_033_ltxv/matrix.json", "json:chains/stock/times_s/0", 3.019, "{:.2f} s", family_h200("ltxv") + ", stock"),
    ("family.h200.ltxv.attention.speedup", "h200/family_033_ltxv/matrix.json", "json:chains/attention/speedup", 1.181, "{:.2f}x", family_h200("ltxv") + ", Accel Attention vs stock"),
    ("family.h200.ltxv.shipped.speedup", "h200/family_033_ltxv/matrix.json", "json:chains/shipped/speedup", 1.316, "{:.2f}x", family_h200("ltxv") + ", the exact chain vs stock"),
    ("family.h200.ltxv.shipped.cosine", "h200/family_033_ltxv/matrix.json", "json:chains/shipped/cosine", 0.999873, "{:.5f}", family_h200("ltxv") + ", the exact chain, final latent vs stock"),
    ("family.h200.ltxv.shipped.first_run", "h200/family_033_ltxv/matrix.json", "json:chains/shipped/first_run_s", 11.07, "{:.0f} s", family_h200("ltxv") + ", the exact chain, first run (compiles)"),
    ("family.h200.ltxv.fp8_shipped.speedup", "h200/family_033_ltxv/matrix.json", "json:chains/fp8_shipped/speedup", 1.173, "{:.2f}x", family_h200("ltxv") + ", FP8 loader -> the exact chain vs stock"),
    ("family.h200.ltxv.fp8_shipped.cosine", "h200/family_033_ltxv/matrix.json", "json:chains/fp8_shipped/cosine", 0.998707, "{:.5f}", family_h200("ltxv") + ", FP8 loader -> the exact chain, final latent vs stock"),
    ("family.h200.ltxv.core_compile.speedup", "h200/family_033_ltxv/matrix.json", "json:chains/core_compile/speedup", 1.049, "{:.2f}x", family_h200("ltxv") + ", ComfyUI TorchCompileModel vs stock"),
    ("family.h200.ltxv.core_compile.first_run", "h200/family_033_ltxv/matrix.json", "json:chains/core_compile/first_run_s", 37.58, "{:.0f} s", family_h200("ltxv") + ", ComfyUI TorchCompileModel, first run (compiles)"),
    ("family.h200.ltxv.stock_again.speedup", "h200/family_033_ltxv/matrix.json", "json:chains/stock_again/speedup", 1.0, "{:.2f}x", family_h200("ltxv") + ", stock again at the end vs the first stock"),
    ("family.h200.24.ltxv.stock.time", "h200/family_033_ltxv_24GB_occupied/matrix.json", "json:chains/stock/times_s/0", 3.039, "{:.2f} s", family_h200("ltxv", card24=True) + ", stock"),
    ("family.h200.24.ltxv.shipped.speedup", "h200/family_033_ltxv_24GB_occupied/matrix.json", "json:chains/shipped/speedup", 1.313, "{:.2f}x", family_h200("ltxv", card24=True) + ", the exact chain vs stock"),
    ("family.h200.24.ltxv.shipped.cosine", "h200/family_033_ltxv_24GB_occupied/matrix.json", "json:chains/shipped/cosine", 0.999873, "{:.5f}", family_h200("ltxv", card24=True) + ", the exact chain, final latent vs stock"),
    ("family.h200.24.ltxv.fp8_shipped.speedup", "h200/family_033_ltxv_24GB_occupied/matrix.json", "json:chains/fp8_shipped/speedup", 1.485, "{:.2f}x", family_h200("ltxv", card24=True) + ", FP8 loader -> the exact chain vs stock"),
    ("family.h200.24.ltxv.fp8_shipped.cosine", "h200/family_033_ltxv_24GB_occupied/matrix.json", "json:chains/fp8_shipped/cosine", 0.998707, "{:.5f}", family_h200("ltxv", card24=True) + ", FP8 loader -> the exact chain, final latent vs stock"),
    ("family.h200.24.ltxv.core_compile.speedup", "h200/family_033_ltxv_24GB_occupied/matrix.json", "json:chains/core_compile/speedup", 1.052, "{:.2f}x", family_h200("ltxv", card24=True) + ", ComfyUI TorchCompileModel vs stock"),
    ("family.h200.24.ltxv.stock_again.speedup", "h200/family_033_ltxv_24GB_occupied/matrix.json", "json:chains/stock_again/speedup", 0.976, "{:.2f}x", family_h200("ltxv", card24=True) + ", stock again at the end vs the first stock"),
    ("family.h200.qwen.stock.time", "h200/family_033_qwen_image_8steps/matrix.json", "json:chains/stock/times_s/0", 5.22, "{:.2f} s", family_h200("qwen") + ", stock"),
    ("family.h200.qwen.attention.speedup", "h200/family_033_qwen_image_8steps/matrix.json", "json:chains/attention/speedup", 1.199, "{:.2f}x", family_h200("qwen") + ", Accel Attention vs stock"),
    ("family.h200.qwen.shipped.speedup", "h200/family_033_qwen_image_8steps/matrix.json", "json:chains/shipped/speedup", 1.39, "{:.2f}x", family_h200("qwen") + ", the exact chain vs stock"),
    ("family.h200.qwen.shipped.cosine", "h200/family_033_qwen_image_8steps/matrix.json", "json:chains/shipped/cosine", 0.999876, "{:.5f}", family_h200("qwen") + ", the exact chain, final latent vs stock"),
    ("family.h200.qwen.shipped.first_run", "h200/family_033_qwen_image_8steps/matrix.json", "json:chains/shipped/first_run_s", 22.58, "{:.0f} s", family_h200("qwen") + ", the exact chain, first run (compiles)"),
    ("family.h200.qwen.fp8_shipped.speedup", "h200/family_033_qwen_image_8steps/matrix.json", "json:chains/fp8_shipped/speedup", 1.63, "{:.2f}x", family_h200("qwen") + ", FP8 loader -> the exact chain vs stock"),
    ("family.h200.qwen.fp8_shipped.cosine", "h200/family_033_qwen_image_8steps/matrix.json", "json:chains/fp8_shipped/cosine", 0.999263, "{:.5f}", family_h200("qwen") + ", FP8 loader -> the exact chain, final latent vs stock"),
    ("family.h200.qwen.core_compile.speedup", "h200/family_033_qwen_image_8steps/matrix.json", "json:chains/core_compile/speedup", 1.165, "{:.2f}x", family_h200("qwen") + ", ComfyUI TorchCompileModel vs stock"),
    ("family.h200.qwen.core_compile.first_run", "h200/family_033_qwen_image_8steps/matrix.json", "json:chains/core_compile/first_run_s", 127.33, "{:.0f} s", family_h200("qwen") + ", ComfyUI TorchCompileModel, first run (compiles)"),
    ("family.h200.qwen.stock_again.speedup", "h200/family_033_qwen_image_8steps/matrix.json", "json:chains/stock_again/speedup", 1.002, "{:.2f}x", family_h200("qwen") + ", stock again at the end vs the first stock"),
    ("family.h200.24.qwen.stock.time", "h200/family_033_qwen_image_8steps_24GB_occupied/matrix.json", "json:chains/stock/times_s/0", 5.64, "{:.2f} s", family_h200("qwen", card24=True) + ", stock"),
    ("family.h200.24.qwen.shipped.speedup", "h200/family_033_qwen_image_8steps_24GB_occupied/matrix.json", "json:chains/shipped/speedup", 1.449, "{:.2f}x", family_h200("qwen", card24=True) + ", the exact chain vs stock"),
    ("family.h200.24.qwen.shipped.cosine", "h200/family_033_qwen_image_8steps_24GB_occupied/matrix.json", "json:chains/shipped/cosine", 0.999876, "{:.5f}", family_h200("qwen", card24=True) + ", the exact chain, final latent vs stock"),
    ("family.h200.24.qwen.fp8_shipped.speedup", "h200/family_033_qwen_image_8steps_24GB_occupied/matrix.json", "json:chains/fp8_shipped/speedup", 1.598, "{:.2f}x", family_h200("qwen", card24=True) + ", FP8 loader -> the exact chain vs stock"),
    ("family.h200.24.qwen.fp8_shipped.cosine", "h200/family_033_qwen_image_8steps_24GB_occupied/matrix.json", "json:chains/fp8_shipped/cosine", 0.999263, "{:.5f}", family_h200("qwen", card24=True) + ", FP8 loader -> the exact chain, final latent vs stock"),
    ("family.h200.24.qwen.stock_again.speedup", "h200/family_033_qwen_image_8steps_24GB_occupied/matrix.json", "json:chains/stock_again/speedup", 0.976, "{:.2f}x", family_h200("qwen", card24=True) + ", stock again at the end vs the first stock"),
    ("family.h200.hv.stock.time", "h200/family_033_hunyuan_video_33f/matrix.json", "json:chains/stock/times_s/0", 5.186, "{:.2f} s", family_h200("hv") + ", stock"),
    ("family.h200.hv.attention.speedup", "h200/family_033_hunyuan_video_33f/matrix.json", "json:chains/attention/speedup", 1.375, "{:.2f}x", family_h200("hv") + ", Accel Attention vs stock"),
    ("family.h200.hv.shipped.speedup", "h200/family_033_hunyuan_video_33f/matrix.json", "json:chains/shipped/speedup", 1.53, "{:.2f}x", family_h200("hv") + ", the exact chain vs stock"),
    ("family.h200.hv.shipped.cosine", "h200/family_033_hunyuan_video_33f/matrix.json", "json:chains/shipped/cosine", 0.999967, "{:.5f}", family_h200("hv") + ", the exact chain, final latent vs stock"),
    ("family.h200.hv.shipped.first_run", "h200/family_033_hunyuan_video_33f/matrix.json", "json:chains/shipped/first_run_s", 27.81, "{:.0f} s", family_h200("hv") + ", the exact chain, first run (compiles)"),
    ("family.h200.hv.fp8_shipped.speedup", "h200/family_033_hunyuan_video_33f/matrix.json", "json:chains/fp8_shipped/speedup", 1.453, "{:.2f}x", family_h200("hv") + ", FP8 loader -> the exact chain vs stock"),
    ("family.h200.hv.fp8_shipped.cosine", "h200/family_033_hunyuan_video_33f/matrix.json", "json:chains/fp8_shipped/cosine", 0.99911, "{:.5f}", family_h200("hv") + ", FP8 loader -> the exact chain, final latent vs stock"),
    ("family.h200.hv.core_compile.speedup", "h200/family_033_hunyuan_video_33f/matrix.json", "json:chains/core_compile/speedup", 1.073, "{:.2f}x", family_h200("hv") + ", ComfyUI TorchCompileModel vs stock"),
    ("family.h200.hv.core_compile.first_run", "h200/family_033_hunyuan_video_33f/matrix.json", "json:chains/core_compile/first_run_s", 74.01, "{:.0f} s", family_h200("hv") + ", ComfyUI TorchCompileModel, first run (compiles)"),
    ("family.h200.hv.stock_again.speedup", "h200/family_033_hunyuan_video_33f/matrix.json", "json:chains/stock_again/speedup", 0.992, "{:.2f}x", family_h200("hv") + ", stock again at the end vs the first stock"),
    ("family.h200.24.hv.stock.time", "h200/family_033_hunyuan_video_33f_24GB_occupied/matrix.json", "json:chains/stock/times_s/0", 5.375, "{:.2f} s", family_h200("hv", card24=True) + ", stock"),
    ("family.h200.24.hv.shipped.speedup", "h200/family_033_hunyuan_video_33f_24GB_occupied/matrix.json", "json:chains/shipped/speedup", 1.586, "{:.2f}x", family_h200("hv", card24=True) + ", the exact chain vs stock"),
    ("family.h200.24.hv.shipped.cosine", "h200/family_033_hunyuan_video_33f_24GB_occupied/matrix.json", "json:chains/shipped/cosine", 0.999967, "{:.5f}", family_h200("hv", card24=True) + ", the exact chain, final latent vs stock"),
    ("family.h200.24.hv.fp8_shipped.speedup", "h200/family_033_hunyuan_video_33f_24GB_occupied/matrix.json", "json:chains/fp8_shipped/speedup", 1.897, "{:.2f}x", family_h200("hv", card24=True) + ", FP8 loader -> the exact chain vs stock"),
    ("family.h200.24.hv.fp8_shipped.cosine", "h200/family_033_hunyuan_video_33f_24GB_occupied/matrix.json", "json:chains/fp8_shipped/cosine", 0.99911, "{:.5f}", family_h200("hv", card24=True) + ", FP8 loader -> the exact chain, final latent vs stock"),
    ("family.h200.24.hv.stock_again.speedup", "h200/family_033_hunyuan_video_33f_24GB_occupied/matrix.json", "json:chains/stock_again/speedup", 1.012, "{:.2f}x", family_h200("hv", card24=True) + ", stock again at the end vs the first stock"),
    ("family.h200.24.flux.stock.time", "h200/family_033_flux_1024_24GB_occupied/matrix.json", "json:chains/stock/times_s/0", 3.474, "{:.2f} s", family_h200("flux", card24=True) + ", stock"),
    ("family.h200.24.flux.shipped.speedup", "h200/family_033_flux_1024_24GB_occupied/matrix.json", "json:chains/shipped/speedup", 1.302, "{:.2f}x", family_h200("flux", card24=True) + ", the exact chain vs stock"),
    ("family.h200.24.flux.shipped.cosine", "h200/family_033_flux_1024_24GB_occupied/matrix.json", "json:chains/shipped/cosine", 0.999995, "{:.5f}", family_h200("flux", card24=True) + ", the exact chain, final latent vs stock"),
    ("family.h200.24.flux.fp8_shipped.speedup", "h200/family_033_flux_1024_24GB_occupied/matrix.json", "json:chains/fp8_shipped/speedup", 1.348, "{:.2f}x", family_h200("flux", card24=True) + ", FP8 loader -> the exact chain vs stock"),
    ("family.h200.24.flux.fp8_shipped.cosine", "h200/family_033_flux_1024_24GB_occupied/matrix.json", "json:chains/fp8_shipped/cosine", 0.999413, "{:.5f}", family_h200("flux", card24=True) + ", FP8 loader -> the exact chain, final latent vs stock"),
    ("family.h200.24.flux.stock_again.speedup", "h200/family_033_flux_1024_24GB_occupied/matrix.json", "json:chains/stock_again/speedup", 0.977, "{:.2f}x", family_h200("flux", card24=True) + ", stock again at the end vs the first stock"),
    ("sparse.h200.480p.decay0.2.speedup", "h200/sparse_attention/sparse_attention.json", "json:rows/2/speedup_vs_fa3", 1.2343603405902248, "{:.2f}x", SPARSE_H200 + ", 480p 81 frames (32,760 tokens), decay 0.2"),
    ("sparse.h200.720p.decay0.2.speedup", "h200/sparse_attention/sparse_attention.json", "json:rows/5/speedup_vs_fa3", 1.8510195996269223, "{:.2f}x", SPARSE_H200 + ", 720p 81 frames (75,600 tokens), decay 0.2"),
    ("sparse.h200.hv720p.decay0.2.speedup", "h200/sparse_attention/sparse_attention.json", "json:rows/8/speedup_vs_fa3", 2.784290980666395, "{:.2f}x", SPARSE_H200 + ", HunyuanVideo 720p 129 frames, decay 0.2"),
    ("sparse.h200.720p.decay0.2.cosine", "h200/sparse_attention/sparse_attention.json", "json:rows/5/vs_masked_reference/cosine", 0.9999968490958904, "{:.6f}", SPARSE_H200 + ", 720p 81 frames, decay 0.2, output vs the dense masked fp32 reference"),
    ("e2e_i2v.h100.stock.q1.total", "h100/e2e_lightx2v_033/i2v_whole_card_savevideo/e2e_wan22_i2v_lightx2v.json", "json:rows/0/queues/0/total_s", 35.66, "{:.1f} s", E2E_I2V_H100 + ", stock, Queue 1, total"),
    ("e2e_i2v.h100.stock.q2.total", "h100/e2e_lightx2v_033/i2v_whole_card_savevideo/e2e_wan22_i2v_lightx2v.json", "json:rows/0/queues/1/total_s", 20.541, "{:.1f} s", E2E_I2V_H100 + ", stock, Queue 2, total"),
    ("e2e_i2v.h100.stock.q2.high_noise", "h100/e2e_lightx2v_033/i2v_whole_card_savevideo/e2e_wan22_i2v_lightx2v.json", "json:rows/0/queues/1/stages_s/sampler high-noise", 7.282, "{:.1f} s", E2E_I2V_H100 + ", stock, Queue 2, sampler high-noise stage"),
    ("e2e_i2v.h100.stock.q2.low_noise", "h100/e2e_lightx2v_033/i2v_whole_card_savevideo/e2e_wan22_i2v_lightx2v.json", "json:rows/0/queues/1/stages_s/sampler low-noise", 7.234, "{:.1f} s", E2E_I2V_H100 + ", stock, Queue 2, sampler low-noise stage"),
    ("e2e_i2v.h100.stock.q2.vae_decode", "h100/e2e_lightx2v_033/i2v_whole_card_savevideo/e2e_wan22_i2v_lightx2v.json", "json:rows/0/queues/1/stages_s/VAE decode", 2.532, "{:.1f} s", E2E_I2V_H100 + ", stock, Queue 2, VAE decode stage"),
    ("e2e_i2v.h100.stock.q2.save", "h100/e2e_lightx2v_033/i2v_whole_card_savevideo/e2e_wan22_i2v_lightx2v.json", "json:rows/0/queues/1/stages_s/save", 3.479, "{:.1f} s", E2E_I2V_H100 + ", stock, Queue 2, save stage"),
    ("e2e_i2v.h100.level1.q1.total", "h100/e2e_lightx2v_033/i2v_whole_card_savevideo/e2e_wan22_i2v_lightx2v.json", "json:rows/1/queues/0/total_s", 47.468, "{:.1f} s", E2E_I2V_H100 + ", level1, Queue 1, total"),
    ("e2e_i2v.h100.level1.q2.total", "h100/e2e_lightx2v_033/i2v_whole_card_savevideo/e2e_wan22_i2v_lightx2v.json", "json:rows/1/queues/1/total_s", 14.293, "{:.1f} s", E2E_I2V_H100 + ", level1, Queue 2, total"),
    ("e2e_i2v.h100.level1.q2.high_noise", "h100/e2e_lightx2v_033/i2v_whole_card_savevideo/e2e_wan22_i2v_lightx2v.json", "json:rows/1/queues/1/stages_s/sampler high-noise", 4.367, "{:.1f} s", E2E_I2V_H100 + ", level1, Queue 2, sampler high-noise stage"),
    ("e2e_i2v.h100.level1.q2.low_noise", "h100/e2e_lightx2v_033/i2v_whole_card_savevideo/e2e_wan22_i2v_lightx2v.json", "json:rows/1/queues/1/stages_s/sampler low-noise", 4.258, "{:.1f} s", E2E_I2V_H100 + ", level1, Queue 2, sampler low-noise stage"),
    ("e2e_i2v.h100.level1.q2.vae_decode", "h100/e2e_lightx2v_033/i2v_whole_card_savevideo/e2e_wan22_i2v_lightx2v.json", "json:rows/1/queues/1/stages_s/VAE decode", 2.466, "{:.1f} s", E2E_I2V_H100 + ", level1, Queue 2, VAE decode stage"),
    ("e2e_i2v.h100.level1.q2.save", "h100/e2e_lightx2v_033/i2v_whole_card_savevideo/e2e_wan22_i2v_lightx2v.json", "json:rows/1/queues/1/stages_s/save", 3.179, "{:.1f} s", E2E_I2V_H100 + ", level1, Queue 2, save stage"),
    ("e2e_i2v.h100.level1_vae.q1.total", "h100/e2e_lightx2v_033/i2v_whole_card_savevideo/e2e_wan22_i2v_lightx2v.json", "json:rows/2/queues/0/total_s", 47.262, "{:.1f} s", E2E_I2V_H100 + ", level1+vae, Queue 1, total"),
    ("e2e_i2v.h100.level1_vae.q2.total", "h100/e2e_lightx2v_033/i2v_whole_card_savevideo/e2e_wan22_i2v_lightx2v.json", "json:rows/2/queues/1/total_s", 14.748, "{:.1f} s", E2E_I2V_H100 + ", level1+vae, Queue 2, total"),
    ("e2e_i2v.h100.level1_vae.q2.high_noise", "h100/e2e_lightx2v_033/i2v_whole_card_savevideo/e2e_wan22_i2v_lightx2v.json", "json:rows/2/queues/1/stages_s/sampler high-noise", 4.316, "{:.1f} s", E2E_I2V_H100 + ", level1+vae, Queue 2, sampler high-noise stage"),
    ("e2e_i2v.h100.level1_vae.q2.low_noise", "h100/e2e_lightx2v_033/i2v_whole_card_savevideo/e2e_wan22_i2v_lightx2v.json", "json:rows/2/queues/1/stages_s/sampler low-noise", 4.42, "{:.1f} s", E2E_I2V_H100 + ", level1+vae, Queue 2, sampler low-noise stage"),
    ("e2e_i2v.h100.level1_vae.q2.vae_decode", "h100/e2e_lightx2v_033/i2v_whole_card_savevideo/e2e_wan22_i2v_lightx2v.json", "json:rows/2/queues/1/stages_s/VAE decode", 2.562, "{:.1f} s", E2E_I2V_H100 + ", level1+vae, Queue 2, VAE decode stage"),
    ("e2e_i2v.h100.level1_vae.q2.save", "h100/e2e_lightx2v_033/i2v_whole_card_savevideo/e2e_wan22_i2v_lightx2v.json", "json:rows/2/queues/1/stages_s/save", 3.429, "{:.1f} s", E2E_I2V_H100 + ", level1+vae, Queue 2, save stage"),
    ("e2e_i2v.h100.24.stock.q1.total", "h100/e2e_lightx2v_033/i2v_card24_occupied_savevideo/e2e_wan22_i2v_lightx2v_card24.json", "json:rows/0/queues/0/total_s", 33.194, "{:.1f} s", E2E_I2V_H100_24 + ", stock, Queue 1, total"),
    ("e2e_i2v.h100.24.stock.q2.total", "h100/e2e_lightx2v_033/i2v_card24_occupied_savevideo/e2e_wan22_i2v_lightx2v_card24.json", "json:rows/0/queues/1/total_s", 22.109, "{:.1f} s", E2E_I2V_H100_24 + ", stock, Queue 2, total"),
    ("e2e_i2v.h100.24.stock.q2.high_noise", "h100/e2e_lightx2v_033/i2v_card24_occupied_savevideo/e2e_wan22_i2v_lightx2v_card24.json", "json:rows/0/queues/1/stages_s/sampler high-noise", 8.111, "{:.1f} s", E2E_I2V_H100_24 + ", stock, Queue 2, sampler high-noise stage"),
    ("e2e_i2v.h100.24.stock.q2.low_noise", "h100/e2e_lightx2v_033/i2v_card24_occupied_savevideo/e2e_wan22_i2v_lightx2v_card24.json", "json:rows/0/queues/1/stages_s/sampler low-noise", 8.065, "{:.1f} s", E2E_I2V_H100_24 + ", stock, Queue 2, sampler low-noise stage"),
    ("e2e_i2v.h100.24.stock.q2.vae_decode", "h100/e2e_lightx2v_033/i2v_card24_occupied_savevideo/e2e_wan22_i2v_lightx2v_card24.json", "json:rows/0/queues/1/stages_s/VAE decode", 2.374, "{:.1f} s", E2E_I2V_H100_24 + ", stock, Queue 2, VAE decode stage"),
    ("e2e_i2v.h100.24.stock.q2.save", "h100/e2e_lightx2v_033/i2v_card24_occupied_savevideo/e2e_wan22_i2v_lightx2v_card24.json", "json:rows/0/queues/1/stages_s/save", 3.545, "{:.1f} s", E2E_I2V_H100_24 + ", stock, Queue 2, save stage"),
    ("e2e_i2v.h100.24.level1.q1.total", "h100/e2e_lightx2v_033/i2v_card24_occupied_savevideo/e2e_wan22_i2v_lightx2v_card24.json", "json:rows/1/queues/0/total_s", 46.701, "{:.1f} s", E2E_I2V_H100_24 + ", level1, Queue 1, total"),
    ("e2e_i2v.h100.24.level1.q2.total", "h100/e2e_lightx2v_033/i2v_card24_occupied_savevideo/e2e_wan22_i2v_lightx2v_card24.json", "json:rows/1/queues/1/total_s", 18.072, "{:.1f} s", E2E_I2V_H100_24 + ", level1, Queue 2, total"),
    ("e2e_i2v.h100.24.level1.q2.high_noise", "h100/e2e_lightx2v_033/i2v_card24_occupied_savevideo/e2e_wan22_i2v_lightx2v_card24.json", "json:rows/1/queues/1/stages_s/sampler high-noise", 5.691, "{:.1f} s", E2E_I2V_H100_24 + ", level1, Queue 2, sampler high-noise stage"),
    ("e2e_i2v.h100.24.level1.q2.low_noise", "h100/e2e_lightx2v_033/i2v_card24_occupied_savevideo/e2e_wan22_i2v_lightx2v_card24.json", "json:rows/1/queues/1/stages_s/sampler low-noise", 5.931, "{:.1f} s", E2E_I2V_H100_24 + ", level1, Queue 2, sampler low-noise stage"),
    ("e2e_i2v.h100.24.level1.q2.vae_decode", "h100/e2e_lightx2v_033/i2v_card24_occupied_savevideo/e2e_wan22_i2v_lightx2v_card24.json", "json:rows/1/queues/1/stages_s/VAE decode", 2.66, "{:.1f} s", E2E_I2V_H100_24 + ", level1, Queue 2, VAE decode stage"),
    ("e2e_i2v.h100.24.level1.q2.save", "h100/e2e_lightx2v_033/i2v_card24_occupied_savevideo/e2e_wan22_i2v_lightx2v_card24.json", "json:rows/1/queues/1/stages_s/save", 3.756, "{:.1f} s", E2E_I2V_H100_24 + ", level1, Queue 2, save stage"),
    ("e2e_i2v.h100.kj_sage_compile.q1.total", "h100/e2e_lightx2v_033/i2v_whole_card_savevideo_peers/e2e_wan22_i2v_lightx2v.json", "json:rows/0/queues/0/total_s", 65.714, "{:.1f} s", E2E_I2V_H100 + ", kj_sage_compile, Queue 1, total"),
    ("e2e_i2v.h100.kj_sage_compile.q2.total", "h100/e2e_lightx2v_033/i2v_whole_card_savevideo_peers/e2e_wan22_i2v_lightx2v.json", "json:rows/0/queues/1/total_s", 18.396, "{:.1f} s", E2E_I2V_H100 + ", kj_sage_compile, Queue 2, total"),
    ("e2e_i2v.h100.kj_sage_compile.q2.high_noise", "h100/e2e_lightx2v_033/i2v_whole_card_savevideo_peers/e2e_wan22_i2v_lightx2v.json", "json:rows/0/queues/1/stages_s/sampler high-noise", 6.179, "{:.1f} s", E2E_I2V_H100 + ", kj_sage_compile, Queue 2, sampler high-noise stage"),
    ("e2e_i2v.h100.kj_sage_compile.q2.low_noise", "h100/e2e_lightx2v_033/i2v_whole_card_savevideo_peers/e2e_wan22_i2v_lightx2v.json", "json:rows/0/queues/1/stages_s/sampler low-noise", 6.109, "{:.1f} s", E2E_I2V_H100 + ", kj_sage_compile, Queue 2, sampler low-noise stage"),
    ("e2e_i2v.h100.kj_sage_compile.q2.vae_decode", "h100/e2e_lightx2v_033/i2v_whole_card_savevideo_peers/e2e_wan22_i2v_lightx2v.json", "json:rows/0/queues/1/stages_s/VAE decode", 2.451, "{:.1f} s", E2E_I2V_H100 + ", kj_sage_compile, Queue 2, VAE decode stage"),
    ("e2e_i2v.h100.kj_sage_compile.q2.save", "h100/e2e_lightx2v_033/i2v_whole_card_savevideo_peers/e2e_wan22_i2v_lightx2v.json", "json:rows/0/queues/1/stages_s/save", 3.634, "{:.1f} s", E2E_I2V_H100 + ", kj_sage_compile, Queue 2, save stage"),
    ("e2e_i2v.h100.core_ck_int8.q1.total", "h100/e2e_lightx2v_033/i2v_whole_card_savevideo_peers/e2e_wan22_i2v_lightx2v.json", "json:rows/2/queues/0/total_s", 32.102, "{:.1f} s", E2E_I2V_H100 + ", core_ck_int8, Queue 1, total"),
    ("e2e_i2v.h100.core_ck_int8.q2.total", "h100/e2e_lightx2v_033/i2v_whole_card_savevideo_peers/e2e_wan22_i2v_lightx2v.json", "json:rows/2/queues/1/total_s", 18.363, "{:.1f} s", E2E_I2V_H100 + ", core_ck_int8, Queue 2, total"),
    ("e2e_i2v.h100.core_ck_int8.q2.high_noise", "h100/e2e_lightx2v_033/i2v_whole_card_savevideo_peers/e2e_wan22_i2v_lightx2v.json", "json:rows/2/queues/1/stages_s/sampler high-noise", 6.222, "{:.1f} s", E2E_I2V_H100 + ", core_ck_int8, Queue 2, sampler high-noise stage"),
    ("e2e_i2v.h100.core_ck_int8.q2.low_noise", "h100/e2e_lightx2v_033/i2v_whole_card_savevideo_peers/e2e_wan22_i2v_lightx2v.json", "json:rows/2/queues/1/stages_s/sampler low-noise", 6.077, "{:.1f} s", E2E_I2V_H100 + ", core_ck_int8, Queue 2, sampler low-noise stage"),
    ("e2e_i2v.h100.core_ck_int8.q2.vae_decode", "h100/e2e_lightx2v_033/i2v_whole_card_savevideo_peers/e2e_wan22_i2v_lightx2v.json", "json:rows/2/queues/1/stages_s/VAE decode", 2.465, "{:.1f} s", E2E_I2V_H100 + ", core_ck_int8, Queue 2, VAE decode stage"),
    ("e2e_i2v.h100.core_ck_int8.q2.save", "h100/e2e_lightx2v_033/i2v_whole_card_savevideo_peers/e2e_wan22_i2v_lightx2v.json", "json:rows/2/queues/1/stages_s/save", 3.135, "{:.1f} s", E2E_I2V_H100 + ", core_ck_int8, Queue 2, save stage"),
    ("e2e_wf.h200.peers.stock.q1.total", "h200/e2e_lightx2v_033/whole_card_savevideo_peers/e2e_wan22_t2v_lightx2v.json", "json:rows/0/queues/0/total_s", 31.983, "{:.1f} s", E2E_WF_H200_SAVE + ", a later H200 machine (the peers' call), stock, Queue 1, total"),
    ("e2e_wf.h200.peers.stock.q2.total", "h200/e2e_lightx2v_033/whole_card_savevideo_peers/e2e_wan22_t2v_lightx2v.json", "json:rows/0/queues/1/total_s", 19.052, "{:.1f} s", E2E_WF_H200_SAVE + ", a later H200 machine (the peers' call), stock, Queue 2, total"),
    ("e2e_wf.h200.peers.stock.q2.high_noise", "h200/e2e_lightx2v_033/whole_card_savevideo_peers/e2e_wan22_t2v_lightx2v.json", "json:rows/0/queues/1/stages_s/sampler high-noise", 7.092, "{:.1f} s", E2E_WF_H200_SAVE + ", a later H200 machine (the peers' call), stock, Queue 2, sampler high-noise stage"),
    ("e2e_wf.h200.peers.stock.q2.low_noise", "h200/e2e_lightx2v_033/whole_card_savevideo_peers/e2e_wan22_t2v_lightx2v.json", "json:rows/0/queues/1/stages_s/sampler low-noise", 7.08, "{:.1f} s", E2E_WF_H200_SAVE + ", a later H200 machine (the peers' call), stock, Queue 2, sampler low-noise stage"),
    ("e2e_wf.h200.peers.kj_sage_compile.q1.total", "h200/e2e_lightx2v_033/whole_card_savevideo_peers/e2e_wan22_t2v_lightx2v.json", "json:rows/1/queues/0/total_s", 50.895, "{:.1f} s", E2E_WF_H200_SAVE + ", a later H200 machine (the peers' call), kj_sage_compile, Queue 1, total"),
    ("e2e_wf.h200.peers.kj_sage_compile.q2.total", "h200/e2e_lightx2v_033/whole_card_savevideo_peers/e2e_wan22_t2v_lightx2v.json", "json:rows/1/queues/1/total_s", 17.748, "{:.1f} s", E2E_WF_H200_SAVE + ", a later H200 machine (the peers' call), kj_sage_compile, Queue 2, total"),
    ("e2e_wf.h200.peers.kj_sage_compile.q2.high_noise", "h200/e2e_lightx2v_033/whole_card_savevideo_peers/e2e_wan22_t2v_lightx2v.json", "json:rows/1/queues/1/stages_s/sampler high-noise", 5.939, "{:.1f} s", E2E_WF_H200_SAVE + ", a later H200 machine (the peers' call), kj_sage_compile, Queue 2, sampler high-noise stage"),
    ("e2e_wf.h200.peers.kj_sage_compile.q2.low_noise", "h200/e2e_lightx2v_033/whole_card_savevideo_peers/e2e_wan22_t2v_lightx2v.json", "json:rows/1/queues/1/stages_s/sampler low-noise", 5.995, "{:.1f} s", E2E_WF_H200_SAVE + ", a later H200 machine (the peers' call), kj_sage_compile, Queue 2, sampler low-noise stage"),
    ("e2e_wf.h200.peers.core_ck_int8.q1.total", "h200/e2e_lightx2v_033/whole_card_savevideo_peers/e2e_wan22_t2v_lightx2v.json", "json:rows/2/queues/0/total_s", 27.925, "{:.1f} s", E2E_WF_H200_SAVE + ", a later H200 machine (the peers' call), core_ck_int8, Queue 1, total"),
    ("e2e_wf.h200.peers.core_ck_int8.q2.total", "h200/e2e_lightx2v_033/whole_card_savevideo_peers/e2e_wan22_t2v_lightx2v.json", "json:rows/2/queues/1/total_s", 17.2, "{:.1f} s", E2E_WF_H200_SAVE + ", a later H200 machine (the peers' call), core_ck_int8, Queue 2, total"),
    ("e2e_wf.h200.peers.core_ck_int8.q2.high_noise", "h200/e2e_lightx2v_033/whole_card_savevideo_peers/e2e_wan22_t2v_lightx2v.json", "json:rows/2/queues/1/stages_s/sampler high-noise", 5.838, "{:.1f} s", E2E_WF_H200_SAVE + ", a later H200 machine (the peers' call), core_ck_int8, Queue 2, sampler high-noise stage"),
    ("e2e_wf.h200.peers.core_ck_int8.q2.low_noise", "h200/e2e_lightx2v_033/whole_card_savevideo_peers/e2e_wan22_t2v_lightx2v.json", "json:rows/2/queues/1/stages_s/sampler low-noise", 5.802, "{:.1f} s", E2E_WF_H200_SAVE + ", a later H200 machine (the peers' call), core_ck_int8, Queue 2, sampler low-noise stage"),
    ("e2e_wf.h200.24.peers.stock.q1.total", "h200/e2e_lightx2v_033/card24_occupied_savevideo_peers/e2e_wan22_t2v_lightx2v_card24.json", "json:rows/0/queues/0/total_s", 27.344, "{:.1f} s", E2E_WF_H200_24_SAVE + ", a later H200 machine (the peers' call), stock, Queue 1, total"),
    ("e2e_wf.h200.24.peers.stock.q2.total", "h200/e2e_lightx2v_033/card24_occupied_savevideo_peers/e2e_wan22_t2v_lightx2v_card24.json", "json:rows/0/queues/1/total_s", 21.091, "{:.1f} s", E2E_WF_H200_24_SAVE + ", a later H200 machine (the peers' call), stock, Queue 2, total"),
    ("e2e_wf.h200.24.peers.stock.q2.high_noise", "h200/e2e_lightx2v_033/card24_occupied_savevideo_peers/e2e_wan22_t2v_lightx2v_card24.json", "json:rows/0/queues/1/stages_s/sampler high-noise", 7.497, "{:.1f} s", E2E_WF_H200_24_SAVE + ", a later H200 machine (the peers' call), stock, Queue 2, sampler high-noise stage"),
    ("e2e_wf.h200.24.peers.stock.q2.low_noise", "h200/e2e_lightx2v_033/card24_occupied_savevideo_peers/e2e_wan22_t2v_lightx2v_card24.json", "json:rows/0/queues/1/stages_s/sampler low-noise", 7.597, "{:.1f} s", E2E_WF_H200_24_SAVE + ", a later H200 machine (the peers' call), stock, Queue 2, sampler low-noise stage"),
    ("e2e_wf.h200.24.peers.kj_sage_compile.q1.total", "h200/e2e_lightx2v_033/card24_occupied_savevideo_peers/e2e_wan22_t2v_lightx2v_card24.json", "json:rows/1/queues/0/total_s", 55.378, "{:.1f} s", E2E_WF_H200_24_SAVE + ", a later H200 machine (the peers' call), kj_sage_compile, Queue 1, total"),
    ("e2e_wf.h200.24.peers.kj_sage_compile.q2.total", "h200/e2e_lightx2v_033/card24_occupied_savevideo_peers/e2e_wan22_t2v_lightx2v_card24.json", "json:rows/1/queues/1/total_s", 20.284, "{:.1f} s", E2E_WF_H200_24_SAVE + ", a later H200 machine (the peers' call), kj_sage_compile, Queue 2, total"),
    ("e2e_wf.h200.24.peers.kj_sage_compile.q2.high_noise", "h200/e2e_lightx2v_033/card24_occupied_savevideo_peers/e2e_wan22_t2v_lightx2v_card24.json", "json:rows/1/queues/1/stages_s/sampler high-noise", 7.104, "{:.1f} s", E2E_WF_H200_24_SAVE + ", a later H200 machine (the peers' call), kj_sage_compile, Queue 2, sampler high-noise stage"),
    ("e2e_wf.h200.24.peers.kj_sage_compile.q2.low_noise", "h200/e2e_lightx2v_033/card24_occupied_savevideo_peers/e2e_wan22_t2v_lightx2v_card24.json", "json:rows/1/queues/1/stages_s/sampler low-noise", 6.93, "{:.1f} s", E2E_WF_H200_24_SAVE + ", a later H200 machine (the peers' call), kj_sage_compile, Queue 2, sampler low-noise stage"),
    ("e2e_wf.h200.24.peers.core_ck_int8.q1.total", "h200/e2e_lightx2v_033/card24_occupied_savevideo_peers/e2e_wan22_t2v_lightx2v_card24.json", "json:rows/2/queues/0/total_s", 26.653, "{:.1f} s", E2E_WF_H200_24_SAVE + ", a later H200 machine (the peers' call), core_ck_int8, Queue 1, total"),
    ("e2e_wf.h200.24.peers.core_ck_int8.q2.total", "h200/e2e_lightx2v_033/card24_occupied_savevideo_peers/e2e_wan22_t2v_lightx2v_card24.json", "json:rows/2/queues/1/total_s", 18.156, "{:.1f} s", E2E_WF_H200_24_SAVE + ", a later H200 machine (the peers' call), core_ck_int8, Queue 2, total"),
    ("e2e_wf.h200.24.peers.core_ck_int8.q2.high_noise", "h200/e2e_lightx2v_033/card24_occupied_savevideo_peers/e2e_wan22_t2v_lightx2v_card24.json", "json:rows/2/queues/1/stages_s/sampler high-noise", 6.491, "{:.1f} s", E2E_WF_H200_24_SAVE + ", a later H200 machine (the peers' call), core_ck_int8, Queue 2, sampler high-noise stage"),
    ("e2e_wf.h200.24.peers.core_ck_int8.q2.low_noise", "h200/e2e_lightx2v_033/card24_occupied_savevideo_peers/e2e_wan22_t2v_lightx2v_card24.json", "json:rows/2/queues/1/stages_s/sampler low-noise", 6.45, "{:.1f} s", E2E_WF_H200_24_SAVE + ", a later H200 machine (the peers' call), core_ck_int8, Queue 2, sampler low-noise stage"),
]

FIGURES: dict[str, Figure] = {}
for _row in _ROWS:
    _f = Figure(*_row)
    assert _f.id not in FIGURES, _f.id
    FIGURES[_f.id] = _f

# Figures the docs want but no file under bench/results/ holds yet: the docs carry `<!-- TODO(gpu): <id> -->` where
# they belong and state no number. When the run exists, add a row above and replace the TODO with the figure.
# ids a doc marks with <!-- TODO(gpu): ID --> -> what to measure (bench/bench_matrix.py --family ...; the lead's runs)
_H3_RUN = ("MiniMax-H3 33B bf16 random weights, 1344x768 124 frames with audio, 20 steps res_multistep, no CFG (ComfyUI's standard H3 template), H200, ComfyUI 0.33")
AWAITING_GPU = {
    "family.h200.minimax_h3.shipped.speedup": _H3_RUN + ": Accel MiniMax-H3 Level-1 vs stock sampling (--family minimax_h3)",
    "family.h200.minimax_h3.shipped.first_run": _H3_RUN + ": Accel MiniMax-H3 Level-1, first run (compiles)",
    "family.h200.minimax_h3.sparse.speedup": _H3_RUN + ": Level-1 quality sparse (radial) vs stock sampling",
    "family.h200.minimax_h3.fp8_shipped.speedup": _H3_RUN + ": FP8 loader (auto) -> Level-1 vs stock sampling",
    "family.h200.24.minimax_h3.shipped.speedup": _H3_RUN + ", 24 GB card (--card 24 --occupy): Level-1 vs stock",
    "family.h200.minimax_h3_turbo.shipped.speedup": ("MiniMax-H3 33B bf16, the template's turbo mode (4 steps), 1344x768 "
                                                    "124 frames, H200, ComfyUI 0.33: Level-1 vs stock sampling"),
    "family.h200.hunyuan_video15.shipped.speedup": ("HunyuanVideo 1.5 8.3B bf16, 848x480 121 frames, 20 steps CFG 6 (the "
                                                    "template), H200: the exact chain vs stock sampling"),
    "family.h200.ltxav.shipped.speedup": ("LTX-2 19B bf16, 1280x704 121 frames with audio, 20 steps CFG 4 (the template's "
                                          "first stage), H200: the exact chain vs stock sampling"),
    "family.h200.flux2.shipped.speedup": ("Flux.2-dev 32B bf16, 1248x832, 20 steps, guidance 4 (the template), H200: "
                                          "the exact chain vs stock sampling"),
    "family.h200.kandinsky5.shipped.speedup": ("Kandinsky 5 Video Lite 2B bf16, 768x512 121 frames, 50 steps CFG 5 (the "
                                               "template), H200: the exact chain vs stock sampling"),
}


def fig(fid: str) -> Figure:
    return FIGURES[fid]


def text(fid: str) -> str:
    """The figure as docs and strings write it, e.g. "1.50x"."""
    return FIGURES[fid].text


def num(fid: str) -> str:
    """The number alone, e.g. "1.50" (for ranges: f"{num(a)}-{text(b)}")."""
    return FIGURES[fid].number


def span(lo: str, hi: str) -> str:
    """A range of two figures of one unit: "1.21-1.31x"."""
    return f"{num(lo)}-{text(hi)}"
