#!/usr/bin/python3
"""A reference point-elevation API in Python, for the load comparison of
scripts/load.sh (issue 4: svc must answer over 100 times its rate).

It is what a careful Python service does with Debian's python3-gdal: the
tile index is read once, GDAL datasets stay open (one set per thread, since
GDAL handles are not thread-safe), the point is projected with OSR and one
pixel is read. With OPEN_PER_REQUEST=1 in the environment it opens the tile
for every request instead, as many simple services do.
Usage: python_elevation.py PACK_DIR PORT
"""
import json
import os
import sys
import threading
from http.server import ThreadingHTTPServer, BaseHTTPRequestHandler
from urllib.parse import urlparse, parse_qs

from osgeo import gdal, osr

gdal.UseExceptions()
pack = sys.argv[1]
index = json.load(open(os.path.join(pack, "index.json")))
tiles = index["layers"]["dgm"]
local = threading.local()
per_request = os.environ.get("OPEN_PER_REQUEST") == "1"


def handles():
    if not hasattr(local, "ds"):
        src = osr.SpatialReference()
        src.ImportFromEPSG(4326)
        src.SetAxisMappingStrategy(osr.OAMS_TRADITIONAL_GIS_ORDER)
        dst = osr.SpatialReference()
        dst.ImportFromEPSG(index["epsg"])
        local.tr = osr.CoordinateTransformation(src, dst)
        local.ds = {t["name"]: gdal.Open(os.path.join(pack, t["path"])) for t in tiles}
    return local.tr, local.ds


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *args):
        pass

    def reply(self, status, body):
        data = json.dumps(body).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def do_GET(self):
        q = parse_qs(urlparse(self.path).query)
        try:
            lat, lon = float(q["lat"][0]), float(q["lon"][0])
        except (KeyError, ValueError):
            return self.reply(422, {"detail": "lat and lon are required"})
        tr, ds = handles()
        x, y, _ = tr.TransformPoint(lon, lat)
        for t in tiles:
            b = t["bbox"]
            if b[0] <= x < b[2] and b[1] <= y < b[3]:
                d = ds[t["name"]]
                if per_request:
                    d = gdal.Open(os.path.join(pack, t["path"]))
                gt = d.GetGeoTransform()
                col, row = int((x - gt[0]) / gt[1]), int((y - gt[3]) / gt[5])
                band = d.GetRasterBand(1)
                v = float(band.ReadAsArray(col, row, 1, 1)[0][0])
                if v == band.GetNoDataValue():
                    return self.reply(404, {"detail": "nodata"})
                return self.reply(200, {"elevation_m": round(v, 3), "tile_id": t["name"]})
        return self.reply(404, {"detail": "outside"})


class Server(ThreadingHTTPServer):
    daemon_threads = True

    def handle_error(self, request, client_address):
        pass  # load generators reset connections at the end of a run


Server(("127.0.0.1", int(sys.argv[2])), Handler).serve_forever()
