"""Text reports shown by nodes and logged at patch time."""
from __future__ import annotations

from . import defaults, hardware


def hardware_report(refresh: bool = False) -> str:
    p = hardware.profile(refresh)
    d = defaults.choose(p)
    lines = ["comfyui-accel hardware report"] + p.summary_lines() + d.report_lines()
    text = "\n".join(lines)
    return text
