"""Per building, what GDAL reads of its 3D geometry: from a LoD2 pack
(GDAL's SQLite driver on the SpatiaLite surfaces, joined to buildings by
building_id) and from a GeoJSON FeatureCollection (GDAL's GeoJSON driver,
one feature per building, id the gml:id). Prints JSON:
{"pack": {gmlid: {"polygons", "zmin", "zmax", "dim"}}, "geojson": {...}}.

usage: gdal_solids.py lod2.sqlite answer.geojson
"""
import json
import sys

from osgeo import ogr

ogr.UseExceptions()


def add(out, key, g):
    e = out.setdefault(key, {"polygons": 0, "zmin": None, "zmax": None, "dim": 0})
    if g is None:
        return
    n = g.GetGeometryCount() if ogr.GT_Flatten(g.GetGeometryType()) == ogr.wkbMultiPolygon else 1
    e["polygons"] += n
    e["dim"] = max(e["dim"], g.GetCoordinateDimension())
    env = g.GetEnvelope3D()
    e["zmin"] = env[4] if e["zmin"] is None else min(e["zmin"], env[4])
    e["zmax"] = env[5] if e["zmax"] is None else max(e["zmax"], env[5])


def main():
    pack, answer = sys.argv[1], sys.argv[2]
    ds = ogr.Open(pack)
    ids = {}
    rows = ds.ExecuteSQL("SELECT building_id, gmlid FROM buildings")
    for f in rows:
        ids[f.GetField("building_id")] = f.GetField("gmlid")
    ds.ReleaseResultSet(rows)
    packed = {}
    for f in ds.GetLayerByName("surfaces"):
        add(packed, ids[f.GetField("building_id")], f.GetGeometryRef())
    gj = ogr.Open(answer)
    lyr = gj.GetLayer(0)
    served = {}
    for f in lyr:
        add(served, f.GetField("gmlid"), f.GetGeometryRef())
    json.dump({"pack": packed, "geojson": served,
               "geojson_type": ogr.GeometryTypeToName(lyr.GetGeomType())}, sys.stdout)


main()
