#!/usr/bin/env bash
# Prepare what a GPU benchmark run carries to the GPU machine (no network there), as ONE archive:
#   .gpu/carry.tar.xz   (git-ignored; name `.gpu` in the device tool's carry list) holding
#     site/          the wheels unpacked: fa3-fwd, sageattention, yunchang (Accel Multi-GPU), pydantic (KJNodes on 0.33), torchsde, trampoline, and for ComfyUI 0.33
#                    comfy-kitchen, comfy-aimdo, blake3, simpleeval (comfy-kitchen's ROCm library dropped:
#                    the wheel alone is 58 MB, over the carry limit beside FA3)
#     comfy075/      ComfyUI 0.3.75 (the test bed's tree), trimmed (no tests, API nodes, tokenizer data)
#     comfy033/      ComfyUI 0.33.x from $COMFY033 (a tree you fetched, e.g. yzkee/ComfyUI@783545f6), trimmed
#     kjnodes/       ComfyUI-KJNodes from $KJNODES (a peer, loaded by benchmarks only; never committed)
#     shims/         import-only stand-ins for PyAV and torchaudio (ComfyUI imports them at start-up for
#                    video/audio I/O that no benchmark uses)
# On the GPU machine: `source bench/gpu_env.sh [075|033]` unpacks it to /tmp/carry once and sets the paths.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
COMFY075="${COMFY075:-$(cat .testbed/comfyui_path)}"
COMFY033="${COMFY033:-}"
KJNODES="${KJNODES:-}"
ST="$(mktemp -d)"
trap 'rm -rf "$ST"' EXIT
python3 - "$ST" "$COMFY075" "$COMFY033" "$KJNODES" <<'PY'
import os, shutil, sys
st, c075, c033, kj = sys.argv[1:5]
skip_top = {"tests", "tests-unit", "comfy_api_nodes", "custom_nodes", "output", "input", "temp", "user",
            "models", ".git", "blueprints", "alembic_db", "api_server" if False else "", ".ci", ".github"}
def copy_tree(src, dst):
    def ignore(d, names):
        top = os.path.abspath(d) == os.path.abspath(src)
        out = [n for n in names if (n == "__pycache__" or (top and n in skip_top)) and os.path.isdir(os.path.join(d, n))]
        if "tokenizer" in d:
            out += [n for n in names if n.endswith((".json", ".txt", ".model"))]
        return out
    shutil.copytree(src, dst, ignore=ignore)
    for sub in ("custom_nodes", "models"):
        os.makedirs(os.path.join(dst, sub), exist_ok=True)
    y = os.path.join(dst, "extra_model_paths.yaml")
    if os.path.exists(y):
        os.remove(y)
copy_tree(c075, os.path.join(st, "comfy075"))
if c033:
    copy_tree(c033, os.path.join(st, "comfy033"))
if kj:
    shutil.copytree(kj, os.path.join(st, "kjnodes"), ignore=shutil.ignore_patterns(".git", "__pycache__", "docs", "*.png", "*.jpg", "*.gif", "*.mp4"))
PY
# shims: PyAV and torchaudio, import-only
S="$ST/shims"
mkdir -p "$S/av/subtitles" "$S/av/video" "$S/torchaudio"
cat > "$S/av/__init__.py" <<'PY'
"""Import-only stand-in for PyAV on the benchmark machine (video I/O is never used there)."""
time_base = 1000000
class _Unavailable:
    def __init__(self, *a, **k):
        raise RuntimeError("PyAV is not installed on this benchmark machine")
VideoStream = AudioStream = VideoFrame = AudioFrame = AudioResampler = _Unavailable
def open(*a, **k):
    raise RuntimeError("PyAV is not installed on this benchmark machine")
def __getattr__(name):
    return _Unavailable
PY
printf 'class InputContainer:\n    pass\nclass OutputContainer:\n    pass\n' > "$S/av/container.py"
printf '' > "$S/av/subtitles/__init__.py"
printf 'class SubtitleStream:\n    pass\n' > "$S/av/subtitles/stream.py"
printf '' > "$S/av/video/__init__.py"
cat > "$S/av/video/reformatter.py" <<'PY'
class _Names(type):  # enum-like stand-ins: any member name reads as itself
    def __getattr__(cls, name):
        if name.startswith("__"):
            raise AttributeError(name)
        return name
class ColorPrimaries(metaclass=_Names):
    pass
class ColorRange(metaclass=_Names):
    pass
class ColorTrc(metaclass=_Names):
    pass
class Colorspace(metaclass=_Names):
    pass
class Interpolation(metaclass=_Names):
    pass
class VideoReformatter:
    pass
PY
cat > "$S/torchaudio/__init__.py" <<'PY'
"""Import-only stand-in for torchaudio on the benchmark machine (audio is never used there)."""
from . import functional, transforms  # noqa: F401
def __getattr__(name):
    raise AttributeError(f"torchaudio is not installed on this benchmark machine ({name})")
PY
for m in functional transforms; do
  printf 'def __getattr__(name):\n    raise AttributeError(f"torchaudio is not installed on this benchmark machine ({name})")\n' > "$S/torchaudio/$m.py"
done
# wheels, unpacked
W="${WHEELS:-$ROOT/.whl}"
mkdir -p "$W"
need="fa3-fwd==0.0.3 sageattention==1.0.6 yunchang==0.6.4 pydantic==2.14.3 pydantic-core==2.50.4 annotated-types typing-inspection typing-extensions torchsde trampoline comfy-kitchen==0.2.31 comfy-aimdo==0.4.13 blake3 simpleeval sqlalchemy greenlet"
for spec in $need; do
  n="${spec%%==*}"; n="${n//-/_}"
  ls "$W/$n"-*.whl >/dev/null 2>&1 || python3 -m pip download -q --no-deps --only-binary=:all: --python-version 3.12 \
    --implementation cp --platform manylinux_2_28_x86_64 --platform manylinux_2_24_x86_64 --platform manylinux_2_17_x86_64 \
    --platform manylinux2014_x86_64 --platform manylinux2010_x86_64 -d "$W" "$spec"
done
mkdir -p "$ST/site"
for f in "$W"/*.whl; do python3 -m zipfile -e "$f" "$ST/site"; done
rm -f "$ST"/site/comfy_kitchen/backends/hip/_C*.so "$ST"/site/comfy_aimdo/aimdo_rocm.so
mkdir -p .gpu
rm -f .gpu/carry.tar.xz
tar -C "$ST" -cf - . | xz -T2 -6 > .gpu/carry.tar.xz
du -sh .gpu/carry.tar.xz
