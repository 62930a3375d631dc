#!/usr/bin/env bash
# Prepare ComfyUI-GGUF (city96's pack: a peer, loaded by benchmarks only, never committed) and the registry's `gguf`
# package for the GPU machine (no network there), as .gguf/gguf.tar.xz (git-ignored, well under 1 MB; carry it with
# .gpu). `source bench/gpu_env.sh` unpacks it to /tmp/gguf and puts `gguf` on the path; bench_matrix.py's `gguf*`
# chains load /tmp/gguf/ComfyUI-GGUF (or $GGUF_NODES_PATH) through ComfyUI's custom-node loader.
# Usage: GGUF_NODES=/path/to/ComfyUI-GGUF [GGUF_COMMIT=<sha>] bash bench/prepare_gguf_carry.sh   (a tree fetched
#        from github:city96/ComfyUI-GGUF; its commit is written beside it as COMMIT: $GGUF_COMMIT, or the checkout's)
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
GGUF_NODES="${GGUF_NODES:?set GGUF_NODES to a ComfyUI-GGUF tree}"
GGUF_VERSION="${GGUF_VERSION:-0.19.0}"
ST="$(mktemp -d)"
trap 'rm -rf "$ST"' EXIT
python3 -m pip download --no-deps --only-binary=:all: "gguf==$GGUF_VERSION" -d "$ST/whl"
mkdir -p "$ST/x/site" "$ROOT/.gguf"
python3 -m zipfile -e "$ST"/whl/gguf-*.whl "$ST/x/site"
python3 - "$GGUF_NODES" "$ST/x/ComfyUI-GGUF" <<'PY'
import shutil, sys
shutil.copytree(sys.argv[1], sys.argv[2], ignore=shutil.ignore_patterns(".git", "__pycache__", "*.png", "*.jpg"))
PY
echo "${GGUF_COMMIT:-$(git -C "$GGUF_NODES" rev-parse HEAD 2>/dev/null || echo unknown)}" > "$ST/x/ComfyUI-GGUF/COMMIT"
tar -C "$ST/x" -cf - . | xz -6 > "$ROOT/.gguf/gguf.tar.xz"
ls -la "$ROOT/.gguf/gguf.tar.xz"
