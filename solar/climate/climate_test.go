package climate

import (
	"bytes"
	"errors"
	"flag"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/svc-geodata/svc/solar"
)

var update = flag.Bool("update", false, "rewrite the small samples in testdata/")

// samples are the small committed files (the first two days of each month)
// that seed the fuzz targets; -update rewrites them.
var samples = []struct {
	file string
	make func(s []time.Time, irr []solar.Irradiance) string
}{
	{"tmy_potsdam.csv", func(s []time.Time, irr []solar.Irradiance) string { return pvgisCSV(s, irr, 0.1761) }},
	{"tmy_potsdam_v52.csv", func(s []time.Time, irr []solar.Irradiance) string { return pvgisCSV(s, irr, 0) }},
	{"tmy_potsdam.json", func(s []time.Time, irr []solar.Irradiance) string { return pvgisJSONDoc(s, irr, 0.1761) }},
	{"potsdam.epw", epwDoc},
}

func TestSamples(t *testing.T) {
	starts, irr := hourly(t, 1)
	for _, s := range samples {
		p := filepath.Join("testdata", s.file)
		want := s.make(starts, irr)
		if *update {
			if err := os.WriteFile(p, []byte(want), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatalf("%v (run go test -run TestSamples -update)", err)
		}
		if string(b) != want {
			t.Errorf("%s differs from what the writer makes now (go test -run TestSamples -update)", p)
		}
		ser, err := Read(bytes.NewReader(b))
		if err != nil {
			t.Fatalf("%s: %v", p, err)
		}
		if len(ser.Records) != len(starts) {
			t.Errorf("%s: %d records, want %d", p, len(ser.Records), len(starts))
		}
		if _, err := Read(bytes.NewReader(seed(b))); err != nil {
			t.Errorf("fuzz seed of %s: %v", p, err)
		}
	}
}

// TestRoundTrip writes a full TMY in each format and reads it back: every
// record at the right instant with its three values, the site, the source.
func TestRoundTrip(t *testing.T) {
	t.Parallel()
	starts, irr := hourly(t, 0)
	for _, c := range []struct {
		name       string
		doc        string
		read       func(r *strings.Reader) (*Series, error)
		format     Format
		shift      time.Duration // record time minus hour start
		wantSource string
	}{
		{"PVGIS CSV 5.3 with offset", pvgisCSV(starts, irr, 0.1761), func(r *strings.Reader) (*Series, error) { return ReadPVGISCSV(r) }, PVGISCSV, time.Duration(math.Round(0.1761 * float64(time.Hour))), "PVGIS TMY"},
		{"PVGIS CSV 5.2 without offset", pvgisCSV(starts, irr, 0), func(r *strings.Reader) (*Series, error) { return ReadPVGISCSV(r) }, PVGISCSV, 0, "PVGIS TMY"},
		{"PVGIS JSON", pvgisJSONDoc(starts, irr, 0.5), func(r *strings.Reader) (*Series, error) { return ReadPVGISJSON(r) }, PVGISJSON, 30 * time.Minute, "PVGIS TMY, PVGIS-SARAH3 / ERA5, 2005-2023"},
		{"EPW", epwDoc(starts, irr), func(r *strings.Reader) (*Series, error) { return ReadEPW(r) }, EPW, 30 * time.Minute, "EPW: Potsdam, DEU, SRC-TMYx"},
		{"sniffed EPW", epwDoc(starts, irr), func(r *strings.Reader) (*Series, error) { return Read(r) }, EPW, 30 * time.Minute, "EPW: Potsdam, DEU, SRC-TMYx"},
		{"sniffed JSON", pvgisJSONDoc(starts, irr, 0.5), func(r *strings.Reader) (*Series, error) { return Read(r) }, PVGISJSON, 30 * time.Minute, "PVGIS TMY, PVGIS-SARAH3 / ERA5, 2005-2023"},
	} {
		t.Run(c.name, func(t *testing.T) {
			s, err := c.read(strings.NewReader(c.doc))
			if err != nil {
				t.Fatal(err)
			}
			if s.Format != c.format || s.Source != c.wantSource || s.StepH != 1 || s.FirstYear != 2005 || s.LastYear != 2011 {
				t.Errorf("format %s source %q step %g years %d-%d", s.Format, s.Source, s.StepH, s.FirstYear, s.LastYear)
			}
			if d := s.Site; d.LatDeg != 52.381 || d.LonDeg != 13.064 || d.ElevationM != 81 {
				t.Errorf("site %+v", d)
			}
			if len(s.Records) != len(starts) {
				t.Fatalf("%d records, want %d", len(s.Records), len(starts))
			}
			for i, r := range s.Records {
				if want := starts[i].Add(c.shift); !r.Time.Equal(want) || r.Irradiance != irr[i] {
					t.Fatalf("record %d: %s %+v, want %s %+v", i, r.Time.UTC(), r.Irradiance, want, irr[i])
				}
			}
		})
	}
}

func TestReadErrors(t *testing.T) {
	t.Parallel()
	starts, irr := hourly(t, 1)
	csv := pvgisCSV(starts, irr, 0.1761)
	epw := epwDoc(starts, irr)
	js := pvgisJSONDoc(starts, irr, 0.1761)
	for _, c := range []struct{ name, doc, want string }{
		{"empty", "", "not a PVGIS"},
		{"HTML error page", "<html><body>502</body></html>", "not a PVGIS"},
		{"CSV latitude not a number", strings.Replace(csv, "52.381", "north", 1), "line 1"},
		{"CSV latitude 95", strings.Replace(csv, "52.381", "95.000", 1), "out of range"},
		{"CSV header lacks G(h)", strings.Replace(csv, "G(h)", "GHI", 1), "lacks"},
		{"CSV NaN irradiance", strings.Replace(csv, ",8.5,75.2,0.0,", ",8.5,75.2,NaN,", 1), "irradiance"},
		{"CSV W/m² as kW/m²", strings.Replace(csv, ",8.5,75.2,0.0,", ",8.5,75.2,2500.0,", 1), "want 0..2000"},
		{"CSV short row", strings.Replace(csv, ",101000.0\r\n", "\r\n", 1), "fields"},
		{"CSV bad stamp", strings.Replace(csv, "20060101:0000", "2006-01-01 00:00", 1), "YYYYMMDD"},
		{"CSV duplicate hour", strings.Replace(csv, "20060101:0100", "20060101:0000", 1), "two records"},
		{"CSV offset 3 h", strings.Replace(csv, "0.1761", "3.0", 1), "offset"},
		{"CSV no rows", csv[:strings.Index(csv, "20060101:0000")], "no records"},
		{"JSON truncated", js[:len(js)/2], "PVGIS JSON"},
		{"JSON without location", strings.Replace(js, `"latitude"`, `"lat"`, 1), "lacks latitude"},
		{"JSON row without G(h)", strings.Replace(js, `"G(h)":0,`, ``, 1), "lacks"},
		{"JSON irradiance as string", strings.Replace(js, `"G(h)":0,`, `"G(h)":"0",`, 1), "not a number"},
		{"EPW missing GHI 9999", strings.Replace(epw, ",300,0.0,0.0,0.0,", ",300,9999,0.0,0.0,", 1), "9999"},
		{"EPW sub-hourly", strings.Replace(epw, "DATA PERIODS,1,1,", "DATA PERIODS,1,4,", 1), "hourly"},
		{"EPW hour 25", strings.Replace(epw, "2006,1,1,2,0,", "2006,1,1,25,0,", 1), "hour 25"},
		{"EPW February 30", strings.Replace(epw, "2006,1,1,2,0,", "2006,2,30,2,0,", 1), "2006-2-30"},
		{"EPW time zone 20", strings.Replace(epw, ",13.064,1.0,", ",13.064,20.0,", 1), "time zone"},
		{"EPW header only", strings.Join(strings.SplitN(epw, "\n", 9)[:8], "\n"), "no records"},
		{"EPW short header", "LOCATION,a,b,c,d,e,52,13,1,81\nDESIGN CONDITIONS,0\n", "header ends early"},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := Read(strings.NewReader(c.doc))
			if !errors.Is(err, ErrFormat) || !strings.Contains(err.Error(), c.want) {
				t.Errorf("error %v, want ErrFormat mentioning %q", err, c.want)
			}
		})
	}
}

// FuzzRead: no input panics, allocates beyond the limits, or yields a
// series package solar would reject.
func FuzzRead(f *testing.F) {
	for _, s := range samples {
		b, err := os.ReadFile(filepath.Join("testdata", s.file))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(seed(b))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		s, err := Read(bytes.NewReader(b))
		if err != nil {
			if !errors.Is(err, ErrFormat) {
				t.Fatalf("error %v is not ErrFormat", err)
			}
			return
		}
		if len(s.Records) == 0 || len(s.Records) > MaxRecords {
			t.Fatalf("%d records", len(s.Records))
		}
		if _, err := solar.NewSky(t.Context(), s.Records[:min(len(s.Records), 48)], solar.SkyOptions{Site: s.Site, SPA: solar.DefaultSPAOptions(), StepH: s.StepH, Albedo: 0.2}); err != nil {
			t.Fatalf("parsed series rejected by solar.NewSky: %v", err)
		}
	})
}

// seed shortens a sample to its first 40 lines (JSON: its first rows, closed
// again): the fuzzer mutates small inputs far faster than 40-60 KB ones.
func seed(b []byte) []byte {
	if bytes.HasPrefix(b, []byte("{")) {
		if i := bytes.Index(b, []byte(`},{"G(h)"`)); i > 0 {
			for n := 0; n < 20 && i > 0; n++ {
				j := bytes.Index(b[i+2:], []byte(`},{"G(h)"`))
				if j < 0 {
					break
				}
				i += 2 + j
			}
			return append(append([]byte{}, b[:i+1]...), []byte("]}}")...)
		}
		return b
	}
	lines := bytes.SplitAfter(b, []byte("\n"))
	return bytes.Join(lines[:min(len(lines), 40)], nil)
}

// TestNothingLost: the ground-reflected part of a wall is albedo/2 x the
// ΣGHI the Sky counts, so that plus what it reports as dropped (light in
// records whose instant has the sun below the horizon) is the file's ΣGHI,
// in every format; the PVGIS file with its 10.6 min offset moves some
// sunrise hours below the horizon, so something is dropped there.
func TestNothingLost(t *testing.T) {
	t.Parallel()
	starts, irr := hourly(t, 0)
	var ghi float64
	for _, x := range irr {
		ghi += x.GHI
	}
	for _, c := range []struct {
		name, doc   string
		wantDropped bool
	}{
		{"PVGIS CSV offset 0.1761 h", pvgisCSV(starts, irr, 0.1761), true},
		{"PVGIS JSON offset 0.5 h", pvgisJSONDoc(starts, irr, 0.5), false},
		{"EPW", epwDoc(starts, irr), false},
	} {
		t.Run(c.name, func(t *testing.T) {
			s, err := Read(strings.NewReader(c.doc))
			if err != nil {
				t.Fatal(err)
			}
			sky, err := solar.NewSky(t.Context(), s.Records, solar.SkyOptions{Site: s.Site, SPA: solar.DefaultSPAOptions(), Model: solar.HayDavies, StepH: s.StepH, Albedo: 0.2})
			if err != nil {
				t.Fatal(err)
			}
			var r solar.Result
			if err := sky.Irradiation(solar.Facet{TiltDeg: 90, SkyView: 1}, nil, &r); err != nil {
				t.Fatal(err)
			}
			got, dropped := r.Annual().Ground/(0.2*0.5), sky.DroppedGHIWhM2()
			t.Logf("counted %.1f + dropped %.1f = %.1f kWh/m², ΣGHI %.1f", got/1000, dropped/1000, (got+dropped)/1000, ghi/1000)
			if math.Abs(got+dropped-ghi) > 1e-5*ghi || (dropped > 0) != c.wantDropped {
				t.Errorf("counted %.1f + dropped %.1f Wh/m², ΣGHI %.1f", got, dropped, ghi)
			}
		})
	}
}
