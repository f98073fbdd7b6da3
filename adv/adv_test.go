package adv

import (
	"io"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/svc-geodata/svc/citygml"
	"github.com/svc-geodata/svc/internal/testtool"
)

func TestLists(t *testing.T) {
	t.Parallel()
	fs, rs := BuildingFunctions(), RoofTypes()
	if len(fs) != 301 || len(rs) != 15 {
		t.Fatalf("%d functions and %d roof types, want 301 and 15 (AdV lists of 2024)", len(fs), len(rs))
	}
	for _, e := range fs {
		if !slices.Contains([]string{"ALKIS", "ATKIS", "ALKIS-ATKIS"}, e.Source) {
			t.Errorf("%s: source %q", e.Code, e.Source)
		}
	}
	tests := []struct {
		name, code string
		lookup     func(string) (Entry, bool)
		de, en     string
	}{
		{"residential", "31001_1000", BuildingFunction, "Wohngebäude", "Residential building"},
		{"garage, spaces trimmed", " 31001_2463\n", BuildingFunction, "Garage", "Garage"},
		{"carport (ATKIS)", "51009_1611", BuildingFunction, "Carport", "Carport"},
		{"flat roof", "1000", RoofType, "Flachdach", "Flat roof"},
		{"gable roof", "3100", RoofType, "Satteldach", "Gable roof"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			e, ok := tc.lookup(tc.code)
			if !ok || e.De != tc.de || e.En != tc.en {
				t.Fatalf("got %+v, %v; want %s / %s", e, ok, tc.de, tc.en)
			}
		})
	}
	for _, code := range []string{"", "1231", "31001_", "1130", "31001_2465"} {
		if _, ok := BuildingFunction(code); ok {
			t.Errorf("BuildingFunction(%q) found", code)
		}
		if _, ok := RoofType(code); ok {
			t.Errorf("RoofType(%q) found", code)
		}
	}
}

func TestParseErrors(t *testing.T) {
	t.Parallel()
	for name, tsv := range map[string]string{
		"fields":   "1000\tFlachdach\n",
		"empty":    "1000\t\tFlat roof\n",
		"repeated": "1000\ta\tb\n1000\tc\td\n",
	} {
		if _, err := parse(tsv, false); err == nil || !strings.HasPrefix(err.Error(), "adv: line") {
			t.Errorf("%s: err %v", name, err)
		}
	}
}

// TestSampleCodes: every bldg:function and bldg:roofType code of the real
// NRW sample (AdV profile) and of the synthetic sample has a label; of the
// Berlin model of 2014 exactly the roof types of the AdV list have one and
// none of its state-specific function codes does.
func TestSampleCodes(t *testing.T) {
	t.Parallel()
	samples := []struct {
		path                 string
		unknownFn, unknownRT []string
	}{
		{"samples/real/LoD2_32_280_5659_1_NW.gml", nil, nil},
		{"samples/LoD2_33_392_5820_1_BE_sample.gml", nil, nil},
		{"samples/real/3910_5817.gml", []string{"1119", "1121", "1122", "1139", "1141", "1144", "1165", "1194", "1221", "1231",
			"1301", "1341", "1411", "1443", "1499", "1711", "1721", "1742", "1744", "2121", "2361", "2364", "2365", "2366",
			"2529", "2581", "2599", "2619", "2811", "2812"}, []string{"1130"}},
	}
	for _, s := range samples {
		t.Run(s.path, func(t *testing.T) {
			t.Parallel()
			fns, rts := sampleCodes(t, testtool.Shared(t, s.path))
			if len(fns) == 0 || len(rts) == 0 {
				t.Fatalf("no codes read (%d functions, %d roof types)", len(fns), len(rts))
			}
			var unFn, unRT []string
			for _, c := range fns {
				if _, ok := BuildingFunction(c); !ok {
					unFn = append(unFn, c)
				}
			}
			for _, c := range rts {
				if _, ok := RoofType(c); !ok {
					unRT = append(unRT, c)
				}
			}
			if !slices.Equal(unFn, s.unknownFn) || !slices.Equal(unRT, s.unknownRT) {
				t.Errorf("codes without a label: functions %v, roof types %v; want %v, %v", unFn, unRT, s.unknownFn, s.unknownRT)
			}
		})
	}
}

// sampleCodes returns the sorted distinct function and roof type codes of
// the buildings and building parts of a file.
func sampleCodes(t *testing.T, path string) (fns, rts []string) {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	r := citygml.NewReader(f, path)
	add := func(a *citygml.Attributes) {
		for _, c := range a.Function {
			fns = append(fns, c.Value)
		}
		if a.RoofType.Value != "" {
			rts = append(rts, a.RoofType.Value)
		}
	}
	for {
		b, err := r.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		add(&b.Attributes)
		for i := range b.BuildingParts {
			add(&b.BuildingParts[i].Attributes)
		}
	}
	slices.Sort(fns)
	slices.Sort(rts)
	return slices.Compact(fns), slices.Compact(rts)
}
