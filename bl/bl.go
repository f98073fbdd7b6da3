// Package bl holds the table of German federal states (Bundesländer): their
// lowercase codes as used in URLs and packs, names, official projected CRS
// and the country-subdivision prefix of their LoD2 building ids.
package bl

import (
	"sort"
	"strings"
)

// State describes one federal state.
type State struct {
	Code       string // lowercase code, e.g. "nrw"
	Name       string // German name
	EPSG       int    // projected CRS of the state's DGM1/LoD2 deliveries: 25832 or 25833
	IDPrefix   string // prefix of AdV building ids, e.g. "DENW"
	Coastal    bool   // borders the North or Baltic Sea (has a "sea" OSM cover theme)
	SourceName string // the surveying authority that publishes the data
}

// states follows the AdV ids (DE + ISO 3166-2 suffix) and the CRS each
// state publishes its LoD2 and DGM1 in.
var states = []State{
	{"bw", "Baden-Württemberg", 25832, "DEBW", false, "LGL Baden-Württemberg"},
	{"by", "Bayern", 25832, "DEBY", false, "Bayerische Vermessungsverwaltung"},
	{"be", "Berlin", 25833, "DEBE", false, "Geoportal Berlin"},
	{"bb", "Brandenburg", 25833, "DEBB", false, "LGB Brandenburg"},
	{"hb", "Bremen", 25832, "DEHB", false, "GeoInformation Bremen"},
	{"hh", "Hamburg", 25832, "DEHH", false, "LGV Hamburg"},
	{"he", "Hessen", 25832, "DEHE", false, "HVBG Hessen"},
	{"mv", "Mecklenburg-Vorpommern", 25833, "DEMV", true, "LAiV Mecklenburg-Vorpommern"},
	{"ni", "Niedersachsen", 25832, "DENI", true, "LGLN Niedersachsen"},
	{"nrw", "Nordrhein-Westfalen", 25832, "DENW", false, "Geobasis NRW"},
	{"rp", "Rheinland-Pfalz", 25832, "DERP", false, "LVermGeo Rheinland-Pfalz"},
	{"sl", "Saarland", 25832, "DESL", false, "LVGL Saarland"},
	{"sn", "Sachsen", 25833, "DESN", false, "GeoSN Sachsen"},
	{"st", "Sachsen-Anhalt", 25832, "DEST", false, "LVermGeo Sachsen-Anhalt"},
	{"sh", "Schleswig-Holstein", 25832, "DESH", true, "LVermGeo Schleswig-Holstein"},
	{"th", "Thüringen", 25832, "DETH", false, "TLBG Thüringen"},
}

// Lookup returns the state with the given code (case-insensitive).
func Lookup(code string) (State, bool) {
	code = strings.ToLower(code)
	for _, s := range states {
		if s.Code == code {
			return s, true
		}
	}
	return State{}, false
}

// All returns the 16 states ordered by code.
func All() []State {
	out := append([]State(nil), states...)
	sort.Slice(out, func(i, j int) bool { return out[i].Code < out[j].Code })
	return out
}

// ForID returns the state whose AdV prefix starts the building id (for
// example "DEHE062000013OfY" -> he). ok is false for ids without a known
// prefix, such as UUIDs.
func ForID(gmlid string) (State, bool) {
	if len(gmlid) < 4 {
		return State{}, false
	}
	p := strings.ToUpper(gmlid[:4])
	for _, s := range states {
		if s.IDPrefix == p {
			return s, true
		}
	}
	return State{}, false
}

// Canonical returns the canonical (lowercase) code for code, or "" when it is
// not a state.
func Canonical(code string) string {
	s, _ := Lookup(code)
	return s.Code
}
