"""Step caching for diffusion transformers (TeaCache, MagCache, and calibration of both) built only from
ComfyUI's sanctioned hooks: no model forward code is copied, nothing global is patched.

Design
------
Three wrappers, registered under one key (``accel.cache``, accel/common/keys.py) on a *clone* of the MODEL, like core's
EasyCache (``comfy_extras/nodes_easycache.py``):

* ``OUTER_SAMPLE`` — once per sampling run. Builds the run's state (``Run``: per cond/uncond chunk
  accumulators and residual caches, statistics) *inside* the run, so nothing heavy lives in
  ``model_options`` (ComfyUI 0.3.75's ``clone()`` deep-copies it: only a small config dict is stored there).
  In the guider's per-run copy of ``model_options`` it then installs one ``patches_replace["dit"]``
  entry per transformer block that *chains* to whatever entry another node put there (any node order:
  it looks at the final set of patches when sampling starts). A replace patch set at node time with
  ``set_model_patch_replace`` would be a single slot per block: it would overwrite, or be overwritten by,
  the patch of any other node applied later. At the end it logs the statistics.
* ``CALC_COND_BATCH`` — brackets one model evaluation (cond + uncond) for the step statistics.
* ``DIFFUSION_MODEL`` — opens a call context (chunk keys from ``cond_or_uncond`` + ``uuids``, in whatever
  order ComfyUI batched them; sigma → schedule percent; first/last step; the timestep) for the block hooks.

The skip/compute decision happens in the hook of the first block, with the block's own arguments:
embeddings and the head/unpatchify always run (so the head sees this step's timestep modulation, as in
the reference TeaCache), and only the transformer blocks are skipped:

* skip: the first block returns ``img + cached residual`` (per chunk), every other block passes its input
  through;
* compute: every block runs through the chain (other nodes' block patches, then ComfyUI's block, which is
  the ``torch.compile``d one while the compile node's APPLY_MODEL wrapper has swapped it in), and the last
  block stores ``residual = img_out - img_in`` per chunk. Attention overrides
  (``transformer_options["optimized_attention_override"]``) are untouched and apply on every computed
  step.

Signals: Wan uses the timestep embedding as TeaCache does for Wan (``e0`` = the projection the blocks get,
for the ``*_ret_mode`` sets; ``e`` = the time embedding, recomputed from the timestep with the model's own
``time_embedding`` module, for the others). Flux/HunyuanVideo use the modulated input of the first double
block (computed with that block's own ``img_mod``/``img_norm1`` modules). MagCache needs no signal:
it accumulates the published per-step magnitude ratios, one table entry per step.

Which steps may be skipped, and how the accumulators evolve, follows the reference implementations' rules,
restated with citations in ``schedule.py``; the runtime measures the TeaCache signal and applies
those rules per cond/uncond chunk (a batched call is skipped only when every chunk may skip).

The step of a call is its sigma's index in the run's sigmas; a KSamplerAdvanced partial run (``sample_sigmas``
is sliced: Wan 2.2 A14B high/low-noise experts, denoise < 1) is placed in the whole schedule from the schedule
percents of its first and last sigma (read through the model's ``model_sampling``), so the start/end inputs and
the published tables refer to the whole schedule.

Not cacheable with this mechanism (refused at the node or computed normally with one warning): models whose
forward adds per-block injections outside the block call (Wan VACE/S2V/Animate, ControlNet residuals,
post-block ``patches["double_block"]``), multi-GPU clones (one state per device would be needed).

Layout (one concern per file): ``keys`` (where the cache lives on a MODEL), ``adapters`` (per model family),
``settings`` (node inputs, coefficient sets, effective values), ``state`` (one sampling run: ``Run``), ``policy``
(what each cache mode does in a run: one small policy per mode, no mode branches elsewhere), ``hooks``
(block hook and wrappers), ``configure`` (the nodes' entry points), ``report`` (run statistics), ``schedule`` (the
reference skip rules), ``calibrate`` (Accel Cache Calibrate's files and fits), ``any_model`` (Accel Cache (any
model)). This package re-exports the public API the nodes use.
"""
from __future__ import annotations

from .adapters import ADAPTERS, SIGNAL_TEXT, adapter_for_model
from .configure import configure_calibration, configure_magcache, configure_teacache, name_error
from .keys import KEY, LOW_STEPS, MODES, RUN_KEY, WRAPPER_KEY
from .report import RunStats, last_stats
from .settings import RECOMMENDED, check_choice, effective_settings, empty_window_text, load_set

__all__ = ["ADAPTERS", "KEY", "LOW_STEPS", "MODES", "RECOMMENDED", "RUN_KEY", "SIGNAL_TEXT", "WRAPPER_KEY", "RunStats",
           "adapter_for_model", "check_choice", "configure_calibration", "configure_magcache", "configure_teacache",
           "effective_settings", "empty_window_text", "last_stats", "load_set", "name_error"]
