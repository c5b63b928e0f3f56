#!/usr/bin/env bash
# The README, run top to bottom in a fresh shell as a newcomer would: every `$ ` line of its
# console blocks, in order, in a temporary folder with a temporary HOME and state, the
# repository's catalog and the built iapsim first on PATH. Each command must succeed; at the
# end no notification is undelivered, and nothing was written outside the temporary folder.
# Usage: Tests/e2e/readme.sh [path/to/iapsim]   (run by `make test`)
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
. "$here/lib.sh"
bin=${1:-$root/.build/debug/iapsim}
bin=$(cd "$(dirname "$bin")" && pwd)/$(basename "$bin")
require_tools python3 curl
work=$(mktemp -d)
trap 'kill $(jobs -p) 2>/dev/null; rm -rf "$work"' EXIT
mkdir -p "$work/bin" "$work/home" "$work/run/examples"
ln -s "$bin" "$work/bin/iapsim"
cp "$root/examples/webhook.py" "$work/run/examples/"
cp -R "$root/catalog" "$work/run/catalog"
before=$(find "$root" -newer "$work" -not -path "$root/.build/*" -not -path "$root/.git/*" 2>/dev/null | wc -l)
passed=0 failed=0
# The console blocks' commands, in order; a line's comment is kept (bash ignores it).
awk '/^```console$/ {inside=1; next} /^```$/ {inside=0} inside && /^\$ / {print substr($0, 3)}' "$root/README.md" \
  >"$work/commands"
script="$work/readme-script.sh"
{
  echo 'set -u'
  # The servers the README starts in the background are this script's jobs: ended with it, not
  # left running once the test is over (the trap above only sees this file's own jobs).
  echo "trap 'kill \$(jobs -p) 2>/dev/null; wait' EXIT"
  echo "export PATH='$work/bin':\"\$PATH\" HOME='$work/home' XDG_CONFIG_HOME='$work/home/.config'"
  echo 'unset IAPSIM_STATE_DIR IAPSIM_CATALOG IAPSIM_ACCOUNT IAPSIM_CERTS_DIR'
  echo "cd '$work/run'"
  n=0
  while IFS= read -r line; do
    n=$((n + 1))
    command=${line%%#*}
    command=${command%"${command##*[![:space:]]}"}
    if [ "${command: -1}" = "&" ]; then
      # A server in the background: its output aside, and the next line waits for its port file.
      echo "${command%&} >>'$work/background' 2>&1 &"
      file=$(sed -n 's/.*--port-file \([^ ]*\).*/\1/p' <<<"$command")
      [ -n "$file" ] && echo "for _ in \$(seq 200); do [ -s '$file' ] && break; sleep 0.05; done"
    else
      printf '%s\n' "$command </dev/null >>'$work/out' 2>&1 || echo \"step $n failed (\$?)\" >>'$work/failures'"
      echo "echo '$n: ${command//\'/}' >>'$work/steps'"
    fi
  done <"$work/commands"
  echo 'sleep 0.5'
  echo "iapsim notifications --only-failures --json >'$work/undelivered'"
} >"$script"
bash "$script"
if [ -s "$work/failures" ]; then
  failed=$((failed + 1)); echo "FAIL: README:"; cat "$work/failures"; cat "$work/steps"; tail -20 "$work/out"
else
  passed=$((passed + 1))
fi
if python3 -c 'import json,sys; sys.exit(0 if json.load(open(sys.argv[1]))["notifications"] == [] else 1)' "$work/undelivered"; then
  passed=$((passed + 1))
else
  failed=$((failed + 1)); echo "FAIL: the README lost notifications: $(cat "$work/undelivered")"
fi
# Every server the README started has stopped: none still answers on its port.
left=""
for file in "$work"/run/*.port; do
  [ -s "$file" ] && curl -s -o /dev/null --max-time 2 "http://127.0.0.1:$(cat "$file")/" && left="$left $(basename "$file")"
done
if [ -z "$left" ]; then passed=$((passed + 1))
else failed=$((failed + 1)); echo "FAIL: the README's servers are still running after it:$left"; fi
if [ -d "$work/home/.config/iapsim" ]; then passed=$((passed + 1))
else failed=$((failed + 1)); echo "FAIL: the README's state is not in the fresh HOME"; fi
after=$(find "$root" -newer "$work" -not -path "$root/.build/*" -not -path "$root/.git/*" 2>/dev/null | wc -l)
if [ "$before" = "$after" ]; then passed=$((passed + 1))
else failed=$((failed + 1)); echo "FAIL: the README wrote into the repository"; fi
echo "readme: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
