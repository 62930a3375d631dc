"""Level-1: one call that applies the exact-math speedups to a ComfyUI Wan 2.1 / 2.2 MODEL (Accel Wan Level-1) or a
MiniMax-H3 MODEL (Accel MiniMax-H3 Level-1: the same chain, `apply(..., target=MINIMAX_H3)`; its family check, compile
notes and measured fidelity are its own, `Target`).

    clone, report = apply(model, WanLevel1Options())    # report.render(): the node's text
    clone, text = apply_level1(model)                     # the same, with keyword arguments and text

On a clone (the input MODEL is never changed), in this order:
1. attention `auto` through `accel.attention.options.apply` (FlashAttention-3 on H100/H200, FA2 on
   Ada/Ampere, the fastest installed elsewhere; per-call fallback to SDPA for shapes a kernel cannot serve);
2. per-block torch.compile through `accel.compile.options.apply` in the mode `accel.common.defaults.choose()`
   picks (`default`: max-autotune measured within 1% of it for minutes more compile, see accel/common/defaults.py),
   falling back to eager; a user who picks max-autotune-no-cudagraphs gets max-autotune -> default -> eager;
3. TF32 for matmul and cuDNN and cudnn.benchmark, set only while this model samples (accel.cuda_settings.options).
prefetch_weights (opt-in, the same computations): on cards where ComfyUI streams the weights, the compiled blocks fetch
the next block's streamed weights while a block runs (accel.compile.prefetch, whose docstring says how ComfyUI moves
them).
Each step is given the feature's Options (`WanLevel1Options.attention_options`, ...) and its Report's sections go
into this one's.
CFG, the sampler, steps, weights and the schedule are never touched.

quality="fast" (opt-in): step 1 uses FP8 attention (`flash_attn_3_fp8`, Hopper + FA3 built with FP8) on the
hybrid schedule (exact attention on the first/last sampling steps, accel.common.defaults.HYBRID) where it can run,
else it stays exact and the report says why. Its deviation is the measured one in
accel.common.defaults.QUANT_ATTENTION_DEVIATION ("not measured on this GPU yet" until filled).

quality="sparse (radial, opt-in)" (issue #32): step 1 uses the radial_sparse backend with its default schedule
(accel.common.defaults.SPARSE; accel/attention/sparse.py) where it can run (CUDA sm80+, a Wan model, no core
BlockSparseAttention on the model), else it stays exact (`auto`) with a report line, or, with on_failure error, raises
an AccelError naming `quality`. Compile and numerics are unchanged. The fidelity line then claims none of the exact
path's bounds: it says what is measured (the masked-reference tests, sparsity and kept mass per run).

Wan 2.2 A14B: apply it to each expert. Both experts have the same block structure, and the compiled
blocks take their weights as graph inputs (dynamo inlines nn.Modules), so the second expert runs the
code compiled for the first: no second compile in the same process (checked in tests/level1/test_level1.py);
in a new process inductor's on-disk FX-graph/autotune caches make the compile a cache hit.

Fidelity: outputs are NOT bit-identical to stock ComfyUI (another attention kernel and fused,
compiled kernels round differently); the deviation is measured, see FIDELITY and README.
"""
from __future__ import annotations

from dataclasses import dataclass

from ..common import keys, log
from ..common.errors import AccelError, current_title
from ..common.figures import text as _fig
from ..common.policy import Policy, as_policy
from ..common.report import Report, Section

CALLBACK_KEY = keys.WAN_LEVEL1

# Modes a user may force; "auto" = accel.common.defaults.choose(profile).compile_mode.
COMPILE_MODES = ("auto", "max-autotune-no-cudagraphs", "default")
# quality: "exact" (default; old workflows) = exact attention kernels; "fast" = quantized attention, hybrid schedule;
# SPARSE = radial sparse attention (radial_sparse) with its default schedule
SPARSE = "sparse (radial, opt-in)"
QUALITIES = ("exact", "fast", SPARSE)

# Where a run's denoised latent may land relative to stock ComfyUI (same weights, seed and inputs).
# Measured: CPU numbers by tests/level1/test_level1.py (tiny random Wan, fp32); GPU numbers by
# bench/bench_level1.py (true 1.3B / 14B configs), recorded in bench/results/h100/.
FIDELITY = {
    "cpu_tiny_fp32": ("cosine >= 0.99999 and max |diff| <= 1e-4 of the denoised latent, the bounds "
                      "tests/level1/test_level1.py asserts (values ~1; tiny Wan 2.1 T2V compiled, I2V and 2.2 TI2V-5B "
                      "with SDPA attention, fp32, 2 steps, cfg 2)"),
    "gpu": ("on an H100 (true Wan 1.3B / 14B configs, random weights, 480p 81 frames, ComfyUI 0.3.75): per forward "
            f"cosine {_fig('level1.h100.1.3B.forward.cosine')} / {_fig('level1.h100.14B.forward.cosine')}, max |diff| "
            f"{_fig('level1.h100.1.3B.forward.maxdiff')} / {_fig('level1.h100.14B.forward.maxdiff')} (outputs of "
            "order 1) (bench/results/h100/level1_*.md); whole sampling runs: README, Results"),
}


# MiniMax-H3's: the CPU bounds (tiny config) and one H200 run (true config, random scaled-fp8 weights)
H3_FIDELITY = {
    "cpu_tiny_fp32": ("cosine >= 0.99999 and max |diff| <= 1e-4 of the final video and audio latents, the bounds "
                      "tests/common/test_new_families.py asserts for the same attention kernel and compiled blocks "
                      "(tiny MiniMax-H3 from a file through ComfyUI's loader, fp32, 3 steps)"),
    "gpu": ("on an H200 (true config, random weights in ComfyUI's scaled-fp8 layout, 1344x768 124 frames, 4 steps, "
            f"ComfyUI 0.33): final-latent cosine {_fig('family.h200.minimax_h3_turbo.shipped.cosine')} to stock's "
            f"first run, where stock's own next run gives {_fig('family.h200.minimax_h3_turbo.stock.cosine')} "
            "(bench/results/h200/family_033_minimax_h3_turbo)"),
}


def fidelity_statement(attention: bool = True, compile: bool = True, fidelity: dict = FIDELITY) -> str:
    if not attention and not compile:
        return ("fidelity: attention and compile off, so the same kernels as stock run; TF32 (if on) rounds "
                "fp32 matmuls/convolutions to TF32 on NVIDIA GPUs.")
    text = ("fidelity: not bit-identical to stock ComfyUI (a different attention kernel and fused compiled kernels "
            "round differently; CFG and the sampler are untouched). Measured against stock, same seed: "
            + fidelity["cpu_tiny_fp32"] + " on CPU")
    if fidelity.get("gpu"):
        text += "; " + fidelity["gpu"]
    elif fidelity is FIDELITY:
        text += "; GPU figures: README 'Accel Wan Level-1' and bench/results/"
    else:
        text += "; on a GPU: not measured yet"
    return text + "."


def check_wan(model):
    """The model's Family if it is Wan 2.1 / 2.2; else an AccelError naming what it is."""
    from ..common import families

    fam = families.detect(model)
    if not fam.is_wan:
        raise AccelError(
            "model",
            f"this node is for Wan 2.1 / Wan 2.2 models, but the model connected is {fam.name}",
            "For other models use the generic nodes: Accel Attention (fast attention), Accel Compile "
            "(torch.compile) and Accel CUDA Settings (TF32, cudnn.benchmark)")
    if fam.variant == "causal_ar":
        # measured on a tiny one (tests/level1/test_wan_classes.py): SamplerARVideo calls forward_block, whose blocks
        # get no transformer_options (the attention hook never sees them) and a KV cache whose fill level changes on
        # every call (a new compiled graph per call)
        raise AccelError(
            "model", f"{fam.name} is the causal autoregressive Wan (Causal Forcing): ComfyUI's Sampler AR Video runs "
            "its blocks frame by frame with a KV cache, outside ComfyUI's attention hook, so Level-1's attention "
            "kernel would never run and its compiled blocks would compile again on every call",
            "Sample this model without Level-1 (and without Accel Compile); Accel CUDA Settings still applies (TF32 "
            "for its float32 layers)")
    return fam


def check_minimax_h3(model):
    """The model's Family if it is MiniMax-H3; else an AccelError naming what to use for it."""
    from ..common import families

    fam = families.detect(model)
    if fam.family != "minimax_h3":
        use = ("Accel Wan Level-1" if fam.is_wan else "the generic nodes: Accel Attention (fast attention), Accel "
               "Compile (torch.compile) and Accel CUDA Settings (TF32, cudnn.benchmark)")
        raise AccelError("model", f"this node is for MiniMax-H3, but the model connected is {fam.name}",
                         f"For this model use {use}")
    return fam


def _wan_notes(fam) -> list:
    if fam.size == "14B":
        return ["  Wan 2.2 A14B: put this node on both experts; the second reuses the first one's compiled blocks "
                "(same structure, weights are graph inputs): no second compile"]
    return []


def _h3_notes(fam) -> list:
    return ["  MiniMax-H3: the blocks compile twice on the first run (the first step from pure noise gives video and "
            "audio one shared time embedding, the later steps two), then never again for this size; its token refiner "
            "runs once per prompt, before sampling, as in stock ComfyUI"]


@dataclass(frozen=True)
class Target:
    """What a Level-1 node is for: the family check (AccelError naming the input otherwise), the compile notes for it,
    its measured fidelity bounds and the title its log lines fall back to."""

    check: object  # model -> accel.common.families.Family
    notes: object  # Family -> report lines
    fidelity: dict
    title: str


WAN = Target(check_wan, _wan_notes, FIDELITY, "Wan Level-1")
MINIMAX_H3 = Target(check_minimax_h3, _h3_notes, H3_FIDELITY, "MiniMax-H3 Level-1")


def compile_chain(mode: str) -> list:
    """Modes tried in order (eager after the last): max-autotune -> default -> eager."""
    if mode in ("max-autotune", "max-autotune-no-cudagraphs"):
        return [mode, "default"]
    if mode == "eager":
        return []
    return [mode]


def resolve_compile_mode(requested: str, profile) -> tuple:
    """(mode, reason). mode "eager" means: do not compile."""
    from ..common import defaults

    if requested in (None, "", "auto"):
        d = defaults.choose(profile)
        return d.compile_mode, d.compile_reason
    if requested not in COMPILE_MODES:
        raise AccelError("compile_mode", f"unknown mode {requested!r}", "use one of: " + ", ".join(COMPILE_MODES))
    return requested, "chosen in the node"


@dataclass(frozen=True)
class WanLevel1Options:
    """The node's inputs (`policy` is its `on_failure`). It composes the chained features' options:
    `attention_options`, `compile_options`, `cuda_settings_options`."""

    attention: bool = True
    compile: bool = True
    compile_mode: str = "auto"
    tf32: bool = True
    cudnn_benchmark: bool = True
    policy: Policy = Policy.FALL_BACK
    quality: str = "exact"
    prefetch_weights: bool = False

    def __post_init__(self):
        object.__setattr__(self, "policy", as_policy(self.policy))
        if self.quality not in QUALITIES:
            raise AccelError("quality", f"unknown quality {self.quality!r}",
                             "Choose 'exact' (exact attention, the default), 'fast' (FP8 attention, opt-in) or "
                             f"'{SPARSE}' (radial sparse attention)")
        mode = self.compile_mode or "auto"
        if mode not in COMPILE_MODES:
            raise AccelError("compile_mode", f"unknown mode {mode!r}", "use one of: " + ", ".join(COMPILE_MODES))
        object.__setattr__(self, "compile_mode", mode)

    def attention_options(self):
        from ..attention.options import AttentionOptions

        if self.quality == SPARSE:
            from ..attention.sparse import settings_from_inputs

            return AttentionOptions(backend="radial_sparse", policy=self.policy, autotune=False, quality="sparse",
                                    sparse=settings_from_inputs())
        return AttentionOptions(backend="auto", policy=self.policy, autotune=False, quality=self.quality)

    def compile_options(self, chain: list):
        """Per-block inductor compile, trying the modes of `chain` (compile_chain) in order, then eager."""
        from ..compile.options import CompileOptions

        return CompileOptions(mode=chain[0], scope="blocks", dynamic="auto", fullgraph=False, backend="inductor",
                              recompile_limit=64, policy=self.policy, mode_chain=tuple(chain),
                              prefetch=bool(self.prefetch_weights))

    def cuda_settings_options(self):
        from ..cuda_settings.options import CudaSettingsOptions

        on = {True: "on", False: "unchanged"}
        return CudaSettingsOptions(tf32_matmul=on[bool(self.tf32)], tf32_cudnn=on[bool(self.tf32)],
                                   cudnn_benchmark=on[bool(self.cudnn_benchmark)], fp16_accumulation="unchanged",
                                   sdpa_order="unchanged")


def apply(model, options: WanLevel1Options, *, profile=None, tensor_device_types=(), target: Target = WAN):
    """Apply Level-1 to a clone of a MODEL of `target`'s family (WAN: Wan 2.1 / 2.2; MINIMAX_H3). Returns (patched
    clone, Report). `profile`: a simulated HardwareProfile (tests and tools; default: this machine's);
    `tensor_device_types`: extra tensor device types the attention backend may serve (tests: ("cpu",) with a simulated
    CUDA profile; accel.attention.options.apply)."""
    from ..attention import options as attention
    from ..common import hardware
    from ..compile import options as compile_
    from ..cuda_settings import options as cuda_settings

    fam = target.check(model)
    prof = profile if profile is not None else hardware.profile()
    sections = [Section(current_title(), f"{fam.name}, {len(fam.block_keys)} blocks, on {_device_text(prof)}")]
    m = model
    ran, hints = [], []  # the first screen: what is set to run, what to install or change for more

    # 1. attention -----------------------------------------------------------------------------
    fast_deviation = None  # the measured deviation of quantized attention, where quality fast uses it
    sparse_deviation = None  # what stands for the deviation where the sparse quality runs its pattern
    sparse_fa4 = False  # its kernel is FlashAttention-4's block-sparse one (the gain line quotes that measurement)
    if options.attention:
        m, report = attention.apply(m, options.attention_options(), profile=prof,
                                    tensor_device_types=tensor_device_types)
        sections += report.under("attention")
        ran.append("attention " + report.sections[0].text.rsplit(" on ", 1)[0])
        hints += report.hints
        if options.quality == SPARSE:
            sparse_deviation = report.deviation
            from ..attention.sparse import sparse_kernel

            sparse_fa4 = sparse_kernel(m) == "fa4"
        else:
            fast_deviation = report.deviation
    else:
        sections.append(Section("attention", "off (ComfyUI's own attention)",
                                [f"  quality {options.quality}: no effect with attention off"]
                                if options.quality != "exact" else []))
        ran.append("attention off")

    # 2. compile -------------------------------------------------------------------------------
    if options.compile:
        mode, why = resolve_compile_mode(options.compile_mode, prof)
        chain = compile_chain(mode)
        if not chain:
            sections.append(Section("compile", f"not applied ({why})", _no_prefetch(options)))
            ran.append("compile off")
            hints.append(f"for more: make compile run here ({why})")
        else:
            m, report = compile_.apply(m, options.compile_options(chain))
            ran.append(f"compile {chain[0]}")
            hints += [line for line in report.summary if line.startswith("for more:")]
            strict = options.policy is Policy.ERROR
            notes = [f"  mode {chain[0]} ({why}); fallback chain: {' -> '.join(chain + ([] if strict else ['eager']))}",
                     "  first run: seconds to compile with 'default', minutes with max-autotune on a cold "
                     "cache; a compile summary (mode used, seconds, recompiles) is logged after it"]
            notes += target.notes(fam)
            sections += report.plus(*notes).under("compile")
    else:
        sections.append(Section("compile", "off", _no_prefetch(options)))
        ran.append("compile off")

    # 3. CUDA settings -------------------------------------------------------------------------
    if m is model:
        m = model.clone()
    if not (options.tf32 or options.cudnn_benchmark):
        sections.append(Section("numerics", "unchanged (TF32 and cudnn.benchmark off in the node)"))
    else:
        m, report = cuda_settings.apply(m, options.cuda_settings_options(), profile=prof, in_place=True)
        sections += report.body  # without its headline (the node's name)

    sections.append(Section("not touched", "CFG (cond and uncond both run at every step), sampler, scheduler, steps, "
                                           "weights."))
    deviation = [fidelity_statement(options.attention, options.compile, target.fidelity)]
    if sparse_deviation:  # the exact path's bounds above do not hold for a sparse pattern: claim none of them
        deviation = [f"fidelity: quality {SPARSE} is not the exact path: none of the exact path's measured bounds "
                     "is claimed. " + sparse_deviation + ". The calls kept dense differ from stock as on the "
                     "exact path (another attention kernel"
                     + (", fused compiled kernels" if options.compile else "") + ")."]
    if fast_deviation:
        deviation.append("quality fast: attention is quantized to FP8 outside the exact steps, so the output deviates "
                         "more than the figures above; " + fast_deviation + ".")
    sections += [Section(None, line) for line in deviation]
    if options.compile:
        _attach_run_summary(m, current_title() or target.title)
    ran.append("TF32 on" if options.tf32 else "TF32 off")
    summary = _first_screen(fam, prof, options, ran, hints, exact=not (fast_deviation or sparse_deviation),
                            sparse_fa4=sparse_fa4)
    log.info("%s applied to %s (attention %s, compile %s, tf32 %s)", current_title() or target.title, fam.name,
             ("fast" if fast_deviation else "sparse" if sparse_deviation else "on") if options.attention else "off",
             "on" if options.compile else "off", "on" if options.tf32 else "off")
    return m, Report(sections, deviation=" ".join(deviation), summary=summary)


def _first_screen(fam, prof, options: WanLevel1Options, ran: list, hints: list, exact: bool,
                  sparse_fa4: bool = False) -> tuple:
    """What is set to run, the measured gain of Level-1 on this kind of model and GPU, what to install or change for
    more (at most FIRST_SCREEN - 1 lines: the report after a run adds one above). `exact`: the exact path is what runs
    (quality exact, or a quality that stood down); `sparse_fa4`: quality sparse runs FlashAttention-4's kernel."""
    from ..common import gains
    from ..common.report import FIRST_SCREEN

    head = Section(current_title(), f"{fam.name} on {_device_text(prof)}: {', '.join(ran)}").render()[0]
    sparse_chain = gains.SPARSE_FA4 if sparse_fa4 else gains.SPARSE
    if not exact and options.quality == SPARSE and gains.measured(sparse_chain, fam, prof):
        gain = gains.gain_line(sparse_chain, fam, prof)
    elif not exact:
        gain = gains.unmeasured_line(f"quality {options.quality}")
    elif options.attention and options.compile:
        gain = gains.gain_line(gains.EXACT, fam, prof)
        hints = [*hints, gains.fp8_hint(fam, prof)]
    else:
        gain = gains.unmeasured_line("Level-1 with parts off")
    return (head, gain, *[h for h in hints if h][:FIRST_SCREEN - 3])


def apply_level1(model, *, profile=None, tensor_device_types=(), **options):
    """As `apply(model, WanLevel1Options(**options))` (attention, compile, compile_mode, tf32, cudnn_benchmark, policy,
    quality); returns (patched clone, report text)."""
    m, report = apply(model, WanLevel1Options(**options), profile=profile, tensor_device_types=tensor_device_types)
    return m, report.render()


def compile_summary(model) -> str:
    """One line from accel.compile.compile_status(model): mode in use, fallbacks, compile time."""
    try:
        from .. import compile as compile_mod

        st = compile_mod.compile_status(model)
    except Exception as e:  # no compile on this model, or the compile feature is absent
        return f"compile status unavailable ({type(e).__name__}: {e})"
    if not st or not st.get("enabled", True):
        return "not compiled"
    keys = ("mode", "fell_back", "reason", "compile_seconds", "graphs", "recompiles", "last_recompile_reason", "calls")
    picked = {k: st[k] for k in keys if k in st and st[k] not in ("", None, [])}
    if not picked:
        picked = st
    return ", ".join(f"{k}={_fmt(v)}" for k, v in picked.items())


def _attach_run_summary(m, title):
    """Log the compile outcome (mode used, fallbacks, seconds) once per model after its first run."""
    try:
        import comfy.patcher_extension as pe
    except Exception:  # pragma: no cover - ComfyUI always present when a node runs
        return
    done = {"logged": False}

    def after_run(patcher):
        if done["logged"]:
            return
        done["logged"] = True
        try:
            log.info("%s compile summary: %s", title, compile_summary(patcher))
        except Exception:  # never let a report break a run
            pass

    m.remove_callbacks_with_key(pe.CallbacksMP.ON_CLEANUP, CALLBACK_KEY)
    m.add_callback_with_key(pe.CallbacksMP.ON_CLEANUP, CALLBACK_KEY, after_run)


def prefetch_measured() -> str:
    """What prefetch_weights measured, for its tooltip (the figures from their result file)."""
    return (f"Wan 2.2 A14B on an H200 as a 16 GB card: a Queue {_fig('e2ev.h200.16.level1_vae_save.later.total')} -> "
            f"{_fig('e2ev.h200.16.prefetch.later.total')}")


def _no_prefetch(options) -> list:
    if not options.prefetch_weights:
        return []
    return ["  prefetch_weights: no effect without compile (the compiled blocks fetch the weights); ComfyUI streams "
            "them itself"]


def _fmt(v):
    if isinstance(v, float):
        return f"{v:.2f}"
    return str(v)


def _device_text(p):
    if p is None:
        return "unknown device"
    name = getattr(p, "gpu_name", None) or getattr(p, "device_kind", "?")
    sm = getattr(p, "sm_int", None)
    return f"{name}" + (f" (sm{sm})" if sm else "")
