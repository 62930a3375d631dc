"""Accel Attention: a per-MODEL attention backend through ComfyUI's `optimized_attention_override` hook.

Layout: ``options`` (the contract: `AttentionOptions`, `apply(model, options)`), ``override`` (the override
object, backend choice and probing, `patch_attention`), ``hybrid`` (the schedule of low-precision backends: exact
attention on the first/last sampling steps).
"""
