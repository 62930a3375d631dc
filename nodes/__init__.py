"""ComfyUI-facing node classes, one file per feature, discovered automatically.

Each module defines `NODE_CLASS_MAPPINGS` and `NODE_DISPLAY_NAME_MAPPINGS`. A module that fails to
import is logged once and recorded in `IMPORT_ERRORS` (the test harness fails on any entry); the
other nodes still load. Every BOOLEAN input of every node is parsed in one place
(`_common.apply_boolean_checks`): API clients' "false" is False, anything unparseable an error.
"""
from __future__ import annotations

import importlib
import logging
import pkgutil
import traceback

from . import _common

NODE_CLASS_MAPPINGS: dict = {}
NODE_DISPLAY_NAME_MAPPINGS: dict = {}
IMPORT_ERRORS: dict = {}

for _info in sorted(pkgutil.iter_modules(__path__), key=lambda m: m.name):
    if _info.name.startswith("_"):
        continue
    try:
        _mod = importlib.import_module(f".{_info.name}", __name__)
    except Exception as _e:  # one broken feature must not hide the others
        IMPORT_ERRORS[_info.name] = traceback.format_exc()
        logging.getLogger("comfyui-accel").error(
            "accel: node module '%s' failed to import (%s: %s); its nodes are unavailable", _info.name, type(_e).__name__, _e)
        continue
    NODE_CLASS_MAPPINGS.update(getattr(_mod, "NODE_CLASS_MAPPINGS", {}))
    NODE_DISPLAY_NAME_MAPPINGS.update(getattr(_mod, "NODE_DISPLAY_NAME_MAPPINGS", {}))

# every BOOLEAN input of every node: "false" from an API client is False, "maybe" an error naming the input
BOOLEAN_CHECKS = _common.apply_boolean_checks(NODE_CLASS_MAPPINGS, NODE_DISPLAY_NAME_MAPPINGS)
