package citygml

import (
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"testing"

	"github.com/svc-geodata/svc/internal/gdaljudge"
)

// TestAttributesGDAL is the judge of the attributes on the real samples:
// per building and per building part, function, roof type, measured
// height, storeys, creation date, generic attributes and every address
// field equal what GDAL's GML driver reads from the same file.
func TestAttributesGDAL(t *testing.T) {
	t.Parallel()
	for _, p := range []string{sampleNW, sampleBE, sampleSy} {
		t.Run(p[len("../../shared/samples/"):], func(t *testing.T) {
			t.Parallel()
			path := samplePath(t, p)
			want := gdaljudge.Read(t, path)
			got := ourView(readFile(t, path))
			compareOwners(t, "building", got.Buildings, want.Buildings)
			compareOwners(t, "building part", got.Parts, want.Parts)
			t.Logf("%d buildings, %d parts; functions %v; roof types %v; %d distinct streets", len(got.Buildings), len(got.Parts),
				tallyField(got, func(o gdaljudge.Owner) []string { return o.Function }),
				tallyField(got, func(o gdaljudge.Owner) []string { return o.RoofType }),
				len(tallyField(got, func(o gdaljudge.Owner) []string { return append(o.Own["streets"], o.Parts["streets"]...) })))
		})
	}
}

// ourView puts the reader's buildings in the judge's form.
func ourView(bs []*Building) gdaljudge.File {
	var f gdaljudge.File
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
		o.Normalise()
		f.Buildings = append(f.Buildings, o)
	}
	return f
}

func ownerView(id string, a *Attributes) gdaljudge.Owner {
	o := gdaljudge.Owner{ID: id}
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
	js := make([]gdaljudge.Address, len(as))
	for i, a := range as {
		js[i] = gdaljudge.Address{Street: a.Street, HouseNumber: a.HouseNumber, PostalCode: a.PostalCode, Locality: a.Locality, Country: a.Country}
	}
	return gdaljudge.AddressFields(js)
}

// compareOwners reports the first differences, matched by gml:id in order.
func compareOwners(t *testing.T, what string, got, want []gdaljudge.Owner) {
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
func tallyField(f gdaljudge.File, field func(gdaljudge.Owner) []string) map[string]int {
	m := map[string]int{}
	for _, o := range append(slices.Clone(f.Buildings), f.Parts...) {
		for _, v := range field(o) {
			m[v]++
		}
	}
	return m
}
