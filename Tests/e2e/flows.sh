#!/usr/bin/env bash
# End-to-end purchase flows, driven the way a script drives iapsim: exit codes and JSON
# checked with plain tools (grep, sed), a throw-away state folder, the bundled catalog.
# Usage: Tests/e2e/flows.sh [path/to/iapsim]   (run by `make test`)
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
bin=${1:-$root/.build/debug/iapsim}
state=$(mktemp -d)
trap 'rm -rf "$state"' EXIT
export IAPSIM_STATE_DIR=$state/state IAPSIM_CATALOG=$root/catalog
unset IAPSIM_LOCALE IAPSIM_LOCK_TIMEOUT
passed=0 failed=0
unexpected=$state/unexpected
: >"$unexpected"

# check NAME EXPECTED ACTUAL: fails too when a `run` since the last check exited non-zero, so
# the empty output of a crashed command never passes for "0" or "".
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
# run ARGS...: iapsim's stdout, for a command that must succeed; a failure is noted for the next check.
run() {
  local status=0
  "$bin" "$@" </dev/null 2>"$state/err" || status=$?
  if [ "$status" -ne 0 ]; then
    echo "iapsim $* exited $status: $(head -c 300 "$state/err" | tr '\n' ' ')" >>"$unexpected"
  fi
  return "$status"
}
# exits CODE ARGS...: iapsim's stdout, for a command that must exit with CODE; anything else is noted.
exits() {
  local want=$1 status=0
  shift
  "$bin" "$@" </dev/null 2>"$state/err" || status=$?
  if [ "$status" -ne "$want" ]; then echo "iapsim $* exited $status, not $want" >>"$unexpected"; fi
}
# code ARGS...: the exit status alone, for commands whose status is what is checked.
code() { "$bin" "$@" </dev/null >/dev/null 2>"$state/err"; echo $?; }
field() { # field NAME: the first "NAME": value in stdin, unquoted
  grep -o "\"$1\": [^,}]*" | head -n 1 | sed -e "s/\"$1\": //" -e 's/^"//' -e 's/"$//'
}

# Frozen first, so that no real second slips in before the date is set.
check "clock freeze" 0 "$(code clock freeze)"
check "clock set" 0 "$(code clock set 2090-01-01T00:00:00Z)"

# Ask to Buy: pending (3) until a parent approves; asking again is the same request; then owned.
check "ask-to-buy exit" 3 "$(code buy com.example.app.book --outcome ask-to-buy)"
check "ask-to-buy again exit" 3 "$(code buy com.example.app.book --outcome ask-to-buy)"
check "one request per product" 1 "$(run transactions --state pending --json | grep -c '"reason": "askToBuy"')"
pending=$(run transactions --state pending --json | field id)
check "pending id" 1 "$pending"
check "approve exit" 0 "$(code approve "$pending")"
check "owned after approval" 1 "$(run status --json | grep -c '"productID": "com.example.app.book"')"
check "charged once" 1 "$(run transactions --product com.example.app.book --json | grep -c '"reason": "purchase"')"

# Declined: nothing bought.
check "declined purchase pends" 3 "$(code buy com.razeware.inapprage.nightlyrage --outcome ask-to-buy)"
check "decline exit" 0 "$(code decline 2)"
check "not owned after decline" 0 "$(run status --json | grep -c nightlyrage)"

# Interrupted: the purchase fails (6) until resolved, then a new transaction arrives through
# Transaction.updates at the next launch.
check "interrupted exit" 6 "$(code buy com.example.app.coins100 --outcome interrupted --quantity 2)"
check "nothing bought while interrupted" 0 "$(run status --json | grep -c '"com.example.app.coins100": ')"
check "resolve exit" 0 "$(code resolve 3)"
check "a new transaction" 4 "$(run transactions --product com.example.app.coins100 --json | field id)"
run list >/dev/null
check "delivered at the next launch" 1 "$(grep -c 'Transaction.updates delivered transaction 4' "$state/err")"
check "balance after resolve" 2 "$(run status --json | grep -o '"com.example.app.coins100": [0-9]*' | sed 's/.*: //')"
check "delivered once" 0 "$(grep -c 'Transaction.updates delivered' "$state/err")"

# An Ask to Buy request nobody answers expires after 24 hours, declined.
check "a request to expire" 3 "$(code buy com.example.app.gems500 --outcome ask-to-buy)"
run clock advance P1D >/dev/null
check "expiry noted" 1 "$(grep -c 'Ask to Buy request 5 for com.example.app.gems500 expired unanswered' "$state/err")"
check "expired, not pending" 0 "$(run transactions --state pending --json | grep -c gems500)"
check "listed as expired" 1 "$(run status --json | grep -c '"productID": "com.example.app.gems500"')"
check "an expired request cannot be approved" 64 "$(code approve 5)"

# Failures with Apple's codes, and a cancel.
check "fail exit" 1 "$(code buy com.example.app.gems500 --outcome fail=networkError)"
check "fail code in JSON" 14 "$(exits 1 buy com.example.app.gems500 --outcome fail=14 --json | field code)"
check "an error Purchase cannot fail with is refused" 64 "$(code buy com.example.app.gems500 --outcome fail=cloudServiceNetworkConnectionFailed)"
check "an error Load Products cannot fail with is refused" 64 "$(code settings set error.load-products Product.PurchaseError.invalidQuantity)"
check "cancel exit" 2 "$(code buy com.example.app.gems500 --outcome cancel)"
run settings set payments-allowed false >/dev/null
check "not allowed exit" 4 "$(code buy com.example.app.gems500)"
run settings reset payments-allowed >/dev/null
check "unknown product exit" 5 "$(code buy com.example.app.nothing)"

# Refund: the book is revoked and leaves the app's record.
check "refund exit" 0 "$(code refund 1 --reason developerIssue)"
check "revocation reason" developerIssue "$(run transactions --product com.example.app.book --json | field revocationReason)"
check "not owned after refund" 0 "$(run status --json | grep -c '"productID": "com.example.app.book"')"

# A year of monthly renewals: one free week, then twelve paid months, one originalID.
tx=$(run buy com.example.app.pro.monthly --json | field id)
run clock advance P1Y >/dev/null
chain=$(run transactions --product com.example.app.pro.monthly --json | grep -c "\"originalID\": $tx")
check "transactions in the chain" 13 "$chain"
check "renewals" 12 "$(run transactions --product com.example.app.pro.monthly --json | grep -c '"reason": "renewal"')"
check "still subscribed" subscribed "$(run status --json | field state)"
check "expiry after a year" 2091-01-09T00:00:00Z "$(run status --json | field expirationDate)"

# Cancelled: expires at the period's end and stops renewing.
run cancel-subscription com.example.app.pro.monthly >/dev/null
run clock advance P2M >/dev/null
check "expired after cancel" expired "$(run status --json | field state)"
check "no renewals after cancel" 12 "$(run transactions --product com.example.app.pro.monthly --json | grep -c '"reason": "renewal"')"

# Deleting a transaction: gone from the history and the app's record, for good.
check "delete exit" 0 "$(code transactions delete 4)"
check "deleted from the history" 0 "$(run transactions --json | grep -c '"id": 4,')"
check "deleted from the balance" 0 "$(run status --json | grep -o '"com.example.app.coins100": [0-9]*' | sed 's/.*: //')"

# The resets: --transactions keeps the settings, --settings keeps the transactions.
run settings set grace-period true >/dev/null
check "reset --transactions exit" 0 "$(code reset --transactions --yes)"
check "no transactions left" 0 "$(run status --json | field transactionCount)"
check "settings kept" true "$(run settings --json | field grace-period)"
run buy com.example.app.book --yes >/dev/null
check "reset --settings exit" 0 "$(code reset --settings)"
check "settings reset" false "$(run settings --json | field grace-period)"
check "transactions kept" 1 "$(run status --json | field transactionCount)"

# An oversized JWS on stdin is refused at once: 200 MB took 22 s and 1.3 GB to reject.
start=$(date +%s%N)
big_status=$(head -c 200000000 /dev/zero | tr '\0' A | "$bin" jws decode 2>"$state/err" >/dev/null
  echo "${PIPESTATUS[2]}")
elapsed_ms=$(( ($(date +%s%N) - start) / 1000000 ))
check "a 200 MB JWS exits 65" 65 "$big_status"
check "a 200 MB JWS is refused within 2 s" yes "$([ "$elapsed_ms" -lt 2000 ] && echo yes || echo "no: $elapsed_ms ms")"
check "a 200 MB JWS names the limit" 1 "$(grep -c 'longer than 1048576 bytes' "$state/err")"

echo "flows: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
