#!/usr/bin/env bash
# The demo: stock vs accelerated Wan on a live ComfyUI server (per-run times, speedup, max difference).
# Builds (or reuses) the test bed, then runs scripts/demo.py with the test bed's Python.
# Usage: bash scripts/demo.sh [--preset tiny|small|1.3B] [--chain AccelAttention,AccelCompile] [--repeats N]
# Env: COMFYUI_PATH (your ComfyUI), ACCEL_TESTBED (test bed dir), ACCEL_DEMO_DIR (work dir, default $ACCEL_TESTBED/demo).
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
bash scripts/setup_testbed.sh
TB="${ACCEL_TESTBED:-$ROOT/.testbed}"
VPY="${ACCEL_VENV:-$TB/venv}/bin/python"
export OMP_NUM_THREADS="${OMP_NUM_THREADS:-1}"
exec "$VPY" scripts/demo.py "$@"
