"""Wan Level-1: one call that applies the exact-math speedups to a ComfyUI Wan 2.1 / 2.2 MODEL.

    clone, report = apply_level1(model)

On a clone (the input MODEL is never changed), in this order:
1. attention `auto` through `accel.attention.override.apply_attention` (FlashAttention-3 on H100/H200, FA2 on
   Ada/Ampere, the fastest installed elsewhere; per-call fallback to SDPA for shapes a kernel cannot serve);
2. per-block torch.compile through `accel.compile.apply_compile` in the mode `accel.common.defaults.choose()`
   picks (`default`: max-autotune measured within 1% of it for minutes more compile, see accel/common/defaults.py),
   falling back to eager; a user who picks max-autotune-no-cudagraphs gets max-autotune -> default -> eager;
3. TF32 for matmul and cuDNN and cudnn.benchmark, set only while this model samples (accel.cuda_settings.flags).
CFG, the sampler, steps, weights and the schedule are never touched.

quality="fast" (opt-in): step 1 uses FP8 attention (`flash_attn_3_fp8`, Hopper + FA3 built with FP8) on the
hybrid schedule (exact attention on the first/last sampling steps, accel.common.defaults.HYBRID) where it can run,
else it stays exact and the report says why. Its deviation is the measured one in
accel.common.defaults.QUANT_ATTENTION_DEVIATION ("not measured on this GPU yet" until filled).

Wan 2.2 A14B: apply it to each expert. Both experts have the same block structure, and the compiled
blocks take their weights as graph inputs (dynamo inlines nn.Modules), so the second expert runs the
code compiled for the first: no second compile in the same process (checked in tests/level1/test_level1.py);
in a new process inductor's on-disk FX-graph/autotune caches make the compile a cache hit.

Fidelity: outputs are NOT bit-identical to stock ComfyUI (another attention kernel and fused,
compiled kernels round differently); the deviation is measured, see FIDELITY and README.
"""
from __future__ import annotations

from ..common import keys, log
from ..common.errors import AccelError, current_title, headline
from ..common.figures import text as _fig
from ..common.policy import Policy

CALLBACK_KEY = keys.WAN_LEVEL1

# Modes a user may force; "auto" = accel.common.defaults.choose(profile).compile_mode.
COMPILE_MODES = ("auto", "max-autotune-no-cudagraphs", "default")
# quality: "exact" (default; old workflows) = exact attention kernels; "fast" = quantized attention, hybrid schedule
QUALITIES = ("exact", "fast")

# Where a run's denoised latent may land relative to stock ComfyUI (same weights, seed and inputs).
# Measured: CPU numbers by tests/level1/test_level1.py (tiny random Wan, fp32); GPU numbers by
# bench/bench_level1.py (true 1.3B / 14B configs), recorded in bench/results/h100/.
FIDELITY = {
    "cpu_tiny_fp32": ("cosine >= 0.99999 and max |diff| <= 1e-4 of the denoised latent, the bounds tests/level1/test_level1.py "
                      "asserts (values ~1; tiny Wan 2.1 T2V compiled, I2V and 2.2 TI2V-5B with SDPA attention, fp32, "
                      "2 steps, cfg 2)"),
    "gpu": ("on an H100 (true Wan 1.3B / 14B configs, random weights, 480p 81 frames, ComfyUI 0.3.75): per forward "
            f"cosine {_fig('level1.h100.1.3B.forward.cosine')} / {_fig('level1.h100.14B.forward.cosine')}, max |diff| "
            f"{_fig('level1.h100.1.3B.forward.maxdiff')} / {_fig('level1.h100.14B.forward.maxdiff')} (outputs of "
            "order 1) (bench/results/h100/level1_*.md); whole sampling runs: README, Results"),
}


def fidelity_statement(attention: bool = True, compile: bool = True) -> str:
    if not attention and not compile:
        return ("fidelity: attention and compile off, so the same kernels as stock run; TF32 (if on) rounds "
                "fp32 matmuls/convolutions to TF32 on NVIDIA GPUs.")
    text = ("fidelity: not bit-identical to stock ComfyUI (a different attention kernel and fused compiled kernels "
            "round differently; CFG and the sampler are untouched). Measured against stock, same seed: "
            + FIDELITY["cpu_tiny_fp32"] + " on CPU")
    if FIDELITY.get("gpu"):
        text += "; " + FIDELITY["gpu"]
    else:
        text += "; GPU figures: README 'Accel Wan Level-1' and bench/results/"
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
    return fam


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


def apply_level1(model, attention: bool = True, compile: bool = True, compile_mode: str = "auto",
                 tf32: bool = True, cudnn_benchmark: bool = True, policy: Policy = Policy.FALL_BACK,
                 profile=None, quality: str = "exact"):
    """Apply Level-1 to a clone of a Wan MODEL. Returns (patched clone, report text)."""
    from ..cuda_settings import flags as cuda_settings
    from ..common import hardware

    policy = Policy(policy)
    strict = policy is Policy.ERROR
    if quality not in QUALITIES:
        raise AccelError("quality", f"unknown quality {quality!r}",
                         "Choose 'exact' (exact attention, the default) or 'fast' (FP8 attention, opt-in)")
    fam = check_wan(model)
    prof = profile if profile is not None else hardware.profile()
    lines = [headline(f"{fam.name}, {len(fam.block_keys)} blocks, on {_device_text(prof)}")]
    m = model

    # 1. attention -----------------------------------------------------------------------------
    fast = False
    if attention:
        from ..attention import override as attention_mod

        if quality == "fast":
            m, text, fast = attention_mod.apply_fast_attention(m, policy, profile=prof)
        else:
            m, text = attention_mod.apply_attention(m, backend="auto", policy=policy, autotune=False)
        lines.append(_section("attention", text))
    else:
        lines.append("attention: off (ComfyUI's own attention)")
        if quality == "fast":
            lines.append("  quality fast: no effect with attention off")

    # 2. compile -------------------------------------------------------------------------------
    if compile:
        mode, why = resolve_compile_mode(compile_mode, prof)
        chain = compile_chain(mode)
        if not chain:
            lines.append(f"compile: not applied ({why})")
        else:
            from .. import compile as compile_mod

            m, text = compile_mod.apply_compile(
                m, mode=chain[0], scope="blocks", dynamic="auto", fullgraph=False, backend="inductor",
                recompile_limit=64, policy=policy, mode_chain=chain)
            lines.append(_section("compile", text))
            lines.append(f"  mode {chain[0]} ({why}); fallback chain: {' -> '.join(chain + ([] if strict else ['eager']))}")
            lines.append("  first run: seconds to compile with 'default', minutes with max-autotune on a cold "
                         "cache; a compile summary (mode used, seconds, recompiles) is logged after it")
            if fam.size == "14B":
                lines.append("  Wan 2.2 A14B: put this node on both experts; the second reuses the first one's "
                             "compiled blocks (same structure, weights are graph inputs): no second compile")
    else:
        lines.append("compile: off")

    # 3. CUDA settings -------------------------------------------------------------------------
    if m is model:
        m = model.clone()
    settings = cuda_settings.CudaSettings(tf32_matmul=True if tf32 else None, tf32_cudnn=True if tf32 else None,
                                         cudnn_benchmark=True if cudnn_benchmark else None)
    if settings.is_empty():
        lines.append("numerics: unchanged (TF32 and cudnn.benchmark off in the node)")
    else:
        m, nlines = cuda_settings.apply_cuda_settings(m, settings, profile=prof, in_place=True)
        lines += nlines

    lines.append("not touched: CFG (cond and uncond both run at every step), sampler, scheduler, steps, weights.")
    lines.append(fidelity_statement(attention, compile))
    if fast:
        from ..common import defaults

        lines.append("quality fast: attention is quantized to FP8 outside the exact steps, so the output deviates more "
                     "than the figures above; " + defaults.deviation_text(attention_mod.FAST_BACKENDS[0]) + ".")
    if compile:
        _attach_run_summary(m, current_title() or "Wan Level-1")
    text = "\n".join(lines)
    log.info("%s applied to %s (attention %s, compile %s, tf32 %s)", current_title() or "Wan Level-1", fam.name,
             ("fast" if fast else "on") if attention else "off", "on" if compile else "off", "on" if tf32 else "off")
    return m, text


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


def _section(name, text):
    """'name: <first line of a sub-report>' + its other lines, without repeating the node or section name."""
    body = (text or "").strip().splitlines()
    if not body:
        return f"{name}: applied"
    first = body[0]
    for prefix in (headline(""), f"{name}: "):
        if not prefix:
            continue
        if first.startswith(prefix):
            first = first[len(prefix):]
    return "\n".join([f"{name}: {first}"] + body[1:])


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
