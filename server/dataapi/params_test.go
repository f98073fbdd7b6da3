package dataapi

import (
	"bytes"
	"encoding/base64"
	"strings"
	"testing"

	"github.com/svc-geodata/svc/lod2store"
)

func FuzzDecodeCursor(f *testing.F) {
	for _, s := range []string{"he:1", "nrw:123456", "xx:1", "he:0", "he:-1", "12345", "he:1:2", "be:00012", ":", ""} {
		f.Add(base64.RawURLEncoding.EncodeToString([]byte(s)))
		f.Add(base64.StdEncoding.EncodeToString([]byte(s)))
	}
	f.Add("%%%")
	f.Add(strings.Repeat("A", 100))
	f.Fuzz(func(t *testing.T, s string) {
		p, err := decodeCursor(s)
		if err != nil {
			return
		}
		// An accepted cursor names a real position and survives a round trip.
		if p.SurfaceID <= 0 || p.BL == "" {
			t.Fatalf("accepted %q as %+v", s, p)
		}
		back, err := decodeCursor(encodeCursor(p))
		if err != nil || back != p {
			t.Fatalf("round trip of %+v: %+v %v", p, back, err)
		}
	})
}

func TestCursorRoundTrip(t *testing.T) {
	t.Parallel()
	for _, p := range []lod2store.Position{{BL: "he", SurfaceID: 1}, {BL: "nrw", SurfaceID: 1<<62 + 5}, {BL: "sh", SurfaceID: 42}} {
		got, err := decodeCursor(encodeCursor(p))
		if err != nil || got != p {
			t.Errorf("%+v -> %+v, %v", p, got, err)
		}
	}
}

func TestWriteCursor(t *testing.T) {
	for _, p := range []lod2store.Position{{BL: "he", SurfaceID: 195}, {BL: "nrw", SurfaceID: 1}, {BL: "bb", SurfaceID: 1<<31 - 1}} {
		var b bytes.Buffer
		b.WriteString("x")
		writeCursor(&b, p)
		if got, want := b.String(), "x"+encodeCursor(p); got != want {
			t.Errorf("%+v: writeCursor %q, encodeCursor %q", p, got, want)
		}
	}
}
