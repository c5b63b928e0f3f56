#!/usr/bin/env bash
# Runs every end-to-end step `make test` has, two at a time (this machine's cores), each with
# its output kept aside; prints each step's result and time as it ends, then a summary, and
# goes on after a failure so one run reports every failing step. Exits 1 when any failed.
# STEPS="crash apple" picks some by name. The steps are independent: each makes its own
# temporary state, binds 127.0.0.1 on ports the OS picks, and writes only under .build/.
# Usage: Tests/e2e/run-all.sh path/to/iapsim   (run by `make test`)
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
bin=${1:-$root/.build/debug/iapsim}
bin=$(cd "$(dirname "$bin")" && pwd)/$(basename "$bin")
jobs=${E2E_JOBS:-2}
logs=$root/.build/e2e-logs
rm -rf "$logs"
mkdir -p "$logs"

# name and command, the longest first so two lanes finish close together.
all=(
  "storekit-apps|$root/examples/storekit-apps.sh $bin"
  "apple|$here/apple.sh $bin"
  "crash|$here/crash.sh $bin"
  "ui|$here/ui.sh $bin"
  "receipts|$here/receipts.sh $bin"
  "deliveries|$here/needs python3 -- python3 $here/deliveries.py $bin"
  "faults|$here/faults.sh $bin"
  "clock-exec|$here/clock_exec.sh $bin"
  "flows|$here/flows.sh $bin"
  "docs-examples|$here/examples.sh $bin"
  "schemas|$here/needs python3 -- python3 $here/schemas.py $bin"
  "prompt|$here/prompt.sh $bin"
  "completion|$here/completion.sh $bin"
  "readme|$here/readme.sh $bin"
  "cookbook|$root/examples/run-all.sh $bin"
)
steps=()
for entry in "${all[@]}"; do
  name=${entry%%|*}
  if [ -z "${STEPS:-}" ] || [[ " $STEPS " == *" $name "* ]]; then steps+=("$entry"); fi
done

started=$SECONDS
declare -A pids=() began=()
results=()
finish_one() {
  local pid=$1 name=${pids[$1]} status
  wait "$pid"; status=$?
  local took=$((SECONDS - ${began[$name]}))
  local summary
  summary=$(grep -E '[0-9]+ passed|skipped:|^FAIL' "$logs/$name.log" | tail -1)
  if [ "$status" -eq 0 ]; then
    results+=("ok    $(printf '%-14s %4ss' "$name" "$took")  $summary")
    echo "e2e: ok   $name (${took}s) $summary"
  else
    results+=("FAIL  $(printf '%-14s %4ss' "$name" "$took")  exit $status; .build/e2e-logs/$name.log")
    echo "e2e: FAIL $name (${took}s, exit $status):"
    tail -25 "$logs/$name.log" | sed 's/^/  | /'
  fi
  unset "pids[$pid]"
}
for entry in "${steps[@]}"; do
  while [ "${#pids[@]}" -ge "$jobs" ]; do
    wait -n 2>/dev/null
    for pid in "${!pids[@]}"; do kill -0 "$pid" 2>/dev/null || finish_one "$pid"; done
  done
  name=${entry%%|*}
  command=${entry#*|}
  began[$name]=$SECONDS
  bash -c "$command" >"$logs/$name.log" 2>&1 &
  pids[$!]=$name
done
for pid in "${!pids[@]}"; do finish_one "$pid"; done

echo
echo "e2e summary ($((SECONDS - started))s, $jobs at a time):"
printf '  %s\n' "${results[@]}"
! printf '%s\n' "${results[@]}" | grep -q '^FAIL'
