#!/usr/bin/env bash
# Apple's App Store Server Library (Python, pinned) verifies iapsim's signed data. It is
# installed from PyPI into a virtual environment under .build/ the first time. Where PyPI
# cannot be reached (or python3 cannot make a virtual environment) the step is skipped, saying
# so; where CI is set that fails instead (Tests/e2e/lib.sh), as does any other failed install.
# IAPSIM_SKIP_APPLE_LIBRARY=1 skips it on purpose, under the same rule.
# Usage: Tests/e2e/apple.sh [path/to/iapsim]   (run by `make test`)
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
. "$here/lib.sh"
bin=${1:-$root/.build/debug/iapsim}
version=3.1.2
[ "${IAPSIM_SKIP_APPLE_LIBRARY:-}" = 1 ] && unavailable "Apple's library checks: IAPSIM_SKIP_APPLE_LIBRARY=1 is set"
require_tools python3
pip_venv apple "app-store-server-library==$version"
"$venv/bin/python" "$here/apple_signed_data.py" "$bin"
status=$?
"$venv/bin/python" "$here/apple_notifications.py" "$bin" || status=1
"$venv/bin/python" "$here/apple_api.py" "$bin" || status=1
"$venv/bin/python" "$here/apple_offers.py" "$bin" || status=1
"$venv/bin/python" "$here/apple_errors.py" "$bin" || status=1
"$venv/bin/python" "$here/apple_customers.py" "$bin" || status=1
"$venv/bin/python" "$here/apple_online.py" "$bin" || status=1
# The docs' backend example, as written there.
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
export IAPSIM_STATE_DIR=$work/state IAPSIM_CATALOG=$root/catalog
"$bin" buy com.example.app.pro.monthly --yes >/dev/null \
  && "$bin" certs export "$work/trusted" >/dev/null \
  && out=$("$venv/bin/python" "$root/examples/backend_verify.py" "$work/trusted/root.der" "$("$bin" jws transaction 1)")
if [ "${out:-}" = "granted com.example.app.pro.monthly" ]; then
  echo "backend example: 1 passed, 0 failed"
else
  echo "FAIL: examples/backend_verify.py printed '${out:-}'"; status=1
fi
exit $status
