#!/usr/bin/env bash
# Run benchmarks on the GPU machine, one after another, each with its own log and results folder.
# Usage (on the GPU machine, repo root): bash bench/run_gpu.sh attention cache -- [extra args for all]
# Results: $OUT/<name>/<name>.json|md and $OUT/<name>.log (OUT defaults to bench/results/local).
set -uo pipefail
source bench/gpu_env.sh || exit 1
OUT="${OUT:-bench/results/local}"
names=()
while [ $# -gt 0 ] && [ "$1" != "--" ]; do names+=("$1"); shift; done
[ "${1:-}" = "--" ] && shift
for n in "${names[@]}"; do
  mkdir -p "$OUT/$n"
  echo "=== bench $n ($(date +%H:%M:%S))"
  python3 "bench/bench_$n.py" --out "$OUT/$n" "$@" > "$OUT/$n.log" 2>&1
  rc=$?
  grep -v "^WARNING\|torchaudio\|kornia\|spandrel\|^  File\|^    \|IMPORT FAILED\|^$\|pip install -r\|might be caused" "$OUT/$n.log" | tail -25
  echo "=== bench $n rc=$rc ($(date +%H:%M:%S))"
done
