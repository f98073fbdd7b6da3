package solarbuild

import (
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/svc-geodata/svc/solarstore"
)

func sampleRecords() []record {
	return []record{
		{b: solarstore.Building{ID: 1, GMLID: "DENW0001", Facets: []solarstore.Facet{
			{SurfaceID: 7, Part: 0, AnnualWhM2: 1_050_123, Unshaded: 1_100_000, MonthlyWhM2: [12]int64{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12},
				Loss: &solarstore.Loss{Terrain: 0, Buildings: 49_877, Trees: 0}},
			{SurfaceID: 7, Part: 1, AnnualWhM2: 900_000, Unshaded: 900_000, BestWhM2: 1_312_345}}}},
		{b: solarstore.Building{ID: 2, GMLID: "DENW0002", Shading: "not evaluated: no roof facets", Facets: []solarstore.Facet{}}},
		{b: solarstore.Building{ID: 5, GMLID: "DENW0005"}, failed: "raster: tile 3: checksum"},
	}
}

// TestChunkRoundTrip: a chunk file gives back its records; a truncated or
// foreign one is an error wrapping errChunk, not a panic or a short read
// taken for the whole.
func TestChunkRoundTrip(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	os.Mkdir(filepath.Join(dir, chunkDir), 0o755)
	want := sampleRecords()
	if err := writeChunk(dir, 3, want); err != nil {
		t.Fatal(err)
	}
	read := func() ([]record, error) {
		c, err := openChunk(chunkPath(dir, 3))
		if err != nil {
			return nil, err
		}
		defer c.Close()
		var out []record
		var r record
		for c.next(&r) {
			out = append(out, r)
		}
		return out, c.err
	}
	got, err := read()
	if err != nil {
		t.Fatal(err)
	}
	want[1].b.Facets = []solarstore.Facet{}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("read back\n%+v\nwant\n%+v", got, want)
	}
	raw, _ := os.ReadFile(chunkPath(dir, 3))
	for _, tc := range []struct {
		name string
		b    []byte
	}{{"truncated", raw[:len(raw)-3]}, {"foreign", []byte("PK\x03\x04 not a chunk")}, {"empty", nil}} {
		t.Run(tc.name, func(t *testing.T) {
			os.WriteFile(chunkPath(dir, 3), tc.b, 0o644)
			if _, err := read(); !errors.Is(err, errChunk) {
				t.Errorf("error %v, want errChunk", err)
			}
		})
	}
}
