"""Worker process entry point, run as a script: `python .../accel/multigpu/_entry.py`.

Not started through multiprocessing's spawn: spawn re-executes the parent's `__main__` in every child,
which for ComfyUI is main.py (every custom node's prestartup script, the server imports). This script
instead gets the parent's sys.path and the pack's module name from ACCEL_MG_CONFIG and registers the
pack package without running its __init__ (no node registration in workers).
"""
import importlib
import json
import os
import sys
import types

cfg = json.loads(os.environ["ACCEL_MG_CONFIG"])
here = os.path.dirname(os.path.abspath(__file__))
sys.path[:] = [p for p in cfg["sys_path"] if os.path.abspath(p or ".") != here]
if cfg["device"] == "cpu":
    import comfy.options  # noqa: F401  (args parsing stays off)
    from comfy.cli_args import args

    args.cpu = True  # before comfy.model_management is imported
name = cfg["pack_name"]
if name not in sys.modules:
    pkg = types.ModuleType(name)
    pkg.__path__ = [cfg["pack_root"]]
    pkg.__package__ = name
    sys.modules[name] = pkg
importlib.import_module(name + ".accel.multigpu.worker").main(cfg)
