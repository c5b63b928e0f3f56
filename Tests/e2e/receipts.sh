#!/usr/bin/env bash
# The app receipt and /verifyReceipt against other people's code: openssl, Apple's
# app-store-server-library (ReceiptUtility) and itunes-iap (a legacy verifyReceipt client),
# both pinned, installed from PyPI into a virtual environment under .build/ the first time.
# Where PyPI or openssl is missing the step is skipped, saying so; where CI is set that fails
# instead (Tests/e2e/lib.sh), as does any other failed install.
# Usage: Tests/e2e/receipts.sh [path/to/iapsim]   (run by `make test`)
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
. "$here/lib.sh"
bin=${1:-$root/.build/debug/iapsim}
apple=3.1.2
legacy=2.6.1
venv=$root/.build/receipt-venv
log=$root/.build/receipt-venv.log
require_tools python3 openssl
installed() {
  "$venv/bin/python" -c "import appstoreserverlibrary, itunesiap, importlib.metadata as m
assert m.version('app-store-server-library') == '$apple' and m.version('itunes-iap') == '$legacy'" 2>/dev/null
}
index_answers() {
  python3 -c 'import os, urllib.request
urllib.request.urlopen(os.environ.get("PIP_INDEX_URL", "https://pypi.org/simple/"), timeout=15)' 2>>"$log"
}
if ! installed; then
  rm -rf "$venv"
  mkdir -p "$root/.build"
  python3 -m venv "$venv" >"$log" 2>&1 \
    || unavailable "python3 cannot make a virtual environment (the venv module; see .build/receipt-venv.log)"
  if ! "$venv/bin/pip" install --quiet --retries 1 "app-store-server-library==$apple" "itunes-iap==$legacy" \
    >>"$log" 2>&1; then
    rm -rf "$venv"
    index_answers || unavailable "PyPI cannot be reached to install app-store-server-library and itunes-iap"
    echo "FAIL: could not install app-store-server-library==$apple itunes-iap==$legacy from PyPI" \
      "into .build/receipt-venv (see .build/receipt-venv.log)" >&2
    exit 1
  fi
fi
"$venv/bin/python" "$here/receipts.py" "$bin"
