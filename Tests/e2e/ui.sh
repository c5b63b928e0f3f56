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
require_tools python3 chromium chromedriver
pip_venv ui "selenium==$version"
docs=()
[ "${2:-}" = --docs ] && docs=(--docs "$root/docs/ui")
# Selenium must use the Debian driver, never fetch one.
SE_OFFLINE=true "$venv/bin/python" "$here/ui_story.py" "$bin" "$root/.build/ui-screenshots" "${docs[@]}"
