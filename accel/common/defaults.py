"""The one table from a hardware profile to the pack's automatic choices.

`choose(profile)` returns `Defaults`: the attention backend `auto` picks, the compile mode the
Level-1 preset uses, the FP8 compute path `auto` uses, and TF32 — each with the reason shown to the
user. Rows are tried in order; the first whose `match` accepts the profile decides. Within a row the
attention preference list is walked and the first backend that `registry.available()` accepts wins;
every skipped preference is reported with why (e.g. "flash_attn_3 is not installed; pip install fa3-fwd").

`auto` only ever picks EXACT attention: low-precision backends (SageAttention, FP8/INT8 attention) are
opt-in, chosen by name in Accel Attention or by `quality: fast` in Accel Wan Level-1.

Measured support for the orderings: `bench/results/` (GPU named in each file).

Also here, as the one place for them: the measured per-family rules of the FP8 loader's `auto` (`FP8_AUTO_MEASURED`
for 16-bit files, `FP8_STORED_MEASURED` for files stored in ComfyUI's FP8 layout),
the hybrid schedule of quantized attention (`HYBRID`), the radial_sparse
schedule (`SPARSE`) and the table of
measured deviations of the quantized attention paths (`QUANT_ATTENTION_DEVIATION`).
"""
from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from ...kernels.attention import registry
from . import figures
from .figures import text as _fig


@dataclass(frozen=True)
class Row:
    name: str
    match: Callable  # profile -> bool
    attention: tuple  # ((backend, why-preferred, optional extra condition(profile) -> (ok, why)), ...)
    compile_mode: Callable  # profile -> (mode, reason)
    fp8: Callable  # profile -> (path, reason)
    sdpa_order: tuple | None = None  # PyTorch SDPA kernel order for `auto` (None: leave PyTorch's/ComfyUI's)
    sdpa_why: str = "not measured on this GPU class: PyTorch's (or ComfyUI's) own order is kept"
    # family (accel.common.families' key) -> (backend, why): an exact backend measured faster than `attention`'s first
    # choice on that family; it goes first in this row's list for that family only
    family_attention: dict = field(default_factory=dict)


@dataclass
class Defaults:
    row: str
    attention: str
    attention_reason: str
    attention_skipped: list = field(default_factory=list)  # [(backend, why not)]
    compile_mode: str = "default"
    compile_reason: str = ""
    fp8_compute: str = "dequant"  # "scaled_mm_rowwise" | "scaled_mm_tensorwise" | "dequant"
    fp8_reason: str = ""
    tf32: bool = False
    tf32_reason: str = ""
    sdpa_order: tuple | None = None
    sdpa_reason: str = ""

    def report_lines(self) -> list[str]:
        lines = [f"defaults for {self.row}:", f"  attention auto -> {self.attention}: {self.attention_reason}"]
        for name, why in self.attention_skipped:
            lines.append(f"    skipped {name}: {why}")
        lines.append(f"  compile mode -> {self.compile_mode}: {self.compile_reason}")
        lines.append(f"  fp8 compute -> {self.fp8_compute}: {self.fp8_reason}")
        lines.append(f"  tf32 -> {'on' if self.tf32 else 'off'}: {self.tf32_reason}")
        order = " > ".join(self.sdpa_order) if self.sdpa_order else "unchanged"
        lines.append(f"  SDPA order -> {order}: {self.sdpa_reason}")
        return lines


# --- compile mode and fp8 path rules ------------------------------------------------------------

def _compile_gpu(profile):
    if not profile.triton:
        return "eager", ("triton is not installed, so inductor cannot build GPU kernels; install triton (Linux) or "
                         "triton-windows")
    # Measured (H100): max-autotune-no-cudagraphs was 0.8% faster than default on Wan 1.3B blocks for a 26x
    # longer compile (226 s vs 8.6 s, bench/results/h100/compile.md), within 0.5% for Level-1 on Wan 14B
    # (matrix_033_wan14B_fp16_24GB.md: Level-1 vs CUDA Settings -> Attention -> Compile), and made the
    # first Level-1 run on a cold cache take 163 s on Wan 1.3B (matrix_033_wan13B_fp16_80GB.md): it does
    # not pay for the first-run time users wait through. The node still offers it.
    return "default", ("inductor default mode: max-autotune measured about as fast on Wan blocks (H100, "
                       "bench/results/h100/compile.md) and compiles minutes longer on a cold cache")


def _compile_cpu(profile):
    if profile.c_compiler:
        return "default", f"inductor C++ backend with {profile.c_compiler}"
    return "eager", "no C compiler found for inductor's CPU backend; install gcc/clang"


def _compile_mps(profile):
    return "eager", "inductor on MPS is experimental in PyTorch; compile gives no reliable gain there"


def _fp8_cuda(profile):
    if profile.fp8_rowwise:
        return "scaled_mm_rowwise", (f"sm{profile.sm_int}: FP8 tensor cores with row-wise (per-token x per-channel) "
                                     "torch._scaled_mm")
    if profile.fp8_compute:
        return "scaled_mm_tensorwise", (f"sm{profile.sm_int}: FP8 tensor cores; this GPU/torch supports per-tensor "
                                        "scales only")
    return "dequant", (f"sm{profile.sm_int or '?'} has no FP8 tensor cores (needs SM >= 8.9): weights stay FP8 in "
                       "memory, matmuls in bf16/fp16")


def _fp8_rocm(profile):
    if profile.fp8_compute:
        return "scaled_mm_tensorwise", f"{profile.gcn_arch}: FP8 matmul with per-tensor scales"
    return "dequant", f"{profile.gcn_arch or 'this AMD GPU'} has no FP8 matmul: weights dequantized per layer"


def _fp8_none(profile):
    return "dequant", f"{profile.device_kind}: no FP8 matmul; weights dequantized per layer"


def _sm(lo, hi=None):
    return lambda p: (p.device_kind == "cuda" and p.sm_int is not None
                      and lo <= p.sm_int <= (hi if hi is not None else lo))


_FA3_WHY = (f"FlashAttention-3 is the fastest kernel measured on H100 at Wan video shapes (Wan 14B 480p: "
            f"{_fig('attn.h100.wan14B_480p.fa3')} vs {_fig('attn.h100.wan14B_480p.comfy_default')} for ComfyUI's "
            f"default attention, {_fig('attn.h100.wan14B_480p.cudnn')} for cuDNN SDPA, bench/results/h100); at "
            "short Flux sequences cuDNN is as fast (use autotune)")
_CUDNN_WHY = (f"cuDNN fused attention: the fastest SDPA kernel measured on Hopper (H100: "
              f"{_fig('attn.h100.wan1.3B_480p.cudnn')} vs FA2 {_fig('attn.h100.wan1.3B_480p.fa2')} at Wan 1.3B 480p)")
_FA2_WHY = "FlashAttention-2: exact attention, the standard fast kernel on Ampere/Ada"
_SDPA_WHY = "PyTorch SDPA: always available, PyTorch picks its best kernel"
# ComfyUI 0.33 makes SDPA try FlashAttention-2 first; on Hopper cuDNN is faster at every shape measured
_HOPPER_SDPA = ("cudnn", "flash", "efficient", "math")
_HOPPER_SDPA_WHY = (f"cuDNN first: the fastest exact SDPA kernel measured on H100 (Wan 14B 480p "
                    f"{_fig('attn.h100.wan14B_480p.cudnn')} vs FA2 {_fig('attn.h100.wan14B_480p.fa2')}; Flux 1024px "
                    f"{_fig('attn.h100.flux1024.cudnn')} vs {_fig('attn.h100.flux1024.fa2')}; "
                    "bench/results/h100/attention_kernels_and_model_before_fp16_fix.md); "
                    "ComfyUI 0.33 puts FlashAttention-2 first")

# SDXL on Hopper (the row's family_attention): head_dim 64, 1,024-4,096 tokens, fp16 (ComfyUI's default for SDXL);
# fa3-fwd is built without fp16, so each of its 140 attention calls a model call adds casts and a custom op's host
# time where SDXL is host-bound.
_SDXL_SDPA_WHY = (f"at SDXL's attention shapes (head_dim 64, fp16) PyTorch's SDPA with cuDNN first ran the whole UNet "
                  f"compiled in {_fig('sdxlattn.h200.sdpa.time')} a 20-step 1024x1024 run against "
                  f"{_fig('sdxlattn.h200.fa3.time')} with FlashAttention-3 (H200, a shared host, "
                  "bench/results/h200/family_033_sdxl/attention_shared)")
ROWS: tuple[Row, ...] = (
    Row("Hopper (sm90)", _sm(90),
        (("flash_attn_3", _FA3_WHY, None),
         ("sdpa_cudnn", _CUDNN_WHY, None),
         ("flash_attn_2", _FA2_WHY, None),
         ("sdpa", _SDPA_WHY, None)),
        _compile_gpu, _fp8_cuda, _HOPPER_SDPA, _HOPPER_SDPA_WHY, {"sdxl": ("sdpa", _SDXL_SDPA_WHY)}),
    Row("Blackwell datacenter (sm100-103)", _sm(100, 103),
        (("flash_attn_4", "FlashAttention-4 (CuTe) targets Blackwell tensor cores", None),
         ("sdpa_cudnn", "cuDNN fused attention supports Blackwell", None),
         ("flash_attn_2", _FA2_WHY, None),
         ("sdpa", _SDPA_WHY, None)),
        _compile_gpu, _fp8_cuda),
    Row("Blackwell consumer (sm120+)", _sm(110, 999),
        (("flash_attn_2", _FA2_WHY, None),
         ("sdpa", _SDPA_WHY, None)),
        _compile_gpu, _fp8_cuda),
    Row("Ada (sm89: L40, L40S, RTX 40xx)", _sm(89),
        (("flash_attn_2", _FA2_WHY + " (FA3 is Hopper-only)", None),
         ("sdpa", _SDPA_WHY, None)),
        _compile_gpu, _fp8_cuda),
    Row("Ampere (sm80 A100, sm86/87 RTX 30xx)", _sm(80, 88),
        (("flash_attn_2", _FA2_WHY, None),
         ("sdpa", _SDPA_WHY, None)),
        _compile_gpu, _fp8_cuda),
    Row("pre-Ampere CUDA (sm < 80)", _sm(0, 79),
        (("xformers", "xFormers memory-efficient attention (FlashAttention needs SM >= 8.0)", None),
         ("sdpa", _SDPA_WHY, None)),
        _compile_gpu, _fp8_cuda),
    Row("AMD ROCm", lambda p: p.device_kind == "rocm",
        (("flash_attn_2", "FlashAttention-2 ROCm build (CK/Triton)", None),
         ("sdpa", _SDPA_WHY + " (AOTriton flash/efficient on ROCm)", None)),
        _compile_gpu, _fp8_rocm),
    Row("Apple MPS", lambda p: p.device_kind == "mps",
        (("sdpa", "PyTorch SDPA: the only fused attention on MPS", None),),
        _compile_mps, _fp8_none),
    Row("CPU", lambda p: True,
        (("sdpa", "PyTorch SDPA: the CPU flash kernel", None),),
        _compile_cpu, _fp8_none),
)


def row_for(profile) -> Row:
    for row in ROWS:
        if row.match(profile):
            return row
    return ROWS[-1]


def choose_attention(profile, exclude: dict | None = None, family: str | None = None) -> tuple[str, str, list]:
    """(backend, reason, skipped) for `auto` on this profile. `exclude` maps backends found unusable
    after the profile was taken (e.g. a failed probe) to why; they are skipped with that reason. `family`
    (accel.common.families' key of the model): the row's family_attention entry for it goes first."""
    row = row_for(profile)
    skipped = []
    prefs = row.attention
    first = row.family_attention.get(family)
    if first is not None:
        prefs = ((first[0], first[1], None),) + tuple(p for p in prefs if p[0] != first[0])
    for name, why, extra in prefs:
        if exclude and name in exclude:
            skipped.append((name, exclude[name]))
            continue
        if registry.BACKENDS[name].low_precision:  # never reached with ROWS as they are (tests check)
            skipped.append((name, "not exact: low-precision backends are only used when chosen by name"))
            continue
        ok, reason = registry.available(name, profile)
        if ok and extra is not None:
            ok, reason = extra(profile)
        if ok:
            if skipped:
                why += " (preferred ones unavailable: " + ", ".join(n for n, _ in skipped) + ")"
            return name, why, skipped
        skipped.append((name, reason))
    return "sdpa", _SDPA_WHY, skipped


def choose(profile) -> Defaults:
    row = row_for(profile)
    attn, attn_why, skipped = choose_attention(profile)
    mode, mode_why = row.compile_mode(profile)
    fp8, fp8_why = row.fp8(profile)
    if profile.tf32:
        tf32, tf32_why = True, ("TF32 tensor cores (SM >= 8.0): fp32 matmuls/convs (e.g. Wan's fp32 patch embedding) "
                                "run on tensor cores")
    else:
        tf32, tf32_why = False, "no TF32 tensor cores on this device"
    return Defaults(row.name, attn, attn_why, skipped, mode, mode_why, fp8, fp8_why, tf32, tf32_why,
                    row.sdpa_order, row.sdpa_why)


# --- the FP8 loader's `auto` on a 16-bit file: FP8 or keep 16-bit, per family and GPU class, as measured --------

def runs_text(runs: int, interleaved: bool) -> str:
    """How a cited run timed its chains, as the reports say it."""
    if runs == 1:
        return "one timed run each"
    return f"the median of {runs} timed runs each, " + ("interleaved" if interleaved else "each chain on its own")


@dataclass(frozen=True)
class FP8Measured:
    """One measurement of a whole sampling run: the FP8 loader (defaults) -> `chain` against `chain` on the same
    model's 16-bit weights, both as speed-ups over stock ComfyUI (figure ids of accel/common/figures.py, one result
    file), from `runs` timed runs per chain, `interleaved` or each chain on its own. `keep_16bit`: the FP8 path
    measured slower, so `auto` keeps the weights 16-bit where they fit the card (tests/fp8/test_fp8_auto.py checks
    each entry against its file: the figures, the runs, how they were timed)."""
    keep_16bit: bool
    fp8: str  # figure id: FP8 loader -> chain, speed-up over stock
    exact: str  # figure id: chain on the 16-bit weights, speed-up over stock
    chain: str
    model: str  # what was measured (model, resolution, GPU, ComfyUI)
    runs: int  # timed runs per chain in the file (speed-ups: medians)
    interleaved: bool  # the chains' runs alternated in one process (bench_matrix.py without --sequential)

    @property
    def file(self) -> str:
        return f"{figures.RESULTS}/{figures.fig(self.fp8).file}"

    def evidence(self) -> str:
        return (f"{self.model}, {self.chain}: {_fig(self.fp8)} after the FP8 loader vs {_fig(self.exact)} on the "
                f"16-bit weights, speed-ups over stock ({runs_text(self.runs, self.interleaved)}); {self.file}")


_EXACT_CHAIN = "Accel CUDA Settings -> Attention -> Compile"
_H200_IL = "on an H200 that ran nothing else, ComfyUI 0.33"
# Keyed by (accel.common.families key, the name of the ROWS row the GPU falls in); the Hopper row covers the H100 and
# the H200. An entry rests on one run in which both chains ran at least three times, interleaved, on a GPU (and host)
# the run had to itself, the medians compared (bench_matrix.py --rounds 3 without --sequential); a run with fewer
# timed runs, each chain on its own or on a shared host decides no entry. Such runs on an H200 found FP8 faster on
# every family below. A family or GPU class not listed is not measured: `auto` quantizes and says so.
FP8_AUTO_MEASURED: dict = {
    ("flux", "Hopper (sm90)"): FP8Measured(
        False, "fp8auto.h200.flux.fp8_shipped.speedup", "fp8auto.h200.flux.shipped.speedup", _EXACT_CHAIN,
        f"Flux.1-dev 1024px 20 steps {_H200_IL}", 3, True),
    ("wan22", "Hopper (sm90)"): FP8Measured(
        False, "fp8auto.h200.ti2v.fp8_shipped.speedup", "fp8auto.h200.ti2v.shipped.speedup", "Accel Wan Level-1",
        f"Wan 2.2 TI2V-5B 1280x704 121 frames 4 steps {_H200_IL}", 3, True),
    ("qwen_image", "Hopper (sm90)"): FP8Measured(
        False, "fp8auto.h200.qwen.fp8_shipped.speedup", "fp8auto.h200.qwen.shipped.speedup", _EXACT_CHAIN,
        f"Qwen-Image 1328px 8 steps {_H200_IL}", 3, True),
    ("hunyuan_video", "Hopper (sm90)"): FP8Measured(
        False, "fp8auto.h200.hv.fp8_shipped.speedup", "fp8auto.h200.hv.shipped.speedup", _EXACT_CHAIN,
        f"HunyuanVideo 13B 960x544 33 frames 4 steps {_H200_IL}", 3, True),
    ("ltxv", "Hopper (sm90)"): FP8Measured(
        False, "fp8auto.h200.ltxv.fp8_shipped.speedup", "fp8auto.h200.ltxv.shipped.speedup", _EXACT_CHAIN,
        f"LTX-Video 2B 768x512 121 frames 20 steps {_H200_IL}", 3, True),
    ("z_image", "Hopper (sm90)"): FP8Measured(
        False, "fp8auto.h200.zimage.fp8_shipped.speedup", "fp8auto.h200.zimage.shipped.speedup", _EXACT_CHAIN,
        f"Z-Image Turbo 6B 1024px 9 steps {_H200_IL}", 3, True),
    ("wan21", "Hopper (sm90)"): FP8Measured(
        False, "fp8auto.h200.wan21.fp8_level1.speedup", "fp8auto.h200.wan21.level1.speedup", "Accel Wan Level-1",
        f"Wan 2.1 T2V 14B 480p 81 frames 4 steps {_H200_IL}", 3, True),
}


@dataclass(frozen=True)
class StoredFP8Measured:
    """One measurement on files stored in ComfyUI's own FP8 layout (the `*_fp8_scaled` files Comfy-Org publishes):
    `chain` after the FP8 loader's layers (`ours`) against `chain` after ComfyUI's own Load Diffusion Model, whose
    0.33+ loader builds quantized-tensor layers from such a file (`comfy`), both as speed-ups over stock ComfyUI
    (figure ids of accel/common/figures.py, one result file). `comfy_layers`: ComfyUI's layers measured faster, so
    the FP8 loader's `auto` loads such a file as ComfyUI does (tests/fp8/test_fp8_auto.py checks each entry against
    its figures)."""
    comfy_layers: bool
    ours: str  # figure id: FP8 loader -> chain, speed-up over stock
    comfy: str  # figure id: ComfyUI's loader -> chain, speed-up over stock
    chain: str
    model: str  # what was measured (model, resolution, GPU, ComfyUI)
    runs: int  # timed runs per chain in the file (as FP8Measured)
    interleaved: bool

    @property
    def file(self) -> str:
        return f"{figures.RESULTS}/{figures.fig(self.ours).file}"

    def evidence(self) -> str:
        return (f"{self.chain} measured {_fig(self.comfy)} on ComfyUI's own FP8 layers vs {_fig(self.ours)} on this "
                f"loader's, speed-ups over stock ({self.model}, {runs_text(self.runs, self.interleaved)}; "
                f"{self.file})")


# Keyed as FP8_AUTO_MEASURED. Only for files ComfyUI's loader turns into its quantized-tensor layers (ComfyUI 0.33+;
# accel.comfy_compat.loads_fp8_files_as_quantized_layers) in the measured form: e4m3fn, per-tensor scales.
FP8_STORED_MEASURED: dict = {
    ("wan21", "Hopper (sm90)"): StoredFP8Measured(
        True, "fp8stored.h200.wf.fp8own_level1.speedup", "fp8stored.h200.wf.level1.speedup",
        "LoRA -> Accel Wan Level-1", "Wan 2.2 A14B T2V fp8_scaled experts with a rank-32 LightX2V LoRA, 480p 81 frames "
        f"4 steps {_H200_IL}", 3, True),
}


def fp8_stored_measured(family: str, profile) -> StoredFP8Measured | None:
    """The measured entry for FP8-stored files of this model family on this profile's GPU class, or None."""
    return FP8_STORED_MEASURED.get((family, row_for(profile).name))


# Room a model must leave on the card to sample, beyond its weights (the FP8 loader's `auto` for 16-bit weights,
# Accel Compile's residency for CUDA graphs): ComfyUI's minimum inference memory plus this fraction of the weights
# (a setting, not a measurement: the activations depend on resolution and length).
SAMPLING_ROOM_FRACTION = 0.25


def fp8_measured(family: str, profile) -> FP8Measured | None:
    """The measured FP8-vs-16-bit entry for this model family on this profile's GPU class, or None (not measured)."""
    return FP8_AUTO_MEASURED.get((family, row_for(profile).name))


# --- quantized attention: hybrid schedule and measured deviation --------------------------------------

@dataclass(frozen=True)
class HybridDefaults:
    """Exact attention on the first/last sampling steps (and optionally the first/last transformer blocks),
    quantized attention elsewhere. The first steps lay out the composition and the last ones the fine detail,
    where 8-bit error shows most (as SageAttention/step-cache users report). Not yet measured per model
    family: one setting for all until bench/bench_quant_attention.py has run on real weights."""
    exact_first_steps: int = 2
    exact_last_steps: int = 2
    exact_first_blocks: int = 0
    exact_last_blocks: int = 0
    # steps count over the whole schedule (both Wan 2.2 A14B experts together); at most a quarter of them, rounded up,
    # are exact at each end, so a 4-step distilled schedule (2 + 2 experts) quantizes its 2 middle steps instead of
    # none (the radial-attention scripts keep about a quarter of the steps dense too: SparseDefaults)
    at_most_a_quarter: bool = True
    source: str = ("not measured per model family yet: a conservative setting (2 exact steps at each end of the whole "
                   "schedule, at most a quarter of its steps)")


HYBRID = HybridDefaults()


@dataclass(frozen=True)
class SparseDefaults:
    """The radial_sparse backend (accel/attention/sparse.py). dense_steps -1: the first quarter of each sampler run's
    steps, rounded up, in a run from pure noise (none in a run that continues a partly denoised latent): the published
    radial-attention scripts (github.com/mit-han-lab/radial-attention @72788d4f,
    scripts/) keep 12 of 50 steps dense for Wan 2.1 14B, 11 of 40 for Wan 2.2 A14B and 1 of 4 with the LightX2V
    4-step LoRA, i.e. about a quarter. dense_blocks 1: the first block (the scripts' dense_layers=1) and, our
    addition, the last. decay_factor 0.2: the scripts' setting for Wan 2.1 and the 4-step runs (Wan 2.2 40-step:
    0.8)."""
    dense_steps: int = -1
    dense_blocks: int = 1
    decay_factor: float = 0.2


SPARSE = SparseDefaults()

NOT_MEASURED = "not measured on this GPU yet"

# Measured deviation of each quantized attention path from exact attention, filled in from
# bench/bench_quant_attention.py results ($OUT/quant_attention.json). None = not measured: reports then say
# NOT_MEASURED. Keys: backend -> {measure: value}; measures: "per_call_cosine_wan14b_480p" (vs FA3 bf16),
# "final_latent_cosine_wan1.3b" (random weights, hybrid schedule, vs stock), "gpu" (where measured),
# "result" (the bench/results/ file).
QUANT_ATTENTION_DEVIATION: dict = {
    # measured by bench/bench_quant_attention.py on an H200, ComfyUI 0.33.0, torch 2.11, bf16, random data /
    # random-weight Wan 2.1 T2V 1.3B (8 steps CFG 5, hybrid schedule 2 + 2 exact steps) through ComfyUI's sampler
    "flash_attn_3_fp8": {"per_call_cosine_wan14b_480p": 0.99855, "per_call_speed_vs_fa3_bf16_wan14b_480p": 1.26,
                         "final_latent_cosine_wan1.3b": 0.99953,
                         "gpu": "NVIDIA H200", "result": "bench/results/h200/quant_attention_033.md"},
    "sage": {"per_call_cosine_wan14b_480p": 0.99991, "per_call_speed_vs_fa3_bf16_wan14b_480p": 0.62,
             "gpu": "NVIDIA H200 (SageAttention 1.0.6)", "result": "bench/results/h200/quant_attention_033.md"},
    "comfy_kitchen_int8": {"per_call_cosine_wan14b_480p": 0.99983, "per_call_speed_vs_fa3_bf16_wan14b_480p": 0.65,
                           "final_latent_cosine_wan1.3b": 0.99998,
                           "gpu": "NVIDIA H200", "result": "bench/results/h200/quant_attention_033.md"},
}


def deviation_text(backend: str) -> str:
    """One line for reports: the measured deviation of `backend`, or that it is not measured yet."""
    row = QUANT_ATTENTION_DEVIATION.get(backend) or {}
    parts = [f"{k} {v}" for k, v in row.items() if k not in ("gpu", "result") and v is not None]
    if not parts:
        return (f"measured deviation of {backend}: {NOT_MEASURED} (to be measured by bench/bench_quant_attention.py; "
                "random weights cannot show visual quality)")
    where = f" on {row['gpu']}" if row.get("gpu") else ""
    src = f" ({row['result']})" if row.get("result") else ""
    return f"measured deviation of {backend}{where}: " + ", ".join(parts) + src
