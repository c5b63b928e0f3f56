#!/usr/bin/env bash
# Runs every cookbook script against a throw-away state folder; `make test` calls it so the
# examples never rot. Usage: examples/run-all.sh [path/to/iapsim]
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
export IAPSIM=${1:-iapsim} IAPSIM_CATALOG=${IAPSIM_CATALOG:-$(cd "$here/.." && pwd)/catalog}
passed=0 failed=0
for script in "$here"/ci-check-and-buy.sh "$here"/restore-after-reinstall.sh "$here"/ask-to-buy.sh; do
  state=$(mktemp -d)
  if IAPSIM_STATE_DIR=$state bash "$script" >"$state/log" 2>&1; then
    passed=$((passed + 1))
  else
    failed=$((failed + 1))
    echo "FAIL: $(basename "$script")"; sed 's/^/  /' "$state/log"
  fi
  rm -rf "$state"
done
echo "examples: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
