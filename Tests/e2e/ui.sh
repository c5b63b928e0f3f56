#!/usr/bin/env bash
# The Transaction Manager (`iapsim ui`) in a real browser: headless Chromium (Debian's
# chromium and chromium-driver, which Tests/e2e/tools.sh installs in CI) driven by Selenium,
# installed from PyPI into a virtual environment under .build/ the first time. Missing tools or
# an unreachable PyPI skip it with a message, and fail where CI is set (Tests/e2e/lib.sh).
# Screenshots of each screen go to .build/ui-screenshots; with --docs they also replace the
# ones docs/UI.md shows (`make screenshots`).
# Usage: Tests/e2e/ui.sh [path/to/iapsim] [--docs]   (run by `make test`)
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
. "$here/lib.sh"
bin=${1:-$root/.build/debug/iapsim}
version=4.27.1
venv=$root/.build/ui-venv
log=$root/.build/ui-venv.log
require_tools python3 chromium chromedriver
installed() {
  "$venv/bin/python" -c "import importlib.metadata as m
assert m.version('selenium') == '$version'" 2>/dev/null
}
index_answers() {
  python3 -c 'import os, urllib.request
urllib.request.urlopen(os.environ.get("PIP_INDEX_URL", "https://pypi.org/simple/"), timeout=15)' 2>>"$log"
}
if ! installed; then
  rm -rf "$venv"
  mkdir -p "$root/.build"
  python3 -m venv "$venv" >"$log" 2>&1 \
    || unavailable "python3 cannot make a virtual environment (the venv module; see .build/ui-venv.log)"
  if ! "$venv/bin/pip" install --quiet --retries 1 "selenium==$version" >>"$log" 2>&1; then
    rm -rf "$venv"
    index_answers || unavailable "PyPI cannot be reached to install selenium==$version"
    echo "FAIL: could not install selenium==$version from PyPI into .build/ui-venv (see .build/ui-venv.log)" >&2
    exit 1
  fi
fi
docs=()
[ "${2:-}" = --docs ] && docs=(--docs "$root/docs/ui")
# Selenium must use the Debian driver, never fetch one.
SE_OFFLINE=true "$venv/bin/python" "$here/ui_story.py" "$bin" "$root/.build/ui-screenshots" "${docs[@]}"
