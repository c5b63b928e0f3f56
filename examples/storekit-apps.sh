#!/usr/bin/env bash
# Builds and tests the two example apps' purchase code (examples/RageShop: StoreKit 1, Swift 5;
# examples/ProShop: StoreKit 2, Swift 6) against iapsim's StoreKit and StoreKitTest modules.
# Both share one scratch folder, so iapsim's own targets are compiled once for the two.
# ProShop's cross-process test drives the built iapsim given as $1.
# Usage: examples/storekit-apps.sh [path/to/iapsim]
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
scratch="$here/../.build/examples"
export IAPSIM=${1:-}
for app in RageShop ProShop; do
  echo "== $app"
  swift build --build-tests --package-path "$here/$app" --scratch-path "$scratch"
  swift test --skip-build --package-path "$here/$app" --scratch-path "$scratch"
done
