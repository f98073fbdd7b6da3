package spatialite

import (
	"encoding/hex"
	"github.com/twpayne/go-geom"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// FuzzDecode feeds arbitrary bytes to Decode and Envelope. Neither may
// panic; allocation must stay within a small multiple of the input; a BLOB
// that decodes must have a readable envelope (unless its stored MBR is
// garbage) and must survive an Encode/Decode round trip. Seeds are the
// golden BLOBs from the spatialite CLI and an encoded LoD2 surface.
func FuzzDecode(f *testing.F) {
	files, err := filepath.Glob(filepath.Join("testdata", "golden", "*.hex"))
	if err != nil || len(files) == 0 {
		f.Fatalf("no seeds in testdata/golden: %v", err)
	}
	for _, name := range files {
		raw, err := os.ReadFile(name)
		if err != nil {
			f.Fatal(err)
		}
		b, err := hex.DecodeString(strings.TrimSpace(string(raw)))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	seed, err := Encode(makeSurfaces(1, 350000, 5600000, 1)[0].geom, 25832)
	if err != nil {
		f.Fatal(err)
	}
	f.Add(seed)
	f.Fuzz(func(t *testing.T, b []byte) {
		var g any
		var srid int
		var derr error
		if n := allocBytes(func() { g, srid, derr = Decode(b) }); n > 64*len(b)+8192 {
			t.Fatalf("Decode of %d bytes allocated %d bytes", len(b), n)
		}
		_, eerr := Envelope(b)
		if derr != nil {
			return
		}
		gt := mustGeom(t, g)
		if eerr != nil && !strings.Contains(eerr.Error(), "bad MBR") {
			t.Fatalf("Decode ok but Envelope: %v", eerr)
		}
		enc, err := Encode(gt, srid)
		if err != nil {
			t.Fatalf("re-encode: %v", err)
		}
		back, srid2, err := Decode(enc)
		if err != nil || srid2 != srid {
			t.Fatalf("decode of re-encoded: %v (srid %d vs %d)", err, srid2, srid)
		}
		if err := geomDiff(back, gt, 0); err != nil {
			t.Fatalf("round trip: %v", err)
		}
	})
}

func mustGeom(t *testing.T, g any) geom.T {
	t.Helper()
	gt, ok := g.(geom.T)
	if !ok || gt == nil {
		t.Fatalf("Decode returned %T without error", g)
	}
	return gt
}
