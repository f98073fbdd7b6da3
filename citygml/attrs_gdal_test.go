package citygml

import (
	"encoding/json"
	"fmt"
	"os/exec"
	"slices"
	"strconv"
	"testing"

	"github.com/svc-geodata/svc/internal/testtool"
)

// gdalOwner is what testdata/judge/gdal_attrs.py prints per Building or
// BuildingPart; the reader's view is put in the same form.
type gdalOwner struct {
	ID             string              `json:"id"`
	Function       []string            `json:"function"`
	RoofType       []string            `json:"roofType"`
	MeasuredHeight []string            `json:"measuredHeight"`
	Storeys        []string            `json:"storeys"`
	CreationDate   []string            `json:"creationDate"`
	Generic        map[string][]string `json:"generic,omitempty"`
	Own            map[string][]string `json:"own,omitempty"`
	Parts          map[string][]string `json:"parts,omitempty"`
}

type gdalFile struct {
	Buildings []gdalOwner `json:"buildings"`
	Parts     []gdalOwner `json:"parts"`
}

// TestAttributesGDAL is the judge of the attributes on the real samples:
// per building and per building part, function, roof type, measured
// height, storeys, creation date, generic attributes and every address
// field equal what GDAL's GML driver reads from the same file.
func TestAttributesGDAL(t *testing.T) {
	t.Parallel()
	python := testtool.PythonGDAL(t)
	for _, p := range []string{sampleNW, sampleBE, sampleSy} {
		t.Run(p[len("../../shared/samples/"):], func(t *testing.T) {
			t.Parallel()
			path := samplePath(t, p)
			out, err := exec.Command(python, "testdata/judge/gdal_attrs.py", path, "testdata/judge/parts_attrs.gfs").Output()
			if err != nil {
				t.Fatalf("gdal_attrs.py: %v\n%s", err, exitStderr(err))
			}
			var want gdalFile
			if err := json.Unmarshal(out, &want); err != nil {
				t.Fatal(err)
			}
			got := ourView(readFile(t, path))
			for i := range want.Buildings {
				normalise(&want.Buildings[i])
			}
			for i := range want.Parts {
				normalise(&want.Parts[i])
			}
			compareOwners(t, "building", got.Buildings, want.Buildings)
			compareOwners(t, "building part", got.Parts, want.Parts)
			t.Logf("%d buildings, %d parts; functions %v; roof types %v; %d distinct streets", len(got.Buildings), len(got.Parts),
				tallyField(got, func(o gdalOwner) []string { return o.Function }),
				tallyField(got, func(o gdalOwner) []string { return o.RoofType }),
				len(tallyField(got, func(o gdalOwner) []string { return append(o.Own["streets"], o.Parts["streets"]...) })))
		})
	}
}

func exitStderr(err error) []byte {
	if ee, ok := err.(*exec.ExitError); ok {
		return ee.Stderr
	}
	return nil
}

// ourView puts the reader's buildings in the judge's form.
func ourView(bs []*Building) gdalFile {
	var f gdalFile
	for _, b := range bs {
		o := ownerView(b.ID, &b.Attributes)
		o.Generic = map[string][]string{}
		addGeneric(o.Generic, &b.Attributes)
		o.Own = addrFields(b.Addresses)
		var partAddrs []Address
		for i := range b.BuildingParts {
			bp := &b.BuildingParts[i]
			addGeneric(o.Generic, &bp.Attributes)
			partAddrs = append(partAddrs, bp.Addresses...)
			f.Parts = append(f.Parts, ownerView(bp.ID, &bp.Attributes))
		}
		o.Parts = addrFields(partAddrs)
		normalise(&o)
		f.Buildings = append(f.Buildings, o)
	}
	return f
}

func ownerView(id string, a *Attributes) gdalOwner {
	o := gdalOwner{ID: id}
	for _, c := range a.Function {
		o.Function = append(o.Function, c.Value)
	}
	if a.RoofType.Value != "" {
		o.RoofType = []string{a.RoofType.Value}
	}
	if a.MeasuredHeight.Valid {
		o.MeasuredHeight = []string{strconv.FormatFloat(a.MeasuredHeight.Value, 'g', -1, 64)}
	}
	if a.StoreysAboveGround >= 0 {
		o.Storeys = []string{strconv.Itoa(a.StoreysAboveGround)}
	}
	if a.CreationDate != "" {
		o.CreationDate = []string{a.CreationDate}
	}
	if len(a.Invalid) > 0 {
		o.Storeys = append(o.Storeys, fmt.Sprint("invalid:", a.Invalid))
	}
	return o
}

func addGeneric(m map[string][]string, a *Attributes) {
	for _, g := range a.Generic {
		m[g.Name] = append(m[g.Name], g.Value)
	}
}

func addrFields(as []Address) map[string][]string {
	m := map[string][]string{}
	for _, a := range as {
		for k, v := range map[string]string{"streets": a.Street, "numbers": a.HouseNumber, "postcodes": a.PostalCode,
			"localities": a.Locality, "countries": a.Country} {
			if v != "" {
				m[k] = append(m[k], v)
			}
		}
	}
	return m
}

// normalise sorts the lists, drops empty ones and writes numbers as Go's
// shortest form (GDAL keeps "8.000" as written).
func normalise(o *gdalOwner) {
	for i, v := range o.MeasuredHeight {
		if f, err := strconv.ParseFloat(v, 64); err == nil {
			o.MeasuredHeight[i] = strconv.FormatFloat(f, 'g', -1, 64)
		}
	}
	for _, m := range []map[string][]string{o.Generic, o.Own, o.Parts} {
		for k, v := range m {
			if len(v) == 0 {
				delete(m, k)
				continue
			}
			slices.Sort(v)
		}
	}
	for _, p := range []*[]string{&o.Function, &o.RoofType, &o.MeasuredHeight, &o.Storeys, &o.CreationDate} {
		if len(*p) == 0 {
			*p = nil
		}
	}
	if len(o.Generic) == 0 {
		o.Generic = nil
	}
	if len(o.Own) == 0 {
		o.Own = nil
	}
	if len(o.Parts) == 0 {
		o.Parts = nil
	}
}

// compareOwners reports the first differences, matched by gml:id in order.
func compareOwners(t *testing.T, what string, got, want []gdalOwner) {
	t.Helper()
	if len(got) != len(want) {
		t.Errorf("%d %ss, GDAL reads %d", len(got), what, len(want))
	}
	bad := 0
	for i := range min(len(got), len(want)) {
		g, _ := json.Marshal(got[i])
		w, _ := json.Marshal(want[i])
		if string(g) != string(w) {
			if bad++; bad <= 3 {
				t.Errorf("%s %d:\ncitygml %s\nGDAL    %s", what, i, g, w)
			}
		}
	}
	if bad > 3 {
		t.Errorf("... %d %ss differ in all", bad, what)
	}
}

// tallyField counts the values of one field over the buildings and parts.
func tallyField(f gdalFile, field func(gdalOwner) []string) map[string]int {
	m := map[string]int{}
	for _, o := range append(slices.Clone(f.Buildings), f.Parts...) {
		for _, v := range field(o) {
			m[v]++
		}
	}
	return m
}
