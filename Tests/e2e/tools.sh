#!/usr/bin/env bash
# Where CI is set, installs the Debian packages the test steps need and the machine lacks
# (zsh and fish for the completion tests, tmux for the prompt tests, openssl for the
# signature cross-checks, strace for the crash tests' fault injection, chromium and
# chromium-driver for the browser story of `iapsim ui`, faketime for libfaketime, which
# `clock exec` preloads),
# so CI runs every check. Elsewhere it only says what is missing:
# those checks skip with a message, and nothing is installed on a user's machine.
set -uo pipefail
. "$(dirname "$0")/lib.sh"
missing=()
# command:package — chromedriver comes in Debian's chromium-driver.
for pair in zsh:zsh fish:fish tmux:tmux openssl:openssl strace:strace faketime:faketime chromium:chromium chromedriver:chromium-driver; do
  command -v "${pair%%:*}" >/dev/null || missing+=("${pair#*:}")
done
[ ${#missing[@]} -eq 0 ] && exit 0
if ! in_ci; then
  echo "tools: not installed: ${missing[*]} (their checks skip; CI installs them)"
  exit 0
fi
if [ "$(id -u)" -ne 0 ] || ! command -v apt-get >/dev/null; then
  echo "FAIL: tools: ${missing[*]} missing and apt-get cannot install them here" >&2
  exit 1
fi
echo "tools: installing ${missing[*]} from Debian's packages"
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq >/dev/null && apt-get install -y -qq "${missing[@]}" >/dev/null || {
  echo "FAIL: tools: apt-get could not install ${missing[*]}" >&2
  exit 1
}
