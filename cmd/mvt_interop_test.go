package cmd

import (
	"encoding/json"
	"fmt"
	"io"
	"math"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/svc-geodata/svc/adv"
	"github.com/svc-geodata/svc/internal/testtool"
)

// TestBuildingVectorTilesMatchGDAL fetches building vector tiles of the
// demo pack from `svc serve` and reads them with GDAL's MVT driver, in both
// UTM zones. The judge is independent of svc's code: GDAL/PROJ reproject
// the footprints straight from the pack's SpatiaLite file (ground surfaces,
// roof surfaces where the building has no ground) to EPSG:3857 and clip
// them to the tile grown by its buffer (ogr2ogr -clipdst, GEOS). The tile
// must hold exactly the buildings that clip leaves, with the pack's
// gml:id, height, ground and roof heights, and every vertex of either
// geometry must lie within one tile unit of the other's outline.
func TestBuildingVectorTilesMatchGDAL(t *testing.T) {
	ogr2ogr := testtool.Require(t, "ogr2ogr", "apt-get install gdal-bin")
	demo := demoData(t)
	demoBase := serveData(t, demo)
	// The real samples carry function, roof type and storeys (the demo's
	// generated buildings do not): the attribute comparison needs them.
	real := wholeSamples(t)
	realBase := serveData(t, real)
	for _, tc := range []struct {
		name     string
		real     bool
		bl, pack string
		blNum    float64 // the BL's place in the feature id (docs/vector-tiles.md)
		lon, lat float64
		z        int
	}{
		{"he z16 with roofs (EPSG:25832)", false, "he", "he/2026-07-20", 6, 8.67815, 50.11295, 16},
		{"be z15 (EPSG:25833)", false, "be", "be/2026-07-20", 2, 13.4050, 52.5205, 15},
		{"nrw z12", false, "nrw", "nrw/2026-07-16", 10, 6.9583, 50.9413, 12},
		{"real NRW sample z15", true, "nrw", "", 10, 5.86851, 51.04504, 15},
		{"real Berlin sample z15", true, "be", "", 2, 13.40172, 52.49683, 15},
	} {
		t.Run(tc.name, func(t *testing.T) {
			data, base := demo, demoBase
			if tc.real {
				data, base = real, realBase
				packs, _ := filepath.Glob(filepath.Join(real, "lod2", tc.bl, "*", "lod2.sqlite"))
				if len(packs) != 1 {
					t.Fatalf("packs of %s: %v", tc.bl, packs)
				}
				tc.pack, _ = filepath.Rel(filepath.Join(real, "lod2"), filepath.Dir(packs[0]))
			}
			n := 1 << tc.z
			x := int((tc.lon + 180) / 360 * float64(n))
			lr := tc.lat * math.Pi / 180
			y := int((1 - math.Log(math.Tan(lr)+1/math.Cos(lr))/math.Pi) / 2 * float64(n))
			dir := t.TempDir()
			tile := filepath.Join(dir, "tile.mvt")
			resp, err := http.Get(fmt.Sprintf("%s/v1/buildings/tiles/%d/%d/%d.mvt", base, tc.z, x, y))
			if err != nil {
				t.Fatal(err)
			}
			body, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if resp.StatusCode != 200 || resp.Header.Get("Content-Type") != "application/vnd.mapbox-vector-tile" {
				t.Fatalf("%d %s %.200s", resp.StatusCode, resp.Header.Get("Content-Type"), body)
			}
			os.WriteFile(tile, body, 0o644)
			ours := filepath.Join(dir, "ours.json")
			toolOut(t, ogr2ogr, "-f", "GeoJSON", ours, tile, "-oo", fmt.Sprint("X=", x), "-oo", fmt.Sprint("Y=", y), "-oo", fmt.Sprint("Z=", tc.z), "-oo", "CLIP=NO", "buildings")
			// The tile grown by its 64-unit buffer, in EPSG:3857 metres.
			const r = 6378137.0
			size := 2 * math.Pi * r / float64(n)
			unit, buf := size/4096, size*64/4096
			minX, maxY := float64(x)*size-math.Pi*r, math.Pi*r-float64(y)*size
			judge := filepath.Join(dir, "judge.json")
			toolOut(t, ogr2ogr, "-f", "GeoJSON", "-t_srs", "EPSG:3857", "-clipdst",
				fmt.Sprint(minX-buf), fmt.Sprint(maxY-size-buf), fmt.Sprint(minX+size+buf), fmt.Sprint(maxY+buf),
				judge, filepath.Join(data, "lod2", tc.pack, "lod2.sqlite"), "-sql",
				// function, roof type, storeys: the building's own, else
				// its first part's (docs/vector-tiles.md).
				`SELECT s.building_id, a.gmlid, a.height_m, a.ground_z, a.ridge_z,
 (SELECT p.function FROM building_attrs p WHERE p.building_id = a.building_id AND p.function <> '' ORDER BY p.part LIMIT 1) AS function,
 (SELECT p.roof_type FROM building_attrs p WHERE p.building_id = a.building_id AND p.roof_type <> '' ORDER BY p.part LIMIT 1) AS roof_type,
 (SELECT p.storeys FROM building_attrs p WHERE p.building_id = a.building_id AND p.storeys > 0 ORDER BY p.part LIMIT 1) AS storeys,
 s.geom FROM surfaces s
 JOIN building_attrs a ON a.building_id = s.building_id AND a.part = 0
 WHERE s.surface_class = CASE a.footprint_source WHEN 'roof' THEN 712 ELSE 710 END`)
			got, want := readFeatures(t, ours), readFeatures(t, judge)
			if len(want) == 0 || len(got) != len(want) {
				t.Fatalf("tile %d/%d/%d: %d buildings, GDAL's clip of the pack %d", tc.z, x, y, len(got), len(want))
			}
			withFunction, labelled := 0, 0
			defer func() {
				if tc.bl == "nrw" && tc.real && labelled == 0 {
					t.Errorf("no building of the NRW sample's tile carries an AdV function label")
				}
				if tc.real && withFunction == 0 {
					t.Errorf("no building of the tile carries a function: the attribute comparison judged nothing")
				}
			}()
			for id, w := range want {
				g, ok := got[id]
				if !ok {
					t.Fatalf("building %v of the pack is not in the tile", id)
				}
				for _, k := range [][2]string{{"gmlid", "gmlid"}, {"height_m", "height_m"}, {"ground_m", "ground_z"}, {"roof_max_m", "ridge_z"},
					{"function", "function"}, {"roof_type", "roof_type"}, {"storeys", "storeys"}} {
					if fmt.Sprint(g.props[k[0]]) != fmt.Sprint(w.props[k[1]]) {
						t.Errorf("building %v: %s %v, pack %s %v", id, k[0], g.props[k[0]], k[1], w.props[k[1]])
					}
				}
				if f, ok := g.props["function"].(string); ok {
					withFunction++
					// Berlin writes codes of its own list that the AdV
					// lists do not hold: no label there.
					if e, known := adv.BuildingFunction(f); known && g.props["function_label"] != e.De {
						t.Errorf("building %v: function %v labelled %v, AdV %q", id, f, g.props["function_label"], e.De)
					} else if known {
						labelled++
					}
				}
				if g.props["bl"] != tc.bl {
					t.Errorf("building %v: bl %v", id, g.props["bl"])
				}
				if bid, _ := id.(float64); g.props["mvt_id"] != tc.blNum*(1<<32)+bid {
					t.Errorf("building %v: feature id %v", id, g.props["mvt_id"])
				}
				// The real Berlin ground surfaces are multipolygons of up
				// to 31 adjacent parts; GDAL's clip (GEOS overlay) merges
				// them, so the parts' shared inner edges, which the tile
				// keeps, are no outline there: only GDAL's outline
				// vertices are judged against the tile for them.
				if d := farthest(g.rings, w.rings); d > unit && !tc.real {
					t.Errorf("building %v: a tile vertex lies %.3f m from the footprint (one tile unit %.3f m)", id, d, unit)
				}
				if d := farthest(w.rings, g.rings); d > unit {
					t.Errorf("building %v: a footprint vertex lies %.3f m from the tile's polygon (one tile unit %.3f m)", id, d, unit)
				}
			}
			if tc.z >= 16 {
				// Roofs: the roof surfaces GDAL's clip leaves, each facet
				// of them a feature with the surface's id.
				roofs, roofJudge := filepath.Join(dir, "roofs.json"), filepath.Join(dir, "roofjudge.json")
				toolOut(t, ogr2ogr, "-f", "GeoJSON", roofs, tile, "-oo", fmt.Sprint("X=", x), "-oo", fmt.Sprint("Y=", y), "-oo", fmt.Sprint("Z=", tc.z), "-oo", "CLIP=NO", "roofs")
				toolOut(t, ogr2ogr, "-f", "GeoJSON", "-t_srs", "EPSG:3857", "-clipdst",
					fmt.Sprint(minX-buf), fmt.Sprint(maxY-size-buf), fmt.Sprint(minX+size+buf), fmt.Sprint(maxY+buf),
					roofJudge, filepath.Join(data, "lod2", tc.pack, "lod2.sqlite"), "-sql",
					`SELECT surface_id, building_id, geom FROM surfaces WHERE surface_class = 712`)
				gotRoofs, wantRoofs := surfaceIDs(t, roofs), surfaceIDs(t, roofJudge)
				if len(wantRoofs) == 0 || fmt.Sprint(gotRoofs) != fmt.Sprint(wantRoofs) {
					t.Errorf("roof surfaces in the tile %v, GDAL's clip %v", gotRoofs, wantRoofs)
				}
			}
			t.Logf("tile %d/%d/%d: %d buildings, %d bytes", tc.z, x, y, len(got), len(body))
		})
	}
}

// ogrFeature is one building of a GeoJSON file: its properties and every
// ring of its (multi)polygons, in the file's CRS.
type ogrFeature struct {
	props map[string]any
	rings [][][2]float64
}

// readFeatures reads a GeoJSON FeatureCollection, merging the features of
// one building_id.
func readFeatures(t *testing.T, path string) map[any]*ogrFeature {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var fc struct {
		Features []struct {
			Properties map[string]any
			Geometry   struct {
				Type        string
				Coordinates json.RawMessage
			}
		}
	}
	if err := json.Unmarshal(b, &fc); err != nil {
		t.Fatal(err)
	}
	out := map[any]*ogrFeature{}
	for _, f := range fc.Features {
		id := f.Properties["building_id"]
		o := out[id]
		if o == nil {
			o = &ogrFeature{props: f.Properties}
			out[id] = o
		}
		var polys [][][][]float64
		switch f.Geometry.Type {
		case "Polygon":
			var p [][][]float64
			json.Unmarshal(f.Geometry.Coordinates, &p)
			polys = append(polys, p)
		case "MultiPolygon":
			json.Unmarshal(f.Geometry.Coordinates, &polys)
		default:
			t.Fatalf("%s: building %v is a %s", path, id, f.Geometry.Type)
		}
		for _, p := range polys {
			for _, ring := range p {
				var rr [][2]float64
				for _, c := range ring {
					rr = append(rr, [2]float64{c[0], c[1]})
				}
				o.rings = append(o.rings, rr)
			}
		}
	}
	return out
}

// surfaceIDs are the distinct surface_id properties of a GeoJSON file,
// ascending.
func surfaceIDs(t *testing.T, path string) []int64 {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var fc struct {
		Features []struct {
			Properties struct {
				SurfaceID int64 `json:"surface_id"`
			}
		}
	}
	if err := json.Unmarshal(b, &fc); err != nil {
		t.Fatal(err)
	}
	seen := map[int64]bool{}
	var out []int64
	for _, f := range fc.Features {
		if !seen[f.Properties.SurfaceID] {
			seen[f.Properties.SurfaceID] = true
			out = append(out, f.Properties.SurfaceID)
		}
	}
	slices.Sort(out)
	return out
}

// farthest is the largest distance from a vertex of a to the outline of b.
func farthest(a, b [][][2]float64) float64 {
	worst := 0.0
	for _, ra := range a {
		for _, p := range ra {
			best := math.Inf(1)
			for _, rb := range b {
				for i := range rb {
					best = math.Min(best, segDist(p, rb[i], rb[(i+1)%len(rb)]))
				}
			}
			worst = math.Max(worst, best)
		}
	}
	return worst
}

func segDist(p, a, b [2]float64) float64 {
	dx, dy := b[0]-a[0], b[1]-a[1]
	t := 0.0
	if l := dx*dx + dy*dy; l > 0 {
		t = math.Max(0, math.Min(1, ((p[0]-a[0])*dx+(p[1]-a[1])*dy)/l))
	}
	return math.Hypot(p[0]-a[0]-t*dx, p[1]-a[1]-t*dy)
}
