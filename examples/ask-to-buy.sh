#!/usr/bin/env bash
# Ask to Buy: a child's purchase waits (exit 3) until a parent approves or declines it.
set -euo pipefail
iapsim=${IAPSIM:-iapsim}
# A state of its own, removed at the end, whatever IAPSIM_STATE_DIR says: never the
# developer's own state, and nothing left behind.
IAPSIM_STATE_DIR=$(mktemp -d)
export IAPSIM_STATE_DIR
trap 'rm -rf "$IAPSIM_STATE_DIR"' EXIT

"$iapsim" settings set ask-to-buy true >/dev/null

status=0
"$iapsim" buy com.razeware.inapprage.nightlyrage --json >"$IAPSIM_STATE_DIR/ask.json" || status=$?
[ "$status" -eq 3 ]                                                    # pending
id=$(grep -o '"id": [0-9]*' "$IAPSIM_STATE_DIR/ask.json" | head -n 1 | sed 's/.*: //')

"$iapsim" transactions --state pending                                 # the parent sees it waiting
"$iapsim" approve "$id"                                                # the parent says yes
"$iapsim" status --json | grep -q '"productID": "com.razeware.inapprage.nightlyrage"'

status=0
"$iapsim" buy com.example.app.gems500 >/dev/null || status=$?
[ "$status" -eq 3 ]
"$iapsim" decline "$((id + 1))"                                        # and no to the next one
! "$iapsim" status --json | grep -q '"com.example.app.gems500"'

"$iapsim" settings reset ask-to-buy >/dev/null
echo "ask-to-buy: approved one, declined one"
