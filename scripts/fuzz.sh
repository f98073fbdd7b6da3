#!/usr/bin/env bash
# Runs every Go fuzz target in the module for a short time each. A target
# that finds a failure does not stop the others: all run, the failures are
# listed at the end and the script then fails.
set -uo pipefail
t=${1:-15s}
cd "$(dirname "$0")/.."
failed=()
for pkg in $(go list ./...); do
  dir=$(go list -f '{{.Dir}}' "$pkg")
  for f in $(grep -ho '^func Fuzz[A-Za-z0-9_]*' "$dir"/*_test.go 2>/dev/null | sed 's/func //'); do
    echo "== $pkg $f"
    if ! go test -run '^$' -fuzz "^$f\$" -fuzztime "$t" -fuzzminimizetime 1s "$pkg"; then
      failed+=("$pkg $f")
    fi
  done
done
if [ ${#failed[@]} -gt 0 ]; then
  printf 'fuzz: %d target(s) failed (inputs saved under testdata/fuzz):\n' "${#failed[@]}" >&2
  printf '  %s\n' "${failed[@]}" >&2
  exit 1
fi
echo "fuzz: every target ran for $t without a failure"
