#!/usr/bin/env python3
"""mvtsame: are two building vector tiles equal in content?

Usage: mvtsame.py A.json B.json TILE_UNIT_M

A and B are GDAL's reading of one tile each (ogr2ogr -f GeoJSON of the MVT
driver, EPSG:3857, layer buildings). Equal means: the same buildings (by
building_id and gmlid), the same attribute values (numbers to 1e-9
relative), and geometries within one tile unit of each other both ways
(every vertex of one within TILE_UNIT_M of the other's outline: a discrete
Hausdorff distance). Prints the differences and exits 1 when there are any.
"""
import json
import math
import sys

ATTRS = ("gmlid", "bl", "height_m", "ground_m", "roof_max_m", "function", "function_label",
         "roof_type", "roof_type_label", "storeys")


def load(path):
    with open(path) as f:
        fc = json.load(f)
    out = {}
    for ft in fc["features"]:
        p = ft["properties"]
        out[int(p["building_id"])] = (p, ft["geometry"])
    return out


def rings(g):
    if g is None:
        return []
    if g["type"] == "Polygon":
        return g["coordinates"]
    if g["type"] == "MultiPolygon":
        return [r for poly in g["coordinates"] for r in poly]
    raise ValueError("geometry type %s" % g["type"])


def seg_dist(p, a, b):
    ax, ay = a[0], a[1]
    dx, dy = b[0] - ax, b[1] - ay
    L = dx * dx + dy * dy
    t = 0.0 if L == 0 else max(0.0, min(1.0, ((p[0] - ax) * dx + (p[1] - ay) * dy) / L))
    return math.hypot(p[0] - ax - t * dx, p[1] - ay - t * dy)


def directed(ga, gb):
    """The largest distance from a vertex of ga to the outline of gb."""
    segs = [(r[i], r[i + 1]) for r in rings(gb) for i in range(len(r) - 1)]
    worst = 0.0
    for r in rings(ga):
        for p in r:
            worst = max(worst, min((seg_dist(p, a, b) for a, b in segs), default=math.inf))
    return worst


def same(v, w):
    if isinstance(v, (int, float)) and isinstance(w, (int, float)):
        return abs(v - w) <= 1e-9 * max(1.0, abs(v), abs(w))
    return v == w


def main():
    a, b, unit = load(sys.argv[1]), load(sys.argv[2]), float(sys.argv[3])
    diffs = []
    for only, x, y in (("first", a, b), ("second", b, a)):
        missing = sorted(set(x) - set(y))
        if missing:
            diffs.append("%d buildings only in the %s tile: %s" % (len(missing), only, missing[:10]))
    worst = 0.0
    for bid in sorted(set(a) & set(b)):
        (pa, ga), (pb, gb) = a[bid], b[bid]
        for k in ATTRS:
            if not same(pa.get(k), pb.get(k)):
                diffs.append("building %d: %s %r vs %r" % (bid, k, pa.get(k), pb.get(k)))
        d = max(directed(ga, gb), directed(gb, ga))
        worst = max(worst, d)
        if d > unit * (1 + 1e-6):
            diffs.append("building %d: outlines %.3f m apart (tile unit %.3f m)" % (bid, d, unit))
    print("mvtsame: %d and %d buildings, %d in both, largest outline distance %.3f m (%.2f tile units)"
          % (len(a), len(b), len(set(a) & set(b)), worst, worst / unit))
    for d in diffs[:30]:
        print("  " + d)
    sys.exit(1 if diffs else 0)


if __name__ == "__main__":
    main()
