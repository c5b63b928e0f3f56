#!/usr/bin/env bash
# make fuzz: builds libFuzzer targets (swiftc -sanitize=fuzzer,address) for the .storekit
# reader, the identifier plist, the state loader, the argument parser and every message that
# prints catalog text, the DER/PEM/JWS readers of signed data, the HTTP request parser, the
# transaction index, the app receipt's readers with /verifyReceipt, the TLS 1.3 server
# engine fed arbitrary client records, and the recovery of a commit intent a crash left;
# seeds them from the
# fixtures and the shared .storekit corpus beside the repository, and runs each for
# FUZZ_SECONDS (default 600), two at a time. FUZZ_TARGETS
# picks some.
# Crashing inputs land in fuzz/crashes/<target>/; keep each as a regression fixture.
set -u
root=$(cd "$(dirname "$0")/.." && pwd)
seconds=${FUZZ_SECONDS:-600}
out=$root/.build/fuzz
mkdir -p "$out"
library=$(find "$root/Sources/IAPSimKit" -name '*.swift')
# The whole command line but main.swift, for the messages target.
cli=$(find "$root/Sources/iapsim" -name '*.swift' ! -name main.swift)
# The targets beneath IAPSimKit are modules of their own here too, as in Package.swift: each
# is compiled once, instrumented, into a static library every fuzz target links.
modules=$out/modules
lowModules="IAPSimCrypto IAPSimHTTP IAPSimJSON IAPSimTLS"  # in dependency order
module() { # module NAME: Sources/NAME as $modules/NAME.swiftmodule and libNAME.a
  local name=$1
  mkdir -p "$modules"
  rm -f "$modules/lib$name.a"
  swiftc -sanitize=fuzzer,address -parse-as-library -O -module-name "$name" -I "$modules" -emit-module \
    -emit-module-path "$modules/$name.swiftmodule" -emit-library -static -o "$modules/lib$name.a" \
    "$root/Sources/$name"/*.swift
  [ -f "$modules/lib$name.a" ] || { echo "fuzz: building module $name failed" >&2; exit 1; }
}
build() { # build NAME MODULE SOURCES...
  local name=$1 module=$2; shift 2
  rm -f "$out/$name"
  local links=()
  # Static libraries link dependents first (IAPSimTLS before the IAPSimCrypto it uses).
  for low in $lowModules; do links=(-l"$low" "${links[@]}"); done
  # (ld.gold warns about every ASan helper symbol; those lines are noise)
  swiftc -sanitize=fuzzer,address -parse-as-library -O -module-name "$module" -I "$modules" -L "$modules" \
    "${links[@]}" "$@" -o "$out/$name" 2>&1 | grep -v "Cannot export local symbol" || true
  [ -x "$out/$name" ] || { echo "fuzz: building $name failed" >&2; exit 1; }
}
targets=${FUZZ_TARGETS:-storekit plist state arguments messages signed http index receipt tls intent}
for low in $lowModules; do module "$low"; done
# Only the targets asked for are built: each but http compiles IAPSimKit with the sanitizers.
for target in $targets; do
  case $target in
    storekit) build storekit IAPSimKit $library "$root/fuzz/FuzzFiles.swift" "$root/fuzz/StoreKitTarget.swift" ;;
    plist) build plist IAPSimKit $library "$root/fuzz/FuzzFiles.swift" "$root/fuzz/PlistTarget.swift" ;;
    state) build state IAPSimKit $library "$root/fuzz/FuzzFiles.swift" "$root/fuzz/StateTarget.swift" ;;
    # The parser reads the command registry, so it needs the whole command line; one module
    # holds it and the library (its `import IAPSimKit` lines are ignored with a warning).
    arguments) build arguments IAPSimKit $library $cli "$root/fuzz/ArgumentsTarget.swift" ;;
    messages) build messages IAPSimKit $library $cli "$root/fuzz/FuzzFiles.swift" "$root/fuzz/MessagesTarget.swift" ;;
    signed) build signed IAPSimKit $library "$root/fuzz/SignedDataTarget.swift" ;;
    http) build http FuzzHTTP "$root/fuzz/HTTPRequestTarget.swift" ;;
    tls) build tls FuzzTLS "$root/fuzz/TLSEngineTarget.swift" ;;
    index) build index IAPSimKit $library "$root/fuzz/FuzzFiles.swift" "$root/fuzz/IndexTarget.swift" ;;
    receipt) build receipt IAPSimKit $library "$root/fuzz/FuzzFiles.swift" "$root/fuzz/ReceiptTarget.swift" ;;
    intent) build intent IAPSimKit $library "$root/fuzz/FuzzFiles.swift" "$root/fuzz/IntentTarget.swift" ;;
    *) echo "fuzz: no target $target" >&2; exit 64 ;;
  esac
done

seed() { # seed NAME FILES...
  local dir=$out/corpus-$1; shift
  mkdir -p "$dir"
  for f in "$@"; do [ -f "$f" ] && cp "$f" "$dir/" ; done
}
corpus=$root/../shared/corpus
seed storekit "$root"/Tests/IAPSimKitTests/Fixtures/*.storekit "$root"/catalog/*.storekit "$corpus"/storekit/*.storekit "$corpus"/storekit-extra/*.storekit
seed plist "$root"/Tests/IAPSimKitTests/Fixtures/*.plist "$root"/catalog/*.plist "$corpus"/plist/*.plist
seed state "$root"/fuzz/seeds/state/*
seed arguments "$root"/fuzz/seeds/arguments/*
seed messages "$root"/Tests/IAPSimKitTests/Fixtures/*.storekit "$root"/catalog/*.storekit
seed signed "$root"/fuzz/seeds/signed/*
seed http "$root"/fuzz/seeds/http/*
seed index "$root"/fuzz/seeds/index/*
seed receipt "$root"/fuzz/seeds/receipt/*
seed tls "$root"/fuzz/seeds/tls/*
seed intent "$root"/fuzz/seeds/intent/*

run() {
  local name=$1
  mkdir -p "$root/fuzz/crashes/$name"
  # Leaks inside Foundation itself (a CFError per malformed plist, …) are suppressed by
  # Tests/lsan.supp; any leak with iapsim's own allocation still stops the run.
  LSAN_OPTIONS=suppressions=$root/Tests/lsan.supp \
  "$out/$name" "$out/corpus-$name" -max_total_time="$seconds" -max_len=65536 -timeout=10 \
    -artifact_prefix="$root/fuzz/crashes/$name/" -print_final_stats=1 >"$out/$name.log" 2>&1
  echo "fuzz $name: exit $?, $(grep -m1 -o 'stat::number_of_executed_units: *[0-9]*' "$out/$name.log" | grep -o '[0-9]*$') runs, $(ls "$root/fuzz/crashes/$name" | wc -l) crashes, ${seconds} s"
}
set -- $targets
while [ $# -gt 0 ]; do
  run "$1" & [ $# -gt 1 ] && run "$2" &
  wait
  shift; [ $# -gt 0 ] && shift
done
