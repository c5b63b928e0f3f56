#!/usr/bin/env bash
# A CI job for an app: lint its catalog, then walk the purchase flow the app relies on.
# Run from the app's folder, or with IAPSIM_CATALOG pointing at a folder that holds
# Products.storekit and IAPProductIDs.plist. Fails the build on the first surprise.
set -euo pipefail
iapsim=${IAPSIM:-iapsim}
# A state of its own, removed at the end, whatever IAPSIM_STATE_DIR says: never the
# developer's own state, and nothing left behind.
IAPSIM_STATE_DIR=$(mktemp -d)
export IAPSIM_STATE_DIR
trap 'rm -rf "$IAPSIM_STATE_DIR"' EXIT

# 1. The catalog: every finding is one "file: product: problem" line; 65 when there are any.
#    (The bundled demo catalog lists one identifier the store lacks, on purpose.)
if ! "$iapsim" check; then
  echo "catalog has problems (see above)" >&2
  [ "${STRICT:-0}" = 1 ] && exit 1
fi

# 2. A purchase that succeeds, and the entitlement it grants.
"$iapsim" --quiet buy com.example.app.book --yes
"$iapsim" status --json | grep -q '"productID": "com.example.app.book"'

# 3. A purchase that fails the way the app must handle: StoreKitError.networkError, exit 1.
set +e
"$iapsim" buy com.example.app.coins100 --outcome fail=networkError --json >"$IAPSIM_STATE_DIR/failed.json"
code=$?
set -e
[ "$code" -eq 1 ]
grep -q '"domain": "StoreKitError"' "$IAPSIM_STATE_DIR/failed.json"

echo "ci: catalog checked, purchase and failure paths behave"
