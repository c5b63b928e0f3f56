#!/usr/bin/env bash
# `iapsim clock exec` runs a program whose wall clock follows iapsim's simulated clock live:
# a Python process started under it reads the simulated time, reads it again after a
# `clock advance` made from another process while it runs, stands still while the clock is
# frozen; iapsim exits with the program's status and passes SIGTERM on. Needs libfaketime
# (Debian's faketime package, which Tests/e2e/tools.sh installs in CI) and python3.
# Usage: Tests/e2e/clock_exec.sh [path/to/iapsim]   (run by `make test`)
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
. "$here/lib.sh"
bin=${1:-$root/.build/debug/iapsim}
bin=$(cd "$(dirname "$bin")" && pwd)/$(basename "$bin")
require_tools python3
library=${IAPSIM_LIBFAKETIME:-}
if [ -z "$library" ]; then
  for candidate in /usr/lib/*/faketime/libfaketime.so.1 /usr/lib/faketime/libfaketime.so.1; do
    [ -r "$candidate" ] && library=$candidate && break
  done
fi
[ -n "$library" ] || unavailable "libfaketime is not installed (Debian: apt-get install faketime)"
work=$(mktemp -d)
child=
trap '[ -n "$child" ] && kill "$child" 2>/dev/null; rm -rf "$work"' EXIT
export IAPSIM_STATE_DIR=$work/state IAPSIM_CATALOG=$root/catalog
passed=0 failed=0
ok() { passed=$((passed + 1)); }
fail() { failed=$((failed + 1)); echo "FAIL: $*"; }

# wait_for FILE PATTERN SECONDS: until a line of FILE matches PATTERN (bounded).
wait_for() {
  local deadline=$((SECONDS + $3))
  while [ $SECONDS -lt $deadline ]; do
    grep -q "$2" "$1" 2>/dev/null && return 0
    sleep 0.1
  done
  return 1
}

# 1. Started at the simulated time.
"$bin" clock set 2030-01-01T00:00:00Z >/dev/null
out=$("$bin" clock exec -- python3 -c 'import time; print(int(time.time()))')
now=$(date +%s)
# 2030-01-01T00:00:00Z is 1893456000; a few seconds have passed since.
if [ -n "$out" ] && [ "$out" -ge 1893456000 ] && [ "$out" -lt 1893456060 ]; then ok
else fail "a program under clock exec read $out, not 2030-01-01T00:00:00Z (real: $now)"; fi

# 2. Follows a clock advance made from another process while it runs.
"$bin" clock exec -- python3 -u -c '
import time
for _ in range(300):  # about 30 s; a count, since libfaketime moves the monotonic clock too
    print(int(time.time()), flush=True)
    time.sleep(0.1)
' >"$work/ticks" &
child=$!
if wait_for "$work/ticks" '^18934' 10; then ok; else fail "the running program printed no 2030 time: $(head -3 "$work/ticks")"; fi
"$bin" clock advance P1Y >/dev/null
# 2031-01-01T00:00:00Z is 1924992000.
if wait_for "$work/ticks" '^19249' 10; then ok
else fail "the running program did not follow 'clock advance P1Y': $(tail -3 "$work/ticks")"; fi

# 3. SIGTERM to iapsim reaches the program; iapsim exits with its status (143).
kill -TERM "$child"
wait "$child"; status=$?
child=
if [ "$status" = 143 ]; then ok; else fail "after SIGTERM clock exec exited $status, not 143"; fi

# 4. Stands still while frozen (libfaketime's absolute form), and moves with clock set.
"$bin" clock freeze >/dev/null
frozen=$(cat "$IAPSIM_STATE_DIR/clock.faketime")
read_time() { "$bin" clock exec -- python3 -c 'import time; print(int(time.time()))'; }
a=$(read_time); sleep 1.5; b=$(read_time)
if [ "$a" = "$b" ] && [ "$a" = "$frozen" ]; then ok
else fail "a frozen clock moved in the program: $a then $b (file: $frozen)"; fi
"$bin" clock set 2032-06-01T00:00:00Z >/dev/null
a=$(read_time)
if [ "$a" = 1969660800 ]; then ok; else fail "the program did not stand at 2032-06-01T00:00:00Z: $a"; fi
"$bin" clock run >/dev/null

# 5. The program's exit status is iapsim's; an iapsim the program runs reads the simulated
# clock once, not twice.
"$bin" clock exec -- sh -c 'exit 7'
status=$?
if [ "$status" = 7 ]; then ok; else fail "clock exec exited $status, not the program's 7"; fi
inner=$("$bin" clock exec -- "$bin" --json clock | python3 -c 'import json,sys; print(json.load(sys.stdin)["date"][:4])')
if [ "$inner" = 2032 ]; then ok; else fail "iapsim under clock exec read the year $inner, not 2032"; fi

# 6. Errors: no such program (127), no libfaketime (69, one line naming what to install).
"$bin" clock exec -- no-such-program-here 2>"$work/err"; status=$?
if [ "$status" = 127 ] && grep -q "no-such-program-here: command not found" "$work/err"; then ok
else fail "a missing program: exit $status, $(cat "$work/err")"; fi
IAPSIM_LIBFAKETIME=$work/none "$bin" clock exec -- true 2>"$work/err"; status=$?
if [ "$status" = 69 ] && [ "$(wc -l <"$work/err")" = 1 ]; then ok
else fail "no libfaketime: exit $status, $(cat "$work/err")"; fi

# 7. A libfaketime that does not load (not a library, another architecture's) is refused
# with 69: the loader would skip it with a warning, and the program read the real clock.
printf 'not a library\n' >"$work/fake.so"
IAPSIM_LIBFAKETIME=$work/fake.so "$bin" clock exec -- sh -c 'echo ran' >"$work/out" 2>"$work/err"; status=$?
if [ "$status" = 69 ] && grep -q "cannot be preloaded" "$work/err" && [ ! -s "$work/out" ]; then ok
else fail "an unloadable libfaketime: exit $status, $(cat "$work/out" "$work/err")"; fi
python3 -c 'import sys; h=bytearray(open(sys.argv[1],"rb").read(64)); h[18:20]=(183 if h[18]==62 else 62).to_bytes(2,"little"); open(sys.argv[2],"wb").write(h)' "$library" "$work/other-arch.so"
IAPSIM_LIBFAKETIME=$work/other-arch.so "$bin" clock exec -- true 2>"$work/err"; status=$?
if [ "$status" = 69 ] && grep -q "another architecture" "$work/err"; then ok
else fail "another architecture's libfaketime: exit $status, $(cat "$work/err")"; fi

# 8. Signals reach the program's whole process group: what it started goes with it.
"$bin" clock exec -- sh -c 'sleep 300 & echo $! >"$0"; wait' "$work/grandchild" &
child=$!
for _ in $(seq 50); do [ -s "$work/grandchild" ] && break; sleep 0.1; done
kill -TERM "$child"; wait "$child"; child=
grandchild=$(cat "$work/grandchild" 2>/dev/null)
gone=no
for _ in $(seq 30); do
  if [ -n "$grandchild" ] && ! kill -0 "$grandchild" 2>/dev/null; then gone=yes; break; fi
  sleep 0.1
done
if [ "$gone" = yes ]; then ok; else fail "SIGTERM left the program's own child $grandchild running"; kill "$grandchild" 2>/dev/null; fi

# 9. A backend on iapsim's clock and network, its code unchanged: --serve-port-file routes its
# HTTPS to a running serve, which answers Apple's Sandbox host over TLS; its tokens, minted at
# the simulated time, stay good across a year of simulated time.
"$bin" buy com.example.app.pro.monthly --yes >/dev/null
"$bin" serve --port-file "$work/serve.port" >/dev/null 2>"$work/serve.log" &
server=$!
for _ in $(seq 100); do [ -s "$work/serve.port" ] && break; sleep 0.1; done
cat >"$work/backend.py" <<'PY'
import base64, json, time, urllib.request
def b64(data): return base64.urlsafe_b64encode(data).rstrip(b"=").decode()
now = int(time.time())  # the simulated time, under clock exec
claims = {"iss": "i", "bid": "com.example.app", "aud": "appstoreconnect-v1", "iat": now, "exp": now + 3000}
token = ".".join([b64(b'{"alg":"ES256","kid":"K","typ":"JWT"}'), b64(json.dumps(claims).encode()), b64(b"sig")])
request = urllib.request.Request("https://api.storekit-sandbox.itunes.apple.com/inApps/v1/transactions/1",
                                 headers={"Authorization": "Bearer " + token})
with urllib.request.urlopen(request, timeout=30) as answer:
    print(answer.status, time.strftime("%Y", time.gmtime(now)), "signedTransactionInfo" in json.load(answer))
PY
for year in 2032 2033; do
  out=$("$bin" clock exec --serve-port-file "$work/serve.port" -- python3 "$work/backend.py" 2>"$work/err")
  if [ "$out" = "200 $year True" ]; then ok
  else fail "a backend under clock exec in $year got '$out': $(tail -2 "$work/err") $(tail -2 "$work/serve.log")"; fi
  "$bin" clock advance P1Y >/dev/null
done
kill "$server"; wait "$server"

echo "clock exec: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
