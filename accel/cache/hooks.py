"""The step cache's hooks on a MODEL clone: the block hook (one patches_replace["dit"] entry per block) and the
three wrappers (OUTER_SAMPLE, CALC_COND_BATCH, DIFFUSION_MODEL) registered under one key."""
from __future__ import annotations

import uuid

from .. import comfy_compat
from ..common import log
from .keys import KEY, RUN_KEY, WRAPPER_KEY
from .state import Run, find_to


class _BlockHook:
    """One `patches_replace["dit"][key]` entry for one run; chains to the entry it replaced."""

    __slots__ = ("run", "index", "last", "prev")

    def __init__(self, run: Run, index: int, last: bool, prev):
        self.run, self.index, self.last, self.prev = run, index, last, prev

    def _original(self, args, extra):
        if self.prev is not None:
            return self.prev(args, extra)
        return extra["original_block"](args)

    def __call__(self, args, extra):
        run = self.run
        call = run.call
        if call is None:
            return self._original(args, extra)
        if self.index == 0:
            # per-run state kept across steps: allocated outside the Comfy Compiler's per-block record
            with comfy_compat.pause_malloc_graph():
                if run.decide(args):
                    return run.skip_output(args)
        elif not call.decided:
            return self._original(args, extra)
        elif call.skip:
            return run.adapter.skipped(self.index, args)
        out = self._original(args, extra)
        if self.last and call.record:
            with comfy_compat.pause_malloc_graph():
                run.store(out, args)
        return out


# ============================================================================ wrappers
def _outer_sample_wrapper(executor, *args, **kwargs):
    guider = executor.class_obj
    orig = guider.model_options
    cfg = (orig.get("transformer_options") or {}).get(KEY)
    if not cfg:
        return executor(*args, **kwargs)
    import comfy.model_patcher

    guider.model_options = comfy.model_patcher.create_model_options_clone(orig)
    sigmas = args[3] if len(args) > 3 else kwargs.get("sigmas")
    run = Run(cfg, guider.model_patcher, sigmas)
    to = guider.model_options.setdefault("transformer_options", {})
    to[RUN_KEY] = run
    dm = guider.model_patcher.get_model_object("diffusion_model")
    dit = dict((to.setdefault("patches_replace", {})).get("dit", {}))
    keys = run.adapter.keys(dm)
    for i, k in enumerate(keys):
        dit[k] = _BlockHook(run, i, i == len(keys) - 1, dit.get(k))
    to["patches_replace"] = dict(to["patches_replace"])
    to["patches_replace"]["dit"] = dit
    if "easycache" in to:
        log.warn_once(("stepcache-easycache", cfg["id"]), "%s and EasyCache/LazyCache are both on this model: "
                      "use one step cache", cfg.get("title"))
    try:
        try:
            out = executor(*args, **kwargs)
        except BaseException:
            run.finish(completed=False)  # interrupted or failed: record stats, write nothing
            raise
        error = run.finish(completed=True)
        if error is not None:
            raise error
        return out
    finally:
        guider.model_options = orig


def _calc_cond_batch_wrapper(executor, *args, **kwargs):
    model_options = args[-1] if args and isinstance(args[-1], dict) else kwargs.get("model_options", {})
    run = (model_options.get("transformer_options") or {}).get(RUN_KEY)
    if run is None:
        return executor(*args, **kwargs)
    run.begin_eval()
    try:
        return executor(*args, **kwargs)
    finally:
        run.end_eval()


def _diffusion_model_wrapper(executor, *args, **kwargs):
    to = find_to(args, kwargs)
    run = to.get(RUN_KEY) if to else None
    if run is None or run.call is not None:  # not ours, or a nested forward: run normally
        return executor(*args, **kwargs)
    run.begin_call(executor.class_obj, args, kwargs, to)
    try:
        return executor(*args, **kwargs)
    finally:
        run.end_call()


def attach(model, cfg: dict):
    import comfy.patcher_extension as pe

    m = model.clone()
    to = m.model_options.setdefault("transformer_options", {})
    replaced = to.get(KEY)
    to[KEY] = cfg
    for kind, fn in ((pe.WrappersMP.OUTER_SAMPLE, _outer_sample_wrapper),
                     (pe.WrappersMP.CALC_COND_BATCH, _calc_cond_batch_wrapper),
                     (pe.WrappersMP.DIFFUSION_MODEL, _diffusion_model_wrapper)):
        m.remove_wrappers_with_key(kind, WRAPPER_KEY)
        m.add_wrapper_with_key(kind, WRAPPER_KEY, fn)
    return m, replaced


def multigpu_lines(model, title: str) -> list:
    """A warning for the report (and the log) when `model` already samples through Accel Multi-GPU: its workers
    run the transformer blocks in other processes, where the step cache's wrappers do not reach, so the cache
    would skip (or record) nothing without a word. Accel Multi-GPU says the same when it comes after the cache."""
    import comfy.patcher_extension as pe

    from ..common import keys

    if not model.get_wrappers(pe.WrappersMP.DIFFUSION_MODEL, keys.MULTIGPU):
        return []
    text = (f"warning: {title} does nothing on this model: it samples through Accel Multi-GPU, whose worker processes "
            "run the transformer blocks where the step cache does not reach (nothing is skipped or recorded). Use "
            "the step cache without Accel Multi-GPU (or gpus=1)")
    log.warn_once(("stepcache", "multigpu", title), "%s", text)
    return [text]


def new_id(node_id) -> str:
    return f"{node_id if node_id is not None else 'x'}/{uuid.uuid4().hex[:8]}"
