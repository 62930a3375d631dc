"""Compiled runners: one per (module class, signature, mode/settings), kept for the process, and the
torch.compile arguments they are built with (guard filter, recompile limit, inductor options)."""
from __future__ import annotations

import hashlib
import re
import types

import torch

from ..common import keys, log
from .config import CompileConfig, compile_lock
from .dynamo_compat import compile_accepts, guard_filter_supported, inductor_has, inductor_mode_options


def _runner_template(module, *args, **kwargs):
    return module(*args, **kwargs)


_RUNNERS: dict = {}
RUNNER_CODES: dict = {}  # id(compiled fn) -> its code object (for cache-entry counts)


def compiled_runner(cls, sig, mode, cfg: CompileConfig):
    key = (cls, sig, mode, cfg.backend, cfg.dynamic, cfg.fullgraph, cfg.recompile_limit, cfg.keep_casts)
    fn = _RUNNERS.get(key)
    if fn is not None:
        return fn
    with compile_lock:
        fn = _RUNNERS.get(key)
        if fn is not None:
            return fn
        digest = hashlib.sha1(repr((sig, mode, cfg.backend, cfg.dynamic, cfg.fullgraph, cfg.keep_casts)).encode()
                              ).hexdigest()[:10]
        name = "accel_" + re.sub(r"\W", "_", cls.__name__) + "_" + digest
        code = _runner_template.__code__.replace(co_name=name)
        if hasattr(code, "co_qualname"):
            code = code.replace(co_qualname=name)
        raw = types.FunctionType(code, _runner_template.__globals__, name)
        fn = torch.compile(raw, **_compile_kwargs(mode, cfg, patched=_has_patches(sig)))
        _RUNNERS[key] = fn
        RUNNER_CODES[id(fn)] = code
        return fn


def _has_patches(sig: str) -> bool:
    """Whether a runner's signature (accel.compile.signature) names model patches that run inside the compiled code."""
    return any(part.startswith(("patches=", "replace=")) for part in (sig or "").split("|"))


KEPT_CASTS = ("roundings: the whole model compiles with eager's 16-bit roundings kept (inductor's "
              "emulate_precision_casts): ComfyUI's code outside the blocks computes as stock does (without it Flux.1's "
              "guidance embedding moved and its final latent deviated)")
NO_CASTS = ("roundings: this torch's inductor cannot keep eager's 16-bit roundings (no emulate_precision_casts), so "
            "the whole model compiles with its own and can move away from stock's result (Flux.1's did, measured on an "
            "H200): set scope to blocks, or update torch")


def keeps_casts(backend: str, whole: bool) -> tuple[bool, str | None]:
    """(whether a region compiles with eager's 16-bit roundings kept, the report's line about it or None). A region over
    the whole diffusion model (`whole`) keeps them (inductor's `emulate_precision_casts`); where this torch lacks the
    option the line says so (logged once). Inductor fuses a 16-bit operation into the next one in fp32 and drops the
    rounding between them; in the code outside the blocks that can change what the model computes, not only its last
    bits: Flux.1's guidance embedding reads ComfyUI's bf16 guidance, stock's 1000 * 3.5 rounds to 3504 in bf16 where the
    fused kernel kept 3500, and every sinusoid of the embedding moved
    (bench/results/h200/family_033_flux_1024_model_scope_shared/: final-latent cosine 0.9527 to stock;
    tests/compile/test_compile.py reproduces it on the CPU). The blocks keep inductor's default: their fusions change
    rounding only (wherever the blocks were measured, they stood at stock's rounding)."""
    if backend != "inductor" or not whole:
        return False, None
    if not inductor_has("emulate_precision_casts"):
        log.warn_once(("compile", "no_casts"), "compile: %s", NO_CASTS)
        return False, NO_CASTS
    return True, KEPT_CASTS


def _compile_kwargs(mode, cfg: CompileConfig, patched: bool = False) -> dict:
    kw = {"backend": cfg.backend, "fullgraph": cfg.fullgraph, "dynamic": cfg.dynamic}
    gf = (_guard_filter_patched if patched else _guard_filter) if guard_filter_supported() else None
    if cfg.backend == "inductor":
        opts = inductor_mode_options(mode)  # options instead of mode: torch refuses both, and the filter needs options
        if cfg.keep_casts:
            opts["emulate_precision_casts"] = True
        if gf is not None:
            opts["guard_filter_fn"] = gf
        if inductor_has("pre_grad_custom_pass"):
            from .passes import pre_grad_pass

            p = pre_grad_pass()  # the FFN epilogue and the traced RoPE (accel.compile.passes)
            if p is not None:
                opts["pre_grad_custom_pass"] = p
        if opts:
            kw["options"] = opts
        else:
            kw["mode"] = mode
    elif gf is not None:
        kw["options"] = {"guard_filter_fn": gf}
    if compile_accepts("recompile_limit"):
        kw["recompile_limit"] = cfg.recompile_limit
    return kw


# transformer_options entries whose VALUE must stay guarded where code inside a compiled block reads them:
# the pack's own per-call switches (the hybrid attention schedule's flag accel.attention.hybrid.EXACT_FLAG: without
# its guard the graph compiled on an exact step ran on every later step — seen on an H200, Level-1 quality
# fast computed like exact). Nothing in ComfyUI's blocks reads them, so a stock model compiles as before.
# (block_index is NOT kept: ComfyUI's own SD/SDXL transformer block reads it, and a guard on it would compile
# one graph per block; the hybrid block rule reads it outside the graph instead, accel/attention/override.py.)
_KEEP_GUARDS_ON = (keys.ATTENTION + ".",)


# ... and, where model patches run inside the compiled code (a runner whose signature names them: IPAdapter-style
# attention patches on a UNet), the values ComfyUI's UNet walk sets outside a compiled layer and its block reads to
# find the patch of this block: without these guards the patch found for the first layer compiled would serve every
# layer. One graph per block then, only for the patched runner.
_KEEP_GUARDS_PATCHED = _KEEP_GUARDS_ON + ("['block']", "['transformer_index']")


def _keep(entries, kept) -> list:
    return [("transformer_options" not in e.name) or e.guard_type == "TENSOR_MATCH"
            or any(k in e.name for k in kept) for e in entries]


def _guard_filter(entries):
    """Keep every guard except those on transformer_options (tensor shape/dtype guards there stay, and so do
    the guards on the pack's own switches in _KEEP_GUARDS_ON: one graph per value, two for a bool)."""
    return _keep(entries, _KEEP_GUARDS_ON)


def _guard_filter_patched(entries):
    """`_guard_filter` for a runner with model patches inside: also keeps _KEEP_GUARDS_PATCHED."""
    return _keep(entries, _KEEP_GUARDS_PATCHED)
