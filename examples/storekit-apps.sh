#!/usr/bin/env bash
# Builds and tests the apps' purchase code in examples/StoreKitApps against iapsim's StoreKit
# and StoreKitTest modules (RageShop: StoreKit 1 in Swift 5 mode, XCTest; ProShop: StoreKit 2
# in Swift 6 mode, Swift Testing and XCTest), then runs QueueWatcher, a program driven by the
# main run loop, on a state of its own and checks with the built iapsim ($1) that its purchase
# is in the store. ProShop's cross-process test drives the built iapsim too.
# Usage: examples/storekit-apps.sh [path/to/iapsim]
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
export IAPSIM=${1:-}
scratch="$here/../.build/examples"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
swift build --build-tests --package-path "$here/StoreKitApps" --scratch-path "$scratch"
# The test process's SKTestSession makes its state folder in the temporary directory and
# must remove it when the process exits.
mkdir -p "$work/tmp"
TMPDIR=$work/tmp swift test --skip-build --package-path "$here/StoreKitApps" --scratch-path "$scratch"
if ls "$work/tmp" | grep -q '^iapsim-SKTestSession-'; then
  echo "FAIL: the test process left its SKTestSession state folder in the temporary directory:" >&2
  (cd "$work/tmp" && find iapsim-SKTestSession-* | head -20) >&2
  exit 1
fi

[ -n "$IAPSIM" ] || { echo "storekit-apps: no iapsim given; QueueWatcher's check skipped"; exit 0; }
export IAPSIM_STATE_DIR=$work/state IAPSIM_CATALOG=$here/../catalog
"$scratch/debug/QueueWatcher" com.example.app.book
"$IAPSIM" transactions --json | grep -q '"productID" *: *"com.example.app.book"' || {
  echo "FAIL: QueueWatcher's purchase is not in iapsim transactions" >&2
  exit 1
}
echo "storekit-apps: QueueWatcher bought on the main thread, and iapsim sees the purchase"
