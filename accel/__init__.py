"""The layer that knows ComfyUI: hardware profile, defaults policy, ModelPatcher patching.

Modules here import ComfyUI lazily (inside functions) so that `hardware` and `defaults` stay usable
without ComfyUI, and nothing heavy is imported when ComfyUI starts.
"""
