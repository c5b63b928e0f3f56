#!/usr/bin/env bash
# The purchase confirmation as a person meets it: iapsim in a real terminal (tmux), the
# prompt read off the screen, answered with keystrokes. Without tmux it is skipped, saying so,
# and fails where CI is set (Tests/e2e/lib.sh).
# Usage: Tests/e2e/prompt.sh [path/to/iapsim]
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
bin=${1:-$root/.build/debug/iapsim}
. "$here/lib.sh"
require_tools tmux
work=$(mktemp -d)
session=iapsim-prompt-$$
trap 'tmux kill-session -t "$session" 2>/dev/null; rm -rf "$work"' EXIT
passed=0 failed=0
check() { if [ "$2" = "$3" ]; then passed=$((passed + 1)); else failed=$((failed + 1)); echo "FAIL: $1: expected [$2], got [$3]"; fi; }
screen() { tmux capture-pane -p -t "$session"; }
wait_for() { # wait_for TEXT: up to 10 s for TEXT on the screen
  for _ in $(seq 100); do screen | grep -qF -- "$1" && return 0; sleep 0.1; done
  return 1
}

tmux new-session -d -s "$session" -x 120 -y 20 "env -i PATH=/usr/bin:/bin TERM=xterm HOME=$work IAPSIM_STATE_DIR=$work/state IAPSIM_CATALOG=$root/catalog bash --norc --noprofile"
tmux send-keys -t "$session" "PS1='$ '" Enter

# Yes: bought.
tmux send-keys -t "$session" "$bin buy Demo.TechoverInAppPurchase.co.Apple.Book; echo exit=\$?" Enter
check "prompt shown" 0 "$(wait_for 'Buy “Apple Book” for $0.99? [y/N]'; echo $?)"
tmux send-keys -t "$session" "y" Enter
check "purchased after yes" 0 "$(wait_for 'exit=0'; echo $?)"
check "purchase message" 1 "$(screen | grep -c 'Purchased “Apple Book” for \$0.99. Transaction 1.')"
check "colour on a terminal" 1 "$(tmux capture-pane -p -e -t "$session" | grep -c $'\e\\[32m✔')"

# No: cancelled, exit 2, nothing charged.
tmux send-keys -t "$session" "clear" Enter
tmux send-keys -t "$session" "$bin buy com.example.app.book; echo exit=\$?" Enter
check "second prompt shown" 0 "$(wait_for 'Buy “The Swift Book” for $2.99? [y/N]'; echo $?)"
tmux send-keys -t "$session" "n" Enter
check "cancelled after no" 0 "$(wait_for 'exit=2'; echo $?)"
check "cancel message" 1 "$(screen | grep -c 'Cancelled: nothing was charged.')"

# NO_COLOR: no escape codes even on a terminal.
tmux send-keys -t "$session" "clear" Enter
tmux send-keys -t "$session" "NO_COLOR=1 $bin list; echo exit=\$?" Enter
check "NO_COLOR list succeeded" 0 "$(wait_for 'exit=0'; echo $?)"
check "NO_COLOR list printed products" 1 "$(screen | grep -c 'com.example.app.book')"
check "NO_COLOR on a terminal" 0 "$(tmux capture-pane -p -e -t "$session" | grep -c $'\e\\[1m')"

echo "prompt: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
