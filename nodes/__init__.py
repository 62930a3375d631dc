"""ComfyUI-facing node classes (V3 API), one file per feature, discovered automatically.

Each module lists its node classes in `NODES` (subclasses of `_common.AccelNode`). A module that fails to
import is logged once and recorded in `IMPORT_ERRORS` (the test harness fails on any entry); the other nodes
still load. ComfyUI registers the nodes through `comfy_entrypoint` (the pack's __init__.py re-exports it).
`NODE_CLASS_MAPPINGS` / `NODE_DISPLAY_NAME_MAPPINGS` here are the same nodes by id, for the pack's own use
(tests, scripts); the pack root does not export them, so ComfyUI takes the V3 path. The nodes' inputs are checked
where ComfyUI does not check them (`_inputs`): the server's on_prompt handler (`INPUT_CHECKS`, registered here) parses
API clients' BOOLEAN strings ("false" is False) and marks a COMBO value that is not a choice, AccelNode's
validate_inputs refuses it, and each node's `execute` (decorated with `_inputs.checked`) checks linked values.
"""
from __future__ import annotations

import importlib
import logging
import pkgutil
import sys
import traceback

from comfy_api.latest import ComfyExtension

from . import _inputs

NODES: list = []
IMPORT_ERRORS: dict = {}

for _info in sorted(pkgutil.iter_modules(__path__), key=lambda m: m.name):
    if _info.name.startswith("_"):
        continue
    try:
        _mod = importlib.import_module(f".{_info.name}", __name__)
    except Exception as _e:  # one broken feature must not hide the others
        IMPORT_ERRORS[_info.name] = traceback.format_exc()
        logging.getLogger("comfyui-accel").error(
            "accel: node module '%s' failed to import (%s: %s); its nodes are unavailable", _info.name,
            type(_e).__name__, _e)
        continue
    NODES.extend(getattr(_mod, "NODES", []))

NODE_CLASS_MAPPINGS: dict = {cls.NODE_ID: cls for cls in NODES}
NODE_DISPLAY_NAME_MAPPINGS: dict = {cls.NODE_ID: cls.DISPLAY for cls in NODES}

# every BOOLEAN input of every node: "false" from an API client is False, "maybe" an error naming the input;
# every COMBO input: a value outside its choices (or 123, null) is an error naming the input and the choices. The
# server exists before custom nodes are loaded; headless use (no server) has no on_prompt step.
INPUT_CHECKS = _inputs.InputChecks(NODE_CLASS_MAPPINGS)
INPUT_CHECKS.register(getattr(getattr(sys.modules.get("server"), "PromptServer", None), "instance", None))


class AccelExtension(ComfyExtension):
    async def get_node_list(self) -> list:
        return list(NODES)


def comfy_entrypoint() -> AccelExtension:
    return AccelExtension()
