#!/usr/bin/env bash
# fresh-machine: what a new user meets. Clones this repository into an empty
# temporary directory (so there is no ../shared next to it and no
# node_modules), runs `make test` there, then installs the npm tools
# (`npm ci`) and runs `make test` again. Both must pass: interop tests skip
# with a message naming what to install instead of failing. Not under CI=true
# (which requires every tool).
#   scripts/fresh-machine.sh            # both runs
#   scripts/fresh-machine.sh --no-npm   # only the first
set -euo pipefail
src=$(cd "$(dirname "$0")/.." && pwd)
work=$(mktemp -d /tmp/svc-fresh.XXXXXX)
trap 'rm -rf "$work"' EXIT
unset CI
git clone -q "$src" "$work/svc"
cd "$work/svc"
echo "== fresh clone in $work/svc: no ../shared, no node_modules"
[ ! -e ../shared ] && [ ! -e node_modules ] || { echo "fresh-machine: not a fresh layout" >&2; exit 1; }
make test 2>&1 | tee "$work/run1.log" | grep -E '^(ok|FAIL|---)' || true
grep -q '^FAIL' "$work/run1.log" && { echo "fresh-machine: make test failed without npm modules" >&2; exit 1; }
# go test prints skip messages only with -v; make test runs without it.
echo "== packages with skipped interop tests show 'ok' here; run 'go test -v ./... | grep skipping' for the reasons"
if [ "${1:-}" = --no-npm ]; then exit 0; fi
if command -v npm >/dev/null; then
  npm ci --no-audit --no-fund --loglevel=error
  make test 2>&1 | tee "$work/run2.log" | grep -E '^(ok|FAIL|---)' || true
  grep -q '^FAIL' "$work/run2.log" && { echo "fresh-machine: make test failed with npm modules" >&2; exit 1; }
fi
echo "fresh-machine: make test passed in both states"
