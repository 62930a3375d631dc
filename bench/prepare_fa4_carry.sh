#!/usr/bin/env bash
# FlashAttention-4 (flash-attn-4, CuTe DSL) for the GPU machine (no network there), from the package registry, as TWO
# archives: its libraries unpacked are ~260 MB and one device call carries at most 64 MiB, so
#   .fa4b/fa4b.tar.xz  (~20 MB) flash-attn-4, quack-kernels, apache-tvm-ffi, torch-c-dlpack-ext, nvidia-cutlass-dsl and
#                      its base/core/cu13 libraries without the MLIR toolkit library; carry it with .gpu (39 MB)
#   .fa4a/fa4a.tar.xz  (~52 MB) that library (_cutlass_ir.cu13...so, 193 MB): carry it alone in the NEXT call on the
#                      same warm machine (carried paths stay there until a call names them again)
# Both git-ignored. On the GPU machine: `source bench/gpu_env.sh 033` unpacks whichever is present to /tmp/fa4 and
# puts it on PYTHONPATH once both are there. The image already has cuda-bindings, protobuf, einops, typing-extensions
# (KINDS.md); torch 2.11 there is a CUDA 13 build, hence the cu13 library.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
V="${FA4_VERSION:-4.0.0b36}"; CD="${CUTLASS_DSL_VERSION:-4.8.1}"
ST="$(mktemp -d)"; trap 'rm -rf "$ST"' EXIT
P=(--no-deps --python-version 3.12 --only-binary=:all: --platform manylinux_2_28_x86_64 --platform manylinux_2_24_x86_64
   --platform manylinux_2_17_x86_64 --platform manylinux2014_x86_64 -d "$ST/w")
for p in "flash-attn-4==$V" "nvidia-cutlass-dsl==$CD" "nvidia-cutlass-dsl-libs-base==$CD" "nvidia-cutlass-dsl-libs-core==$CD" \
         "nvidia-cutlass-dsl-libs-cu13==$CD" quack-kernels "apache-tvm-ffi<0.2,>=0.1.11" torch-c-dlpack-ext; do
  python3 -m pip download -q "${P[@]}" "$p"
done
mkdir -p "$ST/b" "$ST/a"
for w in "$ST"/w/*.whl; do python3 -m zipfile -e "$w" "$ST/b"; done
lib=nvidia_cutlass_dsl/dsl_packages/cutlass/_mlir/_mlir_libs
mkdir -p "$ST/a/$lib"
mv "$ST/b/$lib"/_cutlass_ir.cu13.*.so "$ST/a/$lib/"
rm -rf "$ST/b/nvidia_cutlass_dsl/cu13/lib/stubs"  # aarch64 / QNX stubs
mkdir -p "$ROOT/.fa4a" "$ROOT/.fa4b"
tar -C "$ST/b" -cf - . | xz -T0 -6 > "$ROOT/.fa4b/fa4b.tar.xz"
tar -C "$ST/a" -cf - . | xz -T0 -6 > "$ROOT/.fa4a/fa4a.tar.xz"
ls -la "$ROOT/.fa4a" "$ROOT/.fa4b"
