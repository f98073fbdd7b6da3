package climate

import (
	"encoding/json"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/svc-geodata/svc/internal/testtool"
	"github.com/svc-geodata/svc/solar"
)

// TestPvlibReaders writes a full TMY in each format, reads it with pvlib's
// readers (read_pvgis_tmy csv/json, read_epw) and with ours, and compares
// site, instants and values row by row: our instant is pvlib's PVGIS stamp
// plus the stated offset, or pvlib's EPW hour start plus 30 minutes.
func TestPvlibReaders(t *testing.T) {
	py, pvlib := testtool.PythonPvlib(t)
	dir := t.TempDir()
	starts, irr := hourly(t, 0)
	files := map[string]string{
		"tmy.csv":     pvgisCSV(starts, irr, 0.1761),
		"tmy_v52.csv": pvgisCSV(starts, irr, 0),
		"tmy.json":    pvgisJSONDoc(starts, irr, 0.5),
		"potsdam.epw": epwDoc(starts, irr),
	}
	var args []string
	for name, doc := range files {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(doc), 0o644); err != nil {
			t.Fatal(err)
		}
		args = append(args, p)
	}
	cmd := exec.Command(py, append([]string{filepath.Join("testdata", "pvlib_read.py")}, args...)...)
	cmd.Env = append(os.Environ(), "PYTHONPATH="+pvlib)
	cmd.Stderr = os.Stderr
	b, err := cmd.Output()
	if err != nil {
		t.Fatalf("pvlib_read.py: %v", err)
	}
	var got []struct {
		File          string
		Site          [3]float64
		Offset        *float64
		Unix          []int64
		GHI, DNI, DHI []float64
	}
	if err := json.Unmarshal(b, &got); err != nil {
		t.Fatal(err)
	}
	for _, pv := range got {
		name := filepath.Base(pv.File)
		t.Run(name, func(t *testing.T) {
			s, err := Read(strings.NewReader(files[name]))
			if err != nil {
				t.Fatal(err)
			}
			if s.Site.LatDeg != pv.Site[0] || s.Site.LonDeg != pv.Site[1] || s.Site.ElevationM != pv.Site[2] {
				t.Errorf("site %+v, pvlib %v", s.Site, pv.Site)
			}
			shift := 30 * time.Minute
			if s.Format != EPW {
				shift = 0
				if pv.Offset != nil {
					shift = time.Duration(math.Round(*pv.Offset * float64(time.Hour)))
				}
			}
			if len(s.Records) != len(pv.Unix) {
				t.Fatalf("%d records, pvlib %d", len(s.Records), len(pv.Unix))
			}
			for i, r := range s.Records {
				want := time.Unix(pv.Unix[i], 0).Add(shift)
				if !r.Time.Equal(want) || r.GHI != pv.GHI[i] || r.DNI != pv.DNI[i] || r.DHI != pv.DHI[i] {
					t.Fatalf("row %d: %s %+v; pvlib %s GHI %g DNI %g DHI %g", i, r.Time.UTC(), r.Irradiance, want.UTC(), pv.GHI[i], pv.DNI[i], pv.DHI[i])
				}
			}
			t.Logf("%s: %d rows agree with pvlib (instant shift %v)", name, len(s.Records), shift)
		})
	}
}

// TestPvlibAnnualPOA: a cloudy TMY in each format, read and transposed by
// package solar, gives the annual plane-of-array irradiation pvlib gives
// for the same file (read_pvgis_tmy/read_epw, get_solarposition,
// get_total_irradiance): within 1 % on five planes and both sky models.
func TestPvlibAnnualPOA(t *testing.T) {
	py, pvlib := testtool.PythonPvlib(t)
	dir := t.TempDir()
	starts, irr := hourly(t, 0)
	files := map[string]string{
		"tmy.csv":     pvgisCSV(starts, irr, 0.1761),
		"tmy.json":    pvgisJSONDoc(starts, irr, 0.5),
		"potsdam.epw": epwDoc(starts, irr),
	}
	var args []string
	for name, doc := range files {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(doc), 0o644); err != nil {
			t.Fatal(err)
		}
		args = append(args, p)
	}
	cmd := exec.Command(py, append([]string{filepath.Join("testdata", "pvlib_poa.py")}, args...)...)
	cmd.Env = append(os.Environ(), "PYTHONPATH="+pvlib)
	cmd.Stderr = os.Stderr
	b, err := cmd.Output()
	if err != nil {
		t.Fatalf("pvlib_poa.py: %v", err)
	}
	var got []struct {
		File string
		GHI  float64
		Sums map[string]float64
	}
	if err := json.Unmarshal(b, &got); err != nil {
		t.Fatal(err)
	}
	for _, pv := range got {
		name := filepath.Base(pv.File)
		s, err := Read(strings.NewReader(files[name]))
		if err != nil {
			t.Fatal(err)
		}
		for key, want := range pv.Sums {
			var model solar.SkyModel
			var tilt, az float64
			var m string
			if _, err := fmt.Sscanf(key, "%s %g %g", &m, &tilt, &az); err != nil {
				t.Fatal(err)
			}
			if m == "haydavies" {
				model = solar.HayDavies
			}
			spa := solar.DefaultSPAOptions()
			spa.PressureHPa = solar.PressureAtAltitude(s.Site.ElevationM) / 100
			sky, err := solar.NewSky(t.Context(), s.Records, solar.SkyOptions{Site: s.Site, SPA: spa, Model: model, StepH: s.StepH, Albedo: 0.2})
			if err != nil {
				t.Fatal(err)
			}
			var r solar.Result
			if err := sky.Irradiation(solar.Facet{TiltDeg: tilt, AzimuthDeg: az, SkyView: 1}, nil, &r); err != nil {
				t.Fatal(err)
			}
			g := r.Annual().Global()
			t.Logf("%s %s: %.2f kWh/m², pvlib %.2f (%+.4f %%)", name, key, g/1000, want/1000, 100*(g-want)/want)
			if math.Abs(g-want) > 0.01*want {
				t.Errorf("%s %s: %.1f Wh/m², pvlib %.1f", name, key, g, want)
			}
		}
	}
}
