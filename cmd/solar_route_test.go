package cmd

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/svc-geodata/svc/importer"
	"github.com/svc-geodata/svc/internal/fixture"
	"github.com/svc-geodata/svc/internal/testtool"
	"github.com/svc-geodata/svc/lod2store"
	"github.com/svc-geodata/svc/pack"
	"github.com/svc-geodata/svc/raster"
	"github.com/svc-geodata/svc/solar"
)

// nrwSample imports the real NRW LoD2 tile and returns the data directory
// and the gml:ids of its buildings, in file order.
func nrwSample(t *testing.T) (data string, ids []string) {
	t.Helper()
	gml := testtool.Shared(t, "samples/real/LoD2_32_280_5659_1_NW.gml")
	data = t.TempDir()
	if _, err := importer.LoD2(context.Background(), importer.Common{DataDir: data, BL: "nrw", Snapshot: "2026-07-20",
		LicenseID: "dl-de-zero-2.0"}, []string{gml}); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(gml)
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range regexp.MustCompile(`<bldg:Building gml:id="([^"]+)"`).FindAllSubmatch(b, -1) {
		ids = append(ids, string(m[1]))
	}
	if len(ids) == 0 {
		t.Fatal("no buildings in the sample")
	}
	return data, ids
}

// tmyCSV writes a PVGIS TMY CSV (the layout of PVGIS 5.3, as
// solar/climate's tests construct it) for site: a clear-sky year (Linke
// turbidity by month) dimmed by a seeded cloud factor per hour, each month
// stamped with another year as in a TMY.
func tmyCSV(t *testing.T, site solar.Site) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "tmy_nrw.csv")
	if err := os.WriteFile(p, []byte(tmyDoc(site)), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// tmyDoc is the text of tmyCSV.
func tmyDoc(site solar.Site) string {
	rng := rand.New(rand.NewPCG(27, 5))
	linke := [12]float64{3, 3.2, 3.6, 4, 4.2, 4.3, 4.5, 4.4, 4, 3.6, 3.2, 3}
	spa := solar.DefaultSPAOptions()
	var b strings.Builder
	fmt.Fprintf(&b, "Latitude (decimal degrees): %.3f\r\nLongitude (decimal degrees): %.3f\r\nElevation (m): %.1f\r\n", site.LatDeg, site.LonDeg, site.ElevationM)
	b.WriteString("Irradiance Time Offset (h): 0.1761\r\nmonth,year\r\n")
	for m := 1; m <= 12; m++ {
		fmt.Fprintf(&b, "%d,%d\r\n", m, 2005+m%7)
	}
	b.WriteString("time(UTC),T2m,RH,G(h),Gb(n),Gd(h),IR(h),WS10m,WD10m,SP\r\n")
	r2 := func(v float64) float64 { return math.Round(v*100) / 100 }
	for m := time.January; m <= time.December; m++ {
		cs := solar.ClearSky{LinkeTurbidity: linke[m-1], AltitudeM: site.ElevationM}
		for h := time.Date(2005+int(m)%7, m, 1, 0, 0, 0, 0, time.UTC); h.Month() == m; h = h.Add(time.Hour) {
			if m == time.February && h.Day() == 29 {
				continue
			}
			at := h.Add(10*time.Minute + 34*time.Second) // the stated offset, 0.1761 h
			c := cs.At(solar.SunPosition(at, site, spa).ApparentZenithDeg, solar.Extraterrestrial(at))
			k := rng.Float64()
			fmt.Fprintf(&b, "%s,8.5,75.2,%.2f,%.2f,%.2f,300.1,3.2,240.0,101000.0\r\n", h.Format("20060102:1504"),
				r2(c.GHI*(0.3+0.7*k)), r2(c.DNI*k), r2(c.DHI*(1+(1-k)*0.8)))
		}
	}
	b.WriteString("\r\nG(h): Global irradiance on the horizontal plane (W/m2)\r\n\r\nPVGIS (c) European Union, 2001-2024\r\n")
	return b.String()
}

type solarAnswer struct {
	GMLID  string `json:"gmlid"`
	Facets []struct {
		Index       int         `json:"index"`
		TiltDeg     float64     `json:"tilt_deg"`
		AzimuthDeg  *float64    `json:"azimuth_deg"`
		AreaM2      float64     `json:"area_m2"`
		PlaneAreaM2 float64     `json:"plane_area_m2"`
		AnnualKWhM2 float64     `json:"annual_kwh_m2"`
		Monthly     [12]float64 `json:"monthly_kwh_m2"`
		YieldKWh    float64     `json:"yield_kwh"`
		Share       float64     `json:"share_of_best"`
		Unshaded    float64     `json:"unshaded_annual_kwh_m2"`
		Loss        *struct {
			Terrain, Buildings, Trees float64
		} `json:"loss_kwh_m2"`
		Class string `json:"class"`
	} `json:"facets"`
	Total struct {
		YieldKWh float64 `json:"yield_kwh"`
	} `json:"total"`
	Model   string `json:"model"`
	Shading string `json:"shading"`
	Climate struct {
		File, Format, Source string
		LatDeg               float64 `json:"latitude"`
	} `json:"climate"`
}

func getStatusJSON(t testing.TB, url string, want int, v any) {
	t.Helper()
	res, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	if res.StatusCode != want {
		t.Fatalf("GET %s: %d, want %d", url, res.StatusCode, want)
	}
	if err := json.NewDecoder(res.Body).Decode(v); err != nil {
		t.Fatalf("GET %s: %v", url, err)
	}
}

// TestServeIrradianceBadFile: a climate file the reader rejects stops
// `svc serve` with the reader's message; a missing file too.
func TestServeIrradianceBadFile(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.csv")
	if err := os.WriteFile(bad, []byte("Latitude (decimal degrees): 51\r\nLongitude (decimal degrees): 6\r\nElevation (m): 60\r\nmonth,year\r\n1,2005\r\ntime(UTC),T2m,RH,G(h),Gb(n),Gd(h)\r\n20050101:0000,1,2,abc,0,0\r\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{bad, filepath.Join(dir, "missing.csv")} {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		_, err := run(ctx, "serve", "--data", t.TempDir(), "--addr", freeAddr(t), "--log-level", "warn", "--quiet", "--irradiance", f)
		cancel()
		if err == nil || !strings.Contains(err.Error(), "--irradiance") || !strings.Contains(err.Error(), filepath.Base(f)) {
			t.Fatalf("serve --irradiance %s: %v, want the file's error", f, err)
		}
		if f == bad && !strings.Contains(err.Error(), "climate:") {
			t.Fatalf("serve --irradiance %s: %v, want the reader's message", f, err)
		}
	}
}

// TestSolarRoute: on the real NRW sample, with a PVGIS TMY CSV constructed
// for the tile's location, every roof facet's annual irradiation equals
// pvlib's get_total_irradiance (Perez, albedo 0.2) on the same file for the
// facet's tilt and azimuth within 1 %, monthly values add up to it, the
// yield is annual x plane area, north-facing facets get less than
// south-facing ones of the same building, and an unknown gmlid is 404.
func TestSolarRoute(t *testing.T) {
	py, pvlib := testtool.PythonPvlib(t)
	data, ids := nrwSample(t)
	base := serveData(t, data) // default climate (TestSolarRouteDefaultClimate)
	// The tile's location from the first building's roof.
	var roof struct {
		Features []struct {
			Geometry struct{ Coordinates [][][3]float64 }
		}
	}
	for _, id := range ids {
		getStatusJSON(t, base+"/v1/buildings/"+id+"/roof", 200, &roof)
		if len(roof.Features) > 0 {
			break
		}
	}
	p := roof.Features[0].Geometry.Coordinates[0][0]
	site := solar.Site{LatDeg: math.Round(p[1]*1000) / 1000, LonDeg: math.Round(p[0]*1000) / 1000, ElevationM: 60}
	tmy := tmyCSV(t, site)
	sampleDGM(t, data)
	base = serveData(t, data, "--irradiance", tmy)
	var shadedFacets int
	var buildingLoss float64

	var all []solarAnswer
	planes := map[string]bool{}
	var planeList [][2]float64
	for _, id := range ids {
		var a solarAnswer
		getStatusJSON(t, base+"/v1/buildings/"+id+"/solar", 200, &a)
		if a.Climate.File != "tmy_nrw.csv" || a.Climate.Format != "pvgis-tmy-csv" || a.Climate.LatDeg != site.LatDeg || !strings.Contains(a.Model, "Perez") {
			t.Fatalf("%s: climate %+v, model %q", id, a.Climate, a.Model)
		}
		if len(a.Facets) > 0 && a.Shading != "terrain, buildings" {
			t.Fatalf("%s: shading %q, want terrain and buildings evaluated", id, a.Shading)
		}
		var total float64
		for _, f := range a.Facets {
			if f.Loss == nil {
				t.Fatalf("%s facet %d: no loss", id, f.Index)
			}
			l := *f.Loss
			if l.Terrain < 0 || l.Buildings < 0 || l.Trees < 0 || f.AnnualKWhM2 > f.Unshaded {
				t.Errorf("%s facet %d: losses %+v, annual %.2f of %.2f unshaded", id, f.Index, l, f.AnnualKWhM2, f.Unshaded)
			}
			if d := f.Unshaded - l.Terrain - l.Buildings - l.Trees - f.AnnualKWhM2; math.Abs(d) > 0.05 {
				t.Errorf("%s facet %d: unshaded %.2f - losses %+v != annual %.2f", id, f.Index, f.Unshaded, l, f.AnnualKWhM2)
			}
			shadedFacets++
			buildingLoss += l.Buildings
			az := 180.0
			if f.AzimuthDeg != nil {
				az = *f.AzimuthDeg
			}
			k := fmt.Sprintf("%g %g", f.TiltDeg, az)
			if !planes[k] {
				planes[k] = true
				planeList = append(planeList, [2]float64{f.TiltDeg, az})
			}
			var sum float64
			for _, m := range f.Monthly {
				sum += m
			}
			if math.Abs(sum-f.AnnualKWhM2) > 0.07 {
				t.Errorf("%s facet %d: months add up to %.2f, annual %.2f", id, f.Index, sum, f.AnnualKWhM2)
			}
			if math.Abs(f.YieldKWh-f.AnnualKWhM2*f.PlaneAreaM2) > 0.01*f.YieldKWh+0.1 {
				t.Errorf("%s facet %d: yield %.2f, annual %.2f x plane area %.2f", id, f.Index, f.YieldKWh, f.AnnualKWhM2, f.PlaneAreaM2)
			}
			total += f.YieldKWh
		}
		if math.Abs(total-a.Total.YieldKWh) > 0.01*total+0.1 {
			t.Errorf("%s: total %.2f, facets add up to %.2f", id, a.Total.YieldKWh, total)
		}
		all = append(all, a)
	}
	var nothing struct{ Status int }
	getStatusJSON(t, base+"/v1/buildings/DENW00000000NOPE/solar", 404, &nothing)

	js, _ := json.Marshal(planeList)
	cmd := exec.Command(py, filepath.Join("..", "solar", "climate", "testdata", "pvlib_poa.py"), tmy)
	cmd.Env = append(os.Environ(), "PYTHONPATH="+pvlib, "PVLIB_POA_PLANES="+string(js))
	cmd.Stderr = os.Stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("pvlib_poa.py: %v", err)
	}
	var pv []struct{ Sums map[string]float64 }
	if err := json.Unmarshal(out, &pv); err != nil || len(pv) != 1 {
		t.Fatalf("pvlib_poa.py: %v %s", err, out)
	}
	want := map[string]float64{}
	for key, v := range pv[0].Sums {
		var m string
		var tilt, az float64
		if _, err := fmt.Sscanf(key, "%s %g %g", &m, &tilt, &az); err != nil {
			t.Fatal(err)
		}
		if m == "perez" {
			want[fmt.Sprintf("%g %g", tilt, az)] = v / 1000
		}
	}
	var facets, pairs int
	var worst float64
	for _, a := range all {
		north, south := math.Inf(-1), math.Inf(1)
		for _, f := range a.Facets {
			az := 180.0
			if f.AzimuthDeg != nil {
				az = *f.AzimuthDeg
			}
			w, ok := want[fmt.Sprintf("%g %g", f.TiltDeg, az)]
			if !ok {
				t.Fatalf("pvlib has no sum for tilt %g azimuth %g", f.TiltDeg, az)
			}
			rel := math.Abs(f.Unshaded-w) / w
			worst = math.Max(worst, rel)
			if rel > 0.01 {
				t.Errorf("%s facet %d (tilt %g, azimuth %g): %.2f kWh/m² unshaded, pvlib %.2f (%.2f %%)", a.GMLID, f.Index, f.TiltDeg, az, f.Unshaded, w, 100*rel)
			}
			facets++
			if f.TiltDeg >= 15 && f.AzimuthDeg != nil {
				switch {
				case az >= 135 && az <= 225:
					south = math.Min(south, f.Unshaded)
				case az <= 45 || az >= 315:
					north = math.Max(north, f.Unshaded)
				}
			}
		}
		if !math.IsInf(north, 0) && !math.IsInf(south, 0) {
			pairs++
			if north >= south {
				t.Errorf("%s: a north-facing facet gets %.2f kWh/m², a south-facing one %.2f", a.GMLID, north, south)
			}
		}
	}
	if buildingLoss <= 0 {
		t.Errorf("no facet of %d loses anything to the neighbouring buildings", shadedFacets)
	}
	if pairs == 0 || facets < 10 {
		t.Fatalf("%d facets, %d buildings with north and south facets: the sample does not exercise the route", facets, pairs)
	}
	t.Logf("%d buildings, %d facets (%d planes), %d with north and south facets; worst deviation from pvlib %.4f %%; building loss %.1f kWh/m² over all facets",
		len(all), facets, len(planeList), pairs, 100*worst, buildingLoss)
}

// BenchmarkSolarRoute: GET /v1/buildings/{gmlid}/solar of the real NRW
// tile's building with the most roof facets, through the in-process server
// (HTTP on loopback included), with a constructed PVGIS TMY and a synthetic
// DGM, so shading by terrain and buildings is evaluated. cpu-ms/op is
// the process's user+system CPU per request (getrusage), the figure of
// docs/performance.md: wall time is unreliable on the shared machine.
func BenchmarkSolarRoute(b *testing.B) {
	data := b.TempDir()
	gml := testtool.Shared(b, "samples/real/LoD2_32_280_5659_1_NW.gml")
	if _, err := importer.LoD2(context.Background(), importer.Common{DataDir: data, BL: "nrw", Snapshot: "2026-07-20",
		LicenseID: "dl-de-zero-2.0"}, []string{gml}); err != nil {
		b.Fatal(err)
	}
	sampleDGM(b, data)
	raw, err := os.ReadFile(gml)
	if err != nil {
		b.Fatal(err)
	}
	tmy := filepath.Join(b.TempDir(), "tmy.csv")
	if err := os.WriteFile(tmy, []byte(tmyDoc(solar.Site{LatDeg: 51.06, LonDeg: 5.87, ElevationM: 60})), 0o644); err != nil {
		b.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		b.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		_, err := run(ctx, "serve", "--data", data, "--addr", addr, "--log-level", "warn", "--quiet", "--irradiance", tmy)
		done <- err
	}()
	b.Cleanup(func() { cancel(); <-done })
	base := "http://" + addr
	for i := 0; ; i++ {
		if res, err := http.Get(base + "/healthz"); err == nil {
			res.Body.Close()
			break
		}
		if i == 300 {
			b.Fatal("server did not start")
		}
		time.Sleep(50 * time.Millisecond)
	}
	best, most := "", -1
	for _, m := range regexp.MustCompile(`<bldg:Building gml:id="([^"]+)"`).FindAllSubmatch(raw, -1) {
		var a solarAnswer
		getStatusJSON(b, base+"/v1/buildings/"+string(m[1])+"/solar", 200, &a)
		if len(a.Facets) > most {
			best, most = string(m[1]), len(a.Facets)
		}
	}
	url := base + "/v1/buildings/" + best + "/solar"
	b.ReportAllocs()
	before := cpuTime()
	for b.Loop() {
		res, err := http.Get(url)
		if err != nil {
			b.Fatal(err)
		}
		_, _ = io.Copy(io.Discard, res.Body)
		res.Body.Close()
		if res.StatusCode != 200 {
			b.Fatal(res.Status)
		}
	}
	b.ReportMetric(float64(cpuTime()-before)/float64(time.Millisecond)/float64(b.N), "cpu-ms/op")
	b.ReportMetric(float64(most), "facets")
}

// cpuTime is the process's user + system CPU time so far.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// sampleDGM imports a synthetic 1 m DGM of the NRW sample tile (its ground
// lies at ~35 m; this one undulates between 32 and 35 m) into data.
func sampleDGM(t testing.TB, data string) {
	t.Helper()
	dgmDir := t.TempDir()
	nd := -9999.0
	g := raster.Grid{Width: 1000, Height: 1000, Data: make([]float32, 1000*1000), EPSG: 25832, Nodata: &nd,
		GeoTransform: [6]float64{280000, 1, 0, 5660000, 0, -1}}
	for i := range g.Data {
		x, y := float64(i%1000), float64(i/1000)
		g.Data[i] = float32(33.5 + 1.5*math.Sin(x/97)*math.Cos(y/131))
	}
	var cog bytes.Buffer
	if err := raster.WriteCOG(&cog, g, raster.WriteOptions{}); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dgmDir, "dgm1_32_280_5659_1_nw.tif"), cog.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	if out, err := run(context.Background(), "import", "dgm", "--data", data, "--bl", "nrw", "--snapshot", "2026-07-20",
		"--license", "dl-de-zero-2.0", dgmDir); err != nil {
		t.Fatalf("import dgm: %v\n%s", err, out)
	}
}

// TestSolarRouteNoRoof: a building whose LoD2 has walls and a ground
// surface but no roof answers 200 with an empty facet list, not 404 or 500.
func TestSolarRouteNoRoof(t *testing.T) {
	ctx := context.Background()
	data := t.TempDir()
	w, err := pack.Create(data, pack.Key{Product: pack.LoD2, BL: "he", Snapshot: "2026-07-20"})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Abort()
	lw, err := lod2store.CreateLoD2(ctx, filepath.Join(w.Dir(), "lod2.sqlite"), 25832)
	if err != nil {
		t.Fatal(err)
	}
	var walls []lod2store.SurfaceInput
	for _, s := range fixture.Box(476000, 5550000, 10, 8, 120, 6) {
		if s.Class != lod2store.ClassRoof {
			walls = append(walls, s)
		}
	}
	if err := lw.Add(ctx, lod2store.BuildingInput{GMLID: "DEHE0000NOROOF", Valid: true, Surfaces: walls}); err != nil {
		t.Fatal(err)
	}
	st, err := lw.Finish(ctx, map[string]string{"bl": "he"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := w.Commit(ctx, pack.Manifest{LicenseID: "dl-de-by-2.0", CRS: "EPSG:25832", BBoxWGS84: st.BBoxWGS84[:],
		LoD2: &pack.LoD2Info{File: "lod2.sqlite", BuildingCount: st.Buildings, SurfaceCount: st.Surfaces}}); err != nil {
		t.Fatal(err)
	}
	tmy := tmyCSV(t, solar.Site{LatDeg: 50.1, LonDeg: 8.68, ElevationM: 110})
	base := serveData(t, data, "--irradiance", tmy)
	var a struct {
		Facets  []json.RawMessage `json:"facets"`
		Shading string            `json:"shading"`
	}
	getStatusJSON(t, base+"/v1/buildings/DEHE0000NOROOF/solar", 200, &a)
	if a.Facets == nil || len(a.Facets) != 0 {
		t.Fatalf("facets %v, want an empty list", a.Facets)
	}
}
