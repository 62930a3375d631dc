"""The text Accel Compile shows: settings, guard filter, epilogue, memory, cache and status."""
from __future__ import annotations

import re

import torch

from ..common.report import Report, Section
from . import cache as compile_cache
from . import config
from .config import CompileConfig, CompileStatus
from .dynamo_compat import guard_filter_supported, inductor_has
from .graphs import ASYNC_ALLOCATOR


def _not_applied(memory_note: str) -> str:
    """Where resident_weights or CUDA graphs were asked for and the model kept streaming, which one and why, short (the
    memory line's reason up to its details: apply._clone writes `; {what}: {reason}`), for the report's first line."""
    for what, name in ((config.RESIDENT_KEPT, "resident_weights"), (config.GRAPHS_KEPT, "CUDA graphs")):
        _, found, reason = memory_note.partition(f"; {what}: ")
        if found:
            short = re.split(r": | [(]|\n", reason, maxsplit=1)[0]
            return f"{name} not applied: {short}; "
    return ""


def compile_report(base, cfg: CompileConfig, st: CompileStatus, region_note: str, cache_info,
                   memory_note=None, family_line=None) -> Report:
    chain = " -> ".join(cfg.chain) + " -> eager"
    head = (f"mode {st.mode} ({cfg.backend}), scope {region_note}, dynamic {cfg.dynamic_text}, "
            f"fullgraph {'on' if cfg.fullgraph else 'off'}, recompile limit {cfg.recompile_limit}")
    if memory_note and (cfg.resident or cfg.cuda_graphs or memory_note.startswith(config.MEMORY_OFF)):
        # the user asked where the weights live, or the pack moved them (one region over the whole model): say it first
        if memory_note.startswith(config.MEMORY_OFF):
            head += ", weights resident (DynamicVRAM off for this model)"
        elif memory_note.startswith(config.MEMORY_KEPT):
            head += f", weights streamed by ComfyUI ({_not_applied(memory_note)}see memory below)"
    lines = []
    if len(cfg.chain) > 1:
        lines.append(f"  fallback chain: {chain}")
    if guard_filter_supported():
        lines.append("  guard filter: transformer_options ignored (LoRA, cond/uncond, cache and option changes do not "
                     "recompile; attention backends are keyed separately)")
    else:
        lines.append(f"  guard filter: unavailable on torch {torch.__version__}; LoRA/attention changes may recompile")
    if cfg.backend == "inductor" and config.GELU_EPILOGUE and inductor_has("pre_grad_custom_pass"):
        lines.append("  FFN epilogue: Linear -> GELU(tanh) runs as one cuBLASLt matmul with the GELU in its epilogue "
                     "(one memory pass fewer per FFN; same math)")
    if cfg.backend == "inductor" and config.ROPE_TRACE and inductor_has("pre_grad_custom_pass"):
        from ...kernels import rope_trace

        if rope_trace.available():
            lines.append("  RoPE: where the model calls comfy-kitchen's rotary-embedding ops (or its fused adaptive "
                         "layer norms: LTX-Video, newer ComfyUI's Wan), the compiled blocks run them as "
                         "comfy-kitchen's own eager math, fused by inductor (no Python dispatch per call; same math, "
                         "rounding level)")
    if cfg.cuda_graphs:
        lines.append("  CUDA graphs: on: from the second call of a resolution and batch, each model call is replayed "
                     "as one CUDA graph while the weights stay where they are (same kernels; captured per run, dropped "
                     "after it); where that would not be the same computation the call runs compiled and the report "
                     "says why")
    if memory_note:
        lines.append("  " + memory_note)
    if cfg.prefetch is not None:
        lines.append("  weights: prefetch on: while a block runs, the next block's streamed weights are fetched "
                     "(ComfyUI's own cast functions, the same computations: bit for bit in the CPU tests; ComfyUI "
                     "keeps deciding what stays in VRAM). After a "
                     "run this report says which path ran: streaming with prefetch, fully resident, or ComfyUI's own")
    if family_line:
        lines.append("  " + family_line)
    if cache_info is not None:
        lines.append("  cache: " + compile_cache.describe())
    if st.fell_back:
        lines.append(f"  status: EAGER - {st.reason}")
    elif st.calls == 0:
        lines.append("  status: compiles on the first sampling step (lazy)")
    else:
        lines.append(f"  status: {st.compile_seconds:.1f} s compiling so far, {st.graphs} graph(s), "
                     f"{st.recompiles} recompile(s)"
                     + (f" (last: {st.last_recompile_reason})" if st.last_recompile_reason else ""))
        if st.graph_breaks:
            lines.append(f"  graph breaks: {st.graph_breaks} inside the compiled blocks (the code between the graphs "
                         f"runs eager; latest: {st.break_reason or 'reason not recorded'})")
        if st.frames_at_limit:
            lines.append(f"  PARTLY EAGER: dynamo reached its recompile limit on {st.frames_at_limit} piece(s) of the "
                         "blocks, which run eager from then on (last guard that failed: "
                         f"{st.limit_reason or 'not recorded'})")
        lines += ["  " + g for g in graph_lines(st.as_dict())]
    for md, why in st.failures:
        lines.append(f"  failed: {md}: {why}")
    return Report([Section("compile", head, lines)])


def graph_lines(st: dict) -> list[str]:
    """What the CUDA-graph path did in the model's last sampling run (compile_status's dict), as report lines."""
    run = st.get("graph_last_run") or {}
    if not run.get("calls"):
        return []
    text = f"CUDA graphs: {run['replays']} of {run['calls']} model calls replayed ({run['captures']} captured)"
    if run.get("reason"):
        text += f"; the others ran compiled: {run['reason']}"
    return [text]


def allocator_hint() -> str:
    """The line for a run whose weights streamed under cudaMallocAsync: what ComfyUI's --disable-cuda-malloc measured
    on a streaming card (bench/results/h200/e2e_lightx2v_033/card12_flags/: over the budget, an allocation gives back
    resident weight pages, which the next block call faults in again; PyTorch's own allocator keeps its blocks)."""
    from ..common import figures

    without = figures.fig("e2eflag.h200.12.shipped.later.total")
    with_ = figures.fig("e2eflag.h200.12.shipped_nocm.later.total")
    return (f"for more: the weights streamed under cudaMallocAsync (ComfyUI's default allocator); starting ComfyUI "
            f"with --disable-cuda-malloc took the shipped Wan 2.2 graph's Queue on a 12 GB card from {without.text} "
            f"to {with_.text} (H200, {figures.RESULTS}/{with_.file}); it changes the allocator of the whole process")


def run_lines(st: dict) -> list[str]:
    """What the sampling runs of a model compiled so far (`compile_status` as a dict), as lines for the report after
    the run (accel.common.live_report); [] where the model carries no compile wrapper."""
    if not st.get("enabled"):
        return []
    lines = []
    if st["fell_back"]:
        lines.append(f"compile: FELL BACK TO EAGER after {st['calls']} call(s): {st['reason']}")
    elif st["calls"]:
        text = (f"compile: ran compiled ({st['mode']}), {st['regions']} region(s), {st['graphs']} graph(s), "
                f"{st['compile_seconds']:.1f} s compiling, {st['recompiles']} recompile(s)")
        if st["recompile_limit_hit"]:
            text += "; RECOMPILE LIMIT HIT: new shapes run eager"
        if st.get("frames_at_recompile_limit"):
            text += (f"; PARTLY EAGER: {st['frames_at_recompile_limit']} piece(s) of the blocks reached dynamo's "
                     f"recompile limit (last guard that failed: {st.get('limit_reason') or 'not recorded'})")
        lines.append(text)
        if st.get("graph_breaks"):
            lines.append(f"  {st['graph_breaks']} graph break(s) inside the blocks (the code between the graphs runs "
                         f"eager; latest: {st.get('break_reason') or 'reason not recorded'})")
        plans = st.get("quantized_plans") or {}
        if plans:
            from .quantized import describe

            lines.append("  " + describe(plans))
        lines += ["  " + g for g in graph_lines(st)]
        if st.get("streamed_regions") and not (st.get("prefetch") or {}).get("line"):
            how = ("the stored weights cast to the compute dtype per call, as stock casts them"
                   if st.get("memory", "").startswith(config.MEMORY_OFF) else "ComfyUI streams them")
            lines.append(f"  weights: {st['streamed_regions']} of {st['regions']} compiled region(s) fetched their "
                         f"weights in the last model call ({st['fetch_host_ms']:.1f} ms of host time; {how})")
    if (st.get("prefetch") or {}).get("line"):
        lines.append(st["prefetch"]["line"])
    if st.get("allocator") == ASYNC_ALLOCATOR and (st.get("prefetch") or {}).get("streamed_blocks"):
        lines.append(allocator_hint())
    if st.get("cache_note"):
        lines.append("  " + st["cache_note"])
    for mode, why in st.get("failures", [])[:3]:
        if not st["fell_back"] or why not in st["reason"]:
            lines.append(f"  failed with mode {mode}: {why}")
    return lines
