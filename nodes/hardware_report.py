"""Accel Hardware Report: what this machine has and what the automatic modes would pick, and why."""
from __future__ import annotations

from comfy_api.latest import io

from ._common import CATEGORY_INFO, AccelNode, report_output, schema, with_report
from ._inputs import checked


class AccelHardwareReport(AccelNode):
    @classmethod
    def define_schema(cls):
        return schema(
            node_id="AccelHardwareReport",
            display_name="Accel Hardware Report",
            category=CATEGORY_INFO,
            description="Shows this machine's GPU, software and attention libraries, and what the pack's automatic "
                        "modes (attention auto, compile mode, FP8 compute, TF32) pick here and why. Run it first, "
                        "or after installing a library.",
            search_aliases=["gpu info", "system info"],
            is_output_node=True,
            inputs=[io.Boolean.Input("refresh", default=False, tooltip=(
                "Probe the machine again (e.g. after installing flash-attn or sageattention) instead of using the "
                "profile cached at first use."))],
            outputs=[report_output("The hardware profile and the automatic choices, as text.")],
        )

    @classmethod
    def fingerprint_inputs(cls, refresh):
        return float("nan") if refresh else "static"

    @classmethod
    @checked
    def execute(cls, refresh):
        from ..accel.common import hardware

        text = hardware.hardware_report(refresh=refresh)
        return with_report(text, report=text)


NODES = [AccelHardwareReport]
