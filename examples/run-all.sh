#!/usr/bin/env bash
# Runs every cookbook script with IAPSIM_STATE_DIR exported at a folder holding state of its
# own, as SCRIPTING.md recommends a shell to: each script must make and remove its own state,
# leave that folder untouched, and leave no state folder of its own behind. `make test` calls
# it so the examples never rot. Usage: examples/run-all.sh [path/to/iapsim]
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
export IAPSIM=${1:-iapsim} IAPSIM_CATALOG=${IAPSIM_CATALOG:-$(cd "$here/.." && pwd)/catalog}
passed=0 failed=0
for script in "$here"/ci-check-and-buy.sh "$here"/restore-after-reinstall.sh "$here"/ask-to-buy.sh; do
  state=$(mktemp -d)
  "${IAPSIM}" --state-dir "$state" buy com.example.app.book --yes >/dev/null 2>&1
  before=$(find "$state" -type f -exec cksum {} + | sort)
  temporary=$(mktemp -d)
  if IAPSIM_STATE_DIR=$state TMPDIR=$temporary bash "$script" >"$state.log" 2>&1 \
    && [ "$(find "$state" -type f -exec cksum {} + | sort)" = "$before" ] \
    && [ -z "$(ls -A "$temporary")" ]; then
    passed=$((passed + 1))
  else
    failed=$((failed + 1))
    echo "FAIL: $(basename "$script") (or it touched the exported state, or left a folder behind)"
    sed 's/^/  /' "$state.log"
  fi
  rm -rf "$state" "$state.log" "$temporary"
done
echo "examples: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
