#!/usr/bin/env bash
# A list of benchmark runs, one after another, detached from the device call that starts it, so a plan longer than
# one call's 10 minutes runs through: one call starts it and waits, the next ones wait and finally pack the results.
#   bash bench/gpu_job.sh start PLAN     # starts the plan in the background and returns
#   bash bench/gpu_job.sh wait SECONDS   # prints the plan's progress until it ends or SECONDS pass (rc 0: ended)
#   bash bench/gpu_job.sh pack           # $OUT/res.tar.xz: every step's results, console logs cut to their tails
# PLAN: one step per line, `NAME LIMIT_S COMMAND...`: the command runs with `--out $ACCEL_JOB_DIR/res/NAME` appended
# (every bench/*.py takes it), its console in res/NAME/log.txt, stopped with SIGINT after LIMIT_S seconds (SIGKILL 30 s
# later). A line `! COMMAND` runs as it is (e.g. `! rm -rf /tmp/w/flux` to free the disk between families). `#`
# starts a comment. The steps run after `source $ACCEL_JOB_ENV` (default: bench/gpu_env.sh 033; empty: none).
# The steps run in $ACCEL_JOB_DIR/src, a copy of the tree taken when the plan starts (a later call's copy of the working
# tree does not reach a running plan). State: $ACCEL_JOB_DIR (default /tmp/accel-job): status (one line per step: name,
# rc, seconds), res/, src/, job.log.
set -uo pipefail
JOB="${ACCEL_JOB_DIR:-/tmp/accel-job}"
case "$JOB" in /*) ;; *) JOB="$PWD/$JOB" ;; esac  # absolute: the steps run in another folder (src/, below)
cmd="${1:-}"
case "$cmd" in
  start)
    plan="${2:?usage: gpu_job.sh start PLAN}"
    [ -f "$plan" ] || { echo "gpu_job: no plan file $plan"; exit 2; }
    if [ -f "$JOB/pid" ] && kill -0 "$(cat "$JOB/pid")" 2>/dev/null; then
      echo "gpu_job: a plan is still running (pid $(cat "$JOB/pid")); wait for it"; exit 2
    fi
    rm -rf "$JOB"; mkdir -p "$JOB/res"; cp "$plan" "$JOB/plan"
    setsid nohup bash "$0" _run "$JOB/plan" > "$JOB/job.log" 2>&1 < /dev/null &
    echo $! > "$JOB/pid"
    echo "gpu_job: started $(grep -cvE '^\s*(#|!|$)' "$plan") step(s) from $plan (pid $!)"
    ;;
  _run)
    if [ -n "${ACCEL_JOB_ENV-bench/gpu_env.sh 033}" ]; then
      # shellcheck disable=SC1090,SC2086
      source ${ACCEL_JOB_ENV-bench/gpu_env.sh 033} || { echo "env failed" >> "$JOB/status"; touch "$JOB/done"; exit 1; }
    fi
    # the steps run from a snapshot of the tree taken now (its hidden folders, the carried archives, left out: the
    # environment above has unpacked them): each later device call copies the working tree onto the machine again,
    # and a step importing the pack while that copy lands failed (ImportError from accel_harness)
    rm -rf "$JOB/src" && mkdir -p "$JOB/src" && tar -C . --exclude='./.*' -cf - . | tar -C "$JOB/src" -xf - \
      && cd "$JOB/src" || { echo "snapshot failed" >> "$JOB/status"; touch "$JOB/done"; exit 1; }
    # a job started in the background inherits SIGINT ignored: give each step SIGINT back, so the time limit's SIGINT
    # stops it as Ctrl-C would (Python's KeyboardInterrupt: a benchmark's servers are shut down, its results kept)
    if env --default-signal=INT true 2>/dev/null; then
      undo_ignore=(env --default-signal=INT)
    else
      undo_ignore=(python3 -c 'import os, signal, sys; signal.signal(signal.SIGINT, signal.SIG_DFL); os.execvp(sys.argv[1], sys.argv[1:])')
    fi
    while IFS= read -r line || [ -n "$line" ]; do
      case "$line" in ''|'#'*) continue ;; esac
      if [ "${line:0:1}" = "!" ]; then
        echo "== ! ${line:1} ($(date -u +%T))"; bash -c "${line:1}"; continue
      fi
      read -r name limit rest <<< "$line"
      mkdir -p "$JOB/res/$name"
      t0=$(date +%s)
      echo "== $name start $(date -u +%T)"
      # shellcheck disable=SC2086
      eval timeout --signal=INT --kill-after=30 "$limit" '"${undo_ignore[@]}"' $rest --out '"$JOB/res/$name"' \
        > "$JOB/res/$name/log.txt" 2>&1
      rc=$?
      echo "$name rc=$rc $(( $(date +%s) - t0 )) s" >> "$JOB/status"
      echo "== $name rc=$rc $(date -u +%T)"
    done < "$2"
    touch "$JOB/done"
    ;;
  wait)
    limit="${2:-540}"; t0=$(date +%s)
    while [ ! -e "$JOB/done" ] && [ $(( $(date +%s) - t0 )) -lt "$limit" ]; do sleep 5; done
    cat "$JOB/status" 2>/dev/null
    for d in "$JOB"/res/*/; do
      [ -f "$d/log.txt" ] || continue
      echo "--- $(basename "$d"): $(grep -v '^\s*$' "$d/log.txt" | tail -1 | cut -c1-240)"
    done
    if [ -e "$JOB/done" ]; then echo "gpu_job: done"; exit 0; fi
    echo "gpu_job: still running"; exit 1
    ;;
  pack)
    out="${OUT:-bench/results/local}"; mkdir -p "$out"
    # console logs are mostly progress bars and repeated warnings: their last 2 MB say how a step ended
    find "$JOB/res" -name "*.txt" -size +2M -exec sh -c 'tail -c 2000000 "$1" > "$1.t" && mv "$1.t" "$1"' _ {} \;
    cp "$JOB/status" "$JOB/res/status.txt" 2>/dev/null
    tar -C "$JOB" -cJf "$out/res.tar.xz" res && ls -la "$out/res.tar.xz"
    ;;
  *)
    sed -n 2,11p "$0"; exit 2 ;;
esac
