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

# pip_venv NAME REQUIREMENT...: sets $venv to .build/NAME-venv holding exactly the pinned
# REQUIREMENTs (name==version), installed from PyPI the first time. The script is unavailable
# when python3 cannot make a virtual environment or PyPI cannot be reached; an install that
# fails while PyPI answers fails it. Needs $root (the repository).
pip_venv() {
  local name=$1 pin
  shift
  venv=$root/.build/$name-venv
  local log=$root/.build/$name-venv.log
  local check="import importlib.metadata as m"
  for pin in "$@"; do
    check+="
assert m.version('${pin%%==*}') == '${pin#*==}'"
  done
  "$venv/bin/python" -c "$check" 2>/dev/null && return 0
  rm -rf "$venv"
  mkdir -p "$root/.build"
  python3 -m venv "$venv" >"$log" 2>&1 \
    || unavailable "python3 cannot make a virtual environment (the venv module; see .build/$name-venv.log)"
  if ! "$venv/bin/pip" install --quiet --retries 1 "$@" >>"$log" 2>&1; then
    rm -rf "$venv"
    # Whether the package index pip uses answers at all.
    python3 -c 'import os, urllib.request
urllib.request.urlopen(os.environ.get("PIP_INDEX_URL", "https://pypi.org/simple/"), timeout=15)' 2>>"$log" \
      || unavailable "PyPI cannot be reached to install $*"
    echo "FAIL: could not install $* from PyPI into .build/$name-venv (see .build/$name-venv.log)" >&2
    exit 1
  fi
}
