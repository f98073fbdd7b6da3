#!/usr/bin/env bash
# soak: does svc's memory stay flat under a long mixed load? Serves a fresh
# demo pack, sends about 10,000 mixed requests, records RSS, then continues to
# about 1,000,000 requests and records RSS again; prints both and the ratio
# (target: within 10 %). Loopback only, bounded by request count estimates
# and a time cap.
#   scripts/soak/run.sh              # 1M requests
#   REQUESTS=200000 scripts/soak/run.sh
set -euo pipefail
cd "$(dirname "$0")/../.."
command -v wrk >/dev/null || { echo "soak: wrk not installed: apt-get install wrk" >&2; exit 1; }
REQUESTS=${REQUESTS:-1000000}
PORT=${PORT:-18099}
[ -x ./svc ] || make -s build
data=$(mktemp -d)
trap 'kill $pid 2>/dev/null || true; rm -rf "$data"' EXIT
./svc demo --data "$data" >/dev/null
SVC_KEYLESS_LIMIT=1000000000 ./svc serve --data "$data" --addr "127.0.0.1:$PORT" --log-level error &
pid=$!
for _ in $(seq 100); do curl -sf "http://127.0.0.1:$PORT/healthz" >/dev/null && break; sleep 0.1; done
base="http://127.0.0.1:$PORT"
rss() { awk '/VmRSS/ {print $2}' /proc/$pid/status; }
total=0
run_until() { # target request count; wrk runs in slices of 5 s until reached (cap 15 min)
  local target=$1 start=$SECONDS
  while [ "$total" -lt "$target" ] && [ $((SECONDS - start)) -lt 900 ]; do
    local d=5s
    [ $((target - total)) -lt 50000 ] && d=1s
    n=$(wrk -t2 -c32 -d$d -s scripts/soak/mixed.lua "$base" | awk '/requests in/ {print $1}')
    total=$((total + n))
  done
}
run_until 10000
r1=$(rss)
n1=$total
run_until "$REQUESTS"
r2=$(rss)
echo "machine: $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg)"
echo "RSS after $n1 requests: $((r1 / 1024)) MiB; after $total requests: $((r2 / 1024)) MiB; ratio $(awk -v a="$r2" -v b="$r1" 'BEGIN{printf "%.3f", a/b}')"
