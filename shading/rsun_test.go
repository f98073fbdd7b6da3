//go:build unix

package shading

import (
	"context"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/svc-geodata/svc/geo"
	"github.com/svc-geodata/svc/internal/scalegen"
	"github.com/svc-geodata/svc/internal/testtool"
	"github.com/svc-geodata/svc/raster"
	"github.com/svc-geodata/svc/solar"
	"github.com/svc-geodata/svc/terrain"
)

// The r.sun window: 500 x 500 m at 2 m of scalegen's fractal relief (seed
// 0) exaggerated 8 x around its mean, in the judged DGM's area; the Linke
// turbidity of both clear skies.
const (
	rsunMinX, rsunMaxY = 604750.0, 5605250.0
	rsunPx             = 2.0
	rsunN              = 250
	rsunLinke          = 3.0
)

// rsunPoints are cell centres of the window on gentle ground (local slope
// below 0.2) whose southern horizon rises 7-16°, so the terrain takes part
// of a winter day's beam.
var rsunPoints = [][2]float64{{604903, 5605145}, {605143, 5605049}, {604903, 5605097}, {605095, 5605097}}

// rsunPlanes are the judged planes: horizontal and 30° toward the south.
var rsunPlanes = []struct{ tiltDeg, azDeg float64 }{{0, 180}, {30, 180}}

// TestTerrainShadingAgainstRSun: the terrain's shadow on a plane through a
// day, ours against GRASS r.sun's own shadowing (mode 2: daily sums, 0.1 h
// step, ray-traced over the elevation map, Linke 3; one GRASS session, ~30
// s of CPU). The DGM is a 500 x
// 500 m window at 2 m of scalegen's fractal relief (seed 0) exaggerated 8 x
// (170 m of relief, a steep valley), as a real terrain pack on our side;
// four points (each on a flat lot of 10 m) with southern horizons of 7-16°, a
// horizontal plane and one tilted 30° south, on the winter solstice and an
// equinox. Ours: TerrainHorizon (72 rays, 750 m) and Evaluate with the
// terrain alone over a sky of 6-minute clear-sky records of the day.
// Judged, per point, plane and day:
//   - the hours of direct sun on the plane (r.sun's insol_time against the
//     steps with the sun in front of the plane and above our horizon):
//     within 0.3 h (three steps);
//   - the share of the day's beam the terrain takes, each against its own
//     unshaded beam (r.sun -p), our records carrying r.sun's ESRA clear-sky
//     beam (daySky): within 3 percentage points.
//
// r.sun's horizon maps (horizon_basename, from r.horizon's raster mode) are
// not used: GRASS 8.2.1 r.sun read r.horizon's maps of the same release in
// another orientation here (a point whose horizon rises 25° to the north
// and is open to the south came out shaded all day), while its own ray
// tracing agrees with ours.
func TestTerrainShadingAgainstRSun(t *testing.T) {
	testtool.Require(t, "grass", "apt-get install grass-core")
	ctx := context.Background()
	t0 := time.Now()
	data := make([]float32, rsunN*rsunN)
	scalegen.Relief{}.Terrain(data, rsunMinX, rsunMaxY, rsunPx, rsunN, rsunN)
	mean := 0.0
	for _, v := range data {
		mean += float64(v) / float64(len(data))
	}
	for i, v := range data {
		data[i] = float32(math.Round((mean+8*(float64(v)-mean))*100) / 100)
	}
	// A flat lot of 10 m around each point (as TestHorizonAgainstGRASS's):
	// a roof stands above the ground around it, and at ground level the
	// first pixels would be sampled differently (r.sun marches from the
	// cell's centre, we sample at half a pixel), which is not the shading
	// a roof sees.
	for _, p := range rsunPoints {
		pc, pr := int((p[0]-rsunMinX)/rsunPx), int((rsunMaxY-p[1])/rsunPx)
		z := data[pr*rsunN+pc]
		for r := pr - 5; r <= pr+5; r++ {
			for c := pc - 5; c <= pc+5; c++ {
				if (r-pr)*(r-pr)+(c-pc)*(c-pc) <= 25 {
					data[r*rsunN+c] = z
				}
			}
		}
	}
	nd := terrain.Nodata
	g := raster.Grid{Width: rsunN, Height: rsunN, Data: data, EPSG: 25832, Nodata: &nd,
		GeoTransform: [6]float64{rsunMinX, rsunPx, 0, rsunMaxY, 0, -rsunPx}}
	tif := filepath.Join(t.TempDir(), "dem.tif")
	writeCOG(t, tif, g)
	run := grassSession(t, tif)
	days := []int{355, 80}
	// One GRASS session for every r.sun run: shaded (its ray tracing) and
	// unshaded (-p) per day and plane, then one r.what over all maps.
	var script strings.Builder
	var maps []string
	for _, day := range days {
		for pi, pl := range rsunPlanes {
			// GRASS 8.2.1 r.sun takes aspect_value as the compass azimuth
			// (180 south, 90 east: checked on a flat plane, a 30° plane at
			// 180 gets 3.0 x the horizontal's winter beam, at 90 the morning
			// sun), whatever its help text says.
			common := fmt.Sprintf("elevation=dem day=%d step=0.1 linke_value=%g slope_value=%g aspect_value=%g nprocs=2 --quiet --overwrite", day, rsunLinke, pl.tiltDeg, pl.azDeg)
			fmt.Fprintf(&script, "r.sun %s beam_rad=b%d_%d insol_time=i%d_%d\n", common, day, pi, day, pi)
			fmt.Fprintf(&script, "r.sun -p %s beam_rad=o%d_%d\n", common, day, pi)
			maps = append(maps, fmt.Sprintf("b%d_%d", day, pi), fmt.Sprintf("i%d_%d", day, pi), fmt.Sprintf("o%d_%d", day, pi))
		}
	}
	var coords []string
	for _, p := range rsunPoints {
		coords = append(coords, fmt.Sprintf("%.1f,%.1f", p[0], p[1]))
	}
	fmt.Fprintf(&script, "r.what map=%s coordinates=%s\n", strings.Join(maps, ","), strings.Join(coords, ","))
	sh := filepath.Join(t.TempDir(), "rsun.sh")
	if err := os.WriteFile(sh, []byte(script.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	grass := rWhatTable(t, run("bash", sh), len(rsunPoints), maps)
	tGRASS := time.Since(t0)

	dgm, err := NewLayerHeights(dgmPack(t, []raster.Grid{g}).Layer(terrain.LayerDGM))
	if err != nil {
		t.Fatal(err)
	}
	lon, lat := geo.FromUTM(32, 605000, 5605000)
	site := solar.Site{LatDeg: lat, LonDeg: lon, ElevationM: mean}
	worstShare, worstHours, shadedCases := 0.0, 0.0, 0
	for _, day := range days {
		sky := daySky(t, site, day)
		for k, p := range rsunPoints {
			col, row := int((p[0]-rsunMinX)/rsunPx), int((rsunMaxY-p[1])/rsunPx)
			z := float64(data[row*rsunN+col])
			conv := GridConvergenceDeg(32, p[0], p[1])
			hs, err := TerrainHorizon(ctx, dgm, p[0], p[1], []float64{z}, conv, TerrainOptions{MaxDistM: 750})
			if err != nil {
				t.Fatal(err)
			}
			// A 360-ray horizon, logged: how much of a difference in the
			// hours of sun is the 5° spacing of the rays.
			fine, err := TerrainHorizon(ctx, dgm, p[0], p[1], []float64{z}, conv, TerrainOptions{Rays: 360, MaxDistM: 750})
			if err != nil {
				t.Fatal(err)
			}
			sun := NewSun(sky, conv)
			for pi, pl := range rsunPlanes {
				f := smallFacet(p[0], p[1], z, pl.tiltDeg, pl.azDeg)
				res, err := Evaluate(ctx, sky, sun, f, Obstacles{Terrain: &TerrainView{Z: []float64{z}, H: hs}, ConvDeg: conv}, FacetOptions{MaxPoints: 1})
				if err != nil {
					t.Fatal(err)
				}
				hours := 0.0
				for _, v := range res.VisTerrain {
					hours += float64(v) * sky.StepH()
				}
				resFine, err := Evaluate(ctx, sky, sun, f, Obstacles{Terrain: &TerrainView{Z: []float64{z}, H: fine}, ConvDeg: conv}, FacetOptions{MaxPoints: 1})
				if err != nil {
					t.Fatal(err)
				}
				hoursFine := 0.0
				for _, v := range resFine.VisTerrain {
					hoursFine += float64(v) * sky.StepH()
				}
				a := res.Terrain.Annual()
				ours := 1 - a.Beam/a.BeamUnshaded
				gb, gi, gOpen := grass[k][fmt.Sprintf("b%d_%d", day, pi)], grass[k][fmt.Sprintf("i%d_%d", day, pi)], grass[k][fmt.Sprintf("o%d_%d", day, pi)]
				theirs := 1 - gb/gOpen
				if theirs > 0.02 {
					shadedCases++
				}
				worstShare = math.Max(worstShare, math.Abs(ours-theirs))
				worstHours = math.Max(worstHours, math.Abs(hours-gi))
				t.Logf("day %d, %.0f, %.0f, tilt %g: sun %.2f h (360 rays %.2f h, r.sun %.2f h); terrain takes %.1f %% of %.0f Wh/m² (r.sun %.1f %% of %.0f)",
					day, p[0], p[1], pl.tiltDeg, hours, hoursFine, gi, 100*ours, a.BeamUnshaded, 100*theirs, gOpen)
				if math.Abs(hours-gi) > 0.3 || math.Abs(ours-theirs) > 0.03 {
					t.Errorf("day %d, point %.0f, %.0f, tilt %g: %.2f h of sun and %.1f %% of the beam taken, r.sun %.2f h and %.1f %%",
						day, p[0], p[1], pl.tiltDeg, hours, 100*ours, gi, 100*theirs)
				}
			}
		}
	}
	if shadedCases < 4 {
		t.Errorf("r.sun shades only %d of the cases: the window judges nothing", shadedCases)
	}
	var ru syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_CHILDREN, &ru)
	t.Logf("worst: %.2f h of sun, %.2f percentage points of the beam; GRASS %.1f s wall, %.1f s CPU; all %.1f s",
		worstHours, 100*worstShare, tGRASS.Seconds(), time.Duration(ru.Utime.Nano()+ru.Stime.Nano()).Seconds(), time.Since(t0).Seconds())
}

// smallFacet is a 1 x 1 m plane at x, y of the tilt and true azimuth,
// through height z there.
func smallFacet(x, y, z, tiltDeg, azDeg float64) Facet {
	b, a := tiltDeg*math.Pi/180, azDeg*math.Pi/180
	gx, gy := math.Tan(b)*math.Sin(a), math.Tan(b)*math.Cos(a) // the plane falls toward its azimuth
	var ring []float64
	for _, c := range [4][2]float64{{-0.5, -0.5}, {0.5, -0.5}, {0.5, 0.5}, {-0.5, 0.5}} {
		ring = append(ring, x+c[0], y+c[1], z-gx*c[0]-gy*c[1])
	}
	return Facet{Ring: ring, TiltDeg: tiltDeg, AzimuthDeg: azDeg}
}

// daySky is a Sky of clear-sky records every 6 minutes of day-of-year day
// of 2025 whose beam is r.sun's: the ESRA clear-sky beam (Rigollier, Bauer
// and Wald 2000, Solar Energy 68(1) 33-48, eqs. 9-13 as r.sun computes
// it) with Linke turbidity rsunLinke at the site's height, so both sides
// weight the hours of a day alike and the comparison judges the shadow,
// not the clear-sky model. The diffuse part is left out (beam only).
func daySky(t *testing.T, site solar.Site, day int) *solar.Sky {
	t.Helper()
	spa := solar.DefaultSPAOptions()
	start := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC).AddDate(0, 0, day-1)
	var recs []solar.Record
	for tm := start.Add(3 * time.Minute); tm.Before(start.Add(24 * time.Hour)); tm = tm.Add(6 * time.Minute) {
		pos := solar.SunPosition(tm, site, spa)
		h0 := (90 - pos.ZenithDeg) * math.Pi / 180
		if h0 <= 0 {
			recs = append(recs, solar.Record{Time: tm})
			continue
		}
		// Refraction-corrected elevation, relative optical air mass at the
		// site's pressure, Rayleigh optical thickness (Kasten 1996).
		h0ref := h0 + 0.061359*(0.1594+1.123*h0+0.065656*h0*h0)/(1+28.9344*h0+277.3971*h0*h0)
		m := math.Exp(-site.ElevationM/8434.5) / (math.Sin(h0ref) + 0.50572*math.Pow(h0ref*180/math.Pi+6.07995, -1.6364))
		var dR float64
		if m <= 20 {
			dR = 1 / (6.6296 + 1.7513*m - 0.1202*m*m + 0.0065*m*m*m - 0.00013*m*m*m*m)
		} else {
			dR = 1 / (10.4 + 0.718*m)
		}
		dni := solar.Extraterrestrial(tm) * math.Exp(-0.8662*rsunLinke*m*dR)
		recs = append(recs, solar.Record{Time: tm, Irradiance: solar.Irradiance{DNI: dni, GHI: dni * math.Sin(h0)}})
	}
	sky, err := solar.NewSky(context.Background(), recs, solar.SkyOptions{Site: site, SPA: spa, Model: solar.Perez, StepH: 0.1, Albedo: 0.2})
	if err != nil {
		t.Fatal(err)
	}
	return sky
}

// rWhatTable reads r.what's output for n points and the maps
// ("x|y|label|v1|v2..." lines, in the order of the coordinates).
func rWhatTable(t *testing.T, out string, n int, maps []string) []map[string]float64 {
	t.Helper()
	var rows []map[string]float64
	for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
		f := strings.Split(strings.TrimSpace(line), "|")
		if len(f) != 3+len(maps) {
			continue // GRASS's session messages
		}
		row := map[string]float64{}
		for i, m := range maps {
			v, err := strconv.ParseFloat(f[3+i], 64)
			if err != nil {
				t.Fatalf("r.what: %q: %v", line, err)
			}
			row[m] = v
		}
		rows = append(rows, row)
	}
	if len(rows) != n {
		t.Fatalf("r.what gave %d rows for %d points:\n%s", len(rows), n, out)
	}
	return rows
}
