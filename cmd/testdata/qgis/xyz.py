# Renders an XYZ raster layer with QGIS itself (PyQGIS, headless), the way
# the map canvas renders it, for TestOfflineHillshadeInQGIS
# (cmd/pmtiles_interop_test.go). It only observes: it writes the image and
# reports what QGIS made of the layer as JSON on stdout.
#
# argv[1]: JSON {"xyz": XYZ URL template, "zmin", "zmax",
#   "extent": [CRS84 box to render], "png": where to write the image}
import json
import os
import sys

from qgis.core import (
    Qgis,
    QgsApplication,
    QgsCoordinateReferenceSystem,
    QgsCoordinateTransform,
    QgsMapRendererParallelJob,
    QgsMapSettings,
    QgsProject,
    QgsRasterLayer,
    QgsRectangle,
)
from qgis.PyQt.QtCore import QSize
from qgis.PyQt.QtGui import QColor

cfg = json.loads(sys.argv[1])
app = QgsApplication([], False)
app.initQgis()
out = {"qgis": Qgis.QGIS_VERSION}
xyz = QgsRasterLayer(
    "type=xyz&url=%s&zmin=%d&zmax=%d" % (cfg["xyz"], cfg["zmin"], cfg["zmax"]),
    "xyz",
    "wms",
)
out["valid"] = xyz.isValid()
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
    out["errors"] = [str(e) for e in job.errors()]
else:
    out["error"] = xyz.error().summary()
print(json.dumps(out))
sys.stdout.flush()
# exitQgis can crash at teardown on some builds; the answer is written.
os._exit(0)
