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
require_tools python3 openssl
pip_venv receipt "app-store-server-library==$apple" "itunes-iap==$legacy"
"$venv/bin/python" "$here/receipts.py" "$bin"
