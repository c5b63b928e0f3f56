# Sourced by the e2e scripts: the one rule for what a step needs from outside the repository
# (a tool, the package index, root). Where CI is set (CI services set it, and so does .ci/run)
# a missing one fails, so CI never passes a check that did not run; elsewhere the step, or the
# one check, is skipped with a line that says why, so a clone on its own passes `make test`.

# Whatever sources this fails a pipe when any command in it fails, not only the last.
set -o pipefail

in_ci() { [ -n "${CI:-}" ]; }

# unavailable REASON: this whole script (named `step`, or by its file) cannot run here. Exits
# 1 in CI, 0 elsewhere.
unavailable() {
  if in_ci; then
    echo "FAIL: ${step:-${0##*/}}: $* (required where CI is set)" >&2
    exit 1
  fi
  echo "skipped: ${step:-${0##*/}}: $* (required where CI is set)"
  exit 0
}

# skip REASON: one check cannot run here; counted in the script's `failed` in CI, else `skipped`.
skip() {
  if in_ci; then
    failed=$((failed + 1))
    echo "FAIL: $* (required where CI is set)"
  else
    skipped=$((skipped + 1))
    echo "skipped: $*"
  fi
}

# require_tools TOOL...: the script is unavailable unless every TOOL is on PATH.
require_tools() {
  local tool
  for tool in "$@"; do
    command -v "$tool" >/dev/null || unavailable "$tool is not installed"
  done
}
