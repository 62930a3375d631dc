#!/usr/bin/env bash
# Prepare what a GPU benchmark run carries to the GPU machine (no network there):
#   .gpu/ComfyUI   trimmed copy of the test bed's ComfyUI tree (no tokenizer data, tests or API nodes)
#   .gpu/shims/av  import-only stand-in for PyAV: ComfyUI imports `av` at start-up for video I/O, which
#                  no benchmark uses; the real wheel (35 MB) does not fit the carry limit beside FA3.
#   .whl/          wheels: fa3-fwd, sageattention, torchsde, trampoline (python 3.12, manylinux)
# Both folders are git-ignored. On the GPU machine: `source bench/gpu_env.sh`.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
SRC="$(cat .testbed/comfyui_path)"
rm -rf .gpu && mkdir -p .gpu/shims/av/subtitles
python3 - "$SRC" .gpu/ComfyUI <<'PY'
import os, shutil, sys, fnmatch
src, dst = sys.argv[1], sys.argv[2]
skip_dirs = {"tests", "tests-unit", "comfy_api_nodes", "custom_nodes", "output", "input", "temp", "user",
             "__pycache__", "models", ".git"}
def ignore(d, names):
    top = os.path.abspath(d) == os.path.abspath(src)
    out = [n for n in names if (n == "__pycache__" or (top and n in skip_dirs)) and os.path.isdir(os.path.join(d, n))]
    if "tokenizer" in d:
        out += [n for n in names if n.endswith((".json", ".txt", ".model"))]
    return out
shutil.copytree(src, dst, ignore=ignore)
PY
mkdir -p .gpu/ComfyUI/custom_nodes .gpu/ComfyUI/models
cat > .gpu/shims/av/__init__.py <<'PY'
"""Import-only stand-in for PyAV on the benchmark machine (video I/O is never used there)."""
time_base = 1000000
class _Unavailable:
    def __init__(self, *a, **k):
        raise RuntimeError("PyAV is not installed on this benchmark machine")
VideoStream = AudioStream = VideoFrame = AudioFrame = _Unavailable
def open(*a, **k):
    raise RuntimeError("PyAV is not installed on this benchmark machine")
PY
printf 'class InputContainer:\n    pass\nclass OutputContainer:\n    pass\n' > .gpu/shims/av/container.py
printf '' > .gpu/shims/av/subtitles/__init__.py
printf 'class SubtitleStream:\n    pass\n' > .gpu/shims/av/subtitles/stream.py
mkdir -p .whl
ls .whl/fa3_fwd-0.0.3-*.whl .whl/sageattention-1.0.6-*.whl .whl/torchsde-*.whl .whl/trampoline-*.whl >/dev/null 2>&1 || \
  python3 -m pip download -q --no-deps --only-binary=:all: --python-version 3.12 --implementation cp \
    --platform manylinux_2_28_x86_64 --platform manylinux_2_24_x86_64 --platform manylinux_2_17_x86_64 \
    --platform manylinux2014_x86_64 -d .whl fa3-fwd==0.0.3 sageattention==1.0.6 torchsde trampoline
rm -f .whl/av-*.whl
du -sh .gpu .whl
