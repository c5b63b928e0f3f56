#!/usr/bin/env bash
# Every example in the help pages runs as written, in order, on a fresh state: each page's
# examples in a new state folder and HOME (also the working folder), with the bundled
# catalog. An example passes when it exits with a status a purchase flow may end with (0–3
# and 6, an interrupted purchase; and 65 for `check`, which reports the bundled catalog's retired identifier); a usage,
# data or internal error (64, 66, 70, …) fails it. `clock exec` without libfaketime (69) is
# skipped, saying so, or fails where CI is set (Tests/e2e/lib.sh).
# Usage: Tests/e2e/examples.sh [path/to/iapsim]   (run by `make test`)
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
bin=${1:-$root/.build/debug/iapsim}
bin=$(cd "$(dirname "$bin")" && pwd)/$(basename "$bin")
. "$here/lib.sh"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/bin"
ln -s "$bin" "$work/bin/iapsim"
passed=0 failed=0 skipped=0

pages=(overview)
while read -r name _; do pages+=("$name"); done < <("$bin" help | sed -n '/^COMMANDS:/,/^$/p' | sed '1d;/^$/d')
[ "${#pages[@]}" -gt 10 ] || { echo "FAIL: found only ${#pages[@]} help pages"; exit 1; }

for page in "${pages[@]}"; do
  if [ "$page" = overview ]; then text=$("$bin" help) || { echo "FAIL: iapsim help"; exit 1; }
  else text=$("$bin" help "$page") || { echo "FAIL: iapsim help $page"; exit 1; }; fi
  home="$work/home-$page"
  mkdir -p "$home"
  ln -s "$root/catalog" "$home/catalog"  # examples name catalog/… as seen from the repository
  while IFS= read -r example; do
    example=${example#  }
    [ -n "$example" ] || continue
    (cd "$home" && HOME=$home PATH="$work/bin:$PATH" IAPSIM_STATE_DIR="$home/state" IAPSIM_CATALOG="$root/catalog" \
      TMPDIR="$home" bash -c "$example" </dev/null >"$work/out" 2>"$work/err")
    status=$?
    allowed=" 0 1 2 3 6 "
    [ "$page" = check ] && allowed+="65 "
    if [[ $allowed == *" $status "* ]]; then
      passed=$((passed + 1))
    elif [ "$status" = 69 ]; then
      skip "help $page: '$example': $(head -c 200 "$work/err")"
    else
      failed=$((failed + 1))
      echo "FAIL: help $page: '$example' exited $status: $(head -c 300 "$work/err")"
    fi
  done < <(printf '%s\n' "$text" | sed -n '/^EXAMPLES:/,$p' | sed '1d')
done
# The docs' sh blocks, each as one script on a fresh state, in a fresh folder;
# background jobs a block starts (a server) are ended with it, and the block's own status kept
# (before, `set -e` stopped the trap at a `kill` with no jobs: every block ended 2, a pass);
# 65 passes for a block that runs `iapsim check`, as for check's help page. README's set-up
# block is run by ReadmeTests, not here (it builds).
for doc in "$root"/docs/*.md; do
  index=0
  while IFS= read -r -d $'\x1e' block; do
    index=$((index + 1))
    home="$work/home-$(basename "$doc" .md)-$index"
    mkdir -p "$home"
    ln -s "$root/catalog" "$home/catalog"  # docs name catalog/… and examples/… as seen from the repository
    ln -s "$root/examples" "$home/examples"
    # A block that makes a folder of its own (mktemp -d) says it leaves nothing behind and
    # runs again from the start: it runs twice, and its home must be as it found it.
    runs=1
    [[ $block == *"mktemp -d"* ]] && runs=2
    found=$(find "$home" | sort)
    for _ in $(seq "$runs"); do
      (cd "$home" && HOME=$home PATH="$work/bin:$PATH" IAPSIM_STATE_DIR="$home/state" IAPSIM_CATALOG="$root/catalog" \
        TMPDIR="$home" bash -c "trap 'status=\$?; kill \$(jobs -p) 2>/dev/null || true; wait; exit \$status' EXIT; set -e
$block" </dev/null >"$work/out" 2>"$work/err")
      status=$?
      [ "$status" -eq 0 ] || break
    done
    if [ "$runs" = 2 ] && [ "$status" -eq 0 ] && [ "$(find "$home" | sort)" != "$found" ]; then
      failed=$((failed + 1))
      echo "FAIL: $(basename "$doc") sh block $index left files behind: $(diff <(echo "$found") <(find "$home" | sort) | head -5)"
      continue
    fi
    if [ "$status" -le 3 ] || [ "$status" -eq 6 ] || { [ "$status" -eq 65 ] && [[ $block == *"iapsim check"* ]]; }; then
      passed=$((passed + 1))
    elif [ "$status" = 69 ]; then
      skip "$(basename "$doc") sh block $index: $(head -c 200 "$work/err")"
    else
      failed=$((failed + 1))
      echo "FAIL: $(basename "$doc") sh block $index exited $status: $(head -c 300 "$work/err")"
    fi
  done < <(awk '/^```sh$/ {inside=1; next} /^```$/ && inside {inside=0; printf "\x1e"; next} inside {print}' "$doc")
done
echo "examples: $passed passed, $failed failed, $skipped skipped"
[ "$failed" -eq 0 ]
