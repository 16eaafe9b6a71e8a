#!/usr/bin/env bash
# The system packages the tests need beyond npm, installed with Debian's apt-get when missing (README's second
# command and .ci/run both call it; a second call installs nothing):
# - chromium: the HTML report's and the models docs page's tests drive Debian's headless Chromium
#   (playwright-core downloads no browser); VWH_CHROMIUM / CHROMIUM_PATH name another one instead.
# - postgresql: the cluster's tests start their own throwaway server with Debian's initdb and postgres binaries.
# Needs root or passwordless sudo when something is missing; says what to install by hand otherwise.
set -euo pipefail

missing=()
if ! command -v chromium >/dev/null 2>&1 && [ ! -x "${VWH_CHROMIUM:-/usr/bin/chromium}" ]; then
  missing+=(chromium)
fi
if ! compgen -G '/usr/lib/postgresql/*/bin/initdb' >/dev/null && ! command -v initdb >/dev/null 2>&1; then
  missing+=(postgresql)
fi

if [ "${#missing[@]}" -eq 0 ]; then
  exit 0
fi

if [ "$(id -u)" -eq 0 ]; then
  SUDO=()
elif command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then
  SUDO=(sudo -n)
else
  echo "The tests need: ${missing[*]}. Install them as root: apt-get install -y --no-install-recommends ${missing[*]}" >&2
  exit 1
fi

if ! command -v apt-get >/dev/null 2>&1; then
  echo "The tests need: ${missing[*]}, and this machine has no apt-get: install them with its package manager" >&2
  exit 1
fi

echo "Installing for the tests: ${missing[*]}" >&2
export DEBIAN_FRONTEND=noninteractive
"${SUDO[@]}" apt-get update -qq
"${SUDO[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
