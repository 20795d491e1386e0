#!/usr/bin/env bash
# Debian's Chromium, for the explorer's browser tests (tests/test_explore.py): installed once where apt-get can
# (as root), in the background beside the quick tests; its process id goes to $LCLAB_BROWSER_INSTALL's file so the
# browser tests wait for it. Nothing to do where a Chromium is already on the PATH.
#   scripts/browser.sh            install now (and wait)
#   scripts/browser.sh --background  start the install in the background and print its pid file (nothing when none is needed)
set -uo pipefail
cd "$(dirname "$0")/.."
log=.venv/browser-install.log
if command -v chromium >/dev/null || command -v chromium-browser >/dev/null; then exit 0; fi
if [ "$(id -u)" != 0 ] || ! command -v apt-get >/dev/null; then
  echo "browser: no Chromium and no apt-get as root: the explorer's browser tests will be skipped" >&2
  exit 0
fi
if [ "${1:-}" = "--background" ]; then
  mkdir -p .venv
  ( nice -n 19 apt-get install -y -q chromium >"$log" 2>&1 || { apt-get update -q >>"$log" 2>&1 && \
    nice -n 19 apt-get install -y -q chromium >>"$log" 2>&1; } ) </dev/null >/dev/null 2>&1 &
  echo $! > "$log.pid"
  echo "$log.pid"
  exit 0
fi
apt-get install -y -q chromium >"$log" 2>&1 || { apt-get update -q >>"$log" 2>&1 && apt-get install -y -q chromium >>"$log" 2>&1; }
