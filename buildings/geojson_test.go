package buildings

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"strconv"
	"strings"
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

// writeCoordsJSON is the projected writeCoords as it was, through
// encoding/json: the reference the scanning writer must match byte for byte.
func writeCoordsJSON(b *bytes.Buffer, coords []byte, crs geo.CRS) error {
	var mp [][][][]float64
	if err := json.Unmarshal(coords, &mp); err != nil {
		return err
	}
	prec := 8
	if crs.Projected() {
		prec = 3
	}
	b.WriteByte('[')
	for i, poly := range mp {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteByte('[')
		for j, ring := range poly {
			if j > 0 {
				b.WriteByte(',')
			}
			b.WriteByte('[')
			for k, p := range ring {
				if len(p) < 2 {
					return errors.New("short position")
				}
				if k > 0 {
					b.WriteByte(',')
				}
				writePosition(b, p[:min(len(p), 3)], crs, prec)
			}
			b.WriteByte(']')
		}
		b.WriteByte(']')
	}
	b.WriteByte(']')
	return nil
}

func TestWriteCoordsProjected(t *testing.T) {
	rng := rand.New(rand.NewPCG(24, 5))
	inputs := []string{
		`[[[[8.67,50.11,100],[8.68,50.11,100],[8.68,50.12,105],[8.67,50.11,100]]]]`,
		`[[[[8.67181121,50.11094772,79.54],[8.67178536,50.1108644,79.54]],[[8.6718,50.1109,-1.5e-3],[8.6719,50.1110,1E2]]],[[[7.1,51.2],[7.2,51.3,0,9]]]]`,
		` [ [ [ [ 8.67 , 50.11 , 100 ] ] ] ] `,
		`[]`, `[[]]`, `[[[]]]`, `[[],[[]]]`,
	}
	for range 200 { // random MultiPolygons of 1-3 polygons, 1-3 rings, 0-6 positions
		var s strings.Builder
		s.WriteByte('[')
		for p := range 1 + rng.IntN(3) {
			if p > 0 {
				s.WriteByte(',')
			}
			s.WriteByte('[')
			for r := range 1 + rng.IntN(3) {
				if r > 0 {
					s.WriteByte(',')
				}
				s.WriteByte('[')
				for k := range rng.IntN(7) {
					if k > 0 {
						s.WriteByte(',')
					}
					fmt.Fprintf(&s, "[%s,%s,%s]", strconv.FormatFloat(5+rng.Float64()*10, 'f', -1, 64),
						strconv.FormatFloat(47+rng.Float64()*8, 'f', 8, 64), strconv.FormatFloat(rng.NormFloat64()*300, 'g', -1, 64))
				}
				s.WriteByte(']')
			}
			s.WriteByte(']')
		}
		s.WriteByte(']')
		inputs = append(inputs, s.String())
	}
	for _, crs := range []geo.CRS{{EPSG: 25832}, {EPSG: 25833}, {EPSG: 4326}} {
		for _, in := range inputs {
			var got, want bytes.Buffer
			if err := writeCoords(&got, []byte(in), crs); err != nil {
				t.Fatalf("EPSG:%d %s: %v", crs.EPSG, in, err)
			}
			if err := writeCoordsJSON(&want, []byte(in), crs); err != nil {
				t.Fatal(err)
			}
			if got.String() != want.String() {
				t.Fatalf("EPSG:%d %s:\n got %s\nwant %s", crs.EPSG, in, got.String(), want.String())
			}
		}
	}
	// Text that is not MultiPolygon coordinates is damage.
	for _, bad := range []string{``, `[`, `[[[[8.6,50.1]]]`, `[[[[8.6,50.1]]]]]`, `[[[[8.6,50.1]]]] x`, `[[[[8.6]]]]`, `[[[[]]]]`,
		`[[[8.6,50.1]]]`, `[[[[[8.6,50.1]]]]]`, `[[[[8.6,,50.1]]]]`, `[[[[8.6,50.1,]]]]`, `[[[[8.6,50.1]],]]`, `[[[[8.6 50.1]]]]`,
		`[[[[x,50.1]]]]`, `[[[[8.6,1e400]]]]`, `[[[[8.6,50.1]][[8.6,50.1]]]]`, `{{{{8.67,50.11,100]]]]`, `[[[["8.6",50.1]]]]`, `[[[[-,50.1]]]]`} {
		var b bytes.Buffer
		if err := writeCoords(&b, []byte(bad), geo.CRS{EPSG: 25832}); !errors.Is(err, lod2store.ErrCorrupt) {
			t.Errorf("%s: %v, want ErrCorrupt", bad, err)
		}
		if err := writeCoordsJSON(&b, []byte(bad), geo.CRS{EPSG: 25832}); err == nil {
			t.Errorf("%s: the reference accepts it", bad)
		}
	}
}
