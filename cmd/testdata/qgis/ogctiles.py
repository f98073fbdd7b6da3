# Opens the OGC API buildings of `svc serve` in QGIS (PyQGIS, headless), in
# the two ways a QGIS 3.22 user can, for TestOGCTilesWithQGIS
# (cmd/ogc_tiles_qgis_test.go). It only observes and reports JSON on stdout.
#
#  - "tiles": QGIS's own vector tile layer on the OGC tileset's item
#    template ({tileMatrix}/{tileRow}/{tileCol} as {z}/{y}/{x}), rendered
#    over the box: a renderer that draws nothing records, per tile QGIS
#    fetched and decoded, the features of each MVT layer with the fields
#    the labeling asks for (QGIS decodes only the fields a renderer or the
#    labeling uses; 3.22 gives Python no other way to read a tile).
#  - "gdal": the OGR provider on `OGCAPI:<collection>` (GDAL's OGCAPI
#    driver, no open option), features in the box.
#
# argv[1]: JSON {"template", "zmin", "zmax", "collection", "box": CRS84
#   [w, s, e, n], "fields": {layer: [field, ...]}}
import json
import os
import sys

from qgis.core import (
    Qgis,
    QgsApplication,
    QgsCoordinateReferenceSystem,
    QgsCoordinateTransform,
    QgsFeatureRequest,
    QgsMapRendererSequentialJob,
    QgsMapSettings,
    QgsPalLayerSettings,
    QgsProject,
    QgsRectangle,
    QgsVectorLayer,
    QgsVectorTileBasicLabeling,
    QgsVectorTileBasicLabelingStyle,
    QgsVectorTileLayer,
    QgsVectorTileRenderer,
    QgsWkbTypes,
)
from qgis.PyQt.QtCore import QSize

cfg = json.loads(sys.argv[1])
app = QgsApplication([], False)
app.initQgis()
out = {"qgis": Qgis.QGIS_VERSION}
w, s, e, n = cfg["box"]
crs84 = QgsCoordinateReferenceSystem("OGC:CRS84")
merc = QgsCoordinateReferenceSystem("EPSG:3857")


def plain(v):
    # QVariant NULL and Qt types to JSON.
    if v is None or (hasattr(v, "isNull") and v.isNull()):
        return None
    return v


seen = {}  # layer -> {tile: [[field values...]]}


class Record(QgsVectorTileRenderer):
    def type(self):
        return "record"

    def clone(self):
        return Record()

    def startRender(self, ctx, zoom, tile_range):
        pass

    def stopRender(self, ctx):
        pass

    def requiredLayers(self, ctx, zoom):
        return set(cfg["fields"])

    def renderTile(self, tile, ctx):
        t = tile.id()
        key = "%d/%d/%d" % (t.zoomLevel(), t.column(), t.row())
        for layer in tile.layers():
            rows = seen.setdefault(layer, {}).setdefault(key, [])
            for f in tile.layerFeatures(layer):
                rows.append({name: plain(f.attribute(name)) for name in f.fields().names()})

    def writeXml(self, el, ctx):
        pass

    def readXml(self, el, ctx):
        pass


vt = QgsVectorTileLayer("type=xyz&url=%s&zmin=%d&zmax=%d" % (cfg["template"], cfg["zmin"], cfg["zmax"]), "tiles")
tiles = {"valid": vt.isValid()}
if vt.isValid():
    renderer = Record()
    vt.setRenderer(renderer)
    labeling = QgsVectorTileBasicLabeling()
    styles = []
    for layer, names in cfg["fields"].items():
        for name in names:
            st = QgsVectorTileBasicLabelingStyle()
            st.setLayerName(layer)
            st.setGeometryType(QgsWkbTypes.PolygonGeometry)
            pal = QgsPalLayerSettings()
            pal.fieldName = name
            st.setLabelSettings(pal)
            st.setEnabled(True)
            styles.append(st)
    labeling.setStyles(styles)
    vt.setLabeling(labeling)
    QgsProject.instance().addMapLayer(vt)
    ms = QgsMapSettings()
    ms.setLayers([vt])
    ms.setDestinationCrs(merc)
    tr = QgsCoordinateTransform(crs84, merc, QgsProject.instance())
    ms.setExtent(tr.transformBoundingBox(QgsRectangle(w, s, e, n)))
    ms.setOutputSize(QSize(cfg.get("width", 512), cfg.get("height", 256)))
    job = QgsMapRendererSequentialJob(ms)
    job.start()
    job.waitForFinished()
    tiles["errors"] = [str(x.message) for x in job.errors()]
    tiles["layers"] = seen
else:
    # QgsMapLayer.error() of an invalid layer crashes QGIS 3.22 (seen on the
    # OGR provider): say only that it is invalid.
    tiles["error"] = "invalid layer"
out["tiles"] = tiles

ogr = QgsVectorLayer(cfg["collection"], "gdal", "ogr")
gdal = {"valid": ogr.isValid()}
if ogr.isValid():
    gdal["name"] = ogr.dataProvider().subLayers()[0].split("!!::!!")[1] if ogr.dataProvider().subLayers() else ""
    gdal["fields"] = ogr.fields().names()
    tr = QgsCoordinateTransform(crs84, ogr.crs(), QgsProject.instance())
    req = QgsFeatureRequest().setFilterRect(tr.transformBoundingBox(QgsRectangle(w, s, e, n)))
    gdal["features"] = [
        {name: plain(f.attribute(name)) for name in ("gmlid", "height_m", "ground_z_m")} for f in ogr.getFeatures(req)
    ]
else:
    gdal["error"] = "invalid layer"
out["gdal"] = gdal
print(json.dumps(out))
sys.stdout.flush()
# exitQgis can crash at teardown on some builds; the answer is written.
os._exit(0)
