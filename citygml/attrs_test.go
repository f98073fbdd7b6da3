package citygml

import (
	"encoding/json"
	"os"
	"testing"
)

// TestAttributes reads every LoD2-DE attribute of testdata/v1_attrs.gml:
// codes with their codeSpace, the height with its unit, storeys, the
// creation date, both addresses of the building and the one of a nested
// part, generic attributes of each kind (a set's members flattened), and
// reports the invalid height and storeys of a part instead of failing.
func TestAttributes(t *testing.T) {
	t.Parallel()
	data, err := os.ReadFile("testdata/v1_attrs.gml")
	if err != nil {
		t.Fatal(err)
	}
	bs := readAll(t, data, "v1_attrs.gml")
	if len(bs) != 2 {
		t.Fatalf("%d buildings, want 2", len(bs))
	}
	want := Attributes{
		Function: []Code{
			{"31001_1000", "http://www.sig3d.org/codelists/standard/building/2.0/_AbstractBuilding_function.xml"},
			{"31001_2020", ""},
		},
		RoofType:           Code{"3100", "urn:adv:roofType"},
		MeasuredHeight:     Measure{Value: 11.75, UOM: "urn:adv:uom:m", Valid: true},
		StoreysAboveGround: 3,
		CreationDate:       "2021-03-04",
		Addresses: []Address{
			{Street: "Alter Hof", HouseNumber: "7, 9", PostalCode: "80331", Locality: "München", Country: "Deutschland"},
			{Street: "Burgstraße", HouseNumber: "2a", Locality: "München"},
		},
		Generic: []Generic{
			{Name: "Gemeindeschluessel", Type: GenString, Value: "09162000"},
			{Name: "DatenquelleDachhoehe", Type: GenInt, Value: "1000"},
			{Name: "HoeheDach", Type: GenDouble, Value: "12.5"},
			{Name: "Grundrissaktualitaet", Type: GenDate, Value: "2019-05-01"},
			{Name: "Quelle", Type: GenURI, Value: "https://example.org/a?b=1&c=2"},
			{Name: "Traufhoehe", Type: GenMeasure, Value: "7.25", UOM: "urn:adv:uom:m"},
			{Name: "InSet", Type: GenString, Value: "x"},
		},
	}
	parts := []BuildingPart{
		{ID: "DEBY_A1_P1", ParentID: "DEBY_A1", Attributes: Attributes{
			Function: []Code{{"31001_2463", ""}}, StoreysAboveGround: -1,
			Invalid: []string{`bldg:measuredHeight "three": not a number`, `bldg:storeysAboveGround "-2": not a non-negative integer`},
		}},
		{ID: "DEBY_A1_P1_P1", ParentID: "DEBY_A1_P1", Attributes: Attributes{
			RoofType: Code{"1000", ""}, StoreysAboveGround: -1,
			Addresses: []Address{{Street: "Hofgraben", HouseNumber: "1", PostalCode: "80539", Locality: "München", Country: "Deutschland"}},
		}},
	}
	same(t, "building", bs[0].Attributes, want)
	same(t, "parts", bs[0].BuildingParts, parts)
	if v, ok := bs[0].GenericValue("Gemeindeschluessel"); !ok || v != "09162000" {
		t.Errorf("GenericValue(Gemeindeschluessel) = %q, %v", v, ok)
	}
	same(t, "empty building", bs[1].Attributes, Attributes{StoreysAboveGround: -1})
	if bs[1].BuildingParts != nil {
		t.Errorf("empty building has parts %v", bs[1].BuildingParts)
	}
	if len(bs[0].Surfaces) != 1 {
		t.Errorf("%d surfaces, want the ground surface only", len(bs[0].Surfaces))
	}
}

// same compares two values by their JSON form and reports both on a
// difference.
func same(t *testing.T, what string, got, want any) {
	t.Helper()
	g, _ := json.Marshal(got)
	w, _ := json.Marshal(want)
	if string(g) != string(w) {
		t.Errorf("%s:\ngot  %s\nwant %s", what, g, w)
	}
}
