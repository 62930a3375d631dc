#!/usr/bin/env bash
# xFormers for the GPU machine (no network there), from the package registry: the py39-none manylinux wheel (torch>=2.10,
# ~3 MB) downloaded to .xf/ (git-ignored). Carry `.xf` with `.gpu`; on the GPU machine `source bench/gpu_env.sh 033`
# unpacks it to /tmp/xf and puts it on PYTHONPATH (a wheel is a zip; xformers has no install-time step).
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
V="${XFORMERS_VERSION:-0.0.35}"
rm -rf "$ROOT/.xf" && mkdir -p "$ROOT/.xf"
python3 -m pip download -q --no-deps --python-version 3.12 --only-binary=:all: --platform manylinux_2_28_x86_64 \
  -d "$ROOT/.xf" "xformers==$V"
ls -la "$ROOT/.xf"
