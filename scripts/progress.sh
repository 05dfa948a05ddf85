# Sourced by the scripts: `step WHAT COMMAND...` runs COMMAND, saying what runs and, every 10 s
# while it does, how long it has run, so a quiet pip is never a silent minute. `waiting WHAT PID`
# does the same for a process already started (a test pass run beside another), and returns its
# exit status.
step() {
  local what="$1"
  shift
  echo "$what ..."
  "$@" &
  waiting "$what" "$!"
}

waiting() {
  local what="$1" pid="$2" start=$SECONDS next=10
  while kill -0 "$pid" 2>/dev/null; do
    sleep 1
    if ((SECONDS - start >= next)); then
      echo "  still $what ($((SECONDS - start)) s)"
      next=$((next + 10))
    fi
  done
  wait "$pid"
}
