package lod2store

import (
	"errors"
	"strings"
	"testing"
	"unicode/utf8"
)

// FuzzParseAddress: any text parses or wraps ErrInput, never panics; a
// parsed street has a letter and a key, keys are stable under keying
// again, and the postcode is five digits or "".
func FuzzParseAddress(f *testing.F) {
	for _, s := range []string{"Unter den Linden 77, 10117 Berlin", "Müllerstr. 12 a Berlin", "Straße des 17. Juni 135",
		"10117 Berlin", "", "a 1 b 2 12345 12345", "Ä,,ß 9z", "Strasseasse 1"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, q string) {
		a, err := ParseAddress(q)
		if err != nil {
			if !errors.Is(err, ErrInput) {
				t.Fatalf("%q: %v", q, err)
			}
			return
		}
		if !hasLetter(a.Street) || NormStreet(a.Street) == "" {
			t.Fatalf("%q: street %q", q, a.Street)
		}
		if a.PostalCode != "" && (len(a.PostalCode) != 5 || !allDigits(a.PostalCode)) {
			t.Fatalf("%q: postcode %q", q, a.PostalCode)
		}
		for _, s := range []string{a.Street, a.Locality} {
			if k := NormStreet(s); NormStreet(k) != k || !utf8.ValidString(k) && utf8.ValidString(s) {
				t.Fatalf("%q: key %q not stable", s, k)
			}
		}
		if n := NormNumber(a.Number); NormNumber(n) != n || strings.ContainsAny(n, " .") {
			t.Fatalf("%q: number key %q", a.Number, n)
		}
	})
}
