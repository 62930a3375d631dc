"""Accel Compile's entry points: put the compile wrapper on a clone of a MODEL, read its status, clear the cache."""
from __future__ import annotations

from dataclasses import replace

from .. import comfy_compat
from ..common import log
from ..common.errors import AccelError, current_title
from ..common.report import Report
from . import cache as compile_cache
from .config import (
    CORE_WRAPPER_KEY,
    GRAPHS_KEPT,
    MEMORY_KEPT,
    MEMORY_OFF,
    RESIDENT_KEPT,
    WRAPPER_KEY,
    CompileConfig,
    status_for,
)
from .dynamo_compat import shares_block_graphs
from .graphs import CudaGraphs, resident_decision
from .preflight import fail_preflight, preflight_problem
from .report import compile_report
from .report import run_lines as report_run_lines
from .runners import keeps_casts
from .wrapper import CompileWrapper


def compile_model(model, cfg: CompileConfig) -> tuple[object, Report]:
    """A clone of `model` whose diffusion model runs compiled (lazily, on its first sampling step), with checked
    settings (accel.compile.config.validate, CompileOptions.config): returns (patched clone, Report)."""
    from ..common import families

    keys, region_note, fam = _region_keys(model, cfg.scope)
    unet = fam.family in families.UNET and keys == fam.block_keys  # a UNet's layers
    m, memory_note = _clone(model, cfg, whole=_WHOLE if keys == ["diffusion_model"] else _UNET if unet else None)
    removed = []
    for key in (WRAPPER_KEY, CORE_WRAPPER_KEY):
        if m.get_wrappers(_wrappers_mp().APPLY_MODEL, key):
            m.remove_wrappers_with_key(_wrappers_mp().APPLY_MODEL, key)
            removed.append(key)
    if CORE_WRAPPER_KEY in removed:
        log.info("compile: replaced ComfyUI core's TorchCompileModel wrapper on this model (one compile wrapper at a "
                 "time)")

    cfg.keys = tuple(keys)
    cfg.keep_casts, casts_note = keeps_casts(cfg.backend, keys == ["diffusion_model"])
    if len(keys) > 1 and not shares_block_graphs():
        # without inlined nn.Modules dynamo guards on each block's identity: one variant per block
        need = 2 * len(keys) + 8
        if cfg.recompile_limit < need:
            log.warn_once(("compile", "noinline"), "compile: torch._dynamo.config.inline_inbuilt_nn_modules is off, so "
                          "every block compiles separately; recompile limit raised from %d to %d", cfg.recompile_limit,
                          need)
            cfg.recompile_limit = need
    cache_info = compile_cache.activate() if cfg.backend == "inductor" else None
    status = status_for(m.model, cfg)
    if not status.fell_back:
        problem = preflight_problem(m, cfg)
        if problem:
            fail_preflight(status, cfg, problem)
    wrapper = CompileWrapper(cfg)
    m.add_wrapper_with_key(_wrappers_mp().APPLY_MODEL, WRAPPER_KEY, wrapper)
    cleanup = _callbacks_mp().ON_CLEANUP
    m.remove_callbacks_with_key(cleanup, WRAPPER_KEY)
    if cfg.cuda_graphs:  # the run's CUDA graphs and their memory go when ComfyUI cleans up after sampling
        m.add_callback_with_key(cleanup, WRAPPER_KEY, wrapper.end_run)
    status.memory = memory_note or ""
    compiler_note = comfy_compat.disable_comfy_compiler_for(m)  # None where this ComfyUI has no Comfy Compiler
    for note in (compiler_note, casts_note):
        if note:
            memory_note = f"{memory_note}\n  {note}" if memory_note else note
    report = compile_report(m.model, cfg, status, region_note, cache_info, memory_note, families.measured_text(fam))
    log.info("%s", report.details().splitlines()[0])
    return m, replace(report, summary=_first_screen(fam, report, status, cfg))


def _first_screen(fam, report, status, cfg: CompileConfig) -> tuple:
    """What is set to run (the node's title and the settings), the measured gain of the family's exact chain (compile
    is one part of it; with resident_weights, where the model loads resident and that was measured, the chain's
    figure with it; with scope model, where that was measured, its figure) and, where compile cannot run here, what
    to do about it. `fam`: the model's accel.common.families.Family."""
    from ..common import families, gains, hardware

    head = report.sections[0]
    prof = hardware.profile()
    resident = cfg.resident and (status.memory or "").startswith(MEMORY_OFF)
    chain = gains.RESIDENT if resident and gains.measured(gains.RESIDENT, fam, prof) else gains.EXACT
    if cfg.scope == "model" and gains.measured(gains.WHOLE, fam, prof):
        chain = gains.WHOLE
    lines = [f"{current_title() or head.title}: {head.text}", gains.gain_line(chain, fam, prof)]
    if status.fell_back:
        lines.append(f"for more: make compile run here ({status.reason})")
    elif cfg.scope == "blocks" and fam.family in families.UNET_MODEL_SCOPE:
        lines.append("for more, where the size stays: " + families.UNET_MODEL_SCOPE[fam.family])
    elif cfg.scope == "model" and (hint := gains.blocks_hint(fam, prof)):
        lines.append(hint)
    return tuple(lines)


def compile_status(model) -> dict:
    """Status of the compile wrapper on a MODEL (ModelPatcher): mode in use, whether it fell back and
    why, compile seconds and recompiles so far. `{"enabled": False}` when the model carries none."""
    ws = model.get_wrappers(_wrappers_mp().APPLY_MODEL, WRAPPER_KEY) if hasattr(model, "get_wrappers") else []
    if not ws:
        return {"enabled": False}
    w = ws[-1]
    base = getattr(model, "model", model)
    return w.status(base).as_dict()


def after_run_lines(patcher) -> list[str]:
    """The lines Accel Compile adds to a node's report after a sampling run of `patcher` (registered with
    accel.common.live_report by this package)."""
    try:
        st = compile_status(patcher)
        st["allocator"] = _allocator()
    except Exception:  # noqa: BLE001 - the report must never break a run
        return []
    return report_run_lines(st)


def _allocator() -> str:
    """PyTorch's CUDA allocator backend in this process (accel.compile.graphs); "" without CUDA."""
    import torch

    return CudaGraphs.allocator() if torch.cuda.is_available() else ""


def clear_cache() -> str:
    """Delete the persistent compile cache folder (see accel.compile.cache)."""
    return compile_cache.clear()


def _wrappers_mp():
    import comfy.patcher_extension as pe

    return pe.WrappersMP


def _callbacks_mp():
    import comfy.patcher_extension as pe

    return pe.CallbacksMP


def _fits(model) -> tuple[bool, str]:
    """Whether the model's weights and the room to sample fit the card's free VRAM now (accel.compile.graphs)."""
    import comfy.model_management as mm

    from ..common import defaults, hardware

    weights = int(model.model_size())
    room = int(mm.minimum_inference_memory() + defaults.SAMPLING_ROOM_FRACTION * weights)
    return resident_decision(weights, room, hardware.free_vram(hardware.profile()))


# Why some regions load their model resident where it fits, without resident_weights: one region over the whole
# diffusion model (`_WHOLE`), or a UNet's layers (`_UNET`: each fetch has little compute beside it); transformer blocks
# do not (each fetches its weights while the block before computes). (why, what streaming costs), as the report's
# memory line says it (bench/results/h200/family_033_sdxl/README.md)
_WHOLE = ("the whole model is one compiled region, which would fetch all its weights before it computes",
          "the whole model is one compiled region, which fetches all its weights before it computes (slower than "
          "stock while it streams)")
_UNET = ("its compiled UNet layers ran slower than stock while they streamed their weights",
         "its compiled UNet layers run slower than stock while they stream their weights")


def _clone(model, cfg: CompileConfig, whole: tuple | None = None):
    """(clone, memory note). A DynamicVRAM model stays dynamic where this ComfyUI has the block-fetch API
    (accel.compile.stream), unless CUDA graphs or `resident_weights` are on, or `whole` (`_WHOLE` / `_UNET`: the
    compiled region is the whole diffusion model, or SDXL's UNet layers), and it fits the card: then, as where that
    API is missing, `clone(disable_dynamic=True)` (what core's TorchCompileModel does): ComfyUI loads it the legacy
    way, resident where it fits, partly where it does not (a second model on the card later), and the compiled blocks
    no longer fetch each block's weights per call. One region over the whole model fetches every weight before any of
    its compute (nothing to overlap the fetch with, unlike stock's layer-by-layer stream), and SDXL's compiled layers
    fetching theirs ran slower than stock too (bench/results/h200/family_033_sdxl/README.md)."""
    if not comfy_compat.patcher_is_dynamic(model):
        return model.clone(), ("memory: ComfyUI's own loading (not DynamicVRAM): CUDA graphs replay while the model is "
                               "fully loaded" if cfg.cuda_graphs else None)
    why = comfy_compat.block_fetch_support()
    keep = (f"{MEMORY_KEPT} (ComfyUI streams the weights; each compiled block fetches its weights just before it "
            "runs)")
    if why is None and (cfg.cuda_graphs or cfg.resident or whole):
        wants = (GRAPHS_KEPT if cfg.cuda_graphs else RESIDENT_KEPT if cfg.resident
                 else f"{whole[1]}: kept streaming")
        fits, text = _fits(model)
        if not fits:
            keep += f"; {wants}: {text}"
        elif not (comfy_compat.clone_can_disable_dynamic(model) and comfy_compat.can_reload_patcher(model)
                  and model.cached_patcher_init is not None):
            keep += (f"; {wants}: its loader cannot re-create it without DynamicVRAM (no cached_patcher_init; a core "
                     "loader or Accel Load Diffusion Model (FP8) can)")
        elif (rounds := comfy_compat.legacy_load_rounds(model)) is not None:
            keep += f"; {wants}: {legacy_rounding_text(*rounds)}"
            log.warn_once(("compile", "legacy_rounds", id(model.model)), "compile: %s: %s", wants,
                          legacy_rounding_text(*rounds))
        else:
            why = (f"CUDA graphs need its weights resident, and {text}" if cfg.cuda_graphs
                   else f"resident_weights on, and {text}" if cfg.resident
                   else f"{whole[0]}, and {text}")
    if why is None:
        return model.clone(), keep
    if comfy_compat.clone_can_disable_dynamic(model):
        if getattr(model, "cached_patcher_init", None) is None:
            # ComfyUI would raise a bare "Cannot create non-dynamic delegate" RuntimeError here.
            raise AccelError("model", "this model is a DynamicVRAM model whose loader cannot re-create it "
                             "without DynamicVRAM (no cached_patcher_init), and torch.compile needs that",
                             "load it with a core loader (Load Diffusion Model / Load Checkpoint) or 'Accel Load "
                             "Diffusion Model (FP8)', or start ComfyUI with --disable-dynamic-vram")
        log.warning("compile: DynamicVRAM turned off for this model (%s); it loads like --disable-dynamic-vram", why)
        return model.clone(disable_dynamic=True), (f"{MEMORY_OFF} ({why}); "
                                                   "ComfyUI loads it the legacy way (resident, or partial on small "
                                                   "cards)")
    return model.clone(), None


def legacy_rounding_text(tensors: int, dtype: str) -> str:
    """The memory line's words where a resident load would change the model (comfy_compat.legacy_load_rounds)."""
    return (f"this file mixes {dtype} with wider tensors, and ComfyUI's resident load would round {tensors} of them to "
            f"{dtype} (another image than stock's; streamed, they stay as stored)")


def _region_keys(model, scope):
    """(module keys to compile, the report's scope text, the model's accel.common.families.Family)."""
    from ..common import families

    fam = families.detect(model)
    if scope == "blocks":
        if fam.family in families.UNET and fam.block_keys:
            return list(fam.block_keys), families.unet_layers_text(fam), fam
        if fam.block_keys:
            lists = sorted({k.rsplit(".", 1)[0] for k in fam.block_keys})
            return list(fam.block_keys), f"{len(fam.block_keys)} blocks of {fam.name} ({', '.join(lists)})", fam
        log.warn_once(("compile", "noblocks", fam.base_class),
                      "compile: no transformer block list found in %s; compiling the whole diffusion model", fam.name)
        return ["diffusion_model"], f"whole diffusion model ({fam.name} has no block list)", fam
    return ["diffusion_model"], f"whole diffusion model ({fam.name})", fam
