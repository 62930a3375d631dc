#!/usr/bin/env bash
# Prepare PyAV for the GPU machine (no network there): the registry's cp312 manylinux wheel (it bundles FFmpeg with
# libx264), unpacked and packed as .av/av.tar.xz (git-ignored; ~24 MB). Beside .gpu/carry.tar.xz it is over the
# device tool's carry limit, so carry `.av` in one call (`source bench/gpu_env.sh` unpacks it to /tmp/av) and `.gpu`
# in the next, on the same warm machine. With it, bench_e2e.py --save auto runs the shipped CreateVideo -> SaveVideo.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
AV_VERSION="${AV_VERSION:-19.0.2}"
ST="$(mktemp -d)"
trap 'rm -rf "$ST"' EXIT
python3 -m pip download --no-deps --only-binary=:all: --python-version 3.12 --platform manylinux_2_28_x86_64 \
  "av==$AV_VERSION" -d "$ST/whl"
mkdir -p "$ST/x" "$ROOT/.av"
python3 -m zipfile -e "$ST"/whl/av-*.whl "$ST/x"
tar -C "$ST/x" -cf - . | xz -6 -T2 > "$ROOT/.av/av.tar.xz"
ls -la "$ROOT/.av/av.tar.xz"
