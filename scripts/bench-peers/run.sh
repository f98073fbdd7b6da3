#!/usr/bin/env bash
# bench-peers: svc side by side with its peers on the same demo data, the same
# wrk workloads, loopback only. Prints a table and writes it as JSON and
# Markdown under bench/results/.
#
#   scripts/bench-peers/run.sh            # full: 10 s per workload (about 4 minutes)
#   scripts/bench-peers/run.sh --short    # CI: 2 s per workload, one workload per peer
#
# Peers, each from a real package:
#   - a minimal Go net/http server (scripts/bench-peers/hello): the ceiling for cheap routes
#   - pg_featureserv v1.3.1 (Go module, built into ~/.cache/svc-bench-peers) on PostgreSQL 15 +
#     PostGIS 3 (Debian postgresql, postgresql-15-postgis-3): a throw-away cluster on a loopback
#     port, the demo LoD2 surfaces loaded with ogr2ogr from our SpatiaLite packs (EPSG:4326, GiST
#     index, ANALYZE), pool of 16 connections: bbox search
#   - PostGIS ST_AsMVT (the engine of pg_tileserv and martin) driven by pgbench (Debian postgresql):
#     building vector tiles at z15 against svc cold and warm, equal content checked first with GDAL's
#     MVT driver; see scripts/bench-peers/mvt.sh
#   - GDAL gdallocationinfo (Debian gdal-bin): point sampling of a demo DGM COG, WGS84 input
#   - opentopodata is not packaged for Debian: its figure stays in docs/performance.md with date
#     and method instead of being faked here.
# Everything started here is stopped on exit. Bounded: each wrk run has its duration, every wait
# loop a count.
set -euo pipefail
cd "$(dirname "$0")/../.."
root=$(pwd)

MODE=full
[ "${1:-}" = "--short" ] && MODE=short
if [ "$MODE" = short ]; then DURATION=${DURATION:-2s}; else DURATION=${DURATION:-10s}; fi
THREADS=${THREADS:-2}
CONNS=${CONNS:-64}
BASEPORT=${BASEPORT:-18180}
OUT=${OUT:-$root/bench/results}
PGFS_VERSION=v1.3.1

need() { command -v "$1" >/dev/null || { echo "bench-peers: $1 not found: $2" >&2; exit 1; }; }
need wrk "apt-get install wrk"
need ogr2ogr "apt-get install gdal-bin"
need gdallocationinfo "apt-get install gdal-bin"
need curl "apt-get install curl"
PGBIN=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -1)
[ -n "$PGBIN" ] && [ -x "$PGBIN/initdb" ] || { echo "bench-peers: PostgreSQL server not found: apt-get install postgresql" >&2; exit 1; }
ls /usr/share/postgresql/*/extension/postgis.control >/dev/null 2>&1 ||
  { echo "bench-peers: PostGIS extension not found: apt-get install postgresql-15-postgis-3" >&2; exit 1; }

work=$(mktemp -d /tmp/bench-peers.XXXXXX)
chmod 755 "$work"
pids=()
cleanup() {
  for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
  if [ -f "$work/pg/postmaster.pid" ]; then pgrun "$PGBIN/pg_ctl" -D "$work/pg" -m immediate stop >/dev/null 2>&1 || true; fi
  rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# initdb refuses to run as root: run the cluster as the postgres user then.
pgrun() { if [ "$(id -u)" = 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi; }

wait_http() { # url
  for _ in $(seq 100); do curl -sf -o /dev/null "$1" && return 0; sleep 0.2; done
  echo "bench-peers: $1 did not answer" >&2; return 1
}

echo "== building svc, the hello server and pg_featureserv $PGFS_VERSION" >&2
make -s build >&2
go build -o "$work/hello" ./scripts/bench-peers/hello
cache=${XDG_CACHE_HOME:-$HOME/.cache}/svc-bench-peers
pgfs="$cache/pg_featureserv-$PGFS_VERSION"
if [ ! -x "$pgfs" ]; then
  # `go install pkg@version` asks the proxy for the module's version list, which it does not serve;
  # a throw-away module pinning the exact version builds the same binary.
  mkdir -p "$cache" "$work/pgfs-build"
  (cd "$work/pgfs-build" && go mod init pgfsbuild >/dev/null 2>&1 &&
    printf '//go:build tools\n\npackage tools\n\nimport _ "github.com/CrunchyData/pg_featureserv"\n' >tools.go &&
    go get "github.com/CrunchyData/pg_featureserv@$PGFS_VERSION" >/dev/null 2>&1 &&
    go build -o "$pgfs" github.com/CrunchyData/pg_featureserv)
fi

echo "== demo data" >&2
./svc demo --data "$work/data" >/dev/null

svc_port=$BASEPORT hello_port=$((BASEPORT + 1)) pg_port=$((BASEPORT + 2)) pgfs_port=$((BASEPORT + 3)) cold_port=$((BASEPORT + 5))
SVC_KEYLESS_LIMIT=1000000000 ./svc serve --data "$work/data" --addr "127.0.0.1:$svc_port" --log-level error &
pids+=($!)
svc_pid=$!
# The same data without a vector tile cache: every tile request cuts its tile (the cold MVT workload).
SVC_KEYLESS_LIMIT=1000000000 ./svc serve --data "$work/data" --addr "127.0.0.1:$cold_port" --log-level error --vector-tile-cache-mb 0 &
pids+=($!)
cold_pid=$!
"$work/hello" -addr "127.0.0.1:$hello_port" &
pids+=($!)

echo "== PostgreSQL + PostGIS on 127.0.0.1:$pg_port" >&2
mkdir -p "$work/pg" && chown postgres "$work/pg" 2>/dev/null || true
pgrun "$PGBIN/initdb" -D "$work/pg" -U postgres --auth=trust >/dev/null
# Tuned for a read-only benchmark on a small machine (documented in docs/performance.md).
pgrun "$PGBIN/pg_ctl" -D "$work/pg" -l "$work/pg/log" -w -o "-p $pg_port -k $work/pg -c listen_addresses=127.0.0.1 \
  -c shared_buffers=256MB -c effective_cache_size=1GB -c work_mem=16MB -c jit=off -c random_page_cost=1.1 \
  -c max_connections=100 -c fsync=off -c synchronous_commit=off" start >/dev/null
psql=(psql -q -h 127.0.0.1 -p "$pg_port" -U postgres -v ON_ERROR_STOP=1)
"${psql[@]}" -c 'CREATE DATABASE bench' >/dev/null
"${psql[@]}" -d bench -c 'CREATE EXTENSION postgis' >/dev/null
first=1
for f in "$work"/data/lod2/*/*/lod2.sqlite; do
  if [ $first = 1 ]; then mode=(-lco GEOMETRY_NAME=geom -lco SPATIAL_INDEX=GIST -lco FID=id); first=0; else mode=(-append); fi
  ogr2ogr -f PostgreSQL "PG:host=127.0.0.1 port=$pg_port user=postgres dbname=bench" "$f" surfaces \
    -nln surfaces -t_srs EPSG:4326 -nlt MULTIPOLYGONZ "${mode[@]}"
done
"${psql[@]}" -d bench -c 'ANALYZE surfaces' >/dev/null
surfaces=$("${psql[@]}" -d bench -At -c 'SELECT count(*) FROM surfaces')

# Real LoD2 data (the NRW and Berlin sample tiles of ../shared/samples/real, 1 km2 each) in a second
# svc and a second PostGIS table; skipped with a message when the samples are not next to the repo.
real=$root/../shared/samples/real
real_port=$((BASEPORT + 4))
real_bbox=
# Full mode only: the short (CI) mode measures one workload per peer.
if [ "$MODE" = full ] && [ -f "$real/LoD2_32_280_5659_1_NW.gml" ] && [ -f "$real/3910_5817.gml" ]; then
  echo "== real LoD2 samples (NRW, Berlin)" >&2
  ./svc import lod2 --data "$work/real" --bl nrw --snapshot 2026-01-01 --license dl-de-zero-2.0 "$real/LoD2_32_280_5659_1_NW.gml" >/dev/null
  ./svc import lod2 --data "$work/real" --bl be --snapshot 2026-01-01 --license dl-de-zero-2.0 "$real/3910_5817.gml" >/dev/null
  SVC_KEYLESS_LIMIT=1000000000 ./svc serve --data "$work/real" --addr "127.0.0.1:$real_port" --log-level error &
  pids+=($!)
  mode=(-lco GEOMETRY_NAME=geom -lco SPATIAL_INDEX=GIST -lco FID=id)
  for f in "$work"/real/lod2/*/*/lod2.sqlite; do
    ogr2ogr -f PostgreSQL "PG:host=127.0.0.1 port=$pg_port user=postgres dbname=bench" "$f" surfaces \
      -nln real_surfaces -t_srs EPSG:4326 -nlt MULTIPOLYGONZ "${mode[@]}"
    mode=(-append)
  done
  "${psql[@]}" -d bench -c 'ANALYZE real_surfaces' >/dev/null
  # The NRW tile (UTM32 280000-281000 E, 5659000-5660000 N) as a WGS84 box.
  real_bbox=$(printf '280000 5659000\n281000 5660000\n' | gdaltransform -s_srs EPSG:25832 -t_srs EPSG:4326 -output_xy |
    awk 'NR==1{w=$1;s=$2} NR==2{printf "%.6f,%.6f,%.6f,%.6f", w, s, $1, $2}')
else
  echo "== real LoD2 samples not found at $real (clone the repository next to ../shared): real-data workload skipped" >&2
fi

# pg_featureserv is restarted before each of its workloads: after wrk closes its 64 connections
# mid-request at the end of a run, pg_featureserv v1.3.1 keeps pool connections checked out and
# later requests wait for one until its 30 s write timeout (seen as 503s on the next workload).
pgfs_pid=
start_pgfs() {
  if [ -n "$pgfs_pid" ]; then kill "$pgfs_pid" 2>/dev/null || true; wait "$pgfs_pid" 2>/dev/null || true; fi
  PGFS_SERVER_HTTPHOST=127.0.0.1 PGFS_SERVER_HTTPPORT=$pgfs_port PGFS_DATABASE_DBPOOLMAXCONNS=16 \
    PGFS_PAGING_LIMITMAX=10000 DATABASE_URL="postgres://postgres@127.0.0.1:$pg_port/bench" \
    "$pgfs" >>"$work/pgfs.log" 2>&1 &
  pgfs_pid=$!
  pids+=($pgfs_pid)
  wait_http "http://127.0.0.1:$pgfs_port/collections"
}
start_pgfs

svc="http://127.0.0.1:$svc_port" hello="http://127.0.0.1:$hello_port" pgfsurl="http://127.0.0.1:$pgfs_port"
wait_http "$svc/healthz"
wait_http "$hello/"
wait_http "$pgfsurl/collections"

# The he demo town: a 1 km2 box, as in scripts/load.sh.
bbox="8.6700,50.1040,8.6840,50.1130"
n_svc=$(curl -sf "$svc/v1/buildings?bbox=$bbox&limit=100" | grep -o '"type":"Feature"' | wc -l)
n_pg=$(curl -sf "$pgfsurl/collections/public.surfaces/items.json?bbox=$bbox&limit=100" | grep -o '"type":"Feature"' | wc -l)
[ "$n_svc" = 100 ] && [ "$n_pg" = 100 ] || { echo "bench-peers: bbox pages differ: svc $n_svc, pg_featureserv $n_pg features" >&2; exit 1; }

if [ -n "$real_bbox" ]; then
  wait_http "http://127.0.0.1:$real_port/healthz"
  n_svc=$(curl -sf "http://127.0.0.1:$real_port/v1/buildings?bbox=$real_bbox&limit=100" | grep -o '"type":"Feature"' | wc -l)
  n_pg=$(curl -sf "$pgfsurl/collections/public.real_surfaces/items.json?bbox=$real_bbox&limit=100" | grep -o '"type":"Feature"' | wc -l)
  [ "$n_svc" = 100 ] && [ "$n_pg" = 100 ] || { echo "bench-peers: real bbox pages differ: svc $n_svc, pg_featureserv $n_pg features" >&2; exit 1; }
fi

source scripts/bench-peers/mvt.sh
mvt_setup

rows=()
measure() { # url -> "req/s p50 p99"
  local out
  out=$(wrk -t"$THREADS" -c"$CONNS" -d"$DURATION" --latency "$1")
  [ -n "${BENCH_DEBUG:-}" ] && echo "$out" >&2
  if echo "$out" | grep -q 'Non-2xx'; then echo "bench-peers: non-2xx answers from $1" >&2; echo "$out" >&2; exit 1; fi
  echo "$(echo "$out" | awk '/Requests\/sec/ {print $2}') $(echo "$out" | awk '$1=="50%" {print $2}') $(echo "$out" | awk '$1=="99%" {print $2}')"
}
pair() { # workload peer peer_url svc_url
  echo "== $1: $2 vs svc ($DURATION each)" >&2
  case "$3" in "$pgfsurl"*) start_pgfs ;; esac
  # Warm both first (connection pools, the database's and the OS's caches), so a
  # short run measures the steady state and not the first requests.
  for _ in $(seq 20); do curl -s -o /dev/null "$3"; curl -s -o /dev/null "$4"; done
  read -r prps pp50 pp99 <<<"$(measure "$3")"
  read -r srps sp50 sp99 <<<"$(measure "$4")"
  rows+=("$1|$2|$prps|$srps|$pp50|$pp99|$sp50|$sp99")
}

pair "/healthz" "Go net/http hello" "$hello/" "$svc/healthz"
pair "bbox search 1 km2, limit 100" "pg_featureserv $PGFS_VERSION + PostGIS" \
  "$pgfsurl/collections/public.surfaces/items.json?bbox=$bbox&limit=100" "$svc/v1/buildings?bbox=$bbox&limit=100"
if [ -n "$real_bbox" ] && [ "$MODE" = full ]; then
  pair "bbox search real LoD2 (NRW tile), limit 100" "pg_featureserv $PGFS_VERSION + PostGIS" \
    "$pgfsurl/collections/public.real_surfaces/items.json?bbox=$real_bbox&limit=100" "http://127.0.0.1:$real_port/v1/buildings?bbox=$real_bbox&limit=100"
fi
if [ "$MODE" = full ]; then
  pair "/v1/datasets" "Go net/http hello" "$hello/" "$svc/v1/datasets"
  pair "/v1/attribution" "Go net/http hello" "$hello/" "$svc/v1/attribution"
fi

mvt_pairs

# Point sampling: gdallocationinfo reading WGS84 points from stdin against one demo DGM COG,
# next to svc's in-process sampler over the same kind of data (terrain BenchmarkElevation:
# WGS84 points, projection, tile routing, pixel read).
echo "== point sampling: gdallocationinfo vs svc in process" >&2
cog=$(ls "$work"/data/terrain/he/*/tiles/*.tif | head -1)
npts=$([ "$MODE" = short ] && echo 20000 || echo 200000)
read -r w s e n <<<"$(gdalinfo -json "$cog" | python3 -c 'import json,sys; d=json.load(sys.stdin)["wgs84Extent"]["coordinates"][0]; xs=[p[0] for p in d]; ys=[p[1] for p in d]; print(min(xs),min(ys),max(xs),max(ys))')"
awk -v n="$npts" -v w="$w" -v s="$s" -v e="$e" -v t="$n" 'BEGIN{srand(1); for(i=0;i<n;i++) printf "%.7f %.7f\n", w+(e-w)*(0.02+0.96*rand()), s+(t-s)*(0.02+0.96*rand())}' >"$work/pts"
t0=$(date +%s.%N)
gdallocationinfo -valonly -wgs84 "$cog" <"$work/pts" >/dev/null
t1=$(date +%s.%N)
gdal_rate=$(awk -v n="$npts" -v a="$t0" -v b="$t1" 'BEGIN{printf "%.0f", n/(b-a)}')
svc_rate=$(go test -run '^$' -bench '^BenchmarkElevation$' -benchtime "$([ "$MODE" = short ] && echo 0.5s || echo 3s)" ./terrain/ |
  awk '/BenchmarkElevation/ {for(i=1;i<=NF;i++) if($(i+1)=="samples/s") print $i}')
rows+=("point sampling (points/s)|gdallocationinfo $(gdalinfo --version | awk '{print $2}' | tr -d ,)|$gdal_rate|$svc_rate|-|-|-|-")

mkdir -p "$OUT"
stamp=$(date -u +%Y-%m-%dT%H:%M:%SZ)
machine="$(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs), load $(cut -d' ' -f1-3 /proc/loadavg)"
{
  echo "# svc next to its peers ($MODE mode, $stamp)"
  echo
  echo "Machine: $machine. wrk -t$THREADS -c$CONNS -d$DURATION per workload, loopback; demo pack, $surfaces LoD2 surfaces in PostGIS; real data: the NRW and Berlin LoD2 sample tiles ($([ -n "$real_bbox" ] && echo loaded || echo not found, skipped))."
  echo
  echo "| workload | peer | peer req/s | svc req/s | ratio | peer p50 | peer p99 | svc p50 | svc p99 |"
  echo "|---|---|---:|---:|---:|---:|---:|---:|---:|"
  for r in "${rows[@]}"; do
    IFS='|' read -r wl peer prps srps pp50 pp99 sp50 sp99 <<<"$r"
    ratio=$(awk -v a="$srps" -v b="$prps" 'BEGIN{ if (b>0) printf "%.2f", a/b; else print "-" }')
    echo "| $wl | $peer | $prps | $srps | $ratio | $pp50 | $pp99 | $sp50 | $sp99 |"
  done
} >"$OUT/latest-$MODE.md"
{
  printf '{"mode":"%s","time":"%s","machine":"%s","wrk":"-t%s -c%s -d%s","rows":[' "$MODE" "$stamp" "$machine" "$THREADS" "$CONNS" "$DURATION"
  sep=
  for r in "${rows[@]}"; do
    IFS='|' read -r wl peer prps srps pp50 pp99 sp50 sp99 <<<"$r"
    printf '%s{"workload":"%s","peer":"%s","peer_rps":%s,"svc_rps":%s,"peer_p50":"%s","peer_p99":"%s","svc_p50":"%s","svc_p99":"%s"}' \
      "$sep" "$wl" "$peer" "$prps" "$srps" "$pp50" "$pp99" "$sp50" "$sp99"
    sep=,
  done
  echo ']}'
} >"$OUT/latest-$MODE.json"
cat "$OUT/latest-$MODE.md"
