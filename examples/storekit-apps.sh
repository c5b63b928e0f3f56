#!/usr/bin/env bash
# Builds and tests two apps' purchase code (examples/StoreKitApps: RageShop, StoreKit 1 in
# Swift 5 mode; ProShop, StoreKit 2 in Swift 6 mode) against iapsim's StoreKit and
# StoreKitTest modules. ProShop's cross-process test drives the built iapsim given as $1.
# Usage: examples/storekit-apps.sh [path/to/iapsim]
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
export IAPSIM=${1:-}
swift build --build-tests --package-path "$here/StoreKitApps" --scratch-path "$here/../.build/examples"
swift test --skip-build --package-path "$here/StoreKitApps" --scratch-path "$here/../.build/examples"
