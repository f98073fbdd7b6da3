// Package adv holds the code lists of the AdV CityGML building profile
// (LoD2-DE) with German and English labels: the building function
// (BuildingFunctionTypeAdV, ALKIS Gebäudefunktion and ATKIS Bauwerksfunktion
// codes such as "31001_1010") and the roof type (RoofTypeTypeAdV, "1000"
// Flachdach ... "9999" Sonstiges). The lists are embedded; see README.md for
// their source, version and licence.
package adv

import (
	_ "embed"
	"fmt"
	"strings"
	"sync"
)

// Entry is one code of a code list.
type Entry struct {
	// Code is the code as LoD2-DE files write it in bldg:function or
	// bldg:roofType, for example "31001_2463" or "3100".
	Code string
	// Source is the AdV model the code comes from ("ALKIS", "ATKIS" or
	// "ALKIS-ATKIS") for building functions, "" for roof types.
	Source string
	// De is the official German label of the AdV list; En is its English
	// translation.
	De, En string
}

//go:embed building_function.tsv
var functionTSV string

//go:embed roof_type.tsv
var roofTSV string

// table is a parsed code list: entries in list order and an index by code.
type table struct {
	entries []Entry
	byCode  map[string]int
}

var (
	functions = sync.OnceValue(func() table { return mustParse(functionTSV, true) })
	roofTypes = sync.OnceValue(func() table { return mustParse(roofTSV, false) })
)

// BuildingFunction returns the entry of a bldg:function code (surrounding
// white space ignored); ok is false for a code not in the AdV list, such
// as the state-specific codes of older Berlin models ("1231").
func BuildingFunction(code string) (Entry, bool) { return functions().lookup(code) }

// RoofType returns the entry of a bldg:roofType code; ok is false for a
// code not in the AdV list.
func RoofType(code string) (Entry, bool) { return roofTypes().lookup(code) }

// BuildingFunctions returns every building function in list order (a new
// slice).
func BuildingFunctions() []Entry { return append([]Entry(nil), functions().entries...) }

// RoofTypes returns every roof type in list order (a new slice).
func RoofTypes() []Entry { return append([]Entry(nil), roofTypes().entries...) }

func (t table) lookup(code string) (Entry, bool) {
	i, ok := t.byCode[strings.TrimSpace(code)]
	if !ok {
		return Entry{}, false
	}
	return t.entries[i], true
}

// mustParse reads an embedded list; it panics on a malformed file, which a
// test catches before any release.
func mustParse(tsv string, withSource bool) table {
	t, err := parse(tsv, withSource)
	if err != nil {
		panic(err)
	}
	return t
}

// parse reads tab-separated lines "code [source] de en"; lines starting
// with '#' are comments.
func parse(tsv string, withSource bool) (table, error) {
	t := table{byCode: map[string]int{}}
	want := 3
	if withSource {
		want = 4
	}
	for n, line := range strings.Split(tsv, "\n") {
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		f := strings.Split(line, "\t")
		if len(f) != want {
			return table{}, fmt.Errorf("adv: line %d: %d fields, want %d", n+1, len(f), want)
		}
		e := Entry{Code: f[0], De: f[len(f)-2], En: f[len(f)-1]}
		if withSource {
			e.Source = f[1]
		}
		if e.Code == "" || e.De == "" || e.En == "" {
			return table{}, fmt.Errorf("adv: line %d: empty field", n+1)
		}
		if _, dup := t.byCode[e.Code]; dup {
			return table{}, fmt.Errorf("adv: line %d: code %s repeated", n+1, e.Code)
		}
		t.byCode[e.Code] = len(t.entries)
		t.entries = append(t.entries, e)
	}
	return t, nil
}
