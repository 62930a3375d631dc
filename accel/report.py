"""Text reports shown by nodes and logged at patch time."""
from __future__ import annotations

from . import defaults, hardware


def comfy_device():
    """ComfyUI's torch device, or None when ComfyUI is not importable (pure-library use)."""
    try:
        import comfy.model_management as mm

        return mm.get_torch_device()
    except Exception:
        return None


def profile(refresh: bool = False):
    return hardware.detect(comfy_device(), refresh=refresh)


def hardware_report(refresh: bool = False) -> str:
    p = profile(refresh)
    d = defaults.choose(p)
    lines = ["comfyui-accel hardware report"] + p.summary_lines() + d.report_lines()
    text = "\n".join(lines)
    return text
