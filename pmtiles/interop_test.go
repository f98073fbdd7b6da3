package pmtiles

import (
	"bytes"
	"fmt"
	"os/exec"
	"strings"
	"testing"

	"github.com/svc-geodata/svc/internal/testtool"
)

// TestCLIReadsLeaves: protomaps' `pmtiles verify` accepts an archive with
// leaf directories (87,381 tiles, zooms 0-8) and `pmtiles tile` reads
// tiles of the first and last leaf as we wrote them.
func TestCLIReadsLeaves(t *testing.T) {
	cli := testtool.PMTilesCLI(t)
	tiles := pyramid(0, 8, 0)
	p, h := writeArchive(t, tiles, Options{TileType: PNG, TileCompression: NoCompression, MinLon: -180, MinLat: -85, MaxLon: 180, MaxLat: 85, Metadata: []byte(`{"name":"leaves"}`)})
	if h.LeafLength == 0 {
		t.Fatal("no leaf directories written")
	}
	if out, err := exec.Command(cli, "verify", p).CombinedOutput(); err != nil || strings.Contains(string(out), "Invalid") {
		t.Fatalf("pmtiles verify: %v\n%s", err, out)
	}
	for _, tl := range []tile{tiles[0], tiles[5000], tiles[len(tiles)/2], tiles[len(tiles)-1]} {
		got, err := exec.Command(cli, "tile", p, fmt.Sprint(tl.z), fmt.Sprint(tl.x), fmt.Sprint(tl.y)).Output()
		if err != nil || !bytes.Equal(got, tl.data) {
			t.Fatalf("pmtiles tile %d/%d/%d = %q (%v), want %q", tl.z, tl.x, tl.y, got, err, tl.data)
		}
	}
}
