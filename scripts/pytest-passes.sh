# Sourced by scripts/run-tests and scripts/compat. `pytest_passes PYTHON ARGS...` runs pytest
# (with ARGS) in two passes: first every test but the timing-bound ones, spread over the cores by
# pytest-xdist (`-n auto`; an `-n` in ARGS overrides it), a module whose tests share a
# module-scoped fixture kept on one worker (`--dist loadgroup`, tests/conftest.py); then the
# timing-bound tests (SERIAL_TESTS in tests/conftest.py), one at a time with no neighbour. Both
# passes run; the status is the first failing pass's, 0 when each passed or had nothing to run
# (pytest's 5), 5 when neither had anything.
pytest_passes() {
  local python="$1" parallel=0 serial=0
  shift
  "$python" -m pytest -n auto --dist loadgroup "$@" --serial-tests=skip || parallel=$?
  echo "pytest: the timing-bound tests, one at a time"
  "$python" -m pytest "$@" --serial-tests=only -n 0 || serial=$?
  if [ "$parallel" = 5 ] && [ "$serial" = 5 ]; then
    return 5
  fi
  for status in "$parallel" "$serial"; do
    if [ "$status" != 0 ] && [ "$status" != 5 ]; then
      return "$status"
    fi
  done
}
