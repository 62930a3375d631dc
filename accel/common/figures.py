"""The figures pack code quotes at run time (reports, reasons), from their files; how each was measured and every
other figure: bench/figures.py. `text(id)` writes one as the docs do ("1.50x"), `num(id)` the number, `span(a, b)` a
range ("1.21-1.31x"). tests/common/test_figures.py checks each against its file. CONTRIBUTING.md, "Figures"."""
import re
from dataclasses import dataclass
from decimal import ROUND_HALF_UP, Decimal

RESULTS = "bench/results"


@dataclass(frozen=True)
class Figure:
    id: str
    file: str  # under bench/results/
    src: str  # where in it: "json:a/b/0/c" (keys, list indices) or "md:<first cells>/...|<column>" (a Markdown table)
    value: float  # as the file holds it (times `scale`)
    fmt: str  # how it is written: "{:.2f}x", rounded half up from the file's decimal digits (1.765 -> "1.77")
    scale: float = 1.0  # file value * scale = value (e.g. s -> ms)

    @property
    def number(self) -> str:
        spec = self.fmt[self.fmt.index("{"):self.fmt.index("}") + 1]
        m = re.fullmatch(r"\{:\.(\d+)f\}", spec)
        if not m:
            return spec.format(self.value)
        return str(Decimal(repr(self.value)).quantize(Decimal(1).scaleb(-int(m.group(1))), rounding=ROUND_HALF_UP))

    @property
    def text(self) -> str:
        return self.fmt[:self.fmt.index("{")] + self.number + self.fmt[self.fmt.index("}") + 1:]


_ROWS = {  # file under bench/results/: [(id, src, value as the file holds it, fmt[, scale])]
    "h100/attention_033_fa4/sparse_attention.json": [
        ("sparse_fa4.h100.720p.decay0.2.speedup", "json:rows/11/speedup_vs_fa3", 3.393829458268823, "{:.2f}x"),
        ("sparse_flex.h100.720p.decay0.2.speedup.run2", "json:rows/10/speedup_vs_fa3", 1.848175726567294, "{:.2f}x")],
    "h100/attention_kernels_and_model_before_fp16_fix.md": [
        ("attn.h100.flux1024.cudnn", "md:flux_1024px/sdpa_cudnn|ms", 0.55, "{:.2f} ms"),
        ("attn.h100.flux1024.fa2", "md:flux_1024px/sdpa_flash|ms", 0.84, "{:.2f} ms"),
        ("attn.h100.wan1.3B_480p.cudnn", "md:wan1.3B_480p_81f/sdpa_cudnn|ms", 11.63, "{:.1f} ms"),
        ("attn.h100.wan1.3B_480p.fa2", "md:wan1.3B_480p_81f/sdpa_flash|ms", 18.49, "{:.1f} ms"),
        ("attn.h100.wan14B_480p.comfy_default", "md:wan14B_480p_81f/comfy_default|ms", 37.72, "{:.1f} ms"),
        ("attn.h100.wan14B_480p.cudnn", "md:wan14B_480p_81f/sdpa_cudnn|ms", 38.68, "{:.1f} ms"),
        ("attn.h100.wan14B_480p.fa2", "md:wan14B_480p_81f/sdpa_flash|ms", 59.14, "{:.1f} ms"),
        ("attn.h100.wan14B_480p.fa3", "md:wan14B_480p_81f/flash_attn_3|ms", 31.5, "{:.1f} ms")],
    "h100/e2e_lightx2v_033/i2v_whole_card_savevideo/e2e_wan22_i2v_lightx2v.json": [
        ("e2e_i2v.h100.stock.q2.total", "json:rows/0/queues/1/total_s", 20.541, "{:.1f} s"),
        ("e2e_i2v.h100.level1.q2.total", "json:rows/1/queues/1/total_s", 14.293, "{:.1f} s")],
    "h100/family_033_flux_1024_run2/matrix.json": [
        ("family.h100.flux.run2.fp8_shipped.speedup", "json:chains/fp8_shipped/speedup", 1.192, "{:.2f}x"),
        ("family.h100.flux.run2.shipped.speedup", "json:chains/shipped/speedup", 1.252, "{:.2f}x")],
    "h100/family_033_hunyuan_video_33f/matrix.json": [
        ("family.h100.hv.fp8_shipped.speedup", "json:chains/fp8_shipped/speedup", 1.717, "{:.2f}x"),
        ("family.h100.hv.shipped.speedup", "json:chains/shipped/speedup", 1.532, "{:.2f}x")],
    "h100/family_033_ltxv/matrix.json": [
        ("family.h100.ltxv.fp8_shipped.speedup", "json:chains/fp8_shipped/speedup", 1.276, "{:.2f}x"),
        ("family.h100.ltxv.shipped.speedup", "json:chains/shipped/speedup", 1.128, "{:.2f}x")],
    "h100/family_033_qwen_image_8steps_fp8_fix/matrix.json": [
        ("family.h100.qwen.fix.fp8_shipped.speedup", "json:chains/fp8_shipped/speedup", 1.556, "{:.2f}x"),
        ("family.h100.qwen.fix.shipped.speedup", "json:chains/shipped/speedup", 1.376, "{:.2f}x")],
    "h100/family_033_wan_ti2v_5b/matrix.json": [
        ("family.h100.ti2v.fp8_shipped.speedup", "json:chains/fp8_shipped/speedup", 1.782, "{:.2f}x"),
        ("family.h100.ti2v.shipped.speedup", "json:chains/shipped/speedup", 1.539, "{:.2f}x")],
    "h100/level1_033_1.3B_fp64/level1.json": [
        ("level1.h100.1.3B.sample.speedup", "json:sizes/1.3B/sample_level1/speedup_vs_stock", 1.69, "{:.2f}x")],
    "h100/level1_1.3B.md": [
        ("level1.h100.1.3B.forward.cosine", "md:1.3B/Level-1|cosine to stock", 0.999999, "{:.6f}"),
        ("level1.h100.1.3B.forward.maxdiff", "md:1.3B/Level-1|max abs diff", 0.0123, "{:.3f}")],
    "h100/level1_14B.md": [
        ("level1.h100.14B.forward.cosine", "md:14B/Level-1|cosine to stock", 0.999998, "{:.6f}"),
        ("level1.h100.14B.forward.maxdiff", "md:14B/Level-1|max abs diff", 0.0132, "{:.3f}")],
    "h100/matrix_033_wan14B_fp16_current_node/80GB/matrix.json": [
        ("matrix.h100.80.level1.speedup", "json:chains/level1/speedup", 1.469, "{:.2f}x")],
    "h100/matrix_033_wan14B_fp16_current_node/80GB_run2/matrix.json": [
        ("matrix.h100.80.run2.fp8_level1.speedup", "json:chains/fp8_level1/speedup", 1.835, "{:.2f}x"),
        ("matrix.h100.80.run2.level1.speedup", "json:chains/level1/speedup", 1.509, "{:.2f}x")],
    "h100/vae_033/vae.md": [
        ("vae.h100.compile.first.vae033", "md:wan2.1/fused_norm+compile|first (s)", 92.8778, "{:.0f} s"),
        ("vae.h100.default.vae033.maxdiff", "md:wan2.1/default|max abs diff", 0.0449, "{:.3f}")],
    "h100/vae_033_run2/vae.md": [
        ("vae.h100.compile.first.run2", "md:wan2.1/fused_norm+compile|first (s)", 32.263, "{:.0f} s")],
    "h200/e2e_lightx2v_033/i2v_whole_card_savevideo/e2e_wan22_i2v_lightx2v.json": [
        ("e2e_i2v.h200.stock.q2.total", "json:rows/0/queues/1/total_s", 19.205, "{:.1f} s"),
        ("e2e_i2v.h200.level1.q2.total", "json:rows/1/queues/1/total_s", 14.466, "{:.1f} s")],
    "h200/e2e_lightx2v_033/card16_output_vae/e2e_wan22_t2v_lightx2v_card16.json": [
        ("e2ev.h200.16.level1_vae_save.later.total", "json:rows/1/later_median/total_s", 13.434, "{:.1f} s"),
        ("e2ev.h200.16.prefetch.later.total", "json:rows/2/later_median/total_s", 11.973, "{:.1f} s")],
    "h200/e2e_lightx2v_033/card12_flags/e2e_wan22_t2v_lightx2v_card12.json": [
        ("e2eflag.h200.12.shipped.later.total", "json:rows/2/later_median/total_s", 13.366, "{:.1f} s"),
        ("e2eflag.h200.12.shipped_nocm.later.total", "json:rows/3/later_median/total_s", 12.419, "{:.1f} s")],
    "h200/family_033_sdxl/attention_shared/matrix.json": [
        ("sdxlattn.h200.fa3.time", "json:chains/shipped_model_scope/times_s/1", 2.382, "{:.2f} s"),
        ("sdxlattn.h200.sdpa.time", "json:chains/shipped_model_scope_sdpa/times_s/1", 1.814, "{:.2f} s")],
    "h200/family_033_sdxl/sdpa_default/matrix.json": [
        ("sdxlsdpa.h200.layers.speedup", "json:chains/shipped/speedup", 1.763, "{:.2f}x")],
    "h200/family_033_sdxl/sdpa_default/matrix.md": [  # `time (s)`: the median of the 3 timed runs
        ("sdxlsdpa.h200.layers.time", "md:shipped|time (s)", 1.539, "{:.2f} s"),
        ("sdxlsdpa.h200.model_scope.time", "md:shipped_model_scope|time (s)", 0.96, "{:.2f} s")],
    "h200/family_033_minimax_h3_turbo/fp8_auto_shared/matrix.json": [
        ("family.h200.minimax_h3_turbo.fp8_auto.cosine", "json:chains/fp8_auto_shipped/cosine", 0.998712, "{:.4f}"),
        ("family.h200.minimax_h3_turbo.fp8_auto.speedup", "json:chains/fp8_auto_shipped/speedup", 1.63, "{:.2f}x")],
    "h200/family_033_qwen_image_8steps/roundings_kept_shared/matrix.json": [
        ("qwenkept.h200.model_scope.speedup", "json:chains/shipped_model_scope_resident/speedup", 1.439, "{:.2f}x"),
        ("qwenkept.h200.shipped_resident.speedup", "json:chains/shipped_resident/speedup", 1.464, "{:.2f}x")],
    "h200/family_033_flux_1024_model_scope_shared/roundings_kept_kj/matrix.json": [
        ("fluxkept.h200.model_scope.speedup", "json:chains/shipped_model_scope_resident/speedup", 1.403, "{:.2f}x"),
        ("fluxkept.h200.shipped_resident.speedup", "json:chains/shipped_resident/speedup", 1.395, "{:.2f}x")],
    "h200/family_033_sdxl/roundings_ab/kept/matrix.json": [
        ("sdxlkept.h200.model_scope.speedup", "json:chains/shipped_model_scope/speedup", 2.572, "{:.2f}x")],
    "h200/family_033_qwen_image_8steps/resident_shared/matrix.json": [
        ("family.h200.qwen_resident.shipped_resident.speedup", "json:chains/shipped_resident/speedup", 1.467,
         "{:.2f}x")],
    "h200/family_033_flux_1024_resident/matrix.json": [
        ("family.h200.flux_resident.shipped_resident.speedup", "json:chains/shipped_resident/speedup", 1.371,
         "{:.2f}x")],
    "h200/family_033_flux2_8steps/matrix.json": [
        ("family.h200.flux2_8steps.shipped.speedup", "json:chains/shipped/speedup", 1.4, "{:.2f}x")],
    "h200/family_033_flux2_8steps/resident/matrix.json": [
        ("flux2res.h200.shipped_resident.speedup", "json:chains/shipped_resident/speedup", 1.383, "{:.2f}x")],
    "h200/family_033_flux2_8steps/steps20_resident/matrix.json": [
        ("flux2_20.h200.shipped_resident.speedup", "json:chains/shipped_resident/speedup", 1.364, "{:.2f}x")],
    "h200/family_033_hunyuan_video15_2steps/fp8_auto/matrix.json": [
        ("family.h200.hunyuan_video15_2steps.fp8_auto.speedup", "json:chains/fp8_auto_shipped/speedup", 1.95,
         "{:.2f}x")],
    "h200/family_033_hunyuan_video15_2steps/matrix.json": [
        ("family.h200.hunyuan_video15_2steps.shipped.speedup", "json:chains/shipped/speedup", 1.861, "{:.2f}x")],
    "h200/family_033_kandinsky5_2steps/fp8_auto/matrix.json": [
        ("family.h200.kandinsky5_2steps.fp8_auto.speedup", "json:chains/fp8_auto_shipped/speedup", 1.687, "{:.2f}x")],
    "h200/family_033_kandinsky5_2steps/matrix.json": [
        ("family.h200.kandinsky5_2steps.shipped.speedup", "json:chains/shipped/speedup", 1.624, "{:.2f}x")],
    "h200/family_033_ltx2_4steps/matrix.json": [
        ("family.h200.ltx2_4steps.shipped.speedup", "json:chains/shipped/speedup", 1.413, "{:.2f}x")],
    "h200/family_033_ltx2_4steps/steps20/matrix.json": [
        ("ltx2_20.h200.shipped.speedup", "json:chains/shipped/speedup", 1.435, "{:.2f}x")],
    "h200/family_033_minimax_h3/matrix/matrix.json": [
        ("family.h200.minimax_h3.shipped.speedup", "json:chains/shipped/speedup", 1.646, "{:.2f}x")],
    "h200/family_033_minimax_h3_turbo/matrix/matrix.json": [
        ("family.h200.minimax_h3_turbo.shipped.cosine", "json:chains/shipped/cosine", 0.999083, "{:.4f}"),
        ("family.h200.minimax_h3_turbo.shipped.speedup", "json:chains/shipped/speedup", 1.652, "{:.2f}x"),
        ("family.h200.minimax_h3_turbo.sparse.speedup", "json:chains/level1_h3_sparse/speedup", 2.054, "{:.2f}x"),
        ("family.h200.minimax_h3_turbo.stock.cosine", "json:chains/stock/cosine", 0.999275, "{:.4f}")],
    "h200/family_033_minimax_h3_turbo/sparse_fa4_2rounds/matrix.json": [
        ("family.h200.minimax_h3_turbo.sparse_fa4.speedup", "json:chains/level1_h3_sparse/speedup", 2.499,
         "{:.2f}x")],
    "h200/family_033_z_image_peers/roundings_kept_shared/matrix.json": [
        ("zkept.h200.model_scope.speedup", "json:chains/shipped_model_scope_resident/speedup", 1.337, "{:.2f}x"),
        ("zkept.h200.shipped_resident.speedup", "json:chains/shipped_resident/speedup", 1.385, "{:.2f}x")],
    "h200/family_033_z_image_peers/resident/matrix.json": [
        ("family.h200.zimage_resident.shipped_resident.speedup", "json:chains/shipped_resident/speedup", 1.281,
         "{:.2f}x")],
    "h200/fp8_auto_033_interleaved/flux/matrix.json": [
        ("fp8auto.h200.flux.fp8_shipped.cosine", "json:chains/fp8_shipped/cosine", 0.999412, "{:.4f}"),
        ("fp8auto.h200.flux.fp8_shipped.speedup", "json:chains/fp8_shipped/speedup", 1.696, "{:.2f}x"),
        ("fp8auto.h200.flux.shipped.speedup", "json:chains/shipped/speedup", 1.333, "{:.2f}x")],
    "h200/fp8_auto_033_interleaved/hv/matrix.json": [
        ("fp8auto.h200.hv.fp8_shipped.cosine", "json:chains/fp8_shipped/cosine", 0.99911, "{:.4f}"),
        ("fp8auto.h200.hv.fp8_shipped.speedup", "json:chains/fp8_shipped/speedup", 1.859, "{:.2f}x"),
        ("fp8auto.h200.hv.shipped.speedup", "json:chains/shipped/speedup", 1.551, "{:.2f}x")],
    "h200/fp8_auto_033_interleaved/ltxv/matrix.json": [
        ("fp8auto.h200.ltxv.fp8_shipped.cosine", "json:chains/fp8_shipped/cosine", 0.998707, "{:.4f}"),
        ("fp8auto.h200.ltxv.fp8_shipped.speedup", "json:chains/fp8_shipped/speedup", 1.507, "{:.2f}x"),
        ("fp8auto.h200.ltxv.shipped.speedup", "json:chains/shipped/speedup", 1.297, "{:.2f}x")],
    "h200/fp8_auto_033_interleaved/qwen/matrix.json": [
        ("fp8auto.h200.qwen.fp8_shipped.cosine", "json:chains/fp8_shipped/cosine", 0.999263, "{:.4f}"),
        ("fp8auto.h200.qwen.fp8_shipped.speedup", "json:chains/fp8_shipped/speedup", 1.653, "{:.2f}x"),
        ("fp8auto.h200.qwen.shipped.speedup", "json:chains/shipped/speedup", 1.382, "{:.2f}x")],
    "h200/fp8_auto_033_interleaved/ti2v/matrix.json": [
        ("fp8auto.h200.ti2v.fp8_shipped.cosine", "json:chains/fp8_shipped/cosine", 0.994172, "{:.4f}"),
        ("fp8auto.h200.ti2v.fp8_shipped.speedup", "json:chains/fp8_shipped/speedup", 1.813, "{:.2f}x"),
        ("fp8auto.h200.ti2v.shipped.speedup", "json:chains/shipped/speedup", 1.522, "{:.2f}x")],
    "h200/fp8_auto_033_interleaved/wan14/matrix.json": [
        ("fp8auto.h200.wan21.fp8_level1.cosine", "json:chains/fp8_level1/cosine", 0.995575, "{:.4f}"),
        ("fp8auto.h200.wan21.fp8_level1.speedup", "json:chains/fp8_level1/speedup", 1.868, "{:.2f}x"),
        ("fp8auto.h200.wan21.level1.speedup", "json:chains/level1/speedup", 1.523, "{:.2f}x")],
    "h200/fp8_auto_033_interleaved/zimage/matrix.json": [
        ("fp8auto.h200.zimage.fp8_shipped.cosine", "json:chains/fp8_shipped/cosine", 0.998838, "{:.4f}"),
        ("fp8auto.h200.zimage.fp8_shipped.speedup", "json:chains/fp8_shipped/speedup", 1.512, "{:.2f}x"),
        ("fp8auto.h200.zimage.shipped.speedup", "json:chains/shipped/speedup", 1.219, "{:.2f}x")],
    "h200/fp8_stored_033_interleaved/own_base/matrix.json": [
        ("fp8stored.h200.wf.fp8own_level1.speedup", "json:chains/fp8own_level1/speedup", 1.505, "{:.2f}x"),
        ("fp8stored.h200.wf.level1.speedup", "json:chains/level1/speedup", 1.642, "{:.2f}x")],
    "h200/matrix_033_wan14B_fp16_140GB.json": [
        ("fp8.h200.block.cosine", "json:chains/fp8_level1_block/cosine", 0.994568, "{:.4f}"),
        ("matrix.h200.140.fp8_level1.cosine", "json:chains/fp8_level1/cosine", 0.994069, "{:.4f}"),
        ("matrix.h200.140.fp8_level1.speedup", "json:chains/fp8_level1/speedup", 1.82, "{:.2f}x"),
        ("matrix.h200.140.level1.speedup", "json:chains/level1/speedup", 1.503, "{:.2f}x")],
    "h200/vae_033/vae.md": [
        ("vae.h200.cl_bench.first.vae033", "md:wan2.1/default|first (s)", 15.3239, "{:.1f} s"),
        ("vae.h200.kl.cl_bench.speedup", "md:kl_flux/default|speedup", 0.644, "{:.2f}x"),
        ("vae.h200.stock.first.vae033", "md:wan2.1/stock|first (s)", 3.2198, "{:.1f} s"),
        ("vae.h200.stock.peak", "md:wan2.1/stock|peak VRAM (GiB)", 3.13, "{:.1f} GiB"),
        ("vae.h200.tiled.peak", "md:wan2.1/tiled|peak VRAM (GiB)", 1.917, "{:.1f} GiB"),
        ("vae.h200.tiled.speedup", "md:wan2.1/tiled|speedup", 0.709, "{:.2f}x")],
    "h200/vae_033_fp32ref/vae.md": [
        ("vae.h200.compile.fp32ref.maxdiff", "md:wan2.1/fused_norm+compile|max abs diff", 0.0664, "{:.3f}"),
        ("vae.h200.fused_norm.fp32ref.vs_fp32", "md:wan2.1/fused_norm|max abs diff vs float32", 0.0491, "{:.3f}"),
        ("vae.h200.stock.fp32ref.vs_fp32", "md:wan2.1/stock|max abs diff vs float32", 0.0599, "{:.3f}")],
    "h200/vae_033_rounds/vae.json": [
        ("vae.h200.rounds.cl_fn.speedup", "json:rows/6/speedup", 1.252, "{:.2f}x")],
}
FIGURES: dict[str, Figure] = {r[0]: Figure(r[0], file, *r[1:]) for file, rows in _ROWS.items() for r in rows}


def fig(fid: str) -> Figure:
    return FIGURES[fid]


def text(fid: str) -> str:
    return FIGURES[fid].text


def num(fid: str) -> str:
    return FIGURES[fid].number


def span(lo: str, hi: str) -> str:
    return f"{num(lo)}-{text(hi)}"
