package cmd

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"net/url"
	"path/filepath"
	"testing"
	"time"

	"github.com/svc-geodata/svc/internal/testtool"
)

// cesiumStyleReport is what cmd/testdata/cesium/style.html reports.
type cesiumStyleReport struct {
	Done        bool
	Errors      []string
	HasSchema   bool
	PropertyIDs []string `json:"propertyIds"`
	Features    []map[string]any
	Threshold   float64
	Fn          string
	Pixels      map[string]map[string]int
}

// TestBuildingAttributesInCesium imports the real NRW LoD2 sample (CityGML
// with AdV function and roof type codes), builds its tileset, serves it and
// judges in CesiumJS (headless Chromium) what a person styling the
// buildings by attribute sees:
//   - every feature's properties function, roof_type, height_m, ground_z_m,
//     ridge_z_m, storeys, municipality_key ... read with
//     Cesium3DTileFeature.getProperty equal what
//     /v1/buildings/{gmlid}/attributes answers for that gml:id (heights to
//     the API's millimetre), and the tileset declares the schema;
//   - unstyled, no building pixel is red or lime; a Cesium3DTileStyle
//     colouring by height_m (red above the median, lime at or below, blue
//     where undefined) turns many pixels red and many lime and almost none
//     blue; one colouring by function (magenta for the most common code,
//     cyan for the others) turns pixels magenta.
func TestBuildingAttributesInCesium(t *testing.T) {
	chromium := testtool.Require(t, "chromium", "apt-get install chromium")
	testtool.Node(t, "cesium")
	cesiumDir := filepath.Join(testtool.NodeModules(t), "cesium", "Build", "Cesium")
	nrw := testtool.Shared(t, "samples/real/LoD2_32_280_5659_1_NW.gml")
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	data := t.TempDir()
	for _, c := range [][]string{
		{"import", "lod2", "--data", data, "--bl", "nrw", "--snapshot", "2026-01-01", "--license", "dl-de-zero-2.0", nrw},
		{"build", "tileset", "--data", data, "--bl", "nrw"},
	} {
		if out, err := run(ctx, c...); err != nil {
			t.Fatalf("%v: %v\n%s", c, err, out)
		}
	}
	base := serveInBackground(t, data)
	var list struct {
		Tilesets []struct {
			TilesetURL string `json:"tileset_url"`
		} `json:"tilesets"`
	}
	getJSON(t, base+"/v1/tilesets?bbox=5.8,50.3,9.5,52.6", &list)
	if len(list.Tilesets) != 1 {
		t.Fatalf("%d tilesets listed", len(list.Tilesets))
	}
	page := newCesiumPage(t, cesiumDir)
	body := page.loadPage(ctx, t, chromium, page.URL+"/style.html?buildings="+url.QueryEscape(list.Tilesets[0].TilesetURL))
	var rep cesiumStyleReport
	if err := json.Unmarshal(body, &rep); err != nil || !rep.Done {
		t.Fatalf("page report %.500s: %v", body, err)
	}
	t.Logf("%d features, threshold %.2f m, function %q, property ids %q, pixels %v", len(rep.Features), rep.Threshold, rep.Fn, rep.PropertyIDs, rep.Pixels)
	if len(rep.Errors) > 0 {
		t.Errorf("page errors: %q", rep.Errors)
	}
	if !rep.HasSchema {
		t.Error("the tileset declares no metadata schema")
	}
	if len(rep.Features) < 10 {
		t.Fatalf("Cesium read %d features", len(rep.Features))
	}
	compared := map[string]int{}
	for _, f := range rep.Features {
		gmlid, _ := f["gmlid"].(string)
		type owner struct {
			Function []struct {
				Code string `json:"code"`
			} `json:"function"`
			RoofType *struct {
				Code string `json:"code"`
			} `json:"roof_type"`
			Storeys         *float64 `json:"storeys"`
			MunicipalityKey *string  `json:"municipality_key"`
			CreationDate    *string  `json:"creation_date"`
		}
		var a struct {
			Building owner          `json:"building"`
			Parts    []owner        `json:"parts"`
			Measures map[string]any `json:"measures"`
		}
		getJSON(t, base+"/v1/buildings/"+url.PathEscape(gmlid)+"/attributes", &a)
		// The building's own value, else its first part's that has one
		// (docs/3d-tiles.md: a building of parts often carries them only on
		// its parts).
		want := map[string]any{}
		for _, o := range append([]owner{a.Building}, a.Parts...) {
			if _, ok := want["function"]; !ok && len(o.Function) > 0 {
				want["function"] = o.Function[0].Code
			}
			if _, ok := want["roof_type"]; !ok && o.RoofType != nil {
				want["roof_type"] = o.RoofType.Code
			}
			if _, ok := want["storeys"]; !ok && o.Storeys != nil {
				want["storeys"] = *o.Storeys
			}
			if _, ok := want["municipality_key"]; !ok && o.MunicipalityKey != nil {
				want["municipality_key"] = *o.MunicipalityKey
			}
			if _, ok := want["creation_date"]; !ok && o.CreationDate != nil {
				want["creation_date"] = *o.CreationDate
			}
		}
		for _, k := range []string{"height_m", "ground_z_m", "ridge_z_m", "eaves_z_m", "footprint_area_m2", "roof_area_m2"} {
			if v, ok := a.Measures[k].(float64); ok {
				want[k] = v
			}
		}
		for k, w := range want {
			got, ok := f[k]
			if !ok || got == nil {
				t.Errorf("%s: Cesium has no %s, the API has %v", gmlid, k, w)
				continue
			}
			compared[k]++
			if wf, isNum := w.(float64); isNum {
				if gf, _ := got.(float64); math.Abs(gf-wf) > 0.0006 {
					t.Errorf("%s: Cesium %s = %v, the API %v", gmlid, k, got, w)
				}
			} else if fmt.Sprint(got) != fmt.Sprint(w) {
				t.Errorf("%s: Cesium %s = %v, the API %v", gmlid, k, got, w)
			}
		}
		for _, k := range []string{"function", "roof_type", "storeys", "height_m"} {
			if _, has := want[k]; !has && f[k] != nil {
				t.Errorf("%s: Cesium %s = %v, the API has none", gmlid, k, f[k])
			}
		}
	}
	t.Logf("properties compared: %v", compared)
	if compared["function"] == 0 || compared["height_m"] == 0 || compared["roof_type"] == 0 {
		t.Errorf("the sample gave too few values to compare: %v", compared)
	}
	plain, height, fn := rep.Pixels["plain"], rep.Pixels["height"], rep.Pixels["function"]
	const many = 300
	if plain["red"]+plain["green"] > 50 {
		t.Errorf("unstyled view already has %d red and %d lime pixels", plain["red"], plain["green"])
	}
	if height["red"] < many || height["green"] < many {
		t.Errorf("styled by height_m: %d red and %d lime pixels, want >= %d each", height["red"], height["green"], many)
	}
	if height["blue"] > height["red"]/10 {
		t.Errorf("styled by height_m: %d blue pixels (height_m undefined)", height["blue"])
	}
	if fn["magenta"] < many {
		t.Errorf("styled by function %q: %d magenta pixels, want >= %d", rep.Fn, fn["magenta"], many)
	}
}
