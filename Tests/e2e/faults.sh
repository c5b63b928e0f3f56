#!/usr/bin/env bash
# Fault and load tests, run by `make test`, each bounded in time: nothing lost under
# concurrency, SIGKILL, a full disk, a read-only folder, a held lock, or bad files.
# The parts that need Linux and root (tmpfs mounts, flock(1), timeout(1)) are skipped, saying
# why, where they cannot run, and fail instead where CI is set (Tests/e2e/lib.sh).
# Usage: Tests/e2e/faults.sh [path/to/iapsim]   IAPSIM_TEST_SEED=N replays the random parts.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
. "$here/lib.sh"
require_tools python3
bin=${1:-$root/.build/debug/iapsim}
work=$(mktemp -d)
mounts=()
cleanup() {
  for m in ${mounts[@]+"${mounts[@]}"}; do umount -l "$m" 2>/dev/null || umount "$m" 2>/dev/null; done
  rm -rf "$work"
}
trap cleanup EXIT
export IAPSIM_CATALOG=$root/catalog
unset IAPSIM_LOCALE IAPSIM_LOCK_TIMEOUT IAPSIM_STATE_DIR
passed=0 failed=0 skipped=0
unexpected=$work/unexpected
: >"$unexpected"
# check NAME EXPECTED ACTUAL: fails too when a command that had to succeed did not since the
# last check (see ok), so an empty output of a crashed command never passes for "0" or "".
check() {
  local why=""
  if [ -s "$unexpected" ]; then why=$(tr '\n' ' ' <"$unexpected"); : >"$unexpected"; fi
  if [ -z "$why" ] && [ "$2" = "$3" ]; then
    passed=$((passed + 1))
  else
    failed=$((failed + 1))
    echo "FAIL: $1: expected [$2], got [$3]${why:+ after: $why}"
  fi
}
seed=${IAPSIM_TEST_SEED:-$(( (RANDOM << 15) | RANDOM ))}
RANDOM=$seed
echo "faults: seed $seed (IAPSIM_TEST_SEED=$seed replays the kill timings and the garbage file)"
# Every command is bounded in time where GNU (or BSD 14) timeout exists.
if command -v timeout >/dev/null; then
  bounded=(timeout 20)
else
  bounded=()
  skip "time bounds: no timeout(1) here, commands run unbounded"
fi
iap() { local dir=$1; shift; IAPSIM_STATE_DIR=$dir ${bounded[@]+"${bounded[@]}"} "$bin" "$@" </dev/null; }
# ok DIR ARGS...: iap for a command that must succeed; a failure is noted for the next check.
ok() {
  local status=0
  iap "$@" 2>"$work/ok.err" || status=$?
  if [ "$status" -ne 0 ]; then
    echo "iapsim ${*:2} exited $status: $(head -c 300 "$work/ok.err" | tr '\n' ' ')" >>"$unexpected"
  fi
  return "$status"
}
count() { grep -o "\"$2\": [0-9]*" "$1" | head -n 1 | sed 's/.*: //'; }

# 50 concurrent purchases of one consumable: all counted, one transaction each.
state=$work/concurrent
pids=()
for _ in $(seq 50); do iap "$state" buy com.example.app.coins100 --yes >/dev/null 2>&1 & pids+=($!); done
ok=0; for pid in "${pids[@]}"; do wait "$pid" && ok=$((ok + 1)); done
check "concurrent buys succeeded" 50 "$ok"
ok "$state" status --json >"$work/status.json"
check "concurrent balance" 50 "$(grep -o '"com.example.app.coins100": [0-9]*' "$work/status.json" | sed 's/.*: //')"
check "concurrent transactions" 50 "$(count "$work/status.json" transactionCount)"
check "concurrent journal lines" 50 "$(wc -l <"$state/transactions.jsonl" | tr -d ' ')"

# SIGKILL at random moments, 200 times: the state always loads, every reported purchase stays.
state=$work/killed
reported=0 loads=0
for i in $(seq 200); do
  (IAPSIM_STATE_DIR=$state exec "$bin" buy com.example.app.coins100 --yes </dev/null >/dev/null 2>&1) &
  pid=$!
  sleep "0.0$((RANDOM % 40 + 10))"
  kill -9 "$pid" 2>/dev/null
  wait "$pid" 2>/dev/null && reported=$((reported + 1))
  iap "$state" status --json >"$work/killed.json" 2>"$work/killed.err" && loads=$((loads + 1))
done
check "state loads after every kill" 200 "$loads"
ok "$state" status --json >"$work/killed.json"
balance=$(grep -o '"com.example.app.coins100": [0-9]*' "$work/killed.json" | sed 's/.*: //')
total=$(count "$work/killed.json" transactionCount)
check "balance matches the journal after kills" "${total:-0}" "${balance:-0}"
check "every reported purchase kept" yes "$([ "${total:-0}" -ge "$reported" ] && echo yes || echo "no: $total < $reported")"
echo "faults: SIGKILL loop: $reported purchases reported, ${total:-0} kept, 200 kills (seed $seed)"

# The index beside the journal (transactions.idx): whatever a kill, a copy or an edit leaves
# of it, every look-up answers as a fresh rebuild does. answers DIR prints them all; fresh DIR
# prints them for a copy of DIR without its index.
# signedDate is the moment of each read, so it is left out of the comparison.
answers() {
  iap "$1" transactions --json 2>&1 | grep -v '"signedDate"'
  iap "$1" transactions --product com.example.app.book 2>&1
  iap "$1" transactions --state revoked --json 2>&1 | grep -v '"signedDate"'
  iap "$1" transactions --product com.example.app.coins999 2>&1
}
fresh() {
  rm -rf "$work/fresh"
  cp -R "$1" "$work/fresh" && rm -f "$work/fresh/transactions.idx"
  answers "$work/fresh"
}
check "index after 200 kills answers as a rebuild" "$(fresh "$state")" "$(answers "$state")"
state=$work/index
ok "$state" buy com.example.app.book --yes >/dev/null
for _ in 1 2 3; do ok "$state" buy com.example.app.coins100 --yes >/dev/null; done
ok "$state" refund 2 >/dev/null
cp "$state/transactions.idx" "$work/before.idx"
ok "$state" buy com.example.app.coins100 --yes >/dev/null
ok "$state" refund 3 >/dev/null
# SIGKILL between the journal append and the index write: the index of before stays.
cp "$work/before.idx" "$state/transactions.idx"
check "stale index answers as a rebuild" "$(fresh "$state")" "$(answers "$state")"
# ... or in the middle of the index write: new records under the old header.
head -c 128 "$work/before.idx" >"$work/torn.idx" && tail -c +129 "$state/transactions.idx" >>"$work/torn.idx"
cp "$work/torn.idx" "$state/transactions.idx"
check "torn index answers as a rebuild" "$(fresh "$state")" "$(answers "$state")"
# A truncated index.
head -c 3000 "$state/transactions.idx" >"$work/short.idx" && cp "$work/short.idx" "$state/transactions.idx"
check "truncated index answers as a rebuild" "$(fresh "$state")" "$(answers "$state")"
# An index from another journal: two copies of one folder take the same lines in another
# order (journals of one size), and one gets the other's index.
cp -R "$state" "$work/index-copy"
ok "$state" buy com.example.app.gems500 --yes >/dev/null && ok "$state" refund 4 >/dev/null
ok "$work/index-copy" refund 4 >/dev/null && ok "$work/index-copy" buy com.example.app.gems500 --yes >/dev/null
check "copied folders' journals have one size" "$(wc -c <"$state/transactions.jsonl")" "$(wc -c <"$work/index-copy/transactions.jsonl")"
cp "$work/index-copy/transactions.idx" "$state/transactions.idx"
check "another folder's index answers as a rebuild" "$(fresh "$state")" "$(answers "$state")"
# The journal edited by hand, in place, its size kept: transaction 5 becomes coins999.
sleep 0.05  # later than the last write by a tick of the coarsest file-system clock
python3 - "$state/transactions.jsonl" <<'PY'
import sys
with open(sys.argv[1], "r+b") as journal:
    text = journal.read()
    line = text.index(b'{"id":5,')
    at = text.index(b'com.example.app.coins100', line)
    journal.seek(at)
    journal.write(b'com.example.app.coins999')
PY
check "hand-edited journal answers as a rebuild" "$(fresh "$state")" "$(answers "$state")"
check "hand-edited journal's product listed" 1 "$(iap "$state" transactions --product com.example.app.coins999 | grep -c '^5 ')"

# A lock held past IAPSIM_LOCK_TIMEOUT: 75, and the state untouched.
state=$work/locked
ok "$state" buy com.example.app.book --yes >/dev/null
if command -v flock >/dev/null; then
  before=$(cat "$state/purchases.json")
  flock "$state/purchases.json.lock" sleep 5 &
  holder=$!
  for _ in $(seq 100); do flock -n "$state/purchases.json.lock" true 2>/dev/null || break; sleep 0.05; done  # until held
  IAPSIM_LOCK_TIMEOUT=0.2 iap "$state" buy com.example.app.coins100 --yes >/dev/null 2>"$work/lock.err"
  check "held lock exit" 75 "$?"
  check "held lock message names the lock" 1 "$(grep -c 'purchases.json.lock' "$work/lock.err")"
  check "held lock state unchanged" "$before" "$(cat "$state/purchases.json")"
  kill "$holder" 2>/dev/null; wait "$holder" 2>/dev/null
else
  skip "held lock: flock(1) is not installed (util-linux, Linux)"
fi
IAPSIM_LOCK_TIMEOUT=soon iap "$state" status >/dev/null 2>&1
check "bad IAPSIM_LOCK_TIMEOUT exit" 64 "$?"

# Unreadable state files: 65, byte for byte unchanged.
for kind in truncated garbage shape newer; do
  state=$work/bad-$kind
  mkdir -p "$state"
  case $kind in
    truncated) printf '{"schemaVersion": 2, "account": {"nextTrans' ;;
    garbage) for _ in $(seq 256); do printf "\\$(printf %03o $((RANDOM % 256)))"; done ;;
    shape) printf '{"schemaVersion": 2, "account": [], "app": 7}' ;;
    newer) printf '{"schemaVersion": 99, "future": {}}' ;;
  esac >"$state/purchases.json"
  cp "$state/purchases.json" "$work/copy"
  iap "$state" buy com.example.app.book --yes >/dev/null 2>"$work/bad.err"
  check "$kind state exit" 65 "$?"
  check "$kind state unchanged" same "$(cmp -s "$state/purchases.json" "$work/copy" && echo same || echo changed)"
  check "$kind state message is one line" 1 "$(wc -l <"$work/bad.err" | tr -d ' ')"
done

# A full disk: 74, the previous state intact.
disk=$work/disk
mkdir -p "$disk"
if mount -t tmpfs -o size=128k tmpfs "$disk" 2>/dev/null; then
  mounts+=("$disk")
  ok "$disk/state" buy com.example.app.book --yes >/dev/null
  cp "$disk/state/purchases.json" "$work/disk-copy"
  head -c 1M /dev/zero >"$disk/filler" 2>/dev/null
  iap "$disk/state" buy com.example.app.coins100 --yes >/dev/null 2>"$work/disk.err"
  check "full disk exit" 74 "$?"
  check "full disk state intact" same "$(cmp -s "$disk/state/purchases.json" "$work/disk-copy" && echo same || echo changed)"
  rm -f "$disk/filler"
  ok "$disk/state" status --json >"$work/disk.json"
  check "state loads after a full disk" 1 "$(count "$work/disk.json" transactionCount)"
else
  skip "full disk: cannot mount a tmpfs here (Linux, as root)"
fi

# A read-only state folder (root ignores mode bits, so a read-only mount): 73.
ro=$work/ro
mkdir -p "$ro"
if mount -t tmpfs -o size=1m tmpfs "$ro" 2>/dev/null; then
  mounts+=("$ro")
  ok "$ro/state" buy com.example.app.book --yes >/dev/null
  if mount -o remount,ro "$ro" 2>/dev/null; then
    iap "$ro/state" buy com.example.app.coins100 --yes >/dev/null 2>"$work/ro.err"
    check "read-only exit" 73 "$?"
    iap "$ro/state" status >/dev/null
    check "read-only state still readable" 0 "$?"
  else
    skip "read-only: remount refused"
  fi
else
  skip "read-only: cannot mount a tmpfs here (Linux, as root)"
fi

# Hostile catalogs: clear errors, never a crash or a hang.
state=$work/catalogs
python3 - "$work" <<'PY'
import json, sys
work = sys.argv[1]
open(f"{work}/deep.storekit", "w").write("[" * 200000 + "]" * 200000)
open(f"{work}/deep-object.storekit", "w").write('{"products":' + '{"a":' * 100000 + "1" + "}" * 100000 + "}")
open(f"{work}/types.storekit", "w").write(json.dumps({"products": [{"productID": ["x"], "type": 1, "displayPrice": {}}]}))
open(f"{work}/root.storekit", "w").write("42")
open(f"{work}/nul.storekit", "wb").write(b'{"products": [{"productID": "a\x00b", "type": "Consumable", "displayPrice": "1"}]}')
products = [{"productID": f"p{i}", "type": "Consumable", "displayPrice": "1.99",
             "localizations": [{"locale": "en_US", "displayName": f"\u202eevil\u001b[2J{i}", "description": ""}]}
            for i in range(20000)]
open(f"{work}/huge.storekit", "w").write(json.dumps({"products": products}))
PY
for name in deep deep-object types root nul; do
  iap "$state" list --storekit "$work/$name.storekit" >/dev/null 2>"$work/cat.err"
  code=$?
  check "$name catalog exit" 65 "$code"
  check "$name catalog names the file" 1 "$(grep -c "$name.storekit" "$work/cat.err")"
done
ok "$state" list --storekit "$work/huge.storekit" >"$work/huge.out"
check "huge catalog lists" 0 "$?"
check "huge catalog output has no escape codes" 0 "$(grep -c $'\x1b' "$work/huge.out")"
iap "$state" check --storekit "$work/types.storekit" >/dev/null 2>&1
check "check on a wrong-typed catalog" 65 "$?"

echo "faults: $passed passed, $failed failed, $skipped skipped"
[ "$failed" -eq 0 ]
