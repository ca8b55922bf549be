# Shared helpers for the scripts in this folder (sourced, not run).
# step NAME CMD...: runs CMD, prints one line "NAME ... ok (Ns)" or the failure
# with its log, and stops the script on failure.
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
export PATH="$(go env GOPATH 2>/dev/null || echo "$HOME/go")/bin:$PATH"
# Debian's Jupyter lives in /usr/bin; a pyenv python3 first on PATH has none.
if [ -x /usr/bin/jupyter ]; then JUPYTER=/usr/bin/jupyter; else JUPYTER=$(command -v jupyter || echo jupyter); fi
# The Python that runs Jupyter (it has nbformat): the interpreter on the
# jupyter script's first line.
jupyter_py() {
  local py; py=$(head -n 1 "$(command -v "$JUPYTER" 2>/dev/null || echo /nonexistent)" 2>/dev/null | sed -n 's/^#! *\([^ ]*\).*/\1/p')
  if [ -n "$py" ] && [ -x "$py" ]; then echo "$py"; else echo /usr/bin/python3; fi
}
JUPYTER_PY=$(jupyter_py)

# find_chromium prints the Chromium binary the browser tests use: $PSUB_CHROMIUM,
# else chromium or chromium-browser on PATH.
find_chromium() {
  local c
  for c in "${PSUB_CHROMIUM:-}" chromium chromium-browser /usr/bin/chromium; do
    [ -n "$c" ] && command -v "$c" >/dev/null 2>&1 && { command -v "$c"; return 0; }
  done
  return 1
}
LOGDIR="$ROOT/out/logs"
mkdir -p "$LOGDIR"
T0=$(date +%s.%N)

elapsed() { awk -v a="$1" -v b="$(date +%s.%N)" 'BEGIN{printf "%.1f", b-a}'; }

# step NAME HINT CMD...: HINT says what to do when CMD fails.
step() {
  local name=$1 hint=$2; shift 2
  local t log; t=$(date +%s.%N); log="$LOGDIR/$(echo "$name" | tr ' /' '__').log"
  if "$@" >"$log" 2>&1; then
    printf '%-40s ok      %6ss\n' "$name" "$(elapsed "$t")"
  else
    printf '%-40s FAILED  %6ss\n' "$name" "$(elapsed "$t")"
    echo "---- last lines of $log ----"; tail -n 25 "$log"; echo "----"
    echo "what to do: $hint"
    exit 1
  fi
}
