#!/usr/bin/env bash
# Every mutating command killed with SIGKILL at each of its write-side system calls in turn
# (strace's fault injection), and the state checked after each kill: the change happened
# whole (with its notification) or not at all, and a retry then yields exactly one effect.
#
# How: each command runs once unkilled under `strace -f` on a copy of its starting state,
# which lists its write-side calls in order — openat that may create or write a file (the
# lock, temp files, the journals), write and pwrite64, fsync, ftruncate, rename, unlink. Then,
# for a call of that list, the command runs again on a fresh copy under
# `strace -e inject=CALL:signal=KILL:when=N`, N being that call's ordinal among the calls of
# its kind, and the next command (`status --json`) and the files it leaves must be exactly
# the state before the command or exactly the state the unkilled run left (at the commit
# points `transactions --json` and `notifications --json` too); when they are the one before,
# the command is run again and must then leave exactly the unkilled run's state. Openat calls
# that only read, and writes to the terminal past the first, are not write-side and are passed
# over (the first write to stdout is killed: a change made but not reported).
# CRASH_ALL=1 kills at every write-side call; by default every rename (the commit points) and,
# of each other kind, CRASH_PER_KIND calls (default 1) drawn with a printed seed
# (IAPSIM_TEST_SEED replays it), so the whole script stays within minutes.
# Usage: Tests/e2e/crash.sh [path/to/iapsim]   CRASH_ONLY=REGEX runs the commands it matches.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
. "$here/lib.sh"
case "$(uname -s)" in Linux) ;; *) unavailable "strace fault injection needs Linux" ;; esac
require_tools strace
bin=${1:-$root/.build/debug/iapsim}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
export IAPSIM_CATALOG=$root/catalog
unset IAPSIM_LOCALE IAPSIM_LOCK_TIMEOUT IAPSIM_STATE_DIR IAPSIM_CERTS_DIR
export IAPSIM_CERTS_DIR=$work/certs  # one signing chain for every copy, so signatures compare
per_kind=${CRASH_PER_KIND:-1}
seed=${IAPSIM_TEST_SEED:-$(( (RANDOM << 15) | RANDOM ))}
passed=0 failed=0 kills=0
started=$SECONDS
fail() { failed=$((failed + 1)); echo "FAIL: $*"; }

# strace itself must be able to inject: a container without ptrace cannot.
if ! strace -f -o /dev/null -e trace=getpid -e inject=getpid:retval=1 true 2>"$work/strace.err"; then
  unavailable "strace cannot trace here: $(head -c 200 "$work/strace.err")"
fi

iap() { local dir=$1; shift; IAPSIM_STATE_DIR=$dir "$bin" "$@" </dev/null; }
# state DIR: the app's record as the next command sees it (`status --json`, which also
# finishes or undoes what a kill interrupted — for the customer `default`, whichever customer's
# command was killed), then the files it leaves byte for byte: the snapshot (settings, session),
# the app's store.json (clock, app settings, the outbox's count and mark), the history and the
# outbox, and the same for the customer bob where the store has him. The index is derived, and
# rebuilt when it does not check, so it is left out. Of a snapshot, what differs between two
# runs of one change is left out too: the `commit` it was written by, the last member (a later
# change that appends nothing rewrites the snapshot without it; the commas go with it), and
# a frozen clock's anchor (the real time the clock was last moved at).
snapshot() {
  sed -e '/^  "commit": {/,$d' -e '/^}$/d' -e 's/,$//' -e '/^      "anchor": /d' "$1" 2>/dev/null
}
state() {
  # Its date is the real time once `reset --all` has erased the clock; the snapshot's is compared.
  iap "$1" status --json 2>/dev/null | grep -v '"signedDate"\|^  "date": '
  local file
  for file in purchases.json store.json; do
    echo "== $file"
    snapshot "$1/$file"
  done
  for file in transactions.jsonl notifications.jsonl customers.json server-errors.json; do
    echo "== $file"
    cat "$1/$file" 2>/dev/null
  done
  # Every customer as `accounts` lists them (a half-added or half-removed one says so), and
  # each one's records.
  echo "== accounts"
  iap "$1" accounts --json 2>/dev/null
  local folder
  for folder in "$1"/accounts/*/; do
    [ -e "$folder/purchases.json" ] || continue
    local name
    name=$(basename "$folder")
    echo "== $name"
    iap "$1" --account "$name" status --json 2>/dev/null | grep -v '"signedDate"\|^  "date": '
    snapshot "$folder/purchases.json"
    cat "$folder/transactions.jsonl" 2>/dev/null
  done
}
# views DIR: the history and the outbox as commands list them.
views() {
  {
    iap "$1" transactions --json
    iap "$1" notifications --json --all-accounts
    if [ -e "$1/accounts/bob/purchases.json" ]; then iap "$1" --account bob transactions --json; fi
  } 2>&1 | grep -v '"signedDate"\|"signed[A-Za-z]*": "ey'
}

# Starting states, each made once by a few unkilled commands on a frozen clock.
setup() {
  local name=$1; shift
  local dir=$work/start-$name
  mkdir -p "$dir"
  iap "$dir" clock set 2030-06-01T12:00:00Z >/dev/null && iap "$dir" clock freeze >/dev/null || {
    fail "$name: cannot set up the clock"
    return 1
  }
  local step
  for step in "$@"; do
    # shellcheck disable=SC2086
    iap "$dir" $step >/dev/null 2>"$work/setup.err"
    # 0–6 are a purchase's outcomes (3 pending, 6 interrupted), 7 a drain whose delivery failed
    # (recorded, as a setup to a closed port means it); anything else is a failure.
    if [ $? -gt 7 ]; then
      fail "$name: setup '$step' failed: $(head -c 200 "$work/setup.err")"
      return 1
    fi
  done
}

# The write-side calls of one run, from strace's log: "KIND ORDINAL" per line, in order.
write_side() {
  awk '
    {
      if (!match($0, /^[0-9]+ +(openat|write|pwrite64|fsync|ftruncate|rename|unlink)\(/)) next
      line = substr($0, RSTART, RLENGTH); sub(/^[0-9]+ +/, "", line); sub(/\($/, "", line)
      kind = line; count[kind]++
      if (kind == "openat" && $0 !~ /O_CREAT|O_WRONLY|O_RDWR/) next
      if (kind == "write" && $0 ~ /^[0-9]+ +write\([12],/) { if (terminal++) next }
      print kind, count[kind]
    }' "$1"
}

# pick LIST: the calls to kill at — all of them with CRASH_ALL, else every rename (the commit
# points) and, of each other kind, per_kind calls drawn with the seed, so that runs with other
# seeds cover the rest.
pick() {
  if [ -n "${CRASH_ALL:-}" ]; then cat "$1"; return; fi
  awk -v most="$per_kind" -v seed="$seed" '
    BEGIN { srand(seed) }
    { kinds[$1] = kinds[$1] " " $2; if (!($1 in seen)) { order[++n] = $1; seen[$1] = 1 } }
    END {
      for (i = 1; i <= n; i++) {
        k = order[i]; c = split(kinds[k], all, " ")
        if (c <= most || k == "rename") { for (j = 1; j <= c; j++) print k, all[j]; continue }
        delete chosen
        for (m = 0; m < most; ) { j = 1 + int(rand() * c); if (!(j in chosen)) { chosen[j] = 1; m++ } }
        for (j = 1; j <= c; j++) if (j in chosen) print k, all[j]
      }
    }' "$1"
}

covered=$work/covered
: >"$covered"
# A pattern of the `state` output a command may be killed into besides the states before and
# after, as it documents (set around a `crash` call): then a retry must reach the state after.
half_states=
# crash NAME START ARGS...: the command ARGS on a copy of start-START, killed at each pick.
crash() {
  local name=$1 start=$work/start-$2; shift 2
  [ -d "$start" ] || return 0
  if [ -n "${CRASH_ONLY:-}" ] && ! [[ $name =~ $CRASH_ONLY ]]; then return 0; fi
  local before after after_views
  # On a copy: the first command after some changes saves what it delivered (a purchase made
  # outside the app, through Transaction.updates), so the starting state is never read itself.
  rm -rf "$work/run" && cp -R "$start" "$work/run"
  before=$(state "$work/run")
  rm -rf "$work/run" && cp -R "$start" "$work/run"
  IAPSIM_STATE_DIR=$work/run strace -f -qq -o "$work/trace" \
    -e trace=openat,write,pwrite64,fsync,ftruncate,rename,unlink "$bin" "$@" </dev/null >/dev/null 2>&1
  local expected=$?
  after=$(state "$work/run")
  after_views=$(views "$work/run")
  if [ "$before" = "$after" ]; then fail "$name: the unkilled run changed nothing"; return; fi
  write_side "$work/trace" >"$work/calls"
  pick "$work/calls" >"$work/picked"
  local kind n status seen kinds_done=""
  while read -r kind n; do
    rm -rf "$work/run" && cp -R "$start" "$work/run"
    # In a command substitution, so the shell does not report each kill.
    status=$(
      IAPSIM_STATE_DIR=$work/run timeout 60 strace -f -qq -o /dev/null -e trace="$kind" \
        -e inject="$kind:signal=KILL:when=$n" "$bin" "$@" </dev/null >/dev/null 2>&1
      echo $?
    )
    kills=$((kills + 1))
    if [ "$status" -ne 137 ]; then
      fail "$name: not killed at $kind #$n (exit $status; the unkilled run exited $expected)"
      continue
    fi
    seen=$(state "$work/run")
    if [ -e "$work/run/purchases.json.next" ]; then
      fail "$name: killed at $kind #$n: the next command left the intent file"
    fi
    if [ "$seen" = "$after" ]; then
      passed=$((passed + 1))
    elif [ "$half_states" = views ] && [ "$(views "$work/run")" = "$after_views" ]; then
      # A change made of several commits, each whole (a clock move, then each customer brought
      # up to date by it): the files may stop between two, and every command shows the state
      # after.
      passed=$((passed + 1))
    elif [ "$seen" = "$before" ] || { [ -n "$half_states" ] && [ "$half_states" != views ] && echo "$seen" | grep -q "$half_states"; }; then
      # The state before, or a half-state the command documents (a customer listed as
      # half-added or half-removed): the retry must leave exactly what one run leaves.
      IAPSIM_STATE_DIR=$work/run "$bin" "$@" </dev/null >/dev/null 2>&1
      if [ "$(state "$work/run")" = "$after" ]; then
        passed=$((passed + 1))
      else
        fail "$name: killed at $kind #$n, the retry did not leave the state one run leaves"
        diff <(echo "$after") <(state "$work/run") | head -10
      fi
    else
      fail "$name: killed at $kind #$n: neither the state before nor after"; [ -n "${CRASH_DEBUG:-}" ] && diff <(echo "$before") <(echo "$seen")
      diff <(echo "$after") <(echo "$seen") | head -10
    fi
    # At the commit points, the listings too: the history and the outbox as commands show them.
    if [ "$kind" = rename ] && [ "$(views "$work/run")" != "$after_views" ]; then
      fail "$name: killed at $kind #$n: transactions or notifications --json differ from one run's"
    fi
    case " $kinds_done " in *" $kind "*) ;; *) kinds_done="$kinds_done $kind" ;; esac
  done <"$work/picked"
  echo "$name: $(wc -l <"$work/picked" | tr -d ' ') of $(wc -l <"$work/calls" | tr -d ' ') write-side calls killed (${kinds_done# })" >>"$covered"
}

echo "crash: seed $seed (IAPSIM_TEST_SEED=$seed replays the sample; CRASH_ALL=1 kills at every call)"
echo "crash: setting up"
setup fresh
setup book "buy com.example.app.book --yes"
setup coins "buy com.example.app.coins100 --yes"
setup sub "buy com.example.app.pro.monthly --yes"
setup ask "buy com.example.app.book --outcome ask-to-buy"
setup interrupted "buy com.example.app.book --outcome interrupted"
setup manual "settings set finish-transactions manual" "buy com.example.app.book"
setup requested "buy com.example.app.coins100 --yes" "request-refund 1"
setup family "buy com.example.app.book --as-family-member"
setup local "buy com.example.app.book --yes" "reset --local"
# Two customers in one store: one intent for the store, so a command for bob killed anywhere is
# finished or undone by the next command, which is `default`'s.
setup customers "buy com.example.app.book --yes" "--account bob buy com.example.app.coins100 --yes"
# (A first drain makes what signing a delivery needs in the shared certs folder, so every run
# of the one killed below does the same calls; bob's purchase then waits to be delivered.)
setup subscribers "settings set environment Production" "buy com.example.app.pro.monthly --yes" \
  "listen --drain --forward-to http://127.0.0.1:9/hook --timeout 1" "--account bob buy com.example.app.pro.monthly --yes"
setup armed "buy com.example.app.book --yes" "server-error 4290000 --count 2"

echo "crash: killing"
crash "buy consumable" fresh buy com.example.app.coins100 --yes
crash "buy subscription" fresh buy com.example.app.pro.monthly --yes
crash approve ask approve 1
crash decline ask decline 1
crash resolve interrupted resolve 1
crash finish manual finish 1
crash "refund consumable" coins refund 1
crash "refund non-consumable" book refund 1
crash "refund --decline" requested refund 1 --decline
crash request-refund coins request-refund 1
crash cancel-subscription sub cancel-subscription com.example.app.pro.monthly
crash renew sub renew com.example.app.pro.monthly
crash expire sub expire com.example.app.pro.monthly
crash price-increase sub price-increase com.example.app.pro.monthly 14.99
crash "family revoke" family family revoke 1
crash redeem-offer-code fresh redeem-offer-code com.example.app.pro.monthly pro.winter --yes
crash "transactions delete" coins transactions delete 1
crash restore local restore
crash "reset --local" book reset --local
crash "reset --transactions" coins reset --transactions --yes
crash "reset --settings" manual reset --settings
crash "reset --all" coins reset --all --yes
crash "settings set" book settings set ask-to-buy true
crash "clock advance" sub clock advance P1M
crash "clock set" sub clock set 2030-08-01T12:00:00Z
# A trigger makes the events happen one by one, each a change of its own (a purchase, then a
# renewal): one whose events are a single change is killed here.
crash "trigger" sub trigger DID_RENEW
crash notify-test book notify-test
crash "bob buy, then default" customers --account bob buy com.example.app.pro.monthly --yes
crash "bob refund, then default" customers --account bob refund 1000000000001
crash "bob reset --transactions" customers --account bob reset --transactions --yes
crash "reset --all, two customers" customers reset --all --yes
# Every other command that writes: customers added and removed (their documented half-states:
# a customer listed as half-added or half-removed, which the retry finishes), a customer's
# and the app's settings, armed server errors, a clock move that renews every customer's
# subscription, and deliveries recorded by `listen --drain` (to a port that refuses: each
# attempt is a failure, recorded).
half_states='"incomplete": "removing"'
crash "accounts remove" customers accounts remove bob --yes
# Added, then its storefront set: two changes, each whole; killed between them (or with the
# number written and the snapshot not: listed as half-added), the retry finishes.
half_states=.
crash "accounts add" customers accounts add carol --storefront GBR
half_states=
crash "bob settings set" customers --account bob settings set storefront GBR
crash "app settings set, two customers" customers settings set environment Production
crash "server-error arm" book server-error 5000001 --count 3 --endpoint '/inApps/v1/subscriptions/*'
crash "server-error clear" armed server-error clear
half_states=views
crash "clock advance, two customers" subscribers clock advance P1M
half_states=
# Each attempt is recorded before the next POST: a kill between two leaves the first ones
# recorded (a half-state by design), and the retry posts the rest.
half_states=.
crash "listen --drain" subscribers listen --drain --forward-to http://127.0.0.1:9/hook --timeout 1
half_states=

cat "$covered"
echo "crash: $kills kills, $passed passed, $failed failed in $((SECONDS - started)) s"
[ "$failed" -eq 0 ]
