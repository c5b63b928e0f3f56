#!/usr/bin/env bash
# Every mutating command killed with SIGKILL at each of its write-side system calls in turn
# (strace's fault injection), and the state checked after each kill: the change happened
# whole (with its notification) or not at all, and a retry then yields exactly one effect.
#
# How: each command runs once unkilled under `strace -f` on a copy of its starting state,
# which lists its write-side calls in order — openat that may create or write a file (the
# lock, temp files, the journals), write and pwrite64, fsync and fdatasync, ftruncate, rename
# and renameat2 (an unsynced file replaced by exchanging two names), unlink. Then, for a call
# of that list, the command runs again on a fresh copy under
# `strace -e inject=CALL:signal=KILL:when=N`, N being that call's ordinal among the calls of
# its kind, and the next command (`status --json`) and the files it leaves must be exactly
# the state before the command or exactly the state the unkilled run left (at the commit
# points `transactions --json` and `notifications --json` too); when they are the one before,
# the command is run again and must then leave exactly the unkilled run's state. Openat calls
# that only read, and writes to the terminal past the first, are not write-side and are passed
# over (the first write to stdout is killed: a change made but not reported).
# Two kinds are judged their own way: the certificate set (`certs rotate`, `certs export`,
# `receipt --out`), whose keys are new each run, by a judge of each run's folder (crash_judged);
# and the App Store Server API's writes, a request to `serve` with strace attached to it
# (crash_serve).
# CRASH_ALL=1 kills at every write-side call; by default every rename and renameat2 (the commit
# points) and, of each other kind, CRASH_PER_KIND calls (default 1) drawn with a printed seed
# (IAPSIM_TEST_SEED replays it), so the whole script stays within minutes.
# Usage: Tests/e2e/crash.sh [path/to/iapsim]   CRASH_ONLY=REGEX runs the commands it matches.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
. "$here/lib.sh"
case "$(uname -s)" in Linux) ;; *) unavailable "strace fault injection needs Linux" ;; esac
require_tools strace openssl curl
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
      if (!match($0, /^[0-9]+ +(openat|write|pwrite64|fsync|fdatasync|ftruncate|rename|renameat2|unlink)\(/)) next
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
        if (c <= most || k == "rename" || k == "renameat2") { for (j = 1; j <= c; j++) print k, all[j]; continue }
        delete chosen
        for (m = 0; m < most; ) { j = 1 + int(rand() * c); if (!(j in chosen)) { chosen[j] = 1; m++ } }
        for (j = 1; j <= c; j++) if (j in chosen) print k, all[j]
      }
    }' "$1"
}

# killed_run START CALL N SECONDS ARGS...: the command ARGS on a fresh copy of START (at
# $work/run), killed at its Nth CALL by strace; prints its exit status (137 when killed).
killed_run() {
  local start=$1 call=$2 n=$3 seconds=$4
  shift 4
  rm -rf "$work/run" && cp -R "$start" "$work/run"
  IAPSIM_STATE_DIR=$work/run timeout "$seconds" strace -f -qq -o /dev/null -e trace="$call" \
    -e inject="$call:signal=KILL:when=$n" "$bin" "$@" </dev/null >/dev/null 2>&1
  echo $?
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
    -e trace=openat,write,pwrite64,fsync,fdatasync,ftruncate,rename,renameat2,unlink "$bin" "$@" </dev/null >/dev/null 2>&1
  local expected=$?
  after=$(state "$work/run")
  after_views=$(views "$work/run")
  if [ "$before" = "$after" ]; then fail "$name: the unkilled run changed nothing"; return; fi
  write_side "$work/trace" >"$work/calls"
  pick "$work/calls" >"$work/picked"
  local kind n status seen kinds_done=""
  while read -r kind n; do
    # In a command substitution, so the shell does not report each kill.
    status=$(killed_run "$start" "$kind" "$n" 60 "$@")
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
    elif [ "$seen" = "$before" ] || { [ -n "$half_states" ] && [ "$half_states" != views ] && grep -q "$half_states" <<<"$seen"; }; then
      # The state before, or a half-state the command documents (a customer listed as
      # half-added or half-removed): the retry must leave exactly what one run leaves. (Not
      # `echo | grep -q`: grep ends at the first match, and under pipefail the echo it cut off
      # fails the test, now and then.)
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
    if { [ "$kind" = rename ] || [ "$kind" = renameat2 ]; } && [ "$(views "$work/run")" != "$after_views" ]; then
      fail "$name: killed at $kind #$n: transactions or notifications --json differ from one run's"
    fi
    case " $kinds_done " in *" $kind "*) ;; *) kinds_done="$kinds_done $kind" ;; esac
  done <"$work/picked"
  echo "$name: $(wc -l <"$work/picked" | tr -d ' ') of $(wc -l <"$work/calls" | tr -d ' ') write-side calls killed (${kinds_done# })" >>"$covered"
}

# The certificate set (`iapsim help certs`): the names in a certs folder are links through
# `current` to one set folder, switched by one rename, and a rotate records the set it replaces
# in replaced/. Each run makes fresh random keys, so no two runs leave the same bytes and `state`
# cannot judge them: a judge says of a run's folder whether it holds what the command started
# from (`old`), what a whole run of it makes (`new`), or what is wrong.
set_files="root.pem root.key intermediate.pem intermediate.key leaf.pem leaf.key xcode.pem xcode.key"
receipt_files="receipt-root.pem receipt-root.key receipt-intermediate.pem receipt-intermediate.key receipt-leaf.pem receipt-leaf.key"
# What `certs export` writes, in its order.
export_files="root.pem root.der intermediate.pem leaf.pem xcode.pem receipt-root.pem receipt-root.der receipt-intermediate.pem receipt-leaf.pem tls-root.pem"

# certs_problem RUN: what is wrong with the set in RUN/certs, or nothing. It loads (`certs` reads
# every file and checks each key against its certificate, and the chain; asked only once
# leaf.key is there, since on a folder without a set it would make one), and openssl verifies
# its chain, and the RSA receipt chain once the set shows one (receipt-leaf.key, linked last).
certs_problem() {
  local certs=$1/certs
  if [ ! -e "$certs/leaf.key" ]; then
    echo "no set: leaf.key is missing"
  elif ! iap "$1" certs --certs "$certs" >/dev/null 2>"$work/judge.err"; then
    echo "the set does not load: $(head -c 200 "$work/judge.err")"
  elif ! openssl verify -CAfile "$certs/root.pem" -untrusted "$certs/intermediate.pem" "$certs/leaf.pem" \
    >"$work/judge.err" 2>&1; then
    echo "leaf.pem does not verify to root.pem: $(head -c 200 "$work/judge.err")"
  elif [ -e "$certs/receipt-leaf.key" ] && ! openssl verify -CAfile "$certs/receipt-root.pem" \
    -untrusted "$certs/receipt-intermediate.pem" "$certs/receipt-leaf.pem" >"$work/judge.err" 2>&1; then
    echo "receipt-leaf.pem does not verify to receipt-root.pem: $(head -c 200 "$work/judge.err")"
  fi
}

# certs_junk RUN: what a kill left in RUN/certs that nothing removes later: a temp file beside
# the links (a TLS chain file's, `.tls-root.pem.XXXXXX`) or in replaced/ (a record's). Not
# junk: set folders `current` does not name (a rotate's that did not finish, or the set it
# replaced: the next rotate, or the first receipt, removes them, as CertificateSetFolder says),
# and a link's temp `.NAME.link` (the one that makes NAME next removes it first).
certs_junk() {
  local certs=$1/certs entry
  for entry in "$certs"/.[!.]* "$certs"/replaced/.[!.]* "$certs"/replaced/*; do
    [ -e "$entry" ] || [ -L "$entry" ] || continue
    case ${entry#"$certs"/} in
      .lock | .*.link | replaced/[0-9a-f]*.pem) ;;
      *) printf ' certs/%s' "${entry#"$certs"/}" ;;
    esac
  done
}

# same_files A B NAMES...: every NAME is in the folders A and B with the same bytes.
same_files() {
  local a=$1 b=$2 file
  shift 2
  for file in "$@"; do cmp -s "$a/$file" "$b/$file" || return 1; done
}

# judge_rotate RUN START (`certs rotate`): old is the starting set, the same folder and bytes;
# new is another set, whose replaced/ records the starting root. The RSA chain comes with it,
# but its links are made after the switch: killed between, the new set shows none yet, and the
# next receipt adds one (certs_problem verifies it once it shows).
judge_rotate() {
  local certs=$1/certs old=$2/certs problem record recorded='' junk
  problem=$(certs_problem "$1")
  if [ -n "$problem" ]; then echo "$problem"; return; fi
  if [ "$(readlink "$certs/current")" = "$(readlink "$old/current")" ]; then
    # shellcheck disable=SC2086
    if same_files "$certs" "$old" $set_files; then echo old; else echo "the starting set folder, changed"; fi
    return
  fi
  if cmp -s "$certs/root.pem" "$old/root.pem"; then echo "another set folder with the starting root"; return; fi
  # A record is a Replaced-At line, then the root's PEM, its key, and the rest.
  for record in "$certs"/replaced/*.pem; do
    [ -e "$record" ] || continue
    sed -n "2,$(($(wc -l <"$old/root.pem") + 1))p" "$record" | cmp -s - "$old/root.pem" && recorded=1
  done
  if [ -z "$recorded" ]; then echo "a new set, but replaced/ does not record the starting root"; return; fi
  junk=$(certs_junk "$1")
  if [ -n "$junk" ]; then echo "a new set, but left behind:$junk"; else echo new; fi
}

# judge_export RUN START (`certs export RUN/export`, from a set that has its RSA chain): the set
# is the starting one; each file in export/ is the set's (the .der ones its .pem in DER,
# tls-root.pem the certs folder's TLS root, made by the first export), written in order, each
# renamed into place: old is none or the first few of them (the retry writes the rest), new is
# all of them and nothing else, there or in the certs folder.
judge_export() {
  local certs=$1/certs out=$1/export problem file missing='' junk='' entry
  problem=$(certs_problem "$1")
  if [ -n "$problem" ]; then echo "$problem"; return; fi
  # shellcheck disable=SC2086
  if ! same_files "$certs" "$2/certs" $set_files $receipt_files; then echo "the set changed"; return; fi
  for file in $export_files; do
    if [ ! -e "$out/$file" ]; then
      missing=${missing:-$file}
      continue
    fi
    if [ -n "$missing" ]; then echo "export/$file is written but $missing, before it, is not"; return; fi
    case $file in
      *.der) openssl x509 -in "$certs/${file%.der}.pem" -outform DER 2>/dev/null | cmp -s - "$out/$file" ;;
      *) cmp -s "$certs/$file" "$out/$file" ;;
    esac || {
      echo "export/$file is not the set's"
      return
    }
  done
  if [ -n "$missing" ]; then echo old; return; fi
  for entry in "$out"/* "$out"/.[!.]*; do
    [ -e "$entry" ] || [ -L "$entry" ] || continue
    case " $export_files " in *" ${entry##*/} "*) ;; *) junk="$junk export/${entry##*/}" ;; esac
  done
  junk="$junk$(certs_junk "$1")"
  if [ -n "$junk" ]; then echo "all written, but left behind:$junk"; else echo new; fi
}

# judge_receipt RUN START (`receipt --out RUN/receipt.der`, from a set without its RSA chain):
# the set is the starting one, or the starting one grown by the RSA chain (its P-256 files the
# same bytes); old is no receipt.der yet, new is one `receipt decode` accepts (iapsim's receipt
# root vouches for it), and nothing left beside it or in the certs folder.
judge_receipt() {
  local certs=$1/certs problem junk='' entry
  problem=$(certs_problem "$1")
  if [ -n "$problem" ]; then echo "$problem"; return; fi
  # shellcheck disable=SC2086
  if ! same_files "$certs" "$2/certs" $set_files; then echo "the set's P-256 files changed"; return; fi
  if [ ! -e "$1/receipt.der" ]; then echo old; return; fi
  if ! iap "$1" receipt decode "$1/receipt.der" --certs "$certs" >/dev/null 2>"$work/judge.err"; then
    echo "receipt.der is not accepted: $(head -c 200 "$work/judge.err")"
    return
  fi
  for entry in "$1"/.receipt.der*; do
    [ -e "$entry" ] && junk="$junk ${entry##*/}"
  done
  junk="$junk$(certs_junk "$1")"
  if [ -n "$junk" ]; then echo "written, but left behind:$junk"; else echo new; fi
}

# crash_judged NAME START JUDGE ARGS...: the command ARGS on a copy of start-START ($work/run:
# ARGS name the copy's folders), killed at each pick, and `JUDGE RUN START` after each kill:
# old or new, and after old a retry must give new. The copy is judged old before and new after
# the unkilled run. Of a set's renames, the commit points are the switch of `current` and the
# record in replaced/: the files renamed into the new set folder before the switch, and the
# links through `current` made after it (each whole; the set shows its RSA chain once the last,
# receipt-leaf.key, is there), are drawn like the other kinds, as `rename-in-set` and
# `rename-link`. Every run makes its RSA keys afresh, many seconds of a debug build, twice
# where a retry follows: a kill at each of them would take many minutes (CRASH_ALL does).
crash_judged() {
  local name=$1 start=$work/start-$2 judge=$3
  shift 3
  [ -d "$start" ] || return 0
  if [ -n "${CRASH_ONLY:-}" ] && ! [[ $name =~ $CRASH_ONLY ]]; then return 0; fi
  local verdict
  rm -rf "$work/run" && cp -R "$start" "$work/run"
  verdict=$("$judge" "$work/run" "$start")
  if [ "$verdict" != old ]; then fail "$name: the starting state is judged '$verdict', not old"; return; fi
  IAPSIM_STATE_DIR=$work/run timeout 300 strace -f -qq -o "$work/trace" \
    -e trace=openat,write,pwrite64,fsync,fdatasync,ftruncate,rename,renameat2,unlink "$bin" "$@" </dev/null >/dev/null 2>&1
  local expected=$?
  verdict=$("$judge" "$work/run" "$start")
  if [ "$verdict" != new ]; then
    fail "$name: the unkilled run (exit $expected) is judged '$verdict', not new"
    return
  fi
  write_side "$work/trace" >"$work/calls"
  awk '
    NR == FNR {
      if ($0 !~ /^[0-9]+ +rename\(/) next
      renames++
      if ($0 ~ /, "[^"]*\/set\.[^\/"]*\/[^"]*"\)/) label[renames] = "rename-in-set"
      else if ($0 ~ /\/\.[^\/"]*\.link", / && $0 !~ /\/current"\)/) label[renames] = "rename-link"
      next
    }
    $1 == "rename" && ($2 in label) { print label[$2], $2; next }
    { print }' "$work/trace" "$work/calls" >"$work/calls.labelled"
  pick "$work/calls.labelled" >"$work/picked"
  local kind call n status kinds_done=""
  while read -r kind n; do
    call=${kind%%-*}
    # RSA keys take long.
    status=$(killed_run "$start" "$call" "$n" 300 "$@")
    kills=$((kills + 1))
    if [ "$status" -ne 137 ]; then
      fail "$name: not killed at $kind #$n (exit $status; the unkilled run exited $expected)"
      continue
    fi
    verdict=$("$judge" "$work/run" "$start")
    if [ "$verdict" = new ]; then
      passed=$((passed + 1))
    elif [ "$verdict" = old ]; then
      IAPSIM_STATE_DIR=$work/run "$bin" "$@" </dev/null >/dev/null 2>&1
      verdict=$("$judge" "$work/run" "$start")
      if [ "$verdict" = new ]; then
        passed=$((passed + 1))
      else
        fail "$name: killed at $kind #$n, then retried: $verdict"
      fi
    else
      fail "$name: killed at $kind #$n: $verdict"
    fi
    case " $kinds_done " in *" $kind "*) ;; *) kinds_done="$kinds_done $kind" ;; esac
  done <"$work/picked"
  echo "$name: $(wc -l <"$work/picked" | tr -d ' ') of $(wc -l <"$work/calls" | tr -d ' ') write-side calls killed (${kinds_done# })" >>"$covered"
}

# The App Store Server API's writes, through `serve` on a copy: one request, the server killed
# at each of the write-side calls it makes for it. strace counts `when=N` per thread, and serve
# runs a thread per connection beside its own: so strace attaches (`-p`) once serve listens,
# before the request, and the counts start there, the connection's thread counting from its
# first call; its calls are all the request's, and what serve did to start (the port file,
# the TLS chain) is never among them. A (KIND, N) of the thread(s) that made write-side calls
# is kept only where no other thread made N calls of KIND (that one would be killed first).
serve_pid='' serve_wrapper='' serve_status='' strace_pid='' port=''

# serve_up DIR: serve on DIR in the background, on a port of its choosing (in `port` once its
# port file shows it, 10 s at most); false when it does not listen. In a subshell that waits
# for it and records its exit status, so the shell does not report a kill.
serve_up() {
  rm -f "$work/port" "$work/serve.pid" "$work/serve.status"
  (
    IAPSIM_STATE_DIR=$1 "$bin" serve --quiet --port 0 --port-file "$work/port" </dev/null >/dev/null 2>"$work/serve.err" &
    echo $! >"$work/serve.pid"
    wait $!
    echo $? >"$work/serve.status"
  ) 2>/dev/null &
  serve_wrapper=$!
  local i
  for ((i = 0; i < 200; i++)); do
    [ -s "$work/serve.pid" ] && [ -s "$work/port" ] && break
    [ -e "$work/serve.status" ] && break
    sleep 0.05
  done
  serve_pid=$(cat "$work/serve.pid" 2>/dev/null)
  port=$(cat "$work/port" 2>/dev/null)
  [ -n "$serve_pid" ] && [ -n "$port" ]
}

# serve_wait COUNT: true once serve has ended (its exit status in serve_status), waiting
# COUNT × 0.05 s at most.
serve_wait() {
  local i
  for ((i = 0; i < $1; i++)); do
    if [ -s "$work/serve.status" ]; then
      wait "$serve_wrapper" 2>/dev/null
      serve_status=$(cat "$work/serve.status")
      return 0
    fi
    sleep 0.05
  done
  return 1
}

# serve_down: SIGTERM, and SIGKILL if it has not ended 10 s later (a fail: serve stops on SIGTERM).
serve_down() {
  [ -n "$serve_pid" ] || return 0
  kill -TERM "$serve_pid" 2>/dev/null
  if ! serve_wait 200; then
    fail "serve did not stop on SIGTERM in 10 s"
    kill -KILL "$serve_pid" 2>/dev/null
    serve_wait 200
  fi
  serve_pid=
}

# serve_trace STRACE-OPTIONS...: strace attached to serve and every thread of it, in the
# background; true once it says so on standard error (10 s at most; not with -q).
serve_trace() {
  : >"$work/strace.err"
  timeout 120 strace -f -p "$serve_pid" "$@" </dev/null 2>"$work/strace.err" &
  strace_pid=$!
  local i
  for ((i = 0; i < 200; i++)); do
    grep -q ' attached' "$work/strace.err" && return 0
    kill -0 "$strace_pid" 2>/dev/null || return 1
    sleep 0.05
  done
  return 1
}

# serve_untrace: strace detached (it has ended by itself when serve was killed).
serve_untrace() {
  kill -INT "$strace_pid" 2>/dev/null
  wait "$strace_pid" 2>/dev/null
}

# serve_request TOKEN METHOD PATH BODY: the request, its answer's body in $work/response; prints
# the HTTP status (000 when the connection closed unanswered).
serve_request() {
  local data=()
  [ -n "$4" ] && data=(-H 'Content-Type: application/json' --data "$4")
  curl -s --noproxy '*' --max-time 60 -o "$work/response" -w '%{http_code}' -X "$2" \
    -H "Authorization: Bearer $1" -H "Host: 127.0.0.1:$port" "${data[@]}" "http://127.0.0.1:$port$3" </dev/null
}

# serve_write_side TRACE DROPPED: as write_side, each "KIND N" per thread, where N counts the
# thread's calls of KIND; those another thread made N calls of KIND too (as many as strace
# counted) are written to DROPPED instead.
serve_write_side() {
  awk -v dropped="$2" '
    NR == FNR {
      if (match($0, /^[0-9]+ +[a-z0-9_]+\(/)) {
        split(substr($0, RSTART, RLENGTH - 1), part, / +/)
        total[part[1], part[2]]++; threads[part[1]] = 1
      }
      next
    }
    {
      if (!match($0, /^[0-9]+ +(openat|write|pwrite64|fsync|fdatasync|ftruncate|rename|renameat2|unlink)\(/)) next
      split(substr($0, RSTART, RLENGTH - 1), part, / +/)
      tid = part[1]; kind = part[2]; n = ++count[tid, kind]
      if (kind == "openat" && $0 !~ /O_CREAT|O_WRONLY|O_RDWR/) next
      if (kind == "write" && $0 ~ /^[0-9]+ +write\([12],/) { if (terminal++) next }
      for (other in threads) if (other != tid && total[other, kind] >= n) { print kind, n > dropped; next }
      print kind, n
    }' "$1" "$1"
}

# crash_serve NAME START METHOD PATH BODY [STATUS]: the request (BODY JSON, or none when empty)
# to serve on a copy of start-START, answered STATUS (a pattern, 2?? unless given) unkilled,
# serve killed at each pick; the state after, as `crash` judges it.
crash_serve() {
  local name=$1 start=$work/start-$2 method=$3 path=$4 body=$5 status=${6:-2??}
  [ -d "$start" ] || return 0
  if [ -n "${CRASH_ONLY:-}" ] && ! [[ $name =~ $CRASH_ONLY ]]; then return 0; fi
  local before after after_views token code
  rm -rf "$work/run" && cp -R "$start" "$work/run"
  before=$(state "$work/run")
  token=$(iap "$work/run" token)
  rm -rf "$work/run" && cp -R "$start" "$work/run"
  if ! serve_up "$work/run"; then
    fail "$name: serve did not listen: $(head -c 200 "$work/serve.err")"
    serve_down
    return
  fi
  if ! serve_trace -o "$work/trace" -e trace=openat,write,pwrite64,fsync,fdatasync,ftruncate,rename,renameat2,unlink; then
    fail "$name: strace did not attach to serve: $(head -c 200 "$work/strace.err")"
    serve_untrace
    serve_down
    return
  fi
  code=$(serve_request "$token" "$method" "$path" "$body")
  serve_untrace
  serve_down
  after=$(state "$work/run")
  after_views=$(views "$work/run")
  # shellcheck disable=SC2254
  case $code in
    $status) ;;
    *) fail "$name: the unkilled request was answered $code: $(head -c 200 "$work/response")"; return ;;
  esac
  if [ "$before" = "$after" ]; then fail "$name: the unkilled request changed nothing"; return; fi
  : >"$work/dropped"
  serve_write_side "$work/trace" "$work/dropped" >"$work/calls"
  pick "$work/calls" >"$work/picked"
  local kind n seen kinds_done=""
  while read -r kind n; do
    rm -rf "$work/run" && cp -R "$start" "$work/run"
    kills=$((kills + 1))
    if ! serve_up "$work/run"; then
      fail "$name: serve did not listen to be killed at $kind #$n: $(head -c 200 "$work/serve.err")"
      serve_down
      continue
    fi
    if ! serve_trace -o /dev/null -e trace="$kind" -e inject="$kind:signal=KILL:when=$n"; then
      fail "$name: strace did not attach to serve to kill it at $kind #$n: $(head -c 200 "$work/strace.err")"
      serve_untrace
      serve_down
      continue
    fi
    # The connection closes unanswered when the kill comes (curl's 000).
    serve_request "$token" "$method" "$path" "$body" >/dev/null
    # Every write-side call of the request comes before its answer: serve is dead by now, or
    # the kill point was never reached.
    if ! serve_wait 100; then
      fail "$name: not killed at $kind #$n (serve answered and runs on; the unkilled run reached it)"
      serve_untrace
      serve_down
      continue
    fi
    serve_untrace
    if [ "$serve_status" -ne 137 ]; then
      fail "$name: not killed at $kind #$n (serve exited $serve_status)"
      continue
    fi
    seen=$(state "$work/run")
    if [ -e "$work/run/purchases.json.next" ]; then
      fail "$name: killed at $kind #$n: the next command left the intent file"
    fi
    if [ "$seen" = "$after" ]; then
      passed=$((passed + 1))
    elif [ "$seen" = "$before" ] || { [ -n "$half_states" ] && grep -q "$half_states" <<<"$seen"; }; then
      # The retry: serve again, and the same request.
      if serve_up "$work/run"; then
        serve_request "$token" "$method" "$path" "$body" >/dev/null
      fi
      serve_down
      if [ "$(state "$work/run")" = "$after" ]; then
        passed=$((passed + 1))
      else
        fail "$name: killed at $kind #$n, the retry did not leave the state one request leaves"
        diff <(echo "$after") <(state "$work/run") | head -10
      fi
    else
      fail "$name: killed at $kind #$n: neither the state before nor after"
      diff <(echo "$after") <(echo "$seen") | head -10
    fi
    if { [ "$kind" = rename ] || [ "$kind" = renameat2 ]; } && [ "$(views "$work/run")" != "$after_views" ]; then
      fail "$name: killed at $kind #$n: transactions or notifications --json differ from one request's"
    fi
    case " $kinds_done " in *" $kind "*) ;; *) kinds_done="$kinds_done $kind" ;; esac
  done <"$work/picked"
  local left
  left=$(wc -l <"$work/dropped" | tr -d ' ')
  echo "$name: $(wc -l <"$work/picked" | tr -d ' ') of $(($(wc -l <"$work/calls") + left)) write-side calls killed (${kinds_done# })$([ "$left" -eq 0 ] || echo "; $left left out: another thread made as many calls of its kind")" >>"$covered"
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
# Certificate sets in the copy's own certs folder (--certs overrides IAPSIM_CERTS_DIR): one
# without the RSA receipt chain (as JWS signing makes it), one with it (a rotate makes it).
setup certs "certs --certs $work/start-certs/certs"
setup certs-rsa "certs rotate --certs $work/start-certs-rsa/certs"
setup receipt "buy com.example.app.book --yes" "certs --certs $work/start-receipt/certs"
# A subscription past its free week (one in an offer's free period cannot be extended), for one
# customer and for two.
setup paid "buy com.example.app.pro.monthly --yes" "renew com.example.app.pro.monthly"
setup paid-customers "buy com.example.app.pro.monthly --yes" "renew com.example.app.pro.monthly" \
  "--account bob buy com.example.app.pro.monthly --yes" "--account bob renew com.example.app.pro.monthly"

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
# The certificate set: each judged, as no two runs make the same keys.
crash_judged "certs rotate" certs judge_rotate certs rotate --certs "$work/run/certs"
crash_judged "certs export" certs-rsa judge_export certs export "$work/run/export" --certs "$work/run/certs"
crash_judged "receipt --out" receipt judge_receipt receipt --out "$work/run/receipt.der" --certs "$work/run/certs"
# The App Store Server API's writes. (Send Consumption Information writes nothing: it checks the
# body and answers 202.)
crash_serve "serve extend" paid PUT /inApps/v1/subscriptions/extend/1 \
  '{"extendByDays":7,"extendReasonCode":1,"requestIdentifier":"crash-extend"}'
# A mass extension is a change per customer, then its summary: a kill between leaves the first
# customers extended (a half-state by design, as Apple's runs in the background), and the same
# request again extends the rest, each chain once per request identifier, and sums them all.
half_states=.
crash_serve "serve extend mass" paid-customers POST /inApps/v1/subscriptions/extend/mass \
  '{"extendByDays":7,"extendReasonCode":1,"requestIdentifier":"crash-mass","productId":"com.example.app.pro.monthly"}'
half_states=
crash_serve "serve appAccountToken" book PUT /inApps/v1/transactions/1/appAccountToken \
  '{"appAccountToken":"7e3fb20b-4cdb-47cc-936d-99d65f608138"}'
crash_serve "serve finish" manual POST /inApps/v1/transactions/1/finish ''
crash_serve "serve notifications/test" book POST /inApps/v1/notifications/test ''
# An armed error is consumed by the request it answers.
crash_serve "serve armed error" armed GET /inApps/v1/transactions/1 '' 429

cat "$covered"
echo "crash: $kills kills, $passed passed, $failed failed in $((SECONDS - started)) s"
[ "$failed" -eq 0 ]
