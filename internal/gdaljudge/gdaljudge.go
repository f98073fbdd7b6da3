// Package gdaljudge reads what GDAL's GML driver sees of the buildings of a
// CityGML file (citygml/testdata/judge/gdal_attrs.py), the independent
// judge of the attribute tests of citygml and server, and puts both sides
// in one comparable form.
package gdaljudge

import (
	"encoding/json"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"testing"

	"github.com/svc-geodata/svc/internal/testtool"
)

// Owner is what the judge prints per Building or BuildingPart; the side
// under test is put in the same form. Lists hold values as written.
type Owner struct {
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

// File is the judge's view of one file, buildings and parts in file order.
type File struct {
	Buildings []Owner `json:"buildings"`
	Parts     []Owner `json:"parts"`
}

// Read runs the judge on the CityGML file at path with python's GDAL
// bindings (skipping, or failing under CI, without them) and returns its
// view, normalised.
func Read(t testing.TB, path string) File {
	t.Helper()
	python := testtool.PythonGDAL(t)
	root, _ := testtool.ModuleRoot()
	judge := filepath.Join(root, "citygml", "testdata", "judge")
	out, err := exec.Command(python, filepath.Join(judge, "gdal_attrs.py"), path, filepath.Join(judge, "parts_attrs.gfs")).Output()
	if err != nil {
		var stderr []byte
		if ee, ok := err.(*exec.ExitError); ok {
			stderr = ee.Stderr
		}
		t.Fatalf("gdal_attrs.py %s: %v\n%s", path, err, stderr)
	}
	var f File
	if err := json.Unmarshal(out, &f); err != nil {
		t.Fatalf("gdal_attrs.py %s: %v", path, err)
	}
	for i := range f.Buildings {
		f.Buildings[i].Normalise()
	}
	for i := range f.Parts {
		f.Parts[i].Normalise()
	}
	return f
}

// Address is one address in the judge's terms (xAL fields).
type Address struct {
	Street, HouseNumber, PostalCode, Locality, Country string
}

// AddressFields lists the non-empty fields of addresses by kind (streets,
// numbers, postcodes, localities, countries), as the judge does.
func AddressFields(as []Address) map[string][]string {
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

// Normalise sorts the lists, drops empty ones and writes numbers in Go's
// shortest form (GDAL keeps "8.000" as written).
func (o *Owner) Normalise() {
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
	for _, m := range []*map[string][]string{&o.Generic, &o.Own, &o.Parts} {
		if len(*m) == 0 {
			*m = nil
		}
	}
}

// JSON is o's comparable text.
func (o Owner) JSON() string {
	b, _ := json.Marshal(o)
	return string(b)
}
