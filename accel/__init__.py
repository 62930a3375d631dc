"""The layer that knows ComfyUI: one package per feature (attention, cache, compile, cuda_settings, fp8,
multigpu, vae, wan_level1), `common/` (what they share: errors, log, keys, families, hardware profile, defaults
table, figures) and `comfy_compat.py` (every probe of a ComfyUI version's features).

Modules here import ComfyUI lazily (inside functions) so that `common.hardware` and `common.defaults` stay usable
without ComfyUI, and nothing heavy is imported when ComfyUI starts.
"""
