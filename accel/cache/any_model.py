"""Accel Cache (any model): a step cache that needs no fitted coefficients.

It runs on the step-cache machinery of ``accel/cache/`` (same wrappers, same per-chunk residual cache,
same first-block hook in ``patches_replace["dit"]``); what differs is the rule that decides whether a step may
reuse the cached transformer residual with the per-chunk state it needs (``any_model_rule.py``, called by the run's
state) and the configuration and report (this module).

The rule (idea of EasyCache, arXiv 2507.02860, and of ComfyUI core's ``comfy_extras/nodes_easycache.py``: the
transformer's output changes roughly in proportion to its input, with a rate that drifts slowly, so the rate
measured on the last computed steps predicts the next change; restated here in the token space of the blocks):

* measured in the hook of the first block, per cond/uncond chunk: ``din`` = relative L1 change of the image tokens
  entering the first block since the last *computed* step (mean |x - x_c| / mean |x_c|);
* on every computed step the relative L1 change of the transformer residual (blocks' output minus input) since
  the previous computed step, ``dres``, gives the rate ``k = dres / din``;
* estimate for the current step: ``est = k * din`` = the relative change of the residual since it was cached,
  i.e. the relative error of reusing it. Skip while ``est < threshold``. The estimate grows with every skipped
  step (din is measured against the last computed step), so it is the accumulated change, not a per-step one.

Never skipped: the first two steps of a run (no rate yet), steps outside start/end, the last step, any step
whose rate or input change is not finite, and any step whose input moved more than ``MAX_EXTRAPOLATION`` times
the per-step change the rate was measured on (the linear estimate is outside the range it was measured on).
Measured deviation: when a step is computed after skipped steps, ``dres`` is the actual relative change of the
residual against the cached one that the skipped steps used; the report gives its largest and mean value.

Under Accel Compile: with its default scope ('blocks') the decision, the measures and the cached tensors live in
the block hooks, which run eagerly *between* the compiled blocks (``compile.signature.options_signature`` leaves
``patches_replace['dit']`` out of the compiled code's key, so a new run's hooks recompile nothing); with scope
'model' dynamo traces the hooks too, with graph breaks at the decision's ``.tolist()`` (tested: same skips and
output as uncompiled, backend 'eager'). Core's EasyCache keeps its decision and state in a DIFFUSION_MODEL
wrapper, i.e. inside ``diffusion_model.forward``, which core's TorchCompileModel compiles whole by default: its
``.item()`` calls and state changes are traced there. Issue #14 reports that it does not work under compile; on
CPU with backend 'eager' (Accel Compile scopes blocks/model, core TorchCompileModel) it gave the same output as
uncompiled here, so that failure, if it is one, is specific to inductor / CUDA graphs and was not reproduced.
"""
from __future__ import annotations

import math

from ..common import log
from ..common.errors import AccelError, current_title
from ..common.families import detect
from .adapters import ADAPTERS
from .adapters import adapter_for_model as wan_adapter
from .any_model_rule import MAX_EXTRAPOLATION
from .hooks import attach, multigpu_lines, new_id
from .keys import LOW_STEPS
from .report import stats_lines
from .settings import empty_window_text

DEFAULT_THRESHOLD = 0.1
DEFAULT_START = 0.15
DEFAULT_END = 0.95

# family id (accel.common.families) -> adapter name (accel.cache.ADAPTERS): every family the pack knows.
ADAPTER_OF_FAMILY = {"wan21": "wan", "wan22": "wan", "flux": "flux", "hunyuan_video": "hunyuan_video",
                     "qwen_image": "qwen_image", "ltxv": "ltxv"}
FAMILIES_TEXT = "Wan 2.1/2.2 (T2V, I2V/FLF, TI2V), Flux.1/Kontext, Qwen-Image, HunyuanVideo, LTX-Video"


# ============================================================================ configuration (the node calls this)
def adapter_for_model(model):
    """(adapter or None, Family, reason): every family in ADAPTER_OF_FAMILY, with the same exclusions as the
    coefficient-based caches (Wan VACE/S2V/Animate inject per block outside the block call)."""
    fam = detect(model)
    name = ADAPTER_OF_FAMILY.get(fam.family)
    if name is None:
        return None, fam, (f"{fam.name} is not supported by the coefficient-free step cache (it supports "
                           f"{FAMILIES_TEXT})")
    if name == "wan":
        return wan_adapter(model)
    return ADAPTERS[name], fam, ""


def check_inputs(threshold, start_percent, end_percent):
    """AccelError naming the input for values the rule cannot use (before anything runs)."""
    for name, v in (("threshold", threshold), ("start_percent", start_percent), ("end_percent", end_percent)):
        if not math.isfinite(float(v)):
            raise AccelError(name, f"{v} is not a number", f"Set {name} to a number (see its tooltip)")
    if threshold < 0:
        raise AccelError("threshold", f"{threshold:g} is negative",
                         f"Set threshold to 0 (never skip) or more (default {DEFAULT_THRESHOLD:g})")
    for name, v in (("start_percent", start_percent), ("end_percent", end_percent)):
        if not 0.0 <= v <= 1.0:
            raise AccelError(name, f"{v:g} is outside 0..1", f"Set {name} between 0 and 1")
    if start_percent > end_percent:
        raise AccelError("start_percent", f"start_percent {start_percent:g} is after end_percent {end_percent:g}",
                         "Make start_percent smaller than end_percent")


def configure(model, threshold: float = DEFAULT_THRESHOLD, start_percent: float = DEFAULT_START,
              end_percent: float = DEFAULT_END, cache_device: str = "GPU", node_id=None):
    """Clone `model` with the coefficient-free step cache. Returns (model, report)."""
    title = current_title() or "coefficient-free step cache"
    check_inputs(threshold, start_percent, end_percent)
    adapter, fam, reason = adapter_for_model(model)
    if adapter is None:
        raise AccelError("model", reason, "Use this node only with the models listed in its description, or "
                         "remove it (the run is exact without it)")
    cfg = {"mode": "any_model", "id": new_id(node_id), "title": title, "node_id": node_id,
           "adapter": adapter.name, "set": "", "entry": {}, "candidates": [], "thresh": float(threshold),
           "start": float(start_percent), "end": float(end_percent), "K": None, "cache_device": cache_device}
    m, replaced = attach(model, cfg)
    lines = [f"{title} on {fam.name}: no coefficients; decides per step from the measured change of the first "
             "transformer block's input and the rate at which the blocks' residual followed it on the last computed "
             "steps (estimate = rate x input change since the last computed step).",
             f"threshold {threshold:g} (largest estimated relative change of the reused residual); start "
             f"{start_percent:.0%}; end {end_percent:.0%}; residual cache on {cache_device}"]
    lines += multigpu_lines(model, title)
    if threshold == 0:
        lines.append("threshold 0: nothing is skipped (output identical to no cache)")
    lines.append(f"never skipped: the first two steps of every run (the rate needs two computed steps), the last "
                 f"step, steps outside start/end, and steps whose input moved more than {MAX_EXTRAPOLATION:g}x the "
                 f"per-step change the rate was measured on; runs of {LOW_STEPS} steps or fewer compute "
                 "every step")
    eff = {"start": float(start_percent), "end": float(end_percent), "src": {"start": "input"}}
    text = empty_window_text(eff)
    if text:
        log.warning("%s: %s", title, text)
        lines.append(text)
    if replaced:
        lines.append(f"replaced an earlier {replaced.get('title')} on this model")
    lines += stats_lines(node_id)
    log.info("%s: %s, threshold %g", title, fam.name, threshold)
    return m, "\n".join(lines)
