"""Accel Hardware Report: what this machine has and what the automatic modes would pick, and why."""
from __future__ import annotations

from ._common import CATEGORY_INFO


class AccelHardwareReport:
    DESCRIPTION = ("Shows this machine's GPU, software and attention libraries, and the defaults that the "
                   "pack's automatic modes (attention auto, compile mode, FP8 compute, TF32) pick here, each with its reason.")
    CATEGORY = CATEGORY_INFO
    FUNCTION = "report"
    OUTPUT_NODE = True
    RETURN_TYPES = ("STRING",)
    RETURN_NAMES = ("report",)
    OUTPUT_TOOLTIPS = ("The hardware profile and the automatic choices, as text.",)

    @classmethod
    def INPUT_TYPES(cls):
        return {
            "required": {
                "refresh": ("BOOLEAN", {"default": False,
                                        "tooltip": "Probe the machine again (e.g. after installing flash-attn or "
                                                   "sageattention) instead of using the profile cached at first use."}),
            }
        }

    @classmethod
    def IS_CHANGED(cls, refresh):
        return float("nan") if refresh else "static"

    def report(self, refresh):
        from ..accel import report as report_mod

        text = report_mod.hardware_report(refresh=refresh)
        return {"ui": {"text": [text]}, "result": (text,)}


NODE_CLASS_MAPPINGS = {"AccelHardwareReport": AccelHardwareReport}
NODE_DISPLAY_NAME_MAPPINGS = {"AccelHardwareReport": "Accel Hardware Report"}
