#!/usr/bin/env bash
# Tab completion never runs code from a catalog: a .storekit file whose product identifiers
# are shell syntax ($(…), backquotes, ;, quotes, spaces, a newline, globs) is completed in a
# real bash, zsh and fish, in a temporary folder; no file appears there and each identifier
# comes back as a word that reads as itself. A shell that is not installed is skipped, saying
# so, and fails where CI is set (Tests/e2e/lib.sh).
# Usage: Tests/e2e/completion.sh [path/to/iapsim]   (run by `make test`)
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
. "$here/lib.sh"
require_tools python3
bin=${1:-$root/.build/debug/iapsim}
case $bin in /*) ;; *) bin=$PWD/$bin ;; esac
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
unset IAPSIM_LOCALE IAPSIM_LOCK_TIMEOUT IAPSIM_STATE_DIR IAPSIM_CATALOG
passed=0 failed=0 skipped=0
check() { # check NAME EXPECTED ACTUAL
  if [ "$2" = "$3" ]; then passed=$((passed + 1)); else failed=$((failed + 1)); printf 'FAIL: %s: expected [%s], got [%s]\n' "$1" "$2" "$3"; fi
}

# The hostile identifiers, one per line of ids.txt (the newline one is written apart).
mkdir -p "$work/bin" "$work/cwd"
cat >"$work/ids.txt" <<'IDS'
$(touch pwned)
`touch pwned2`
a;touch pwned3
q'uo"te
with space
*
glob[a-z]?
${IFS}$HOME
IDS
python3 - "$work" <<'PY'
import json, sys
work = sys.argv[1]
ids = open(f"{work}/ids.txt").read().splitlines()
ids.append("nl$(touch pwned4)\nsecond line")
products = [{"productID": i, "type": "Consumable", "displayPrice": "0.99", "referenceName": "x"} for i in ids]
json.dump({"products": products}, open(f"{work}/hostile.storekit", "w"))
PY
# `iapsim` on the PATH, as the scripts call it.
ln -s "$bin" "$work/bin/iapsim"
export PATH="$work/bin:$PATH"

# complete_bash WORD...: COMPREPLY, one per line, for the command line WORD... (the last is
# the word being completed), from a bash with no startup files, run in the temporary folder.
complete_bash() {
  (cd "$work/cwd" && bash --norc --noprofile -c '
    source <(iapsim completion bash) || exit 99
    COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1))
    _iapsim
    printf "%s\n" "${COMPREPLY[@]}"' completion "$@")
}
# unquoted: each reply put on a command line, as the shell reads it back.
# (In a folder of its own: a reply that is not safely quoted must not pass unnoticed.)
unquoted() { mkdir -p "$work/eval" && (cd "$work/eval" && while IFS= read -r word; do eval "printf '%s\n' $word"; done); }

while IFS= read -r id; do
  prefix=${id:0:2}
  replies=$(complete_bash iapsim buy --storekit "$work/hostile.storekit" "$prefix")
  check "bash: $id completes to itself" "$id" "$(printf '%s\n' "$replies" | unquoted | grep -xF -- "$id")"
  check "bash: $id is quoted for the line" "$(printf '%q' "$id")" "$(printf '%s\n' "$replies" | grep -xF -- "$(printf '%q' "$id")")"
done <"$work/ids.txt"
check "bash: a quoted prefix completes" "$(printf '%q' '$(touch pwned)')" \
  "$(complete_bash iapsim buy --storekit "$work/hostile.storekit" '\$\(to')"
check "bash: the glob * is one word, not the folder's files" "$(printf '%q' '*')" \
  "$(complete_bash iapsim expire --storekit "$work/hostile.storekit" '*')"
# The newline identifier is printed on one line by `completion products`, its newline shown as
# \u{A} (catalog text never starts an output line of its own): one literal word, never run.
check "bash: the newline identifier stays one literal word" 'nl$(touch pwned4)\u{A}second line' \
  "$(complete_bash iapsim buy --storekit "$work/hostile.storekit" nl | unquoted)"
check "bash: --product completes from the catalog" "with space" \
  "$(complete_bash iapsim transactions --storekit "$work/hostile.storekit" --product wi | unquoted)"
check "bash: no file created" "" "$(ls -A "$work/cwd"; ls -A "$work/eval")"

# Commands, options and values, as before.
check "bash: commands" "receipt redeem-offer-code refund renew request-refund reset resolve restore" "$(complete_bash iapsim re | sort | tr '\n' ' ' | sed 's/ $//')"
check "bash: options" "--json" "$(complete_bash iapsim list --js)"
check "bash: option values" "ask-to-buy" "$(complete_bash iapsim buy x --outcome ask)"
check "bash: setting keys" "grace-period" "$(complete_bash iapsim settings set grace)"
check "bash: time-rate values" "oneRenewalEveryMinute" "$(complete_bash iapsim settings set time-rate oneRenewalEveryMi)"
check "bash: time-rate values, all 18" 18 "$(complete_bash iapsim settings set time-rate '' | wc -l | tr -d ' ')"
check "bash: boolean setting values" "false true" "$(complete_bash iapsim settings set ask-to-buy '' | sort | tr '\n' ' ' | sed 's/ $//')"
check "bash: settings set KEY VALUE then nothing" "" "$(complete_bash iapsim settings set ask-to-buy true '')"
check "bash: clock actions" "set" "$(complete_bash iapsim clock se)"
check "bash: transactions actions" "delete" "$(complete_bash iapsim transactions de)"
check "bash: reset scopes" "--settings" "$(complete_bash iapsim reset --sett)"
check "bash: catalog from the bundled one" "com.example.app.pro.monthly com.example.app.pro.yearly" \
  "$(IAPSIM_CATALOG=$root/catalog complete_bash iapsim buy com.example.app.pro. | sort | tr '\n' ' ' | sed 's/ $//')"

# zsh, through bashcompinit: the same replies, inserted as they are (compadd -Q).
if command -v zsh >/dev/null; then
  zsh_replies=$(cd "$work/cwd" && zsh -f -c '
    autoload -U compinit && compinit -u -D 2>/dev/null
    source <(iapsim completion zsh) || exit 99
    emulate sh -c "COMP_WORDS=(iapsim buy --storekit \"$1\" \"\"); COMP_CWORD=4; _iapsim"
    printf "%s\n" "${COMPREPLY[@]}"' zsh "$work/hostile.storekit" 2>&1)
  check "zsh: script loads and completes" "ok" "$(grep -qxF -- "$(printf '%q' 'with space')" <<<"$zsh_replies" && echo ok || echo "$zsh_replies")"
  check "zsh: every identifier reads back as itself" "$(sort "$work/ids.txt")" \
    "$(printf '%s\n' "$zsh_replies" | grep -v '^nl' | unquoted | grep -vxF 'second line' | sort)"
  check "zsh: header names zsh" "1" "$(iapsim completion zsh | sed -n 2p | grep -c 'zsh completion')"
  check "zsh: no file created" "" "$(ls -A "$work/cwd")"
else
  skip "zsh is not installed"
fi

# fish: the products come from a command substitution, which fish does not expand again.
if command -v fish >/dev/null; then
  export XDG_CONFIG_HOME=$work/fish/config XDG_DATA_HOME=$work/fish/data XDG_CACHE_HOME=$work/fish/cache
  fish_replies=$(cd "$work/cwd" && fish --no-config -c '
    iapsim completion fish | source
    complete -C"iapsim buy --storekit $argv[1] "' "$work/hostile.storekit" 2>&1)
  check "fish: every identifier is offered literally" "$(sort "$work/ids.txt")" \
    "$(printf '%s\n' "$fish_replies" | cut -f1 | grep -vxF 'second line' | grep -v '^nl' | sort)"
  check "fish: settings set time-rate values" "oneRenewalEveryMinute" \
    "$(cd "$work/cwd" && fish --no-config -c 'iapsim completion fish | source; complete -C"iapsim settings set time-rate oneRenewalEveryMi"' | cut -f1)"
  check "fish: --product completes from --storekit" "with space" \
    "$(cd "$work/cwd" && fish --no-config -c 'iapsim completion fish | source; complete -C"iapsim transactions --storekit $argv[1] --product wi"' "$work/hostile.storekit" | cut -f1)"
  check "fish: no file created" "" "$(ls -A "$work/cwd")"
else
  skip "fish is not installed"
fi

echo "completion: $passed passed, $failed failed, $skipped skipped"
[ "$failed" -eq 0 ]
