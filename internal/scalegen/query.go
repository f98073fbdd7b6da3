package scalegen

import (
	"fmt"
	"strings"
	"unicode/utf8"
)

// AddrKinds are the kinds of address queries made for a generated address
// (Queries; the runner sends them for the manifest's sample):
//   - exact: "Lindenstraße 12a, 40404 Rodeheim", as written;
//   - abbreviated: the other spelling of Straße/Str. ("Lindenstr. 12a,
//     Rodeheim"), or umlauts written out where the name has no Straße;
//   - misspelt: one letter of the street's longest word dropped;
//   - postcode: street, number and postcode, no city;
//   - city: street and city, no number (any address on the street is a
//     right answer).
var AddrKinds = []string{"exact", "abbreviated", "misspelt", "postcode", "city"}

// AddressQuery is one address query a user might type for a generated
// address, and the address (with its building) that answers it.
type AddressQuery struct {
	Kind, Text string
	Probe      AddressProbe
}

// Queries are the queries of every kind (AddrKinds) for p.
func Queries(p AddressProbe) []AddressQuery {
	s := p.Street
	return []AddressQuery{
		{"exact", fmt.Sprintf("%s %s, %s %s", s, p.Number, p.PostalCode, p.Locality), p},
		{"abbreviated", fmt.Sprintf("%s %s, %s", otherSpelling(s), p.Number, p.Locality), p},
		{"misspelt", fmt.Sprintf("%s %s, %s", dropLetter(s), p.Number, p.Locality), p},
		{"postcode", fmt.Sprintf("%s %s, %s", s, p.Number, p.PostalCode), p},
		{"city", fmt.Sprintf("%s, %s", s, p.Locality), p},
	}
}

// otherSpelling writes Straße as Str. and back, or else umlauts and ß as
// ae, oe, ue, ss, or else the name in lower case.
func otherSpelling(s string) string {
	for _, r := range [][2]string{{"straße", "str."}, {"Straße", "Str."}, {"str.", "strasse"}, {"Str.", "Strasse"}} {
		if strings.Contains(s, r[0]) {
			return strings.Replace(s, r[0], r[1], 1)
		}
	}
	if o := strings.NewReplacer("ä", "ae", "ö", "oe", "ü", "ue", "ß", "ss").Replace(s); o != s {
		return o
	}
	return strings.ToLower(s)
}

// dropLetter drops the middle letter of the street's longest word, in the
// name before a street type it ends with ("Lindenstraße" -> "Lidenstraße"):
// a misspelt name, the type being what a user writes in many ways (Str.,
// Strasse) anyway.
func dropLetter(s string) string {
	words := strings.Fields(s)
	w, best := 0, -1
	for i, x := range words {
		switch x {
		case "Straße", "Str.", "Weg", "Allee", "Platz", "Landstraße", "Landstr.":
			continue // "Hohe Straße": the name is Hohe
		}
		if n := utf8.RuneCountInString(x); n > best {
			w, best = i, n
		}
	}
	r := []rune(words[w])
	n := len(r)
	for _, t := range []string{"straße", "str.", "weg", "allee", "platz", "ring", "pfad", "gasse", "-Straße", "-Str.", "-Weg", "-Allee", "-Platz", "-Ring"} {
		if k := utf8.RuneCountInString(t); strings.HasSuffix(words[w], t) && n-k >= 3 {
			n -= k
			break
		}
	}
	k := n / 2
	words[w] = string(r[:k]) + string(r[k+1:])
	return strings.Join(words, " ")
}
