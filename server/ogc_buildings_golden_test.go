package server

import (
	"bytes"
	"compress/gzip"
	"fmt"
	"net/http/httptest"
	"os"
	"path/filepath"
	"testing"
)

// wholeGoldenPaths are answers of the buildings collection in its default
// (footprint) profile, over the real NRW and Berlin samples: a page in
// CRS84, one in UTM, a filtered page and one building. The 3D profile
// (issue 25 point 2) must leave them byte for byte as they were.
var wholeGoldenPaths = []string{
	"/ogc/collections/buildings/items?limit=12",
	"/ogc/collections/buildings/items?limit=5&crs=http://www.opengis.net/def/crs/EPSG/0/25832&sortby=-height_m",
	"/ogc/collections/buildings/items?limit=4&filter=roof_type%3D%271000%27&properties=gmlid,roof_type,height_m",
	"/ogc/collections/buildings/items/DENW43AL00002f8o",
	"/ogc/collections/buildings/items/DENW43AL00002f8o?crs=http://www.opengis.net/def/crs/EPSG/0/25832",
}

// TestOGCBuildingsFootprintGolden compares the status, headers that
// describe the body and the body of each wholeGoldenPaths answer with
// testdata/ogc_buildings.golden.gz, written by the code before the 3D
// profile. Run `go test ./server -run OGCBuildingsFootprintGolden -update`
// only after an intended change of the answers.
func TestOGCBuildingsFootprintGolden(t *testing.T) {
	h := wholeServer(t)
	var got bytes.Buffer
	for _, p := range wholeGoldenPaths {
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, httptest.NewRequest("GET", p, nil))
		body := ogcTimeStamp.ReplaceAll(rec.Body.Bytes(), []byte(`"timeStamp":"-"`))
		fmt.Fprintf(&got, "=== GET %s\n%d %s %s %d\n", p, rec.Code, rec.Header().Get("Content-Type"), rec.Header().Get("Content-Crs"), len(body))
		got.Write(body)
		got.WriteByte('\n')
	}
	path := filepath.Join("testdata", "ogc_buildings.golden.gz")
	if *update {
		var z bytes.Buffer
		zw, _ := gzip.NewWriterLevel(&z, gzip.BestCompression)
		zw.Write(got.Bytes())
		if err := zw.Close(); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, z.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want := readGzip(t, path)
	if bytes.Equal(got.Bytes(), want) {
		return
	}
	g, w := got.Bytes(), want
	i := 0
	for i < len(g) && i < len(w) && g[i] == w[i] {
		i++
	}
	lo := max(0, i-120)
	t.Fatalf("answers differ from %s at byte %d (got %d bytes, want %d):\n got: …%s\nwant: …%s\n(run with -update after an intended change)",
		path, i, len(g), len(w), g[lo:min(len(g), i+80)], w[lo:min(len(w), i+80)])
}
