# Source on the GPU machine, from the repo root: installs carried wheels into /tmp/site and points the
# harness at the carried ComfyUI. Usage: source bench/gpu_env.sh
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site .whl/*.whl >/dev/null 2>&1 \
  || { echo "wheel install failed"; return 1; }
export PYTHONPATH="/tmp/site:$PWD/.gpu/shims${PYTHONPATH:+:$PYTHONPATH}"
export COMFYUI_PATH="$PWD/.gpu/ComfyUI"
export PYTHONUNBUFFERED=1
export TORCHINDUCTOR_CACHE_DIR="${TORCHINDUCTOR_CACHE_DIR:-/tmp/inductor-cache}"
