package buildings

import (
	"bytes"
	"encoding/json"
	"errors"
	"testing"

	"github.com/svc-geodata/svc/geo"
	"github.com/svc-geodata/svc/lod2store"
)

func TestFormWrite(t *testing.T) {
	h := lod2store.FedHit{BL: "he", Hit: lod2store.Hit{SurfaceID: 7, BuildingID: 3, GMLID: `DEHE"1`, Class: lod2store.ClassRoof,
		Coords: []byte(`[[[[8.67,50.11,100],[8.68,50.11,100],[8.68,50.12,105],[8.67,50.11,100]]]]`)}}
	az := 181.5
	f := Feature{FedHit: h, Roof: Summarize([]lod2store.Facet{{TiltDeg: 3, AreaM2: 1.004}, {TiltDeg: 30, AzimuthDeg: &az, AreaM2: 20.001}})}
	src := lod2store.Source{BL: "he", Pack: "lod2/he/2026-07-20"}
	for _, c := range []struct {
		form *Form
		crs  geo.CRS
		want string
	}{
		{SearchSurface, geo.CRS84, `{"type":"Feature","id":"DEHE\"1","geometry":{"type":"MultiPolygon","coordinates":` + string(h.Coords) +
			`},"properties":{"surface_id":7,"building_id":3,"gmlid":"DEHE\"1","surface_class":712,"bundesland":"he","lod":"LoD2"}}`},
		{OGCRoof, geo.CRS84, `{"type":"Feature","id":"he.7","geometry":{"type":"MultiPolygon","coordinates":` + string(h.Coords) +
			`},"properties":{"gmlid":"DEHE\"1","bundesland":"he","area_m2":21.01,"facets":2,"tilt_deg":30,"azimuth_deg":181.5}}`},
	} {
		var b bytes.Buffer
		if err := c.form.Write(&b, &f, c.crs); err != nil || b.String() != c.want {
			t.Errorf("%v\n got %s\nwant %s", err, b.String(), c.want)
		}
		if !json.Valid(b.Bytes()) {
			t.Errorf("invalid JSON: %s", b.String())
		}
	}
	// A projected CRS converts the coordinates: metres, 3 decimals.
	var b bytes.Buffer
	if err := OGCSurface.Write(&b, &f, geo.CRS{EPSG: 25832}); err != nil {
		t.Fatal(err)
	}
	var got struct {
		Geometry struct{ Coordinates [][][][]float64 }
	}
	if err := json.Unmarshal(b.Bytes(), &got); err != nil {
		t.Fatal(err)
	}
	if p := got.Geometry.Coordinates[0][0][0]; p[0] < 400000 || p[0] > 600000 || p[1] < 5500000 || p[2] != 100 {
		t.Errorf("EPSG:25832 position %v", p)
	}
	// Stored coordinates that do not decode are damage (of the source's
	// pack, once Damaged names it), not an empty geometry.
	f.Coords = []byte(`{{{{8.67,50.11,100]]]]`)
	b.Reset()
	err := Damaged(src, OGCSurface.Write(&b, &f, geo.CRS{EPSG: 25832}))
	var d *lod2store.DamagedError
	if !errors.Is(err, lod2store.ErrCorrupt) || !errors.As(err, &d) || d.Pack != "lod2/he/2026-07-20" {
		t.Errorf("damaged coordinates: %v", err)
	}
}

func TestSummarizeWithoutFacets(t *testing.T) {
	if s := Summarize(nil); s.AreaM2 != 0 || s.Facets != 0 || s.TiltDeg != nil || s.AzimuthDeg != nil {
		t.Errorf("%+v", s)
	}
}
