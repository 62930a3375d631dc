"""Text reports shown by nodes and logged at patch time."""
from __future__ import annotations

from . import defaults, hardware


def comfy_device():
    """Old name of `hardware.comfy_device` (kept while nodes import it from here)."""
    return hardware.comfy_device()


def profile(refresh: bool = False):
    """Old name of `hardware.profile` (kept while nodes import it from here); looks it up at each call, so a test
    that patches `hardware.profile` reaches callers of either name."""
    return hardware.profile(refresh)


def hardware_report(refresh: bool = False) -> str:
    p = hardware.profile(refresh)
    d = defaults.choose(p)
    lines = ["comfyui-accel hardware report"] + p.summary_lines() + d.report_lines()
    text = "\n".join(lines)
    return text
