"""Accel Attention: a per-MODEL attention backend through ComfyUI's `optimized_attention_override` hook.

Layout: ``options`` (the contract: `AttentionOptions`, `apply(model, options)`), ``override`` (the override
object, backend choice and probing, `patch_attention`), ``hybrid`` (the schedule of low-precision backends: exact
attention on the first/last sampling steps).
"""
from __future__ import annotations

from ..common import live_report
from .hybrid import after_run_lines

live_report.register_after_run(after_run_lines, order=10)
