"""Run a snippet against the pack's Triton kernels in the Triton interpreter (CPU), in a fresh process.

The snippet sees the pack's `kernels/` package as `accel_kernels` (no ComfyUI import) and `torch`; it
prints "OK" when its checks pass. A fresh process because TRITON_INTERPRET is read when triton is
imported.
"""
from __future__ import annotations

import os
import subprocess
import sys
import textwrap

from .env import REPO_ROOT

_PREAMBLE = f"""
import importlib.util, sys, torch
_root = {str(REPO_ROOT)!r}
_spec = importlib.util.spec_from_file_location("accel_kernels", _root + "/kernels/__init__.py",
                                               submodule_search_locations=[_root + "/kernels"])
_pkg = importlib.util.module_from_spec(_spec); sys.modules["accel_kernels"] = _pkg; _spec.loader.exec_module(_pkg)
"""


def run_interpreted(code: str, timeout: int = 300) -> tuple[bool, str]:
    """(passed, stderr tail): passed when the snippet exits 0 and printed OK."""
    env = dict(os.environ, TRITON_INTERPRET="1", OMP_NUM_THREADS="1")
    out = subprocess.run([sys.executable, "-c", _PREAMBLE + textwrap.dedent(code)], capture_output=True,
                         text=True, env=env, timeout=timeout)
    return out.returncode == 0 and "OK" in out.stdout, out.stderr[-3000:]
