#!/usr/bin/env bash
# Restore on a fresh install: buy, delete the app (its record goes, the account stays),
# restore, and check that exactly the restorable purchases came back.
set -euo pipefail
iapsim=${IAPSIM:-iapsim}
# A state of its own, removed at the end, whatever IAPSIM_STATE_DIR says: never the
# developer's own state, and nothing left behind.
IAPSIM_STATE_DIR=$(mktemp -d)
export IAPSIM_STATE_DIR
trap 'rm -rf "$IAPSIM_STATE_DIR"' EXIT

"$iapsim" -q buy Demo.TechoverInAppPurchase.co.Apple.Book --yes       # non-consumable: restorable
"$iapsim" -q buy com.example.app.pro.monthly --yes                     # subscription: restorable while active
"$iapsim" -q buy com.example.app.coins100 --quantity 5 --yes           # consumable: the app's to keep

"$iapsim" reset --local                                                # the reinstall
[ "$("$iapsim" status --json | grep -c '"purchasedProductIdentifiers": \[\]')" = 1 ]

"$iapsim" restore                                                      # "Restored 2 purchases."
owned=$("$iapsim" status --json | sed -n '/"purchasedProductIdentifiers"/,/]/p' | grep -c '"')
[ "$owned" -eq 3 ]   # the key line, the book and the subscription
"$iapsim" status --json | grep -q '"consumables": {}'                  # consumables are not restored
echo "restore: the book and the subscription came back; the coins did not, as StoreKit does"
