package lod2store

import (
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"
)

// The address search keys. A street, house number and locality are stored
// with a key each (addresses.street_key, number_key, locality_key) made
// by these functions, and a query is keyed the same way, so that spellings
// a user means alike compare equal: case, umlauts and ß ("Müllerstraße" =
// "muellerstrasse"), accents, spaces, hyphens and dots ("Karl-Marx-Str." =
// "Karl Marx Str"), and the abbreviation of Straße ("Str.", "Strasse",
// "Straße" all key "str").

// NormText is the search key of a text: lower case, ä ö ü folded to ae oe
// ue and ß to ss, other accented Latin letters to their base letter, and
// only letters and digits kept.
func NormText(s string) string {
	var b strings.Builder
	b.Grow(len(s))
	for _, r := range s {
		r = unicode.ToLower(r)
		switch r {
		case 'ä':
			b.WriteString("ae")
			continue
		case 'ö':
			b.WriteString("oe")
			continue
		case 'ü':
			b.WriteString("ue")
			continue
		case 'ß':
			b.WriteString("ss")
			continue
		}
		if f, ok := foldLatin[r]; ok {
			r = f
		}
		if r < utf8.RuneSelf && (r >= 'a' && r <= 'z' || r >= '0' && r <= '9') || r >= utf8.RuneSelf && (unicode.IsLetter(r) || unicode.IsDigit(r)) {
			b.WriteRune(r)
		}
	}
	return b.String()
}

// foldLatin maps the accented letters of names in Germany (French,
// Slavic and Scandinavian street and place names) to their base letter.
var foldLatin = map[rune]rune{
	'à': 'a', 'á': 'a', 'â': 'a', 'ã': 'a', 'å': 'a', 'ç': 'c', 'č': 'c', 'ć': 'c', 'è': 'e', 'é': 'e', 'ê': 'e', 'ë': 'e',
	'ì': 'i', 'í': 'i', 'î': 'i', 'ï': 'i', 'ñ': 'n', 'ń': 'n', 'ò': 'o', 'ó': 'o', 'ô': 'o', 'õ': 'o', 'ø': 'o',
	'ù': 'u', 'ú': 'u', 'û': 'u', 'š': 's', 'ś': 's', 'ž': 'z', 'ź': 'z', 'ż': 'z', 'ł': 'l', 'ř': 'r', 'ý': 'y',
}

// NormStreet is the search key of a street name: NormText with every
// "strasse" (Straße, Strasse) shortened to "str", as "Str." keys.
func NormStreet(s string) string {
	k := NormText(s)
	for strings.Contains(k, "strasse") { // "strasseasse" shortens to "strasse" first
		k = strings.ReplaceAll(k, "strasse", "str")
	}
	return k
}

// NormNumber is the search key of a house number: lower case, with only
// letters, digits, "-" and "/" kept ("12 A" = "12a", "3-5" = "3 - 5").
func NormNumber(s string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(s) {
		if r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '-' || r == '/' {
			b.WriteRune(r)
		}
	}
	return b.String()
}

// AddressQuery is a parsed address search: street, house number, postcode
// and locality, each "" when not given.
type AddressQuery struct {
	Street, Number, PostalCode, Locality string
}

// ParseAddress splits a free-text address in the German order "street
// number, postcode city" (commas optional): a token of five digits is the
// postcode; the house number is the last other token starting with a
// digit (with a following single letter, "12 a"), provided words come
// before it; the words before the number are the street, those after the
// number and the postcode the locality. Without a number, the words before
// the first comma or the postcode are the street and the rest the
// locality. A query without a street (no letter before the number or
// postcode) wraps ErrInput.
func ParseAddress(q string) (AddressQuery, error) {
	var toks []string
	comma := -1 // index of the first token after the first comma
	for i, part := range strings.Split(q, ",") {
		if i == 1 {
			comma = len(toks)
		}
		toks = append(toks, strings.Fields(part)...)
	}
	var out AddressQuery
	pc, num := -1, -1
	for i, t := range toks {
		if len(t) == 5 && allDigits(t) && pc < 0 {
			pc = i
			out.PostalCode = t
		}
	}
	end := len(toks)
	if pc >= 0 {
		end = pc
	}
	if comma >= 0 && comma < end {
		end = comma
	}
	for i := end - 1; i >= 1; i-- {
		if c := toks[i][0]; c >= '0' && c <= '9' {
			num = i
			break
		}
	}
	var street, number, loc []string
	switch {
	case num >= 0:
		street = toks[:num]
		number = []string{toks[num]}
		rest := num + 1
		if rest < len(toks) && rest != pc && rest != comma && len(toks[rest]) == 1 && unicode.IsLetter(rune(toks[rest][0])) {
			number = append(number, toks[rest])
			rest++
		}
		loc = without(toks[rest:], pc-rest)
	default:
		street = toks[:end]
		loc = without(toks[end:], pc-end)
	}
	out.Street = strings.Join(street, " ")
	out.Number = strings.Join(number, "")
	out.Locality = strings.Join(loc, " ")
	if NormStreet(out.Street) == "" || !hasLetter(out.Street) {
		return AddressQuery{}, fmt.Errorf("%w: address %q: no street name before the house number or postcode", ErrInput, q)
	}
	return out, nil
}

// without returns ts without index i (when in range).
func without(ts []string, i int) []string {
	if i < 0 || i >= len(ts) {
		return ts
	}
	return append(append([]string(nil), ts[:i]...), ts[i+1:]...)
}

func allDigits(s string) bool {
	for i := range len(s) {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return s != ""
}

func hasLetter(s string) bool {
	for _, r := range s {
		if unicode.IsLetter(r) {
			return true
		}
	}
	return false
}
