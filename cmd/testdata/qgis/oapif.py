# Reads svc's OGC API - Features layer and its XYZ hillshade with QGIS
# itself (PyQGIS, headless), for TestOGCWithQGIS (cmd/qgis_interop_test.go).
# It only observes and reports what QGIS makes of the server, as JSON on
# stdout; the Go test compares that with the server's own answers.
#
# argv[1]: JSON {"ogc": landing URL, "requests": URL of the test proxy's
#   request log, "collections": [ids], "bboxes": {id: [minx, miny, maxx,
#   maxy]} (CRS84), "download": [ids of the collections to download
#   whole], "big_collection": id, "big_page": a pageSize above the server's maximum,
#   "xyz": XYZ URL template, "zmin", "zmax", "extent": [CRS84 box to render],
#   "png": where to write the rendered image}
import json
import os
import sys
import urllib.request

from qgis.core import (
    Qgis,
    QgsApplication,
    QgsCoordinateReferenceSystem,
    QgsCoordinateTransform,
    QgsFeatureRequest,
    QgsMapRendererParallelJob,
    QgsMapSettings,
    QgsProject,
    QgsRasterLayer,
    QgsRectangle,
    QgsVectorLayer,
)
from qgis.PyQt.QtCore import QSize
from qgis.PyQt.QtGui import QColor

cfg = json.loads(sys.argv[1])
app = QgsApplication([], False)
app.initQgis()
out = {"qgis": Qgis.QGIS_VERSION}


def requests_so_far():
    with urllib.request.urlopen(cfg["requests"]) as r:
        return json.load(r)


def layer(coll, page_size=None):
    uri = "url='%s' typename='%s'" % (cfg["ogc"], coll)
    if page_size:
        uri += " pageSize='%d'" % page_size
    return QgsVectorLayer(uri, coll, "OAPIF")


def ids(features):
    return sorted(str(f["id"]) for f in features)


cols = {}
for coll in cfg["collections"]:
    r = {}
    before = len(requests_so_far())
    lyr = layer(coll)
    r["valid"] = lyr.isValid()
    if not lyr.isValid():
        r["error"] = lyr.error().summary()
        cols[coll] = r
        continue
    # The count QGIS shows before it has downloaded anything (the layer
    # tree, the attribute table's title, a progress bar's end).
    r["count_before_download"] = lyr.featureCount()
    r["requests_for_count"] = requests_so_far()[before:]
    if coll in cfg["download"]:
        before = len(requests_so_far())
        r["ids"] = ids(lyr.getFeatures())
        r["requests_for_features"] = requests_so_far()[before:]
        r["count_after_download"] = lyr.featureCount()
    # bbox: a fresh layer, so QGIS asks the server for the rectangle
    # instead of filtering a cache.
    b = cfg["bboxes"][coll]
    bl = layer(coll)
    req = QgsFeatureRequest().setFilterRect(QgsRectangle(b[0], b[1], b[2], b[3]))
    r["bbox_ids"] = ids(bl.getFeatures(req))
    cols[coll] = r
out["collections"] = cols

# A page size above the server's maximum, as a user may type it into the
# connection dialogue.
big = {}
coll = cfg["big_collection"]
before = len(requests_so_far())
lyr = layer(coll, cfg["big_page"])
big["valid"] = lyr.isValid()
if lyr.isValid():
    big["ids"] = ids(lyr.getFeatures())
big["requests"] = requests_so_far()[before:]
out["big_page"] = big

# The XYZ hillshade, rendered the way the map canvas renders it.
xyz = QgsRasterLayer(
    "type=xyz&url=%s&zmin=%d&zmax=%d" % (cfg["xyz"], cfg["zmin"], cfg["zmax"]),
    "hillshade",
    "wms",
)
hs = {"valid": xyz.isValid()}
if xyz.isValid():
    QgsProject.instance().addMapLayer(xyz)
    ms = QgsMapSettings()
    ms.setLayers([xyz])
    merc = QgsCoordinateReferenceSystem("EPSG:3857")
    ms.setDestinationCrs(merc)
    e = cfg["extent"]
    tr = QgsCoordinateTransform(QgsCoordinateReferenceSystem("OGC:CRS84"), merc, QgsProject.instance())
    ms.setExtent(tr.transformBoundingBox(QgsRectangle(e[0], e[1], e[2], e[3])))
    ms.setOutputSize(QSize(256, 256))
    ms.setBackgroundColor(QColor(255, 0, 255))
    job = QgsMapRendererParallelJob(ms)
    job.start()
    job.waitForFinished()
    img = job.renderedImage()
    img.save(cfg["png"])
    colours = {}
    for y in range(0, img.height(), 4):
        for x in range(0, img.width(), 4):
            c = img.pixel(x, y) & 0xFFFFFF
            colours[c] = colours.get(c, 0) + 1
    hs["distinct_colours"] = len([c for c in colours if c != 0xFF00FF])
    hs["background_share"] = colours.get(0xFF00FF, 0) / sum(colours.values())
    hs["errors"] = [str(e) for e in job.errors()]
else:
    hs["error"] = xyz.error().summary()
out["hillshade"] = hs

print(json.dumps(out))
sys.stdout.flush()
# exitQgis can crash at teardown on some builds; the answer is written.
os._exit(0)
