#!/usr/bin/env bash
# Load test: serves a fresh demo pack on a loopback port and measures each
# route with wrk (Debian package wrk). Bounded: DURATION per route.
#   scripts/load.sh            # 10 s per route, 2 threads, 64 connections
#   DURATION=30s CONNS=128 scripts/load.sh
set -euo pipefail
cd "$(dirname "$0")/.."
command -v wrk >/dev/null || { echo "wrk not installed: apt-get install wrk" >&2; exit 1; }
DURATION=${DURATION:-10s}
THREADS=${THREADS:-2}
CONNS=${CONNS:-64}
PORT=${PORT:-18089}
[ -x ./svc ] || make build
data=$(mktemp -d)
trap 'kill $pid 2>/dev/null || true; rm -rf "$data"' EXIT
./svc demo --data "$data" >/dev/null
# The keyless daily limit would answer 429 after 1000 requests from one IP.
SVC_KEYLESS_LIMIT=1000000000 ./svc serve --data "$data" --addr "127.0.0.1:$PORT" --log-level error &
pid=$!
for _ in $(seq 50); do curl -sf "http://127.0.0.1:$PORT/healthz" >/dev/null && break; sleep 0.1; done
base="http://127.0.0.1:$PORT"
# A 1 km2 box in the he demo town (Frankfurt) and one of its buildings; the
# terrain points lie in the he demo DGM1 tiles, the canopy point on a demo tree.
bbox="8.6700,50.1040,8.6840,50.1130"
gmlid=$(curl -sf "$base/v1/buildings?bbox=$bbox&limit=1" | sed -n 's/.*"gmlid":"\([^"]*\)".*/\1/p')
echo "machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs), load $(cut -d' ' -f1-3 /proc/loadavg)"
echo "wrk -t$THREADS -c$CONNS -d$DURATION per route"
printf '%-48s %12s %9s %9s %9s\n' route req/s p50 p90 p99
for route in \
  "/healthz" \
  "/v1/datasets" \
  "/v1/buildings?bbox=$bbox&limit=100" \
  "/v1/buildings/$gmlid" \
  "/v1/buildings/$gmlid/roof" \
  "/v1/terrain/elevation?lat=50.1109&lon=8.6821" \
  "/v1/terrain/profile?coords=8.675,50.1109%3B8.69,50.1109&samples=2000" \
  "/v1/vegetation/canopy?lat=50.115330&lon=8.672776"; do
  out=$(wrk -t"$THREADS" -c"$CONNS" -d"$DURATION" --latency "$base$route")
  rps=$(echo "$out" | awk '/Requests\/sec/ {print $2}')
  p50=$(echo "$out" | awk '$1=="50%" {print $2}')
  p90=$(echo "$out" | awk '$1=="90%" {print $2}')
  p99=$(echo "$out" | awk '$1=="99%" {print $2}')
  non2xx=$(echo "$out" | awk '/Non-2xx/ {print $NF}')
  printf '%-48s %12s %9s %9s %9s %s\n' "${route:0:48}" "$rps" "$p50" "$p90" "$p99" "${non2xx:+(non-2xx: $non2xx)}"
done
echo "server RSS after the run: $(ps -o rss= -p $pid | awk '{printf "%.0f MiB", $1/1024}')"

# The same elevation query against a reference Python service (python3-gdal),
# measured the same way, for the ratio the issue asks for.
if /usr/bin/python3 -c 'from osgeo import gdal' 2>/dev/null; then
  pydir=$(ls -d "$data"/terrain/he/*/ | head -1)
  /usr/bin/python3 scripts/python_elevation.py "$pydir" $((PORT + 1)) &
  pypid=$!
  trap 'kill $pid $pypid 2>/dev/null || true; rm -rf "$data"' EXIT
  for _ in $(seq 50); do curl -sf "http://127.0.0.1:$((PORT + 1))/?lat=50.1109&lon=8.6821" >/dev/null && break; sleep 0.1; done
  go_rps=$(wrk -t"$THREADS" -c"$CONNS" -d"$DURATION" "$base/v1/terrain/elevation?lat=50.1109&lon=8.6821" | awk '/Requests\/sec/ {print $2}')
  py_rps=$(wrk -t"$THREADS" -c"$CONNS" -d"$DURATION" "http://127.0.0.1:$((PORT + 1))/?lat=50.1109&lon=8.6821" | awk '/Requests\/sec/ {print $2}')
  awk -v g="$go_rps" -v p="$py_rps" 'BEGIN {printf "elevation: svc %.0f req/s, python3-gdal reference (datasets kept open) %.0f req/s, ratio %.0fx\n", g, p, g/p}'
  kill $pypid
  OPEN_PER_REQUEST=1 /usr/bin/python3 scripts/python_elevation.py "$pydir" $((PORT + 2)) &
  pypid=$!
  for _ in $(seq 50); do curl -sf "http://127.0.0.1:$((PORT + 2))/?lat=50.1109&lon=8.6821" >/dev/null && break; sleep 0.1; done
  py_rps=$(wrk -t"$THREADS" -c"$CONNS" -d"$DURATION" "http://127.0.0.1:$((PORT + 2))/?lat=50.1109&lon=8.6821" | awk '/Requests\/sec/ {print $2}')
  awk -v g="$go_rps" -v p="$py_rps" 'BEGIN {printf "elevation: svc %.0f req/s, python3-gdal opening the COG per request %.0f req/s, ratio %.0fx\n", g, p, g/p}'
else
  echo "python3-gdal not installed: skipping the Python elevation comparison"
fi
