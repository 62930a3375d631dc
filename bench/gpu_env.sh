# Source on the GPU machine, from the repo root: unpacks .gpu/carry.tar.xz (bench/prepare_gpu_carry.sh) to
# /tmp/carry once and points the harness at one of the carried ComfyUI trees.
# Usage: source bench/gpu_env.sh [033|075]      (default 033: current ComfyUI)
_ver="${1:-033}"
# PyAV (bench/prepare_av_carry.sh): the registry wheel, unpacked once (first: it arrives in a call of its own, without
# .gpu); put before the import-only stand-in below, so the shipped CreateVideo -> SaveVideo encodes for real
if [ -f .av/av.tar.xz ] && [ ! -e /tmp/av/.done ]; then
  mkdir -p /tmp/av && xz -dc .av/av.tar.xz | tar -C /tmp/av -xf - && touch /tmp/av/.done
fi
if [ ! -d /tmp/carry/site ]; then
  mkdir -p /tmp/carry && xz -dc .gpu/carry.tar.xz | tar -C /tmp/carry -xf - || { echo "carry unpack failed"; return 1; }
fi
[ -d "/tmp/carry/comfy$_ver" ] || { echo "no ComfyUI $_ver in the carry"; return 1; }
export PYTHONPATH="/tmp/carry/site:/tmp/carry/shims${PYTHONPATH:+:$PYTHONPATH}"
export COMFYUI_PATH="/tmp/carry/comfy$_ver"
export PYTHONUNBUFFERED=1
export TORCHINDUCTOR_CACHE_DIR="${TORCHINDUCTOR_CACHE_DIR:-/tmp/inductor-cache}"
# KJNodes (peer, benchmarks only): linked into custom_nodes when carried
if [ -d /tmp/carry/kjnodes ] && [ ! -e "$COMFYUI_PATH/custom_nodes/ComfyUI-KJNodes" ]; then
  ln -s /tmp/carry/kjnodes "$COMFYUI_PATH/custom_nodes/ComfyUI-KJNodes"
fi
# FlashAttention-4 (bench/prepare_fa4_carry.sh): two archives carried in two calls; unpacked as each arrives, on the
# path once both are there
for _p in fa4b fa4a; do
  if [ -f ".$_p/$_p.tar.xz" ] && [ ! -e "/tmp/fa4/.$_p" ]; then
    mkdir -p /tmp/fa4 && xz -dc ".$_p/$_p.tar.xz" | tar -C /tmp/fa4 -xf - && touch "/tmp/fa4/.$_p"
  fi
done
if [ -e /tmp/fa4/.fa4a ] && [ -e /tmp/fa4/.fa4b ]; then
  # the wheel's .pth line (a PYTHONPATH folder runs none): cutlass's packages live under dsl_packages
  export PYTHONPATH="/tmp/fa4:/tmp/fa4/nvidia_cutlass_dsl/dsl_packages:$PYTHONPATH"
fi
if [ -e /tmp/av/.done ]; then
  export PYTHONPATH="/tmp/av:$PYTHONPATH"
fi
# ComfyUI-GGUF and the gguf package (bench/prepare_gguf_carry.sh; a peer, benchmarks only): unpacked once, gguf on the
# path; bench_matrix.py's gguf chains load /tmp/gguf/ComfyUI-GGUF
if [ -f .gguf/gguf.tar.xz ] && [ ! -e /tmp/gguf/.done ]; then
  mkdir -p /tmp/gguf && xz -dc .gguf/gguf.tar.xz | tar -C /tmp/gguf -xf - && touch /tmp/gguf/.done
fi
if [ -e /tmp/gguf/.done ]; then
  export PYTHONPATH="/tmp/gguf/site:$PYTHONPATH"
fi
# xFormers (bench/prepare_xformers_carry.sh): the registry wheel, unpacked once and put on the path
_xf=$(ls .xf/xformers-*.whl 2>/dev/null | head -1)
if [ -n "$_xf" ]; then
  [ -d /tmp/xf/xformers ] || { mkdir -p /tmp/xf && python3 -m zipfile -e "$_xf" /tmp/xf; }
  export PYTHONPATH="/tmp/xf:$PYTHONPATH"
fi
