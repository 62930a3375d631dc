"""torch.compile for a ComfyUI MODEL that users can trust: regional, LoRA-safe, bounded recompiles,
warm restarts, and a fallback that never fails the prompt.

How it hooks in (the APPLY_MODEL wrapper pattern of core's comfy_api/torch_helpers/torch_compile.py):
a wrapper registered with `add_wrapper_with_key(APPLY_MODEL, "accel.compile", ...)` on a clone swaps a
thin `_Region` in place of each compiled module (each transformer block, or the whole diffusion
model) only for the duration of `BaseModel.apply_model`, then puts the originals back. The shared
nn.Module is never modified outside that call, so other MODEL outputs of the same loader stay eager.

What makes it trustworthy:
- One compiled function for all blocks of a class. `_Region` calls a runner `f(block, *args)`;
  with dynamo's inlined nn.Modules the block's parameters are graph inputs, so every Wan block (and
  both Wan 2.2 experts) reuse ONE graph. Non-contiguous tensor arguments are made contiguous first
  (Wan's first block receives a transposed view): otherwise block 0 needs its own graph.
- Guard filter: guards on `transformer_options` are dropped (except tensor shape/dtype guards), so
  LoRA clones, cond/uncond lists, sigmas, wrappers and deep-copied option objects never recompile.
  It is passed through inductor `options` (not `mode`), so it also holds for the max-autotune modes.
  What transformer_options does change inside the compiled code — the attention override and block
  patches — is summarised in a stable signature; each signature gets its own runner (its own
  dynamo cache), so swapping the attention backend can never run stale code.
- LoRA: weights are patched into the module by ComfyUI before apply_model, outside the compiled
  region; a LoRA loaded before or after this node takes effect and a strength change recompiles
  nothing. Compiled runners are cached per (block class, signature, settings) at module level, so a
  node re-executed for a new LoRA strength reuses them too.
- Shapes: `dynamic="auto"` compiles static first; a new resolution / frame count recompiles once
  (dynamo marks the changed dims dynamic) and the reason is logged.
- Memory: ComfyUI keeps managing the weights. Under DynamicVRAM (0.33) and in partial loads, each
  compiled block's weights are fetched eagerly just before it runs (accel.compile.stream), so the model
  is never forced resident and per-call LoRA patches never reach a guard.
- Failures (no triton, no C compiler, fp8e4nv on sm < 89, an unsupported op, ...) at compile or at
  any call: the call is re-run eagerly; if that succeeds, the next mode of the chain is used (or
  eager for the rest of this model's life), with one log line. `policy=Policy.ERROR` raises an
  AccelError instead once the chain is exhausted.
- Warm restarts: accel.compile.cache points inductor's on-disk caches at a persistent folder.

Nothing here imports torch._dynamo / torch._inductor at module import time.

Layout (one concern per file): ``options`` (the contract: `CompileOptions`, `apply(model, options)`), ``config``
(settings, status per model), ``apply`` (the entry points), ``preflight`` (failures found before compiling),
``wrapper`` (the APPLY_MODEL wrapper, regions, fallback), ``runners`` (compiled functions and their torch.compile
arguments), ``signature`` (what transformer_options changes in compiled code), ``report``, ``stream`` (DynamicVRAM
block fetch), ``cache`` (persistent inductor cache), ``dynamo_compat`` (every private torch symbol compile reads).
This package re-exports the public API.
"""
from __future__ import annotations

from ..common import live_report
from .apply import after_run_lines, clear_cache, compile_model, compile_status
from .config import BACKENDS, CORE_WRAPPER_KEY, DYNAMIC, MODES, SCOPES, WRAPPER_KEY, CompileConfig, CompileStatus
from .options import CompileOptions, apply_compile
from .wrapper import CompileWrapper

live_report.register_after_run(after_run_lines, order=0)  # first: the report's first line after a run

__all__ = ["BACKENDS", "CORE_WRAPPER_KEY", "DYNAMIC", "MODES", "SCOPES", "WRAPPER_KEY", "CompileConfig",
           "CompileOptions", "CompileStatus", "CompileWrapper", "apply_compile", "clear_cache", "compile_model",
           "compile_status"]
