# Sourced by scripts/run-tests and scripts/compat (after scripts/progress.sh).
# `pytest_passes PYTHON ARGS...` runs pytest (with ARGS) in three passes:
#   1. the main pass: every test but those of passes 2 and 3, on INSPECT_CULTURE_TEST_WORKERS
#      pytest-xdist workers (default 0: in this process; `auto`: one a core; an `-n` in ARGS
#      overrides it), a module whose tests share a module-scoped fixture kept on one worker
#      (`--dist loadgroup`, tests/conftest.py);
#   2. beside it, in a pytest process of its own, one after the other, BESIDE_TESTS in
#      tests/conftest.py: every documented command, in the documents' order, in one folder, and
#      the tests that start llama.cpp's server. Each process uses about one core, so on two
#      cores the pair takes about as long as the main pass alone. Its output goes to a file,
#      shown when it ends; it has INSPECT_CULTURE_BESIDE_DEADLINE seconds (default 2700) and is
#      stopped if this shell exits first; with INSPECT_CULTURE_BESIDE_LOCK (a file), each of its
#      tests that may start llama.cpp's server holds that lock while it runs, so that two such
#      servers never overlap (scripts/compat's two environments; tests/conftest.py);
#   3. then the timing-bound tests (SERIAL_TESTS in tests/conftest.py), one at a time, with no
#      neighbour.
# `pytest_first_passes` (1 and 2) and `pytest_timed_pass` (3) are its halves: scripts/compat runs
# the first half of two environments side by side, then each one's timing-bound pass alone.
# Every pass runs; the status is the first failing pass's, 0 when each passed or had nothing to
# run (pytest's 5), 5 when none had anything. The default is one process for the main pass (two
# workers beside pass 2 would be three busy processes on two cores).
pytest_passes() {
  local python="$1" first=0 timed=0
  shift
  pytest_first_passes "$python" "$@" || first=$?
  pytest_timed_pass "$python" "$@" || timed=$?
  pytest_status "$first" "$timed"
}

# Passes 1 and 2, side by side; the status of the two (pytest_status).
pytest_first_passes() {
  local python="$1" main=0 beside=0 log pid deadline=()
  shift
  local workers="${INSPECT_CULTURE_TEST_WORKERS:-0}"
  local seconds="${INSPECT_CULTURE_BESIDE_DEADLINE:-2700}"
  # coreutils' timeout stops the pass and what it started (its own process group)
  if command -v timeout >/dev/null 2>&1; then
    deadline=(timeout --kill-after=30 "$seconds")
  fi
  log="$(mktemp "${TMPDIR:-/tmp}/beside-tests.XXXXXX")"
  ${deadline[@]+"${deadline[@]}"} "$python" -m pytest "$@" --serial-tests=beside -n 0 >"$log" 2>&1 &
  pid=$!
  # a failing or interrupted script stops it too (a background job ignores Ctrl-C)
  trap 'kill "$pid" 2>/dev/null || true' EXIT
  "$python" -m pytest -n "$workers" --dist loadgroup "$@" --serial-tests=skip || main=$?
  waiting "running the tests beside it (pytest --serial-tests=beside)" "$pid" || beside=$?
  trap - EXIT
  echo "pytest: the tests run beside the pass above (the documented commands, llama.cpp's)"
  cat "$log"
  rm -f "$log"
  if [ "$beside" = 124 ] || [ "$beside" = 137 ]; then
    echo "pytest: the pass beside the main one was stopped after ${seconds} s" \
      "(INSPECT_CULTURE_BESIDE_DEADLINE)" >&2
  fi
  pytest_status "$main" "$beside"
}

# Pass 3: the timing-bound tests, one at a time (nothing else may run beside them).
pytest_timed_pass() {
  local python="$1"
  shift
  echo "pytest: the timing-bound tests, one at a time"
  "$python" -m pytest "$@" --serial-tests=only -n 0
}

# `pytest_status STATUS...`: the first that is neither 0 nor 5 (nothing collected); 5 when all
# are 5; else 0.
pytest_status() {
  local status all_empty=1
  for status in "$@"; do
    if [ "$status" != 0 ] && [ "$status" != 5 ]; then
      return "$status"
    fi
    [ "$status" = 5 ] || all_empty=0
  done
  [ "$all_empty" = 0 ] || return 5
}
