"""The lab's figure table: every measured figure the docs quote, where its result file holds it, how it was measured.

A row is one number of one file under bench/results/: an id, where in the file (`src`), the value as the file holds
it and how it is written (`fmt`). Rows of one result file measured one way are listed under their `Setup`: the GPU,
the ComfyUI version, the card size the run let ComfyUI use, whether another benchmark shared the host, and the rest of
the configuration in words. The Markdown docs cite a row right after the number, `**1.50x**<!--fig:ID-->`;
tests/common/test_figures.py reads every row's file, checks each cited number against its row and the GPU, ComfyUI
version, card size and shared host the citing sentence states against the row's setup.

Adding a figure (after a GPU run whose summary is under bench/results/<gpu>/):
1. the run's `Setup` below, if no setup says how it was measured yet: `S_NAME = Setup("H200", "0.33.0", 141,
   "<model, resolution, steps, how many timed runs, the command>")` (a smaller card it played: its GB, e.g. 24;
   `shared=True` when bench/run_parallel.sh ran another benchmark beside it);
2. a row under `rows(S_NAME, "<file under bench/results/>", ...)`: `(id, src, value, fmt[, what[, scale]])`, `src`
   "json:a/b/0/c" (keys, list indices) or "md:<first cells>/...|<column>" (a Markdown table of the file: the row whose
   first cells are these, the column with this header; `**` and a trailing unit are stripped from the cell);
3. cite it in the docs; for docs/results.md in its template, bench/results_doc.md (`python bench/results_doc.py
   --write`). A figure that pack code quotes (a report, a reason string) is a row of accel/common/figures.py instead;
   `about()` below says where its file holds it and how it was measured.
Ids: `<what>.<gpu>[.<card>].<chain or setting>.<quantity>`, e.g. `matrix.h200.140.level1.speedup`.

Loaded by path (it imports no ComfyUI): the pack's accel/common/figures.py is loaded the same way.
"""
from __future__ import annotations

import dataclasses
import importlib.util
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def _load(name: str, path: Path):
    if name not in sys.modules:
        spec = importlib.util.spec_from_file_location(name, path)
        module = importlib.util.module_from_spec(spec)
        sys.modules[name] = module  # dataclasses look their module up there
        spec.loader.exec_module(module)
    return sys.modules[name]


PACK = _load("accel_common_figures", ROOT / "accel" / "common" / "figures.py")
RESULTS = PACK.RESULTS


@dataclasses.dataclass(frozen=True)
class Setup:
    """How a run was measured; the figure test compares the fields with the sentence that cites a row."""
    gpu: str  # the GPU model: "H100", "H200"
    comfyui: str  # "0.33.0", "0.3.75"; "" where no ComfyUI ran (one attention call through the kernels)
    card: int  # GB the run let ComfyUI use: the whole card (H100 80, H200 141) or the smaller card it played
    text: str  # the rest: model, resolution, steps, how many timed runs, the command
    shared: bool = False  # another benchmark ran on the same host at the same time (bench/run_parallel.sh)


@dataclasses.dataclass(frozen=True)
class Row(PACK.Figure):
    setup: Setup | None = None
    what: str = ""  # what of the run this row is, where the id does not say it all

    @property
    def config(self) -> str:
        return self.setup.text + (f", {self.what}" if self.what else "")


FIGURES: dict[str, Row] = {}


def _add(row: Row) -> None:
    assert row.id not in FIGURES, f"{row.id} is a row twice"
    FIGURES[row.id] = row


def rows(setup: Setup, file: str, *entries: tuple) -> None:
    """The rows of one result file measured with `setup`: (id, src, value, fmt[, what[, scale]])."""
    for entry in entries:
        _row(setup, file, *entry)


def _row(setup, file, fid, src, value, fmt, what="", scale=1.0):
    _add(Row(fid, file, src, value, fmt, scale, setup=setup, what=what))


# Rows in the pack's format (accel/common/figures.py) that no pack code quotes any more, only the docs: about()
# describes them as it does the pack's.
_PACK_FORMAT_ROWS = {
    "h100/family_033_ltxv_core_compile/matrix.json": [
        ("family.h100.ltxv_cc.fp8_shipped.time2", "json:chains/fp8_shipped/times_s/1", 2.094, "{:.2f} s"),
        ("family.h100.ltxv_cc.shipped.time2", "json:chains/shipped/times_s/1", 2.383, "{:.2f} s")],
    "h100/wf_lightx2v_033/sequential_80GB_fp8_fixes/matrix.json": [
        ("wf.h100.80.fix.fp8_level1.speedup", "json:chains/fp8_level1/speedup", 1.51, "{:.2f}x"),
        ("wf.h100.80.fix.level1.speedup", "json:chains/level1/speedup", 1.657, "{:.2f}x")],
    "h200/family_033_flux_1024_host_trims/new/matrix.json": [
        ("family.h200.flux.trims.fp8_shipped.speedup", "json:chains/fp8_shipped/speedup", 1.603, "{:.2f}x"),
        ("family.h200.flux.trims.shipped.speedup", "json:chains/shipped/speedup", 1.327, "{:.2f}x")],
    "h200/family_033_hunyuan_video_33f/matrix.json": [
        ("family.h200.hv.fp8_shipped.speedup", "json:chains/fp8_shipped/speedup", 1.453, "{:.2f}x"),
        ("family.h200.hv.shipped.speedup", "json:chains/shipped/speedup", 1.53, "{:.2f}x")],
    "h200/family_033_hunyuan_video_33f_24GB_occupied/matrix.json": [
        ("family.h200.24.hv.fp8_shipped.speedup", "json:chains/fp8_shipped/speedup", 1.897, "{:.2f}x"),
        ("family.h200.24.hv.shipped.speedup", "json:chains/shipped/speedup", 1.586, "{:.2f}x")],
    "h200/family_033_ltxv/matrix.json": [
        ("family.h200.ltxv.fp8_shipped.speedup", "json:chains/fp8_shipped/speedup", 1.173, "{:.2f}x"),
        ("family.h200.ltxv.fp8_shipped.time0", "json:chains/fp8_shipped/times_s/0", 2.573, "{:.2f} s"),
        ("family.h200.ltxv.fp8_shipped.time1", "json:chains/fp8_shipped/times_s/1", 2.12, "{:.2f} s"),
        ("family.h200.ltxv.shipped.speedup", "json:chains/shipped/speedup", 1.316, "{:.2f}x"),
        ("family.h200.ltxv.shipped.time0", "json:chains/shipped/times_s/0", 2.294, "{:.2f} s")],
    "h200/family_033_sdxl/sdpa_default/matrix.json": [
        ("sdxlsdpa.h200.model_scope.speedup", "json:chains/shipped_model_scope/speedup", 2.827, "{:.2f}x")],
    "h200/family_033_qwen_image_8steps/model_scope_resident_shared/matrix.json": [
        ("qwenscope.h200.model_scope.speedup", "json:chains/shipped_model_scope_resident/speedup", 1.422, "{:.2f}x"),
        ("qwenscope.h200.shipped_resident.speedup", "json:chains/shipped_resident/speedup", 1.46, "{:.2f}x")],
    "h200/family_033_z_image_peers/fp8_resident_shared/matrix.json": [
        ("zfp8res.h200.model_scope.speedup", "json:chains/shipped_model_scope_resident/speedup", 1.285, "{:.2f}x"),
        ("zfp8res.h200.shipped_resident.speedup", "json:chains/shipped_resident/speedup", 1.29, "{:.2f}x")],
    "h200/family_033_qwen_image_8steps/matrix.json": [
        ("family.h200.qwen.fp8_shipped.speedup", "json:chains/fp8_shipped/speedup", 1.63, "{:.2f}x"),
        ("family.h200.qwen.shipped.speedup", "json:chains/shipped/speedup", 1.39, "{:.2f}x")],
    "h200/family_033_wan_ti2v_5b/matrix.json": [
        ("family.h200.ti2v.fp8_shipped.speedup", "json:chains/fp8_shipped/speedup", 1.847, "{:.2f}x"),
        ("family.h200.ti2v.shipped.speedup", "json:chains/shipped/speedup", 1.567, "{:.2f}x")],
    "h100/e2e_lightx2v_033/whole_card_savevideo_level1/e2e_wan22_t2v_lightx2v.json": [
        ("e2e_wf.h100.save.level1.q2.vae_decode", "json:rows/0/queues/1/stages_s/VAE decode", 2.464, "{:.2f} s"),
        ("e2e_wf.h100.save.level1_vae.q2.vae_decode", "json:rows/1/queues/1/stages_s/VAE decode", 2.84, "{:.2f} s")],
    "h100/vae_033/vae.md": [
        ("vae.h100.compile.vae033", "md:wan2.1/fused_norm+compile|speedup", 1.383, "{:.2f}x"),
        ("vae.h100.default.vae033", "md:wan2.1/default|speedup", 1.074, "{:.2f}x"),
        ("vae.h100.fused_norm_bench.vae033", "md:wan2.1/fused_norm|speedup", 1.179, "{:.2f}x"),
        ("vae.h100.fused_norm_nobench.vae033", "md:wan2.1/fused_norm_nobench|speedup", 1.305, "{:.2f}x")],
    "h100/vae_033_cold_channels_last_benchmark/vae.md": [
        ("vae.h100.cl_bench.cold.first", "md:wan2.1/channels_last+benchmark|first (s)", 12.2564, "{:.1f} s"),
        ("vae.h100.cl_bench.cold.speedup", "md:wan2.1/channels_last+benchmark|speedup", 1.07, "{:.2f}x"),
        ("vae.h100.cl_bench.cold.stock_first", "md:wan2.1/stock|first (s)", 2.8527, "{:.1f} s")],
    "h100/vae_033_run2/vae.md": [
        ("vae.h100.default.run2", "md:wan2.1/default|speedup", 1.029, "{:.2f}x"),
        ("vae.h100.fused_norm_bench.run2", "md:wan2.1/fused_norm|speedup", 1.205, "{:.2f}x")],
    "h100/vae_033_run3/vae.md": [
        ("vae.h100.compile.run3", "md:wan2.1/fused_norm+compile|speedup", 1.249, "{:.2f}x"),
        ("vae.h100.compile_nobench.run3", "md:wan2.1/fused_norm_nobench+compile|speedup", 1.262, "{:.2f}x"),
        ("vae.h100.fused_norm_nobench.run3", "md:wan2.1/fused_norm_nobench|speedup", 1.213, "{:.2f}x")],
    "h200/vae_033/vae.md": [
        ("vae.h200.fused_norm_bench.vae033", "md:wan2.1/fused_norm|speedup", 1.329, "{:.2f}x"),
        ("vae.h200.fused_norm_bench.vae033.maxdiff", "md:wan2.1/fused_norm|max abs diff", 0.0625, "{:.3f}")],
    "h200/vae_033_fp32ref/vae.md": [
        ("vae.h200.cl_bench.first.fp32ref", "md:wan2.1/default|first (s)", 13.9048, "{:.1f} s"),
        ("vae.h200.compile.fp32ref", "md:wan2.1/fused_norm+compile|speedup", 1.294, "{:.2f}x"),
        ("vae.h200.stock.first.fp32ref", "md:wan2.1/stock|first (s)", 2.0863, "{:.1f} s")],
    "h200/vae_033_run2/vae.md": [
        ("vae.h200.cl_bench.run2.speedup", "md:wan2.1/default|speedup", 1.131, "{:.2f}x"),
        ("vae.h200.compile.run2", "md:wan2.1/fused_norm+compile|speedup", 1.484, "{:.2f}x"),
        ("vae.h200.fused_norm_bench.run2", "md:wan2.1/fused_norm|speedup", 1.388, "{:.2f}x")],
    "h200/vae_033_run3/vae.md": [
        ("vae.h200.compile_nobench.run3", "md:wan2.1/fused_norm_nobench+compile|speedup", 1.367, "{:.2f}x"),
        ("vae.h200.fused_norm_nobench.run3", "md:wan2.1/fused_norm_nobench|speedup", 1.276, "{:.2f}x"),
        ("vae.h200.fused_norm_nobench.run3.maxdiff", "md:wan2.1/fused_norm_nobench|max abs diff", 0.0703, "{:.3f}")],
    "h200/wf_lightx2v_033/sequential_141GB_fp8_fixes/matrix.json": [
        ("wf.h200.141.fix.fp8_level1.speedup", "json:chains/fp8_level1/speedup", 1.46, "{:.2f}x"),
        ("wf.h200.141.fix.level1.speedup", "json:chains/level1/speedup", 1.585, "{:.2f}x")],
}
_PACK_FORMAT = {r[0]: PACK.Figure(r[0], file, *r[1:]) for file, rs in _PACK_FORMAT_ROWS.items() for r in rs}


def about(setup: Setup, *entries: str | tuple) -> None:
    """How the pack's own rows (accel/common/figures.py) were measured: an id, or (id, what)."""
    for entry in entries:
        fid, what = (entry, "") if isinstance(entry, str) else entry
        _add(Row(**dataclasses.asdict(PACK.FIGURES.get(fid) or _PACK_FORMAT[fid]), setup=setup, what=what))


def fig(fid: str) -> Row:
    return FIGURES[fid]


def text(fid: str) -> str:
    """The figure as the docs write it, e.g. "1.50x"."""
    return FIGURES[fid].text


def num(fid: str) -> str:
    """The number alone, e.g. "1.50"."""
    return FIGURES[fid].number


# --- setups ----------------------------------------------------------------------------------------------------------
S_H100_80 = Setup("H100", "0.33.0", 80,
    "H100 80GB, Wan 2.1 T2V 14B fp16 random weights, 480p 81 frames, 2 steps CFG 5, ComfyUI 0.33.0 as main.py starts "
    "it, whole card; nodes before the V3 move, Level-1 compiling with max-autotune")

S_H100_24 = Setup("H100", "0.33.0", 24,
    "H100 80GB told it is a 24 GB card (--reserve-vram 55.65, no allocator cap), Wan 2.1 T2V 14B fp16 random weights, "
    "480p 81 frames, 2 steps CFG 5, ComfyUI 0.33.0 as main.py starts it; nodes before the V3 move, Level-1 compiling "
    "with max-autotune")

S_H200_140 = Setup("H200", "0.33.0", 141,
    "H200 141GB, Wan 2.1 T2V 14B fp16 random weights, 480p 81 frames, 2 steps CFG 5, ComfyUI 0.33.0 as main.py starts "
    "it, whole card, current nodes (Level-1 compile mode default)")

S_H200_48 = Setup("H200", "0.33.0", 48,
    "H200 told it is a 48 GB card (--reserve-vram only, no allocator cap), Wan 2.1 T2V 14B fp16 random weights, 480p "
    "81 frames, 2 steps CFG 5, ComfyUI 0.33.0 as main.py starts it, current nodes")

S_H200_32 = Setup("H200", "0.33.0", 32,
    "H200 told it is a 32 GB card (--reserve-vram only, no allocator cap), Wan 2.1 T2V 14B fp16 random weights, 480p "
    "81 frames, 2 steps CFG 5, ComfyUI 0.33.0 as main.py starts it, current nodes")

S_H200_24 = Setup("H200", "0.33.0", 24,
    "H200 as a 24 GB card: --reserve-vram plus torch's caching allocator capped at 24 GiB (--hard-cap); other "
    "allocations not capped; Wan 2.1 T2V 14B fp16 random weights, 480p 81 frames, 2 steps CFG 5, ComfyUI 0.33.0 as "
    "main.py starts it, current nodes")

S_H200_075 = Setup("H200", "0.3.75", 141,
    "H200 141GB, Wan 2.1 T2V 14B fp16 random weights, 480p 81 frames, 2 steps CFG 5, ComfyUI 0.3.75, whole model "
    "loaded")

S_H100_075 = Setup("H100", "0.3.75", 80,
    "H100 80GB, Wan 2.1 T2V 14B fp16 random weights, 480p 81 frames, 2 steps CFG 5, ComfyUI 0.3.75, whole model loaded")

S_M033_H200 = Setup("H200", "0.33.0", 141,
    "H200, Wan 2.1 T2V 14B fp16 random weights, 480p 81 frames, 2 steps CFG 5, ComfyUI 0.33.0 as main.py starts it")

S_ATTN_H100 = Setup("H100", "0.3.75", 80,
    "H100 80GB, one attention call, bf16, batch 1, head_dim 128, ComfyUI 0.3.75, torch 2.11")

S_LEVEL1_H100 = Setup("H100", "0.3.75", 80,
    "H100 80GB, ComfyUI 0.3.75, Wan 2.1 true config random weights, 480p 81 frames, one forward, Level-1 with "
    "max-autotune-no-cudagraphs (bench_level1.py)")

S_COMPILE_H100 = Setup("H100", "0.3.75", 80,
    "H100 80GB, ComfyUI 0.3.75, Wan 2.1 1.3B random weights, 480p 81 frames, per-block compile, default mode; warm "
    "restart = compile time in a second process with the same cache")

S_VAE_H200 = Setup("H200", "0.33.0", 141, "H200, Wan 2.1 VAE random weights, bf16, 81 frames 832x480, ComfyUI 0.33.0")
S_VAE_H100 = Setup("H100", "0.33.0", 80, "H100, Wan 2.1 VAE random weights, bf16, 81 frames 832x480, ComfyUI 0.33.0")
S_E2E = Setup("H100", "0.33.0", 80,
    "H100 80GB, ComfyUI 0.33.0 live server, the shipped Wan 2.1 T2V 1.3B API workflow's graph run at 4 steps and 81 "
    "frames 480p (the file: 30 steps, 33 frames), animated WEBP save (no PyAV), one sample per variant, Queue 2")

S_H100_80_NOW = Setup("H100", "0.33.0", 80,
    "H100 80GB, Wan 2.1 T2V 14B fp16 random weights, 480p 81 frames, 2 steps CFG 5, ComfyUI 0.33.0 as main.py starts "
    "it, whole card, current nodes (Level-1 compile mode default), each chain on its own (bench_matrix.py "
    "--sequential), median of 2 runs (the slower of the two)")

S_H100_24_NOW = Setup("H100", "0.33.0", 24,
    "H100 80GB as a 24 GB card: another process holds the other 55.6 GiB before ComfyUI starts (every allocator sees "
    "24 GiB), Wan 2.1 T2V 14B fp16 random weights, 480p 81 frames, 2 steps CFG 5, ComfyUI 0.33.0 as main.py starts it, "
    "current nodes, one timed run (bench_matrix.py --sequential --occupy)")

S_H100_80_RUN2 = Setup("H100", "0.33.0", 80,
    "H100 80GB, Wan 2.1 T2V 14B fp16 random weights, 480p 81 frames, 2 steps CFG 5, ComfyUI 0.33.0 as main.py starts "
    "it, whole card, current nodes (Level-1 compile mode default), one process, one timed run per chain after its "
    "first run (second run, after the house move of issue #31)")

S_H100_OCC48 = Setup("H100", "0.33.0", 48,
    "H100 80GB as a 48 GB card: another process holds the rest of the GPU before ComfyUI starts, so every allocator "
    "sees 48 GiB (--card 48 --occupy); Wan 2.1 T2V 14B fp16 random weights, 480p 81 frames, 2 steps CFG 5, ComfyUI "
    "0.33.0 as main.py starts it, current nodes, one process, one timed run per chain after its first run")

S_H100_OCC32 = Setup("H100", "0.33.0", 32,
    "H100 80GB as a 32 GB card: another process holds the rest of the GPU before ComfyUI starts, so every allocator "
    "sees 32 GiB (--card 32 --occupy); Wan 2.1 T2V 14B fp16 random weights, 480p 81 frames, 2 steps CFG 5, ComfyUI "
    "0.33.0 as main.py starts it, current nodes, one process, one timed run per chain after its first run")

S_LEVEL1_SAMPLE_H100 = Setup("H100", "0.33.0", 80,
    "H100 80GB, ComfyUI 0.33.0, Wan 2.1 T2V 1.3B true config random weights, bf16, 480p 81 frames, 4 steps CFG 5, "
    "final latent of Level-1 vs stock, cosine summed in float64 (bench_level1.py)")

S_WF_H100_80 = Setup("H100", "0.33.0", 80,
    "H100 80GB, Wan 2.2 A14B T2V users' workflow: two experts loaded by ComfyUI's loader from a random file in "
    "ComfyUI's scaled-fp8 layout, a rank-32 LightX2V-layout LoRA on each, shift 5, 480p 81 frames, 4 steps CFG 1 split "
    "2+2, ComfyUI 0.33.0 as main.py starts it (DynamicVRAM), sampling of both experts, median of 2 runs "
    "(bench_matrix.py --workflow lightx2v --sequential), whole card")

S_FAMILY_FLUX = Setup("H100", "0.33.0", 80,
    "H100 80GB, Flux.1-dev 12B bf16, 1024x1024, 20 steps CFG 1 guidance 3.5, euler/simple, 3 timed runs, ComfyUI "
    "0.33.0 as main.py starts it (DynamicVRAM), random weights in the published key layout loaded by ComfyUI's loader, "
    "one process, first run then the chains interleaved, median of the timed runs (of two: the slower) "
    "(bench_matrix.py --family)")

S_FAMILY_TI2V = Setup("H100", "0.33.0", 80,
    "H100 80GB, Wan 2.2 TI2V-5B fp16, 1280x704 121 frames, 4 steps CFG 5, uni_pc/simple, shift 8, 2 timed runs, "
    "ComfyUI 0.33.0 as main.py starts it (DynamicVRAM), random weights in the published key layout loaded by ComfyUI's "
    "loader, one process, first run then the chains interleaved, median of the timed runs (of two: the slower) "
    "(bench_matrix.py --family)")

S_FAMILY_HV = Setup("H100", "0.33.0", 80,
    "H100 80GB, HunyuanVideo T2V 13B bf16, 960x544 33 frames, 4 steps CFG 1 guidance 6, euler/simple, ONE timed run "
    "(the call's time limit stopped the second round), ComfyUI 0.33.0 as main.py starts it (DynamicVRAM), random "
    "weights in the published key layout loaded by ComfyUI's loader, one process, first run then the chains "
    "interleaved, median of the timed runs (of two: the slower) (bench_matrix.py --family)")

S_FAMILY_LTXV = Setup("H100", "0.33.0", 80,
    "H100 80GB, LTX-Video 2B bf16, 768x512 121 frames, 20 steps CFG 3, euler/simple, 2 timed runs, ComfyUI 0.33.0 as "
    "main.py starts it (DynamicVRAM), random weights in the published key layout loaded by ComfyUI's loader, one "
    "process, first run then the chains interleaved, median of the timed runs (of two: the slower) (bench_matrix.py "
    "--family)")

S_FAMILY_QWEN = Setup("H100", "0.33.0", 80,
    "H100 80GB, Qwen-Image 20B bf16 (41 GB: DynamicVRAM streams part of it), 1328x1328, 8 steps CFG 2.5, "
    "euler/simple, shift 3.1, ComfyUI 0.33.0 as main.py starts it (DynamicVRAM), random weights in the published key "
    "layout loaded by ComfyUI's loader, one process, each chain on its own (--sequential), one timed run after its "
    "first run (bench_matrix.py --family)")

S_WF_H100_24 = Setup("H100", "0.33.0", 24,
    "H100 80GB as a 24 GB card: another process holds the other 55.6 GiB before ComfyUI starts, so every allocator "
    "sees 24 GiB; Wan 2.2 A14B T2V users' workflow: two experts loaded by ComfyUI's loader from a random file in "
    "ComfyUI's scaled-fp8 layout, a rank-32 LightX2V-layout LoRA on each, shift 5, 480p 81 frames, 4 steps CFG 1 split "
    "2+2, ComfyUI 0.33.0 as main.py starts it (DynamicVRAM), sampling of both experts, median of 2 runs "
    "(bench_matrix.py --workflow lightx2v --sequential)")

S_WF_H200_141 = Setup("H200", "0.33.0", 141,
    "H200 141GB, Wan 2.2 A14B T2V users' workflow: two experts loaded by ComfyUI's loader from a random file in "
    "ComfyUI's scaled-fp8 layout, a rank-32 LightX2V-layout LoRA on each, shift 5, 480p 81 frames, 4 steps CFG 1 split "
    "2+2, ComfyUI 0.33.0 as main.py starts it (DynamicVRAM), sampling of both experts, median of 2 runs "
    "(bench_matrix.py --workflow lightx2v --sequential), whole card")

S_E2E_WF_H200 = Setup("H200", "0.33.0", 141,
    "H200 141GB, the shipped workflows/api/wan2.2_t2v_A14B_lightx2v_4step_level1.json on a live ComfyUI 0.33.0 server "
    "(main.py), random files in the published layouts (both experts one scaled-fp8 14B file, LightX2V-layout rank-32 "
    "LoRAs, umt5-xxl in ComfyUI's scaled-fp8 layout, Wan 2.1 VAE), 480p 81 frames 4 steps, animated WEBP save (no "
    "PyAV), a fresh server per variant (bench_e2e.py --workflow wan22_t2v_lightx2v), an empty inductor cache per "
    "server")

S_E2E_WF_H100 = Setup("H100", "0.33.0", 80,
    "H100 80GB, the shipped workflows/api/wan2.2_t2v_A14B_lightx2v_4step_level1.json on a live ComfyUI 0.33.0 server "
    "(main.py), random files in the published layouts (both experts one scaled-fp8 14B file, LightX2V-layout rank-32 "
    "LoRAs, umt5-xxl in ComfyUI's scaled-fp8 layout, Wan 2.1 VAE), 480p 81 frames 4 steps, animated WEBP save (no "
    "PyAV), a fresh server per variant (bench_e2e.py --workflow wan22_t2v_lightx2v); the servers shared one inductor "
    "cache (level1+vae's Queue 1 reused level1's kernels)")

S_E2E_WF_H100_24 = Setup("H100", "0.33.0", 24,
    "H100 80GB as a 24 GB card (another process holds the rest before the servers start), the shipped "
    "workflows/api/wan2.2_t2v_A14B_lightx2v_4step_level1.json on a live ComfyUI 0.33.0 server (main.py), random files "
    "in the published layouts (both experts one scaled-fp8 14B file, LightX2V-layout rank-32 LoRAs, umt5-xxl in "
    "ComfyUI's scaled-fp8 layout, Wan 2.1 VAE), 480p 81 frames 4 steps, animated WEBP save (no PyAV), a fresh server "
    "per variant (bench_e2e.py --workflow wan22_t2v_lightx2v)")

S_SPARSE_H100 = Setup("H100", "", 80,
    "H100 80GB HBM3, torch 2.11, one attention call, Wan 14B shape (40 heads of 128), bf16 random q/k/v, radial "
    "pattern via compiled flex_attention vs FA3 dense (fa3-fwd), median of 10 (bench/bench_sparse_attention.py "
    "--backends flex)")

S_ATTN_FA4_H100 = Setup("H100", "", 80,
    "H100 80GB HBM3, torch 2.11, fa3-fwd 0.0.3, flash-attn-4 4.0.0b36, one attention call through the pack's adapter "
    "as Wan calls it, bf16, median of 5 (bench/bench_attention.py --skip-model)")

S_SPARSE_FA4_H100 = Setup("H100", "", 80,
    "H100 80GB HBM3, torch 2.11, flash-attn-4 4.0.0b36 (nvidia-cutlass-dsl 4.8.1, cu13), one attention call, Wan 14B "
    "shape (40 heads of 128), bf16 random q/k/v, radial pattern via FA4 block-sparse or compiled flex_attention vs FA3 "
    "dense (fa3-fwd), median of 10 (bench/bench_sparse_attention.py --backends flex,fa4)")

S_WF720_FA4 = Setup("H100", "0.33.0", 80,
    "Wan 2.2 A14B T2V users' workflow (fp8_scaled experts + rank-32 LightX2V LoRA, shift 5, 4 steps CFG 1 split 2+2) "
    "at 720x1280 81 frames, H100 80GB, ComfyUI 0.33.0 (DynamicVRAM), all chains in one process, one timed run after "
    "each first run (bench_matrix.py --workflow lightx2v --chains stock,level1,level1_sparse), sparse kernel "
    "FlashAttention-4 block-sparse (flash-attn-4 4.0.0b36), the high-noise expert's first step dense")

S_WF121_FA4_24 = Setup("H100", "0.33.0", 24,
    "Wan 2.2 A14B T2V users' workflow (fp8_scaled experts + rank-32 LightX2V LoRA, shift 5, 4 steps CFG 1 split 2+2) "
    "at 720x1280 121 frames, H100 80GB as a 24 GB card (another process holds the other 55.6 GiB before ComfyUI "
    "starts, so every allocator sees 24 GiB), ComfyUI 0.33.0 (DynamicVRAM), each chain on its own, one timed run after "
    "its first run (bench_matrix.py --workflow lightx2v --frames 121 --card 24 --occupy --sequential), sparse kernel "
    "FlashAttention-4 block-sparse (flash-attn-4 4.0.0b36), the high-noise expert's first step dense")

S_WF720_FLEX = Setup("H100", "0.33.0", 80,
    "Wan 2.2 A14B T2V users' workflow (fp8_scaled experts + rank-32 LightX2V LoRA, shift 5, 4 steps CFG 1 split 2+2) "
    "at 720x1280 81 frames, H100 80GB, ComfyUI 0.33.0 (DynamicVRAM), all chains in one process, one timed run after "
    "each first run (bench_matrix.py --workflow lightx2v --chains stock,level1,level1_sparse), sparse kernel "
    "flex_attention, the high-noise expert's first step dense")

S_WF720_FLEX_OLD = Setup("H100", "0.33.0", 80,
    "Wan 2.2 A14B T2V users' workflow (fp8_scaled experts + rank-32 LightX2V LoRA, shift 5, 4 steps CFG 1 split 2+2) "
    "at 720x1280 81 frames, H100 80GB, ComfyUI 0.33.0 (DynamicVRAM), all chains in one process, one timed run after "
    "each first run (bench_matrix.py --workflow lightx2v --chains stock,level1,level1_sparse), sparse kernel "
    "flex_attention, each expert's first step dense")

S_WF480_SPARSE = Setup("H100", "0.33.0", 80,
    "Wan 2.2 A14B T2V users' workflow (fp8_scaled experts + rank-32 LightX2V LoRA, shift 5, 4 steps CFG 1 split 2+2) "
    "at 480x832 81 frames, H100 80GB, ComfyUI 0.33.0 (DynamicVRAM), all chains in one process, one timed run after "
    "each first run (bench_matrix.py --workflow lightx2v --chains stock,level1,level1_sparse), sparse kernel "
    "flex_attention, each expert's first step dense")

S_WF_FP8_LOWRANK = Setup("H100", "0.33.0", 80,
    "H100 80GB, Wan 2.2 A14B T2V users' workflow: two experts loaded by ComfyUI's loader from a random file in "
    "ComfyUI's scaled-fp8 layout, a rank-32 LightX2V-layout LoRA on each, shift 5, 480p 81 frames, 4 steps CFG 1 split "
    "2+2, ComfyUI 0.33.0 as main.py starts it (DynamicVRAM), sampling of both experts, one timed run (bench_matrix.py "
    "--workflow lightx2v --sequential), FP8 loader with the LoRA beside the FP8 matmul (low-rank path)")

S_WF_FP8_FIXES_H200 = Setup("H200", "0.33.0", 141,
    "H200 141GB, Wan 2.2 A14B T2V users' workflow: two experts loaded by ComfyUI's loader from a random file in "
    "ComfyUI's scaled-fp8 layout, a rank-32 LightX2V-layout LoRA on each, shift 5, 480p 81 frames, 4 steps CFG 1 split "
    "2+2, ComfyUI 0.33.0 as main.py starts it (DynamicVRAM), sampling of both experts, the slower of 2 timed runs "
    "(bench_matrix.py --workflow lightx2v --sequential), whole card, after the FP8 loader's two fixes (fp8 dtype "
    "declared to DynamicVRAM; LoRA factors copied from pinned memory)")

S_WF_FP8_DTYPE_H100 = Setup("H100", "0.33.0", 80,
    "H100 80GB, Wan 2.2 A14B T2V users' workflow: two experts loaded by ComfyUI's loader from a random file in "
    "ComfyUI's scaled-fp8 layout, a rank-32 LightX2V-layout LoRA on each, shift 5, 480p 81 frames, 4 steps CFG 1 split "
    "2+2, ComfyUI 0.33.0 as main.py starts it (DynamicVRAM), sampling of both experts, one timed run (bench_matrix.py "
    "--workflow lightx2v --sequential), whole card, after the FP8 loader declares its fp8 dtype to DynamicVRAM (before "
    "the LoRA copy fix)")

S_WF_H100_80_ONE_RUN = Setup("H100", "0.33.0", 80,
    "H100 80GB, Wan 2.2 A14B T2V users' workflow: two experts loaded by ComfyUI's loader from a random file in "
    "ComfyUI's scaled-fp8 layout, a rank-32 LightX2V-layout LoRA on each, shift 5, 480p 81 frames, 4 steps CFG 1 split "
    "2+2, ComfyUI 0.33.0 as main.py starts it (DynamicVRAM), sampling of both experts, one timed run (bench_matrix.py "
    "--workflow lightx2v --sequential), whole card")

S_WF_FP8_FIXES_H100 = Setup("H100", "0.33.0", 80,
    "H100 80GB, Wan 2.2 A14B T2V users' workflow: two experts loaded by ComfyUI's loader from a random file in "
    "ComfyUI's scaled-fp8 layout, a rank-32 LightX2V-layout LoRA on each, shift 5, 480p 81 frames, 4 steps CFG 1 split "
    "2+2, ComfyUI 0.33.0 as main.py starts it (DynamicVRAM), sampling of both experts, the slower of 2 timed runs "
    "(bench_matrix.py --workflow lightx2v --sequential), whole card, after the FP8 loader's two fixes (fp8 dtype "
    "declared to DynamicVRAM; LoRA factors copied from pinned memory)")

S_FAMILY_QWEN_FIX = Setup("H100", "0.33.0", 80,
    "H100 80GB, Qwen-Image 20B bf16 (41 GB: DynamicVRAM streams part of it), 1328x1328, 8 steps CFG 2.5, "
    "euler/simple, shift 3.1, ComfyUI 0.33.0 as main.py starts it (DynamicVRAM), random weights in the published key "
    "layout loaded by ComfyUI's loader, one process, each chain on its own (--sequential), the slower of 2 timed runs "
    "after its first run (bench_matrix.py --family), after the FP8 loader declares its fp8 dtype to DynamicVRAM")

S_FAMILY_FLUX_H200 = Setup("H200", "0.33.0", 141,
    "H200 141GB, Flux.1-dev 12B bf16, 1024x1024, 20 steps CFG 1 guidance 3.5, euler/simple, ComfyUI 0.33.0 as main.py "
    "starts it (DynamicVRAM), random weights, each chain on its own (--sequential), the slower of 2 timed runs "
    "(bench_matrix.py --family flux)")

S_FAMILY_FLUX_TRIMS = Setup("H200", "0.33.0", 141,
    "H200 141GB, Flux.1-dev 12B bf16, 1024x1024, 20 steps CFG 1 guidance 3.5, euler/simple, ComfyUI 0.33.0 as main.py "
    "starts it (DynamicVRAM), random weights, each chain on its own (--sequential), the slower of 2 timed runs "
    "(bench_matrix.py --family flux), after the compiled blocks' host-time trims (RoPE traced, FA3 raw call, attribute "
    "swaps)")

S_FAMILY_FLUX_TRIMS_H100 = Setup("H100", "0.33.0", 80,
    "H100 80GB, Flux.1-dev 12B bf16, 1024x1024, 20 steps CFG 1 guidance 3.5, euler/simple, ComfyUI 0.33.0 as main.py "
    "starts it (DynamicVRAM), random weights, each chain on its own (--sequential), one timed run (bench_matrix.py "
    "--family flux), after the compiled blocks' host-time trims (RoPE traced, FA3 raw call, attribute swaps)")

S_WF_TRIMS_H200 = Setup("H200", "0.33.0", 141,
    "H200 141GB, Wan 2.2 A14B T2V users' workflow: two experts loaded by ComfyUI's loader from a random file in "
    "ComfyUI's scaled-fp8 layout, a rank-32 LightX2V-layout LoRA on each, shift 5, 480p 81 frames, 4 steps CFG 1 split "
    "2+2, ComfyUI 0.33.0 as main.py starts it (DynamicVRAM), sampling of both experts, the slower of 2 timed runs "
    "(bench_matrix.py --workflow lightx2v --sequential), whole card, after the FP8 loader's two fixes (fp8 dtype "
    "declared to DynamicVRAM; LoRA factors copied from pinned memory), and the compiled blocks' host-time trims (RoPE "
    "traced, FA3 raw call, attribute swaps)")

S_WF_H100_24_NOW = Setup("H100", "0.33.0", 24,
    "H100 80GB as a 24 GB card: another process holds the other 55.6 GiB before ComfyUI starts, so every allocator "
    "sees 24 GiB; Wan 2.2 A14B T2V users' workflow: two experts loaded by ComfyUI's loader from a random file in "
    "ComfyUI's scaled-fp8 layout, a rank-32 LightX2V-layout LoRA on each, shift 5, 480p 81 frames, 4 steps CFG 1 split "
    "2+2, ComfyUI 0.33.0 as main.py starts it (DynamicVRAM), sampling of both experts, one timed run (bench_matrix.py "
    "--workflow lightx2v --sequential), this version (the FP8 loader's fixes and the compiled blocks' host-time "
    "trims), then one run under torch.profiler (--profile)")

S_WF_H200_24 = Setup("H200", "0.33.0", 24,
    "H200 141GB as a 24 GB card: another process holds the rest of the GPU before ComfyUI starts, so every allocator "
    "sees 24 GiB; Wan 2.2 A14B T2V users' workflow: two experts loaded by ComfyUI's loader from a random file in "
    "ComfyUI's scaled-fp8 layout, a rank-32 LightX2V-layout LoRA on each, shift 5, 480p 81 frames, 4 steps CFG 1 split "
    "2+2, ComfyUI 0.33.0 as main.py starts it (DynamicVRAM), sampling of both experts, one timed run (bench_matrix.py "
    "--workflow lightx2v --sequential), this version (the FP8 loader's fixes and the compiled blocks' host-time trims)")

S_E2E_WF_H200_SAVE = Setup("H200", "0.33.0", 141,
    "H200 141GB, the shipped workflows/api/wan2.2_t2v_A14B_lightx2v_4step_level1.json on a live ComfyUI 0.33.0 server "
    "(main.py), random files in the published layouts (both experts one scaled-fp8 14B file, LightX2V-layout rank-32 "
    "LoRAs, umt5-xxl in ComfyUI's scaled-fp8 layout, Wan 2.1 VAE), 480p 81 frames 4 steps, the workflow's own "
    "CreateVideo -> SaveVideo (PyAV 19.0.2 carried: h264 MP4), a fresh server per variant (bench_e2e.py --workflow "
    "wan22_t2v_lightx2v), an empty inductor cache per server")

S_E2E_WF_H200_24_SAVE = Setup("H200", "0.33.0", 24,
    "H200 141GB as a 24 GB card (another process holds the rest before the servers start), the shipped "
    "workflows/api/wan2.2_t2v_A14B_lightx2v_4step_level1.json on a live ComfyUI 0.33.0 server (main.py), random files "
    "in the published layouts (both experts one scaled-fp8 14B file, LightX2V-layout rank-32 LoRAs, umt5-xxl in "
    "ComfyUI's scaled-fp8 layout, Wan 2.1 VAE), 480p 81 frames 4 steps, the workflow's own CreateVideo -> SaveVideo "
    "(PyAV 19.0.2 carried: h264 MP4), a fresh server per variant (bench_e2e.py --workflow wan22_t2v_lightx2v), an "
    "empty inductor cache per server")

S_FAMILY_FLUX_RUN2_H100 = Setup("H100", "0.33.0", 80,
    "H100 80GB, Flux.1-dev 12B bf16, 1024x1024, 20 steps CFG 1 guidance 3.5, euler/simple, ComfyUI 0.33.0 as main.py "
    "starts it (DynamicVRAM), random weights, each chain on its own (--sequential), the slower of 2 timed runs "
    "(bench_matrix.py --family flux), after the compiled blocks' host-time trims (RoPE traced, FA3 raw call, attribute "
    "swaps)")

S_MGKILL = Setup("H100", "0.33.0", 80,
    "two H100 80GB (one host, NCCL), ComfyUI 0.33.0 live server, Wan 2.1 T2V 1.3B random bf16 weights, Accel "
    "Multi-GPU 2 workers, one worker SIGKILLed after the first sampling step (bench_reliability.py --cases "
    "multigpu_kill --gpus 2)")

S_E2E_WF_H100_SAVE = Setup("H100", "0.33.0", 80,
    "H100 80GB, the shipped workflows/api/wan2.2_t2v_A14B_lightx2v_4step_level1.json on a live ComfyUI 0.33.0 server "
    "(main.py), random files in the published layouts (both experts one scaled-fp8 14B file, LightX2V-layout rank-32 "
    "LoRAs, umt5-xxl in ComfyUI's scaled-fp8 layout, Wan 2.1 VAE), 480p 81 frames 4 steps, the workflow's own "
    "CreateVideo -> SaveVideo (PyAV 19.0.2 carried: h264 MP4), a fresh server per variant (bench_e2e.py --workflow "
    "wan22_t2v_lightx2v), an empty inductor cache per server")

S_E2E_WF_H100_FRESH = Setup("H100", "0.33.0", 80,
    "H100 80GB, the shipped workflows/api/wan2.2_t2v_A14B_lightx2v_4step_level1.json on a live ComfyUI 0.33.0 server "
    "(main.py), random files in the published layouts (both experts one scaled-fp8 14B file, LightX2V-layout rank-32 "
    "LoRAs, umt5-xxl in ComfyUI's scaled-fp8 layout, Wan 2.1 VAE), 480p 81 frames 4 steps, animated WEBP save (no "
    "PyAV), a fresh server per variant (bench_e2e.py --workflow wan22_t2v_lightx2v), an empty inductor cache per "
    "server")

S_SAVE_H100 = Setup("H100", "0.33.0", 80,
    "ComfyUI 0.33.0's video save (VideoFromComponents.save_to as SaveVideo calls it: h264 MP4, format and codec "
    "auto), 81 frames 832x480 at 16 fps, PyAV 19.0.2, on the 16 CPU cores of the H100 GPU machine (bench_save.py)")

S_WF_H100_24_AIMDO = Setup("H100", "0.33.0", 24,
    "H100 80GB as a 24 GB card: another process holds the other 55.6 GiB before ComfyUI starts, so every allocator "
    "sees 24 GiB; Wan 2.2 A14B T2V users' workflow: two experts loaded by ComfyUI's loader from a random file in "
    "ComfyUI's scaled-fp8 layout, a rank-32 LightX2V-layout LoRA on each, shift 5, 480p 81 frames, 4 steps CFG 1 split "
    "2+2, ComfyUI 0.33.0 as main.py starts it (DynamicVRAM), sampling of both experts, 2 timed runs (bench_matrix.py "
    "--workflow lightx2v --sequential), this version (the FP8 loader's fixes and the compiled blocks' host-time "
    "trims), then one run under torch.profiler (--profile), comfy-aimdo's native log level set as main.py sets it (the "
    "harness did not before), and one run under Python's cProfile (--host-profile)")

S_WF_H100_24_NATIVE = Setup("H100", "0.33.0", 24,
    "H100 80GB as a 24 GB card: another process holds the other 55.6 GiB before ComfyUI starts, so every allocator "
    "sees 24 GiB; Wan 2.2 A14B T2V users' workflow: two experts loaded by ComfyUI's loader from a random file in "
    "ComfyUI's scaled-fp8 layout, a rank-32 LightX2V-layout LoRA on each, shift 5, 480p 81 frames, 4 steps CFG 1 split "
    "2+2, ComfyUI 0.33.0 as main.py starts it (DynamicVRAM), sampling of both experts, one timed run (bench_matrix.py "
    "--workflow lightx2v --sequential), this version (the FP8 loader's fixes and the compiled blocks' host-time "
    "trims), then one run under torch.profiler (--profile), ComfyUI started with --disable-cuda-malloc (PyTorch's "
    "caching allocator instead of cudaMallocAsync)")

S_FAMILY_LTXV_CC = Setup("H100", "0.33.0", 80,
    "H100 80GB, LTX-Video 2B bf16, 768x512 121 frames, 20 steps CFG 3, euler/simple, 2 timed runs, ComfyUI 0.33.0 as "
    "main.py starts it (DynamicVRAM), random weights in the published key layout loaded by ComfyUI's loader, one "
    "process, first run then the chains interleaved, median of the timed runs (of two: the slower) (bench_matrix.py "
    "--family), each chain on its own (--sequential), after the AdaLN tracing; ComfyUI's TorchCompileModel again")

S_HV_SPARSE_65 = Setup("H100", "0.33.0", 80,
    "H100 80GB, HunyuanVideo T2V 13B bf16 (random weights, true config), 1280x720, 3 steps CFG 1 guidance 6, 256 text "
    "tokens, ComfyUI 0.33.0 as main.py starts it (DynamicVRAM), torch 2.11, fa3-fwd 0.0.3, sparse kernel "
    "flex_attention, each chain on its own (--sequential), 65 frames")

S_HV_SPARSE_129 = Setup("H100", "0.33.0", 80,
    "H100 80GB, HunyuanVideo T2V 13B bf16 (random weights, true config), 1280x720, 3 steps CFG 1 guidance 6, 256 text "
    "tokens, ComfyUI 0.33.0 as main.py starts it (DynamicVRAM), torch 2.11, fa3-fwd 0.0.3, sparse kernel "
    "flex_attention, each chain on its own (--sequential), 129 frames, after the int32-offset fix")

S_HV_SPARSE_129_BEFORE_FIX = Setup("H100", "0.33.0", 80,
    "H100 80GB, HunyuanVideo T2V 13B bf16 (random weights, true config), 1280x720, 3 steps CFG 1 guidance 6, 256 text "
    "tokens, ComfyUI 0.33.0 as main.py starts it (DynamicVRAM), torch 2.11, fa3-fwd 0.0.3, sparse kernel "
    "flex_attention, each chain on its own (--sequential), 129 frames, another H100")

S_HV_SPARSE_KERNEL = Setup("H100", "", 80,
    "H100 80GB, one attention call at HunyuanVideo 720p 129 frames (33x45x80 video tokens + 256 text tokens before "
    "them, 24 heads of 128, bf16), median of 10 after warm-up, torch 2.11")

S_E2E_WF_H100_24_SAVE = Setup("H100", "0.33.0", 24,
    "H100 80GB as a 24 GB card (another process holds the rest before the servers start), the shipped "
    "workflows/api/wan2.2_t2v_A14B_lightx2v_4step_level1.json on a live ComfyUI 0.33.0 server (main.py), random files "
    "in the published layouts (both experts one scaled-fp8 14B file, LightX2V-layout rank-32 LoRAs, umt5-xxl in "
    "ComfyUI's scaled-fp8 layout, Wan 2.1 VAE), 480p 81 frames 4 steps, the workflow's own CreateVideo -> SaveVideo "
    "(PyAV 19.0.2 carried: h264 MP4), a fresh server per variant (bench_e2e.py --workflow wan22_t2v_lightx2v), an "
    "empty inductor cache per server")

S_HV_SPARSE_KERNEL_FA4 = Setup("H100", "", 80,
    "H100 80GB, one attention call at HunyuanVideo 720p 129 frames (33x45x80 video tokens + 256 text tokens before "
    "them, 24 heads of 128, bf16), median of 10 after warm-up, torch 2.11, flash-attn-4 4.0.0b36")

S_WAN_SPARSE_KERNEL_FA4 = Setup("H100", "", 80,
    "H100 80GB, one attention call at Wan 14B 720p 81 frames (21x45x80 tokens, 40 heads of 128, bf16), median of 10 "
    "after warm-up, torch 2.11, flash-attn-4 4.0.0b36")

S_HV_SPARSE_FA4_65 = Setup("H100", "0.33.0", 80,
    "H100 80GB, HunyuanVideo T2V 13B bf16 (random weights, true config), 1280x720, 3 steps CFG 1 guidance 6, 256 text "
    "tokens, ComfyUI 0.33.0 as main.py starts it (DynamicVRAM), torch 2.11, fa3-fwd 0.0.3, sparse kernel "
    "FlashAttention-4 block-sparse (flash-attn-4 4.0.0b36 carried), each chain on its own (--sequential), 65 frames")

S_HV_SPARSE_FA4_129 = Setup("H100", "0.33.0", 80,
    "H100 80GB, HunyuanVideo T2V 13B bf16 (random weights, true config), 1280x720, 3 steps CFG 1 guidance 6, 256 text "
    "tokens, ComfyUI 0.33.0 as main.py starts it (DynamicVRAM), torch 2.11, fa3-fwd 0.0.3, sparse kernel "
    "FlashAttention-4 block-sparse (flash-attn-4 4.0.0b36 carried), each chain on its own (--sequential), 129 frames")

S_WF_H100_24_RESERVE = Setup("H100", "0.33.0", 24,
    "H100 80GB as a 24 GB card: another process holds the other 55.6 GiB before ComfyUI starts, so every allocator "
    "sees 24 GiB; Wan 2.2 A14B T2V users' workflow: two experts loaded by ComfyUI's loader from a random file in "
    "ComfyUI's scaled-fp8 layout, a rank-32 LightX2V-layout LoRA on each, shift 5, 480p 81 frames, 4 steps CFG 1 split "
    "2+2, ComfyUI 0.33.0 as main.py starts it (DynamicVRAM), sampling of both experts, one timed run (bench_matrix.py "
    "--workflow lightx2v --sequential), this version, an A/B of comfy-aimdo's headroom: ComfyUI's default "
    "--reserve-vram")

S_WF_H100_24_RESERVE3 = Setup("H100", "0.33.0", 24,
    "H100 80GB as a 24 GB card: another process holds the other 55.6 GiB before ComfyUI starts, so every allocator "
    "sees 24 GiB; Wan 2.2 A14B T2V users' workflow: two experts loaded by ComfyUI's loader from a random file in "
    "ComfyUI's scaled-fp8 layout, a rank-32 LightX2V-layout LoRA on each, shift 5, 480p 81 frames, 4 steps CFG 1 split "
    "2+2, ComfyUI 0.33.0 as main.py starts it (DynamicVRAM), sampling of both experts, one timed run (bench_matrix.py "
    "--workflow lightx2v --sequential), this version, an A/B of comfy-aimdo's headroom: ComfyUI started with "
    "--reserve-vram 3")

S_WF_H100_80_SAME = Setup("H100", "0.33.0", 80,
    "H100 80GB, Wan 2.2 A14B T2V users' workflow: two experts loaded by ComfyUI's loader from a random file in "
    "ComfyUI's scaled-fp8 layout, a rank-32 LightX2V-layout LoRA on each, shift 5, 480p 81 frames, 4 steps CFG 1 split "
    "2+2, ComfyUI 0.33.0 as main.py starts it (DynamicVRAM), sampling of both experts, one timed run (bench_matrix.py "
    "--workflow lightx2v --sequential), whole card, this version, the same H100 machine right after the 24 GB A/B")

S_WF720_FA4_NODENSE = Setup("H100", "0.33.0", 80,
    "one of the two H100 80GB GPUs of one machine, another benchmark on the other GPU at the same time "
    "(bench/run_parallel.sh: shared CPU, RAM and disk), Wan 2.2 A14B T2V users' workflow (fp8_scaled experts + rank-32 "
    "LightX2V LoRA, shift 5, 4 steps CFG 1 split 2+2) at 720x1280 81 frames, ComfyUI 0.33.0 (DynamicVRAM), torch 2.11, "
    "fa3-fwd 0.0.3, all chains in one process, one timed run after each first run (bench_matrix.py --workflow lightx2v "
    "--height 720 --width 1280 --chains stock,level1,level1_sparse,sparse_nodense_compile), sparse kernel "
    "FlashAttention-4 block-sparse (flash-attn-4 4.0.0b36)", shared=True)

S_WF720_FA4_24 = Setup("H100", "0.33.0", 24,
    "H100 80GB as a 24 GB card (another process holds the other 55.6 GiB before ComfyUI starts), one of "
    "the two H100 80GB GPUs of one machine, another benchmark on the other GPU at the same time "
    "(bench/run_parallel.sh: shared CPU, RAM and disk), Wan 2.2 A14B T2V users' workflow (fp8_scaled experts + rank-32 "
    "LightX2V LoRA, shift 5, 4 steps CFG 1 split 2+2) at 720x1280 81 frames, ComfyUI 0.33.0 (DynamicVRAM), torch 2.11, "
    "fa3-fwd 0.0.3, all chains in one process, one timed run after each first run (bench_matrix.py --workflow lightx2v "
    "--height 720 --width 1280 --card 24 --occupy --chains stock,level1,level1_sparse), sparse kernel FlashAttention-4 "
    "block-sparse (flash-attn-4 4.0.0b36), the high-noise expert's first step dense", shared=True)

S_WF121_EXACT_24 = Setup("H100", "0.33.0", 24,
    "H100 80GB as a 24 GB card (another process holds the other 55.6 GiB before ComfyUI starts), one of "
    "the two H100 80GB GPUs of one machine, another benchmark on the other GPU at the same time "
    "(bench/run_parallel.sh: shared CPU, RAM and disk), Wan 2.2 A14B T2V users' workflow (fp8_scaled experts + rank-32 "
    "LightX2V LoRA, shift 5, 4 steps CFG 1 split 2+2) at 720x1280 121 frames, ComfyUI 0.33.0 (DynamicVRAM), torch "
    "2.11, fa3-fwd 0.0.3, all chains in one process, one timed run after each first run (bench_matrix.py --workflow "
    "lightx2v --height 720 --width 1280 --frames 121 --card 24 --occupy --chains stock,level1)", shared=True)

S_HV_SAME_GPU_EXACT = Setup("H100", "0.33.0", 80,
    "one of the two H100 80GB GPUs of one machine, another benchmark on the other GPU at the same time "
    "(bench/run_parallel.sh: shared CPU, RAM and disk), HunyuanVideo T2V 13B bf16 (random weights, true config), "
    "1280x720, 3 steps CFG 1 guidance 6, 256 text tokens, ComfyUI 0.33.0 as main.py starts it (DynamicVRAM), torch "
    "2.11, fa3-fwd 0.0.3, chains in one process (not --sequential), 129 frames, two calls in succession on the same "
    "GPU, each with its own stock: the exact chain (first call)", shared=True)

S_HV_SAME_GPU_SPARSE = Setup("H100", "0.33.0", 80,
    "one of the two H100 80GB GPUs of one machine, another benchmark on the other GPU at the same time "
    "(bench/run_parallel.sh: shared CPU, RAM and disk), HunyuanVideo T2V 13B bf16 (random weights, true config), "
    "1280x720, 3 steps CFG 1 guidance 6, 256 text tokens, ComfyUI 0.33.0 as main.py starts it (DynamicVRAM), torch "
    "2.11, fa3-fwd 0.0.3, chains in one process (not --sequential), 129 frames, two calls in succession on the same "
    "GPU, each with its own stock: the radial_sparse chain with FlashAttention-4 block-sparse (flash-attn-4 4.0.0b36; "
    "second call)", shared=True)

S_LTXV_SPARSE = Setup("H100", "0.33.0", 80,
    "one of the two H100 80GB GPUs of one machine, another benchmark on the other GPU at the same time "
    "(bench/run_parallel.sh: shared CPU, RAM and disk), LTX-Video 2B bf16, 768x512 121 frames (6,144 video tokens), 20 "
    "steps CFG 3, euler/simple, 128 text tokens (their mask passed to cross-attention), 2 timed runs, ComfyUI 0.33.0 "
    "as main.py starts it (DynamicVRAM), random weights in the published key layout loaded by ComfyUI's loader, one "
    "process, first run then the chains interleaved, median of the timed runs (of two: the slower) (bench_matrix.py "
    "--family), FlashAttention-4 block-sparse (flash-attn-4 4.0.0b36), after the masked-call fix", shared=True)

S_WF_FP8_AUTO_H100 = Setup("H100", "0.33.0", 80,
    "H100 80GB, Wan 2.2 A14B T2V users' workflow: two experts loaded by ComfyUI's loader from a random file in "
    "ComfyUI's scaled-fp8 layout, a rank-32 LightX2V-layout LoRA on each, shift 5, 480p 81 frames, 4 steps CFG 1 split "
    "2+2, ComfyUI 0.33.0 as main.py starts it (DynamicVRAM), sampling of both experts, one timed run (bench_matrix.py "
    "--workflow lightx2v --sequential), whole card, this version: the FP8 loader's auto loads the fp8_scaled experts "
    "as ComfyUI's Load Diffusion Model does (its own FP8 layers, accel.common.defaults.FP8_STORED_MEASURED)")

S_E2E_I2V_H200 = Setup("H200", "0.33.0", 141,
    "one of the two H200 141GB GPUs of one machine, another benchmark on the other GPU at the same time "
    "(bench/run_parallel.sh: shared CPU, RAM and disk), the shipped "
    "workflows/api/wan2.2_i2v_A14B_lightx2v_4step_level1.json on a live ComfyUI 0.33.0 server (main.py), random files "
    "in the published layouts (both experts one scaled-fp8 14B file, LightX2V-layout rank-32 LoRAs, umt5-xxl in "
    "ComfyUI's scaled-fp8 layout, Wan 2.1 VAE, a random PNG through LoadImage -> WanImageToVideo), 480p 81 frames 4 "
    "steps, the workflow's own CreateVideo -> SaveVideo (PyAV 19.0.2 carried: h264 MP4), a fresh server per variant "
    "(bench_e2e.py --workflow wan22_i2v_lightx2v), an empty inductor cache per server", shared=True)

S_E2E_I2V_H200_24 = Setup("H200", "0.33.0", 24,
    "one of the two H200 141GB GPUs of one machine, another benchmark on the other GPU at the same time "
    "(bench/run_parallel.sh: shared CPU, RAM and disk), as a 24 GB card (another process holds the rest of the GPU "
    "before ComfyUI starts, so every allocator sees 24 GiB), the shipped "
    "workflows/api/wan2.2_i2v_A14B_lightx2v_4step_level1.json on a live ComfyUI 0.33.0 server (main.py), random files "
    "in the published layouts (both experts one scaled-fp8 14B file, LightX2V-layout rank-32 LoRAs, umt5-xxl in "
    "ComfyUI's scaled-fp8 layout, Wan 2.1 VAE, a random PNG through LoadImage -> WanImageToVideo), 480p 81 frames 4 "
    "steps, the workflow's own CreateVideo -> SaveVideo (PyAV 19.0.2 carried: h264 MP4), a fresh server per variant "
    "(bench_e2e.py --workflow wan22_i2v_lightx2v), an empty inductor cache per server", shared=True)

S_FAMILY_H200_TI2V = Setup("H200", "0.33.0", 141,
    "one of the two H200 141GB GPUs of one machine, another benchmark on the other GPU at the same time "
    "(bench/run_parallel.sh: shared CPU, RAM and disk), whole card, Wan 2.2 TI2V-5B fp16, 1280x704 121 frames, 4 steps "
    "CFG 5, uni_pc/simple, shift 8, ComfyUI 0.33.0 as main.py starts it (DynamicVRAM), random weights in the published "
    "key layout loaded by ComfyUI's loader, each chain on its own (--sequential) after its first run, the slower of 2 "
    "timed runs (bench_matrix.py --family)", shared=True)

S_FAMILY_H200_TI2V_24 = Setup("H200", "0.33.0", 24,
    "one of the two H200 141GB GPUs of one machine, another benchmark on the other GPU at the same time "
    "(bench/run_parallel.sh: shared CPU, RAM and disk), as a 24 GB card (another process holds the rest of the GPU "
    "before ComfyUI starts, so every allocator sees 24 GiB), Wan 2.2 TI2V-5B fp16, 1280x704 121 frames, 4 steps CFG 5, "
    "uni_pc/simple, shift 8, ComfyUI 0.33.0 as main.py starts it (DynamicVRAM), random weights in the published key "
    "layout loaded by ComfyUI's loader, each chain on its own (--sequential) after its first run, one timed run "
    "(bench_matrix.py --family)", shared=True)

# The FP8 loader's `auto` from robust runs (accel/common/defaults.py FP8_AUTO_MEASURED)
def _fp8auto_h200(model: str, args: str, chains: str = "shipped,fp8_shipped") -> Setup:
    return Setup("H200", "0.33.0", 141,
                 f"H200 141GB on a machine that ran nothing else, whole card, {model}, ComfyUI 0.33.0 as main.py "
                 "starts it (DynamicVRAM), random weights in the published key layout loaded by ComfyUI's loader, "
                 "stock, the exact chain and the FP8 loader -> the exact chain in one process, 3 timed runs each "
                 f"interleaved (order reversed every other round), medians (bench_matrix.py --family {args} "
                 f"--chains {chains} --rounds 3)")


S_FP8AUTO_H200_FLUX = _fp8auto_h200("Flux.1-dev 12B bf16, 1024x1024, 20 steps CFG 1 guidance 3.5, euler/simple",
                                    "flux")
S_FP8AUTO_H200_HV = _fp8auto_h200("HunyuanVideo T2V 13B bf16, 960x544 33 frames, 4 steps CFG 1 guidance 6, "
                                  "euler/simple", "hunyuan_video --frames 33 --steps 4")
S_FP8AUTO_H200_LTXV = _fp8auto_h200("LTX-Video 2B bf16, 768x512 121 frames, 20 steps CFG 3, euler/simple", "ltxv")
S_FP8AUTO_H200_QWEN = _fp8auto_h200("Qwen-Image 20B bf16, 1328x1328, 8 steps CFG 2.5, shift 3.1, euler/simple",
                                    "qwen_image --steps 8")
S_FP8AUTO_H200_TI2V = _fp8auto_h200("Wan 2.2 TI2V-5B fp16, 1280x704 121 frames, 4 steps CFG 5, uni_pc, shift 8 (the "
                                    "exact chain: Accel Wan Level-1)", "wan_ti2v_5b --steps 4")
S_FP8AUTO_H200_ZIMAGE = _fp8auto_h200("Z-Image Turbo 6B bf16, 1024x1024, 9 steps CFG 1, res_multistep/simple, "
                                      "shift 3", "z_image")
S_FP8AUTO_H200_WAN21 = _fp8auto_h200("Wan 2.1 T2V 14B fp16, 832x480 81 frames, 4 steps CFG 5, euler/simple (the exact "
                                     "chain: Accel Wan Level-1)", "wan --size 14B --steps 4", "level1,fp8_level1")
S_FP8STORED_H200 = Setup("H200", "0.33.0", 141,
    "H200 141GB on a machine that ran nothing else, whole card, Wan 2.2 A14B T2V users' workflow: two experts from a "
    "random file in ComfyUI's scaled-fp8 layout, a rank-32 LightX2V-layout LoRA on each, shift 5, 480p 81 frames, 4 "
    "steps CFG 1 split 2+2, ComfyUI 0.33.0 as main.py starts it (DynamicVRAM); stock, Level-1 on ComfyUI's loader and "
    "the FP8 loader's own layers -> LoRA -> Level-1 in one process, every chain with experts of its own, 3 timed runs "
    "each interleaved, medians (bench_matrix.py --workflow lightx2v --chains level1,fp8own_level1 --rounds 3)")
S_GRAPHS_H200_ZIMAGE = Setup("H200", "0.33.0", 141,
    "H200 141GB on a machine that ran nothing else, whole card, Z-Image Turbo 6B bf16 1024x1024, 9 steps CFG 1, "
    "res_multistep/simple, ComfyUI 0.33.0 started as main.py starts it but with --disable-cuda-malloc (PyTorch's own "
    "allocator), random weights loaded by ComfyUI's loader; stock, the exact chain (Accel CUDA Settings -> Attention "
    "-> Compile) and the same with cuda_graphs on, 3 timed runs each interleaved, medians (bench_matrix.py --family "
    "z_image --chains shipped,shipped_graphs --rounds 3 --comfy-args=--disable-cuda-malloc)")
S_VAE_H200_COMBOS = Setup("H200", "0.33.0", 141,
    "H200 on a machine that ran nothing else, Wan 2.1 VAE random weights bf16, 81 frames 832x480, every candidate and "
    "combination of Accel VAE in one process on the same latents, median of 3 after a warm-up (bench_vae.py --vaes "
    "wan2.1 --variants combos)")

S_VAE_H200_ROUNDS = Setup("H200", "0.33.0", 141,
    "H200 on a machine that ran nothing else, Wan 2.1 VAE random weights bf16, 81 frames 832x480, every candidate and "
    "combination of Accel VAE in one process on the same latents, each variant's copy kept loaded, 1 warm-up and 3 "
    "decodes each, then 3 interleaved rounds (order reversed every other round), the median over all decodes "
    "(bench_vae.py --vaes wan2.1 --variants combos --rounds 3)")

S_FAMILY_H200_LTXV = Setup("H200", "0.33.0", 141,
    "one of the two H200 141GB GPUs of one machine, another benchmark on the other GPU at the same time "
    "(bench/run_parallel.sh: shared CPU, RAM and disk), whole card, LTX-Video 2B bf16, 768x512 121 frames, 20 steps "
    "CFG 3, euler/simple, ComfyUI 0.33.0 as main.py starts it (DynamicVRAM), random weights in the published key "
    "layout loaded by ComfyUI's loader, each chain on its own (--sequential) after its first run, the slower of 2 "
    "timed runs (bench_matrix.py --family)", shared=True)

S_FAMILY_H200_LTXV_24 = Setup("H200", "0.33.0", 24,
    "one of the two H200 141GB GPUs of one machine, another benchmark on the other GPU at the same time "
    "(bench/run_parallel.sh: shared CPU, RAM and disk), as a 24 GB card (another process holds the rest of the GPU "
    "before ComfyUI starts, so every allocator sees 24 GiB), LTX-Video 2B bf16, 768x512 121 frames, 20 steps CFG 3, "
    "euler/simple, ComfyUI 0.33.0 as main.py starts it (DynamicVRAM), random weights in the published key layout "
    "loaded by ComfyUI's loader, each chain on its own (--sequential) after its first run, one timed run "
    "(bench_matrix.py --family)", shared=True)

_H3_TURBO = ("MiniMax-H3 33B at its true config, random weights written in ComfyUI's scaled-fp8 layout (the blocks' "
             "linear weights e4m3fn with per-tensor scales: what the templates load) and loaded by ComfyUI's loader, "
             "1344x768 124 frames with audio, 4 steps res_multistep/simple, no CFG (the H3 template's turbo mode), "
             "ComfyUI 0.33.0 as main.py starts it (DynamicVRAM), torch 2.11.0+cu130, an H200 on a machine that ran "
             "nothing else (bench_matrix.py --family minimax_h3_turbo --stored fp8_scaled)")
S_FAMILY_H200_H3 = Setup("H200", "0.33.0", 141,
    _H3_TURBO + ", whole card, the chains interleaved: first runs, then 2 timed rounds in alternating order")
S_FAMILY_H200_H3_COLD = Setup("H200", "0.33.0", 141,
    _H3_TURBO + ", whole card, stock and Level-1 only, a fresh machine (inductor cache empty), 1 timed round")
S_FAMILY_H200_H3_24 = Setup("H200", "0.33.0", 24,
    _H3_TURBO + ", as a 24 GB card (--card 24 --occupy: another process holds the rest of the GPU before ComfyUI "
    "starts), 1 timed round")

S_FAMILY_H200_QWEN = Setup("H200", "0.33.0", 141,
    "one of the two H200 141GB GPUs of one machine, another benchmark on the other GPU at the same time "
    "(bench/run_parallel.sh: shared CPU, RAM and disk), whole card, Qwen-Image 20B bf16 (41 GB), 1328x1328, 8 steps "
    "CFG 2.5, euler/simple, shift 3.1, ComfyUI 0.33.0 as main.py starts it (DynamicVRAM), random weights in the "
    "published key layout loaded by ComfyUI's loader, each chain on its own (--sequential) after its first run, one "
    "timed run (bench_matrix.py --family)", shared=True)

S_FAMILY_H200_QWEN_24 = Setup("H200", "0.33.0", 24,
    "one of the two H200 141GB GPUs of one machine, another benchmark on the other GPU at the same time "
    "(bench/run_parallel.sh: shared CPU, RAM and disk), as a 24 GB card (another process holds the rest of the GPU "
    "before ComfyUI starts, so every allocator sees 24 GiB), Qwen-Image 20B bf16 (41 GB), 1328x1328, 8 steps CFG 2.5, "
    "euler/simple, shift 3.1, ComfyUI 0.33.0 as main.py starts it (DynamicVRAM), random weights in the published key "
    "layout loaded by ComfyUI's loader, each chain on its own (--sequential) after its first run, one timed run "
    "(bench_matrix.py --family)", shared=True)

S_FAMILY_H200_HV = Setup("H200", "0.33.0", 141,
    "one of the two H200 141GB GPUs of one machine, another benchmark on the other GPU at the same time "
    "(bench/run_parallel.sh: shared CPU, RAM and disk), whole card, HunyuanVideo T2V 13B bf16, 960x544 33 frames, 4 "
    "steps CFG 1 guidance 6, euler/simple, ComfyUI 0.33.0 as main.py starts it (DynamicVRAM), random weights in the "
    "published key layout loaded by ComfyUI's loader, each chain on its own (--sequential) after its first run, one "
    "timed run (bench_matrix.py --family)", shared=True)

S_FAMILY_H200_HV_24 = Setup("H200", "0.33.0", 24,
    "one of the two H200 141GB GPUs of one machine, another benchmark on the other GPU at the same time "
    "(bench/run_parallel.sh: shared CPU, RAM and disk), as a 24 GB card (another process holds the rest of the GPU "
    "before ComfyUI starts, so every allocator sees 24 GiB), HunyuanVideo T2V 13B bf16, 960x544 33 frames, 4 steps CFG "
    "1 guidance 6, euler/simple, ComfyUI 0.33.0 as main.py starts it (DynamicVRAM), random weights in the published "
    "key layout loaded by ComfyUI's loader, each chain on its own (--sequential) after its first run, one timed run "
    "(bench_matrix.py --family)", shared=True)

S_FAMILY_H200_FLUX_24 = Setup("H200", "0.33.0", 24,
    "one of the two H200 141GB GPUs of one machine, another benchmark on the other GPU at the same time "
    "(bench/run_parallel.sh: shared CPU, RAM and disk), as a 24 GB card (another process holds the rest of the GPU "
    "before ComfyUI starts, so every allocator sees 24 GiB), Flux.1-dev 12B bf16, 1024x1024, 20 steps CFG 1 guidance "
    "3.5, euler/simple, ComfyUI 0.33.0 as main.py starts it (DynamicVRAM), random weights in the published key layout "
    "loaded by ComfyUI's loader, each chain on its own (--sequential) after its first run, one timed run "
    "(bench_matrix.py --family)", shared=True)

S_SPARSE_H200 = Setup("H200", "", 141,
    "one of the two H200 141GB GPUs of one machine, another benchmark on the other GPU at the same time "
    "(bench/run_parallel.sh: shared CPU, RAM and disk), torch 2.11, one attention call, bf16 random q/k/v (Wan 14B: 40 "
    "heads of 128; HunyuanVideo: 24 heads of 128), radial pattern via compiled flex_attention vs FA3 dense (fa3-fwd "
    "0.0.3), median of 10 (bench/bench_sparse_attention.py --backends flex --decays 0.2; flash-attn-4 not carried)",
    shared=True)

S_E2E_I2V_H100 = Setup("H100", "0.33.0", 80,
    "H100 80GB (one GPU, the machine to itself), the shipped workflows/api/wan2.2_i2v_A14B_lightx2v_4step_level1.json "
    "on a live ComfyUI 0.33.0 server (main.py), random files in the published layouts (both experts one scaled-fp8 14B "
    "file, LightX2V-layout rank-32 LoRAs, umt5-xxl in ComfyUI's scaled-fp8 layout, Wan 2.1 VAE, a random PNG through "
    "LoadImage -> WanImageToVideo), 480p 81 frames 4 steps, the workflow's own CreateVideo -> SaveVideo (PyAV 19.0.2 "
    "carried: h264 MP4), a fresh server per variant (bench_e2e.py --workflow wan22_i2v_lightx2v), an empty inductor "
    "cache per server")

S_E2E_I2V_H100_24 = Setup("H100", "0.33.0", 24,
    "H100 80GB as a 24 GB card (another process holds the rest of the GPU before ComfyUI starts, so every allocator "
    "sees 24 GiB), the shipped workflows/api/wan2.2_i2v_A14B_lightx2v_4step_level1.json on a live ComfyUI 0.33.0 "
    "server (main.py), random files in the published layouts (both experts one scaled-fp8 14B file, LightX2V-layout "
    "rank-32 LoRAs, umt5-xxl in ComfyUI's scaled-fp8 layout, Wan 2.1 VAE, a random PNG through LoadImage -> "
    "WanImageToVideo), 480p 81 frames 4 steps, the workflow's own CreateVideo -> SaveVideo (PyAV 19.0.2 carried: h264 "
    "MP4), a fresh server per variant (bench_e2e.py --workflow wan22_i2v_lightx2v), an empty inductor cache per server")

S_HYGIENE_H200_AFTER_UNLOAD = Setup("H200", "0.33.0", 141,
    "H200, ComfyUI 0.33.0, 20 two-expert Wan 14B runs through Level-1, allocated after unloading")

S_RESTART_H200_FP8_LEVEL1_COLD = Setup("H200", "0.33.0", 141,
    "H200, ComfyUI 0.33.0, FP8 loader -> Level-1 first run, fresh process on a cold inductor/Triton cache (Wan 2.1 "
    "T2V 14B fp16 random weights, 480p 81 frames, 2 steps CFG 5, ComfyUI 0.33.0 as main.py starts it)")

S_RESTART_H200_FP8_LEVEL1_WARM = Setup("H200", "0.33.0", 141,
    "H200, ComfyUI 0.33.0, FP8 loader -> Level-1 first run after a ComfyUI restart (warm cache)")

S_RESTART_H200_FP8_LEVEL1_LOAD = Setup("H200", "0.33.0", 141, "H200, FP8 loader load + quantize of Wan 14B fp16")
S_MATRIX_H100_1_3B_LEVEL1_MAXAUTOTUNE_FIRST_RUN = Setup("H100", "0.33.0", 80,
    "H100, ComfyUI 0.33.0, Wan 1.3B, Level-1 with max-autotune-no-cudagraphs, first run on a cold cache")

S_QUANT_H200_1_3B_LEVEL1_FAST_SPEEDUP = Setup("H200", "0.33.0", 141,
    "H200, ComfyUI 0.33.0, Wan 2.1 1.3B random weights, 480p 81 frames, 8 steps CFG 5, Level-1 quality fast")

S_QUANT_H200_1_3B_LEVEL1_SPEEDUP = Setup("H200", "0.33.0", 141,
    "H200, ComfyUI 0.33.0, Wan 2.1 1.3B random weights, 480p 81 frames, 8 steps CFG 5, exact Level-1")

S_QUANT_H200_1_3B_LEVEL1_FAST_COSINE = Setup("H200", "0.33.0", 141,
    "H200, ComfyUI 0.33.0, Wan 2.1 1.3B, 8 steps CFG 5, Level-1 quality fast, final latent vs stock")

S_COMPILE_H100_1_3B_MAXAUTOTUNE_COLD = Setup("H100", "0.3.75", 80,
    "H100, ComfyUI 0.3.75, Wan 1.3B, per-block compile, max-autotune-no-cudagraphs, cold")

S_COMPILE_H100_1_3B_DEFAULT_COLD = Setup("H100", "0.3.75", 80,
    "H100, ComfyUI 0.3.75, Wan 1.3B, per-block compile, default mode, cold")

S_FP8_H100_14B_FORWARD_SPEEDUP = Setup("H100", "0.3.75", 80,
    "H100, ComfyUI 0.3.75, Wan 14B 480p 81 frames, one forward, Accel FP8 per-tensor (row-wise _scaled_mm) vs bf16")

S_FP8_H100_14B_FORWARD_COSINE = Setup("H100", "0.3.75", 80,
    "H100, ComfyUI 0.3.75, Wan 14B 480p 81 frames, one forward, Accel FP8 per-tensor vs bf16")

S_MULTIGPU_H200X2 = Setup("H200", "0.33.0", 141,
    "2x H200, ComfyUI 0.33.0, Wan 14B one sampling step (batch 2), CFG + sequence parallel vs one GPU")

S_QATTN_H200 = Setup("H200", "0.33.0", 141,
    "H200 141GB, ComfyUI 0.33.0, torch 2.11, fa3-fwd 0.0.3, sageattention 1.0.6; one attention call at Wan 14B 480p "
    "81 frames (bf16, random q/k/v with a per-head K bias, median of repeats) against FA3 bf16, and Wan 2.1 T2V 1.3B "
    "random weights 480p 81 frames 8 steps CFG 5 end to end against stock (bench/bench_quant_attention.py)")

S_CACHE_H100 = Setup("H100", "0.33.0", 80,
    "one H100 80GB of a two-GPU host, another benchmark on the other GPU at the same time (bench/run_parallel.sh: "
    "shared CPU, RAM and disk), ComfyUI 0.33.0, true config random weights, 30 steps, euler/simple, the median of "
    "the sampling runs named, final latent vs the uncached run (bench_cache.py --sweep-steps)", shared=True)

S_VAE_KL_H200 = Setup("H200", "0.33.0", 141,
    "H200, ComfyUI 0.33.0, Flux KL VAE 1024x1024 bf16 random weights, channels_last + cudnn_benchmark")


# --- rows ----------------------------------------------------------------------------------------------------------

# Wan 14B matrix, ComfyUI 0.33 -------------------------------------------------------------------------------
rows(S_H100_80, "h100/matrix_033_wan14B_fp16_80GB.json",
     ("matrix.h100.80.attention.speedup", "json:chains/attention/speedup", 1.476, "{:.2f}x"),
     ("matrix.h100.80.level1_old.speedup", "json:chains/level1/speedup", 1.534, "{:.2f}x"),
     ("matrix.h100.80.core_compile.speedup", "json:chains/core_compile/speedup", 1.018, "{:.2f}x"))
rows(S_H100_24, "h100/matrix_033_wan14B_fp16_24GB.json",
     ("matrix.h100.24.attention.speedup", "json:chains/attention/speedup", 1.5, "{:.2f}x"),
     ("matrix.h100.24.level1_old.speedup", "json:chains/level1/speedup", 1.561, "{:.2f}x"))
rows(S_H200_140, "h200/matrix_033_wan14B_fp16_140GB.json",
     ("matrix.h200.140.fp8_level1_block.speedup", "json:chains/fp8_level1_block/speedup", 1.531, "{:.2f}x",
      "FP8 loader with 1x128 blocks -> Level-1"),
     ("matrix.h200.140.attention.speedup", "json:chains/attention/speedup", 1.459, "{:.2f}x"),
     ("matrix.h200.140.level1.first_run", "json:chains/level1/first_run_s", 21.34, "{:.0f} s",
      "first run on a cold compile cache"),
     ("matrix.h200.140.fp8_level1.speedup", "json:chains/fp8_level1/speedup", 1.82, "{:.2f}x"),
     ("matrix.h200.140.ck_int8.speedup", "json:chains/core_ck_int8/speedup", 1.152, "{:.2f}x"),
     ("matrix.h200.140.attention.cosine", "json:chains/attention/cosine", 0.999956, "{:.5f}", "final latent vs stock"),
     ("matrix.h200.140.level1.cosine", "json:chains/level1/cosine", 0.999953, "{:.5f}", "final latent vs stock"),
     ("matrix.h200.140.ck_int8.cosine", "json:chains/core_ck_int8/cosine", 0.999957, "{:.5f}", "final latent vs stock"),
     ("matrix.h200.140.stock.time", "json:chains/stock/times_s/0", 16.138, "{:.1f} s"))
rows(S_H200_48, "h200/matrix_033_wan14B_fp16_48GB.json",
     ("matrix.h200.48.attention.speedup", "json:chains/attention/speedup", 1.447, "{:.2f}x"),
     ("matrix.h200.48.level1.speedup", "json:chains/level1/speedup", 1.517, "{:.2f}x"),
     ("matrix.h200.48.fp8_level1.speedup", "json:chains/fp8_level1/speedup", 1.762, "{:.2f}x"))
rows(S_H200_32, "h200/matrix_033_wan14B_fp16_32GB.json",
     ("matrix.h200.32.attention.speedup", "json:chains/attention/speedup", 1.357, "{:.2f}x"),
     ("matrix.h200.32.level1.speedup", "json:chains/level1/speedup", 1.5, "{:.2f}x"),
     ("matrix.h200.32.fp8_level1.speedup", "json:chains/fp8_level1/speedup", 1.803, "{:.2f}x"))
rows(S_H200_24, "h200/matrix_033_wan14B_fp16_24GB_hardcap.json",
     ("matrix.h200.24.level1.speedup", "json:chains/level1/speedup", 1.494, "{:.2f}x"),
     ("matrix.h200.24.fp8_level1.speedup", "json:chains/fp8_level1/speedup", 1.824, "{:.2f}x"),
     ("matrix.h200.24.kj_sage_compile.speedup", "json:chains/kj_sage_compile/speedup", 1.141, "{:.2f}x"),
     ("matrix.h200.24.stock.peak_device", "json:chains/stock/peak_device_gib", 28.89, "{:.1f} GiB",
      "device peak (cudaMemGetInfo)"),
     ("matrix.h200.24.level1.peak_device", "json:chains/level1/peak_device_gib", 31.33, "{:.1f} GiB",
      "device peak (cudaMemGetInfo)"),
     ("matrix.h200.24.stock.peak_alloc", "json:chains/stock/peak_alloc_gib", 6.1, "{:.1f} GiB", "torch peak allocated"),
     ("matrix.h200.24.level1.peak_alloc", "json:chains/level1/peak_alloc_gib", 4.41, "{:.1f} GiB",
      "torch peak allocated"),
     ("matrix.h200.24.fp8_level1.peak_alloc", "json:chains/fp8_level1/peak_alloc_gib", 4.96, "{:.1f} GiB",
      "torch peak allocated"))
rows(S_HYGIENE_H200_AFTER_UNLOAD, "h200/hygiene_033_wan14B_level1_20runs.json",
     ("hygiene.h200.after_unload", "json:hygiene/after_unload_alloc_gib", 0.032, "{:.2f} GiB"))
rows(S_RESTART_H200_FP8_LEVEL1_COLD, "h200/restart_033_fp8_level1_cold.json",
     ("restart.h200.fp8_level1.cold", "json:chains/fp8_level1/first_run_s", 25.05, "{:.0f} s"))
rows(S_RESTART_H200_FP8_LEVEL1_WARM, "h200/restart_033_fp8_level1_warm.json",
     ("restart.h200.fp8_level1.warm", "json:chains/fp8_level1/first_run_s", 16.62, "{:.0f} s"))
rows(S_RESTART_H200_FP8_LEVEL1_LOAD, "h200/restart_033_fp8_level1_cold.json",
     ("restart.h200.fp8_level1.load", "json:chains/fp8_level1/build_s", 18.0, "{:.0f} s"))
rows(S_H200_075, "h200/matrix_075_wan14B_fp16_140GB.json",
     ("matrix.h200.075.stock.time", "json:chains/stock/times_s/0", 12.384, "{:.1f} s"),
     ("matrix.h200.075.level1.speedup", "json:chains/level1/speedup", 1.212, "{:.2f}x"),
     ("matrix.h200.075.fp8_level1.speedup", "json:chains/fp8_level1/speedup", 1.504, "{:.2f}x"),
     ("matrix.h200.075.kj_sage_compile.speedup", "json:chains/kj_sage_compile/speedup", 0.915, "{:.2f}x"),
     ("matrix.h200.075.core_compile.speedup", "json:chains/core_compile/speedup", 1.067, "{:.2f}x"))
rows(S_H100_075, "h100/matrix_075_wan14B_fp16_80GB.json",
     ("matrix.h100.075.level1.speedup", "json:chains/level1/speedup", 1.214, "{:.2f}x"),
     ("matrix.h100.075.fp8_level1.speedup", "json:chains/fp8_level1/speedup", 1.478, "{:.2f}x"),
     ("matrix.h100.075.kj_sage_compile.speedup", "json:chains/kj_sage_compile/speedup", 0.911, "{:.2f}x"),
     ("matrix.h100.075.core_compile.speedup", "json:chains/core_compile/speedup", 1.071, "{:.2f}x"))
rows(S_MATRIX_H100_1_3B_LEVEL1_MAXAUTOTUNE_FIRST_RUN, "h100/matrix_033_wan1.3B_first_runs_maxautotune.json",
     ("matrix.h100.1.3B.level1_maxautotune.first_run", "json:chains/level1/first_run_s", 162.54, "{:.0f} s"))
rows(S_H100_80, "h100/matrix_033_wan14B_fp16_80GB.json",
     ("matrix.h100.80.core_compile.cosine", "json:chains/core_compile/cosine", 0.999965, "{:.5f}",
      "ComfyUI TorchCompileModel, final latent vs stock"))
rows(S_H200_24, "h200/matrix_033_wan14B_fp16_24GB_hardcap.json",
     ("matrix.h200.24.kj_sage_compile.cosine", "json:chains/kj_sage_compile/cosine", 0.999962, "{:.5f}",
      "KJNodes Sage -> TorchCompileModelAdvanced, final latent vs stock"))

# quantized paths (H200, ComfyUI 0.33) --------------------------------------------------------------------------
rows(S_QUANT_H200_1_3B_LEVEL1_FAST_SPEEDUP, "h200/quant_attention_033_after_guard_fix.json",
     ("quant.h200.1.3B.level1_fast.speedup", "json:e2e/chains/level1_fast/speedup", 1.765, "{:.2f}x"))
rows(S_QUANT_H200_1_3B_LEVEL1_SPEEDUP, "h200/quant_attention_033_after_guard_fix.json",
     ("quant.h200.1.3B.level1.speedup", "json:e2e/chains/level1/speedup", 1.648, "{:.2f}x"))
rows(S_QUANT_H200_1_3B_LEVEL1_FAST_COSINE, "h200/quant_attention_033_after_guard_fix.json",
     ("quant.h200.1.3B.level1_fast.cosine", "json:e2e/chains/level1_fast/cosine", 0.999533, "{:.5f}"))
rows(S_M033_H200, "h200/quant_path_033_wan14B.json",
     ("quantpath.h200.fp8_attnfp8_compile.time", "json:chains/fp8_attnfp8_compile/times_s/0", 7.834, "{:.2f} s",
      "FP8 loader -> CUDA Settings -> FP8 attention every step -> Compile; one sampling run = 2 batch-2 "
      "(cond+uncond) forwards"),
     ("quantpath.h200.fp8_attnfp8_compile.speedup", "json:chains/fp8_attnfp8_compile/speedup", 2.046, "{:.2f}x",
      "FP8 loader -> CUDA Settings -> FP8 attention every step -> Compile"))

# per-call attention (H100, ComfyUI 0.3.75) ------------------------------------------------------------------------

# Level-1 per forward (H100, ComfyUI 0.3.75) -----------------------------------------------------------------------

# compile (H100, ComfyUI 0.3.75) ------------------------------------------------------------------------------------
rows(S_COMPILE_H100, "h100/compile_1.3B_epilogue_warm.md",
     ("compile.h100.1.3B.warm_restart.epilogue_warm", "md:1.3B/accel:default|warm restart compile s", 8.152, "{:.1f} s",
      "(compile_1.3B_epilogue_warm)"))
rows(S_COMPILE_H100, "h100/compile_epilogue_run1.md",
     ("compile.h100.1.3B.warm_restart.epilogue_run1", "md:1.3B/accel:default|warm restart compile s",
      12.458, "{:.1f} s",
      "(compile_epilogue_run1)"))
rows(S_COMPILE_H100_1_3B_MAXAUTOTUNE_COLD, "h100/compile.md",
     ("compile.h100.1.3B.maxautotune.cold", "md:1.3B/accel:max-autotune-no-cudagraphs|compile s", 225.856, "{:.0f} s"))
rows(S_COMPILE_H100_1_3B_DEFAULT_COLD, "h100/compile.md",
     ("compile.h100.1.3B.default.cold", "md:1.3B/accel:default|compile s", 8.598, "{:.1f} s"))

# FP8 weights (H100, ComfyUI 0.3.75) --------------------------------------------------------------------------------
rows(S_FP8_H100_14B_FORWARD_SPEEDUP, "h100/fp8.json",
     ("fp8.h100.14B.forward.speedup", "json:model/variants/1/forward_speedup_vs_bf16", 1.166, "{:.2f}x"))
rows(S_FP8_H100_14B_FORWARD_COSINE, "h100/fp8.json",
     ("fp8.h100.14B.forward.cosine", "json:model/variants/1/cosine_vs_bf16", 0.999264, "{:.4f}"))

# multi-GPU (2x H200, ComfyUI 0.33) ---------------------------------------------------------------------------------
rows(S_MULTIGPU_H200X2, "h200x2/multigpu_033_wan14B.md",
     ("multigpu.h200x2.wan14B.cfg_seq.speedup",
      "md:Accel Attention flash_attn_3/2 GPUs, CFG parallel + sequence parallel|speed-up vs 1 GPU", 1.96, "{:.2f}x"),
     ("multigpu.h200x2.wan14B.seq.speedup",
      "md:ComfyUI default (SDPA)/2 GPUs, sequence parallel only (cfg_parallel off)|speed-up vs 1 GPU", 1.84, "{:.2f}x",
      "sequence parallel only, SDPA"))
# multi-GPU whole runs (4x H200, ComfyUI 0.33) ------------------------------------------------------------------------
S_MGRUN_WAN_H200X4 = Setup("H200", "0.33.0", 141,
    "four H200 141GB of one host (nvidia-h200-x4, NCCL), ComfyUI 0.33.0 as main.py starts it, Wan 2.1 T2V 14B bf16 "
    "random weights, 1280x720 81 frames, 3 steps CFG 5 through KSampler, Accel Attention auto (FA3) on every rank, one "
    "timed run per configuration against the same chain on one GPU (bench_multigpu_run.py --workload wan14b_720p)")
S_MGRUN_A14B_H200X4 = Setup("H200", "0.33.0", 141,
    "four H200 141GB of one host (nvidia-h200-x4, NCCL), ComfyUI 0.33.0 as main.py starts it, Wan 2.2 A14B T2V "
    "LightX2V workflow at 1280x720 81 frames: two bf16 random-weight experts with rank-32 LoRAs, shift 5, 4 steps CFG "
    "1 split 2 + 2, Accel Attention auto (FA3), sequence parallel, one timed run per configuration against the same "
    "chain on one GPU (bench_multigpu_run.py --workload a14b_720p)")
rows(S_MGRUN_WAN_H200X4, "h200x4/multigpu_run_wan14b_720p.json",
     ("mgrun.h200x4.wan14B_720p.1gpu.s", "json:runs/1gpu/run_s_median", 62.79, "{:.1f} s"),
     ("mgrun.h200x4.wan14B_720p.2gpu.speedup", "json:runs/2gpu_cfg_on/speedup", 1.92, "{:.2f}x",
      "2 GPUs, CFG parallel"),
     ("mgrun.h200x4.wan14B_720p.4gpu.speedup", "json:runs/4gpu_cfg_on/speedup", 3.49, "{:.2f}x",
      "4 GPUs, CFG parallel x 2-way sequence parallel"),
     ("mgrun.h200x4.wan14B_720p.4gpu.s", "json:runs/4gpu_cfg_on/run_s_median", 18.01, "{:.1f} s"),
     ("mgrun.h200x4.wan14B_720p.4gpu.cosine", "json:runs/4gpu_cfg_on/cosine", 1.0, "{:.4f}"))
rows(S_MGRUN_A14B_H200X4, "h200x4/multigpu_run_a14b_720p.json",
     ("mgrun.h200x4.a14b_720p.1gpu.s", "json:runs/1gpu/run_s_median", 41.69, "{:.1f} s"),
     ("mgrun.h200x4.a14b_720p.2gpu.speedup", "json:runs/2gpu_cfg_on/speedup", 1.78, "{:.2f}x", "2 GPUs"),
     ("mgrun.h200x4.a14b_720p.4gpu.speedup", "json:runs/4gpu_cfg_on/speedup", 3.31, "{:.2f}x", "4 GPUs"),
     ("mgrun.h200x4.a14b_720p.4gpu.s", "json:runs/4gpu_cfg_on/run_s_median", 12.6, "{:.1f} s"),
     ("mgrun.h200x4.a14b_720p.4gpu.cosine", "json:runs/4gpu_cfg_on/cosine", 0.9999975891481143, "{:.6f}"))
# the whole Queue, the VAE candidates and the video save (one H200 each of a 4-GPU host, shared host) --------------
S_E2EQ_H200X4 = Setup("H200", "0.33.0", 141,
    "one H200 of a 4-GPU host (nvidia-h200-x4), the shipped workflows/api/wan2.2_t2v_A14B_lightx2v_4step_level1.json "
    "on a live ComfyUI 0.33.0 server (main.py, DynamicVRAM on), random files in the published layouts (both experts "
    "one fp8_scaled 14B file, LightX2V-layout rank-32 LoRAs, fp8_scaled umt5, Wan 2.1 VAE), 480p 81 frames, the "
    "workflow's Create Video -> Save Video (PyAV 19.0.2, libx264) or Accel Save Video in their place; a fresh server "
    "and an empty compile cache per variant, one Queue of each kind (bench_e2e.py --variants stock,level1,level1+save "
    "--save video --compile-cache fresh)", shared=True)
S_VAE_H200X4 = Setup("H200", "0.33.0", 141,
    "one H200 of a 4-GPU host, Wan 2.1 VAE random weights bf16, 81 frames 832x480, every candidate and combination of "
    "Accel VAE in one process on the same latents, median of 3 after a warm-up (bench_vae.py --vaes wan2.1 --variants "
    "combos)", shared=True)
S_SAVE_H200X4 = Setup("H200", "0.33.0", 141,
    "the CPU host (64 cores) of a 4-GPU H200 machine, ComfyUI 0.33.0's Save Video and Accel Save Video's writer, 81 "
    "frames 832x480 at 16 fps, H.264 CRF 23, two runs each (bench_save.py)", shared=True)
rows(S_E2EQ_H200X4, "h200x4/e2e_queue_t2v/e2e_wan22_t2v_lightx2v.json",
     ("e2eq.h200.stock.q2.total", "json:rows/0/queues/1/total_s", 20.516, "{:.1f} s"),
     ("e2eq.h200.level1.q2.total", "json:rows/1/queues/1/total_s", 15.171, "{:.1f} s"),
     ("e2eq.h200.level1_save.q2.total", "json:rows/2/queues/1/total_s", 12.129, "{:.1f} s"),
     ("e2eq.h200.stock.q1.total", "json:rows/0/queues/0/total_s", 38.363, "{:.1f} s"),
     ("e2eq.h200.level1_save.q1.total", "json:rows/2/queues/0/total_s", 41.099, "{:.1f} s"),
     ("e2eq.h200.stock.q2.decode", "json:rows/0/queues/1/stages_s/VAE decode", 2.83, "{:.2f} s"),
     ("e2eq.h200.stock.q2.save", "json:rows/0/queues/1/stages_s/save", 3.608, "{:.2f} s"),
     ("e2eq.h200.level1_save.q2.decode_save", "json:rows/2/queues/1/stages_s/decode + save", 3.515, "{:.2f} s"),
     ("e2eq.h200.stock.lora.total", "json:rows/0/queues/2/total_s", 21.556, "{:.1f} s", "LoRA strength 1.0 -> 0.7"),
     ("e2eq.h200.level1_save.lora.total", "json:rows/2/queues/2/total_s", 13.57, "{:.1f} s",
      "LoRA strength 1.0 -> 0.7"),
     ("e2eq.h200.stock.portrait.total", "json:rows/0/queues/3/total_s", 19.035, "{:.1f} s", "portrait after landscape"),
     ("e2eq.h200.level1_save.portrait.total", "json:rows/2/queues/3/total_s", 12.979, "{:.1f} s",
      "portrait after landscape"))
rows(S_VAE_H200X4, "h200x4/vae_candidates_wan21/vae.json",
     ("vaec.h200.stock.s", "json:rows/0/time_s", 1.7718, "{:.2f} s"),
     ("vaec.h200.cl_fn.speedup", "json:rows/6/speedup", 1.157, "{:.2f}x", "channels_last + fused_norm"),
     ("vaec.h200.cl_cb_fn_tc4.speedup", "json:rows/15/speedup", 1.18, "{:.2f}x",
      "channels_last + cudnn_benchmark + fused_norm + temporal_chunk 4"),
     ("vaec.h200.cl_cb_fn_co.speedup", "json:rows/18/speedup", 1.254, "{:.2f}x",
      "channels_last + cudnn_benchmark + fused_norm + compile"))
rows(S_SAVE_H200X4, "h200x4/save_video_accel/save_video.json",
     ("save.h200.savevideo.smooth.s", "json:clips/smooth/seconds/0", 4.1, "{:.1f} s",
      "Save Video, clip with video structure"),
     ("save.h200.writer.smooth.s", "json:encoders/smooth/1/seconds/1", 1.0769, "{:.1f} s",
      "Accel Save Video's writer, libx264 CRF 23 preset medium, frame + slice threads, clip with video structure"),
     ("save.h200.savevideo.noise.s", "json:clips/noise/seconds/0", 4.667, "{:.1f} s", "Save Video, noise frames"),
     ("save.h200.writer.noise.s", "json:encoders/noise/1/seconds/0", 2.0405, "{:.1f} s",
      "Accel Save Video's writer, same settings, noise frames"),
     ("save.h200.decode_save.stock.s", "json:decode_save/rows/0/seconds/0", 5.7366, "{:.1f} s",
      "VAE Decode then Create Video -> Save Video"),
     ("save.h200.decode_save.accel.s", "json:decode_save/rows/2/seconds/0", 2.6075, "{:.1f} s",
      "Accel Save Video given the latent and the VAE"))
rows(S_QATTN_H200, "h200/quant_attention_033.md",
     ("qattn.h200.wan14B_480p.fa3.ms", "md:wan14B_480p_81f/bfloat16/fa3 bf16 (reference)|ms", 30.973, "{:.1f} ms"),
     ("qattn.h200.wan14B_480p.fp8.ms", "md:wan14B_480p_81f/bfloat16/fp8 fused quantize, K smoothed|ms", 24.617,
      "{:.1f} ms", "flash_attn_3_fp8"),
     ("qattn.h200.wan14B_480p.fp8.speedup",
      "md:wan14B_480p_81f/bfloat16/fp8 fused quantize, K smoothed|speed-up vs FA3 bf16", 1.258, "{:.2f}x",
      "flash_attn_3_fp8"),
     ("qattn.h200.wan14B_480p.fp8.cosine", "md:wan14B_480p_81f/bfloat16/fp8 fused quantize, K smoothed|cosine",
      0.998553, "{:.5f}", "flash_attn_3_fp8 vs FA3 bf16"),
     ("qattn.h200.wan14B_480p.ck_int8.speedup", "md:wan14B_480p_81f/bfloat16/comfy_kitchen_int8|speed-up vs FA3 bf16",
      0.65, "{:.2f}x"),
     ("qattn.h200.wan14B_480p.ck_int8.cosine", "md:wan14B_480p_81f/bfloat16/comfy_kitchen_int8|cosine", 0.999827,
      "{:.5f}"),
     ("qattn.h200.wan14B_480p.sage.speedup",
      "md:wan14B_480p_81f/bfloat16/sageattn (SageAttention)|speed-up vs FA3 bf16", 0.62, "{:.2f}x"),
     ("qattn.h200.wan14B_480p.sage.cosine", "md:wan14B_480p_81f/bfloat16/sageattn (SageAttention)|cosine", 0.999909,
      "{:.5f}"),
     ("qattn.h200.1.3B.attention.speedup", "md:attention|speed-up", 1.561, "{:.2f}x",
      "end to end, Accel Attention auto"),
     ("qattn.h200.1.3B.attention.cosine", "md:attention|final-latent cosine vs stock", 0.99998, "{:.5f}",
      "end to end, Accel Attention auto"),
     ("qattn.h200.1.3B.attention_fp8.speedup", "md:attention_fp8|speed-up", 1.643, "{:.2f}x",
      "end to end, flash_attn_3_fp8 with the hybrid schedule's defaults"),
     ("qattn.h200.1.3B.attention_fp8.cosine", "md:attention_fp8|final-latent cosine vs stock", 0.99953, "{:.5f}",
      "end to end, flash_attn_3_fp8"),
     ("qattn.h200.1.3B.ck_int8.speedup", "md:attention_ck_int8|speed-up", 1.368, "{:.2f}x",
      "end to end, comfy_kitchen_int8"),
     ("qattn.h200.1.3B.ck_int8.cosine", "md:attention_ck_int8|final-latent cosine vs stock", 0.99998, "{:.5f}",
      "end to end, comfy_kitchen_int8"))
rows(S_CACHE_H100, "h100/cache_033_wan.json",
     ("cache.h100.wan1.3B.magcache_auto.speedup", "json:runs/MagCache auto (recommended)/speedup_vs_uncached", 2.395,
      "{:.2f}x", "Wan 2.1 T2V 1.3B 480p 33 frames CFG 5, median of 2, MagCache auto (the wan2.1_t2v_1.3B ratios)"),
     ("cache.h100.wan1.3B.magcache_auto.computed", "json:runs/MagCache auto (recommended)/computed", 12, "{:.0f}",
      "steps computed of 30"),
     ("cache.h100.wan1.3B.magcache_auto.cosine", "json:runs/MagCache auto (recommended)/cosine", 0.99313, "{:.4f}",
      "final latent vs uncached"))
rows(S_CACHE_H100, "h100/cache_033_flux.json",
     ("cache.h100.flux.magcache_auto.speedup", "json:runs/MagCache auto (recommended)/speedup_vs_uncached", 2.448,
      "{:.2f}x", "Flux.1-dev 12B 512x512 CFG 1, median of 3, MagCache auto (the published flux ratios)"),
     ("cache.h100.flux.magcache_auto.cosine", "json:runs/MagCache auto (recommended)/cosine", 0.988405, "{:.3f}",
      "final latent vs uncached"),
     ("cache.h100.flux.teacache_auto.speedup", "json:runs/TeaCache auto (recommended)/speedup_vs_uncached", 1.495,
      "{:.2f}x", "Flux.1-dev 12B 512x512 CFG 1, median of 3, TeaCache auto (the published flux coefficients)"),
     ("cache.h100.flux.teacache_auto.cosine", "json:runs/TeaCache auto (recommended)/cosine", 0.998801, "{:.4f}",
      "final latent vs uncached"))

# Accel VAE (ComfyUI 0.33) ------------------------------------------------------------------------------------------

# whole workflow (H100, ComfyUI 0.33, live server) ---------------------------------------------------------------
rows(S_E2E, "h100/e2e_033_wan1.3B.md",
     ("e2e.h100.stock.total", "md:stock/2|total (s)", 14.496, "{:.1f} s", "stock"),
     ("e2e.h100.level1.total", "md:level1/2|total (s)", 12.048, "{:.1f} s", "Level-1"),
     ("e2e.h100.level1_vae.total", "md:level1+vae/2|total (s)", 11.426, "{:.1f} s", "Level-1 + Accel VAE (defaults)"),
     ("e2e.h100.level1.save", "md:level1/2|save", 5.547, "{:.2f} s", "Level-1, save stage (animated WEBP)"),
     ("e2e.h100.level1_vae.save", "md:level1+vae/2|save", 4.652, "{:.2f} s",
      "Level-1 + Accel VAE, save stage (animated WEBP)"),
     ("e2e.h100.stock.sampler", "md:stock/2|sampler", 6.3, "{:.1f} s", "stock, sampler stage"),
     ("e2e.h100.level1.sampler", "md:level1/2|sampler", 3.898, "{:.1f} s", "Level-1, sampler stage"),
     ("e2e.h100.level1.decode", "md:level1/2|VAE decode", 2.59, "{:.2f} s", "Level-1, VAE decode stage"))

# current Level-1 node on the H100 (issue #28), ComfyUI 0.33 ----------------------------------------------------
rows(S_H100_80_NOW, "h100/matrix_033_wan14B_fp16_current_node/80GB/matrix.json",
     ("matrix.h100.80.level1.fast_run", "json:chains/level1/times_s/1", 10.6, "{:.2f} s",
      "the faster of the two timed runs"),
     ("matrix.h100.80.stock.time", "json:chains/stock/times_s/0", 16.221, "{:.2f} s"),
     ("matrix.h100.80.level1.cosine", "json:chains/level1/cosine", 0.999953, "{:.5f}", "final latent vs stock"))
rows(S_H100_24_NOW, "h100/matrix_033_wan14B_fp16_current_node/24GB_occupied/matrix.json",
     ("matrix.h100.24.level1.speedup", "json:chains/level1/speedup", 1.537, "{:.2f}x"))

# second 80 GB run of the current nodes and the small cards with every allocator limited (issues #28, #31) -------
rows(S_H100_80_RUN2, "h100/matrix_033_wan14B_fp16_current_node/80GB_run2/matrix.json",
     ("matrix.h100.80.run2.attention.speedup", "json:chains/attention/speedup", 1.473, "{:.2f}x"),
     ("matrix.h100.80.run2.fp8_level1.cosine", "json:chains/fp8_level1/cosine", 0.994077, "{:.4f}",
      "final latent vs stock"))
rows(S_H100_OCC48, "h100/matrix_033_wan14B_fp16_current_node/48GB_occupied/matrix.json",
     ("matrix.h100.48.attention.speedup", "json:chains/attention/speedup", 1.472, "{:.2f}x"),
     ("matrix.h100.48.level1.speedup", "json:chains/level1/speedup", 1.522, "{:.2f}x"),
     ("matrix.h100.48.fp8_level1.speedup", "json:chains/fp8_level1/speedup", 1.722, "{:.2f}x"))
rows(S_H100_OCC32, "h100/matrix_033_wan14B_fp16_current_node/32GB_occupied/matrix.json",
     ("matrix.h100.32.attention.speedup", "json:chains/attention/speedup", 1.48, "{:.2f}x"),
     ("matrix.h100.32.level1.speedup", "json:chains/level1/speedup", 1.527, "{:.2f}x"),
     ("matrix.h100.32.fp8_level1.speedup", "json:chains/fp8_level1/speedup", 1.807, "{:.2f}x"),
     ("matrix.h100.32.peak_device", "json:chains/fp8_level1/peak_device_gib", 78.92, "{:.1f} GiB",
      "FP8 -> Level-1, device memory peak (the occupying process included)"))
rows(S_LEVEL1_SAMPLE_H100, "h100/level1_033_1.3B_fp64/level1.json",
     ("level1.h100.1.3B.sample.cosine", "json:sizes/1.3B/sample_level1/cosine", 0.9999705749995683, "{:.5f}"),
     ("level1.h100.1.3B.sample.speedup", "json:sizes/1.3B/sample_level1/speedup_vs_stock", 1.69, "{:.2f}x"))
rows(S_WF_H100_80, "h100/wf_lightx2v_033/sequential_80GB_run2/matrix.json",
     ("wf.h100.80.run2.level1.speedup", "json:chains/level1/speedup", 1.636, "{:.2f}x",
      "second run (after the house move, issue #31)"),
     ("wf.h100.80.run2.level1.time", "json:chains/level1/times_s/1", 8.833, "{:.2f} s", "second run"))

# other families (issue #30), ComfyUI 0.33, H100 80 GB ----------------------------------------------------------
rows(S_FAMILY_FLUX, "h100/family_033_flux_1024/matrix.json",
     ("family.h100.flux.stock.time", "json:chains/stock/times_s/1", 3.88, "{:.2f} s"),
     ("family.h100.flux.attention.speedup", "json:chains/attention/speedup", 1.079, "{:.2f}x"),
     ("family.h100.flux.shipped.speedup", "json:chains/shipped/speedup", 1.281, "{:.2f}x",
      "Accel CUDA Settings -> Attention -> Compile"),
     ("family.h100.flux.shipped.cosine", "json:chains/shipped/cosine", 0.999995, "{:.6f}", "final latent vs stock"),
     ("family.h100.flux.fp8_shipped.speedup", "json:chains/fp8_shipped/speedup", 1.145, "{:.2f}x",
      "FP8 loader -> the exact chain"),
     ("family.h100.flux.fp8_shipped.cosine", "json:chains/fp8_shipped/cosine", 0.999412, "{:.4f}",
      "final latent vs stock"),
     ("family.h100.flux.core_compile.speedup", "json:chains/core_compile/speedup", 0.515, "{:.2f}x",
      "ComfyUI TorchCompileModel"),
     ("family.h100.flux.core_fp8_fast.speedup", "json:chains/core_fp8_fast/speedup", 0.192, "{:.2f}x",
      "ComfyUI weight_dtype fp8_e4m3fn_fast"),
     ("family.h100.flux.kj_sage_compile.speedup", "json:chains/kj_sage_compile/speedup", 0.783, "{:.2f}x",
      "KJNodes Sage -> TorchCompileModelAdvanced"))
rows(S_FAMILY_TI2V, "h100/family_033_wan_ti2v_5b/matrix.json",
     ("family.h100.ti2v.stock.time", "json:chains/stock/times_s/1", 10.562, "{:.1f} s"),
     ("family.h100.ti2v.attention.speedup", "json:chains/attention/speedup", 1.453, "{:.2f}x"),
     ("family.h100.ti2v.shipped.cosine", "json:chains/shipped/cosine", 0.999959, "{:.5f}", "final latent vs stock"),
     ("family.h100.ti2v.fp8_shipped.cosine", "json:chains/fp8_shipped/cosine", 0.994164, "{:.4f}",
      "final latent vs stock"),
     ("family.h100.ti2v.core_compile.speedup", "json:chains/core_compile/speedup", 1.018, "{:.2f}x",
      "ComfyUI TorchCompileModel"),
     ("family.h100.ti2v.core_fp8_fast.speedup", "json:chains/core_fp8_fast/speedup", 1.03, "{:.2f}x",
      "ComfyUI weight_dtype fp8_e4m3fn_fast"),
     ("family.h100.ti2v.kj_sage_compile.speedup", "json:chains/kj_sage_compile/speedup", 1.143, "{:.2f}x",
      "KJNodes Sage -> TorchCompileModelAdvanced"))
rows(S_FAMILY_HV, "h100/family_033_hunyuan_video_33f/matrix.json",
     ("family.h100.hv.stock.time", "json:chains/stock/times_s/0", 5.195, "{:.2f} s"),
     ("family.h100.hv.attention.speedup", "json:chains/attention/speedup", 1.381, "{:.2f}x"),
     ("family.h100.hv.shipped.cosine", "json:chains/shipped/cosine", 0.999967, "{:.5f}", "final latent vs stock"),
     ("family.h100.hv.fp8_shipped.cosine", "json:chains/fp8_shipped/cosine", 0.99911, "{:.5f}",
      "final latent vs stock"),
     ("family.h100.hv.core_compile.speedup", "json:chains/core_compile/speedup", 0.117, "{:.2f}x",
      "ComfyUI TorchCompileModel"),
     ("family.h100.hv.core_fp8_fast.speedup", "json:chains/core_fp8_fast/speedup", 0.473, "{:.2f}x",
      "ComfyUI weight_dtype fp8_e4m3fn_fast"),
     ("family.h100.hv.kj_sage_compile.speedup", "json:chains/kj_sage_compile/speedup", 1.132, "{:.2f}x",
      "KJNodes Sage -> TorchCompileModelAdvanced"),
     ("family.h100.hv.shipped.first_run", "json:chains/shipped/first_run_s", 17.78, "{:.0f} s",
      "first run of the exact chain (compiles)"))
rows(S_FAMILY_LTXV, "h100/family_033_ltxv/matrix.json",
     ("family.h100.ltxv.stock.time", "json:chains/stock/times_s/1", 3.22, "{:.2f} s",
      "the median (of two: the slower)"),
     ("family.h100.ltxv.attention.speedup", "json:chains/attention/speedup", 1.163, "{:.2f}x"),
     ("family.h100.ltxv.shipped.cosine", "json:chains/shipped/cosine", 0.999873, "{:.5f}", "final latent vs stock"),
     ("family.h100.ltxv.fp8_shipped.speedup", "json:chains/fp8_shipped/speedup", 1.276, "{:.2f}x",
      "FP8 loader -> the exact chain"),
     ("family.h100.ltxv.fp8_shipped.cosine", "json:chains/fp8_shipped/cosine", 0.99871, "{:.5f}",
      "final latent vs stock"),
     ("family.h100.ltxv.core_compile.speedup", "json:chains/core_compile/speedup", 1.127, "{:.2f}x",
      "ComfyUI TorchCompileModel"),
     ("family.h100.ltxv.core_fp8_fast.speedup", "json:chains/core_fp8_fast/speedup", 0.929, "{:.2f}x",
      "ComfyUI weight_dtype fp8_e4m3fn_fast"),
     ("family.h100.ltxv.kj_sage_compile.speedup", "json:chains/kj_sage_compile/speedup", 0.567, "{:.2f}x",
      "KJNodes Sage -> TorchCompileModelAdvanced"),
     ("family.h100.ltxv.shipped.first_run", "json:chains/shipped/first_run_s", 10.83, "{:.0f} s",
      "first run of the exact chain (compiles)"))
rows(S_FAMILY_QWEN, "h100/family_033_qwen_image_8steps/matrix.json",
     ("family.h100.qwen.stock.time", "json:chains/stock/times_s/0", 5.472, "{:.2f} s"),
     ("family.h100.qwen.attention.speedup", "json:chains/attention/speedup", 1.206, "{:.2f}x"),
     ("family.h100.qwen.shipped.speedup", "json:chains/shipped/speedup", 1.309, "{:.2f}x",
      "Accel CUDA Settings -> Attention -> Compile"),
     ("family.h100.qwen.shipped.cosine", "json:chains/shipped/cosine", 0.999876, "{:.5f}", "final latent vs stock"),
     ("family.h100.qwen.fp8_shipped.speedup", "json:chains/fp8_shipped/speedup", 1.427, "{:.2f}x",
      "FP8 loader -> the exact chain"),
     ("family.h100.qwen.fp8_shipped.cosine", "json:chains/fp8_shipped/cosine", 0.999261, "{:.5f}",
      "final latent vs stock"),
     ("family.h100.qwen.core_compile.speedup", "json:chains/core_compile/speedup", 1.179, "{:.2f}x",
      "ComfyUI TorchCompileModel"),
     ("family.h100.qwen.core_fp8_fast.speedup", "json:chains/core_fp8_fast/speedup", 0.955, "{:.2f}x",
      "ComfyUI weight_dtype fp8_e4m3fn_fast"),
     ("family.h100.qwen.kj_sage_compile.speedup", "json:chains/kj_sage_compile/speedup", 1.074, "{:.2f}x",
      "KJNodes Sage -> TorchCompileModelAdvanced"),
     ("family.h100.qwen.shipped.first_run", "json:chains/shipped/first_run_s", 42.35, "{:.0f} s",
      "first run of the exact chain (compiles)"))

# the users' workflow (issue #27), ComfyUI 0.33 ---------------------------------------------------------------
rows(S_WF_H100_80, "h100/wf_lightx2v_033/gguf_80GB/matrix.json",
     ("wf.h100.80.gguf.time", "json:chains/gguf/times_s/1", 16.52, "{:.1f} s",
      "the experts as Q8_0 GGUF files through ComfyUI-GGUF's Unet Loader (GGUF), stock"),
     ("wf.h100.80.gguf.stock.time", "json:chains/stock/times_s/1", 13.979, "{:.1f} s",
      "fp8_scaled stock in the GGUF run"),
     ("wf.h100.80.gguf_level1.time", "json:chains/gguf_level1/times_s/1", 11.011, "{:.1f} s",
      "Q8_0 GGUF experts -> Accel Wan Level-1"),
     ("wf.h100.80.gguf_level1.first_run", "json:chains/gguf_level1/first_run_s", 27.95, "{:.0f} s",
      "Q8_0 GGUF experts -> Level-1, first run (compiles)"))
rows(S_WF_H100_80, "h100/wf_lightx2v_033/sequential_80GB/matrix.json",
     ("wf.h100.80.stock.time", "json:chains/stock/times_s/1", 14.612, "{:.1f} s"),
     ("wf.h100.80.stock.first_run", "json:chains/stock/first_run_s", 23.22, "{:.0f} s",
      "first run (compiles; weights already loaded)"),
     ("wf.h100.80.level1.time", "json:chains/level1/times_s/1", 8.962, "{:.1f} s"),
     ("wf.h100.80.level1.speedup", "json:chains/level1/speedup", 1.63, "{:.2f}x"),
     ("wf.h100.80.level1.cosine", "json:chains/level1/cosine", 0.999927, "{:.5f}", "final latent vs stock"),
     ("wf.h100.80.level1.first_run", "json:chains/level1/first_run_s", 30.26, "{:.0f} s",
      "first run (compiles; weights already loaded)"),
     ("wf.h100.80.level1_fast.time", "json:chains/level1_fast/times_s/1", 9.043, "{:.1f} s"),
     ("wf.h100.80.level1_fast.speedup", "json:chains/level1_fast/speedup", 1.616, "{:.2f}x"),
     ("wf.h100.80.level1_fast.cosine", "json:chains/level1_fast/cosine", 0.999927, "{:.5f}", "final latent vs stock"),
     ("wf.h100.80.level1_fast.first_run", "json:chains/level1_fast/first_run_s", 15.08, "{:.0f} s",
      "first run (compiles; weights already loaded)"),
     ("wf.h100.80.fp8_level1.time", "json:chains/fp8_level1/times_s/1", 11.131, "{:.1f} s"),
     ("wf.h100.80.fp8_level1.speedup", "json:chains/fp8_level1/speedup", 1.313, "{:.2f}x"),
     ("wf.h100.80.fp8_level1.cosine", "json:chains/fp8_level1/cosine", 0.998842, "{:.5f}", "final latent vs stock"),
     ("wf.h100.80.fp8_level1.first_run", "json:chains/fp8_level1/first_run_s", 19.72, "{:.0f} s",
      "first run (compiles; weights already loaded)"),
     ("wf.h100.80.kj_sage_compile.time", "json:chains/kj_sage_compile/times_s/0", 12.375, "{:.1f} s"),
     ("wf.h100.80.kj_sage_compile.speedup", "json:chains/kj_sage_compile/speedup", 1.181, "{:.2f}x"),
     ("wf.h100.80.kj_sage_compile.cosine", "json:chains/kj_sage_compile/cosine", 0.999941, "{:.5f}",
      "final latent vs stock"),
     ("wf.h100.80.kj_sage_compile.first_run", "json:chains/kj_sage_compile/first_run_s", 38.03, "{:.0f} s",
      "first run (compiles; weights already loaded)"))
rows(S_WF_H100_24, "h100/wf_lightx2v_033/sequential_24GB_occupied/matrix.json",
     ("wf.h100.24.stock.time", "json:chains/stock/times_s/0", 16.302, "{:.1f} s"),
     ("wf.h100.24.stock.first_run", "json:chains/stock/first_run_s", 30.13, "{:.0f} s",
      "first run (compiles; weights already loaded)"),
     ("wf.h100.24.level1.time", "json:chains/level1/times_s/0", 12.64, "{:.1f} s"),
     ("wf.h100.24.level1.speedup", "json:chains/level1/speedup", 1.29, "{:.2f}x"),
     ("wf.h100.24.level1.cosine", "json:chains/level1/cosine", 0.999927, "{:.5f}", "final latent vs stock"),
     ("wf.h100.24.level1.first_run", "json:chains/level1/first_run_s", 38.58, "{:.0f} s",
      "first run (compiles; weights already loaded)"),
     ("wf.h100.24.kj_sage_compile.time", "json:chains/kj_sage_compile/times_s/0", 15.229, "{:.1f} s"),
     ("wf.h100.24.kj_sage_compile.speedup", "json:chains/kj_sage_compile/speedup", 1.07, "{:.2f}x"),
     ("wf.h100.24.kj_sage_compile.cosine", "json:chains/kj_sage_compile/cosine", 0.999941, "{:.5f}",
      "final latent vs stock"),
     ("wf.h100.24.kj_sage_compile.first_run", "json:chains/kj_sage_compile/first_run_s", 51.25, "{:.0f} s",
      "first run (compiles; weights already loaded)"))
rows(S_WF_H200_141, "h200/wf_lightx2v_033/sequential_141GB/matrix.json",
     ("wf.h200.141.stock.time", "json:chains/stock/times_s/1", 14.341, "{:.1f} s"),
     ("wf.h200.141.stock.first_run", "json:chains/stock/first_run_s", 21.17, "{:.0f} s",
      "first run (compiles; weights already loaded)"),
     ("wf.h200.141.level1.time", "json:chains/level1/times_s/0", 8.809, "{:.1f} s"),
     ("wf.h200.141.level1.speedup", "json:chains/level1/speedup", 1.628, "{:.2f}x"),
     ("wf.h200.141.level1.cosine", "json:chains/level1/cosine", 0.999927, "{:.5f}", "final latent vs stock"),
     ("wf.h200.141.level1.first_run", "json:chains/level1/first_run_s", 26.03, "{:.0f} s",
      "first run (compiles; weights already loaded)"),
     ("wf.h200.141.fp8_level1.time", "json:chains/fp8_level1/times_s/0", 10.577, "{:.1f} s"),
     ("wf.h200.141.fp8_level1.speedup", "json:chains/fp8_level1/speedup", 1.356, "{:.2f}x"),
     ("wf.h200.141.fp8_level1.cosine", "json:chains/fp8_level1/cosine", 0.998842, "{:.5f}", "final latent vs stock"),
     ("wf.h200.141.fp8_level1.first_run", "json:chains/fp8_level1/first_run_s", 19.62, "{:.0f} s",
      "first run (compiles; weights already loaded)"),
     ("wf.h200.141.kj_sage_compile.time", "json:chains/kj_sage_compile/times_s/0", 11.881, "{:.1f} s"),
     ("wf.h200.141.kj_sage_compile.speedup", "json:chains/kj_sage_compile/speedup", 1.207, "{:.2f}x"),
     ("wf.h200.141.kj_sage_compile.cosine", "json:chains/kj_sage_compile/cosine", 0.99994, "{:.5f}",
      "final latent vs stock"),
     ("wf.h200.141.kj_sage_compile.first_run", "json:chains/kj_sage_compile/first_run_s", 37.36, "{:.0f} s",
      "first run (compiles; weights already loaded)"))
rows(S_WF_H100_80, "h100/wf_lightx2v_033/sequential_80GB/matrix.json",
     ("wf.h100.80.level1.compile_s", "json:chains/level1/compile/0/compile_seconds", 16.919, "{:.0f} s",
      "compile time of the high-noise expert (the low-noise one reuses its graph)"))
rows(S_WF_H100_24, "h100/wf_lightx2v_033/sequential_24GB_occupied/matrix.json",
     ("wf.h100.24.stock.peak_device", "json:chains/stock/peak_device_gib", 79.15, "{:.1f} GiB",
      "device memory in use at the peak, the occupying process included"))

# the users' workflow end to end (issue #27), ComfyUI 0.33 live server -----------------------------------------
rows(S_E2E_WF_H200, "h200/e2e_lightx2v_033/whole_card/e2e_wan22_t2v_lightx2v.json",
     ("e2e_wf.h200.stock.q1.total", "json:rows/0/queues/0/total_s", 33.854, "{:.1f} s", "Queue 1, total"),
     ("e2e_wf.h200.stock.q1.high_noise", "json:rows/0/queues/0/stages_s/sampler high-noise", 11.901, "{:.1f} s",
      "Queue 1, sampler high-noise stage"),
     ("e2e_wf.h200.stock.q1.low_noise", "json:rows/0/queues/0/stages_s/sampler low-noise", 9.28, "{:.1f} s",
      "Queue 1, sampler low-noise stage"),
     ("e2e_wf.h200.stock.q1.vae_decode", "json:rows/0/queues/0/stages_s/VAE decode", 2.78, "{:.1f} s",
      "Queue 1, VAE decode stage"),
     ("e2e_wf.h200.stock.q1.save", "json:rows/0/queues/0/stages_s/save", 4.523, "{:.1f} s", "Queue 1, save stage"),
     ("e2e_wf.h200.stock.q2.total", "json:rows/0/queues/1/total_s", 20.273, "{:.1f} s", "Queue 2, total"),
     ("e2e_wf.h200.stock.q2.high_noise", "json:rows/0/queues/1/stages_s/sampler high-noise", 6.921, "{:.1f} s",
      "Queue 2, sampler high-noise stage"),
     ("e2e_wf.h200.stock.q2.low_noise", "json:rows/0/queues/1/stages_s/sampler low-noise", 6.909, "{:.1f} s",
      "Queue 2, sampler low-noise stage"),
     ("e2e_wf.h200.stock.q2.vae_decode", "json:rows/0/queues/1/stages_s/VAE decode", 2.105, "{:.1f} s",
      "Queue 2, VAE decode stage"),
     ("e2e_wf.h200.stock.q2.save", "json:rows/0/queues/1/stages_s/save", 4.33, "{:.1f} s", "Queue 2, save stage"),
     ("e2e_wf.h200.level1.q1.total", "json:rows/1/queues/0/total_s", 38.052, "{:.1f} s", "Queue 1, total"),
     ("e2e_wf.h200.level1.q1.high_noise", "json:rows/1/queues/0/stages_s/sampler high-noise", 20.081, "{:.1f} s",
      "Queue 1, sampler high-noise stage"),
     ("e2e_wf.h200.level1.q1.low_noise", "json:rows/1/queues/0/stages_s/sampler low-noise", 6.191, "{:.1f} s",
      "Queue 1, sampler low-noise stage"),
     ("e2e_wf.h200.level1.q1.vae_decode", "json:rows/1/queues/0/stages_s/VAE decode", 2.569, "{:.1f} s",
      "Queue 1, VAE decode stage"),
     ("e2e_wf.h200.level1.q1.save", "json:rows/1/queues/0/stages_s/save", 4.69, "{:.1f} s", "Queue 1, save stage"),
     ("e2e_wf.h200.level1.q2.total", "json:rows/1/queues/1/total_s", 15.984, "{:.1f} s", "Queue 2, total"),
     ("e2e_wf.h200.level1.q2.high_noise", "json:rows/1/queues/1/stages_s/sampler high-noise", 4.302, "{:.1f} s",
      "Queue 2, sampler high-noise stage"),
     ("e2e_wf.h200.level1.q2.low_noise", "json:rows/1/queues/1/stages_s/sampler low-noise", 4.351, "{:.1f} s",
      "Queue 2, sampler low-noise stage"),
     ("e2e_wf.h200.level1.q2.vae_decode", "json:rows/1/queues/1/stages_s/VAE decode", 2.191, "{:.1f} s",
      "Queue 2, VAE decode stage"),
     ("e2e_wf.h200.level1.q2.save", "json:rows/1/queues/1/stages_s/save", 5.126, "{:.1f} s", "Queue 2, save stage"),
     ("e2e_wf.h200.level1_vae.q1.total", "json:rows/2/queues/0/total_s", 35.578, "{:.1f} s", "Queue 1, total"),
     ("e2e_wf.h200.level1_vae.q1.high_noise", "json:rows/2/queues/0/stages_s/sampler high-noise", 17.285, "{:.1f} s",
      "Queue 1, sampler high-noise stage"),
     ("e2e_wf.h200.level1_vae.q1.low_noise", "json:rows/2/queues/0/stages_s/sampler low-noise", 6.5, "{:.1f} s",
      "Queue 1, sampler low-noise stage"),
     ("e2e_wf.h200.level1_vae.q1.vae_decode", "json:rows/2/queues/0/stages_s/VAE decode", 2.576, "{:.1f} s",
      "Queue 1, VAE decode stage"),
     ("e2e_wf.h200.level1_vae.q1.save", "json:rows/2/queues/0/stages_s/save", 4.397, "{:.1f} s", "Queue 1, save stage"),
     ("e2e_wf.h200.level1_vae.q2.total", "json:rows/2/queues/1/total_s", 15.329, "{:.1f} s", "Queue 2, total"),
     ("e2e_wf.h200.level1_vae.q2.high_noise", "json:rows/2/queues/1/stages_s/sampler high-noise", 4.284, "{:.1f} s",
      "Queue 2, sampler high-noise stage"),
     ("e2e_wf.h200.level1_vae.q2.low_noise", "json:rows/2/queues/1/stages_s/sampler low-noise", 4.272, "{:.1f} s",
      "Queue 2, sampler low-noise stage"),
     ("e2e_wf.h200.level1_vae.q2.vae_decode", "json:rows/2/queues/1/stages_s/VAE decode", 2.399, "{:.1f} s",
      "Queue 2, VAE decode stage"),
     ("e2e_wf.h200.level1_vae.q2.save", "json:rows/2/queues/1/stages_s/save", 3.913, "{:.1f} s", "Queue 2, save stage"))
rows(S_E2E_WF_H100, "h100/e2e_lightx2v_033/whole_card_shared_cache/e2e_wan22_t2v_lightx2v.json",
     ("e2e_wf.h100.stock.q1.total", "json:rows/0/queues/0/total_s", 37.158, "{:.1f} s", "Queue 1, total"),
     ("e2e_wf.h100.stock.q1.high_noise", "json:rows/0/queues/0/stages_s/sampler high-noise", 11.88, "{:.1f} s",
      "Queue 1, sampler high-noise stage"),
     ("e2e_wf.h100.stock.q1.low_noise", "json:rows/0/queues/0/stages_s/sampler low-noise", 10.777, "{:.1f} s",
      "Queue 1, sampler low-noise stage"),
     ("e2e_wf.h100.stock.q1.vae_decode", "json:rows/0/queues/0/stages_s/VAE decode", 3.051, "{:.1f} s",
      "Queue 1, VAE decode stage"),
     ("e2e_wf.h100.stock.q1.save", "json:rows/0/queues/0/stages_s/save", 5.838, "{:.1f} s", "Queue 1, save stage"),
     ("e2e_wf.h100.stock.q2.total", "json:rows/0/queues/1/total_s", 22.535, "{:.1f} s", "Queue 2, total"),
     ("e2e_wf.h100.stock.q2.high_noise", "json:rows/0/queues/1/stages_s/sampler high-noise", 7.16, "{:.1f} s",
      "Queue 2, sampler high-noise stage"),
     ("e2e_wf.h100.stock.q2.low_noise", "json:rows/0/queues/1/stages_s/sampler low-noise", 7.095, "{:.1f} s",
      "Queue 2, sampler low-noise stage"),
     ("e2e_wf.h100.stock.q2.vae_decode", "json:rows/0/queues/1/stages_s/VAE decode", 2.501, "{:.1f} s",
      "Queue 2, VAE decode stage"),
     ("e2e_wf.h100.stock.q2.save", "json:rows/0/queues/1/stages_s/save", 5.767, "{:.1f} s", "Queue 2, save stage"),
     ("e2e_wf.h100.level1.q1.total", "json:rows/1/queues/0/total_s", 46.73, "{:.1f} s", "Queue 1, total"),
     ("e2e_wf.h100.level1.q1.high_noise", "json:rows/1/queues/0/stages_s/sampler high-noise", 24.44, "{:.1f} s",
      "Queue 1, sampler high-noise stage"),
     ("e2e_wf.h100.level1.q1.low_noise", "json:rows/1/queues/0/stages_s/sampler low-noise", 7.403, "{:.1f} s",
      "Queue 1, sampler low-noise stage"),
     ("e2e_wf.h100.level1.q1.vae_decode", "json:rows/1/queues/0/stages_s/VAE decode", 3.201, "{:.1f} s",
      "Queue 1, VAE decode stage"),
     ("e2e_wf.h100.level1.q1.save", "json:rows/1/queues/0/stages_s/save", 5.756, "{:.1f} s", "Queue 1, save stage"),
     ("e2e_wf.h100.level1.q2.total", "json:rows/1/queues/1/total_s", 17.323, "{:.1f} s", "Queue 2, total"),
     ("e2e_wf.h100.level1.q2.high_noise", "json:rows/1/queues/1/stages_s/sampler high-noise", 4.42, "{:.1f} s",
      "Queue 2, sampler high-noise stage"),
     ("e2e_wf.h100.level1.q2.low_noise", "json:rows/1/queues/1/stages_s/sampler low-noise", 4.385, "{:.1f} s",
      "Queue 2, sampler low-noise stage"),
     ("e2e_wf.h100.level1.q2.vae_decode", "json:rows/1/queues/1/stages_s/VAE decode", 2.461, "{:.1f} s",
      "Queue 2, VAE decode stage"),
     ("e2e_wf.h100.level1.q2.save", "json:rows/1/queues/1/stages_s/save", 6.017, "{:.1f} s", "Queue 2, save stage"),
     ("e2e_wf.h100.level1_vae.q1.total", "json:rows/2/queues/0/total_s", 36.024, "{:.1f} s", "Queue 1, total"),
     ("e2e_wf.h100.level1_vae.q1.high_noise", "json:rows/2/queues/0/stages_s/sampler high-noise", 14.033, "{:.1f} s",
      "Queue 1, sampler high-noise stage"),
     ("e2e_wf.h100.level1_vae.q1.low_noise", "json:rows/2/queues/0/stages_s/sampler low-noise", 6.93, "{:.1f} s",
      "Queue 1, sampler low-noise stage"),
     ("e2e_wf.h100.level1_vae.q1.vae_decode", "json:rows/2/queues/0/stages_s/VAE decode", 2.877, "{:.1f} s",
      "Queue 1, VAE decode stage"),
     ("e2e_wf.h100.level1_vae.q1.save", "json:rows/2/queues/0/stages_s/save", 5.381, "{:.1f} s", "Queue 1, save stage"),
     ("e2e_wf.h100.level1_vae.q2.total", "json:rows/2/queues/1/total_s", 15.801, "{:.1f} s", "Queue 2, total"),
     ("e2e_wf.h100.level1_vae.q2.high_noise", "json:rows/2/queues/1/stages_s/sampler high-noise", 4.36, "{:.1f} s",
      "Queue 2, sampler high-noise stage"),
     ("e2e_wf.h100.level1_vae.q2.low_noise", "json:rows/2/queues/1/stages_s/sampler low-noise", 4.352, "{:.1f} s",
      "Queue 2, sampler low-noise stage"),
     ("e2e_wf.h100.level1_vae.q2.vae_decode", "json:rows/2/queues/1/stages_s/VAE decode", 2.582, "{:.1f} s",
      "Queue 2, VAE decode stage"),
     ("e2e_wf.h100.level1_vae.q2.save", "json:rows/2/queues/1/stages_s/save", 4.461, "{:.1f} s", "Queue 2, save stage"))
rows(S_E2E_WF_H100_24, "h100/e2e_lightx2v_033/card24_occupied/e2e_wan22_t2v_lightx2v_card24.json",
     ("e2e_wf.h100.24.stock.q1.total", "json:rows/0/queues/0/total_s", 28.811, "{:.1f} s", "Queue 1, total"),
     ("e2e_wf.h100.24.stock.q1.high_noise", "json:rows/0/queues/0/stages_s/sampler high-noise", 8.636, "{:.1f} s",
      "Queue 1, sampler high-noise stage"),
     ("e2e_wf.h100.24.stock.q1.low_noise", "json:rows/0/queues/0/stages_s/sampler low-noise", 8.559, "{:.1f} s",
      "Queue 1, sampler low-noise stage"),
     ("e2e_wf.h100.24.stock.q1.vae_decode", "json:rows/0/queues/0/stages_s/VAE decode", 2.847, "{:.1f} s",
      "Queue 1, VAE decode stage"),
     ("e2e_wf.h100.24.stock.q1.save", "json:rows/0/queues/0/stages_s/save", 4.646, "{:.1f} s", "Queue 1, save stage"),
     ("e2e_wf.h100.24.stock.q2.total", "json:rows/0/queues/1/total_s", 23.147, "{:.1f} s", "Queue 2, total"),
     ("e2e_wf.h100.24.stock.q2.high_noise", "json:rows/0/queues/1/stages_s/sampler high-noise", 7.654, "{:.1f} s",
      "Queue 2, sampler high-noise stage"),
     ("e2e_wf.h100.24.stock.q2.low_noise", "json:rows/0/queues/1/stages_s/sampler low-noise", 7.548, "{:.1f} s",
      "Queue 2, sampler low-noise stage"),
     ("e2e_wf.h100.24.stock.q2.vae_decode", "json:rows/0/queues/1/stages_s/VAE decode", 2.579, "{:.1f} s",
      "Queue 2, VAE decode stage"),
     ("e2e_wf.h100.24.stock.q2.save", "json:rows/0/queues/1/stages_s/save", 5.343, "{:.1f} s", "Queue 2, save stage"),
     ("e2e_wf.h100.24.level1.q1.total", "json:rows/1/queues/0/total_s", 33.234, "{:.1f} s", "Queue 1, total"),
     ("e2e_wf.h100.24.level1.q1.high_noise", "json:rows/1/queues/0/stages_s/sampler high-noise", 11.621, "{:.1f} s",
      "Queue 1, sampler high-noise stage"),
     ("e2e_wf.h100.24.level1.q1.low_noise", "json:rows/1/queues/0/stages_s/sampler low-noise", 7.463, "{:.1f} s",
      "Queue 1, sampler low-noise stage"),
     ("e2e_wf.h100.24.level1.q1.vae_decode", "json:rows/1/queues/0/stages_s/VAE decode", 2.819, "{:.1f} s",
      "Queue 1, VAE decode stage"),
     ("e2e_wf.h100.24.level1.q1.save", "json:rows/1/queues/0/stages_s/save", 5.621, "{:.1f} s", "Queue 1, save stage"),
     ("e2e_wf.h100.24.level1.q2.total", "json:rows/1/queues/1/total_s", 19.635, "{:.1f} s", "Queue 2, total"),
     ("e2e_wf.h100.24.level1.q2.high_noise", "json:rows/1/queues/1/stages_s/sampler high-noise", 5.282, "{:.1f} s",
      "Queue 2, sampler high-noise stage"),
     ("e2e_wf.h100.24.level1.q2.low_noise", "json:rows/1/queues/1/stages_s/sampler low-noise", 5.592, "{:.1f} s",
      "Queue 2, sampler low-noise stage"),
     ("e2e_wf.h100.24.level1.q2.vae_decode", "json:rows/1/queues/1/stages_s/VAE decode", 2.556, "{:.1f} s",
      "Queue 2, VAE decode stage"),
     ("e2e_wf.h100.24.level1.q2.save", "json:rows/1/queues/1/stages_s/save", 6.18, "{:.1f} s", "Queue 2, save stage"))
rows(S_E2E_WF_H200, "h200/e2e_lightx2v_033/peers/e2e_wan22_t2v_lightx2v.json",
     ("e2e_wf.h200.kj_sage_compile.q1.total", "json:rows/0/queues/0/total_s", 53.552, "{:.1f} s", "Queue 1, total"),
     ("e2e_wf.h200.kj_sage_compile.q1.high_noise", "json:rows/0/queues/0/stages_s/sampler high-noise",
      27.26, "{:.1f} s",
      "Queue 1, sampler high-noise stage"),
     ("e2e_wf.h200.kj_sage_compile.q1.low_noise", "json:rows/0/queues/0/stages_s/sampler low-noise", 10.683, "{:.1f} s",
      "Queue 1, sampler low-noise stage"),
     ("e2e_wf.h200.kj_sage_compile.q1.vae_decode", "json:rows/0/queues/0/stages_s/VAE decode", 2.62, "{:.1f} s",
      "Queue 1, VAE decode stage"),
     ("e2e_wf.h200.kj_sage_compile.q1.save", "json:rows/0/queues/0/stages_s/save", 4.517, "{:.1f} s",
      "Queue 1, save stage"),
     ("e2e_wf.h200.kj_sage_compile.q2.total", "json:rows/0/queues/1/total_s", 18.689, "{:.1f} s", "Queue 2, total"),
     ("e2e_wf.h200.kj_sage_compile.q2.high_noise", "json:rows/0/queues/1/stages_s/sampler high-noise",
      5.846, "{:.1f} s",
      "Queue 2, sampler high-noise stage"),
     ("e2e_wf.h200.kj_sage_compile.q2.low_noise", "json:rows/0/queues/1/stages_s/sampler low-noise", 5.846, "{:.1f} s",
      "Queue 2, sampler low-noise stage"),
     ("e2e_wf.h200.kj_sage_compile.q2.vae_decode", "json:rows/0/queues/1/stages_s/VAE decode", 2.137, "{:.1f} s",
      "Queue 2, VAE decode stage"),
     ("e2e_wf.h200.kj_sage_compile.q2.save", "json:rows/0/queues/1/stages_s/save", 4.846, "{:.1f} s",
      "Queue 2, save stage"))

# block-sparse attention per call (radial pattern, issue #32) ----------------------------------------------------
rows(S_SPARSE_H100, "h100/sparse_attention/sparse_attention.json",
     ("sparse.h100.480p.decay0.2.speedup", "json:rows/2/speedup_vs_fa3", 1.2530550427295521, "{:.2f}x",
      "480p 81 frames (32,760 tokens), decay 0.2"),
     ("sparse.h100.720p.decay0.2.speedup", "json:rows/7/speedup_vs_fa3", 1.8490722430700195, "{:.2f}x",
      "720p 81 frames (75,600 tokens), decay 0.2"),
     ("sparse.h100.480p.decay1.speedup", "json:rows/4/speedup_vs_fa3", 0.9911020478282272, "{:.2f}x",
      "480p 81 frames, decay 1"),
     ("sparse.h100.720p.decay0.2.cosine", "json:rows/7/vs_masked_reference/cosine", 0.9999968490958904, "{:.6f}",
      "720p 81 frames, decay 0.2, output vs the dense masked fp32 reference"))

# FlashAttention-4 on Hopper, dense adapter and block-sparse (issues #28, #32) -----------------------------------
rows(S_ATTN_FA4_H100, "h100/attention_033_fa4/bench_attention.json",
     ("fa4.h100.720p.dense.ms", "json:micro/28/ms", 176.77261352539062, "{:.0f} ms",
      "Wan 14B 720p 81 frames, flash_attn_4"),
     ("fa3.h100.720p.dense.ms", "json:micro/27/ms", 172.2314910888672, "{:.0f} ms",
      "Wan 14B 720p 81 frames, flash_attn_3"),
     ("fa4.h100.480p.dense.ms", "json:micro/17/ms", 32.52191925048828, "{:.1f} ms",
      "Wan 14B 480p 81 frames, flash_attn_4"),
     ("fa3.h100.480p.dense.ms", "json:micro/16/ms", 33.003326416015625, "{:.1f} ms",
      "Wan 14B 480p 81 frames, flash_attn_3"),
     ("fa4.h100.720p.dense.cosine", "json:micro/28/cosine", 0.999997263990402, "{:.6f}",
      "Wan 14B 720p, vs a float32 reference"))
rows(S_SPARSE_FA4_H100, "h100/attention_033_fa4/sparse_attention.json",
     ("sparse_fa4.h100.480p.decay0.2.speedup", "json:rows/3/speedup_vs_fa3", 2.4924431288288647, "{:.2f}x",
      "480p 81 frames (32,760 tokens), decay 0.2, FA4 block-sparse"),
     ("sparse_fa4.h100.720p.decay0.2.cosine", "json:rows/11/vs_masked_reference/cosine", 0.9999968490361827, "{:.6f}",
      "720p, decay 0.2, FA4 block-sparse output vs the dense masked fp32 reference"))

# sparse attention in the users' workflow (issue #32) ------------------------------------------------------------
rows(S_WF720_FA4, "h100/wf_lightx2v_033/sparse_720p_80GB_fa4/matrix.json",
     ("wf720.h100.stock.time", "json:chains/stock/times_s/0", 64.38, "{:.1f} s"),
     ("wf720.h100.level1.speedup", "json:chains/level1/speedup", 1.775, "{:.2f}x"),
     ("wf720.h100.level1_sparse_fa4.speedup", "json:chains/level1_sparse/speedup", 2.817, "{:.2f}x"),
     ("wf720.h100.level1_sparse_fa4.time", "json:chains/level1_sparse/times_s/0", 22.851, "{:.1f} s"),
     ("wf720.h100.level1_sparse_fa4.cosine", "json:chains/level1_sparse/cosine", 0.999912, "{:.5f}",
      "final latent vs stock (random weights: says little for sparse attention)"))
rows(S_WF121_FA4_24, "h100/wf_lightx2v_033/sparse_720p_121f_24GB_fa4/matrix.json",
     ("wf121.h100.24.stock.time", "json:chains/stock/times_s/0", 130.859, "{:.0f} s"),
     ("wf121.h100.24.level1_sparse_fa4.time", "json:chains/level1_sparse/times_s/0", 40.325, "{:.1f} s"),
     ("wf121.h100.24.level1_sparse_fa4.speedup", "json:chains/level1_sparse/speedup", 3.245, "{:.2f}x"),
     ("wf121.h100.24.level1_sparse_fa4.first_run", "json:chains/level1_sparse/first_run_s", 58.88, "{:.0f} s",
      "first run (compiles)"))
rows(S_WF720_FLEX, "h100/wf_lightx2v_033/sparse_720p_80GB_fixed_dense_steps/matrix.json",
     ("wf720.h100.level1_sparse_flex.speedup", "json:chains/level1_sparse/speedup", 2.238, "{:.2f}x"))
rows(S_WF720_FLEX_OLD, "h100/wf_lightx2v_033/sparse_720p_80GB/matrix.json",
     ("wf720.h100.level1_sparse_flex_old.speedup", "json:chains/level1_sparse/speedup", 2.036, "{:.2f}x"))
rows(S_WF480_SPARSE, "h100/wf_lightx2v_033/sparse_480p_80GB/matrix.json",
     ("wf480.h100.level1.time", "json:chains/level1/times_s/0", 10.509, "{:.2f} s"),
     ("wf480.h100.level1_sparse.time", "json:chains/level1_sparse/times_s/0", 9.882, "{:.2f} s"))

# FP8 loader + LoRA, low-rank path (issue #27) ---------------------------------------------------------------------
rows(S_WF_FP8_LOWRANK, "h100/wf_lightx2v_033/sequential_80GB_fp8_lora_lowrank/matrix.json",
     ("wf.h100.80.fp8_lowrank.speedup", "json:chains/fp8_level1/speedup", 1.428, "{:.2f}x"),
     ("wf.h100.80.fp8_lowrank.time", "json:chains/fp8_level1/times_s/0", 9.842, "{:.2f} s"),
     ("wf.h100.80.fp8_lowrank.first_run", "json:chains/fp8_level1/first_run_s", 19.67, "{:.0f} s",
      "first run (compiles; model already loaded)"),
     ("wf.h100.80.fp8_lowrank.cosine", "json:chains/fp8_level1/cosine", 0.999256, "{:.5f}", "final latent vs stock"),
     ("wf.h100.80.fp8_lowrank.level1.speedup", "json:chains/level1/speedup", 1.635, "{:.2f}x",
      "Level-1 on ComfyUI's loader in the same run"),
     ("wf.h100.80.fp8_lowrank.peak_device", "json:chains/fp8_level1/peak_device_gib", 61.96, "{:.0f} GiB",
      "device memory peak"))
rows(S_WF_FP8_FIXES_H200, "h200/wf_lightx2v_033/sequential_141GB_fp8_fixes/matrix.json",
     ("wf.h200.141.fix.fp8_level1.cosine", "json:chains/fp8_level1/cosine", 0.999256, "{:.5f}",
      "final latent vs stock"),
     ("wf.h200.141.fix.fp8_level1.peak_device", "json:chains/fp8_level1/peak_device_gib", 35.15, "{:.0f} GiB",
      "device memory peak"))
rows(S_WF_FP8_DTYPE_H100, "h100/wf_lightx2v_033/sequential_80GB_profile_fp8_dtype_fix/matrix.json",
     ("wf.h100.80.dtypefix.fp8_level1.speedup", "json:chains/fp8_level1/speedup", 1.442, "{:.2f}x"),
     ("wf.h100.80.dtypefix.fp8_level1.peak_device", "json:chains/fp8_level1/peak_device_gib", 35.57, "{:.0f} GiB",
      "device memory peak"),
     ("wf.h100.80.dtypefix.level1.speedup", "json:chains/level1/speedup", 1.617, "{:.2f}x",
      "Level-1 on ComfyUI's loader in the same run"))
rows(S_WF_H100_80_ONE_RUN, "h100/wf_lightx2v_033/sequential_80GB_profile/matrix.json",
     ("wf.h100.80.profile.fp8_level1.peak_device", "json:chains/fp8_level1/peak_device_gib", 61.72, "{:.0f} GiB",
      "FP8 loader -> LoRA -> Level-1 before the fixes, device memory peak"))
rows(S_WF_FP8_FIXES_H100, "h100/wf_lightx2v_033/sequential_80GB_fp8_fixes/matrix.json",
     ("wf.h100.80.fix.fp8_level1.cosine", "json:chains/fp8_level1/cosine", 0.999256, "{:.5f}", "final latent vs stock"),
     ("wf.h100.80.fix.fp8_level1.first_run", "json:chains/fp8_level1/first_run_s", 21.07, "{:.0f} s",
      "first run (compiles; model already loaded)"),
     ("wf.h100.80.fix.fp8_level1.peak_device", "json:chains/fp8_level1/peak_device_gib", 35.24, "{:.0f} GiB",
      "device memory peak"))
rows(S_FAMILY_QWEN_FIX, "h100/family_033_qwen_image_8steps_fp8_fix/matrix.json",
     ("family.h100.qwen.fix.stock.time", "json:chains/stock/times_s/1", 5.35, "{:.2f} s"),
     ("family.h100.qwen.fix.shipped.cosine", "json:chains/shipped/cosine", 0.999876, "{:.5f}",
      "exact chain, final latent vs stock"),
     ("family.h100.qwen.fix.fp8_shipped.cosine", "json:chains/fp8_shipped/cosine", 0.999257, "{:.5f}",
      "FP8 loader -> exact chain, final latent vs stock"),
     ("family.h100.qwen.fix.fp8_shipped.peak_device", "json:chains/fp8_shipped/peak_device_gib", 27.26, "{:.0f} GiB",
      "FP8 loader -> exact chain, device memory peak"))
rows(S_FAMILY_QWEN, "h100/family_033_qwen_image_8steps/matrix.json",
     ("family.h100.qwen.fp8_shipped.peak_device", "json:chains/fp8_shipped/peak_device_gib", 40.45, "{:.0f} GiB",
      "FP8 loader -> exact chain before the dtype fix, device memory peak"))

# Flux on the H200, each chain on its own (issue #30) --------------------------------------------------------------
rows(S_FAMILY_FLUX_H200, "h200/family_033_flux_1024_sequential_profile/matrix.json",
     ("family.h200.flux.stock.time", "json:chains/stock/times_s/0", 3.548, "{:.2f} s"),
     ("family.h200.flux.shipped.speedup", "json:chains/shipped/speedup", 1.232, "{:.2f}x",
      "Accel CUDA Settings -> Attention -> Compile"),
     ("family.h200.flux.attention.speedup", "json:chains/attention/speedup", 1.148, "{:.2f}x",
      "Accel Attention (auto)"),
     ("family.h200.flux.core_compile.speedup", "json:chains/core_compile/speedup", 1.183, "{:.2f}x",
      "ComfyUI TorchCompileModel (DynamicVRAM on, as ComfyUI starts)"),
     ("family.h200.flux.shipped.gpu_busy", "json:chains/shipped/profile/gpu_busy", 0.795, "{:.2f}",
      "exact chain, one profiled run: GPU-busy share of the wall time"),
     ("family.h200.flux.fp8_shipped.gpu_busy", "json:chains/fp8_shipped/profile/gpu_busy", 0.526, "{:.2f}",
      "FP8 loader -> exact chain, one profiled run: GPU-busy share of the wall time"))

# after the host-time trims (this version): Flux and the users' workflow on the H200 ----------------------------
rows(S_FAMILY_FLUX_TRIMS, "h200/family_033_flux_1024_host_trims/new/matrix.json",
     ("family.h200.flux.trims.stock.time", "json:chains/stock/times_s/0", 3.447, "{:.2f} s"),
     ("family.h200.flux.trims.shipped.time", "json:chains/shipped/times_s/0", 2.598, "{:.2f} s",
      "Accel CUDA Settings -> Attention -> Compile"),
     ("family.h200.flux.trims.shipped.cosine", "json:chains/shipped/cosine", 0.999995, "{:.6f}",
      "exact chain, final latent vs stock"),
     ("family.h200.flux.trims.fp8_shipped.cosine", "json:chains/fp8_shipped/cosine", 0.999412, "{:.4f}",
      "FP8 loader -> exact chain, final latent vs stock"))
rows(S_FAMILY_FLUX_H200, "h200/family_033_flux_1024_host_trims/before_profile/matrix.json",
     ("family.h200.flux.before_trims.shipped.time", "json:chains/shipped/times_s/0", 2.895, "{:.2f} s",
      "exact chain before the trims (same day, another process)"))
rows(S_FAMILY_FLUX_TRIMS_H100, "h100/family_033_flux_1024_host_trims/matrix.json",
     ("family.h100.flux.trims.stock.time", "json:chains/stock/times_s/0", 3.598, "{:.2f} s"),
     ("family.h100.flux.trims.shipped.speedup", "json:chains/shipped/speedup", 1.228, "{:.2f}x",
      "Accel CUDA Settings -> Attention -> Compile"),
     ("family.h100.flux.trims.fp8_shipped.speedup", "json:chains/fp8_shipped/speedup", 1.118, "{:.2f}x",
      "FP8 loader -> exact chain"),
     ("family.h100.flux.trims.stock_again.time", "json:chains/stock_again/times_s/0", 4.348, "{:.2f} s",
      "stock again at the end of the run"))
rows(S_WF_TRIMS_H200, "h200/wf_lightx2v_033/sequential_141GB_host_trims/matrix.json",
     ("wf.h200.141.trims.stock.time", "json:chains/stock/times_s/1", 14.416, "{:.1f} s"),
     ("wf.h200.141.trims.level1.speedup", "json:chains/level1/speedup", 1.666, "{:.2f}x",
      "Level-1 on ComfyUI's loader"),
     ("wf.h200.141.trims.level1.cosine", "json:chains/level1/cosine", 0.999927, "{:.5f}",
      "Level-1, final latent vs stock"),
     ("wf.h200.141.trims.level1.first_run", "json:chains/level1/first_run_s", 23.48, "{:.0f} s",
      "Level-1 first run (compiles; weights already loaded)"),
     ("wf.h200.141.trims.fp8_level1.speedup", "json:chains/fp8_level1/speedup", 1.546, "{:.2f}x",
      "FP8 loader -> LoRA -> Level-1"),
     ("wf.h200.141.trims.fp8_level1.cosine", "json:chains/fp8_level1/cosine", 0.999256, "{:.5f}",
      "FP8 loader -> LoRA -> Level-1, final latent vs stock"))
rows(S_WF_H100_24_NOW, "h100/wf_lightx2v_033/sequential_24GB_occupied_profile/matrix.json",
     ("wf.h100.24.now.stock.time", "json:chains/stock/times_s/0", 15.656, "{:.1f} s"),
     ("wf.h100.24.now.level1.time", "json:chains/level1/times_s/0", 10.773, "{:.1f} s"),
     ("wf.h100.24.now.level1.speedup", "json:chains/level1/speedup", 1.453, "{:.2f}x"),
     ("wf.h100.24.now.level1.cosine", "json:chains/level1/cosine", 0.999928, "{:.5f}", "final latent vs stock"),
     ("wf.h100.24.now.level1.first_run", "json:chains/level1/first_run_s", 26.95, "{:.0f} s",
      "first run (compiles; weights already loaded)"),
     ("wf.h100.24.now.profile.stock.gpu_busy", "json:chains/stock/profile/gpu_busy", 0.926, "{:.2f}",
      "stock, one profiled run: GPU-busy share of the wall time"),
     ("wf.h100.24.now.profile.stock.copy_ms", "json:chains/stock/profile/copy_ms", 591.7, "{:.0f} ms",
      "stock, one profiled run: weight copies"),
     ("wf.h100.24.now.profile.stock.copy_alone_ms", "json:chains/stock/profile/copy_alone_ms", 152.8, "{:.0f} ms",
      "stock, one profiled run: copies with no compute beside them"),
     ("wf.h100.24.now.profile.level1.gpu_busy", "json:chains/level1/profile/gpu_busy", 0.75, "{:.2f}",
      "level1, one profiled run: GPU-busy share of the wall time"),
     ("wf.h100.24.now.profile.level1.copy_ms", "json:chains/level1/profile/copy_ms", 525.0, "{:.0f} ms",
      "level1, one profiled run: weight copies"),
     ("wf.h100.24.now.profile.level1.copy_alone_ms", "json:chains/level1/profile/copy_alone_ms", 450.5, "{:.0f} ms",
      "level1, one profiled run: copies with no compute beside them"),
     ("wf.h100.24.now.profile.level1.malloc_calls", "json:chains/level1/profile/host_top/0/1", 20040, "{:d}",
      "level1, one profiled run: cudaMallocAsync calls (host)"),
     ("wf.h100.24.now.profile.level1.malloc_s", "json:chains/level1/profile/host_top/0/2", 3.48261, "{:.1f} s",
      "level1, one profiled run: host self time in cudaMallocAsync (ms in the file)", 0.001))
rows(S_WF_FP8_DTYPE_H100, "h100/wf_lightx2v_033/sequential_80GB_profile_fp8_dtype_fix/matrix.json",
     ("wf.h100.80.dtypefix.profile.level1.malloc_s", "json:chains/level1/profile/host_top/5/2", 0.0665, "{:.2f} s",
      "level1, one profiled run: host self time in cudaMallocAsync (ms in the file)", 0.001))
rows(S_WF_H200_24, "h200/wf_lightx2v_033/sequential_24GB_occupied/matrix.json",
     ("wf.h200.24.stock.time", "json:chains/stock/times_s/0", 15.382, "{:.1f} s"),
     ("wf.h200.24.level1.speedup", "json:chains/level1/speedup", 1.427, "{:.2f}x"),
     ("wf.h200.24.level1.cosine", "json:chains/level1/cosine", 0.999927, "{:.5f}", "final latent vs stock"))
rows(S_E2E_WF_H200_SAVE, "h200/e2e_lightx2v_033/whole_card_savevideo/e2e_wan22_t2v_lightx2v.json",
     ("e2e_wf.h200.save.stock.q1.total", "json:rows/0/queues/0/total_s", 35.214, "{:.1f} s", "Queue 1, total"),
     ("e2e_wf.h200.save.stock.q2.total", "json:rows/0/queues/1/total_s", 19.746, "{:.1f} s", "Queue 2, total"),
     ("e2e_wf.h200.save.stock.q2.high_noise", "json:rows/0/queues/1/stages_s/sampler high-noise", 7.0, "{:.1f} s",
      "Queue 2, sampler high-noise stage"),
     ("e2e_wf.h200.save.stock.q2.vae_decode", "json:rows/0/queues/1/stages_s/VAE decode", 2.238, "{:.1f} s",
      "Queue 2, VAE decode stage"),
     ("e2e_wf.h200.save.stock.q2.save", "json:rows/0/queues/1/stages_s/save", 3.45, "{:.1f} s", "Queue 2, save stage"),
     ("e2e_wf.h200.save.level1.q1.total", "json:rows/1/queues/0/total_s", 44.394, "{:.1f} s", "Queue 1, total"),
     ("e2e_wf.h200.save.level1.q2.total", "json:rows/1/queues/1/total_s", 14.87, "{:.1f} s", "Queue 2, total"),
     ("e2e_wf.h200.save.level1.q2.high_noise", "json:rows/1/queues/1/stages_s/sampler high-noise", 4.364, "{:.1f} s",
      "Queue 2, sampler high-noise stage"),
     ("e2e_wf.h200.save.level1.q2.vae_decode", "json:rows/1/queues/1/stages_s/VAE decode", 2.466, "{:.1f} s",
      "Queue 2, VAE decode stage"),
     ("e2e_wf.h200.save.level1.q2.save", "json:rows/1/queues/1/stages_s/save", 3.71, "{:.1f} s", "Queue 2, save stage"),
     ("e2e_wf.h200.save.level1_vae.q1.total", "json:rows/2/queues/0/total_s", 38.513, "{:.1f} s", "Queue 1, total"),
     ("e2e_wf.h200.save.level1_vae.q2.total", "json:rows/2/queues/1/total_s", 13.983, "{:.1f} s", "Queue 2, total"),
     ("e2e_wf.h200.save.level1_vae.q2.high_noise", "json:rows/2/queues/1/stages_s/sampler high-noise",
      4.294, "{:.1f} s",
      "Queue 2, sampler high-noise stage"),
     ("e2e_wf.h200.save.level1_vae.q2.vae_decode", "json:rows/2/queues/1/stages_s/VAE decode", 2.273, "{:.1f} s",
      "Queue 2, VAE decode stage"),
     ("e2e_wf.h200.save.level1_vae.q2.save", "json:rows/2/queues/1/stages_s/save", 3.145, "{:.1f} s",
      "Queue 2, save stage"))
rows(S_E2E_WF_H200_24_SAVE, "h200/e2e_lightx2v_033/card24_occupied_savevideo/e2e_wan22_t2v_lightx2v_card24.json",
     ("e2e_wf.h200.24.save.stock.q1.total", "json:rows/0/queues/0/total_s", 28.569, "{:.1f} s", "Queue 1, total"),
     ("e2e_wf.h200.24.save.stock.q2.total", "json:rows/0/queues/1/total_s", 21.159, "{:.1f} s", "Queue 2, total"),
     ("e2e_wf.h200.24.save.stock.q2.high_noise", "json:rows/0/queues/1/stages_s/sampler high-noise", 7.482, "{:.1f} s",
      "Queue 2, sampler high-noise stage"),
     ("e2e_wf.h200.24.save.stock.q2.low_noise", "json:rows/0/queues/1/stages_s/sampler low-noise", 7.538, "{:.1f} s",
      "Queue 2, sampler low-noise stage"),
     ("e2e_wf.h200.24.save.level1_vae.q1.total", "json:rows/1/queues/0/total_s", 42.882, "{:.1f} s", "Queue 1, total"),
     ("e2e_wf.h200.24.save.level1_vae.q2.total", "json:rows/1/queues/1/total_s", 16.94, "{:.1f} s", "Queue 2, total"),
     ("e2e_wf.h200.24.save.level1_vae.q2.high_noise", "json:rows/1/queues/1/stages_s/sampler high-noise",
      5.369, "{:.1f} s",
      "Queue 2, sampler high-noise stage"),
     ("e2e_wf.h200.24.save.level1_vae.q2.low_noise", "json:rows/1/queues/1/stages_s/sampler low-noise",
      5.736, "{:.1f} s",
      "Queue 2, sampler low-noise stage"))
rows(S_FAMILY_FLUX_RUN2_H100, "h100/family_033_flux_1024_run2/matrix.json",
     ("family.h100.flux.run2.stock.time", "json:chains/stock/times_s/0", 3.625, "{:.2f} s"),
     ("family.h100.flux.run2.stock_again.time", "json:chains/stock_again/times_s/0", 3.809, "{:.2f} s",
      "stock again after the other chains"),
     ("family.h100.flux.run2.shipped.time", "json:chains/shipped/times_s/0", 2.896, "{:.2f} s"),
     ("family.h100.flux.run2.shipped.cosine", "json:chains/shipped/cosine", 0.999995, "{:.6f}",
      "final latent vs stock"),
     ("family.h100.flux.run2.fp8_shipped.cosine", "json:chains/fp8_shipped/cosine", 0.999412, "{:.5f}",
      "final latent vs stock"))

# Multi-GPU worker lost mid-step (issue #29) -------------------------------------------------------------------
rows(S_MGKILL, "h100x2/reliability_multigpu_kill/reliability.json",
     ("mgkill.h100x2.next_prompt.seconds", "json:cases/0/prompts/2/seconds", 17.1, "{:.0f} s",
      "the next prompt (new workers start and load)"))
rows(S_E2E, "h100/e2e_033_wan1.3B.md",
     ("e2e.h100.level1_vae.decode", "md:level1+vae/2|VAE decode", 2.852, "{:.2f} s",
      "Level-1 + Accel VAE (defaults), VAE decode stage"))

# Stop 43: H100 whole workflow with SaveVideo, GGUF, VAE options, save content, 24 GB allocator/aimdo, LTX-Video --
rows(S_E2E_WF_H100_SAVE, "h100/e2e_lightx2v_033/whole_card_savevideo_gguf/e2e_wan22_t2v_lightx2v.json",
     ("e2e_wf.h100.save.stock.q1.total", "json:rows/0/queues/0/total_s", 30.826, "{:.1f} s", "Queue 1, total"),
     ("e2e_wf.h100.save.stock.q2.total", "json:rows/0/queues/1/total_s", 19.887, "{:.1f} s", "Queue 2, total"),
     ("e2e_wf.h100.save.stock.q2.high_noise", "json:rows/0/queues/1/stages_s/sampler high-noise", 7.221, "{:.1f} s",
      "Queue 2, sampler high-noise stage"),
     ("e2e_wf.h100.save.stock.q2.low_noise", "json:rows/0/queues/1/stages_s/sampler low-noise", 7.166, "{:.1f} s",
      "Queue 2, sampler low-noise stage"),
     ("e2e_wf.h100.save.stock.q2.vae_decode", "json:rows/0/queues/1/stages_s/VAE decode", 2.313, "{:.2f} s",
      "Queue 2, VAE decode stage"),
     ("e2e_wf.h100.save.stock.q2.save", "json:rows/0/queues/1/stages_s/save", 3.175, "{:.1f} s", "Queue 2, save stage"),
     ("e2e_wf.h100.save.gguf.q1.total", "json:rows/1/queues/0/total_s", 31.612, "{:.1f} s", "Queue 1, total"),
     ("e2e_wf.h100.save.gguf.q2.total", "json:rows/1/queues/1/total_s", 22.087, "{:.1f} s", "Queue 2, total"),
     ("e2e_wf.h100.save.gguf.q2.high_noise", "json:rows/1/queues/1/stages_s/sampler high-noise", 8.37, "{:.1f} s",
      "Queue 2, sampler high-noise stage"),
     ("e2e_wf.h100.save.gguf.q2.low_noise", "json:rows/1/queues/1/stages_s/sampler low-noise", 8.359, "{:.1f} s",
      "Queue 2, sampler low-noise stage"),
     ("e2e_wf.h100.save.gguf.q2.vae_decode", "json:rows/1/queues/1/stages_s/VAE decode", 2.27, "{:.2f} s",
      "Queue 2, VAE decode stage"),
     ("e2e_wf.h100.save.gguf.q2.save", "json:rows/1/queues/1/stages_s/save", 3.076, "{:.1f} s", "Queue 2, save stage"),
     ("e2e_wf.h100.save.gguf_level1.q1.total", "json:rows/2/queues/0/total_s", 37.547, "{:.1f} s", "Queue 1, total"),
     ("e2e_wf.h100.save.gguf_level1.q2.total", "json:rows/2/queues/1/total_s", 17.374, "{:.1f} s", "Queue 2, total"),
     ("e2e_wf.h100.save.gguf_level1.q2.high_noise", "json:rows/2/queues/1/stages_s/sampler high-noise",
      5.754, "{:.1f} s",
      "Queue 2, sampler high-noise stage"),
     ("e2e_wf.h100.save.gguf_level1.q2.low_noise", "json:rows/2/queues/1/stages_s/sampler low-noise", 5.804, "{:.1f} s",
      "Queue 2, sampler low-noise stage"),
     ("e2e_wf.h100.save.gguf_level1.q2.vae_decode", "json:rows/2/queues/1/stages_s/VAE decode", 2.387, "{:.2f} s",
      "Queue 2, VAE decode stage"),
     ("e2e_wf.h100.save.gguf_level1.q2.save", "json:rows/2/queues/1/stages_s/save", 2.964, "{:.1f} s",
      "Queue 2, save stage"))
rows(S_E2E_WF_H100_SAVE, "h100/e2e_lightx2v_033/whole_card_savevideo_level1/e2e_wan22_t2v_lightx2v.json",
     ("e2e_wf.h100.save.level1.q1.total", "json:rows/0/queues/0/total_s", 43.548, "{:.1f} s", "Queue 1, total"),
     ("e2e_wf.h100.save.level1.q2.total", "json:rows/0/queues/1/total_s", 14.893, "{:.1f} s", "Queue 2, total"),
     ("e2e_wf.h100.save.level1.q2.high_noise", "json:rows/0/queues/1/stages_s/sampler high-noise", 4.375, "{:.1f} s",
      "Queue 2, sampler high-noise stage"),
     ("e2e_wf.h100.save.level1.q2.low_noise", "json:rows/0/queues/1/stages_s/sampler low-noise", 4.37, "{:.1f} s",
      "Queue 2, sampler low-noise stage"),
     ("e2e_wf.h100.save.level1.q2.save", "json:rows/0/queues/1/stages_s/save", 3.662, "{:.1f} s",
      "Queue 2, save stage"),
     ("e2e_wf.h100.save.level1_vae.q1.total", "json:rows/1/queues/0/total_s", 44.734, "{:.1f} s", "Queue 1, total"),
     ("e2e_wf.h100.save.level1_vae.q2.total", "json:rows/1/queues/1/total_s", 15.537, "{:.1f} s", "Queue 2, total"),
     ("e2e_wf.h100.save.level1_vae.q2.high_noise", "json:rows/1/queues/1/stages_s/sampler high-noise",
      4.406, "{:.1f} s",
      "Queue 2, sampler high-noise stage"),
     ("e2e_wf.h100.save.level1_vae.q2.low_noise", "json:rows/1/queues/1/stages_s/sampler low-noise", 4.363, "{:.1f} s",
      "Queue 2, sampler low-noise stage"),
     ("e2e_wf.h100.save.level1_vae.q2.save", "json:rows/1/queues/1/stages_s/save", 3.905, "{:.1f} s",
      "Queue 2, save stage"))
rows(S_E2E_WF_H100_FRESH, "h100/e2e_lightx2v_033/whole_card_webp_vae_options/e2e_wan22_t2v_lightx2v.json",
     ("e2e_wf.h100.vaeopt.level1.q2.total", "json:rows/0/queues/1/total_s", 16.689, "{:.1f} s", "Queue 2, total"),
     ("e2e_wf.h100.vaeopt.level1.q2.vae_decode", "json:rows/0/queues/1/stages_s/VAE decode", 2.339, "{:.2f} s",
      "Queue 2, VAE decode stage"),
     ("e2e_wf.h100.vaeopt.level1.q1.vae_decode", "json:rows/0/queues/0/stages_s/VAE decode", 3.124, "{:.1f} s",
      "Queue 1, VAE decode stage (cuDNN searches included)"),
     ("e2e_wf.h100.vaeopt.level1_vae_fused.q2.total", "json:rows/1/queues/1/total_s", 16.964, "{:.1f} s",
      "Queue 2, total"),
     ("e2e_wf.h100.vaeopt.level1_vae_fused.q2.vae_decode", "json:rows/1/queues/1/stages_s/VAE decode",
      2.173, "{:.2f} s",
      "Queue 2, VAE decode stage"),
     ("e2e_wf.h100.vaeopt.level1_vae_fused.q1.vae_decode", "json:rows/1/queues/0/stages_s/VAE decode",
      5.792, "{:.1f} s",
      "Queue 1, VAE decode stage (cuDNN searches included)"),
     ("e2e_wf.h100.vaeopt.level1_vae_fast.q2.total", "json:rows/2/queues/1/total_s", 16.585, "{:.1f} s",
      "Queue 2, total"),
     ("e2e_wf.h100.vaeopt.level1_vae_fast.q2.vae_decode", "json:rows/2/queues/1/stages_s/VAE decode", 2.263, "{:.2f} s",
      "Queue 2, VAE decode stage"),
     ("e2e_wf.h100.vaeopt.level1_vae_fast.q1.vae_decode", "json:rows/2/queues/0/stages_s/VAE decode",
      24.014, "{:.1f} s",
      "Queue 1, VAE decode stage (cuDNN searches included)"))
rows(S_SAVE_H100, "h100/save_video_033/save_video.json",
     ("save.h100.noise.run1", "json:clips/noise/seconds/0", 3.315, "{:.2f} s", "noise clip, save 1"),
     ("save.h100.noise.run2", "json:clips/noise/seconds/1", 3.278, "{:.2f} s", "noise clip, save 2"),
     ("save.h100.noise.mb", "json:clips/noise/bytes/0", 16.347237, "{:.1f} MB",
      "noise clip, file size (bytes in the file)", 1e-6),
     ("save.h100.smooth.run1", "json:clips/smooth/seconds/0", 1.856, "{:.2f} s", "smooth clip, save 1"),
     ("save.h100.smooth.run2", "json:clips/smooth/seconds/1", 1.986, "{:.2f} s", "smooth clip, save 2"),
     ("save.h100.smooth.mb", "json:clips/smooth/bytes/0", 2.243896, "{:.1f} MB",
      "smooth clip, file size (bytes in the file)", 1e-6))
rows(S_WF_H100_24_AIMDO, "h100/wf_lightx2v_033/sequential_24GB_occupied_aimdo_log_profile/matrix.json",
     ("wf.h100.24.aimdo.stock.time", "json:chains/stock/times_s/0", 15.778, "{:.1f} s", "the slower of 2 timed runs"),
     ("wf.h100.24.aimdo.level1.time", "json:chains/level1/times_s/0", 11.331, "{:.1f} s", "the slower of 2 timed runs"),
     ("wf.h100.24.aimdo.level1.speedup", "json:chains/level1/speedup", 1.392, "{:.2f}x"),
     ("wf.h100.24.aimdo.level1.cosine", "json:chains/level1/cosine", 0.999927, "{:.5f}", "final latent vs stock"),
     ("wf.h100.24.aimdo.profile.level1.wall_ms", "json:chains/level1/profile/wall_ms", 11.6762, "{:.1f} s",
      "level1, one profiled run: wall time (ms in the file)", 0.001))
rows(S_WF_H100_24_NATIVE, "h100/wf_lightx2v_033/sequential_24GB_occupied_native_allocator_profile/matrix.json",
     ("wf.h100.24.native.stock.time", "json:chains/stock/times_s/0", 17.336, "{:.1f} s"),
     ("wf.h100.24.native.stock_again.time", "json:chains/stock_again/times_s/0", 16.912, "{:.1f} s",
      "stock again at the end"),
     ("wf.h100.24.native.level1.time", "json:chains/level1/times_s/0", 11.471, "{:.1f} s"),
     ("wf.h100.24.native.profile.level1.wall_ms", "json:chains/level1/profile/wall_ms", 12.2848, "{:.1f} s",
      "level1, one profiled run: wall time (ms in the file)", 0.001),
     ("wf.h100.24.native.profile.level1.sync_ms", "json:chains/level1/profile/host_top/0/2", 2.82815, "{:.1f} s",
      "level1, one profiled run: host time waiting in cudaStreamSynchronize (ms in the file)", 0.001))
rows(S_WF_H100_80, "h100/wf_lightx2v_033/gguf_pod_80GB/matrix.json",
     ("wf.h100.80.gguf_pod.time", "json:chains/gguf_pod/times_s/1", 16.952, "{:.1f} s",
      "Q8_0 GGUF experts through ComfyUI-GGUF's Unet Loader (GGUF/Advanced) with patch_on_device, stock, the slower "
      "of 2"),
     ("wf.h100.80.gguf_pod_level1.time", "json:chains/gguf_pod_level1/times_s/1", 11.866, "{:.1f} s",
      "the same -> Accel Wan Level-1, the slower of 2"))
rows(S_FAMILY_LTXV_CC, "h100/family_033_ltxv_core_compile/matrix.json",
     ("family.h100.ltxv_cc.stock.time1", "json:chains/stock/times_s/0", 3.455, "{:.2f} s", "stock, timed run 1"),
     ("family.h100.ltxv_cc.stock.time2", "json:chains/stock/times_s/1", 3.089, "{:.2f} s", "stock, timed run 2"),
     ("family.h100.ltxv_cc.attention.time1", "json:chains/attention/times_s/0", 2.631, "{:.2f} s",
      "attention, timed run 1"),
     ("family.h100.ltxv_cc.attention.time2", "json:chains/attention/times_s/1", 2.605, "{:.2f} s",
      "attention, timed run 2"),
     ("family.h100.ltxv_cc.shipped.time1", "json:chains/shipped/times_s/0", 2.372, "{:.2f} s", "shipped, timed run 1"),
     ("family.h100.ltxv_cc.core_compile.time1", "json:chains/core_compile/times_s/0", 2.878, "{:.2f} s",
      "core_compile, timed run 1"),
     ("family.h100.ltxv_cc.core_compile.time2", "json:chains/core_compile/times_s/1", 2.901, "{:.2f} s",
      "core_compile, timed run 2"),
     ("family.h100.ltxv_cc.fp8_shipped.time1", "json:chains/fp8_shipped/times_s/0", 2.1, "{:.2f} s",
      "fp8_shipped, timed run 1"),
     ("family.h100.ltxv_cc.stock_again.time1", "json:chains/stock_again/times_s/0", 3.092, "{:.2f} s",
      "stock_again, timed run 1"),
     ("family.h100.ltxv_cc.stock_again.time2", "json:chains/stock_again/times_s/1", 3.122, "{:.2f} s",
      "stock_again, timed run 2"),
     ("family.h100.ltxv_cc.shipped.cosine", "json:chains/shipped/cosine", 0.999872, "{:.5f}",
      "exact chain, final latent vs stock"),
     ("family.h100.ltxv_cc.fp8_shipped.cosine", "json:chains/fp8_shipped/cosine", 0.998707, "{:.5f}",
      "FP8 loader chain, final latent vs stock"),
     ("family.h100.ltxv_cc.core_compile.first_run", "json:chains/core_compile/first_run_s", 52.19, "{:.0f} s",
      "ComfyUI TorchCompileModel, first run"),
     ("family.h100.ltxv_cc.shipped.first_run", "json:chains/shipped/first_run_s", 13.27, "{:.0f} s",
      "exact chain, first run"))
rows(S_HV_SPARSE_65, "h100/sparse_033_hunyuan_video/hv720_65f/matrix.json",
     ("hv720.h100.65f.run1.stock.time", "json:chains/stock/times_s/0", 29.536, "{:.1f} s",
      "stock, one timed run (run1)"),
     ("hv720.h100.65f.run1.shipped.time", "json:chains/shipped/times_s/0", 16.492, "{:.1f} s",
      "shipped, one timed run (run1)"),
     ("hv720.h100.65f.run1.sparse_compile.time", "json:chains/sparse_compile/times_s/0", 13.177, "{:.1f} s",
      "sparse_compile, one timed run (run1)"),
     ("hv720.h100.65f.run1.shipped.speedup", "json:chains/shipped/speedup", 1.791, "{:.2f}x",
      "shipped vs stock (run1)"),
     ("hv720.h100.65f.run1.sparse_compile.speedup", "json:chains/sparse_compile/speedup", 2.241, "{:.2f}x",
      "sparse_compile vs stock (run1)"))
rows(S_HV_SPARSE_65, "h100/sparse_033_hunyuan_video/hv720_65f_run2/matrix.json",
     ("hv720.h100.65f.run2.stock.time", "json:chains/stock/times_s/0", 29.346, "{:.1f} s",
      "stock, one timed run (run2)"),
     ("hv720.h100.65f.run2.shipped.time", "json:chains/shipped/times_s/0", 16.54, "{:.1f} s",
      "shipped, one timed run (run2)"),
     ("hv720.h100.65f.run2.sparse_compile.time", "json:chains/sparse_compile/times_s/0", 13.24, "{:.1f} s",
      "sparse_compile, one timed run (run2)"),
     ("hv720.h100.65f.run2.shipped.speedup", "json:chains/shipped/speedup", 1.774, "{:.2f}x",
      "shipped vs stock (run2)"),
     ("hv720.h100.65f.run2.sparse_compile.speedup", "json:chains/sparse_compile/speedup", 2.216, "{:.2f}x",
      "sparse_compile vs stock (run2)"))
rows(S_HV_SPARSE_65, "h100/sparse_033_hunyuan_video/hv720_65f/matrix.json",
     ("hv720.h100.65f.run1.sparse_compile.cosine", "json:chains/sparse_compile/cosine", 0.999746, "{:.5f}",
      "radial_sparse chain, final latent vs stock"))
rows(S_HV_SPARSE_129, "h100/sparse_033_hunyuan_video/hv720_129f/matrix.json",
     ("hv720.h100.129f.stock.time", "json:chains/stock/times_s/0", 98.905, "{:.1f} s", "stock, one timed run"),
     ("hv720.h100.129f.sparse_compile.time", "json:chains/sparse_compile/times_s/0", 36.178, "{:.1f} s",
      "sparse_compile, one timed run"),
     ("hv720.h100.129f.sparse_compile.speedup", "json:chains/sparse_compile/speedup", 2.734, "{:.2f}x",
      "radial_sparse chain vs stock"),
     ("hv720.h100.129f.sparse_compile.first_run", "json:chains/sparse_compile/first_run_s", 56.89, "{:.0f} s",
      "radial_sparse chain, first run (compiles)"),
     ("hv720.h100.129f.sparse_compile.cosine", "json:chains/sparse_compile/cosine", 0.999768, "{:.5f}",
      "radial_sparse chain, final latent vs stock"))
rows(S_HV_SPARSE_129_BEFORE_FIX, "h100/sparse_033_hunyuan_video/hv720_129f_exact/matrix.json",
     ("hv720.h100.129f.exact.stock.time", "json:chains/stock/times_s/0", 98.886, "{:.1f} s", "stock, one timed run"),
     ("hv720.h100.129f.exact.shipped.time", "json:chains/shipped/times_s/0", 53.511, "{:.1f} s",
      "the exact chain, one timed run"),
     ("hv720.h100.129f.exact.shipped.speedup", "json:chains/shipped/speedup", 1.848, "{:.2f}x",
      "the exact chain vs stock"))
rows(S_HV_SPARSE_KERNEL, "h100/sparse_033_hunyuan_video/kernel_720p_129f/sparse_attention.json",
     ("sparse_hv.h100.720p129f.fa3.ms", "json:rows/0/ms", 250.14089965820312, "{:.0f} ms", "FA3 dense"),
     ("sparse_hv.h100.720p129f.flex.ms", "json:rows/2/ms", 94.92082977294922, "{:.0f} ms", "radial flex at decay 0.2"),
     ("sparse_hv.h100.720p129f.flex.speedup", "json:rows/2/speedup_vs_fa3", 2.6352582489695946, "{:.2f}x",
      "radial flex vs FA3 dense"),
     ("sparse_hv.h100.720p129f.flex.sparsity", "json:rows/2/sparsity", 82.33744393312867, "{:.1f}%",
      "the pattern's sparsity (fraction in the file)", 100))
rows(S_E2E_WF_H100_SAVE, "h100/e2e_lightx2v_033/whole_card_savevideo_peers/e2e_wan22_t2v_lightx2v.json",
     ("e2e_wf.h100.peers.stock.q1.total", "json:rows/0/queues/0/total_s", 32.884, "{:.1f} s", "Queue 1, total"),
     ("e2e_wf.h100.peers.stock.q2.total", "json:rows/0/queues/1/total_s", 20.292, "{:.1f} s", "Queue 2, total"),
     ("e2e_wf.h100.peers.stock.q2.high_noise", "json:rows/0/queues/1/stages_s/sampler high-noise", 7.235, "{:.1f} s",
      "Queue 2, sampler high-noise stage"),
     ("e2e_wf.h100.peers.stock.q2.low_noise", "json:rows/0/queues/1/stages_s/sampler low-noise", 7.187, "{:.1f} s",
      "Queue 2, sampler low-noise stage"),
     ("e2e_wf.h100.peers.stock.q2.vae_decode", "json:rows/0/queues/1/stages_s/VAE decode", 2.448, "{:.2f} s",
      "Queue 2, VAE decode stage"),
     ("e2e_wf.h100.peers.stock.q2.save", "json:rows/0/queues/1/stages_s/save", 3.411, "{:.1f} s",
      "Queue 2, save stage"),
     ("e2e_wf.h100.peers.kj_sage_compile.q1.total", "json:rows/1/queues/0/total_s", 53.934, "{:.1f} s",
      "Queue 1, total"),
     ("e2e_wf.h100.peers.kj_sage_compile.q2.total", "json:rows/1/queues/1/total_s", 17.698, "{:.1f} s",
      "Queue 2, total"),
     ("e2e_wf.h100.peers.kj_sage_compile.q2.high_noise", "json:rows/1/queues/1/stages_s/sampler high-noise",
      6.108, "{:.1f} s",
      "Queue 2, sampler high-noise stage"),
     ("e2e_wf.h100.peers.kj_sage_compile.q2.low_noise", "json:rows/1/queues/1/stages_s/sampler low-noise",
      6.088, "{:.1f} s",
      "Queue 2, sampler low-noise stage"),
     ("e2e_wf.h100.peers.kj_sage_compile.q2.vae_decode", "json:rows/1/queues/1/stages_s/VAE decode", 2.295, "{:.2f} s",
      "Queue 2, VAE decode stage"),
     ("e2e_wf.h100.peers.kj_sage_compile.q2.save", "json:rows/1/queues/1/stages_s/save", 3.189, "{:.1f} s",
      "Queue 2, save stage"))
rows(S_E2E_WF_H100_SAVE, "h100/e2e_lightx2v_033/whole_card_savevideo_int8_vae/e2e_wan22_t2v_lightx2v.json",
     ("e2e_wf.h100.int8vae.stock.q1.total", "json:rows/0/queues/0/total_s", 28.324, "{:.1f} s", "Queue 1, total"),
     ("e2e_wf.h100.int8vae.stock.q2.total", "json:rows/0/queues/1/total_s", 20.786, "{:.1f} s", "Queue 2, total"),
     ("e2e_wf.h100.int8vae.stock.q2.high_noise", "json:rows/0/queues/1/stages_s/sampler high-noise", 7.159, "{:.1f} s",
      "Queue 2, sampler high-noise stage"),
     ("e2e_wf.h100.int8vae.stock.q2.low_noise", "json:rows/0/queues/1/stages_s/sampler low-noise", 7.145, "{:.1f} s",
      "Queue 2, sampler low-noise stage"),
     ("e2e_wf.h100.int8vae.stock.q2.vae_decode", "json:rows/0/queues/1/stages_s/VAE decode", 2.573, "{:.2f} s",
      "Queue 2, VAE decode stage"),
     ("e2e_wf.h100.int8vae.stock.q2.save", "json:rows/0/queues/1/stages_s/save", 3.898, "{:.1f} s",
      "Queue 2, save stage"),
     ("e2e_wf.h100.int8vae.core_ck_int8.q1.total", "json:rows/1/queues/0/total_s", 26.0, "{:.1f} s", "Queue 1, total"),
     ("e2e_wf.h100.int8vae.core_ck_int8.q2.total", "json:rows/1/queues/1/total_s", 17.496, "{:.1f} s",
      "Queue 2, total"),
     ("e2e_wf.h100.int8vae.core_ck_int8.q2.high_noise", "json:rows/1/queues/1/stages_s/sampler high-noise",
      6.011, "{:.1f} s",
      "Queue 2, sampler high-noise stage"),
     ("e2e_wf.h100.int8vae.core_ck_int8.q2.low_noise", "json:rows/1/queues/1/stages_s/sampler low-noise",
      5.965, "{:.1f} s",
      "Queue 2, sampler low-noise stage"),
     ("e2e_wf.h100.int8vae.core_ck_int8.q2.vae_decode", "json:rows/1/queues/1/stages_s/VAE decode", 2.299, "{:.2f} s",
      "Queue 2, VAE decode stage"),
     ("e2e_wf.h100.int8vae.core_ck_int8.q2.save", "json:rows/1/queues/1/stages_s/save", 2.82, "{:.1f} s",
      "Queue 2, save stage"),
     ("e2e_wf.h100.int8vae.level1_vae.q1.total", "json:rows/2/queues/0/total_s", 41.559, "{:.1f} s", "Queue 1, total"),
     ("e2e_wf.h100.int8vae.level1_vae.q2.total", "json:rows/2/queues/1/total_s", 14.406, "{:.1f} s", "Queue 2, total"),
     ("e2e_wf.h100.int8vae.level1_vae.q2.high_noise", "json:rows/2/queues/1/stages_s/sampler high-noise",
      4.353, "{:.1f} s",
      "Queue 2, sampler high-noise stage"),
     ("e2e_wf.h100.int8vae.level1_vae.q2.low_noise", "json:rows/2/queues/1/stages_s/sampler low-noise",
      4.268, "{:.1f} s",
      "Queue 2, sampler low-noise stage"),
     ("e2e_wf.h100.int8vae.level1_vae.q2.vae_decode", "json:rows/2/queues/1/stages_s/VAE decode", 2.438, "{:.2f} s",
      "Queue 2, VAE decode stage"),
     ("e2e_wf.h100.int8vae.level1_vae.q2.save", "json:rows/2/queues/1/stages_s/save", 3.326, "{:.1f} s",
      "Queue 2, save stage"))
rows(S_E2E_WF_H100_24_SAVE, "h100/e2e_lightx2v_033/card24_occupied_savevideo/e2e_wan22_t2v_lightx2v_card24.json",
     ("e2e_wf.h100.save24.stock.q1.total", "json:rows/0/queues/0/total_s", 27.33, "{:.1f} s", "Queue 1, total"),
     ("e2e_wf.h100.save24.stock.q2.total", "json:rows/0/queues/1/total_s", 21.145, "{:.1f} s", "Queue 2, total"),
     ("e2e_wf.h100.save24.stock.q2.high_noise", "json:rows/0/queues/1/stages_s/sampler high-noise", 7.619, "{:.1f} s",
      "Queue 2, sampler high-noise stage"),
     ("e2e_wf.h100.save24.stock.q2.low_noise", "json:rows/0/queues/1/stages_s/sampler low-noise", 7.666, "{:.1f} s",
      "Queue 2, sampler low-noise stage"),
     ("e2e_wf.h100.save24.stock.q2.vae_decode", "json:rows/0/queues/1/stages_s/VAE decode", 2.497, "{:.2f} s",
      "Queue 2, VAE decode stage"),
     ("e2e_wf.h100.save24.stock.q2.save", "json:rows/0/queues/1/stages_s/save", 3.353, "{:.1f} s",
      "Queue 2, save stage"),
     ("e2e_wf.h100.save24.level1.q1.total", "json:rows/1/queues/0/total_s", 42.331, "{:.1f} s", "Queue 1, total"),
     ("e2e_wf.h100.save24.level1.q2.total", "json:rows/1/queues/1/total_s", 17.809, "{:.1f} s", "Queue 2, total"),
     ("e2e_wf.h100.save24.level1.q2.high_noise", "json:rows/1/queues/1/stages_s/sampler high-noise", 5.638, "{:.1f} s",
      "Queue 2, sampler high-noise stage"),
     ("e2e_wf.h100.save24.level1.q2.low_noise", "json:rows/1/queues/1/stages_s/sampler low-noise", 5.624, "{:.1f} s",
      "Queue 2, sampler low-noise stage"),
     ("e2e_wf.h100.save24.level1.q2.vae_decode", "json:rows/1/queues/1/stages_s/VAE decode", 2.521, "{:.2f} s",
      "Queue 2, VAE decode stage"),
     ("e2e_wf.h100.save24.level1.q2.save", "json:rows/1/queues/1/stages_s/save", 3.991, "{:.1f} s",
      "Queue 2, save stage"))
rows(S_HV_SPARSE_KERNEL_FA4, "h100/sparse_033_hunyuan_video/kernel_fa4/sparse_attention.json",
     ("sparse_hv_fa4.h100.720p129f.fa3.ms", "json:rows/0/ms", 250.30812072753906, "{:.0f} ms", "FA3 dense"),
     ("sparse_hv_fa4.h100.720p129f.flex.ms", "json:rows/2/ms", 94.33296203613281, "{:.0f} ms",
      "radial flex at decay 0.2"),
     ("sparse_hv_fa4.h100.720p129f.fa4.ms", "json:rows/3/ms", 49.08272171020508, "{:.0f} ms",
      "radial FA4 block-sparse at decay 0.2"),
     ("sparse_hv_fa4.h100.720p129f.fa4.speedup", "json:rows/3/speedup_vs_fa3", 5.099719657060012, "{:.2f}x",
      "radial FA4 block-sparse vs FA3 dense"),
     ("sparse_hv_fa4.h100.720p129f.fa4.cosine", "json:rows/3/vs_masked_reference/cosine", 0.9999968521217087, "{:.6f}",
      "radial FA4 output vs the dense masked fp32 reference"))
rows(S_WAN_SPARSE_KERNEL_FA4, "h100/sparse_033_hunyuan_video/kernel_fa4/sparse_attention.json",
     ("sparse_hv_fa4.h100.wan720p.fa4.speedup", "json:rows/7/speedup_vs_fa3", 3.29855392456805, "{:.2f}x",
      "radial FA4 block-sparse vs FA3 dense"))
rows(S_HV_SPARSE_FA4_65, "h100/sparse_033_hunyuan_video/hv720_65f_fa4/matrix.json",
     ("hv720_fa4.h100.65f.stock.time", "json:chains/stock/times_s/0", 29.023, "{:.1f} s", "stock, one timed run"),
     ("hv720_fa4.h100.65f.shipped.time", "json:chains/shipped/times_s/0", 16.272, "{:.1f} s", "shipped, one timed run"),
     ("hv720_fa4.h100.65f.shipped.speedup", "json:chains/shipped/speedup", 1.784, "{:.2f}x", "shipped vs stock"),
     ("hv720_fa4.h100.65f.sparse_compile.time", "json:chains/sparse_compile/times_s/0", 10.837, "{:.1f} s",
      "sparse_compile, one timed run"),
     ("hv720_fa4.h100.65f.sparse_compile.speedup", "json:chains/sparse_compile/speedup", 2.678, "{:.2f}x",
      "sparse_compile vs stock"),
     ("hv720_fa4.h100.65f.sparse_compile.first_run", "json:chains/sparse_compile/first_run_s", 20.35, "{:.0f} s",
      "radial_sparse chain, first run (compiles)"),
     ("hv720_fa4.h100.65f.sparse_compile.cosine", "json:chains/sparse_compile/cosine", 0.999746, "{:.5f}",
      "radial_sparse chain, final latent vs stock"))
rows(S_HV_SPARSE_FA4_129, "h100/sparse_033_hunyuan_video/hv720_129f_fa4/matrix.json",
     ("hv720_fa4.h100.129f.stock.time", "json:chains/stock/times_s/0", 98.754, "{:.1f} s", "stock, one timed run"),
     ("hv720_fa4.h100.129f.sparse_compile.time", "json:chains/sparse_compile/times_s/0", 30.559, "{:.1f} s",
      "sparse_compile, one timed run"),
     ("hv720_fa4.h100.129f.sparse_compile.speedup", "json:chains/sparse_compile/speedup", 3.232, "{:.2f}x",
      "sparse_compile vs stock"),
     ("hv720_fa4.h100.129f.sparse_compile.first_run", "json:chains/sparse_compile/first_run_s", 46.65, "{:.0f} s",
      "radial_sparse chain, first run (compiles)"),
     ("hv720_fa4.h100.129f.sparse_compile.cosine", "json:chains/sparse_compile/cosine", 0.999768, "{:.5f}",
      "radial_sparse chain, final latent vs stock"))
rows(S_WF_H100_24_RESERVE, "h100/wf_lightx2v_033/sequential_24GB_reserve_vram_ab/reserve_default/matrix.json",
     ("wf_ab.h100.24.reserve_default.stock.time", "json:chains/stock/times_s/0", 15.412, "{:.1f} s",
      "stock, one timed run"),
     ("wf_ab.h100.24.reserve_default.level1.time", "json:chains/level1/times_s/0", 10.122, "{:.1f} s",
      "Level-1, one timed run"),
     ("wf_ab.h100.24.reserve_default.level1.speedup", "json:chains/level1/speedup", 1.523, "{:.2f}x",
      "Level-1 vs stock"),
     ("wf_ab.h100.24.reserve_default.stock_again.time", "json:chains/stock_again/times_s/0", 15.071, "{:.1f} s",
      "stock again at the end, one timed run"))
rows(S_WF_H100_24_RESERVE3, "h100/wf_lightx2v_033/sequential_24GB_reserve_vram_ab/reserve_3GiB/matrix.json",
     ("wf_ab.h100.24.reserve3.stock.time", "json:chains/stock/times_s/0", 15.36, "{:.1f} s", "stock, one timed run"),
     ("wf_ab.h100.24.reserve3.level1.time", "json:chains/level1/times_s/0", 10.461, "{:.1f} s",
      "Level-1, one timed run"),
     ("wf_ab.h100.24.reserve3.level1.speedup", "json:chains/level1/speedup", 1.468, "{:.2f}x", "Level-1 vs stock"),
     ("wf_ab.h100.24.reserve3.stock_again.time", "json:chains/stock_again/times_s/0", 15.078, "{:.1f} s",
      "stock again at the end, one timed run"))
rows(S_WF_H100_80_SAME, "h100/wf_lightx2v_033/sequential_24GB_reserve_vram_ab/whole_card/matrix.json",
     ("wf_ab.h100.80.same.stock.time", "json:chains/stock/times_s/0", 14.159, "{:.1f} s", "stock, one timed run"),
     ("wf_ab.h100.80.same.level1.time", "json:chains/level1/times_s/0", 8.458, "{:.1f} s", "Level-1, one timed run"),
     ("wf_ab.h100.80.same.level1.speedup", "json:chains/level1/speedup", 1.674, "{:.2f}x", "Level-1 vs stock"),
     ("wf_ab.h100.80.same.stock_again.time", "json:chains/stock_again/times_s/0", 14.136, "{:.1f} s",
      "stock again at the end, one timed run"))
rows(S_WF720_FA4_NODENSE, "h100/wf_lightx2v_033/sparse_720p_80GB_fa4_nodense/matrix.json",
     ("wf720nd.h100.stock.time", "json:chains/stock/times_s/0", 64.173, "{:.1f} s", "stock, one timed run"),
     ("wf720nd.h100.level1.time", "json:chains/level1/times_s/0", 35.806, "{:.1f} s", "level1, one timed run"),
     ("wf720nd.h100.level1.speedup", "json:chains/level1/speedup", 1.792, "{:.2f}x", "level1 vs stock"),
     ("wf720nd.h100.level1_sparse.time", "json:chains/level1_sparse/times_s/0", 22.589, "{:.1f} s",
      "level1_sparse, one timed run"),
     ("wf720nd.h100.level1_sparse.speedup", "json:chains/level1_sparse/speedup", 2.841, "{:.2f}x",
      "level1_sparse vs stock"),
     ("wf720nd.h100.sparse_nodense_compile.time", "json:chains/sparse_nodense_compile/times_s/0", 18.275, "{:.1f} s",
      "sparse_nodense_compile, one timed run"),
     ("wf720nd.h100.sparse_nodense_compile.speedup", "json:chains/sparse_nodense_compile/speedup", 3.512, "{:.2f}x",
      "sparse_nodense_compile vs stock"),
     ("wf720nd.h100.sparse_nodense_compile.first_run", "json:chains/sparse_nodense_compile/first_run_s",
      20.32, "{:.0f} s",
      "every step sparse, first run (compiled graphs from level1_sparse in the same process)"),
     ("wf720nd.h100.sparse_nodense_compile.cosine", "json:chains/sparse_nodense_compile/cosine", 0.999912, "{:.5f}",
      "every step sparse, final latent vs stock (random weights: says little for sparse attention)"))
rows(S_WF720_FA4_24, "h100/wf_lightx2v_033/sparse_720p_24GB_fa4/matrix.json",
     ("wf720.h100.24.stock.time", "json:chains/stock/times_s/0", 64.4, "{:.1f} s", "stock, one timed run"),
     ("wf720.h100.24.level1.time", "json:chains/level1/times_s/0", 37.027, "{:.1f} s", "level1, one timed run"),
     ("wf720.h100.24.level1.speedup", "json:chains/level1/speedup", 1.739, "{:.2f}x", "level1 vs stock"),
     ("wf720.h100.24.level1_sparse.time", "json:chains/level1_sparse/times_s/0", 23.284, "{:.1f} s",
      "level1_sparse, one timed run"),
     ("wf720.h100.24.level1_sparse.speedup", "json:chains/level1_sparse/speedup", 2.766, "{:.2f}x",
      "level1_sparse vs stock"))
rows(S_WF121_EXACT_24, "h100/wf_lightx2v_033/sparse_720p_121f_24GB_exact/matrix.json",
     ("wf121.h100.24.exact_run.stock.time", "json:chains/stock/times_s/0", 130.922, "{:.1f} s", "stock, one timed run"),
     ("wf121.h100.24.exact_run.level1.time", "json:chains/level1/times_s/0", 69.811, "{:.1f} s",
      "level1, one timed run"),
     ("wf121.h100.24.exact_run.level1.speedup", "json:chains/level1/speedup", 1.875, "{:.2f}x",
      "exact Level-1 vs stock"),
     ("wf121.h100.24.exact_run.level1.first_run", "json:chains/level1/first_run_s", 85.12, "{:.0f} s",
      "exact Level-1, first run (compiles)"))
rows(S_HV_SAME_GPU_EXACT, "h100/sparse_033_hunyuan_video/hv720_129f_exact_then_fa4_same_gpu/exact/matrix.json",
     ("hv129same.h100.exact.stock.time", "json:chains/stock/times_s/0", 98.965, "{:.1f} s", "stock, one timed run"),
     ("hv129same.h100.exact.shipped.time", "json:chains/shipped/times_s/0", 53.438, "{:.1f} s",
      "the exact chain, one timed run"),
     ("hv129same.h100.exact.shipped.speedup", "json:chains/shipped/speedup", 1.852, "{:.2f}x",
      "the exact chain vs stock"))
rows(S_HV_SAME_GPU_SPARSE, "h100/sparse_033_hunyuan_video/hv720_129f_exact_then_fa4_same_gpu/sparse_fa4/matrix.json",
     ("hv129same.h100.sparse.stock.time", "json:chains/stock/times_s/0", 99.782, "{:.1f} s", "stock, one timed run"),
     ("hv129same.h100.sparse.sparse_compile.time", "json:chains/sparse_compile/times_s/0", 30.667, "{:.1f} s",
      "the radial_sparse chain, one timed run"),
     ("hv129same.h100.sparse.sparse_compile.speedup", "json:chains/sparse_compile/speedup", 3.254, "{:.2f}x",
      "the radial_sparse chain vs stock"))
rows(S_LTXV_SPARSE, "h100/sparse_033_ltxv/after_mask_fix_fa4_exact_vs_sparse/matrix.json",
     ("ltxv_sparse.h100.stock.time", "json:chains/stock/times_s/0", 3.115, "{:.2f} s", "stock, the slower timed run"),
     ("ltxv_sparse.h100.shipped.time", "json:chains/shipped/times_s/1", 2.443, "{:.2f} s",
      "shipped, the slower timed run"),
     ("ltxv_sparse.h100.shipped.speedup", "json:chains/shipped/speedup", 1.275, "{:.2f}x", "shipped vs stock"),
     ("ltxv_sparse.h100.sparse_compile.time", "json:chains/sparse_compile/times_s/1", 2.355, "{:.2f} s",
      "sparse_compile, the slower timed run"),
     ("ltxv_sparse.h100.sparse_compile.speedup", "json:chains/sparse_compile/speedup", 1.323, "{:.2f}x",
      "sparse_compile vs stock"),
     ("ltxv_sparse.h100.sparse_compile.cosine", "json:chains/sparse_compile/cosine", 0.999845, "{:.5f}",
      "radial_sparse chain, final latent vs stock"))
rows(S_WF_FP8_AUTO_H100, "h100/wf_lightx2v_033/fp8_auto_comfy_layers/matrix.json",
     ("wf.h100.80.fp8auto.stock.time", "json:chains/stock/times_s/0", 14.593, "{:.2f} s", "stock, one timed run"),
     ("wf.h100.80.fp8auto.level1.time", "json:chains/level1/times_s/0", 8.659, "{:.2f} s",
      "Level-1 on ComfyUI's loader, one timed run"),
     ("wf.h100.80.fp8auto.level1.speedup", "json:chains/level1/speedup", 1.685, "{:.2f}x",
      "Level-1 on ComfyUI's loader vs stock"),
     ("wf.h100.80.fp8auto.fp8_level1.time", "json:chains/fp8_level1/times_s/0", 8.871, "{:.2f} s",
      "FP8 loader (auto) -> LoRA -> Level-1, one timed run"),
     ("wf.h100.80.fp8auto.fp8_level1.speedup", "json:chains/fp8_level1/speedup", 1.645, "{:.2f}x",
      "FP8 loader (auto) -> LoRA -> Level-1 vs stock"),
     ("wf.h100.80.fp8auto.fp8_level1.first_run", "json:chains/fp8_level1/first_run_s", 13.23, "{:.1f} s",
      "FP8 loader (auto) -> LoRA -> Level-1, first run (after Level-1 in the same process: its compiled graph reused)"),
     ("wf.h100.80.fp8auto.fp8_level1.cosine", "json:chains/fp8_level1/cosine", 0.999927, "{:.6f}",
      "FP8 loader (auto) chain, final latent vs stock"),
     ("wf.h100.80.fp8auto.level1.cosine", "json:chains/level1/cosine", 0.999927, "{:.6f}",
      "Level-1 on ComfyUI's loader, final latent vs stock"),
     ("wf.h100.80.fp8auto.stock_again.time", "json:chains/stock_again/times_s/0", 14.652, "{:.2f} s",
      "stock again at the end, one timed run"))

# issue #27 I2V and issue #30 families on two H200s of one host (stop 47) ----------------------------------
rows(S_E2E_I2V_H200, "h200/e2e_lightx2v_033/i2v_whole_card_savevideo/e2e_wan22_i2v_lightx2v.json",
     ("e2e_i2v.h200.stock.q1.total", "json:rows/0/queues/0/total_s", 38.692, "{:.1f} s", "stock, Queue 1, total"),
     ("e2e_i2v.h200.stock.q2.high_noise", "json:rows/0/queues/1/stages_s/sampler high-noise", 7.022, "{:.1f} s",
      "stock, Queue 2, sampler high-noise stage"),
     ("e2e_i2v.h200.stock.q2.low_noise", "json:rows/0/queues/1/stages_s/sampler low-noise", 6.941, "{:.1f} s",
      "stock, Queue 2, sampler low-noise stage"),
     ("e2e_i2v.h200.stock.q2.vae_decode", "json:rows/0/queues/1/stages_s/VAE decode", 2.201, "{:.1f} s",
      "stock, Queue 2, VAE decode stage"),
     ("e2e_i2v.h200.stock.q2.save", "json:rows/0/queues/1/stages_s/save", 2.672, "{:.1f} s",
      "stock, Queue 2, save stage"),
     ("e2e_i2v.h200.level1.q1.total", "json:rows/1/queues/0/total_s", 49.834, "{:.1f} s", "level1, Queue 1, total"),
     ("e2e_i2v.h200.level1.q2.high_noise", "json:rows/1/queues/1/stages_s/sampler high-noise", 4.398, "{:.1f} s",
      "level1, Queue 2, sampler high-noise stage"),
     ("e2e_i2v.h200.level1.q2.low_noise", "json:rows/1/queues/1/stages_s/sampler low-noise", 4.364, "{:.1f} s",
      "level1, Queue 2, sampler low-noise stage"),
     ("e2e_i2v.h200.level1.q2.vae_decode", "json:rows/1/queues/1/stages_s/VAE decode", 2.355, "{:.1f} s",
      "level1, Queue 2, VAE decode stage"),
     ("e2e_i2v.h200.level1.q2.save", "json:rows/1/queues/1/stages_s/save", 3.323, "{:.1f} s",
      "level1, Queue 2, save stage"),
     ("e2e_i2v.h200.level1_vae.q1.total", "json:rows/2/queues/0/total_s", 44.067, "{:.1f} s",
      "level1+vae, Queue 1, total"),
     ("e2e_i2v.h200.level1_vae.q2.total", "json:rows/2/queues/1/total_s", 15.632, "{:.1f} s",
      "level1+vae, Queue 2, total"),
     ("e2e_i2v.h200.level1_vae.q2.high_noise", "json:rows/2/queues/1/stages_s/sampler high-noise", 4.248, "{:.1f} s",
      "level1+vae, Queue 2, sampler high-noise stage"),
     ("e2e_i2v.h200.level1_vae.q2.low_noise", "json:rows/2/queues/1/stages_s/sampler low-noise", 4.219, "{:.1f} s",
      "level1+vae, Queue 2, sampler low-noise stage"),
     ("e2e_i2v.h200.level1_vae.q2.vae_decode", "json:rows/2/queues/1/stages_s/VAE decode", 2.661, "{:.1f} s",
      "level1+vae, Queue 2, VAE decode stage"),
     ("e2e_i2v.h200.level1_vae.q2.save", "json:rows/2/queues/1/stages_s/save", 4.486, "{:.1f} s",
      "level1+vae, Queue 2, save stage"))
rows(S_E2E_I2V_H200_24, "h200/e2e_lightx2v_033/i2v_card24_occupied_savevideo/e2e_wan22_i2v_lightx2v_card24.json",
     ("e2e_i2v.h200.24.stock.q1.total", "json:rows/0/queues/0/total_s", 29.358, "{:.1f} s", "stock, Queue 1, total"),
     ("e2e_i2v.h200.24.stock.q2.total", "json:rows/0/queues/1/total_s", 20.032, "{:.1f} s", "stock, Queue 2, total"),
     ("e2e_i2v.h200.24.stock.q2.high_noise", "json:rows/0/queues/1/stages_s/sampler high-noise", 7.688, "{:.1f} s",
      "stock, Queue 2, sampler high-noise stage"),
     ("e2e_i2v.h200.24.stock.q2.low_noise", "json:rows/0/queues/1/stages_s/sampler low-noise", 7.474, "{:.1f} s",
      "stock, Queue 2, sampler low-noise stage"),
     ("e2e_i2v.h200.24.stock.q2.vae_decode", "json:rows/0/queues/1/stages_s/VAE decode", 2.132, "{:.1f} s",
      "stock, Queue 2, VAE decode stage"),
     ("e2e_i2v.h200.24.stock.q2.save", "json:rows/0/queues/1/stages_s/save", 2.718, "{:.1f} s",
      "stock, Queue 2, save stage"),
     ("e2e_i2v.h200.24.level1.q1.total", "json:rows/1/queues/0/total_s", 41.118, "{:.1f} s", "level1, Queue 1, total"),
     ("e2e_i2v.h200.24.level1.q2.total", "json:rows/1/queues/1/total_s", 16.692, "{:.1f} s", "level1, Queue 2, total"),
     ("e2e_i2v.h200.24.level1.q2.high_noise", "json:rows/1/queues/1/stages_s/sampler high-noise", 5.903, "{:.1f} s",
      "level1, Queue 2, sampler high-noise stage"),
     ("e2e_i2v.h200.24.level1.q2.low_noise", "json:rows/1/queues/1/stages_s/sampler low-noise", 5.47, "{:.1f} s",
      "level1, Queue 2, sampler low-noise stage"),
     ("e2e_i2v.h200.24.level1.q2.vae_decode", "json:rows/1/queues/1/stages_s/VAE decode", 2.231, "{:.1f} s",
      "level1, Queue 2, VAE decode stage"),
     ("e2e_i2v.h200.24.level1.q2.save", "json:rows/1/queues/1/stages_s/save", 3.066, "{:.1f} s",
      "level1, Queue 2, save stage"))
rows(S_FAMILY_H200_TI2V, "h200/family_033_wan_ti2v_5b/matrix.json",
     ("family.h200.ti2v.stock.time", "json:chains/stock/times_s/0", 10.868, "{:.2f} s", "stock"),
     ("family.h200.ti2v.attention.speedup", "json:chains/attention/speedup", 1.482, "{:.2f}x",
      "Accel Attention vs stock"),
     ("family.h200.ti2v.shipped.cosine", "json:chains/shipped/cosine", 0.999959, "{:.5f}",
      "the exact chain, final latent vs stock"),
     ("family.h200.ti2v.shipped.first_run", "json:chains/shipped/first_run_s", 17.86, "{:.0f} s",
      "the exact chain, first run (compiles)"),
     ("family.h200.ti2v.fp8_shipped.speedup", "json:chains/fp8_shipped/speedup", 1.847, "{:.2f}x",
      "FP8 loader -> the exact chain vs stock"),
     ("family.h200.ti2v.fp8_shipped.cosine", "json:chains/fp8_shipped/cosine", 0.994164, "{:.5f}",
      "FP8 loader -> the exact chain, final latent vs stock"),
     ("family.h200.ti2v.core_compile.speedup", "json:chains/core_compile/speedup", 1.057, "{:.2f}x",
      "ComfyUI TorchCompileModel vs stock"),
     ("family.h200.ti2v.core_compile.first_run", "json:chains/core_compile/first_run_s", 74.25, "{:.0f} s",
      "ComfyUI TorchCompileModel, first run (compiles)"),
     ("family.h200.ti2v.kj_sage_compile.speedup", "json:chains/kj_sage_compile/speedup", 1.187, "{:.2f}x",
      "KJNodes Sage -> TorchCompileModelAdvanced vs stock"),
     ("family.h200.ti2v.stock_again.speedup", "json:chains/stock_again/speedup", 1.032, "{:.2f}x",
      "stock again at the end vs the first stock"))
rows(S_FAMILY_H200_TI2V_24, "h200/family_033_wan_ti2v_5b_24GB_occupied/matrix.json",
     ("family.h200.24.ti2v.stock.time", "json:chains/stock/times_s/0", 10.795, "{:.2f} s", "stock"),
     ("family.h200.24.ti2v.shipped.speedup", "json:chains/shipped/speedup", 1.556, "{:.2f}x",
      "the exact chain vs stock"),
     ("family.h200.24.ti2v.shipped.cosine", "json:chains/shipped/cosine", 0.999959, "{:.5f}",
      "the exact chain, final latent vs stock"),
     ("family.h200.24.ti2v.fp8_shipped.speedup", "json:chains/fp8_shipped/speedup", 1.872, "{:.2f}x",
      "FP8 loader -> the exact chain vs stock"),
     ("family.h200.24.ti2v.fp8_shipped.cosine", "json:chains/fp8_shipped/cosine", 0.994164, "{:.5f}",
      "FP8 loader -> the exact chain, final latent vs stock"),
     ("family.h200.24.ti2v.stock_again.speedup", "json:chains/stock_again/speedup", 1.025, "{:.2f}x",
      "stock again at the end vs the first stock"))
rows(S_FAMILY_H200_LTXV, "h200/family_033_ltxv/matrix.json",
     ("family.h200.ltxv.stock.time", "json:chains/stock/times_s/0", 3.019, "{:.2f} s", "stock"),
     ("family.h200.ltxv.attention.speedup", "json:chains/attention/speedup", 1.181, "{:.2f}x",
      "Accel Attention vs stock"),
     ("family.h200.ltxv.shipped.cosine", "json:chains/shipped/cosine", 0.999873, "{:.5f}",
      "the exact chain, final latent vs stock"),
     ("family.h200.ltxv.shipped.first_run", "json:chains/shipped/first_run_s", 11.07, "{:.0f} s",
      "the exact chain, first run (compiles)"),
     ("family.h200.ltxv.fp8_shipped.cosine", "json:chains/fp8_shipped/cosine", 0.998707, "{:.5f}",
      "FP8 loader -> the exact chain, final latent vs stock"),
     ("family.h200.ltxv.core_compile.speedup", "json:chains/core_compile/speedup", 1.049, "{:.2f}x",
      "ComfyUI TorchCompileModel vs stock"),
     ("family.h200.ltxv.core_compile.first_run", "json:chains/core_compile/first_run_s", 37.58, "{:.0f} s",
      "ComfyUI TorchCompileModel, first run (compiles)"),
     ("family.h200.ltxv.stock_again.speedup", "json:chains/stock_again/speedup", 1.0, "{:.2f}x",
      "stock again at the end vs the first stock"))
rows(S_FAMILY_H200_LTXV_24, "h200/family_033_ltxv_24GB_occupied/matrix.json",
     ("family.h200.24.ltxv.stock.time", "json:chains/stock/times_s/0", 3.039, "{:.2f} s", "stock"),
     ("family.h200.24.ltxv.shipped.speedup", "json:chains/shipped/speedup", 1.313, "{:.2f}x",
      "the exact chain vs stock"),
     ("family.h200.24.ltxv.shipped.cosine", "json:chains/shipped/cosine", 0.999873, "{:.5f}",
      "the exact chain, final latent vs stock"),
     ("family.h200.24.ltxv.fp8_shipped.speedup", "json:chains/fp8_shipped/speedup", 1.485, "{:.2f}x",
      "FP8 loader -> the exact chain vs stock"),
     ("family.h200.24.ltxv.fp8_shipped.cosine", "json:chains/fp8_shipped/cosine", 0.998707, "{:.5f}",
      "FP8 loader -> the exact chain, final latent vs stock"),
     ("family.h200.24.ltxv.core_compile.speedup", "json:chains/core_compile/speedup", 1.052, "{:.2f}x",
      "ComfyUI TorchCompileModel vs stock"),
     ("family.h200.24.ltxv.stock_again.speedup", "json:chains/stock_again/speedup", 0.976, "{:.2f}x",
      "stock again at the end vs the first stock"))
rows(S_FAMILY_H200_H3, "h200/family_033_minimax_h3_turbo/matrix/matrix.json",
     ("family.h200.minimax_h3_turbo.stock.time", "json:chains/stock/times_s/0", 30.473, "{:.1f} s", "stock"),
     ("family.h200.minimax_h3_turbo.shipped.time", "json:chains/shipped/times_s/0", 18.526, "{:.1f} s",
      "Accel MiniMax-H3 Level-1"),
     ("family.h200.minimax_h3_turbo.sparse.cosine", "json:chains/level1_h3_sparse/cosine", 0.995661, "{:.4f}",
      "Level-1 quality sparse, final latent vs stock's first run"),
     ("family.h200.minimax_h3_turbo.kj.speedup", "json:chains/kj_sage_compile/speedup", 1.185, "{:.2f}x",
      "KJNodes Sage -> TorchCompileModelAdvanced vs stock"),
     ("family.h200.minimax_h3_turbo.kj.first_run", "json:chains/kj_sage_compile/first_run_s", 42.18, "{:.0f} s",
      "KJNodes Sage -> TorchCompileModelAdvanced, first run (compiles)"))
rows(S_FAMILY_H200_H3_COLD, "h200/family_033_minimax_h3_turbo/cold/matrix.json",
     ("family.h200.minimax_h3_turbo.cold.shipped.first_run", "json:chains/shipped/first_run_s", 38.28, "{:.0f} s",
      "Accel MiniMax-H3 Level-1, first run (compiles, cold)"),
     ("family.h200.minimax_h3_turbo.cold.stock.first_run", "json:chains/stock/first_run_s", 34.54, "{:.0f} s",
      "stock, first run"),
     ("family.h200.minimax_h3_turbo.cold.shipped.speedup", "json:chains/shipped/speedup", 1.629, "{:.2f}x",
      "Accel MiniMax-H3 Level-1 vs stock"))
rows(S_FAMILY_H200_H3_24, "h200/family_033_minimax_h3_turbo/card24/matrix.json",
     ("family.h200.24.minimax_h3_turbo.stock.time", "json:chains/stock/times_s/0", 30.429, "{:.1f} s", "stock"),
     ("family.h200.24.minimax_h3_turbo.shipped.speedup", "json:chains/shipped/speedup", 1.396, "{:.2f}x",
      "Accel MiniMax-H3 Level-1 vs stock"))
rows(S_FAMILY_H200_H3_24, "h200/family_033_minimax_h3_turbo/card24_prefetch/matrix.json",
     ("family.h200.24.minimax_h3_turbo.pf.shipped.speedup", "json:chains/shipped/speedup", 1.41, "{:.2f}x",
      "Accel MiniMax-H3 Level-1 vs stock"),
     ("family.h200.24.minimax_h3_turbo.pf.prefetch.speedup", "json:chains/level1_h3_prefetch/speedup", 1.41,
      "{:.2f}x", "Accel MiniMax-H3 Level-1 with prefetch_weights vs stock"),
     ("family.h200.24.minimax_h3_turbo.pf.prefetch.time", "json:chains/level1_h3_prefetch/times_s/0", 21.962,
      "{:.2f} s", "Accel MiniMax-H3 Level-1 with prefetch_weights"),
     ("family.h200.24.minimax_h3_turbo.pf.shipped.time", "json:chains/shipped/times_s/0", 21.965, "{:.2f} s",
      "Accel MiniMax-H3 Level-1"),
     ("family.h200.24.minimax_h3_turbo.pf.prefetch.maxdiff", "json:chains/level1_h3_prefetch/max_abs_diff", 0.35337,
      "{:.3f}", "Accel MiniMax-H3 Level-1 with prefetch_weights, final latent max |diff| vs stock"),
     ("family.h200.24.minimax_h3_turbo.pf.shipped.maxdiff", "json:chains/shipped/max_abs_diff", 0.35005, "{:.3f}",
      "Accel MiniMax-H3 Level-1, final latent max |diff| vs stock"),
     ("family.h200.24.minimax_h3_turbo.pf.stock.maxdiff", "json:chains/stock/max_abs_diff", 0.29229, "{:.3f}",
      "stock's timed run, final latent max |diff| vs stock's first run"))
rows(S_FAMILY_H200_QWEN, "h200/family_033_qwen_image_8steps/matrix.json",
     ("family.h200.qwen.stock.time", "json:chains/stock/times_s/0", 5.22, "{:.2f} s", "stock"),
     ("family.h200.qwen.attention.speedup", "json:chains/attention/speedup", 1.199, "{:.2f}x",
      "Accel Attention vs stock"),
     ("family.h200.qwen.shipped.cosine", "json:chains/shipped/cosine", 0.999876, "{:.5f}",
      "the exact chain, final latent vs stock"),
     ("family.h200.qwen.shipped.first_run", "json:chains/shipped/first_run_s", 22.58, "{:.0f} s",
      "the exact chain, first run (compiles)"),
     ("family.h200.qwen.fp8_shipped.speedup", "json:chains/fp8_shipped/speedup", 1.63, "{:.2f}x",
      "FP8 loader -> the exact chain vs stock"),
     ("family.h200.qwen.fp8_shipped.cosine", "json:chains/fp8_shipped/cosine", 0.999263, "{:.5f}",
      "FP8 loader -> the exact chain, final latent vs stock"),
     ("family.h200.qwen.core_compile.speedup", "json:chains/core_compile/speedup", 1.165, "{:.2f}x",
      "ComfyUI TorchCompileModel vs stock"),
     ("family.h200.qwen.core_compile.first_run", "json:chains/core_compile/first_run_s", 127.33, "{:.0f} s",
      "ComfyUI TorchCompileModel, first run (compiles)"),
     ("family.h200.qwen.stock_again.speedup", "json:chains/stock_again/speedup", 1.002, "{:.2f}x",
      "stock again at the end vs the first stock"))
rows(S_FAMILY_H200_QWEN_24, "h200/family_033_qwen_image_8steps_24GB_occupied/matrix.json",
     ("family.h200.24.qwen.stock.time", "json:chains/stock/times_s/0", 5.64, "{:.2f} s", "stock"),
     ("family.h200.24.qwen.shipped.speedup", "json:chains/shipped/speedup", 1.449, "{:.2f}x",
      "the exact chain vs stock"),
     ("family.h200.24.qwen.shipped.cosine", "json:chains/shipped/cosine", 0.999876, "{:.5f}",
      "the exact chain, final latent vs stock"),
     ("family.h200.24.qwen.fp8_shipped.speedup", "json:chains/fp8_shipped/speedup", 1.598, "{:.2f}x",
      "FP8 loader -> the exact chain vs stock"),
     ("family.h200.24.qwen.fp8_shipped.cosine", "json:chains/fp8_shipped/cosine", 0.999263, "{:.5f}",
      "FP8 loader -> the exact chain, final latent vs stock"),
     ("family.h200.24.qwen.stock_again.speedup", "json:chains/stock_again/speedup", 0.976, "{:.2f}x",
      "stock again at the end vs the first stock"))
about(S_FP8AUTO_H200_FLUX,
      ("fp8auto.h200.flux.fp8_shipped.cosine", "FP8 loader -> the exact chain, final latent vs stock"))
about(S_FP8AUTO_H200_HV,
      ("fp8auto.h200.hv.fp8_shipped.cosine", "FP8 loader -> the exact chain, final latent vs stock"))
about(S_FP8AUTO_H200_LTXV,
      ("fp8auto.h200.ltxv.fp8_shipped.cosine", "FP8 loader -> the exact chain, final latent vs stock"))
about(S_FP8AUTO_H200_QWEN,
      ("fp8auto.h200.qwen.fp8_shipped.cosine", "FP8 loader -> the exact chain, final latent vs stock"))
about(S_FP8AUTO_H200_TI2V,
      ("fp8auto.h200.ti2v.fp8_shipped.cosine", "FP8 loader -> the exact chain, final latent vs stock"))
about(S_FP8AUTO_H200_ZIMAGE,
      ("fp8auto.h200.zimage.fp8_shipped.cosine", "FP8 loader -> the exact chain, final latent vs stock"))
about(S_FP8AUTO_H200_WAN21,
      ("fp8auto.h200.wan21.fp8_level1.cosine", "FP8 loader -> Level-1, final latent vs stock"))
rows(S_FP8STORED_H200, "h200/fp8_stored_033_interleaved/own_base/matrix.json",
     ("fp8stored.h200.wf.fp8own_level1.cosine", "json:chains/fp8own_level1/cosine", 0.999256, "{:.5f}",
      "the FP8 loader's own layers -> LoRA -> Level-1, final latent vs stock"),
     ("fp8stored.h200.wf.level1.cosine", "json:chains/level1/cosine", 0.999927, "{:.5f}",
      "Level-1 on ComfyUI's loader, final latent vs stock"))
_Z_PEERS = ("Z-Image Turbo 6B at its true config, random bf16 weights, 1024x1024, 9 steps res_multistep/simple, CFG 1, "
            "ComfyUI 0.33.0 as main.py starts it (DynamicVRAM, cudaMallocAsync), torch 2.11.0+cu130, an H200 on a "
            "machine that ran nothing else, KJNodes carried, {card}each chain on its own (--sequential: stock first "
            "and again last), 2 timed runs (bench_matrix.py --family z_image --sequential --chains "
            "shipped,core_compile,kj_sage_compile --rounds 2{flag})")
# the slower of each chain's 2 timed runs (matrix.md's time column): (value, index in times_s)
for _zc, _zfolder, _zv in ((141, "whole_card", ((1.16, 0), (1.042, 1), (1.022, 1), (1.459, 0))),
                           (24, "card24", ((1.271, 1), (1.042, 1), (1.037, 0), (1.593, 1)))):
    _ztag = "" if _zc == 141 else ".24"
    rows(Setup("H200", "0.33.0", _zc, _Z_PEERS.format(
            card="" if _zc == 141 else "as a 24 GB card (another process holds the rest of the GPU before ComfyUI "
                                       "starts), ", flag="" if _zc == 141 else " --card 24 --occupy")),
         f"h200/family_033_z_image_peers/{_zfolder}/matrix.json",
         (f"zpeers.h200{_ztag}.stock_again.time", f"json:chains/stock_again/times_s/{_zv[0][1]}", _zv[0][0], "{:.2f} s",
          "stock, the closing run"),
         (f"zpeers.h200{_ztag}.shipped.time", f"json:chains/shipped/times_s/{_zv[1][1]}", _zv[1][0], "{:.2f} s",
          "the exact chain (CUDA Settings -> Attention -> Compile)"),
         (f"zpeers.h200{_ztag}.core_compile.time", f"json:chains/core_compile/times_s/{_zv[2][1]}", _zv[2][0],
          "{:.2f} s", "ComfyUI TorchCompileModel"),
         (f"zpeers.h200{_ztag}.kj.time", f"json:chains/kj_sage_compile/times_s/{_zv[3][1]}", _zv[3][0], "{:.2f} s",
          "KJNodes Sage -> TorchCompileModelAdvanced"))
# Accel Compile's resident_weights against DynamicVRAM's per-call fetch (a later H200 machine to itself, 2026-11-29)
_RESIDENT = ("H200 141GB on a machine that ran nothing else, whole card, {model}, random bf16 weights loaded by "
             "ComfyUI's loader, ComfyUI 0.33.0 as main.py starts it (DynamicVRAM, cudaMallocAsync), torch "
             "2.11.0+cu130; stock, the exact chain (Accel CUDA Settings -> Attention -> Compile, DynamicVRAM kept), "
             "the same with Accel Compile's resident_weights on and ComfyUI's TorchCompileModel, each chain on its own "
             "(--sequential: stock first and again last), 3 timed runs each, the median (bench_matrix.py --family "
             "{fam} --sequential --chains shipped,shipped_resident,core_compile --rounds 3{flag})")
S_RESIDENT_H200_ZIMAGE = Setup("H200", "0.33.0", 141, _RESIDENT.format(
    model="Z-Image Turbo 6B 1024x1024, 9 steps CFG 1, res_multistep/simple, shift 3", fam="z_image",
    flag=" --profile; then one profiled run each"))
S_RESIDENT_H200_FLUX = Setup("H200", "0.33.0", 141, _RESIDENT.format(
    model="Flux.1-dev 12B 1024x1024, 20 steps CFG 1, guidance 3.5, euler/simple", fam="flux", flag=""))
rows(S_RESIDENT_H200_ZIMAGE, "h200/family_033_z_image_peers/resident/matrix.json",
     ("zres.h200.stock.time", "json:chains/stock/times_s/0", 1.17, "{:.2f} s", "stock"),
     ("zres.h200.shipped.time", "json:chains/shipped/times_s/1", 0.939, "{:.2f} s",
      "the exact chain, DynamicVRAM kept"),
     ("zres.h200.shipped_resident.time", "json:chains/shipped_resident/times_s/1", 0.913, "{:.2f} s",
      "the exact chain with resident_weights on"),
     ("zres.h200.core_compile.time", "json:chains/core_compile/times_s/2", 1.033, "{:.2f} s",
      "ComfyUI TorchCompileModel"),
     ("family.h200.zimage_resident.shipped.speedup", "json:chains/shipped/speedup", 1.246, "{:.2f}x",
      "the exact chain, DynamicVRAM kept, vs stock"),
     ("family.h200.zimage_resident.core_compile.speedup", "json:chains/core_compile/speedup", 1.133, "{:.2f}x",
      "ComfyUI TorchCompileModel vs stock"),
     ("zres.h200.shipped_resident.kernels", "json:chains/shipped_resident/profile/kernel_ms", 806.7, "{:.0f} ms",
      "the exact chain with resident_weights on, profiled run: GPU kernel time"))
about(S_RESIDENT_H200_ZIMAGE, ("family.h200.zimage_resident.shipped_resident.speedup",
                               "the exact chain with resident_weights on vs stock"))
rows(S_RESIDENT_H200_FLUX, "h200/family_033_flux_1024_resident/matrix.json",
     ("fluxres.h200.stock.time", "json:chains/stock/times_s/1", 3.477, "{:.2f} s", "stock"),
     ("fluxres.h200.shipped.time", "json:chains/shipped/times_s/1", 2.778, "{:.2f} s",
      "the exact chain, DynamicVRAM kept"),
     ("fluxres.h200.shipped_resident.time", "json:chains/shipped_resident/times_s/0", 2.537, "{:.2f} s",
      "the exact chain with resident_weights on"),
     ("fluxres.h200.core_compile.time", "json:chains/core_compile/times_s/0", 3.029, "{:.2f} s",
      "ComfyUI TorchCompileModel"),
     ("family.h200.flux_resident.shipped.speedup", "json:chains/shipped/speedup", 1.252, "{:.2f}x",
      "the exact chain, DynamicVRAM kept, vs stock"),
     ("fluxres.h200.core_compile.cosine", "json:chains/core_compile/cosine", 0.952701, "{:.4f}",
      "ComfyUI TorchCompileModel, final latent vs stock"))
about(S_RESIDENT_H200_FLUX, ("family.h200.flux_resident.shipped_resident.speedup",
                             "the exact chain with resident_weights on vs stock"))
rows(S_GRAPHS_H200_ZIMAGE, "h200/graph_check_033/z_image_6B_disable_cuda_malloc/matrix.json",
     ("graphs.h200.z_image.shipped.speedup", "json:chains/shipped/speedup", 1.207, "{:.2f}x",
      "the exact chain vs stock"),
     ("graphs.h200.z_image.shipped_graphs.speedup", "json:chains/shipped_graphs/speedup", 1.293, "{:.2f}x",
      "the exact chain with cuda_graphs on vs stock"),
     ("graphs.h200.z_image.shipped_graphs.cosine", "json:chains/shipped_graphs/cosine", 0.999963, "{:.6f}",
      "the exact chain with cuda_graphs on, final latent vs stock"),
     ("graphs.h200.z_image.shipped_graphs.first_run", "json:chains/shipped_graphs/first_run_s", 6.3, "{:.1f} s",
      "the exact chain with cuda_graphs on, first run (the exact chain's compiles already cached in the process)"))
rows(S_VAE_H200_COMBOS, "h200/vae_033_combos/vae.md",
     ("vae.h200.combos.cl_fn.speedup", "md:wan2.1/cl+fn|speedup", 1.235, "{:.2f}x", "channels_last + fused_norm"),
     ("vae.h200.combos.cl_fn_tc4.speedup", "md:wan2.1/cl+fn+tc4|speedup", 1.253, "{:.2f}x",
      "channels_last + fused_norm + temporal_chunk 4"),
     ("vae.h200.combos.tc4.speedup", "md:wan2.1/tc4|speedup", 0.994, "{:.2f}x", "temporal_chunk 4 alone"),
     ("vae.h200.combos.cl_cb_fn_co.speedup", "md:wan2.1/cl+cb+fn+co|speedup", 1.352, "{:.2f}x",
      "channels_last + cudnn_benchmark + fused_norm + compile"),
     ("vae.h200.combos.cl_cb_co.first", "md:wan2.1/cl+cb+co|first (s)", 57.7965, "{:.0f} s",
      "channels_last + cudnn_benchmark + compile, first decode (the run's first compile)"),
     ("vae.h200.combos.stock.first", "md:wan2.1/stock|first (s)", 2.1293, "{:.1f} s", "stock, first decode"),
     ("vae.h200.combos.cl_fn.psnr", "md:wan2.1/cl+fn|PSNR vs float32 (dB)", 48.54, "{:.1f} dB",
      "channels_last + fused_norm, PSNR vs a float32 decode"),
     ("vae.h200.combos.stock.psnr", "md:wan2.1/stock|PSNR vs float32 (dB)", 46.794, "{:.1f} dB",
      "stock bf16 decode, PSNR vs a float32 decode"))
rows(S_VAE_H200_ROUNDS, "h200/vae_033_rounds/vae.md",
     ("vae.h200.rounds.cl_fn_tc4.speedup", "md:wan2.1/cl+fn+tc4|speedup", 1.227, "{:.2f}x",
      "channels_last + fused_norm + temporal_chunk 4"),
     ("vae.h200.rounds.cl_cb_fn.speedup", "md:wan2.1/cl+cb+fn|speedup", 1.241, "{:.2f}x",
      "channels_last + cudnn_benchmark + fused_norm"),
     ("vae.h200.rounds.fn.speedup", "md:wan2.1/fn|speedup", 1.071, "{:.2f}x", "fused_norm without channels_last"),
     ("vae.h200.rounds.cl_cb_fn_co.speedup", "md:wan2.1/cl+cb+fn+co|speedup", 1.304, "{:.2f}x",
      "channels_last + cudnn_benchmark + fused_norm + compile"),
     ("vae.h200.rounds.cl_cb_co.first", "md:wan2.1/cl+cb+co|first (s)", 69.2018, "{:.0f} s",
      "channels_last + cudnn_benchmark + compile, first decode (the run's first compile)"),
     ("vae.h200.rounds.stock.first", "md:wan2.1/stock|first (s)", 2.2186, "{:.1f} s", "stock, first decode"),
     ("vae.h200.rounds.stock.time", "md:wan2.1/stock|time (s)", 1.7893, "{:.2f} s", "stock decode"),
     ("vae.h200.rounds.cl_fn.time", "md:wan2.1/cl+fn|time (s)", 1.4291, "{:.2f} s", "channels_last + fused_norm"),
     ("vae.h200.rounds.cl_fn.psnr", "md:wan2.1/cl+fn|PSNR vs float32 (dB)", 48.54, "{:.1f} dB",
      "channels_last + fused_norm, PSNR vs a float32 decode"),
     ("vae.h200.rounds.stock.psnr", "md:wan2.1/stock|PSNR vs float32 (dB)", 46.794, "{:.1f} dB",
      "stock bf16 decode, PSNR vs a float32 decode"))
rows(S_FAMILY_H200_HV, "h200/family_033_hunyuan_video_33f/matrix.json",
     ("family.h200.hv.stock.time", "json:chains/stock/times_s/0", 5.186, "{:.2f} s", "stock"),
     ("family.h200.hv.attention.speedup", "json:chains/attention/speedup", 1.375, "{:.2f}x",
      "Accel Attention vs stock"),
     ("family.h200.hv.shipped.cosine", "json:chains/shipped/cosine", 0.999967, "{:.5f}",
      "the exact chain, final latent vs stock"),
     ("family.h200.hv.shipped.first_run", "json:chains/shipped/first_run_s", 27.81, "{:.0f} s",
      "the exact chain, first run (compiles)"),
     ("family.h200.hv.fp8_shipped.cosine", "json:chains/fp8_shipped/cosine", 0.99911, "{:.5f}",
      "FP8 loader -> the exact chain, final latent vs stock"),
     ("family.h200.hv.core_compile.speedup", "json:chains/core_compile/speedup", 1.073, "{:.2f}x",
      "ComfyUI TorchCompileModel vs stock"),
     ("family.h200.hv.core_compile.first_run", "json:chains/core_compile/first_run_s", 74.01, "{:.0f} s",
      "ComfyUI TorchCompileModel, first run (compiles)"),
     ("family.h200.hv.stock_again.speedup", "json:chains/stock_again/speedup", 0.992, "{:.2f}x",
      "stock again at the end vs the first stock"))
rows(S_FAMILY_H200_HV_24, "h200/family_033_hunyuan_video_33f_24GB_occupied/matrix.json",
     ("family.h200.24.hv.stock.time", "json:chains/stock/times_s/0", 5.375, "{:.2f} s", "stock"),
     ("family.h200.24.hv.shipped.cosine", "json:chains/shipped/cosine", 0.999967, "{:.5f}",
      "the exact chain, final latent vs stock"),
     ("family.h200.24.hv.fp8_shipped.cosine", "json:chains/fp8_shipped/cosine", 0.99911, "{:.5f}",
      "FP8 loader -> the exact chain, final latent vs stock"),
     ("family.h200.24.hv.stock_again.speedup", "json:chains/stock_again/speedup", 1.012, "{:.2f}x",
      "stock again at the end vs the first stock"))
rows(S_FAMILY_H200_FLUX_24, "h200/family_033_flux_1024_24GB_occupied/matrix.json",
     ("family.h200.24.flux.stock.time", "json:chains/stock/times_s/0", 3.474, "{:.2f} s", "stock"),
     ("family.h200.24.flux.shipped.speedup", "json:chains/shipped/speedup", 1.302, "{:.2f}x",
      "the exact chain vs stock"),
     ("family.h200.24.flux.shipped.cosine", "json:chains/shipped/cosine", 0.999995, "{:.5f}",
      "the exact chain, final latent vs stock"),
     ("family.h200.24.flux.fp8_shipped.speedup", "json:chains/fp8_shipped/speedup", 1.348, "{:.2f}x",
      "FP8 loader -> the exact chain vs stock"),
     ("family.h200.24.flux.fp8_shipped.cosine", "json:chains/fp8_shipped/cosine", 0.999413, "{:.5f}",
      "FP8 loader -> the exact chain, final latent vs stock"),
     ("family.h200.24.flux.stock_again.speedup", "json:chains/stock_again/speedup", 0.977, "{:.2f}x",
      "stock again at the end vs the first stock"))
rows(S_SPARSE_H200, "h200/sparse_attention/sparse_attention.json",
     ("sparse.h200.480p.decay0.2.speedup", "json:rows/2/speedup_vs_fa3", 1.2343603405902248, "{:.2f}x",
      "480p 81 frames (32,760 tokens), decay 0.2"),
     ("sparse.h200.720p.decay0.2.speedup", "json:rows/5/speedup_vs_fa3", 1.8510195996269223, "{:.2f}x",
      "720p 81 frames (75,600 tokens), decay 0.2"),
     ("sparse.h200.hv720p.decay0.2.speedup", "json:rows/8/speedup_vs_fa3", 2.784290980666395, "{:.2f}x",
      "HunyuanVideo 720p 129 frames, decay 0.2"),
     ("sparse.h200.720p.decay0.2.cosine", "json:rows/5/vs_masked_reference/cosine", 0.9999968490958904, "{:.6f}",
      "720p 81 frames, decay 0.2, output vs the dense masked fp32 reference"))
rows(S_E2E_I2V_H100, "h100/e2e_lightx2v_033/i2v_whole_card_savevideo/e2e_wan22_i2v_lightx2v.json",
     ("e2e_i2v.h100.stock.q1.total", "json:rows/0/queues/0/total_s", 35.66, "{:.1f} s", "stock, Queue 1, total"),
     ("e2e_i2v.h100.stock.q2.high_noise", "json:rows/0/queues/1/stages_s/sampler high-noise", 7.282, "{:.1f} s",
      "stock, Queue 2, sampler high-noise stage"),
     ("e2e_i2v.h100.stock.q2.low_noise", "json:rows/0/queues/1/stages_s/sampler low-noise", 7.234, "{:.1f} s",
      "stock, Queue 2, sampler low-noise stage"),
     ("e2e_i2v.h100.stock.q2.vae_decode", "json:rows/0/queues/1/stages_s/VAE decode", 2.532, "{:.1f} s",
      "stock, Queue 2, VAE decode stage"),
     ("e2e_i2v.h100.stock.q2.save", "json:rows/0/queues/1/stages_s/save", 3.479, "{:.1f} s",
      "stock, Queue 2, save stage"),
     ("e2e_i2v.h100.level1.q1.total", "json:rows/1/queues/0/total_s", 47.468, "{:.1f} s", "level1, Queue 1, total"),
     ("e2e_i2v.h100.level1.q2.high_noise", "json:rows/1/queues/1/stages_s/sampler high-noise", 4.367, "{:.1f} s",
      "level1, Queue 2, sampler high-noise stage"),
     ("e2e_i2v.h100.level1.q2.low_noise", "json:rows/1/queues/1/stages_s/sampler low-noise", 4.258, "{:.1f} s",
      "level1, Queue 2, sampler low-noise stage"),
     ("e2e_i2v.h100.level1.q2.vae_decode", "json:rows/1/queues/1/stages_s/VAE decode", 2.466, "{:.1f} s",
      "level1, Queue 2, VAE decode stage"),
     ("e2e_i2v.h100.level1.q2.save", "json:rows/1/queues/1/stages_s/save", 3.179, "{:.1f} s",
      "level1, Queue 2, save stage"),
     ("e2e_i2v.h100.level1_vae.q1.total", "json:rows/2/queues/0/total_s", 47.262, "{:.1f} s",
      "level1+vae, Queue 1, total"),
     ("e2e_i2v.h100.level1_vae.q2.total", "json:rows/2/queues/1/total_s", 14.748, "{:.1f} s",
      "level1+vae, Queue 2, total"),
     ("e2e_i2v.h100.level1_vae.q2.high_noise", "json:rows/2/queues/1/stages_s/sampler high-noise", 4.316, "{:.1f} s",
      "level1+vae, Queue 2, sampler high-noise stage"),
     ("e2e_i2v.h100.level1_vae.q2.low_noise", "json:rows/2/queues/1/stages_s/sampler low-noise", 4.42, "{:.1f} s",
      "level1+vae, Queue 2, sampler low-noise stage"),
     ("e2e_i2v.h100.level1_vae.q2.vae_decode", "json:rows/2/queues/1/stages_s/VAE decode", 2.562, "{:.1f} s",
      "level1+vae, Queue 2, VAE decode stage"),
     ("e2e_i2v.h100.level1_vae.q2.save", "json:rows/2/queues/1/stages_s/save", 3.429, "{:.1f} s",
      "level1+vae, Queue 2, save stage"))
rows(S_E2E_I2V_H100_24, "h100/e2e_lightx2v_033/i2v_card24_occupied_savevideo/e2e_wan22_i2v_lightx2v_card24.json",
     ("e2e_i2v.h100.24.stock.q1.total", "json:rows/0/queues/0/total_s", 33.194, "{:.1f} s", "stock, Queue 1, total"),
     ("e2e_i2v.h100.24.stock.q2.total", "json:rows/0/queues/1/total_s", 22.109, "{:.1f} s", "stock, Queue 2, total"),
     ("e2e_i2v.h100.24.stock.q2.high_noise", "json:rows/0/queues/1/stages_s/sampler high-noise", 8.111, "{:.1f} s",
      "stock, Queue 2, sampler high-noise stage"),
     ("e2e_i2v.h100.24.stock.q2.low_noise", "json:rows/0/queues/1/stages_s/sampler low-noise", 8.065, "{:.1f} s",
      "stock, Queue 2, sampler low-noise stage"),
     ("e2e_i2v.h100.24.stock.q2.vae_decode", "json:rows/0/queues/1/stages_s/VAE decode", 2.374, "{:.1f} s",
      "stock, Queue 2, VAE decode stage"),
     ("e2e_i2v.h100.24.stock.q2.save", "json:rows/0/queues/1/stages_s/save", 3.545, "{:.1f} s",
      "stock, Queue 2, save stage"),
     ("e2e_i2v.h100.24.level1.q1.total", "json:rows/1/queues/0/total_s", 46.701, "{:.1f} s", "level1, Queue 1, total"),
     ("e2e_i2v.h100.24.level1.q2.total", "json:rows/1/queues/1/total_s", 18.072, "{:.1f} s", "level1, Queue 2, total"),
     ("e2e_i2v.h100.24.level1.q2.high_noise", "json:rows/1/queues/1/stages_s/sampler high-noise", 5.691, "{:.1f} s",
      "level1, Queue 2, sampler high-noise stage"),
     ("e2e_i2v.h100.24.level1.q2.low_noise", "json:rows/1/queues/1/stages_s/sampler low-noise", 5.931, "{:.1f} s",
      "level1, Queue 2, sampler low-noise stage"),
     ("e2e_i2v.h100.24.level1.q2.vae_decode", "json:rows/1/queues/1/stages_s/VAE decode", 2.66, "{:.1f} s",
      "level1, Queue 2, VAE decode stage"),
     ("e2e_i2v.h100.24.level1.q2.save", "json:rows/1/queues/1/stages_s/save", 3.756, "{:.1f} s",
      "level1, Queue 2, save stage"))
rows(S_E2E_I2V_H100, "h100/e2e_lightx2v_033/i2v_whole_card_savevideo_peers/e2e_wan22_i2v_lightx2v.json",
     ("e2e_i2v.h100.kj_sage_compile.q1.total", "json:rows/0/queues/0/total_s", 65.714, "{:.1f} s",
      "kj_sage_compile, Queue 1, total"),
     ("e2e_i2v.h100.kj_sage_compile.q2.total", "json:rows/0/queues/1/total_s", 18.396, "{:.1f} s",
      "kj_sage_compile, Queue 2, total"),
     ("e2e_i2v.h100.kj_sage_compile.q2.high_noise", "json:rows/0/queues/1/stages_s/sampler high-noise",
      6.179, "{:.1f} s",
      "kj_sage_compile, Queue 2, sampler high-noise stage"),
     ("e2e_i2v.h100.kj_sage_compile.q2.low_noise", "json:rows/0/queues/1/stages_s/sampler low-noise", 6.109, "{:.1f} s",
      "kj_sage_compile, Queue 2, sampler low-noise stage"),
     ("e2e_i2v.h100.kj_sage_compile.q2.vae_decode", "json:rows/0/queues/1/stages_s/VAE decode", 2.451, "{:.1f} s",
      "kj_sage_compile, Queue 2, VAE decode stage"),
     ("e2e_i2v.h100.kj_sage_compile.q2.save", "json:rows/0/queues/1/stages_s/save", 3.634, "{:.1f} s",
      "kj_sage_compile, Queue 2, save stage"),
     ("e2e_i2v.h100.core_ck_int8.q1.total", "json:rows/2/queues/0/total_s", 32.102, "{:.1f} s",
      "core_ck_int8, Queue 1, total"),
     ("e2e_i2v.h100.core_ck_int8.q2.total", "json:rows/2/queues/1/total_s", 18.363, "{:.1f} s",
      "core_ck_int8, Queue 2, total"),
     ("e2e_i2v.h100.core_ck_int8.q2.high_noise", "json:rows/2/queues/1/stages_s/sampler high-noise", 6.222, "{:.1f} s",
      "core_ck_int8, Queue 2, sampler high-noise stage"),
     ("e2e_i2v.h100.core_ck_int8.q2.low_noise", "json:rows/2/queues/1/stages_s/sampler low-noise", 6.077, "{:.1f} s",
      "core_ck_int8, Queue 2, sampler low-noise stage"),
     ("e2e_i2v.h100.core_ck_int8.q2.vae_decode", "json:rows/2/queues/1/stages_s/VAE decode", 2.465, "{:.1f} s",
      "core_ck_int8, Queue 2, VAE decode stage"),
     ("e2e_i2v.h100.core_ck_int8.q2.save", "json:rows/2/queues/1/stages_s/save", 3.135, "{:.1f} s",
      "core_ck_int8, Queue 2, save stage"))
rows(S_E2E_WF_H200_SAVE, "h200/e2e_lightx2v_033/whole_card_savevideo_peers/e2e_wan22_t2v_lightx2v.json",
     ("e2e_wf.h200.peers.stock.q1.total", "json:rows/0/queues/0/total_s", 31.983, "{:.1f} s",
      "a later H200 machine (the peers' call), stock, Queue 1, total"),
     ("e2e_wf.h200.peers.stock.q2.total", "json:rows/0/queues/1/total_s", 19.052, "{:.1f} s",
      "a later H200 machine (the peers' call), stock, Queue 2, total"),
     ("e2e_wf.h200.peers.stock.q2.high_noise", "json:rows/0/queues/1/stages_s/sampler high-noise", 7.092, "{:.1f} s",
      "a later H200 machine (the peers' call), stock, Queue 2, sampler high-noise stage"),
     ("e2e_wf.h200.peers.stock.q2.low_noise", "json:rows/0/queues/1/stages_s/sampler low-noise", 7.08, "{:.1f} s",
      "a later H200 machine (the peers' call), stock, Queue 2, sampler low-noise stage"),
     ("e2e_wf.h200.peers.kj_sage_compile.q1.total", "json:rows/1/queues/0/total_s", 50.895, "{:.1f} s",
      "a later H200 machine (the peers' call), kj_sage_compile, Queue 1, total"),
     ("e2e_wf.h200.peers.kj_sage_compile.q2.total", "json:rows/1/queues/1/total_s", 17.748, "{:.1f} s",
      "a later H200 machine (the peers' call), kj_sage_compile, Queue 2, total"),
     ("e2e_wf.h200.peers.kj_sage_compile.q2.high_noise", "json:rows/1/queues/1/stages_s/sampler high-noise",
      5.939, "{:.1f} s",
      "a later H200 machine (the peers' call), kj_sage_compile, Queue 2, sampler high-noise stage"),
     ("e2e_wf.h200.peers.kj_sage_compile.q2.low_noise", "json:rows/1/queues/1/stages_s/sampler low-noise",
      5.995, "{:.1f} s",
      "a later H200 machine (the peers' call), kj_sage_compile, Queue 2, sampler low-noise stage"),
     ("e2e_wf.h200.peers.core_ck_int8.q1.total", "json:rows/2/queues/0/total_s", 27.925, "{:.1f} s",
      "a later H200 machine (the peers' call), core_ck_int8, Queue 1, total"),
     ("e2e_wf.h200.peers.core_ck_int8.q2.total", "json:rows/2/queues/1/total_s", 17.2, "{:.1f} s",
      "a later H200 machine (the peers' call), core_ck_int8, Queue 2, total"),
     ("e2e_wf.h200.peers.core_ck_int8.q2.high_noise", "json:rows/2/queues/1/stages_s/sampler high-noise",
      5.838, "{:.1f} s",
      "a later H200 machine (the peers' call), core_ck_int8, Queue 2, sampler high-noise stage"),
     ("e2e_wf.h200.peers.core_ck_int8.q2.low_noise", "json:rows/2/queues/1/stages_s/sampler low-noise",
      5.802, "{:.1f} s",
      "a later H200 machine (the peers' call), core_ck_int8, Queue 2, sampler low-noise stage"))
rows(S_E2E_WF_H200_24_SAVE, "h200/e2e_lightx2v_033/card24_occupied_savevideo_peers/e2e_wan22_t2v_lightx2v_card24.json",
     ("e2e_wf.h200.24.peers.stock.q1.total", "json:rows/0/queues/0/total_s", 27.344, "{:.1f} s",
      "a later H200 machine (the peers' call), stock, Queue 1, total"),
     ("e2e_wf.h200.24.peers.stock.q2.total", "json:rows/0/queues/1/total_s", 21.091, "{:.1f} s",
      "a later H200 machine (the peers' call), stock, Queue 2, total"),
     ("e2e_wf.h200.24.peers.stock.q2.high_noise", "json:rows/0/queues/1/stages_s/sampler high-noise", 7.497, "{:.1f} s",
      "a later H200 machine (the peers' call), stock, Queue 2, sampler high-noise stage"),
     ("e2e_wf.h200.24.peers.stock.q2.low_noise", "json:rows/0/queues/1/stages_s/sampler low-noise", 7.597, "{:.1f} s",
      "a later H200 machine (the peers' call), stock, Queue 2, sampler low-noise stage"),
     ("e2e_wf.h200.24.peers.kj_sage_compile.q1.total", "json:rows/1/queues/0/total_s", 55.378, "{:.1f} s",
      "a later H200 machine (the peers' call), kj_sage_compile, Queue 1, total"),
     ("e2e_wf.h200.24.peers.kj_sage_compile.q2.total", "json:rows/1/queues/1/total_s", 20.284, "{:.1f} s",
      "a later H200 machine (the peers' call), kj_sage_compile, Queue 2, total"),
     ("e2e_wf.h200.24.peers.kj_sage_compile.q2.high_noise", "json:rows/1/queues/1/stages_s/sampler high-noise",
      7.104, "{:.1f} s",
      "a later H200 machine (the peers' call), kj_sage_compile, Queue 2, sampler high-noise stage"),
     ("e2e_wf.h200.24.peers.kj_sage_compile.q2.low_noise", "json:rows/1/queues/1/stages_s/sampler low-noise",
      6.93, "{:.1f} s",
      "a later H200 machine (the peers' call), kj_sage_compile, Queue 2, sampler low-noise stage"),
     ("e2e_wf.h200.24.peers.core_ck_int8.q1.total", "json:rows/2/queues/0/total_s", 26.653, "{:.1f} s",
      "a later H200 machine (the peers' call), core_ck_int8, Queue 1, total"),
     ("e2e_wf.h200.24.peers.core_ck_int8.q2.total", "json:rows/2/queues/1/total_s", 18.156, "{:.1f} s",
      "a later H200 machine (the peers' call), core_ck_int8, Queue 2, total"),
     ("e2e_wf.h200.24.peers.core_ck_int8.q2.high_noise", "json:rows/2/queues/1/stages_s/sampler high-noise",
      6.491, "{:.1f} s",
      "a later H200 machine (the peers' call), core_ck_int8, Queue 2, sampler high-noise stage"),
     ("e2e_wf.h200.24.peers.core_ck_int8.q2.low_noise", "json:rows/2/queues/1/stages_s/sampler low-noise",
      6.45, "{:.1f} s",
      "a later H200 machine (the peers' call), core_ck_int8, Queue 2, sampler low-noise stage"))


# --- where the pack's rows sit in their files, and how they were measured -------------------------------------------
about(S_H200_140,
      "matrix.h200.140.level1.speedup",
      ("matrix.h200.140.fp8_level1.cosine", "final latent vs stock"),
      ("fp8.h200.block.cosine", "FP8 loader with 1x128 blocks -> Level-1, final latent vs stock"))
about(S_ATTN_H100,
      ("attn.h100.wan14B_480p.fa3", "Wan 14B 480p 81 frames (32760 x 40)"),
      ("attn.h100.wan14B_480p.comfy_default", "Wan 14B 480p, ComfyUI's default attention (attention_pytorch)"),
      ("attn.h100.wan14B_480p.cudnn", "Wan 14B 480p, SDPA restricted to cuDNN"),
      ("attn.h100.wan14B_480p.fa2", "Wan 14B 480p, SDPA restricted to FlashAttention-2"),
      ("attn.h100.wan1.3B_480p.cudnn", "Wan 1.3B 480p 81 frames (32760 x 12), SDPA restricted to cuDNN"),
      ("attn.h100.wan1.3B_480p.fa2", "Wan 1.3B 480p, SDPA restricted to FlashAttention-2"),
      ("attn.h100.flux1024.cudnn", "Flux 1024x1024 (4608 x 24), SDPA restricted to cuDNN"),
      ("attn.h100.flux1024.fa2", "Flux 1024x1024, SDPA restricted to FlashAttention-2"))
about(S_LEVEL1_H100,
      ("level1.h100.1.3B.forward.cosine", "Wan 1.3B, cosine vs stock"),
      ("level1.h100.14B.forward.cosine", "Wan 14B, cosine vs stock"),
      ("level1.h100.1.3B.forward.maxdiff", "Wan 1.3B, max |diff| vs stock (outputs of order 1)"),
      ("level1.h100.14B.forward.maxdiff", "Wan 14B, max |diff| vs stock (outputs of order 1)"))
about(S_VAE_H200,
      ("vae.h200.fused_norm_nobench.run3", "fused_norm + channels_last (node defaults otherwise), median of 5"),
      ("vae.h200.fused_norm_bench.vae033", "fused_norm + channels_last + cudnn_benchmark, median of 2"),
      ("vae.h200.fused_norm_bench.run2", "fused_norm + channels_last + cudnn_benchmark, median of 3"),
      ("vae.h200.fused_norm_nobench.run3.maxdiff", "fused_norm + channels_last, max|diff| vs stock on [-1, 1]"),
      ("vae.h200.fused_norm_bench.vae033.maxdiff",
       "fused_norm + channels_last + cudnn_benchmark, max|diff| vs stock on [-1, 1]"),
      ("vae.h200.compile.fp32ref", "fused_norm + compile + channels_last + cudnn_benchmark, median of 3"),
      ("vae.h200.compile.run2", "fused_norm + compile + channels_last + cudnn_benchmark, median of 3"),
      ("vae.h200.compile_nobench.run3", "fused_norm + compile + channels_last, median of 5"),
      ("vae.h200.cl_bench.first.fp32ref",
       "the node defaults of that run (channels_last + cudnn_benchmark): first decode"),
      ("vae.h200.cl_bench.first.vae033",
       "the node defaults of that run (channels_last + cudnn_benchmark): first decode"),
      ("vae.h200.stock.first.fp32ref", "stock first decode"),
      ("vae.h200.stock.first.vae033", "stock first decode"),
      ("vae.h200.cl_bench.run2.speedup",
       "the node defaults of that run (channels_last + cudnn_benchmark), median of 3"),
      ("vae.h200.fused_norm.fp32ref.vs_fp32",
       "fused_norm + channels_last + cudnn_benchmark, max|diff| vs a float32 decode"),
      ("vae.h200.stock.fp32ref.vs_fp32", "stock bf16 decode, max|diff| vs a float32 decode"),
      ("vae.h200.compile.fp32ref.maxdiff", "fused_norm + compile, max|diff| vs stock"),
      ("vae.h200.tiled.peak", "tiled decode (512 px tiles), torch peak"),
      ("vae.h200.stock.peak", "stock decode, torch peak"),
      ("vae.h200.tiled.speedup", "tiled decode (512 px tiles)"))
about(S_VAE_H100,
      ("vae.h100.fused_norm_nobench.run3", "fused_norm + channels_last, median of 5"),
      ("vae.h100.fused_norm_nobench.vae033", "fused_norm + channels_last, median of 2"),
      ("vae.h100.fused_norm_bench.vae033", "fused_norm + channels_last + cudnn_benchmark, median of 2"),
      ("vae.h100.fused_norm_bench.run2", "fused_norm + channels_last + cudnn_benchmark, median of 5"),
      ("vae.h100.default.vae033", "node defaults (channels_last only), median of 2"),
      ("vae.h100.default.run2", "node defaults (channels_last only), median of 5"),
      ("vae.h100.compile.run3", "fused_norm + compile + channels_last + cudnn_benchmark, median of 5"),
      ("vae.h100.compile.vae033", "fused_norm + compile + channels_last + cudnn_benchmark, median of 2"),
      ("vae.h100.compile_nobench.run3", "fused_norm + compile + channels_last, median of 5"),
      ("vae.h100.cl_bench.cold.first", "channels_last + cudnn_benchmark alone in a fresh process: first decode"),
      ("vae.h100.cl_bench.cold.stock_first", "stock first decode in the same process"),
      ("vae.h100.cl_bench.cold.speedup", "channels_last + cudnn_benchmark, median of 2"),
      ("vae.h100.default.vae033.maxdiff", "channels_last, max|diff| vs stock on [-1, 1]"),
      ("vae.h100.compile.first.run2", "fused_norm + compile, first decode with a warm inductor cache"),
      ("vae.h100.compile.first.vae033", "fused_norm + compile, first decode on a cold cache"))
about(S_VAE_KL_H200,
      "vae.h200.kl.cl_bench.speedup")
about(S_H100_80_RUN2,
      "matrix.h100.80.run2.level1.speedup",
      "matrix.h100.80.run2.fp8_level1.speedup")
about(S_FAMILY_TI2V,
      ("family.h100.ti2v.shipped.speedup", "Accel Wan Level-1"),
      ("family.h100.ti2v.fp8_shipped.speedup", "FP8 loader -> Level-1"))
about(S_FAMILY_HV,
      ("family.h100.hv.shipped.speedup", "Accel CUDA Settings -> Attention -> Compile"),
      ("family.h100.hv.fp8_shipped.speedup", "FP8 loader -> the exact chain"))
about(S_SPARSE_FA4_H100,
      ("sparse_fa4.h100.720p.decay0.2.speedup", "720p 81 frames (75,600 tokens), decay 0.2, FA4 block-sparse"),
      ("sparse_flex.h100.720p.decay0.2.speedup.run2", "720p 81 frames, decay 0.2, flex_attention"))
about(S_WF_FP8_FIXES_H200,
      "wf.h200.141.fix.fp8_level1.speedup",
      ("wf.h200.141.fix.level1.speedup", "Level-1 on ComfyUI's loader in the same run"))
about(S_WF_FP8_FIXES_H100,
      "wf.h100.80.fix.fp8_level1.speedup",
      ("wf.h100.80.fix.level1.speedup", "Level-1 on ComfyUI's loader in the same run"))
about(S_FAMILY_QWEN_FIX,
      ("family.h100.qwen.fix.shipped.speedup", "Accel CUDA Settings -> Attention -> Compile"),
      ("family.h100.qwen.fix.fp8_shipped.speedup", "FP8 loader -> exact chain"))
about(S_FAMILY_FLUX_TRIMS,
      ("family.h200.flux.trims.shipped.speedup", "Accel CUDA Settings -> Attention -> Compile"),
      ("family.h200.flux.trims.fp8_shipped.speedup", "FP8 loader -> exact chain"))
about(S_FAMILY_FLUX_RUN2_H100,
      "family.h100.flux.run2.shipped.speedup",
      "family.h100.flux.run2.fp8_shipped.speedup")
about(S_E2E_WF_H100_SAVE,
      ("e2e_wf.h100.save.level1.q2.vae_decode", "Queue 2, VAE decode stage"),
      ("e2e_wf.h100.save.level1_vae.q2.vae_decode", "Queue 2, VAE decode stage"))
about(S_FAMILY_LTXV_CC,
      ("family.h100.ltxv_cc.shipped.time2", "shipped, timed run 2"),
      ("family.h100.ltxv_cc.fp8_shipped.time2", "fp8_shipped, timed run 2"))
about(S_FAMILY_H200_LTXV,
      ("family.h200.ltxv.fp8_shipped.time0", "FP8 loader -> the exact chain, first timed run"),
      ("family.h200.ltxv.fp8_shipped.time1", "FP8 loader -> the exact chain, second timed run"),
      ("family.h200.ltxv.shipped.time0", "the exact chain, first timed run"),
      ("family.h200.ltxv.shipped.speedup", "the exact chain vs stock"),
      ("family.h200.ltxv.fp8_shipped.speedup", "FP8 loader -> the exact chain vs stock"))
about(S_FP8AUTO_H200_FLUX,
      ("fp8auto.h200.flux.shipped.speedup", "the exact chain vs stock"),
      ("fp8auto.h200.flux.fp8_shipped.speedup", "FP8 loader -> the exact chain vs stock"))
about(S_FP8AUTO_H200_HV,
      ("fp8auto.h200.hv.shipped.speedup", "the exact chain vs stock"),
      ("fp8auto.h200.hv.fp8_shipped.speedup", "FP8 loader -> the exact chain vs stock"))
about(S_FP8AUTO_H200_LTXV,
      ("fp8auto.h200.ltxv.shipped.speedup", "the exact chain vs stock"),
      ("fp8auto.h200.ltxv.fp8_shipped.speedup", "FP8 loader -> the exact chain vs stock"))
about(S_FP8AUTO_H200_QWEN,
      ("fp8auto.h200.qwen.shipped.speedup", "the exact chain vs stock"),
      ("fp8auto.h200.qwen.fp8_shipped.speedup", "FP8 loader -> the exact chain vs stock"))
about(S_FP8AUTO_H200_TI2V,
      ("fp8auto.h200.ti2v.shipped.speedup", "the exact chain vs stock"),
      ("fp8auto.h200.ti2v.fp8_shipped.speedup", "FP8 loader -> the exact chain vs stock"))
about(S_FP8AUTO_H200_ZIMAGE,
      ("fp8auto.h200.zimage.shipped.speedup", "the exact chain vs stock"),
      ("fp8auto.h200.zimage.fp8_shipped.speedup", "FP8 loader -> the exact chain vs stock"))
about(S_FP8AUTO_H200_WAN21,
      ("fp8auto.h200.wan21.level1.speedup", "Accel Wan Level-1 vs stock"),
      ("fp8auto.h200.wan21.fp8_level1.speedup", "FP8 loader -> Level-1 vs stock"))
about(S_FP8STORED_H200,
      ("fp8stored.h200.wf.level1.speedup", "Level-1 on ComfyUI's loader vs stock"),
      ("fp8stored.h200.wf.fp8own_level1.speedup", "the FP8 loader's own layers -> LoRA -> Level-1 vs stock"))
about(S_FAMILY_H200_HV,
      ("family.h200.hv.shipped.speedup", "the exact chain vs stock"),
      ("family.h200.hv.fp8_shipped.speedup", "FP8 loader -> the exact chain vs stock"))
about(S_FAMILY_H200_HV_24,
      ("family.h200.24.hv.shipped.speedup", "the exact chain vs stock"),
      ("family.h200.24.hv.fp8_shipped.speedup", "FP8 loader -> the exact chain vs stock"))

about(S_H100_80_NOW,
      "matrix.h100.80.level1.speedup")
about(S_E2E_I2V_H100,
      ("e2e_i2v.h100.stock.q2.total", "stock, Queue 2, total"),
      ("e2e_i2v.h100.level1.q2.total", "level1, Queue 2, total"))
about(S_E2E_I2V_H200,
      ("e2e_i2v.h200.stock.q2.total", "stock, Queue 2, total"),
      ("e2e_i2v.h200.level1.q2.total", "level1, Queue 2, total"))
about(S_FAMILY_H200_TI2V,
      ("family.h200.ti2v.shipped.speedup", "the exact chain vs stock"))
about(S_VAE_H200_ROUNDS,
      ("vae.h200.rounds.cl_fn.speedup", "channels_last + fused_norm: the Hopper default (accel/vae/measured.py)"))
about(S_FAMILY_H200_H3,
      ("family.h200.minimax_h3_turbo.shipped.speedup", "Accel MiniMax-H3 Level-1 vs stock"),
      ("family.h200.minimax_h3_turbo.sparse.speedup", "Accel MiniMax-H3 Level-1 quality sparse (radial) vs stock"),
      ("family.h200.minimax_h3_turbo.shipped.cosine", "Accel MiniMax-H3 Level-1, final latent vs stock's first run"),
      ("family.h200.minimax_h3_turbo.stock.cosine", "stock's timed run vs its own first run"))
about(S_FAMILY_H200_QWEN,
      ("family.h200.qwen.shipped.speedup", "the exact chain vs stock"))
about(S_FAMILY_LTXV,
      ("family.h100.ltxv.shipped.speedup", "Accel CUDA Settings -> Attention -> Compile"))

# The whole Queue with Accel Save Video, and prefetch_weights on small cards: one H200 to itself (2026-11-29) ------
_E2E_ONE = ("the shipped workflows/api/wan2.2_t2v_A14B_lightx2v_4step_level1.json on a live ComfyUI 0.33.0 server "
            "(main.py, DynamicVRAM on), one H200 to itself, random files in the published layouts (both experts one "
            "scaled-fp8 14B file, LightX2V-layout rank-32 LoRAs, umt5-xxl in ComfyUI's scaled-fp8 layout, Wan 2.1 "
            "VAE), 480p 81 frames 4 steps; stock and level1 save with ComfyUI's VAE Decode -> Create Video -> Save "
            "Video (PyAV 19.0.2, libx264), level1+save with Accel Save Video (CPU encoder: NVENC does not open on an "
            "H200); a fresh server per variant, one Queue of each kind")
S_E2E_SAVE_ONE = Setup("H200", "0.33.0", 141, _E2E_ONE + ", an empty inductor cache per server (bench_e2e.py "
                       "--variants stock,level1,level1+save --save video --compile-cache fresh)")


def _s_prefetch(card):
    return Setup("H200", "0.33.0", card, _E2E_ONE + f", as a {card} GB card (--card {card} --occupy: another process "
                 "holds the rest of the GPU before the servers start), Queue 2 after a first Queue, the inductor "
                 "cache shared with the whole-card run before it (bench_e2e.py --variants "
                 "stock,level1,level1+prefetch --queues 2 --changes none)")


rows(S_E2E_SAVE_ONE, "h200/e2e_lightx2v_033/whole_card_accel_save/e2e_wan22_t2v_lightx2v.json",
     ("e2e1.h200.stock.q2.total", "json:rows/0/queues/1/total_s", 18.764, "{:.1f} s", "stock, Queue 2"),
     ("e2e1.h200.level1.q2.total", "json:rows/1/queues/1/total_s", 13.503, "{:.1f} s",
      "Level-1, core's decode and save, Queue 2"),
     ("e2e1.h200.level1_save.q2.total", "json:rows/2/queues/1/total_s", 11.764, "{:.1f} s",
      "Level-1 + Accel Save Video (the shipped workflow), Queue 2"),
     ("e2e1.h200.stock.q2.decode", "json:rows/0/queues/1/stages_s/VAE decode", 2.1, "{:.1f} s", "stock, VAE Decode"),
     ("e2e1.h200.stock.q2.save", "json:rows/0/queues/1/stages_s/save", 2.818, "{:.1f} s",
      "stock, Create Video -> Save Video"),
     ("e2e1.h200.level1_save.q2.decode_save", "json:rows/2/queues/1/stages_s/decode + save", 3.288, "{:.1f} s",
      "Accel Save Video, decode and save"),
     ("e2e1.h200.stock.q1.total", "json:rows/0/queues/0/total_s", 29.466, "{:.1f} s", "stock, Queue 1"),
     ("e2e1.h200.level1_save.q1.total", "json:rows/2/queues/0/total_s", 31.425, "{:.1f} s",
      "the shipped workflow, Queue 1 (compiles)"),
     ("e2e1.h200.stock.lora.total", "json:rows/0/queues/2/total_s", 19.268, "{:.1f} s",
      "stock, LoRA strength 1.0 -> 0.7"),
     ("e2e1.h200.level1_save.lora.total", "json:rows/2/queues/2/total_s", 12.595, "{:.1f} s",
      "the shipped workflow, LoRA strength 1.0 -> 0.7"),
     ("e2e1.h200.stock.portrait.total", "json:rows/0/queues/3/total_s", 18.273, "{:.1f} s",
      "stock, portrait after landscape"),
     ("e2e1.h200.level1_save.portrait.total", "json:rows/2/queues/3/total_s", 12.0, "{:.1f} s",
      "the shipped workflow, portrait after landscape"))
for _card, _vals in ((8, (20.002, 15.414, 15.468)), (12, (20.569, 15.978, 15.96)), (16, (20.637, 15.892, 14.628)),
                     (24, (20.398, 15.862, 14.451))):
    _file = f"h200/e2e_lightx2v_033/prefetch_card{_card}/e2e_wan22_t2v_lightx2v_card{_card}.json"
    rows(_s_prefetch(_card), _file, (f"e2epf.h200.{_card}.stock.q2.total", "json:rows/0/queues/1/total_s", _vals[0],
                                     "{:.1f} s", f"stock, {_card} GB card, Queue 2"))
    rows(_s_prefetch(_card), _file,
         (f"e2epf.h200.{_card}.level1.q2.total", "json:rows/1/queues/1/total_s", _vals[1], "{:.1f} s",
          f"Level-1, {_card} GB card, Queue 2"),
         (f"e2epf.h200.{_card}.prefetch.q2.total", "json:rows/2/queues/1/total_s", _vals[2], "{:.1f} s",
          f"Level-1 with prefetch_weights, {_card} GB card, Queue 2"))

# The edit models (one H200 to itself, 2026-11-29) ------------------------------------------------------------------
S_FAMILY_KONTEXT_H200 = Setup("H200", "0.33.0", 141,
    "one H200 to itself, Flux.1-dev 12B's layout as FLUX.1 Kontext dev (random bf16 weights), 1024x1024 with one "
    "1024x1024 reference latent, 20 steps CFG 1 guidance 3.5, euler/simple, ComfyUI 0.33.0 as main.py starts it "
    "(DynamicVRAM), first runs then 2 interleaved timed rounds (bench_matrix.py --family flux --edit --chains "
    "stock,shipped --rounds 2)")
S_FAMILY_QWEN_EDIT_H200 = Setup("H200", "0.33.0", 141,
    "one H200 to itself, Qwen-Image 20B's layout as Qwen-Image-Edit (random bf16 weights), 1328x1328 with one "
    "reference latent, 8 steps CFG 2.5, euler/simple, shift 3.1, ComfyUI 0.33.0 as main.py starts it (DynamicVRAM), "
    "first runs then 2 interleaved timed rounds (bench_matrix.py --family qwen_image --edit --steps 8 --chains "
    "stock,shipped --rounds 2)")
rows(S_FAMILY_KONTEXT_H200, "h200/family_033_flux_kontext/matrix.json",
     ("family.h200.flux_kontext.stock.time", "json:chains/stock/times_s/1", 7.512, "{:.2f} s",
      "stock, the slower timed run"),
     ("family.h200.flux_kontext.shipped.speedup", "json:chains/shipped/speedup", 1.405, "{:.2f}x",
      "Accel CUDA Settings -> Attention -> Compile vs stock"),
     ("family.h200.flux_kontext.shipped.cosine", "json:chains/shipped/cosine", 0.999995, "{:.5f}",
      "the exact chain, final latent vs stock"),
     ("family.h200.flux_kontext.shipped.first_run", "json:chains/shipped/first_run_s", 16.58, "{:.0f} s",
      "the exact chain, first run (compiles)"))
rows(S_FAMILY_QWEN_EDIT_H200, "h200/family_033_qwen_image_edit_8steps/matrix.json",
     ("family.h200.qwen_image_edit.stock.time", "json:chains/stock/times_s/1", 13.091, "{:.2f} s",
      "stock, the slower timed run"),
     ("family.h200.qwen_image_edit.shipped.speedup", "json:chains/shipped/speedup", 1.474, "{:.2f}x",
      "Accel CUDA Settings -> Attention -> Compile vs stock"),
     ("family.h200.qwen_image_edit.shipped.cosine", "json:chains/shipped/cosine", 0.999899, "{:.5f}",
      "the exact chain, final latent vs stock"),
     ("family.h200.qwen_image_edit.shipped.first_run", "json:chains/shipped/first_run_s", 18.85, "{:.0f} s",
      "the exact chain, first run (compiles)"))

# Accel Save Video's x264 presets on the 16 cores of the single-GPU H200 machine (2026-11-29) -----------------------
S_SAVE_H200_16 = Setup("H200", "0.33.0", 141,
    "the 16 CPU cores of the single-GPU H200 machine (nothing else running), Accel Save Video's writer per encoder "
    "setting, H.264 CRF 23, 81 frames 832x480 at 16 fps, PyAV 19.0.2, the mean of 2 encodes (bench_save.py --parts "
    "encoders,decode_save)")
_SAVE16 = "h200/save_video_033_16core/save_video.md"
rows(S_SAVE_H200_16, _SAVE16,
     ("save16.h200.smooth.savevideo.s", "md:smooth/cpu (as Save Video), medium|time (s)", 1.343, "{:.2f} s",
      "clip with video structure, every setting Save Video's"),
     ("save16.h200.smooth.medium.s", "md:smooth/cpu, medium|time (s)", 1.0093, "{:.2f} s",
      "clip with video structure, preset medium, frame + slice threads"),
     ("save16.h200.smooth.faster.s", "md:smooth/cpu, faster|time (s)", 0.5407, "{:.2f} s",
      "clip with video structure, preset faster"),
     ("save16.h200.smooth.veryfast.s", "md:smooth/cpu, veryfast|time (s)", 0.51, "{:.2f} s",
      "clip with video structure, preset veryfast"),
     ("save16.h200.smooth.savevideo.psnr", "md:smooth/cpu (as Save Video), medium|PSNR vs frames (dB)", 34.504,
      "{:.2f} dB", "clip with video structure, Save Video's settings: the file against the frames"),
     ("save16.h200.smooth.faster.psnr", "md:smooth/cpu, faster|PSNR vs frames (dB)", 34.577, "{:.2f} dB",
      "clip with video structure, preset faster: the file against the frames"),
     ("save16.h200.smooth.veryfast.psnr", "md:smooth/cpu, veryfast|PSNR vs frames (dB)", 34.817, "{:.2f} dB",
      "clip with video structure, preset veryfast: the file against the frames"),
     ("save16.h200.smooth.savevideo.mb", "md:smooth/cpu (as Save Video), medium|file (MB)", 2.24, "{:.2f} MB",
      "clip with video structure, Save Video's settings"),
     ("save16.h200.smooth.faster.mb", "md:smooth/cpu, faster|file (MB)", 2.1, "{:.2f} MB",
      "clip with video structure, preset faster"),
     ("save16.h200.smooth.veryfast.mb", "md:smooth/cpu, veryfast|file (MB)", 2.45, "{:.2f} MB",
      "clip with video structure, preset veryfast"),
     ("save16.h200.noise.savevideo.s", "md:noise/cpu (as Save Video), medium|time (s)", 2.5724, "{:.2f} s",
      "noise frames, every setting Save Video's"),
     ("save16.h200.noise.faster.s", "md:noise/cpu, faster|time (s)", 0.8192, "{:.2f} s", "noise frames, preset faster"))
S_E2E_H200_16 = Setup("H200", "0.33.0", 141,
    "one H200 to itself (16 CPU cores), ComfyUI 0.33.0 as main.py starts it, the shipped Wan 2.2 A14B T2V LightX2V "
    "workflow (random fp8_scaled experts, rank-32 LoRAs, random umt5-xxl fp8_scaled, 81 frames 832x480, 4 steps) on "
    "a live server, Accel Save Video at encoder cpu and preset medium, Queues 2-4 with the seed changed, the median "
    "(bench_e2e.py --variants level1+save,level1+vae+save --queues 4)")
rows(S_E2E_H200_16, "h200/e2e_lightx2v_033/whole_card_accel_vae_save_16core/e2e_wan22_t2v_lightx2v.json",
     ("e2e16.h200.level1_save.later.total", "json:rows/0/later_median/total_s", 12.135, "{:.1f} s",
      "Level-1 + Accel Save Video, whole Queue"),
     ("e2e16.h200.level1_vae_save.later.total", "json:rows/1/later_median/total_s", 12.197, "{:.1f} s",
      "Level-1 + Accel VAE + Accel Save Video, whole Queue"),
     ("e2e16.h200.level1_save.later.decode_save", "json:rows/0/later_median/stages_s/decode + save", 3.631, "{:.2f} s",
      "Level-1 + Accel Save Video: decode + save"),
     ("e2e16.h200.level1_vae_save.later.decode_save", "json:rows/1/later_median/stages_s/decode + save", 3.653,
      "{:.2f} s", "Level-1 + Accel VAE + Accel Save Video: decode + save"))
_E2E_SHIPPED = (
    "one H200 to itself (16 CPU cores), ComfyUI 0.33.0 as main.py starts it, torch 2.11.0+cu130, the shipped Wan 2.2 "
    "A14B {wf} LightX2V workflow (random fp8_scaled experts, rank-32 LoRAs, random umt5-xxl fp8_scaled, 81 frames "
    "832x480, 4 steps) on a live server, Accel Save Video at encoder cpu and preset faster as shipped (stock: core's "
    "VAE Decode -> Create Video -> Save Video), {card}the inductor cache shared by the servers, Queues 2-{q} with the "
    "seed changed, the median (bench_e2e.py {cmd})")
S_E2E_SHIPPED_T2V = Setup("H200", "0.33.0", 141, _E2E_SHIPPED.format(
    wf="T2V", card="", q=4, cmd="--variants stock,level1+save,level1+save_medium --queues 4 --compile-cache shared"))
S_E2E_SHIPPED_I2V = Setup("H200", "0.33.0", 141, _E2E_SHIPPED.format(
    wf="I2V", card="", q=3, cmd="--workflow wan22_i2v_lightx2v --variants stock,level1+save --queues 3"))
_E2EF = "h200/e2e_lightx2v_033/whole_card_shipped_faster/e2e_wan22_t2v_lightx2v.json"
rows(S_E2E_SHIPPED_T2V, _E2EF,
     ("e2ef.h200.stock.later.total", "json:rows/0/later_median/total_s", 19.362, "{:.1f} s", "stock, whole Queue"),
     ("e2ef.h200.level1_save.later.total", "json:rows/1/later_median/total_s", 11.527, "{:.1f} s",
      "the shipped workflow (x264 faster), whole Queue"),
     ("e2ef.h200.level1_save_medium.later.total", "json:rows/2/later_median/total_s", 11.874, "{:.1f} s",
      "the shipped workflow at Save Video's preset (medium), whole Queue"),
     ("e2ef.h200.stock.later.decode", "json:rows/0/later_median/stages_s/VAE decode", 2.208, "{:.1f} s",
      "stock, VAE Decode"),
     ("e2ef.h200.stock.later.save", "json:rows/0/later_median/stages_s/save", 3.355, "{:.1f} s",
      "stock, Create Video -> Save Video"),
     ("e2ef.h200.stock.later.sampler_high", "json:rows/0/later_median/stages_s/sampler high-noise", 6.915,
      "{:.1f} s", "stock, the high-noise expert's sampler"),
     ("e2ef.h200.level1_save.later.sampler_high", "json:rows/1/later_median/stages_s/sampler high-noise", 4.227,
      "{:.1f} s", "Level-1, the high-noise expert's sampler"),
     ("e2ef.h200.level1_save.later.decode_save", "json:rows/1/later_median/stages_s/decode + save", 3.039,
      "{:.1f} s", "Accel Save Video at faster: decode + save"),
     ("e2ef.h200.level1_save_medium.later.decode_save", "json:rows/2/later_median/stages_s/decode + save", 3.414,
      "{:.1f} s", "Accel Save Video at medium: decode + save"),
     ("e2ef.h200.stock.q1.total", "json:rows/0/queues/0/total_s", 31.642, "{:.1f} s", "stock, Queue 1"),
     ("e2ef.h200.level1_save.q1.total", "json:rows/1/queues/0/total_s", 38.243, "{:.1f} s",
      "the shipped workflow, Queue 1 (compiles)"))
rows(S_E2E_SHIPPED_I2V, "h200/e2e_lightx2v_033/i2v_whole_card_shipped_faster/e2e_wan22_i2v_lightx2v.json",
     ("e2ef_i2v.h200.stock.later.total", "json:rows/0/later_median/total_s", 19.237, "{:.1f} s", "stock, whole Queue"),
     ("e2ef_i2v.h200.level1_save.later.total", "json:rows/1/later_median/total_s", 11.45, "{:.1f} s",
      "the shipped workflow (x264 faster), whole Queue"))

# The decode's output path (accel/vae/output.py) and Accel VAE in front of Accel Save Video: the A14B workflows as
# shipped since (level1+vae+save), against the graph without Accel VAE (level1+save) and stock
_E2E_VAE = _E2E_SHIPPED.replace("Accel Save Video at encoder cpu and preset faster as shipped",
                                "Accel VAE at its Hopper choice (channels_last, fused_norm) in front of Accel Save "
                                "Video at encoder cpu and preset faster, both as shipped")
S_E2E_VAE_T2V = Setup("H200", "0.33.0", 141, _E2E_VAE.format(
    wf="T2V", card="", q=4, cmd="--variants stock,level1+save,level1+vae+save --queues 4 --compile-cache shared"))
S_E2E_VAE_I2V = Setup("H200", "0.33.0", 141, _E2E_VAE.format(
    wf="I2V", card="", q=2, cmd="--workflow wan22_i2v_lightx2v --variants stock,level1+vae+save --queues 2; one "
                                "Queue after the first, so Queue 2 itself"))
rows(S_E2E_VAE_T2V, "h200/e2e_lightx2v_033/whole_card_output_vae/e2e_wan22_t2v_lightx2v.json",
     ("e2ev.h200.stock.later.total", "json:rows/0/later_median/total_s", 18.961, "{:.1f} s", "stock, whole Queue"),
     ("e2ev.h200.level1_save.later.total", "json:rows/1/later_median/total_s", 10.73, "{:.1f} s",
      "Level-1 + Accel Save Video (no Accel VAE), whole Queue"),
     ("e2ev.h200.level1_vae_save.later.total", "json:rows/2/later_median/total_s", 10.286, "{:.1f} s",
      "the shipped workflow (Accel VAE + Accel Save Video), whole Queue"),
     ("e2ev.h200.stock.later.decode", "json:rows/0/later_median/stages_s/VAE decode", 2.079, "{:.1f} s",
      "stock, VAE Decode"),
     ("e2ev.h200.stock.later.save", "json:rows/0/later_median/stages_s/save", 2.975, "{:.1f} s",
      "stock, Create Video -> Save Video"),
     ("e2ev.h200.level1_save.later.decode_save", "json:rows/1/later_median/stages_s/decode + save", 2.224,
      "{:.1f} s", "Accel Save Video without Accel VAE: decode + save"),
     ("e2ev.h200.level1_vae_save.later.decode_save", "json:rows/2/later_median/stages_s/decode + save", 1.822,
      "{:.1f} s", "Accel VAE + Accel Save Video: decode + save"),
     ("e2ev.h200.stock.later.sampler_high", "json:rows/0/later_median/stages_s/sampler high-noise", 6.933,
      "{:.1f} s", "stock, the high-noise expert's sampler"),
     ("e2ev.h200.level1_vae_save.later.sampler_high", "json:rows/2/later_median/stages_s/sampler high-noise",
      4.249, "{:.1f} s", "Level-1, the high-noise expert's sampler"),
     ("e2ev.h200.stock.q1.total", "json:rows/0/queues/0/total_s", 31.718, "{:.1f} s", "stock, Queue 1"),
     ("e2ev.h200.level1_vae_save.q1.total", "json:rows/2/queues/0/total_s", 26.174, "{:.1f} s",
      "the shipped workflow, Queue 1 (compiled by an earlier server: shared inductor cache)"),
     ("e2ev.h200.level1_save.q1.total", "json:rows/1/queues/0/total_s", 34.022, "{:.1f} s",
      "Level-1 + Accel Save Video, Queue 1 (the first compiling server)"))
rows(S_E2E_VAE_I2V, "h200/e2e_lightx2v_033/i2v_whole_card_output_vae/e2e_wan22_i2v_lightx2v.json",
     ("e2ev_i2v.h200.stock.q2.total", "json:rows/0/queues/1/total_s", 20.061, "{:.1f} s", "stock, Queue 2"),
     ("e2ev_i2v.h200.level1_vae_save.q2.total", "json:rows/1/queues/1/total_s", 10.73, "{:.1f} s",
      "the shipped I2V workflow, Queue 2"),
     ("e2ev_i2v.h200.stock.q1.total", "json:rows/0/queues/0/total_s", 36.509, "{:.1f} s", "stock, Queue 1"),
     ("e2ev_i2v.h200.level1_vae_save.q1.total", "json:rows/1/queues/0/total_s", 43.808, "{:.1f} s",
      "the shipped I2V workflow, Queue 1 (compiles)"))
S_E2E_VAE_16 = Setup("H200", "0.33.0", 16, _E2E_VAE.format(
    wf="T2V", card="as a 16 GB card (--card 16 --occupy: another process holds the rest of the GPU before the servers "
                    "start), ", q=3,
    cmd="--card 16 --occupy --variants stock,level1+vae+save,level1+vae+save+prefetch --queues 3 --compile-cache "
        "shared"))
rows(S_E2E_VAE_16, "h200/e2e_lightx2v_033/card16_output_vae/e2e_wan22_t2v_lightx2v_card16.json",
     ("e2ev.h200.16.stock.later.total", "json:rows/0/later_median/total_s", 20.587, "{:.1f} s",
      "stock, whole Queue, 16 GB card"),
     ("e2ev.h200.16.stock.rss", "json:rows/0/server_peak_rss_gib", 38.91, "{:.1f} GiB",
      "stock, the server's peak host RSS"),
     ("e2ev.h200.16.prefetch.rss", "json:rows/2/server_peak_rss_gib", 39.27, "{:.1f} GiB",
      "with prefetch_weights, the server's peak host RSS"))
about(S_E2E_VAE_16,  # the pack's rows (prefetch_weights' tooltip quotes them)
      ("e2ev.h200.16.level1_vae_save.later.total", "Level-1 + Accel VAE + Accel Save Video, whole Queue, 16 GB card"),
      ("e2ev.h200.16.prefetch.later.total", "the same with prefetch_weights on (the A14B workflows as shipped), whole "
                                            "Queue, 16 GB card"))

# The A14B workflows as shipped since (Level-1 prefetch_weights on) on the other simulated cards, the opt-in row and
# the I2V workflow on 16 GB: a later H200 machine to itself, 2026-11-29
for _gb in (24, 12, 8):
    rows(Setup("H200", "0.33.0", _gb, _E2E_VAE.format(
        wf="T2V", card=f"as a {_gb} GB card (--card {_gb} --occupy: another process holds the rest of the GPU before "
                       "the servers start), Level-1 prefetch_weights on as shipped, ", q=3,
        cmd=f"--card {_gb} --occupy --variants stock,level1+vae+save+prefetch --queues 3 --compile-cache shared")),
         f"h200/e2e_lightx2v_033/card{_gb}_output_vae/e2e_wan22_t2v_lightx2v_card{_gb}.json",
         (f"e2ev.h200.{_gb}.stock.later.total", "json:rows/0/later_median/total_s",
          {24: 21.066, 12: 21.598, 8: 20.695}[_gb], "{:.1f} s", f"stock, whole Queue, {_gb} GB card"),
         (f"e2ev.h200.{_gb}.prefetch.later.total", "json:rows/1/later_median/total_s",
          {24: 11.149, 12: 13.153, 8: 12.445}[_gb], "{:.1f} s",
          f"the shipped workflow (prefetch_weights on), whole Queue, {_gb} GB card"),
         (f"e2ev.h200.{_gb}.prefetch.rss", "json:rows/1/server_peak_rss_gib", {24: 39.02, 12: 39.11, 8: 39.14}[_gb],
          "{:.1f} GiB", "the shipped workflow, the server's peak host RSS"))
rows(Setup("H200", "0.33.0", 141, _E2E_VAE.format(
        wf="T2V", card="Level-1 prefetch_weights on as shipped, ", q=3,
        cmd="--variants stock,level1+vae+save+prefetch,level1_fast+vae+save+prefetch --queues 3 --compile-cache "
            "shared")),
     "h200/e2e_lightx2v_033/whole_card_optin/e2e_wan22_t2v_lightx2v.json",
     ("e2eo.h200.stock.later.total", "json:rows/0/later_median/total_s", 19.614, "{:.1f} s", "stock, whole Queue"),
     ("e2eo.h200.shipped.later.total", "json:rows/1/later_median/total_s", 10.555, "{:.1f} s",
      "the shipped workflow, whole Queue"),
     ("e2eo.h200.fast.later.total", "json:rows/2/later_median/total_s", 10.138, "{:.1f} s",
      "the same with Level-1 quality fast (FP8 attention, not exact), whole Queue"))
rows(Setup("H200", "0.33.0", 16, _E2E_VAE.format(
        wf="I2V", card="as a 16 GB card (--card 16 --occupy), Level-1 prefetch_weights on as shipped, ", q=3,
        cmd="--workflow wan22_i2v_lightx2v --card 16 --occupy --variants stock,level1+vae+save+prefetch --queues 3 "
            "--compile-cache shared")),
     "h200/e2e_lightx2v_033/i2v_card16_output_vae/e2e_wan22_i2v_lightx2v_card16.json",
     ("e2ev_i2v.h200.16.stock.later.total", "json:rows/0/later_median/total_s", 21.057, "{:.1f} s",
      "stock, whole Queue, 16 GB card"),
     ("e2ev_i2v.h200.16.prefetch.later.total", "json:rows/1/later_median/total_s", 13.183, "{:.1f} s",
      "the shipped I2V workflow, whole Queue, 16 GB card"))

# The peers on a 16 GB card and the sparse opt-in in the whole Queue (a later H200 machine to itself, 2026-11-29)
S_E2E_PEERS_16 = Setup("H200", "0.33.0", 16, _E2E_VAE.format(
    wf="T2V", card="as a 16 GB card (--card 16 --occupy), Level-1 prefetch_weights on as shipped; the peers KJNodes "
                   "Sage -> TorchCompileModelAdvanced and comfy-kitchen INT8 attention (ModelAttentionBackend) with "
                   "core's decode and save, ", q=3,
    cmd="--card 16 --occupy --variants stock,level1+vae+save+prefetch,kj_sage_compile,core_ck_int8 --queues 3 "
        "--compile-cache shared"))
rows(S_E2E_PEERS_16, "h200/e2e_lightx2v_033/card16_peers/e2e_wan22_t2v_lightx2v_card16.json",
     ("e2ep.h200.16.stock.later.total", "json:rows/0/later_median/total_s", 19.987, "{:.1f} s",
      "stock, whole Queue, 16 GB card"),
     ("e2ep.h200.16.shipped.later.total", "json:rows/1/later_median/total_s", 11.834, "{:.1f} s",
      "the shipped workflow, whole Queue, 16 GB card"),
     ("e2ep.h200.16.kj.later.total", "json:rows/2/later_median/total_s", 18.62, "{:.1f} s",
      "KJNodes Sage -> TorchCompileModelAdvanced, whole Queue, 16 GB card"),
     ("e2ep.h200.16.ck_int8.later.total", "json:rows/3/later_median/total_s", 17.737, "{:.1f} s",
      "comfy-kitchen INT8 attention, whole Queue, 16 GB card"))
S_E2E_SPARSE = Setup("H200", "0.33.0", 141, _E2E_VAE.format(
    wf="T2V", card="Level-1 prefetch_weights on as shipped, flash-attn-4 4.0.0b36 carried, ", q=3,
    cmd="--variants stock,level1_sparse+vae+save+prefetch --queues 3 --compile-cache shared"))
rows(S_E2E_SPARSE, "h200/e2e_lightx2v_033/whole_card_sparse/e2e_wan22_t2v_lightx2v.json",
     ("e2es.h200.stock.later.total", "json:rows/0/later_median/total_s", 19.966, "{:.1f} s", "stock, whole Queue"),
     ("e2es.h200.sparse.later.total", "json:rows/1/later_median/total_s", 8.486, "{:.1f} s",
      "the shipped workflow with Level-1 quality sparse (radial sparse attention, FlashAttention-4 block-sparse; not "
      "exact), whole Queue"),
     ("e2es.h200.stock.q1.total", "json:rows/0/queues/0/total_s", 26.245, "{:.1f} s", "stock, Queue 1"),
     ("e2es.h200.sparse.q1.total", "json:rows/1/queues/0/total_s", 44.654, "{:.1f} s",
      "the same with quality sparse, Queue 1 (it compiled)"))

S_WF_H200_12_PROFILE = Setup("H200", "0.33.0", 12,
    "H200 141GB as a 12 GB card: another process holds the rest of the GPU before ComfyUI starts; Wan 2.2 A14B T2V "
    "users' workflow: two experts loaded by ComfyUI's loader from a random file in ComfyUI's scaled-fp8 layout, a "
    "rank-32 LightX2V-layout LoRA on each, shift 5, 480p 81 frames, 4 steps CFG 1 split 2+2, ComfyUI 0.33.0 as main.py "
    "starts it (DynamicVRAM), sampling of both experts, each chain on its own after its first run, 1 timed run, then "
    "one run under torch.profiler split by model call (bench_matrix.py --workflow lightx2v --sequential --card 12 "
    "--occupy --chains stock,level1_prefetch --rounds 1 --profile)")
rows(S_WF_H200_12_PROFILE, "h200/wf_lightx2v_033/card12_occupied_profile/matrix.json",
     ("wf12p.h200.stock.time", "json:chains/stock/times_s/0", 15.24, "{:.1f} s", "stock sampling"),
     ("wf12p.h200.prefetch.time", "json:chains/level1_prefetch/times_s/0", 10.853, "{:.1f} s",
      "Level-1 with prefetch_weights sampling"),
     ("wf12p.h200.prefetch.call1.idle", "json:chains/level1_prefetch/profile/calls/0/idle_ms", 721.7, "{:.0f} ms",
      "Level-1 with prefetch_weights, profiled run: GPU idle in the high-noise expert's first model call"),
     ("wf12p.h200.prefetch.call3.idle", "json:chains/level1_prefetch/profile/calls/2/idle_ms", 1258.7, "{:.0f} ms",
      "the same in the low-noise expert's first model call"),
     ("wf12p.h200.prefetch.call2.idle", "json:chains/level1_prefetch/profile/calls/1/idle_ms", 31.5, "{:.0f} ms",
      "the same in the high-noise expert's second model call"))

# The peers on an 8 GB card; the 12 GB card's allocator (2026-11-30, two H200 machines in succession, each to itself)
S_E2E_PEERS_8 = Setup("H200", "0.33.0", 8, _E2E_VAE.format(
    wf="T2V", card="as an 8 GB card (--card 8 --occupy), Level-1 prefetch_weights on as shipped; the peer "
                   "comfy-kitchen INT8 attention (ModelAttentionBackend) with core's decode and save, ", q=3,
    cmd="--card 8 --occupy --variants stock,level1+vae+save+prefetch,core_ck_int8 --queues 3 --compile-cache shared"))
rows(S_E2E_PEERS_8, "h200/e2e_lightx2v_033/card8_peers/e2e_wan22_t2v_lightx2v_card8.json",
     ("e2ep.h200.8.stock.later.total", "json:rows/0/later_median/total_s", 21.145, "{:.1f} s",
      "stock, whole Queue, 8 GB card"),
     ("e2ep.h200.8.shipped.later.total", "json:rows/1/later_median/total_s", 11.977, "{:.1f} s",
      "the shipped workflow, whole Queue, 8 GB card"),
     ("e2ep.h200.8.ck_int8.later.total", "json:rows/2/later_median/total_s", 18.992, "{:.1f} s",
      "comfy-kitchen INT8 attention, whole Queue, 8 GB card"))
S_E2E_KJ_8 = Setup("H200", "0.33.0", 8, _E2E_VAE.format(
    wf="T2V", card="as an 8 GB card (--card 8 --occupy), the peer KJNodes Sage -> TorchCompileModelAdvanced with "
                   "core's decode and save (no stock in that call; the INT8 variant cut by the step's limit), ", q=2,
    cmd="--card 8 --occupy --variants kj_sage_compile,core_ck_int8 --queues 2 --compile-cache shared; one Queue "
        "after the first, so Queue 2 itself"))
rows(S_E2E_KJ_8, "h200/e2e_lightx2v_033/card8_peers_kj/e2e_wan22_t2v_lightx2v_card8.json",
     ("e2ep.h200.8.kj.q2.total", "json:rows/0/queues/1/total_s", 18.373, "{:.1f} s",
      "KJNodes Sage -> TorchCompileModelAdvanced, whole Queue 2, 8 GB card"))

_WF12A = ("H200 141GB as a 12 GB card: another process holds the rest of the GPU before ComfyUI starts; Wan 2.2 A14B "
          "T2V users' workflow: two experts loaded by ComfyUI's loader from a random file in ComfyUI's scaled-fp8 "
          "layout, a rank-32 LightX2V-layout LoRA on each, shift 5, 480p 81 frames, 4 steps CFG 1 split 2+2, ComfyUI "
          "0.33.0 as main.py starts it (DynamicVRAM){flags}, sampling of both experts, each chain on its own after its "
          "first run, 1 timed run (bench_matrix.py --workflow lightx2v --sequential --card 12 --occupy --chains "
          "stock,level1_prefetch --rounds 1{cmd})")
S_WF_H200_12_ALLOC = Setup("H200", "0.33.0", 12, _WF12A.format(flags=" with its default allocator (cudaMallocAsync)",
                                                              cmd=""))
S_WF_H200_12_NOCM = Setup("H200", "0.33.0", 12, _WF12A.format(
    flags=" started with --disable-cuda-malloc (PyTorch's caching allocator)",
    cmd=" --comfy-args=--disable-cuda-malloc"))
rows(S_WF_H200_12_ALLOC, "h200/wf_lightx2v_033/card12_allocator/default/matrix.json",
     ("wf12a.h200.default.stock.time", "json:chains/stock/times_s/0", 15.056, "{:.1f} s", "stock sampling"),
     ("wf12a.h200.default.prefetch.time", "json:chains/level1_prefetch/times_s/0", 10.832, "{:.1f} s",
      "Level-1 with prefetch_weights sampling"))
rows(S_WF_H200_12_NOCM, "h200/wf_lightx2v_033/card12_allocator/no_cuda_malloc/matrix.json",
     ("wf12a.h200.nocm.stock.time", "json:chains/stock/times_s/0", 16.558, "{:.1f} s",
      "stock sampling, ComfyUI started with --disable-cuda-malloc"),
     ("wf12a.h200.nocm.prefetch.time", "json:chains/level1_prefetch/times_s/0", 10.328, "{:.1f} s",
      "Level-1 with prefetch_weights sampling, ComfyUI started with --disable-cuda-malloc"))
S_E2E_12_STOCK = Setup("H200", "0.33.0", 12, _E2E_VAE.format(
    wf="T2V", card="as a 12 GB card (--card 12 --occupy), ComfyUI's default flags, ", q=2,
    cmd="--card 12 --occupy --variants stock --queues 2 --compile-cache shared; one Queue after the first, so Queue 2 "
        "itself"))
S_E2E_12_NOCM = Setup("H200", "0.33.0", 12, _E2E_VAE.format(
    wf="T2V", card="as a 12 GB card (--card 12 --occupy), the server started with --disable-cuda-malloc, Level-1 "
                   "prefetch_weights on as shipped, ", q=2,
    cmd="--card 12 --occupy --variants level1+vae+save+prefetch --queues 2 --compile-cache shared "
        "--comfy-args=--disable-cuda-malloc; one Queue after the first, so Queue 2 itself"))
rows(S_E2E_12_STOCK, "h200/e2e_lightx2v_033/card12_no_cuda_malloc/stock/e2e_wan22_t2v_lightx2v_card12.json",
     ("e2en.h200.12.stock.q2.total", "json:rows/0/queues/1/total_s", 21.425, "{:.1f} s",
      "stock, whole Queue 2, 12 GB card, default flags"))
rows(S_E2E_12_NOCM, "h200/e2e_lightx2v_033/card12_no_cuda_malloc/shipped/e2e_wan22_t2v_lightx2v_card12.json",
     ("e2en.h200.12.shipped.q2.total", "json:rows/0/queues/1/total_s", 12.638, "{:.1f} s",
      "the shipped workflow, whole Queue 2, 12 GB card, the server started with --disable-cuda-malloc"))

S_VAE_H200_OUTPUT = Setup("H200", "0.33.0", 141,
    "H200 on a machine that ran nothing else, Wan 2.1 VAE random weights bf16, 81 frames 832x480, stock, the decode's "
    "output path alone (accel/vae/output.py: every Accel VAE option off) and Accel VAE's Hopper choice (channels_last "
    "+ fused_norm, with the output path) in one process on the same latents, 1 warm-up and 3 decodes each, then 3 "
    "interleaved rounds, the median over all decodes, then one profiled decode each (bench_vae.py --vaes wan2.1 "
    "--variants stock,output,cl+fn --rounds 3 --profile --no-fp32-reference)")
rows(S_VAE_H200_OUTPUT, "h200/vae_033_output/vae.json",
     ("vae.h200.output.stock.time", "json:rows/0/time_s", 1.7194, "{:.2f} s", "stock decode"),
     ("vae.h200.output.output.time", "json:rows/1/time_s", 1.5193, "{:.2f} s", "the output path alone"),
     ("vae.h200.output.output.speedup", "json:rows/1/speedup", 1.132, "{:.2f}x", "the output path alone vs stock"),
     ("vae.h200.output.output.maxdiff", "json:rows/1/max_abs_diff", 0.0, "{:g}",
      "the output path alone: max |diff| to stock's decode (bit-identical)"),
     ("vae.h200.output.cl_fn.speedup", "json:rows/2/speedup", 1.492, "{:.2f}x",
      "Accel VAE's Hopper choice with the output path vs stock"))

S_WF_H200_8_PROFILE = Setup("H200", "0.33.0", 8,
    "H200 141GB as an 8 GB card: another process holds the rest of the GPU before ComfyUI starts, so every allocator "
    "sees 8 GiB; Wan 2.2 A14B T2V users' workflow: two experts loaded by ComfyUI's loader from a random file in "
    "ComfyUI's scaled-fp8 layout, a rank-32 LightX2V-layout LoRA on each, shift 5, 480p 81 frames, 4 steps CFG 1 split "
    "2+2, ComfyUI 0.33.0 as main.py starts it (DynamicVRAM), sampling of both experts, each chain on its own after its "
    "first run, 2 timed runs (the later one quoted), then one run under torch.profiler (bench_matrix.py --workflow "
    "lightx2v --sequential --card 8 --occupy --rounds 2 --profile)")
rows(S_WF_H200_8_PROFILE, "h200/wf_lightx2v_033/card8_occupied_profile/matrix.json",
     ("wf8p.h200.stock.time", "json:chains/stock/times_s/1", 15.312, "{:.1f} s", "stock sampling"),
     ("wf8p.h200.level1.time", "json:chains/level1/times_s/1", 9.654, "{:.1f} s", "Level-1 sampling"),
     ("wf8p.h200.level1.speedup", "json:chains/level1/speedup", 1.586, "{:.2f}x", "Level-1 vs stock"),
     ("wf8p.h200.level1.copy", "json:chains/level1/profile/copy_ms", 1099.8, "{:.0f} ms",
      "Level-1, profiled run: weight copies to the GPU"),
     ("wf8p.h200.level1.copy_alone", "json:chains/level1/profile/copy_alone_ms", 254.5, "{:.0f} ms",
      "Level-1, profiled run: copies with no compute beside them"),
     ("wf8p.h200.level1.busy", "json:chains/level1/profile/gpu_busy", 0.915, "{:.3f}",
      "Level-1, profiled run: share of the run the GPU was busy"),
     ("wf8p.h200.stock.copy_alone", "json:chains/stock/profile/copy_alone_ms", 223.7, "{:.0f} ms",
      "stock, profiled run: copies with no compute beside them"))

S_FAMILY_H200_H3_FA4 = Setup("H200", "0.33.0", 141,
    _H3_TURBO + ", whole card, flash-attn-4 4.0.0b36 carried (quality sparse's kernel: FlashAttention-4's "
    "block-sparse one), stock, Level-1 and Level-1 quality sparse: first runs, then 2 timed rounds in alternating "
    "order (--chains stock,shipped,level1_h3_sparse --rounds 2)")
rows(S_FAMILY_H200_H3_FA4, "h200/family_033_minimax_h3_turbo/sparse_fa4_2rounds/matrix.json",
     ("family.h200.minimax_h3_turbo.sparse_fa4.stock.time", "json:chains/stock/times_s/0", 30.47, "{:.1f} s",
      "stock"),
     ("family.h200.minimax_h3_turbo.sparse_fa4.time", "json:chains/level1_h3_sparse/times_s/0", 12.192, "{:.1f} s",
      "Level-1 quality sparse (FlashAttention-4)"),
     ("family.h200.minimax_h3_turbo.sparse_fa4.cosine", "json:chains/level1_h3_sparse/cosine", 0.995661, "{:.4f}",
      "Level-1 quality sparse (FlashAttention-4), final latent vs stock's first run"),
     ("family.h200.minimax_h3_turbo.sparse_fa4.shipped.speedup", "json:chains/shipped/speedup", 1.647, "{:.2f}x",
      "Level-1 (exact) in the same run"),
     ("family.h200.minimax_h3_turbo.sparse_fa4.speedup3", "json:chains/level1_h3_sparse/speedup", 2.499, "{:.3f}x",
      "Level-1 quality sparse (FlashAttention-4) vs stock, three decimals (issue #54's line is 2.5x)"))
about(S_FAMILY_H200_H3_FA4,
      ("family.h200.minimax_h3_turbo.sparse_fa4.speedup",
       "Accel MiniMax-H3 Level-1 quality sparse (radial, FlashAttention-4's kernel) vs stock"))
S_FAMILY_H200_H3_24_PROFILE = Setup("H200", "0.33.0", 24,
    _H3_TURBO + ", as a 24 GB card (--card 24 --occupy: another process holds the rest of the GPU before ComfyUI "
    "starts), each chain on its own after its first run, 1 timed run, then one run under torch.profiler "
    "(--sequential --profile --chains stock,shipped)")
rows(S_FAMILY_H200_H3_24_PROFILE, "h200/family_033_minimax_h3_turbo/card24_profile/matrix.json",
     ("family.h200.24p.minimax_h3_turbo.shipped.speedup", "json:chains/shipped/speedup", 1.418, "{:.2f}x",
      "Level-1 vs stock"),
     ("family.h200.24p.minimax_h3_turbo.stock.copy", "json:chains/stock/profile/copy_ms", 1.6922, "{:.1f} s",
      "stock, profiled run: weight copies to the GPU", 0.001),
     ("family.h200.24p.minimax_h3_turbo.stock.copy_alone", "json:chains/stock/profile/copy_alone_ms", 0.2048,
      "{:.1f} s", "stock, profiled run: copies with no compute beside them", 0.001),
     ("family.h200.24p.minimax_h3_turbo.shipped.copy", "json:chains/shipped/profile/copy_ms", 4.6958, "{:.1f} s",
      "Level-1, profiled run: weight copies to the GPU", 0.001),
     ("family.h200.24p.minimax_h3_turbo.shipped.copy_alone", "json:chains/shipped/profile/copy_alone_ms", 4.695,
      "{:.1f} s", "Level-1, profiled run: copies with no compute beside them", 0.001),
     ("family.h200.24p.minimax_h3_turbo.shipped.compute", "json:chains/shipped/profile/compute_busy_ms", 16.7643,
      "{:.1f} s", "Level-1, profiled run: compute busy", 0.001))
S_FAMILY_H200_H3_24_FIX = Setup("H200", "0.33.0", 24,
    _H3_TURBO + ", as a 24 GB card (--card 24 --occupy: another process holds the rest of the GPU before ComfyUI "
    "starts), the version that uses the layers ComfyUI's block queue fetched (accel/compile/stream.py), each chain on "
    "its own after its first run, 1 timed run, then one run under torch.profiler (--sequential --profile --chains "
    "stock,shipped)")
rows(S_FAMILY_H200_H3_24_FIX, "h200/family_033_minimax_h3_turbo/card24_fix/matrix.json",
     ("family.h200.24f.minimax_h3_turbo.stock.time", "json:chains/stock/times_s/0", 30.8, "{:.1f} s", "stock"),
     ("family.h200.24f.minimax_h3_turbo.shipped.time", "json:chains/shipped/times_s/0", 18.566, "{:.1f} s",
      "Level-1"),
     ("family.h200.24f.minimax_h3_turbo.shipped.speedup", "json:chains/shipped/speedup", 1.659, "{:.2f}x",
      "Level-1 vs stock"),
     ("family.h200.24f.minimax_h3_turbo.shipped.copy", "json:chains/shipped/profile/copy_ms", 1.5672, "{:.1f} s",
      "Level-1, profiled run: weight copies to the GPU", 0.001),
     ("family.h200.24f.minimax_h3_turbo.shipped.copy_alone", "json:chains/shipped/profile/copy_alone_ms", 0.1537,
      "{:.2f} s", "Level-1, profiled run: copies with no compute beside them", 0.001),
     ("family.h200.24f.minimax_h3_turbo.stock.copy_alone", "json:chains/stock/profile/copy_alone_ms", 0.1953,
      "{:.2f} s", "stock, profiled run: copies with no compute beside them", 0.001))


def _s_card_shipped(card, variants):
    article = "an" if card == 8 else "a"
    return Setup("H200", "0.33.0", card, _E2E_SHIPPED.format(
        wf="T2V", q=3, card=f"as {article} {card} GB card (--card {card} --occupy: another process holds the rest of "
                            "the GPU before the servers start), ",
        cmd=f"--card {card} --occupy --variants {variants} --queues 3 --compile-cache shared"))


for _card, _vals in ((8, (21.395, None, 13.567)), (12, (21.391, None, 14.07)), (16, (20.017, 13.412, 12.776)),
                     (24, (20.297, None, 12.118))):
    _variants = "stock,level1+save,level1+save+prefetch" if _vals[1] else "stock,level1+save+prefetch"
    _file = f"h200/e2e_lightx2v_033/card{_card}_occupied_shipped/e2e_wan22_t2v_lightx2v_card{_card}.json"
    _entries = [(f"e2ec.h200.{_card}.stock.later.total", "json:rows/0/later_median/total_s", _vals[0], "{:.1f} s",
                 f"stock, {_card} GB card"),
                (f"e2ec.h200.{_card}.prefetch.later.total", f"json:rows/{2 if _vals[1] else 1}/later_median/total_s",
                 _vals[2], "{:.1f} s", f"the shipped workflow with prefetch_weights, {_card} GB card")]
    if _vals[1]:
        _entries.append((f"e2ec.h200.{_card}.level1_save.later.total", "json:rows/1/later_median/total_s", _vals[1],
                         "{:.1f} s", f"the shipped workflow, {_card} GB card"))
    rows(_s_card_shipped(_card, _variants), _file, *_entries)
S_HOSTLINK_H200 = Setup("H200", "0.33.0", 141,
    "the single-GPU H200 machine's host link, torch copies of 32 MiB to 1 GiB from pinned and pageable host memory "
    "(bench/gpu_check.py)")
rows(S_HOSTLINK_H200, "h200/gpu_check_033/gpu_check.json",
     ("link.h200.h2d_pinned_1g", "json:host_link/h2d_pinned_1024MiB_GBps", 55.14, "{:.0f} GB/s",
      "host to device, pinned, 1 GiB"),
     ("link.h200.h2d_pageable_1g", "json:host_link/h2d_pageable_1024MiB_GBps", 16.44, "{:.1f} GB/s",
      "host to device, pageable, 1 GiB"))

# The newer families at fewer steps than their templates (one H200 to itself, 2026-11-29) ---------------------------
def _s_new_family(model: str, command: str, runs: str = "first runs, then 2 interleaved timed rounds") -> Setup:
    return Setup("H200", "0.33.0", 141,
                 f"one H200 to itself, {model}, random weights in the published layout loaded by ComfyUI's loader, "
                 f"ComfyUI 0.33.0 as main.py starts it (DynamicVRAM), torch 2.11.0+cu130, {runs} (bench_matrix.py "
                 f"{command}); fewer steps than the template: a per-step speed-up at its shapes")


_NEW_FAMILY_RUNS = (
    ("hunyuan_video15_2steps", "HunyuanVideo 1.5 8.3B bf16, 848x480 121 frames, 2 of the template's 20 steps, CFG 6",
     "--family hunyuan_video15 --steps 2"),
    ("ltx2_4steps", "LTX-2 19B from a scaled-fp8 file, 1280x704 121 frames with audio, 4 of the template's 20 steps, "
     "CFG 4", "--family ltxav --stored fp8_scaled --steps 4"),
    ("flux2_8steps", "Flux.2-dev 32B from a scaled-fp8 file, 1248x832, 8 of the template's 20 steps, guidance 4",
     "--family flux2 --stored fp8_scaled --steps 8"),
    ("kandinsky5_2steps", "Kandinsky 5 Video Lite 2B bf16, 768x512 121 frames, 2 of the template's 50 steps, CFG 5",
     "--family kandinsky5 --steps 2"))
_NEW_FAMILY_VALUES = {  # id stem: (stock's slower time, exact chain's cosine, exact chain's first run)
    "hunyuan_video15_2steps": (15.94, 0.999941, 25.17), "ltx2_4steps": (8.003, 0.997215, 24.89),
    "flux2_8steps": (3.378, 0.999856, 22.18), "kandinsky5_2steps": (8.548, 0.999849, 26.28)}
for _stem, _model, _cmd in _NEW_FAMILY_RUNS:
    _setup = _s_new_family(_model, _cmd + " --chains stock,shipped,core_compile --rounds 2")
    _stock, _cos, _first = _NEW_FAMILY_VALUES[_stem]
    about(_setup, (f"family.h200.{_stem}.shipped.speedup", "Accel CUDA Settings -> Attention -> Compile vs stock"))
    rows(_setup, f"h200/family_033_{_stem}/matrix.json",
         (f"family.h200.{_stem}.stock.time", "json:chains/stock/times_s/1", _stock, "{:.2f} s",
          "stock, the slower timed run"),
         (f"family.h200.{_stem}.shipped.cosine", "json:chains/shipped/cosine", _cos, "{:.5f}",
          "the exact chain, final latent vs stock"),
         (f"family.h200.{_stem}.shipped.first_run", "json:chains/shipped/first_run_s", _first, "{:.0f} s",
          "the exact chain, first run (compiles)"))
rows(_s_new_family(_NEW_FAMILY_RUNS[3][1], _NEW_FAMILY_RUNS[3][2] + " --chains stock,shipped,core_compile --rounds 2"),
     "h200/family_033_kandinsky5_2steps/matrix.json",
     ("family.h200.kandinsky5_2steps.core_compile.speedup", "json:chains/core_compile/speedup", 1.072, "{:.2f}x",
      "ComfyUI's TorchCompileModel vs stock"),
     ("family.h200.kandinsky5_2steps.core_compile.first_run", "json:chains/core_compile/first_run_s", 106.21,
      "{:.0f} s", "ComfyUI's TorchCompileModel, first run"))
for _stem, _cos in (("hunyuan_video15_2steps", 0.989685), ("kandinsky5_2steps", 0.995106)):
    _model, _cmd = {r[0]: r[1:] for r in _NEW_FAMILY_RUNS}[_stem]
    _setup = _s_new_family(_model, _cmd + " --chains stock,fp8_auto_shipped --rounds 1",
                           "first runs, then 1 timed round")
    about(_setup, (f"family.h200.{_stem}.fp8_auto.speedup", "the FP8 loader (auto) -> the exact chain vs stock"))
    rows(_setup, f"h200/family_033_{_stem}/fp8_auto/matrix.json",
         (f"family.h200.{_stem}.fp8_auto.cosine", "json:chains/fp8_auto_shipped/cosine", _cos, "{:.4f}",
          "the FP8 loader (auto) -> the exact chain, final latent vs stock"))

# 2026-11-30, a host of two H200s (nvidia-h200-x2), one benchmark per GPU, two at a time: --disable-cuda-malloc over
# three Queues on the 12 and 16 GB cards, MiniMax-H3's 20-step template, SDXL; then SDXL after the whole-model fix
_E2E_FLAGS = ("Wan 2.2 A14B T2V LightX2V shipped graph end to end (bench_e2e.py --workflow wan22_t2v_lightx2v --occupy "
              "--variants stock,stock@--disable-cuda-malloc,level1+vae+save+prefetch,"
              "level1+vae+save+prefetch@--disable-cuda-malloc --save video --queues 3 --changes none --compile-cache "
              "shared), 480p 81 frames, a server per variant, the median of Queues 2-3, one GPU of a two-H200 host "
              "while the other GPU ran another benchmark")
for _gb, _vals in ((12, (22.278, 21.81, 13.366, 12.419)), (16, (21.527, 22.794, 12.057, 11.86))):
    _setup = Setup("H200", "0.33.0", _gb, _E2E_FLAGS + f", as a {_gb} GB card (--card {_gb})", shared=True)
    _file = f"h200/e2e_lightx2v_033/card{_gb}_flags/e2e_wan22_t2v_lightx2v_card{_gb}.json"
    _ids = [f"e2eflag.h200.{_gb}.{v}.later.total" for v in ("stock", "stock_nocm", "shipped", "shipped_nocm")]
    _whats = ("stock, ComfyUI's default flags", "stock, --disable-cuda-malloc", "the shipped graph, default flags",
              "the shipped graph, --disable-cuda-malloc")
    if _gb == 12:  # the pack quotes the shipped graph's two (accel/compile/report.py allocator_hint)
        about(_setup, (_ids[2], _whats[2]), (_ids[3], _whats[3]))
        rows(_setup, _file, *[(_ids[i], f"json:rows/{i}/later_median/total_s", _vals[i], "{:.1f} s", _whats[i])
                              for i in (0, 1)])
    else:
        rows(_setup, _file, *[(_ids[i], f"json:rows/{i}/later_median/total_s", _vals[i], "{:.1f} s", _whats[i])
                              for i in range(4)])

_H3_20 = ("MiniMax-H3 33B from a scaled-fp8 file (random weights, bench_matrix.py --family minimax_h3 --stored "
          "fp8_scaled), 1344x768 124 frames with audio, 20 steps res_multistep, no CFG (ComfyUI's standard H3 "
          "template), whole card, flash-attn-4 4.0.0b36 carried, one GPU of a two-H200 host while the other GPU ran "
          "another benchmark, first runs then 1 timed round")
S_FAMILY_H200_H3_20 = Setup("H200", "0.33.0", 141, _H3_20 + " (--chains stock,shipped,level1_h3_sparse)", shared=True)
rows(S_FAMILY_H200_H3_20, "h200/family_033_minimax_h3/matrix/matrix.json",
     ("family.h200.minimax_h3.stock.time", "json:chains/stock/times_s/0", 151.213, "{:.1f} s", "stock"),
     ("family.h200.minimax_h3.shipped.first_run", "json:chains/shipped/first_run_s", 107.32, "{:.0f} s",
      "Accel MiniMax-H3 Level-1, first run (compiles)"),
     ("family.h200.minimax_h3.sparse.speedup", "json:chains/level1_h3_sparse/speedup", 2.503, "{:.3f}x",
      "Level-1 quality sparse (FlashAttention-4 block-sparse) vs stock sampling, three decimals"),
     ("family.h200.minimax_h3.sparse.cosine", "json:chains/level1_h3_sparse/cosine", 0.995908, "{:.4f}",
      "Level-1 quality sparse, final latent vs stock's first run"))
about(S_FAMILY_H200_H3_20, ("family.h200.minimax_h3.shipped.speedup", "Accel MiniMax-H3 Level-1 vs stock sampling"))
S_FAMILY_H200_H3_24 = Setup("H200", "0.33.0", 24, "MiniMax-H3 33B from a scaled-fp8 file (random weights, "
                             "bench_matrix.py --family minimax_h3 --stored fp8_scaled), 1344x768 124 frames with "
                             "audio, 20 steps res_multistep, no CFG (ComfyUI's standard H3 template), as a 24 GB card "
                             "(--card 24 --occupy: another process holds the rest of the GPU before ComfyUI starts), "
                             "first runs then 1 timed round (--chains stock,shipped --rounds 1), GPU 1 of a two-H200 "
                             "host while GPU 0 ran SDXL", shared=True)
rows(S_FAMILY_H200_H3_24, "h200/family_033_minimax_h3/card24_shared/matrix.json",
     ("family.h200.24.minimax_h3.shipped.speedup", "json:chains/shipped/speedup", 1.642, "{:.2f}x",
      "Accel MiniMax-H3 Level-1 vs stock sampling on a 24 GB card"),
     ("family.h200.24.minimax_h3.stock.time", "json:chains/stock/times_s/0", 151.736, "{:.1f} s",
      "stock on a 24 GB card"),
     ("family.h200.24.minimax_h3.shipped.time", "json:chains/shipped/times_s/0", 92.407, "{:.1f} s",
      "Accel MiniMax-H3 Level-1 on a 24 GB card"))
S_FAMILY_H200_H3_20B = Setup("H200", "0.33.0", 141, _H3_20 + " (--chains stock,level1_h3_sparse), the other GPU",
                             shared=True)
rows(S_FAMILY_H200_H3_20B, "h200/family_033_minimax_h3/sparse_again/matrix.json",
     ("family.h200.minimax_h3.again.sparse.speedup", "json:chains/level1_h3_sparse/speedup", 2.493, "{:.3f}x",
      "Level-1 quality sparse vs stock sampling, three decimals"))

_SDXL = ("SDXL 1.0 base fp16 random weights loaded by ComfyUI's loader, 1024x1024, 20 steps euler/normal, CFG 7, "
         "whole card, each chain on its own: first run then 2 timed runs (bench_matrix.py --family sdxl "
         "--sequential), the slower timed runs")
S_FAMILY_H200_SDXL = Setup("H200", "0.33.0", 141, _SDXL + ", before the whole-model fix (--chains stock,shipped,"
                           "core_compile,kj_sage_compile), GPU 0 of a two-H200 host while GPU 1 ran another "
                           "benchmark", shared=True)
rows(S_FAMILY_H200_SDXL, "h200/family_033_sdxl/matrix/matrix.json",
     ("family.h200.sdxl.before.shipped.speedup", "json:chains/shipped/speedup", 0.774, "{:.2f}x",
      "the shipped chain vs stock, the whole UNet one region streaming its weights"),
     ("family.h200.sdxl.core_compile.speedup", "json:chains/core_compile/speedup", 1.981, "{:.2f}x",
      "ComfyUI's TorchCompileModel vs stock"),
     ("family.h200.sdxl.core_compile.first_run", "json:chains/core_compile/first_run_s", 103.06, "{:.0f} s",
      "ComfyUI's TorchCompileModel, first run"),
     ("family.h200.sdxl.kj.speedup", "json:chains/kj_sage_compile/speedup", 0.402, "{:.2f}x",
      "KJNodes Sage -> TorchCompileModelAdvanced vs stock"))
S_FAMILY_H200_SDXL_FIX = Setup("H200", "0.33.0", 141, _SDXL + ", after the whole-model fix (--chains stock,shipped), "
                               "one H200 to itself")
rows(S_FAMILY_H200_SDXL_FIX, "h200/family_033_sdxl/after_fix/matrix.json",
     ("family.h200.sdxl.shipped.speedup", "json:chains/shipped/speedup", 2.181, "{:.2f}x",
      "Accel CUDA Settings -> Attention -> Compile vs stock, the whole UNet one region (what scope model compiles "
      "now), loaded resident"),
     ("family.h200.sdxl.shipped.time", "json:chains/shipped/times_s/1", 1.185, "{:.2f} s", "the shipped chain"),
     ("family.h200.sdxl.stock.time", "json:chains/stock/times_s/0", 2.584, "{:.2f} s", "stock"),
     ("family.h200.sdxl.shipped.first_run", "json:chains/shipped/first_run_s", 109.89, "{:.0f} s",
      "the shipped chain, first run (compiles the UNet)"))

# The same SDXL runs on a two-H200 host, each GPU its own plan (2026-11-30): CPU-bound compiles and host-bound
# sampling on the other GPU beside each, so every row is a shared host's
_SDXL_X2 = ("H200 (two H200s of one host), SDXL 1.0 base fp16 random weights loaded by ComfyUI's loader, 1024x1024, "
            "20 steps euler/normal, CFG 7, each chain on its own: first run then 2 timed runs, the slower "
            "(bench_matrix.py --family sdxl --sequential)")
S_SDXL_PEERS = Setup("H200", "0.33.0", 141, _SDXL_X2 + ", the whole UNet one region (--chains stock,shipped,"
                     "core_compile,kj_sage_compile --rounds 2), GPU 0 while GPU 1 ran MiniMax-H3 and Qwen-Image",
                     shared=True)
rows(S_SDXL_PEERS, "h200/family_033_sdxl/peers_shared/matrix.json",
     ("sdxlpeers.h200.shipped.time", "json:chains/shipped/times_s/0", 1.861, "{:.2f} s",
      "the shipped chain, the whole UNet one region, slower timed run"),
     ("sdxlpeers.h200.core_compile.time", "json:chains/core_compile/times_s/0", 1.12, "{:.2f} s",
      "ComfyUI TorchCompileModel, slower timed run"),
     ("sdxlpeers.h200.shipped.first_run", "json:chains/shipped/first_run_s", 124.58, "{:.0f} s",
      "the shipped chain, first run (inductor cache empty)"))
S_SDXL_24 = Setup("H200", "0.33.0", 24, _SDXL_X2 + ", the whole UNet one region, as a 24 GB card (--card 24 --occupy), "
                  "the inductor cache warm from the run before (--chains stock,shipped,core_compile --rounds 2), GPU 0 "
                  "while GPU 1 ran Qwen-Image", shared=True)
rows(S_SDXL_24, "h200/family_033_sdxl/card24_shared/matrix.json",
     ("sdxl24.h200.shipped.speedup", "json:chains/shipped/speedup", 2.036, "{:.2f}x", "the shipped chain vs stock"),
     ("sdxl24.h200.core_compile.speedup", "json:chains/core_compile/speedup", 1.708, "{:.2f}x",
      "ComfyUI TorchCompileModel vs stock"),
     ("sdxl24.h200.shipped.first_run", "json:chains/shipped/first_run_s", 36.88, "{:.0f} s",
      "the shipped chain, first run with the inductor cache warm"))
S_SDXL_LAYERS = Setup("H200", "0.33.0", 141, _SDXL_X2 + ", its attention and residual layers compiled, then 832x1216 "
                      "and back twice (--chains stock,shipped,shipped_resident --rounds 2 --resolution-change "
                      "832x1216), GPU 0 while GPU 1 ran the next row's plan", shared=True)
rows(S_SDXL_LAYERS, "h200/family_033_sdxl/layers_shared/matrix.json",
     ("family.h200.sdxl.layers_resident.speedup", "json:chains/shipped_resident/speedup", 1.827, "{:.2f}x",
      "the layers loaded resident (resident_weights on; SDXL's layers now load resident where they fit without it) "
      "vs stock"),
     ("sdxllayers.h200.streamed.speedup", "json:chains/shipped/speedup", 0.795, "{:.2f}x",
      "the layers streaming their weights (DynamicVRAM kept) vs stock"),
     ("sdxllayers.h200.resident.time", "json:chains/shipped_resident/times_s/1", 1.976, "{:.2f} s",
      "the layers loaded resident, slower timed run"),
     ("sdxllayers.h200.streamed.first_run", "json:chains/shipped/first_run_s", 137.61, "{:.0f} s",
      "the layers, first run (inductor cache empty)"),
     ("sdxllayers.h200.resize.first", "json:chains/shipped/resolution_change/pairs/0/times_s/0", 8.839, "{:.1f} s",
      "the layers, first run at 832x1216 (recompiles once)"),
     ("sdxllayers.h200.resident.resize.first", "json:chains/shipped_resident/resolution_change/pairs/0/times_s/0",
      1.85, "{:.2f} s", "the layers loaded resident, first run at 832x1216"))
S_SDXL_SCOPES = Setup("H200", "0.33.0", 141, _SDXL_X2 + ", the layers and the whole UNet (scope model) beside "
                      "ComfyUI's TorchCompileModel (--chains stock,shipped,shipped_model_scope,core_compile "
                      "--rounds 2), GPU 1 while GPU 0 ran the row before's plan", shared=True)
rows(S_SDXL_SCOPES, "h200/family_033_sdxl/scopes_shared/matrix.json",
     ("sdxlscopes.h200.model_scope.time", "json:chains/shipped_model_scope/times_s/1", 1.763, "{:.2f} s",
      "scope model (the whole UNet, loaded resident), slower timed run"),
     ("sdxlscopes.h200.model_scope.speedup", "json:chains/shipped_model_scope/speedup", 1.56, "{:.2f}x",
      "scope model vs stock"),
     ("sdxlscopes.h200.core_compile.time", "json:chains/core_compile/times_s/0", 0.893, "{:.2f} s",
      "ComfyUI TorchCompileModel, slower timed run"),
     ("sdxlscopes.h200.core_compile.speedup", "json:chains/core_compile/speedup", 3.081, "{:.2f}x",
      "ComfyUI TorchCompileModel vs stock"),
     ("sdxlscopes.h200.model_scope.first_run", "json:chains/shipped_model_scope/first_run_s", 109.47, "{:.0f} s",
      "scope model, first run"),
     ("sdxlscopes.h200.core_compile.first_run", "json:chains/core_compile/first_run_s", 82.9, "{:.0f} s",
      "ComfyUI TorchCompileModel, first run"),
     ("sdxlscopes.h200.model_scope.host_ms", "json:chains/shipped_model_scope/compile/0/call_host_ms", 85.89,
      "{:.0f} ms", "scope model: host time of the last model call"))

S_SDXL_ATTN = Setup("H200", "0.33.0", 141, _SDXL_X2 + ", the whole UNet one region (scope model) with the Hopper "
                    "default FlashAttention-3 and with PyTorch's SDPA (cuDNN first), beside ComfyUI's "
                    "TorchCompileModel, then one profiled run each (--chains shipped_model_scope,"
                    "shipped_model_scope_sdpa,core_compile --rounds 2 --profile --host-profile), GPU 0 while GPU 1 "
                    "ran MiniMax-H3 on a 24 GB card", shared=True)
about(S_SDXL_ATTN, ("sdxlattn.h200.fa3.time", "scope model with FlashAttention-3 (fp16 inputs cast to bf16), slower "
                                              "timed run"),
      ("sdxlattn.h200.sdpa.time", "scope model with Accel Attention sdpa (cuDNN first), slower timed run"))
rows(S_SDXL_ATTN, "h200/family_033_sdxl/attention_shared/matrix.json",
     ("sdxlattn.h200.core_compile.time", "json:chains/core_compile/times_s/1", 2.008, "{:.2f} s",
      "ComfyUI TorchCompileModel, slower timed run"),
     ("sdxlattn.h200.fa3.fast", "json:chains/shipped_model_scope/times_s/0", 1.837, "{:.2f} s",
      "scope model with FlashAttention-3, faster timed run"),
     ("sdxlattn.h200.sdpa.fast", "json:chains/shipped_model_scope_sdpa/times_s/0", 1.592, "{:.2f} s",
      "scope model with sdpa, faster timed run"),
     ("sdxlattn.h200.core_compile.fast", "json:chains/core_compile/times_s/0", 1.502, "{:.2f} s",
      "ComfyUI TorchCompileModel, faster timed run"),
     ("sdxlattn.h200.stock.time", "json:chains/stock/times_s/1", 4.076, "{:.2f} s", "stock, slower timed run"),
     ("sdxlattn.h200.sdpa.first_run", "json:chains/shipped_model_scope_sdpa/first_run_s", 92.85, "{:.0f} s",
      "scope model with sdpa, first run (the convolutions' kernels cached by the chain before)"))

S_SDXL_SDPA = Setup("H200", "0.33.0", 141, "SDXL 1.0 base fp16 random weights loaded by ComfyUI's loader, 1024x1024, "
                    "20 steps euler/normal, CFG 7, whole card, each chain on its own: first run then 3 timed runs, "
                    "the median (bench_matrix.py --family sdxl --sequential --chains shipped,shipped_model_scope,"
                    "core_compile --rounds 3), Accel Attention auto picking sdpa for SDXL, one H200 to itself")
about(S_SDXL_SDPA, ("sdxlsdpa.h200.layers.speedup", "the shipped chain (scope blocks: the layers, loaded resident) vs "
                                                    "stock"),
      ("sdxlsdpa.h200.model_scope.speedup", "the shipped chain with scope model (the whole UNet) vs stock"),
      ("sdxlsdpa.h200.layers.time", "the shipped chain (the layers), median"),
      ("sdxlsdpa.h200.model_scope.time", "scope model, median"))
rows(S_SDXL_SDPA, "h200/family_033_sdxl/sdpa_default/matrix.json",
     ("sdxlsdpa.h200.core_compile.speedup", "json:chains/core_compile/speedup", 2.842, "{:.2f}x",
      "ComfyUI TorchCompileModel vs stock"),
     ("sdxlsdpa.h200.layers.first_run", "json:chains/shipped/first_run_s", 112.16, "{:.0f} s",
      "the shipped chain (the layers), first run (inductor cache empty)"),
     ("sdxlsdpa.h200.model_scope.first_run", "json:chains/shipped_model_scope/first_run_s", 94.13, "{:.0f} s",
      "scope model, first run"),
     ("sdxlsdpa.h200.core_compile.first_run", "json:chains/core_compile/first_run_s", 89.08, "{:.0f} s",
      "ComfyUI TorchCompileModel, first run"))
rows(S_SDXL_SDPA, "h200/family_033_sdxl/sdpa_default/matrix.md",
     ("sdxlsdpa.h200.stock.time", "md:stock|time (s)", 2.714, "{:.2f} s", "stock, median"),
     ("sdxlsdpa.h200.core_compile.time", "md:core_compile|time (s)", 0.955, "{:.2f} s",
      "ComfyUI TorchCompileModel, median"))

S_SDXL_STATIC = Setup("H200", "0.33.0", 141, "SDXL 1.0 base fp16 random weights loaded by ComfyUI's loader, 20 steps "
                      "euler/normal, CFG 7, whole card, the whole UNet one region with dynamic false (the shipped SDXL "
                      "workflow's Accel Compile), first run then 2 timed runs at 1024x1024, then 832x1216 and back "
                      "twice (bench_matrix.py --family sdxl --sequential --chains stock,shipped_model_scope_static "
                      "--rounds 2 --resolution-change 832x1216), one H200 to itself, the inductor cache empty")
rows(S_SDXL_STATIC, "h200/family_033_sdxl/static_resize/matrix.json",
     ("sdxlstatic.h200.first_run", "json:chains/shipped_model_scope_static/first_run_s", 133.97, "{:.0f} s",
      "first run at 1024x1024 (compiles the UNet)"),
     ("sdxlstatic.h200.resize.first", "json:chains/shipped_model_scope_static/resolution_change/pairs/0/times_s/0",
      133.836, "{:.0f} s", "the first 832x1216 run (compiles the UNet again, static)"),
     ("sdxlstatic.h200.speedup", "json:chains/shipped_model_scope_static/speedup", 2.447, "{:.2f}x",
      "the slower timed 1024x1024 run vs stock's"))

_H3_TURBO_X2 = ("MiniMax-H3 33B in ComfyUI's scaled-fp8 layout (random weights), 1344x768 124 frames with audio, 4 "
                "steps res_multistep, no CFG (ComfyUI's 4-step H3 template without its LoRA), 1 timed run "
                "(bench_matrix.py --family minimax_h3_turbo --stored fp8_scaled --chains stock,fp8_auto_shipped "
                "--rounds 1), GPU 1 of a two-H200 host while GPU 0 ran SDXL")
S_H3_FP8 = Setup("H200", "0.33.0", 141, _H3_TURBO_X2, shared=True)
about(S_H3_FP8, ("family.h200.minimax_h3_turbo.fp8_auto.speedup",
                 "Accel Load Diffusion Model (FP8) auto -> Accel MiniMax-H3 Level-1 vs stock"),
      ("family.h200.minimax_h3_turbo.fp8_auto.cosine",
       "FP8 loader auto -> Level-1, final latent vs stock's first run"))
rows(S_H3_FP8, "h200/family_033_minimax_h3_turbo/fp8_auto_shared/matrix.json",
     ("h3fp8.h200.time", "json:chains/fp8_auto_shipped/times_s/0", 18.594, "{:.1f} s", "FP8 loader auto -> Level-1"),
     ("h3fp8.h200.stock.cosine", "json:chains/stock/cosine", 0.999275, "{:.4f}",
      "stock's timed run vs its own first run"))
S_QWEN_RES = Setup("H200", "0.33.0", 141, "Qwen-Image 20B bf16 random weights loaded by ComfyUI's loader, 1328x1328, "
                   "8 steps CFG 2.5, each chain on its own, 2 timed runs, the slower (bench_matrix.py --family "
                   "qwen_image --steps 8 --sequential --chains stock,shipped,shipped_resident --rounds 2), GPU 1 of a "
                   "two-H200 host while GPU 0 ran SDXL", shared=True)
about(S_QWEN_RES, ("family.h200.qwen_resident.shipped_resident.speedup",
                   "the exact chain with Accel Compile's resident_weights on vs stock"))
rows(S_QWEN_RES, "h200/family_033_qwen_image_8steps/resident_shared/matrix.json",
     ("qwenres.h200.shipped.speedup", "json:chains/shipped/speedup", 1.367, "{:.2f}x",
      "the exact chain, DynamicVRAM kept, vs stock"))

# A two-H200 host, 2026-11-30: Z-Image Turbo then Qwen-Image on GPU 0 while Flux.1 then MiniMax-H3 ran on GPU 1
_X2_GPU0 = "GPU 0 of a two-H200 host while GPU 1 ran Flux.1 and MiniMax-H3"
_X2_GPU1 = "GPU 1 of a two-H200 host while GPU 0 ran Z-Image Turbo and Qwen-Image"
S_ZFP8_RES = Setup("H200", "0.33.0", 141, "Z-Image Turbo 6B bf16 random weights loaded by ComfyUI's loader (the FP8 "
                   "chains by Accel Load Diffusion Model (FP8), weight_format fp8_e4m3fn per-channel scaled), "
                   "1024x1024, 9 steps res_multistep, CFG 1, each chain on its own, the median of 3 timed runs "
                   "(bench_matrix.py --family z_image --sequential --chains shipped_resident,"
                   "shipped_model_scope_resident,fp8_shipped_resident,fp8_shipped_resident_keep1,"
                   "fp8_shipped_resident_fp32acc --rounds 3), "
                   + _X2_GPU0, shared=True)
about(S_ZFP8_RES, ("zfp8res.h200.shipped_resident.speedup", "the exact chain, resident_weights on, vs stock"),
      ("zfp8res.h200.model_scope.speedup", "the same with scope model vs stock"))
rows(S_ZFP8_RES, "h200/family_033_z_image_peers/fp8_resident_shared/matrix.json",
     ("zfp8res.h200.fp8.speedup", "json:chains/fp8_shipped_resident/speedup", 1.663, "{:.2f}x",
      "FP8 loader -> the exact chain, resident_weights on, vs stock"),
     ("zfp8res.h200.fp8.cosine", "json:chains/fp8_shipped_resident/cosine", 0.998848, "{:.4f}",
      "FP8 loader -> the exact chain, resident, final latent vs stock"),
     ("zfp8res.h200.fp8_keep1.speedup", "json:chains/fp8_shipped_resident_keep1/speedup", 1.68, "{:.2f}x",
      "the same, keep_high_precision standard + first & last block, vs stock"),
     ("zfp8res.h200.fp8_keep1.cosine", "json:chains/fp8_shipped_resident_keep1/cosine", 0.998806, "{:.4f}",
      "the same, keep first & last block, final latent vs stock"),
     ("zfp8res.h200.fp8_fp32acc.speedup", "json:chains/fp8_shipped_resident_fp32acc/speedup", 1.626, "{:.2f}x",
      "the same, activation_scaling per-token fp32 accumulation, vs stock"),
     ("zfp8res.h200.fp8_fp32acc.cosine", "json:chains/fp8_shipped_resident_fp32acc/cosine", 0.998855, "{:.4f}",
      "the same, fp32 accumulation, final latent vs stock"))
S_QWEN_SCOPE = Setup("H200", "0.33.0", 141, "Qwen-Image 20B bf16 random weights loaded by ComfyUI's loader, "
                     "1328x1328, 8 steps CFG 2.5, each chain on its own, 2 timed runs, the slower (bench_matrix.py "
                     "--family qwen_image --steps 8 --sequential --chains shipped_resident,"
                     "shipped_model_scope_resident --rounds 2), " + _X2_GPU0, shared=True)
about(S_QWEN_SCOPE, ("qwenscope.h200.shipped_resident.speedup", "the exact chain, resident_weights on, vs stock"),
      ("qwenscope.h200.model_scope.speedup", "the same with scope model vs stock"))
rows(S_QWEN_SCOPE, "h200/family_033_qwen_image_8steps/model_scope_resident_shared/matrix.json",
     ("qwenscope.h200.model_scope.first_run", "json:chains/shipped_model_scope_resident/first_run_s", 138.65,
      "{:.0f} s", "the same with scope model, first run (compiles)"))
S_FLUX_WHOLE = Setup("H200", "0.33.0", 141, "Flux.1-dev 12B bf16 random weights loaded by ComfyUI's loader, 1024x1024, "
                     "20 steps, guidance 3.5, each chain on its own, the median of 3 timed runs, then one profiled run "
                     "each (bench_matrix.py --family flux --sequential --chains shipped_resident,"
                     "shipped_model_scope_resident,shipped_model_scope_static_resident --rounds 3 --profile), "
                     + _X2_GPU1, shared=True)
rows(S_FLUX_WHOLE, "h200/family_033_flux_1024_model_scope_shared/matrix.json",
     ("fluxwhole.h200.blocks.cosine", "json:chains/shipped_resident/cosine", 0.999995, "{:.6f}",
      "the exact chain (blocks) with resident_weights, final latent vs stock"),
     ("fluxwhole.h200.model_scope.cosine", "json:chains/shipped_model_scope_resident/cosine", 0.952702, "{:.4f}",
      "the exact chain with scope model and resident_weights (inductor's default roundings), final latent vs stock"),
     ("fluxwhole.h200.model_scope.speedup", "json:chains/shipped_model_scope_resident/speedup", 1.307, "{:.2f}x",
      "the exact chain with scope model and resident_weights (inductor's default roundings) vs stock"),
     ("fluxwhole.h200.blocks.speedup", "json:chains/shipped_resident/speedup", 1.328, "{:.2f}x",
      "the exact chain (blocks) with resident_weights vs stock"),
     ("fluxwhole.h200.stock.time", "json:chains/stock/times_s/1", 3.372, "{:.2f} s", "stock, the median run"),
     ("fluxwhole.h200.static.cosine", "json:chains/shipped_model_scope_static_resident/cosine", 0.9527, "{:.4f}",
      "scope model, dynamic false, final latent vs stock"),
     ("fluxwhole.h200.blocks.kernels", "json:chains/shipped_resident/profile/kernel_ms", 2327.8, "{:.0f} ms",
      "the exact chain (blocks), resident: GPU kernel time of the profiled run"),
     ("fluxwhole.h200.blocks.wall", "json:chains/shipped_resident/profile/wall_ms", 2560.4, "{:.0f} ms",
      "the exact chain (blocks), resident: wall time of the profiled run"))
rows(S_FLUX_WHOLE, "h200/family_033_flux_1024_model_scope_shared/matrix.md",  # `time (s)`: the median of 3 timed runs
     ("fluxwhole.h200.blocks.time", "md:shipped_resident|time (s)", 2.54, "{:.2f} s",
      "the exact chain (blocks) with resident_weights"),
     ("fluxwhole.h200.model_scope.time", "md:shipped_model_scope_resident|time (s)", 2.579, "{:.2f} s",
      "the exact chain with scope model and resident_weights (inductor's default roundings)"))
S_ROUNDINGS = Setup("H200", "0.33.0", 141, "Flux.1 at its true widths with 2 double and 2 single blocks, random bf16 "
                    "weights, through ComfyUI's sampler: 1024x1024, 4 steps, guidance 3.5, CFG 1 (bench/"
                    "probe_roundings.py, ComfyUI imported as a library), one H200 to itself")
rows(S_ROUNDINGS, "h200/family_033_flux_1024_model_scope_shared/roundings/probe_roundings.json",
     ("roundings.h200.blocks.cosine", "json:rows/blocks/cosine", 0.9999952105400529, "{:.6f}",
      "Accel Compile scope blocks, final latent vs stock"),
     ("roundings.h200.whole.cosine", "json:rows/whole/cosine", 0.9999963473139576, "{:.6f}",
      "Accel Compile scope model with eager's roundings kept (as the pack compiles it), final latent vs stock"),
     ("roundings.h200.whole_default.cosine", "json:rows/whole_default/cosine", 0.9840143860524403, "{:.4f}",
      "Accel Compile scope model with inductor's default roundings (before the fix), final latent vs stock"))
S_H3_FP8_20 = Setup("H200", "0.33.0", 141, "MiniMax-H3 33B from a scaled-fp8 file (random weights, bench_matrix.py "
                    "--family minimax_h3 --stored fp8_scaled), 1344x768 124 frames with audio, 20 steps res_multistep, "
                    "no CFG (ComfyUI's standard H3 template), first runs then 1 timed round (--chains "
                    "stock,fp8_auto_shipped --rounds 1), " + _X2_GPU1, shared=True)
rows(S_H3_FP8_20, "h200/family_033_minimax_h3/fp8_auto_shared/matrix.json",
     ("family.h200.minimax_h3.fp8_shipped.speedup", "json:chains/fp8_auto_shipped/speedup", 1.653, "{:.2f}x",
      "FP8 loader (auto) -> Accel MiniMax-H3 Level-1 vs stock sampling"),
     ("family.h200.minimax_h3.fp8_shipped.cosine", "json:chains/fp8_auto_shipped/cosine", 0.999439, "{:.4f}",
      "FP8 loader (auto) -> Level-1, final latent vs stock's first run"),
     ("family.h200.minimax_h3.fp8_shipped.time", "json:chains/fp8_auto_shipped/times_s/0", 90.668, "{:.1f} s",
      "FP8 loader (auto) -> Level-1"))


# A two-H200 host, 2026-11-30, two calls: Flux.1 then Z-Image Turbo on GPU 0 while Qwen-Image then SDXL ran on GPU 1
# (call 1); Qwen-Image then Z-Image Turbo on GPU 0 while SDXL then FLUX.1 Kontext ran on GPU 1 (call 2)
_R1_GPU0 = "GPU 0 of a two-H200 host while GPU 1 ran Qwen-Image and SDXL"
_R1_GPU1 = "GPU 1 of a two-H200 host while GPU 0 ran Flux.1 and Z-Image Turbo"
_R2_GPU0 = "GPU 0 of a two-H200 host while GPU 1 ran SDXL and FLUX.1 Kontext"
_R2_GPU1 = "GPU 1 of a two-H200 host while GPU 0 ran Qwen-Image and Z-Image Turbo"
S_FLUX_KEPT = Setup("H200", "0.33.0", 141, "Flux.1-dev 12B bf16 random weights loaded by ComfyUI's loader, 1024x1024, "
                    "20 steps, guidance 3.5, each chain on its own, 2 timed runs, the slower; scope model with eager's "
                    "roundings kept (bench_matrix.py --family flux --steps 20 --sequential --chains shipped_resident,"
                    "shipped_model_scope_resident,kj_sage_compile --rounds 2), " + _R1_GPU0, shared=True)
about(S_FLUX_KEPT, ("fluxkept.h200.shipped_resident.speedup", "the exact chain (blocks), resident, vs stock"),
      ("fluxkept.h200.model_scope.speedup", "the same with scope model (eager's roundings kept) vs stock"))
rows(S_FLUX_KEPT, "h200/family_033_flux_1024_model_scope_shared/roundings_kept_kj/matrix.json",
     ("fluxkept.h200.model_scope.cosine", "json:chains/shipped_model_scope_resident/cosine", 0.999996, "{:.6f}",
      "scope model (eager's roundings kept), final latent vs stock"),
     ("fluxkept.h200.model_scope.first_run", "json:chains/shipped_model_scope_resident/first_run_s", 82.97,
      "{:.0f} s", "scope model, first run (compiles)"),
     ("fluxkept.h200.blocks.first_run", "json:chains/shipped_resident/first_run_s", 32.43, "{:.0f} s",
      "the blocks, first run (compiles)"),
     ("fluxkept.h200.kj.speedup", "json:chains/kj_sage_compile/speedup", 0.697, "{:.2f}x",
      "KJNodes PathchSageAttentionKJ (auto) -> TorchCompileModelAdvanced vs stock"))
S_QWEN_KJ = Setup("H200", "0.33.0", 141, "Qwen-Image 20B bf16 random weights loaded by ComfyUI's loader, 1328x1328, "
                  "8 steps CFG 2.5, each chain on its own, 2 timed runs, the slower; scope model with inductor's "
                  "default roundings (bench_matrix.py --family qwen_image --steps 8 --sequential --chains "
                  "shipped_resident,shipped_model_scope_resident,kj_sage_compile --rounds 2), " + _R1_GPU1,
                  shared=True)
rows(S_QWEN_KJ, "h200/family_033_qwen_image_8steps/kj_shared/matrix.json",
     ("qwenkj.h200.kj.speedup", "json:chains/kj_sage_compile/speedup", 1.01, "{:.2f}x",
      "KJNodes PathchSageAttentionKJ (auto) -> TorchCompileModelAdvanced vs stock"),
     ("qwenkj.h200.kj.first_run", "json:chains/kj_sage_compile/first_run_s", 28.51, "{:.0f} s",
      "KJNodes' chain, first run"),
     ("qwenkj.h200.shipped_resident.speedup", "json:chains/shipped_resident/speedup", 1.457, "{:.2f}x",
      "the exact chain, resident_weights on, vs stock"),
     ("qwenkj.h200.model_scope.speedup", "json:chains/shipped_model_scope_resident/speedup", 1.43, "{:.2f}x",
      "the same with scope model (inductor's default roundings) vs stock"))
S_Z_DEFAULT = Setup("H200", "0.33.0", 141, "Z-Image Turbo 6B bf16 random weights loaded by ComfyUI's loader, "
                    "1024x1024, 9 steps, CFG 1, each chain on its own, the median of 3 timed runs; scope model with "
                    "inductor's default roundings (bench_matrix.py --family z_image --sequential --chains "
                    "shipped_resident,shipped_model_scope_resident --rounds 3), " + _R1_GPU0, shared=True)
rows(S_Z_DEFAULT, "h200/family_033_z_image_peers/default_roundings_shared/matrix.json",
     ("zdefault.h200.shipped_resident.speedup", "json:chains/shipped_resident/speedup", 1.36, "{:.2f}x",
      "the exact chain, resident_weights on, vs stock"),
     ("zdefault.h200.model_scope.speedup", "json:chains/shipped_model_scope_resident/speedup", 1.346, "{:.2f}x",
      "the same with scope model (inductor's default roundings) vs stock"))
S_QWEN_KEPT = Setup("H200", "0.33.0", 141, "Qwen-Image 20B bf16 random weights loaded by ComfyUI's loader, "
                    "1328x1328, 8 steps CFG 2.5, each chain on its own, 2 timed runs, the slower; scope model with "
                    "eager's roundings kept (bench_matrix.py --family qwen_image --steps 8 --sequential --chains "
                    "shipped_resident,shipped_model_scope_resident --rounds 2), " + _R2_GPU0, shared=True)
about(S_QWEN_KEPT, ("qwenkept.h200.shipped_resident.speedup", "the exact chain, resident_weights on, vs stock"),
      ("qwenkept.h200.model_scope.speedup", "the same with scope model (eager's roundings kept) vs stock"))
rows(S_QWEN_KEPT, "h200/family_033_qwen_image_8steps/roundings_kept_shared/matrix.json",
     ("qwenkept.h200.model_scope.first_run", "json:chains/shipped_model_scope_resident/first_run_s", 113.47,
      "{:.0f} s", "scope model, first run (compiles)"),
     ("qwenkept.h200.model_scope.cosine", "json:chains/shipped_model_scope_resident/cosine", 0.999876, "{:.5f}",
      "scope model, final latent vs stock"))
S_Z_KEPT = Setup("H200", "0.33.0", 141, "Z-Image Turbo 6B bf16 random weights loaded by ComfyUI's loader, 1024x1024, "
                 "9 steps, CFG 1, each chain on its own, the median of 3 timed runs; scope model with eager's "
                 "roundings kept (bench_matrix.py --family z_image --sequential --chains shipped_resident,"
                 "shipped_model_scope_resident --rounds 3), " + _R2_GPU0, shared=True)
about(S_Z_KEPT, ("zkept.h200.shipped_resident.speedup", "the exact chain, resident_weights on, vs stock"),
      ("zkept.h200.model_scope.speedup", "the same with scope model (eager's roundings kept) vs stock"))
rows(S_Z_KEPT, "h200/family_033_z_image_peers/roundings_kept_shared/matrix.json",
     ("zkept.h200.model_scope.first_run", "json:chains/shipped_model_scope_resident/first_run_s", 46.47, "{:.0f} s",
      "scope model, first run (compiles)"),
     ("zkept.h200.model_scope.cosine", "json:chains/shipped_model_scope_resident/cosine", 0.999979, "{:.5f}",
      "scope model, final latent vs stock"),
     ("zkept.h200.shipped_resident.cosine", "json:chains/shipped_resident/cosine", 0.999962, "{:.5f}",
      "the blocks, final latent vs stock"))
S_KONTEXT_PEERS = Setup("H200", "0.33.0", 141, "FLUX.1 Kontext dev 12B bf16 random weights loaded by ComfyUI's loader, "
                        "1024x1024 with one 1024x1024 reference latent, 20 steps, guidance 3.5, each chain on its own, "
                        "2 timed runs, the slower (bench_matrix.py --family flux --edit --sequential --chains "
                        "shipped_resident,core_compile,kj_sage_compile --rounds 2), " + _R2_GPU1, shared=True)
rows(S_KONTEXT_PEERS, "h200/family_033_flux_kontext/peers_shared/matrix.json",
     ("kontextpeers.h200.shipped_resident.speedup", "json:chains/shipped_resident/speedup", 1.431, "{:.2f}x",
      "the exact chain, resident_weights on, vs stock"),
     ("kontextpeers.h200.core_compile.speedup", "json:chains/core_compile/speedup", 1.113, "{:.2f}x",
      "ComfyUI TorchCompileModel vs stock"),
     ("kontextpeers.h200.core_compile.cosine", "json:chains/core_compile/cosine", 0.947212, "{:.4f}",
      "ComfyUI TorchCompileModel, final latent vs stock"),
     ("kontextpeers.h200.core_compile.first_run", "json:chains/core_compile/first_run_s", 75.8, "{:.0f} s",
      "ComfyUI TorchCompileModel, first run"),
     ("kontextpeers.h200.kj.speedup", "json:chains/kj_sage_compile/speedup", 1.066, "{:.2f}x",
      "KJNodes PathchSageAttentionKJ (auto) -> TorchCompileModelAdvanced vs stock"),
     ("kontextpeers.h200.shipped_resident.first_run", "json:chains/shipped_resident/first_run_s", 24.36, "{:.0f} s",
      "the exact chain, resident, first run"))
S_SDXL_AB = Setup("H200", "0.33.0", 141, "SDXL 2.6B fp16 random weights loaded by ComfyUI's loader, 1024x1024, 20 "
                  "steps CFG 7, first runs then 3 interleaved timed rounds, the median (bench_matrix.py --family sdxl "
                  "--chains shipped_model_scope --rounds 3), twice in one call, one H200 to itself: with eager's "
                  "roundings kept (as the pack compiles it), then with accel/compile/runners.py edited to inductor's "
                  "default roundings")
about(S_SDXL_AB, ("sdxlkept.h200.model_scope.speedup",
                  "the exact chain with scope model (eager's roundings kept) vs stock"))
rows(S_SDXL_AB, "h200/family_033_sdxl/roundings_ab/kept/matrix.md",
     ("sdxlab.h200.kept.time", "md:shipped_model_scope|time (s)", 0.872, "{:.2f} s",
      "scope model, eager's roundings kept, the median run"),
     ("sdxlab.h200.kept.stock.time", "md:stock|time (s)", 2.243, "{:.2f} s", "stock in the same process"))
rows(S_SDXL_AB, "h200/family_033_sdxl/roundings_ab/kept/matrix.json",
     ("sdxlab.h200.kept.first_run", "json:chains/shipped_model_scope/first_run_s", 111.44, "{:.0f} s",
      "scope model, eager's roundings kept, first run (compiles)"),
     ("sdxlab.h200.kept.cosine", "json:chains/shipped_model_scope/cosine", 1.0, "{:.4f}",
      "scope model, eager's roundings kept, final latent vs stock"))
rows(S_SDXL_AB, "h200/family_033_sdxl/roundings_ab/default/matrix.md",
     ("sdxlab.h200.default.time", "md:shipped_model_scope|time (s)", 0.91, "{:.2f} s",
      "scope model, inductor's default roundings, the median run"),
     ("sdxlab.h200.default.stock.time", "md:stock|time (s)", 2.593, "{:.2f} s", "stock in the same process"))

_R3_GPU0 = "GPU 0 of a two-H200 host while GPU 1 ran Qwen-Image from its plain fp8 file and on a 24 GB card"
_R3_GPU1 = "GPU 1 of a two-H200 host while GPU 0 ran FLUX.1 Kontext and Flux.1 on a 24 GB card"
_R4_GPU0 = "GPU 0 of a two-H200 host while GPU 1 ran Qwen-Image and Qwen-Image-Edit"
_R4_GPU1 = "GPU 1 of a two-H200 host while GPU 0 ran MiniMax-H3"
S_KONTEXT_FP8 = Setup("H200", "0.33.0", 141, "FLUX.1 Kontext dev 12B random weights in ComfyUI's scaled-fp8 layout "
                      "(the shipped workflow's flux1-dev-kontext_fp8_scaled), 1024x1024 with one 1024x1024 reference "
                      "latent, 20 steps, guidance 3.5, each chain on its own, 2 timed runs, the slower "
                      "(bench_matrix.py --family flux --edit --stored fp8_scaled --sequential --chains "
                      "shipped,shipped_resident --rounds 2), " + _R3_GPU0, shared=True)
rows(S_KONTEXT_FP8, "h200/family_033_flux_kontext/fp8_scaled_resident_shared/matrix.json",
     ("kontextfp8.h200.shipped.speedup", "json:chains/shipped/speedup", 1.584, "{:.2f}x",
      "the exact chain, DynamicVRAM kept, vs stock"),
     ("kontextfp8.h200.shipped_resident.speedup", "json:chains/shipped_resident/speedup", 1.61, "{:.2f}x",
      "the exact chain, resident_weights on, vs stock"),
     ("kontextfp8.h200.shipped_resident.cosine", "json:chains/shipped_resident/cosine", 0.999925, "{:.6f}",
      "the exact chain, resident, final latent vs stock"),
     ("kontextfp8.h200.shipped.cosine", "json:chains/shipped/cosine", 0.999925, "{:.6f}",
      "the exact chain, streamed, final latent vs stock"))
S_QWEN_FP8RES = Setup("H200", "0.33.0", 141, "Qwen-Image 20B random weights in the plain fp8 layout of "
                      "qwen_image_fp8_e4m3fn (the block linears float8_e4m3fn with no scale, the other tensors bf16), "
                      "1328x1328, 8 steps CFG 2.5, each chain on its own, 2 timed runs, the slower (bench_matrix.py "
                      "--family qwen_image --steps 8 --stored fp8_e4m3fn --sequential --chains "
                      "shipped,shipped_resident --rounds 2), " + _R3_GPU1, shared=True)
rows(S_QWEN_FP8RES, "h200/family_033_qwen_image_8steps/fp8_e4m3fn_resident_shared/matrix.json",
     ("qwenfp8.h200.shipped.speedup", "json:chains/shipped/speedup", 1.336, "{:.2f}x",
      "the exact chain, DynamicVRAM kept, vs stock"),
     ("qwenfp8.h200.shipped.cosine", "json:chains/shipped/cosine", 0.999876, "{:.6f}",
      "the exact chain, streamed, final latent vs stock"),
     ("qwenfp8.h200.shipped_resident.speedup", "json:chains/shipped_resident/speedup", 1.421, "{:.2f}x",
      "the exact chain loaded resident by ComfyUI's legacy load (before Accel Compile refused it) vs stock"),
     ("qwenfp8.h200.shipped_resident.cosine", "json:chains/shipped_resident/cosine", 0.999327, "{:.6f}",
      "the same, final latent vs stock (the legacy load rounded the file's 16-bit tensors to fp8)"))
S_QWEN_FP8_LEGACY = Setup("H200", "0.33.0", 141, "Qwen-Image 20B random weights in the plain fp8 layout, 1328x1328, 8 "
                          "steps CFG 2.5, ComfyUI started with --disable-dynamic-vram, first runs then 2 interleaved "
                          "timed rounds, the slower (bench_matrix.py --family qwen_image --steps 8 --stored fp8_e4m3fn "
                          "--chains stock,shipped --rounds 2 --comfy-args=--disable-dynamic-vram), " + _R4_GPU1,
                          shared=True)
rows(S_QWEN_FP8_LEGACY, "h200/family_033_qwen_image_8steps/fp8_e4m3fn_legacy_shared/matrix.json",
     ("qwenfp8legacy.h200.shipped.cosine", "json:chains/shipped/cosine", 0.999876, "{:.6f}",
      "the exact chain, final latent vs stock, both on ComfyUI's legacy load"))
S_FLUX24_PEERS = Setup("H200", "0.33.0", 24, "Flux.1-dev 12B bf16 random weights loaded by ComfyUI's loader, "
                       "1024x1024, 20 steps, a simulated 24 GB card (another process holds the rest of the GPU), each "
                       "chain on its own, 2 timed runs, the slower (bench_matrix.py --family flux --sequential --card "
                       "24 --occupy --chains shipped,core_compile,kj_sage_compile --rounds 2), " + _R3_GPU0,
                       shared=True)
rows(S_FLUX24_PEERS, "h200/family_033_flux_1024_24GB_occupied/peers_shared/matrix.json",
     ("flux24peers.h200.24.shipped.speedup", "json:chains/shipped/speedup", 1.249, "{:.2f}x",
      "the exact chain vs stock"),
     ("flux24peers.h200.24.kj.speedup", "json:chains/kj_sage_compile/speedup", 0.725, "{:.2f}x",
      "KJNodes PathchSageAttentionKJ (auto) -> TorchCompileModelAdvanced vs stock"))
S_QWEN24_PEERS = Setup("H200", "0.33.0", 24, "Qwen-Image 20B bf16 random weights loaded by ComfyUI's loader, "
                       "1328x1328, 8 steps CFG 2.5, a simulated 24 GB card, each chain on its own, 2 timed runs, the "
                       "slower (bench_matrix.py --family qwen_image --steps 8 --sequential --card 24 --occupy --chains "
                       "shipped,core_compile,kj_sage_compile --rounds 2; cut by its time limit before KJNodes), "
                       + _R3_GPU1, shared=True)
rows(S_QWEN24_PEERS, "h200/family_033_qwen_image_8steps_24GB_occupied/peers_cut_shared/matrix.json",
     ("qwen24peers.h200.24.shipped.speedup", "json:chains/shipped/speedup", 1.431, "{:.2f}x",
      "the exact chain vs stock"))
S_QWEN24_KJ = Setup("H200", "0.33.0", 24, "Qwen-Image 20B bf16 random weights loaded by ComfyUI's loader, 1328x1328, "
                    "8 steps CFG 2.5, a simulated 24 GB card, each chain on its own, 2 timed runs, the slower "
                    "(bench_matrix.py --family qwen_image --steps 8 --sequential --card 24 --occupy --chains "
                    "kj_sage_compile --rounds 2), " + _R4_GPU1, shared=True)
rows(S_QWEN24_KJ, "h200/family_033_qwen_image_8steps_24GB_occupied/kj_shared/matrix.json",
     ("qwen24kj.h200.24.kj.speedup", "json:chains/kj_sage_compile/speedup", 0.589, "{:.2f}x",
      "KJNodes PathchSageAttentionKJ (auto) -> TorchCompileModelAdvanced vs stock"))
S_QEDIT_CUT = Setup("H200", "0.33.0", 141, "Qwen-Image-Edit 20B bf16 random weights loaded by ComfyUI's loader, "
                    "1328x1328 with one reference latent, 8 steps CFG 2.5, each chain on its own, 2 timed runs, the "
                    "slower (bench_matrix.py --family qwen_image --edit --steps 8 --sequential --chains "
                    "shipped,core_compile,kj_sage_compile --rounds 2; cut by its time limit in TorchCompileModel's "
                    "first run), " + _R4_GPU1, shared=True)
rows(S_QEDIT_CUT, "h200/family_033_qwen_image_edit_8steps/peers_cut_shared/matrix.json",
     ("qeditcut.h200.shipped.speedup", "json:chains/shipped/speedup", 1.494, "{:.2f}x", "the exact chain vs stock"))
S_H3_KJ = Setup("H200", "0.33.0", 141, "MiniMax-H3 33B random weights in ComfyUI's scaled-fp8 layout, the standard "
                "template's 1344x768 124 frames with stereo audio, 8 of its 20 steps, first runs then one timed round "
                "(bench_matrix.py --family minimax_h3 --stored fp8_scaled --steps 8 --chains "
                "stock,shipped,kj_sage_compile --rounds 1), " + _R4_GPU0, shared=True)
rows(S_H3_KJ, "h200/family_033_minimax_h3/kj_8steps_shared/matrix.json",
     ("h3kj.h200.shipped.speedup", "json:chains/shipped/speedup", 1.657, "{:.2f}x",
      "Accel MiniMax-H3 Level-1 vs stock"),
     ("h3kj.h200.kj.speedup", "json:chains/kj_sage_compile/speedup", 1.174, "{:.2f}x",
      "KJNodes PathchSageAttentionKJ (auto) -> TorchCompileModelAdvanced vs stock"))

_R5_GPU0 = "GPU 0 of a two-H200 host while GPU 1 ran Flux.2"
_R5_GPU1 = "GPU 1 of a two-H200 host while GPU 0 ran Qwen-Image-Edit"
S_QEDIT_PEERS = Setup("H200", "0.33.0", 141, "Qwen-Image-Edit 20B bf16 random weights loaded by ComfyUI's loader, "
                      "1328x1328 with one reference latent, 8 steps CFG 2.5, first runs then one timed round "
                      "(bench_matrix.py --family qwen_image --edit --steps 8 --chains "
                      "stock,core_compile,kj_sage_compile --rounds 1), " + _R5_GPU0, shared=True)
rows(S_QEDIT_PEERS, "h200/family_033_qwen_image_edit_8steps/tcm_kj_shared/matrix.json",
     ("qeditpeers.h200.core_compile.speedup", "json:chains/core_compile/speedup", 1.109, "{:.2f}x",
      "ComfyUI TorchCompileModel vs stock"),
     ("qeditpeers.h200.core_compile.first_run", "json:chains/core_compile/first_run_s", 121.1, "{:.0f} s",
      "ComfyUI TorchCompileModel, first run"),
     ("qeditpeers.h200.kj.speedup", "json:chains/kj_sage_compile/speedup", 1.168, "{:.2f}x",
      "KJNodes PathchSageAttentionKJ (auto) -> TorchCompileModelAdvanced vs stock"))
S_FLUX2_KJ = Setup("H200", "0.33.0", 141, "Flux.2-dev 32B random weights in ComfyUI's scaled-fp8 layout, 1248x832, 8 "
                   "of 20 steps, guidance 4, first runs then one timed round (bench_matrix.py --family flux2 --stored "
                   "fp8_scaled --steps 8 --chains stock,shipped,kj_sage_compile --rounds 1), " + _R5_GPU1, shared=True)
rows(S_FLUX2_KJ, "h200/family_033_flux2_8steps/kj_shared/matrix.json",
     ("flux2kj.h200.shipped.speedup", "json:chains/shipped/speedup", 1.319, "{:.2f}x", "the exact chain vs stock"),
     ("flux2kj.h200.kj.speedup", "json:chains/kj_sage_compile/speedup", 1.006, "{:.2f}x",
      "KJNodes PathchSageAttentionKJ (auto) -> TorchCompileModelAdvanced vs stock"))

_R6 = "one H200 to itself, 2026-11-30, one list of runs after another"
S_QWEN_FP8_REFUSED = Setup("H200", "0.33.0", 141, "Qwen-Image 20B random weights in the plain fp8 layout of "
                           "qwen_image_fp8_e4m3fn, 1328x1328, 8 steps CFG 2.5, each chain on its own, one timed run "
                           "(bench_matrix.py --family qwen_image --steps 8 --stored fp8_e4m3fn --sequential --chains "
                           "shipped,shipped_resident --rounds 1), after Accel Compile refused the rounding resident "
                           "load, " + _R6)
rows(S_QWEN_FP8_REFUSED, "h200/family_033_qwen_image_8steps/fp8_e4m3fn_refused/matrix.json",
     ("qwenfp8refused.h200.shipped.speedup", "json:chains/shipped/speedup", 1.363, "{:.2f}x",
      "the exact chain, DynamicVRAM kept, vs stock"),
     ("qwenfp8refused.h200.shipped_resident.speedup", "json:chains/shipped_resident/speedup", 1.357, "{:.2f}x",
      "the exact chain with resident_weights on, kept streaming, vs stock"),
     ("qwenfp8refused.h200.shipped_resident.cosine", "json:chains/shipped_resident/cosine", 0.999876, "{:.6f}",
      "the same, final latent vs stock"))
S_KONTEXT24 = Setup("H200", "0.33.0", 24, "FLUX.1 Kontext dev 12B random weights in ComfyUI's scaled-fp8 layout, "
                    "1024x1024 with one 1024x1024 reference latent, 20 steps, guidance 3.5, a simulated 24 GB card "
                    "(another process holds the rest of the GPU), each chain on its own, one timed run "
                    "(bench_matrix.py --family flux --edit --stored fp8_scaled --sequential --card 24 --occupy "
                    "--chains shipped,shipped_resident,core_compile,kj_sage_compile --rounds 1), " + _R6)
rows(S_KONTEXT24, "h200/family_033_flux_kontext/card24/matrix.json",
     ("kontext24.h200.24.shipped.speedup", "json:chains/shipped/speedup", 1.545, "{:.2f}x",
      "the exact chain, DynamicVRAM kept, vs stock"),
     ("kontext24.h200.24.shipped_resident.speedup", "json:chains/shipped_resident/speedup", 1.565, "{:.2f}x",
      "the exact chain, resident_weights on, vs stock"),
     ("kontext24.h200.24.shipped_resident.cosine", "json:chains/shipped_resident/cosine", 0.999925, "{:.6f}",
      "the same, final latent vs stock"),
     ("kontext24.h200.24.kj.speedup", "json:chains/kj_sage_compile/speedup", 0.613, "{:.2f}x",
      "KJNodes PathchSageAttentionKJ (auto) -> TorchCompileModelAdvanced vs stock"))
S_QEDIT24 = Setup("H200", "0.33.0", 24, "Qwen-Image-Edit 20B bf16 random weights loaded by ComfyUI's loader, "
                  "1328x1328 with one reference latent, 8 steps CFG 2.5, a simulated 24 GB card, each chain on its "
                  "own, one timed run (bench_matrix.py --family qwen_image --edit --steps 8 --sequential --card 24 "
                  "--occupy --chains shipped,core_compile,kj_sage_compile --rounds 1; stopped by its time limit while "
                  "stock ran again last), " + _R6)
rows(S_QEDIT24, "h200/family_033_qwen_image_edit_8steps/card24_cut/matrix.json",
     ("qedit24.h200.24.shipped.speedup", "json:chains/shipped/speedup", 1.579, "{:.2f}x", "the exact chain vs stock"),
     ("qedit24.h200.24.shipped.cosine", "json:chains/shipped/cosine", 0.999899, "{:.6f}",
      "the exact chain, final latent vs stock"),
     ("qedit24.h200.24.kj.speedup", "json:chains/kj_sage_compile/speedup", 1.114, "{:.2f}x",
      "KJNodes PathchSageAttentionKJ (auto) -> TorchCompileModelAdvanced vs stock"))
S_FLUX2_24 = Setup("H200", "0.33.0", 24, "Flux.2-dev 32B random weights in ComfyUI's scaled-fp8 layout, 1248x832, 8 of "
                   "20 steps, guidance 4, a simulated 24 GB card, each chain on its own, one timed run "
                   "(bench_matrix.py --family flux2 --stored fp8_scaled --steps 8 --sequential --card 24 --occupy "
                   "--chains shipped,kj_sage_compile --rounds 1), " + _R6)
rows(S_FLUX2_24, "h200/family_033_flux2_8steps/card24/matrix.json",
     ("flux2_24.h200.24.shipped.speedup", "json:chains/shipped/speedup", 1.32, "{:.2f}x", "the exact chain vs stock"),
     ("flux2_24.h200.24.kj.speedup", "json:chains/kj_sage_compile/speedup", 1.025, "{:.2f}x",
      "KJNodes PathchSageAttentionKJ (auto) -> TorchCompileModelAdvanced vs stock"))
S_SDXL24_KJ = Setup("H200", "0.33.0", 24, "SDXL 1.0 base UNet fp16 random weights loaded by ComfyUI's loader, "
                    "1024x1024, 20 steps CFG 7, a simulated 24 GB card, each chain on its own, 2 timed runs, the "
                    "slower (bench_matrix.py --family sdxl --sequential --card 24 --occupy --chains kj_sage_compile "
                    "--rounds 2), " + _R6)
rows(S_SDXL24_KJ, "h200/family_033_sdxl/card24_kj/matrix.json",
     ("sdxl24kj.h200.24.kj.speedup", "json:chains/kj_sage_compile/speedup", 0.371, "{:.2f}x",
      "KJNodes PathchSageAttentionKJ (auto) -> TorchCompileModelAdvanced vs stock"))

S_ZRES_RC = Setup("H200", "0.33.0", 141, "Z-Image Turbo 6B bf16 random weights loaded by ComfyUI's loader, 1024x1024, "
                  "9 steps, each chain on its own, one timed run, then 832x1216 and 1024x1024 twice (bench_matrix.py "
                  "--family z_image --sequential --chains shipped_resident --rounds 1 --resolution-change 832x1216), "
                  + _R6)
rows(S_ZRES_RC, "h200/family_033_z_image_peers/resolution_change/matrix.json",
     ("zresrc.h200.shipped_resident.speedup", "json:chains/shipped_resident/speedup", 1.325, "{:.2f}x",
      "the exact chain, resident_weights on, vs stock"),
     ("zresrc.h200.shipped_resident.resize.first", "json:chains/shipped_resident/resolution_change/pairs/0/times_s/0",
      0.898, "{:.2f} s", "the exact chain's first run at 832x1216"),
     ("zresrc.h200.shipped_resident.resize.recompiles",
      "json:chains/shipped_resident/resolution_change/pairs/1/recompiles", 0, "{:d}",
      "the exact chain's recompiles after both size changes"))
S_FLUX_RC = Setup("H200", "0.33.0", 141, "Flux.1-dev 12B bf16 random weights loaded by ComfyUI's loader, 1024x1024, 20 "
                  "steps, each chain on its own, one timed run, then 832x1216 and 1024x1024 twice (bench_matrix.py "
                  "--family flux --sequential --chains shipped_resident --rounds 1 --resolution-change 832x1216; "
                  "packed while stock ran again last), " + _R6)
rows(S_FLUX_RC, "h200/family_033_flux_1024_resident/resolution_change_cut/matrix.json",
     ("fluxrc.h200.shipped_resident.speedup", "json:chains/shipped_resident/speedup", 1.351, "{:.2f}x",
      "the exact chain, resident_weights on, vs stock"),
     ("fluxrc.h200.shipped_resident.resize.first", "json:chains/shipped_resident/resolution_change/pairs/0/times_s/0",
      10.819, "{:.1f} s", "the exact chain's first run at 832x1216 (recompiling)"),
     ("fluxrc.h200.shipped_resident.resize.recompiles",
      "json:chains/shipped_resident/resolution_change/pairs/1/recompiles", 2, "{:d}",
      "the exact chain's recompiles after both size changes (Flux has two kinds of blocks)"))
S_FLUX2_RES = Setup("H200", "0.33.0", 141, "Flux.2-dev 32B random weights in ComfyUI's scaled-fp8 layout, 1248x832, 8 "
                    "of 20 steps, guidance 4, each chain on its own, 2 timed runs, the slower (bench_matrix.py "
                    "--family flux2 --stored fp8_scaled --steps 8 --sequential --chains shipped,shipped_resident "
                    "--rounds 2), "
                    + _R6)
rows(S_FLUX2_RES, "h200/family_033_flux2_8steps/resident/matrix.json",
     ("flux2res.h200.shipped.speedup", "json:chains/shipped/speedup", 1.332, "{:.2f}x",
      "the exact chain, DynamicVRAM kept, vs stock"),
     ("flux2res.h200.shipped_resident.cosine", "json:chains/shipped_resident/cosine", 0.999856, "{:.6f}",
      "the same, final latent vs stock"))
about(S_FLUX2_RES, ("flux2res.h200.shipped_resident.speedup", "the exact chain with resident_weights on vs stock"))

_R7 = "one H200 to itself, 2026-11-30, a later machine, one list of runs after another"
S_FLUX2_20 = Setup("H200", "0.33.0", 141, "Flux.2-dev 32B random weights in ComfyUI's scaled-fp8 layout, 1248x832, "
                   "the template's 20 steps, guidance 4, each chain on its own, 2 timed runs, the slower "
                   "(bench_matrix.py --family flux2 --stored fp8_scaled --sequential --chains shipped_resident "
                   "--rounds 2), " + _R7)
rows(S_FLUX2_20, "h200/family_033_flux2_8steps/steps20_resident/matrix.json",
     ("flux2_20.h200.shipped_resident.cosine", "json:chains/shipped_resident/cosine", 0.999942, "{:.6f}",
      "the same, final latent vs stock"),
     ("flux2_20.h200.shipped_resident.first", "json:chains/shipped_resident/first_run_s", 30.6, "{:.1f} s",
      "the exact chain's first run, the inductor cache empty"))
about(S_FLUX2_20, ("flux2_20.h200.shipped_resident.speedup", "the exact chain, resident_weights on, vs stock"))
S_FLUX2_PROF = Setup("H200", "0.33.0", 141, "Flux.2-dev 32B random weights in ComfyUI's scaled-fp8 layout, 1248x832, "
                     "8 of 20 steps, guidance 4, each chain on its own, one timed run, then one run under "
                     "torch.profiler (bench_matrix.py --family flux2 --stored fp8_scaled --steps 8 --sequential "
                     "--chains shipped_resident --rounds 1 --profile), " + _R7)
rows(S_FLUX2_PROF, "h200/family_033_flux2_8steps/resident_profile/matrix.json",
     ("flux2prof.h200.shipped_resident.speedup", "json:chains/shipped_resident/speedup", 1.347, "{:.2f}x",
      "the exact chain, resident_weights on, vs stock"),
     ("flux2prof.h200.stock.wall", "json:chains/stock/profile/wall_ms", 3292.1, "{:.0f} ms",
      "stock's profiled run, wall"),
     ("flux2prof.h200.stock.matmul", "json:chains/stock/profile/by_category_ms/matmul", 1411.0, "{:.0f} ms",
      "stock's profiled run, matmul kernels"),
     ("flux2prof.h200.stock.attention", "json:chains/stock/profile/by_category_ms/attention", 785.1, "{:.0f} ms",
      "stock's profiled run, attention kernels"),
     ("flux2prof.h200.shipped_resident.wall", "json:chains/shipped_resident/profile/wall_ms", 2447.4, "{:.0f} ms",
      "the exact chain's profiled run, wall"),
     ("flux2prof.h200.shipped_resident.kernels", "json:chains/shipped_resident/profile/kernel_ms", 2227.2,
      "{:.0f} ms", "the exact chain's profiled run, GPU kernels"),
     ("flux2prof.h200.shipped_resident.matmul", "json:chains/shipped_resident/profile/by_category_ms/matmul", 1533.7,
      "{:.0f} ms", "the exact chain's profiled run, matmul kernels"),
     ("flux2prof.h200.shipped_resident.attention", "json:chains/shipped_resident/profile/by_category_ms/attention",
      396.0, "{:.0f} ms", "the exact chain's profiled run, attention kernels"),
     ("flux2prof.h200.shipped_resident.triton", "json:chains/shipped_resident/profile/by_category_ms/triton", 256.3,
      "{:.0f} ms", "the exact chain's profiled run, inductor's fused kernels"))
S_LTX2_20 = Setup("H200", "0.33.0", 141, "LTX-2 19B random weights in ComfyUI's scaled-fp8 layout, 1280x704 121 "
                  "frames with audio, the template's 20 steps, CFG 4, each chain on its own, one timed run "
                  "(bench_matrix.py --family ltxav --stored fp8_scaled --sequential --chains shipped --rounds 1), "
                  + _R7)
rows(S_LTX2_20, "h200/family_033_ltx2_4steps/steps20/matrix.json",
     ("ltx2_20.h200.shipped.cosine", "json:chains/shipped/cosine", 0.998607, "{:.6f}",
      "the same, final latent vs stock's first run"),
     ("ltx2_20.h200.stock.cosine", "json:chains/stock/cosine", 0.99886, "{:.6f}",
      "stock's timed run, final latent vs stock's first run"))
about(S_LTX2_20, ("ltx2_20.h200.shipped.speedup", "the exact chain vs stock"))
S_LTX2_24 = Setup("H200", "0.33.0", 24, "LTX-2 19B random weights in ComfyUI's scaled-fp8 layout, 1280x704 121 frames "
                  "with audio, 4 of 20 steps, CFG 4, a simulated 24 GB card (another process holds the rest of the "
                  "GPU), each chain on its own, one timed run (bench_matrix.py --family ltxav --stored fp8_scaled "
                  "--steps 4 --sequential --card 24 --occupy --chains shipped --rounds 1), " + _R7)
rows(S_LTX2_24, "h200/family_033_ltx2_4steps/card24/matrix.json",
     ("ltx2_24.h200.24.shipped.speedup", "json:chains/shipped/speedup", 1.349, "{:.2f}x", "the exact chain vs stock"))
S_HV15_24 = Setup("H200", "0.33.0", 24, "HunyuanVideo 1.5 8.3B bf16 random weights loaded by ComfyUI's loader, "
                  "848x480 121 frames, 2 of 20 steps, CFG 6, a simulated 24 GB card, each chain on its own, one "
                  "timed run (bench_matrix.py --family hunyuan_video15 --steps 2 --sequential --card 24 --occupy "
                  "--chains shipped --rounds 1), " + _R7)
rows(S_HV15_24, "h200/family_033_hunyuan_video15_2steps/card24/matrix.json",
     ("hv15_24.h200.24.shipped.speedup", "json:chains/shipped/speedup", 1.841, "{:.2f}x", "the exact chain vs stock"))
S_K5_24 = Setup("H200", "0.33.0", 24, "Kandinsky 5 Video Lite 2B bf16 random weights loaded by ComfyUI's loader, "
                "768x512 121 frames, 2 of 50 steps, CFG 5, a simulated 24 GB card, each chain on its own, one timed "
                "run (bench_matrix.py --family kandinsky5 --steps 2 --sequential --card 24 --occupy --chains shipped "
                "--rounds 1), " + _R7)
rows(S_K5_24, "h200/family_033_kandinsky5_2steps/card24/matrix.json",
     ("k5_24.h200.24.shipped.speedup", "json:chains/shipped/speedup", 1.635, "{:.2f}x", "the exact chain vs stock"))

_R8 = "one H200 to itself, 2026-11-30, a third machine, power limit 700 W"
S_FLUX2_CLK = Setup("H200", "0.33.0", 141, "Flux.2-dev 32B random weights in ComfyUI's scaled-fp8 layout, 1248x832, 8 "
                    "of 20 steps, guidance 4, each chain on its own, 2 timed runs, the GPU's clocks sampled by "
                    "nvidia-smi every 0.1 s while they ran (bench_matrix.py --family flux2 --stored fp8_scaled "
                    "--steps 8 --sequential --chains shipped_resident --rounds 2 --profile --clocks), " + _R8)
rows(S_FLUX2_CLK, "h200/family_033_flux2_8steps/clocks/matrix.json",
     ("flux2clk.h200.shipped_resident.speedup", "json:chains/shipped_resident/speedup", 1.54, "{:.2f}x",
      "the exact chain, resident_weights on, vs the slower of stock's first two runs"),
     ("flux2clk.h200.shipped_resident.time", "json:chains/shipped_resident/times_s/0", 2.324, "{:.2f} s",
      "the exact chain's slower timed run"),
     ("flux2clk.h200.stock.time1", "json:chains/stock/times_s/0", 3.58, "{:.2f} s", "stock's first timed run"),
     ("flux2clk.h200.stock.time2", "json:chains/stock/times_s/1", 3.194, "{:.2f} s", "stock's second timed run"),
     ("flux2clk.h200.stock.mhz", "json:chains/stock/clocks/sm_mhz_median", 1680, "{:.0f} MHz",
      "stock's timed runs, median SM clock"),
     ("flux2clk.h200.stock_again.mhz", "json:chains/stock_again/clocks/sm_mhz_median", 1702, "{:.0f} MHz",
      "stock's timed runs again last, median SM clock"),
     ("flux2clk.h200.shipped_resident.mhz", "json:chains/shipped_resident/clocks/sm_mhz_median", 1455, "{:.0f} MHz",
      "the exact chain's timed runs, median SM clock"),
     ("flux2clk.h200.shipped_resident.power", "json:chains/shipped_resident/clocks/power_w_median", 688.0,
      "{:.0f} W", "the exact chain's timed runs, median power"))

# Figures the docs want but no file under bench/results/ holds yet: the docs carry `<!-- TODO(gpu): <id> -->` where
# they belong and state no number. When the run exists, add a row above and replace the TODO with the figure.
AWAITING_GPU: dict[str, str] = {}
