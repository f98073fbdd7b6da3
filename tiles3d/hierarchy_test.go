package tiles3d

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/svc-geodata/svc/internal/fixture"
	"github.com/svc-geodata/svc/internal/testtool"
)

// maxTilesetBytes bounds every tileset file at any size of a BL.
const maxTilesetBytes = 100 << 10

// treeStats is what walkTilesets found.
type treeStats struct {
	files, contents, tiles, depth int
	rootBytes, maxBytes           int64
}

// walkTilesets reads the tileset at path and every external tileset it
// references, as a viewer does, and checks the rules of a hierarchical
// tileset: every file under maxTilesetBytes, a geometric error never above
// its parent's, an external tileset's root with the volume and error of the
// tile that references it, every content file present.
func walkTilesets(t *testing.T, path string) treeStats {
	t.Helper()
	var st treeStats
	type file struct {
		path  string
		ge    float64
		depth int
	}
	queue := []file{{path, -1, 0}}
	for len(queue) > 0 {
		f := queue[0]
		queue = queue[1:]
		raw, err := os.ReadFile(f.path)
		if err != nil {
			t.Fatal(err)
		}
		st.files++
		if st.files == 1 {
			st.rootBytes = int64(len(raw))
		}
		st.maxBytes = max(st.maxBytes, int64(len(raw)))
		if len(raw) >= maxTilesetBytes {
			t.Errorf("%s: %d bytes, want < %d", f.path, len(raw), maxTilesetBytes)
		}
		var doc struct {
			GeometricError float64
			Root           tileJSON
		}
		if err := json.Unmarshal(raw, &doc); err != nil {
			t.Fatalf("%s: %v", f.path, err)
		}
		if f.ge >= 0 && doc.Root.GeometricError != f.ge {
			t.Errorf("%s: root geometricError %v, the referencing tile has %v", f.path, doc.Root.GeometricError, f.ge)
		}
		if doc.Root.Refine == "" {
			t.Errorf("%s: root without refine", f.path)
		}
		var walk func(tl *tileJSON, parentGE float64, depth int)
		walk = func(tl *tileJSON, parentGE float64, depth int) {
			st.tiles++
			st.depth = max(st.depth, depth)
			if tl.GeometricError > parentGE {
				t.Errorf("%s: geometricError %v under %v", f.path, tl.GeometricError, parentGE)
			}
			if tl.Content != nil {
				p := filepath.Join(filepath.Dir(f.path), filepath.FromSlash(tl.Content.URI))
				if strings.HasSuffix(p, ".json") {
					if len(tl.Children) > 0 {
						t.Errorf("%s: a tile references an external tileset and has children", f.path)
					}
					queue = append(queue, file{p, tl.GeometricError, depth})
				} else if _, err := os.Stat(p); err != nil {
					t.Errorf("%s: content %v", f.path, err)
				} else {
					st.contents++
				}
			}
			for _, c := range tl.Children {
				walk(c, tl.GeometricError, depth+1)
			}
		}
		walk(&doc.Root, doc.GeometricError, f.depth)
	}
	return st
}

// TestBuildStateSize builds the tileset of a synthetic state (20,000
// buildings in towns over 200 x 170 km, at most 4 per tile: as many leaves
// and as deep a quadtree as 11 million buildings at 1,000 per tile) and
// reads it as a viewer would: tileset.json and every tileset file it leads
// to stay under 100 KB, and every leaf is reachable.
func TestBuildStateSize(t *testing.T) {
	data := t.TempDir()
	ctx := context.Background()
	if _, err := fixture.StateLoD2(ctx, data, "nrw", 20000, 1); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	m, err := Build(ctx, Options{DataDir: data, BL: "nrw", MaxPerTile: 4, Workers: 2})
	if err != nil {
		t.Fatal(err)
	}
	st := walkTilesets(t, filepath.Join(data, "buildings", "nrw", "2026-07-20", TilesetFile))
	t.Logf("%d buildings, %d leaves in %v: tileset.json %d bytes, %d tileset files (largest %d bytes), %d tiles, depth %d",
		m.Tileset.BuildingCount, m.Tileset.TileCount, time.Since(start).Round(time.Millisecond), st.rootBytes, st.files, st.maxBytes, st.tiles, st.depth)
	if st.contents != int(m.Tileset.TileCount) || st.contents < 4000 {
		t.Errorf("%d content tiles reachable, the manifest has %d", st.contents, m.Tileset.TileCount)
	}
	if st.files < 2 {
		t.Errorf("one tileset file for %d leaves", st.contents)
	}
}

// TestHierarchyValidates runs the 3D Tiles validator on a building tileset
// deep enough to have external tilesets (it follows them).
func TestHierarchyValidates(t *testing.T) {
	validator := testtool.TilesValidator(t)
	data := t.TempDir()
	ctx := context.Background()
	if _, err := fixture.StateLoD2(ctx, data, "nrw", 300, 2); err != nil {
		t.Fatal(err)
	}
	if _, err := Build(ctx, Options{DataDir: data, BL: "nrw", MaxPerTile: 1}); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(data, "buildings", "nrw", "2026-07-20", TilesetFile)
	if st := walkTilesets(t, path); st.files < 3 {
		t.Fatalf("%d tileset files, want external tilesets", st.files)
	}
	out, err := exec.Command(validator, path).CombinedOutput()
	if err != nil || !strings.Contains(string(out), ": 0 errors") || !strings.Contains(string(out), `"numWarnings": 0`) {
		t.Errorf("validator: %v\n%s", err, string(out[max(0, len(out)-3000):]))
	}
}
