# Building vector tiles next to PostGIS ST_AsMVT (issue 26 item 7); sourced by run.sh, which
# defines work, svc, cold_port, svc_pid, cold_pid, pg_port, psql, bbox, THREADS, CONNS, DURATION
# and rows.
#
# PostGIS side, the way pg_tileserv and martin query a table: the buildings of the demo pack loaded
# from svc's own OGC API buildings collection with GDAL's OAPIF driver (footprints and attributes as
# svc publishes them), stored in EPSG:3857 (no ST_Transform per request, the peer's fastest setup)
# with a GiST index; the tile is ST_AsMVT over ST_AsMVTGeom(geom, ST_TileEnvelope(z, x, y), 4096,
# 64, true) of the rows whose geometry meets the envelope widened by the 64-unit buffer. pgbench
# runs that query as its script over the z15 tiles meeting the demo km² (random choice), with the
# same clients and threads as wrk. svc: wrk over the same tiles, cold (a second svc with
# --vector-tile-cache-mb 0: every request cuts its tile) and warm (the tile cache). Neither side
# compresses. CPU per tile: svc's process and PostgreSQL's postmaster with its reaped backends,
# both from /proc/PID/stat (the getrusage counters), divided by the tiles answered.

mvt_pg() { "${psql[@]}" -d bench "$@"; }

mvt_setup() {
  mvt_t0=$SECONDS
  wait_http "http://127.0.0.1:$cold_port/healthz"
  echo "== building footprints into PostGIS (from svc's OGC buildings collection, GDAL OAPIF)" >&2
  local pgconn="PG:host=127.0.0.1 port=$pg_port user=postgres dbname=bench"
  ogr2ogr -f PostgreSQL "$pgconn" "OAPIF:$svc/ogc" buildings -nln ogc_buildings -t_srs EPSG:3857 \
    -nlt MULTIPOLYGON -lco GEOMETRY_NAME=geom -lco SPATIAL_INDEX=NONE
  # building_id is the pack's key, not an OGC property: from each pack's building_attrs, the
  # buildings a tile draws (their own row with a footprint).
  local mode=() f b
  for f in "$work"/data/lod2/*/*/lod2.sqlite; do
    b=$(basename "$(dirname "$(dirname "$f")")")
    ogr2ogr -f PostgreSQL "$pgconn" "$f" -nln pack_buildings "${mode[@]}" -sql \
      "SELECT building_id, gmlid, '$b' AS bl FROM building_attrs WHERE part = 0 AND footprint_source IN ('ground', 'roof')"
    mode=(-append)
  done
  mvt_pg >/dev/null <<'SQL'
CREATE TABLE building_tiles AS
  SELECT p.building_id::bigint AS building_id, o.gmlid, o.bl, o.height_m, o.ground_z_m AS ground_m,
    o.ridge_z_m AS roof_max_m, o.function, o.function_label_de AS function_label, o.roof_type,
    o.roof_type_label_de AS roof_type_label, o.storeys::int AS storeys, o.geom
  FROM ogc_buildings o JOIN pack_buildings p ON p.gmlid = o.gmlid AND p.bl = o.bl;
CREATE INDEX ON building_tiles USING gist (geom);
ANALYZE building_tiles;
SQL
  mvt_n=$(mvt_pg -At -c 'SELECT count(*) FROM building_tiles')
  echo "   $mvt_n buildings in building_tiles" >&2

  # The z15 tiles meeting the demo km² (server BenchmarkBuildingTileZ15's tiles).
  read -r mvt_x0 mvt_x1 mvt_y0 mvt_y1 <<<"$(python3 -c '
import math, sys
w, s, e, n = map(float, sys.argv[1].split(","))
z = 2 ** 15
tx = lambda lon: int((lon + 180) / 360 * z)
ty = lambda lat: int((1 - math.asinh(math.tan(math.radians(lat))) / math.pi) / 2 * z)
print(tx(w), tx(e), ty(n), ty(s))' "$bbox")"
  mvt_nx=$((mvt_x1 - mvt_x0 + 1)) mvt_ny=$((mvt_y1 - mvt_y0 + 1))
  mvt_tiles=$((mvt_nx * mvt_ny))
  cat >"$work/mvt.pgbench" <<EOF
\\set i random(0, $((mvt_tiles - 1)))
\\set x $mvt_x0 + :i / $mvt_ny
\\set y $mvt_y0 + :i % $mvt_ny
$(mvt_query :x :y)
EOF
  {
    echo 'local tiles = {'
    local x y
    for ((x = mvt_x0; x <= mvt_x1; x++)); do
      for ((y = mvt_y0; y <= mvt_y1; y++)); do echo "  \"/v1/buildings/tiles/15/$x/$y.mvt\","; done
    done
    echo '}'
    echo 'request = function() return wrk.format("GET", tiles[math.random(#tiles)]) end'
  } >"$work/mvt.lua"
  mvt_same
  mvt_setup_seconds=$((SECONDS - mvt_t0))
}

# mvt_query X Y: the tile query at z15 (X and Y are numbers or pgbench variables).
mvt_query() {
  echo "SELECT ST_AsMVT(t, 'buildings', 4096, 'geom') FROM (SELECT building_id, gmlid, bl, height_m, ground_m, roof_max_m, function, function_label, roof_type, roof_type_label, storeys, ST_AsMVTGeom(geom, ST_TileEnvelope(15, $1, $2), 4096, 64, true) AS geom FROM building_tiles WHERE geom && ST_TileEnvelope(15, $1, $2, margin => 64.0 / 4096)) t;"
}

# mvt_same checks equal content on every benchmarked tile: GDAL's MVT driver reads svc's tile and
# PostGIS's, mvtsame.py compares buildings, attributes and outlines (to one tile unit).
mvt_same() {
  local x y d unit
  unit=$(awk 'BEGIN{printf "%.9f", 2 * 20037508.342789244 / 2^15 / 4096}')
  for ((x = mvt_x0; x <= mvt_x1; x++)); do
    for ((y = mvt_y0; y <= mvt_y1; y++)); do
      for d in svc pg; do mkdir -p "$work/mvtcmp/$d/15/$x"; done
      curl -sf -o "$work/mvtcmp/svc/15/$x/$y.pbf" "$svc/v1/buildings/tiles/15/$x/$y.mvt"
      mvt_pg -At -c "SELECT encode(($(mvt_query "$x" "$y" | tr -d ';')), 'hex')" |
        python3 -c 'import binascii, sys; sys.stdout.buffer.write(binascii.unhexlify(sys.stdin.read().strip()))' >"$work/mvtcmp/pg/15/$x/$y.pbf"
      if [ ! -s "$work/mvtcmp/svc/15/$x/$y.pbf" ] || [ ! -s "$work/mvtcmp/pg/15/$x/$y.pbf" ]; then
        # No building meets the tile: both sides must say so with an empty tile.
        [ ! -s "$work/mvtcmp/svc/15/$x/$y.pbf" ] && [ ! -s "$work/mvtcmp/pg/15/$x/$y.pbf" ] ||
          { echo "bench-peers: tile 15/$x/$y is empty on one side only" >&2; exit 1; }
        echo "   tile 15/$x/$y: empty on both sides" >&2
        continue
      fi
      for d in svc pg; do
        ogr2ogr -oo CLIP=NO -f GeoJSON "$work/mvtcmp/$d-$x-$y.json" "$work/mvtcmp/$d/15/$x/$y.pbf" buildings
      done
      echo "   tile 15/$x/$y, svc vs PostGIS:" >&2
      python3 scripts/bench-peers/mvtsame.py "$work/mvtcmp/svc-$x-$y.json" "$work/mvtcmp/pg-$x-$y.json" "$unit" >&2 ||
        { echo "bench-peers: the PostGIS tile 15/$x/$y differs from svc's" >&2; exit 1; }
    done
  done
}

# cpu_ticks PID: user+system CPU of PID and its reaped children, in clock ticks.
cpu_ticks() { awk '{print $14 + $15 + $16 + $17}' "/proc/$1/stat"; }

# mvt_wrk URL_BASE PID -> "tiles/s p50 p99 cpu-µs/tile"
mvt_wrk() {
  local c0 c1 out n
  c0=$(cpu_ticks "$2")
  out=$(wrk -t"$THREADS" -c"$CONNS" -d"$DURATION" --latency -s "$work/mvt.lua" "$1")
  c1=$(cpu_ticks "$2")
  [ -n "${BENCH_DEBUG:-}" ] && echo "$out" >&2
  if echo "$out" | grep -q 'Non-2xx'; then echo "bench-peers: non-2xx answers from $1" >&2; echo "$out" >&2; exit 1; fi
  n=$(echo "$out" | awk '/requests in/ {print $1}')
  echo "$(echo "$out" | awk '/Requests\/sec/ {print $2}') $(echo "$out" | awk '$1=="50%" {print $2}') $(echo "$out" | awk '$1=="99%" {print $2}') $(mvt_cpu "$c0" "$c1" "$n")"
}

# mvt_cpu TICKS0 TICKS1 TILES -> µs of CPU per tile
mvt_cpu() { awk -v a="$1" -v b="$2" -v n="$3" -v hz="$(getconf CLK_TCK)" 'BEGIN{ if (n>0) printf "%.0f", (b-a)/hz*1e6/n; else print "-" }'; }

# mvt_pgbench -> "tiles/s p50 p99 cpu-µs/tile"
mvt_pgbench() {
  local pm c0 c1 out n secs
  pm=$(head -1 "$work/pg/postmaster.pid")
  secs=${DURATION%s}
  rm -f "$work"/pgblog*
  c0=$(cpu_ticks "$pm")
  out=$(cd "$work" && pgbench -n -h 127.0.0.1 -p "$pg_port" -U postgres -c "$CONNS" -j "$THREADS" -T "$secs" \
    -f "$work/mvt.pgbench" --log --log-prefix=pgblog bench 2>&1) || { echo "bench-peers: pgbench failed:" >&2; echo "$out" >&2; exit 1; }
  sleep 0.5 # the postmaster reaps its backends
  c1=$(cpu_ticks "$pm")
  [ -n "${BENCH_DEBUG:-}" ] && echo "$out" >&2
  n=$(cat "$work"/pgblog* | wc -l)
  # Per-transaction log: client, transaction, latency in µs, script, epoch s, µs.
  read -r p50 p99 <<<"$(cat "$work"/pgblog* | awk '{print $3}' | sort -n |
    awk '{v[NR]=$1} END{printf "%.2fms %.2fms", v[int(NR*0.5)+1]/1000, v[int(NR*0.99)+1]/1000}')"
  echo "$(echo "$out" | awk '/^tps = / {printf "%.2f", $3}') $p50 $p99 $(mvt_cpu "$c0" "$c1" "$n")"
}

mvt_pairs() {
  local peer prps pp50 pp99 pcpu srps sp50 sp99 scpu t0=$SECONDS
  peer="PostGIS $(mvt_pg -At -c 'SELECT postgis_lib_version()') ST_AsMVT, pgbench"
  echo "== building MVT z15 ($mvt_tiles tiles): $peer vs svc cold and warm ($DURATION each)" >&2
  for _ in $(seq 20); do curl -s -o /dev/null "$svc/v1/buildings/tiles/15/$mvt_x0/$mvt_y0.mvt"; done
  read -r prps pp50 pp99 pcpu <<<"$(mvt_pgbench)"
  read -r srps sp50 sp99 scpu <<<"$(mvt_wrk "http://127.0.0.1:$cold_port" "$cold_pid")"
  rows+=("building MVT z15, cold (no tile cache; CPU/tile: PostGIS ${pcpu} µs, svc ${scpu} µs)|$peer|$prps|$srps|$pp50|$pp99|$sp50|$sp99")
  read -r srps sp50 sp99 scpu <<<"$(mvt_wrk "$svc" "$svc_pid")"
  rows+=("building MVT z15, warm (tile cache; CPU/tile: svc ${scpu} µs)|$peer|$prps|$srps|$pp50|$pp99|$sp50|$sp99")
  mvt_seconds=$((mvt_setup_seconds + SECONDS - t0))
  echo "   building MVT rows: $mvt_seconds s (loading and checking $mvt_setup_seconds s)" >&2
}
