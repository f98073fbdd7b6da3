#!/usr/bin/env bash
# search-tail: the bbox search's latency tail and the garbage collector
# (issue 24 point 5). Serves a fresh demo pack on a loopback port and runs
# wrk on the 1 km² search (limit 100), RUNS times per configuration, each on
# a fresh server after a 2 s warm-up; prints req/s, p50, p99, the number of
# collections and their stop-the-world total (GODEBUG=gctrace=1: the two
# STW phases of each cycle, wall clock) and the RSS after the run.
#   scripts/search-tail.sh                        # ./svc: default policy, and --gc-headroom off
#   BASELINE=/tmp/svc-old scripts/search-tail.sh  # also an older binary, GOGC=100 and GOGC=off GOMEMLIMIT=4GiB
#   RUNS=5 CONNS=64 DURATION=30s scripts/search-tail.sh
set -euo pipefail
cd "$(dirname "$0")/.."
command -v wrk >/dev/null || { echo "wrk not installed: apt-get install wrk" >&2; exit 1; }
RUNS=${RUNS:-3}
CONNS=${CONNS:-128}
THREADS=${THREADS:-2}
DURATION=${DURATION:-10s}
PORT=${PORT:-18097}
[ -x ./svc ] || make build
data=$(mktemp -d)
trace=$(mktemp)
pid=
trap '[ -n "$pid" ] && kill $pid 2>/dev/null; rm -rf "$data" "$trace"' EXIT
./svc demo --data "$data" >/dev/null
base="http://127.0.0.1:$PORT"
route="/v1/buildings?bbox=8.6700,50.1040,8.6840,50.1130&limit=100"
stw() { { grep '^gc ' "$trace" || true; } | awk '{split($5, a, "+"); s += a[1] + a[3]} END {printf "%.1f", s}'; }
gcs() { grep -c '^gc ' "$trace" || true; }
# run LABEL BINARY [VAR=value ...] [-- serve flags]
run() {
  local label=$1 bin=$2 envs=() args=()
  shift 2
  while [ $# -gt 0 ] && [ "$1" != "--" ]; do envs+=("$1"); shift; done
  [ $# -gt 0 ] && shift && args=("$@")
  for r in $(seq "$RUNS"); do
    env "${envs[@]}" SVC_KEYLESS_LIMIT=1000000000 GODEBUG=gctrace=1 "$bin" serve --data "$data" --addr "127.0.0.1:$PORT" \
      --log-level error --quiet "${args[@]}" 2>"$trace" &
    pid=$!
    for _ in $(seq 100); do curl -sf "$base/healthz" >/dev/null && break; sleep 0.1; done
    wrk -t"$THREADS" -c"$CONNS" -d2s "$base$route" >/dev/null
    local g0 s0 out
    g0=$(gcs); s0=$(stw)
    out=$(wrk -t"$THREADS" -c"$CONNS" -d"$DURATION" --latency "$base$route")
    printf '%-34s %4s %6s %10s %9s %9s %6s %9s %8s\n' "$label" "$r" "$(cut -d' ' -f1 /proc/loadavg)" \
      "$(echo "$out" | awk '/Requests\/sec/ {print $2}')" "$(echo "$out" | awk '$1=="50%" {print $2}')" \
      "$(echo "$out" | awk '$1=="99%" {print $2}')" "$(( $(gcs) - g0 ))" "$(awk -v a="$(stw)" -v b="$s0" 'BEGIN {printf "%.1f", a - b}')" \
      "$(ps -o rss= -p $pid | awk '{printf "%.0f", $1/1024}')"
    kill $pid; wait $pid 2>/dev/null || true; pid=
  done
}
echo "machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs); wrk -t$THREADS -c$CONNS -d$DURATION $route"
printf '%-34s %4s %6s %10s %9s %9s %6s %9s %8s\n' configuration run load req/s p50 p99 GCs STW_ms RSS_MiB
if [ -n "${BASELINE:-}" ]; then
  run "baseline GOGC=100" "$BASELINE"
  run "baseline GOGC=off GOMEMLIMIT=4GiB" "$BASELINE" GOGC=off GOMEMLIMIT=4GiB
fi
run "svc --gc-headroom off (GOGC=100)" ./svc -- --gc-headroom off
run "svc default policy" ./svc
