package server

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/svc-geodata/svc/catalog"
	"github.com/svc-geodata/svc/pack"
)

// TestVerifyInBackground: a published file changed on disk (same size, so
// the scan cannot see it) is found by the background verification and
// named in the damage list; a rescan starts a new run.
func TestVerifyInBackground(t *testing.T) {
	data := t.TempDir()
	commitPack(t, data, pack.Key{Product: pack.TerrainMesh, BL: "he", Snapshot: "2026-07-20"},
		pack.Manifest{LicenseID: "dl-de-by-2.0", TerrainMesh: &pack.TerrainMeshInfo{TilesetPath: "tileset.json", TileCount: 1}},
		map[string]string{"tileset.json": `{"asset":{"version":"1.0"}}`, "tiles/0.b3dm": "b3dm-bytes-0123"})
	cat := catalog.New(catalog.Options{Dir: data})
	if _, err := cat.Reload(context.Background()); err != nil {
		t.Fatal(err)
	}
	srv, err := New(Config{BaseURL: "http://api.test"}, Deps{Catalog: cat})
	if err != nil {
		t.Fatal(err)
	}
	srv.VerifyInBackground(context.Background())
	srv.WaitVerify()
	if l := srv.damage.list(); len(l) != 0 {
		t.Fatalf("intact pack reported damaged: %q", l)
	}
	os.WriteFile(filepath.Join(data, "terrain-mesh", "he", "2026-07-20", "tiles", "0.b3dm"), []byte("b3dm-bytes-XXXX"), 0o644)
	srv.VerifyInBackground(context.Background())
	srv.WaitVerify()
	l := srv.damage.list()
	if len(l) != 1 || !strings.Contains(l[0], "terrain-mesh/he/2026-07-20/tiles/0.b3dm") || !strings.Contains(l[0], "checksum") {
		t.Fatalf("damage list %q", l)
	}
}
