#!/usr/bin/env bash
# Run benchmark command lists side by side, one list per GPU, on a multi-GPU machine (e.g. nvidia-h200-x2):
#   bash bench/run_parallel.sh 540 "cmd1a; cmd1b" "cmd2a"      # GPU 0 runs list 1, GPU 1 runs list 2
# Each list runs in its own shell with CUDA_VISIBLE_DEVICES set to its GPU, after `source bench/gpu_env.sh`
# (033 unless the list sources another), and is stopped when the budget (seconds, first argument) is spent.
# Inside a list, $RES is a private results folder and $DEADLINE the end of the budget in epoch seconds
# (e.g. `timeout $(( DEADLINE - $(date +%s) )) python3 bench/bench_matrix.py ... --out $RES/m32`).
# At the end every *.md under the result folders is copied to $OUT as <list>_<name>.md, all *.json and
# bench_e2e.py's server_logs/*.log go into one $OUT/json.tgz and the logs' last lines into $OUT/logs.txt: few files,
# as the device tool returns at most a few.
# Timings taken this way share the host (CPU, RAM, disk) with the other list; every result's run_meta says so
# (shared_host), and so must any text quoting them.
set -uo pipefail
budget="$1"; shift
OUT="${OUT:-bench/results/local}"
T0=$(date +%s)
source bench/gpu_env.sh 033 >/dev/null || exit 1   # unpacks the carry once, before the lists start
R=/tmp/accel-parallel; rm -rf "$R"; mkdir -p "$R" "$OUT"
i=0
for cmds in "$@"; do
  mkdir -p "$R/$i"
  (
    export CUDA_VISIBLE_DEVICES=$i RES="$R/$i" DEADLINE=$((T0 + budget))
    # recorded in every result's run_meta (bench/runner.py): these timings shared the host with the other lists
    export ACCEL_BENCH_SHARED_HOST="list $i of $# run side by side on $(hostname) by bench/run_parallel.sh"
    timeout $(( DEADLINE - $(date +%s) )) bash -c "source bench/gpu_env.sh 033 >/dev/null; $cmds" > "$R/$i.log" 2>&1
    echo "list $i rc=$? after $(( $(date +%s) - T0 )) s" >> "$R/status"
  ) &
  i=$((i + 1))
done
wait
cat "$R/status"
for d in "$R"/*/; do
  n=$(basename "$d")
  find "$d" -name "*.md" | while read -r f; do cp "$f" "$OUT/${n}_$(basename "$(dirname "$f")")_$(basename "$f")"; done
done
(cd "$R" && find . \( -name "*.json" -o -path "*server_logs/*.log" \) | tar czf "$OUT/json.tgz" -T -)
for l in "$R"/*.log; do
  echo "=== $(basename "$l")"
  grep -v "^WARNING\|torchaudio\|IMPORT FAILED\|^$\|pip install\|^  File\|^    \|it/s\]" "$l" | tail -15 | cut -c1-300
done > "$OUT/logs.txt"
ls "$OUT"
