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
bin=$(cd "$(dirname "$bin")" && pwd)/$(basename "$bin")
apple=3.1.2
legacy=2.6.1
require_tools python3 openssl
pip_venv receipt "app-store-server-library==$apple" "itunes-iap==$legacy"
"$venv/bin/python" "$here/receipts.py" "$bin"
status=$?

# Every example 'iapsim help receipt' shows runs as written, in a fresh folder and state.
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/bin" "$work/run"
ln -s "$bin" "$work/bin/iapsim"
export PATH="$work/bin:$PATH" IAPSIM_STATE_DIR=$work/state IAPSIM_CATALOG=$root/catalog
iapsim buy com.example.app.book --yes >/dev/null
examples=0
while IFS= read -r line; do
  [ -n "$line" ] || continue
  if (cd "$work/run" && bash -c "set -o pipefail; $line" >"$work/out" 2>&1); then
    examples=$((examples + 1))
  else
    echo "FAIL: 'iapsim help receipt' example does not run: $line"; cat "$work/out"; status=1
  fi
done < <(iapsim help receipt | sed -n '/^EXAMPLES:/,$p' | sed -n 's/^  \(iapsim .*\)$/\1/p')
[ "$examples" -ge 3 ] || { echo "FAIL: only $examples examples found in 'iapsim help receipt'"; status=1; }
echo "receipt help examples: $examples ran"
exit $status
