"""Every key the pack registers on a MODEL clone, in one place and one scheme: ``accel.<module>``.

They name wrappers and callbacks in ``model_options`` (``add_wrapper_with_key`` / ``add_callback_with_key``)
and entries of ``transformer_options``, so a patched model says which of our nodes touched it, and a second
node of the same kind replaces or merges with the first instead of stacking. The name after ``accel.`` is
the package under ``accel/`` that owns the key (``accel.live_report``: ``accel/common/live_report.py``).
Runtime only: nothing here is saved in a workflow.
"""
from __future__ import annotations

COMPILE = "accel.compile"            # accel/compile: APPLY_MODEL wrapper
CACHE = "accel.cache"                # accel/cache: config dict in transformer_options + its wrappers
CACHE_RUN = "accel.cache.run"        # accel/cache: one sampling run's state, only in that run's model_options copy
CUDA_SETTINGS = "accel.cuda_settings"  # accel/cuda_settings: torch flags scoped to this model's sampling
WAN_LEVEL1 = "accel.wan_level1"      # accel/wan_level1: the preset's own callback
MULTIGPU = "accel.multigpu"          # accel/multigpu: the worker pool wrapper
ATTENTION = "accel.attention"        # accel/attention: hybrid-schedule APPLY_MODEL wrapper + its flag in
                                     # transformer_options
REPORT = "accel.live_report"         # accel/common/live_report: OUTER_SAMPLE wrapper that updates a node's report after
                                     # a run
FP8 = "accel.fp8"                    # accel/fp8: ON_DETACH callback that frees the LoRA factors cached on the layers

ALL = (COMPILE, CACHE, CACHE_RUN, CUDA_SETTINGS, WAN_LEVEL1, MULTIGPU, ATTENTION, REPORT, FP8)
