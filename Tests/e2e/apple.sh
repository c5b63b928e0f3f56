#!/usr/bin/env bash
# Apple's App Store Server Library (Python, pinned) verifies iapsim's signed data. It is
# installed into a virtual environment under .build/ the first time; IAPSIM_SKIP_APPLE_LIBRARY=1
# skips this step (and says so). If the package index cannot be reached, the step fails.
# Usage: Tests/e2e/apple.sh [path/to/iapsim]   (run by `make test`)
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
bin=${1:-$root/.build/debug/iapsim}
version=3.1.2
venv=$root/.build/apple-venv
if [ "${IAPSIM_SKIP_APPLE_LIBRARY:-}" = 1 ]; then
  echo "SKIP: Apple's app-store-server-library checks (IAPSIM_SKIP_APPLE_LIBRARY=1)"
  exit 0
fi
if ! "$venv/bin/python" -c "import appstoreserverlibrary, importlib.metadata as m; assert m.version('app-store-server-library') == '$version'" 2>/dev/null; then
  rm -rf "$venv"
  if ! python3 -m venv "$venv" >"$root/.build/apple-venv.log" 2>&1 \
    || ! "$venv/bin/pip" install --quiet "app-store-server-library==$version" >>"$root/.build/apple-venv.log" 2>&1; then
    echo "FAIL: could not install app-store-server-library==$version from PyPI into $venv (see .build/apple-venv.log);" \
      "set IAPSIM_SKIP_APPLE_LIBRARY=1 to skip this step" >&2
    exit 1
  fi
fi
"$venv/bin/python" "$here/apple_signed_data.py" "$bin"
status=$?
"$venv/bin/python" "$here/apple_notifications.py" "$bin" || status=1
"$venv/bin/python" "$here/apple_api.py" "$bin" || status=1
"$venv/bin/python" "$here/apple_offers.py" "$bin" || status=1
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
