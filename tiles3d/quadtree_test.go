package tiles3d

import (
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/svc-geodata/svc/lod2store"
)

// TestQuadtreeFiles lays out buildings of source files (1 km cells of
// random buildings, some spilling over their cell, one file twice as
// dense, two files with the same anchor) and checks what the tileset
// relies on: every building in exactly one leaf, each leaf's ids
// ascending, at most maxPer per leaf, no leaf with two files whose anchors
// differ, a file of n buildings in the fewest leaves a halving gives, no
// leaf of files with the same anchor deeper than needed, and unique
// level/x/y names.
func TestQuadtreeFiles(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	var ext []lod2store.BuildingExtent
	var file []int32
	const maxPer = 50
	counts := map[int32]int{}
	add := func(f int32, cx, cy float64, n int) {
		for range n {
			x, y := cx+rng.Float64()*1000, cy+rng.Float64()*1000
			w := 5 + rng.Float64()*60 // some spill over the file's cell
			ext = append(ext, lod2store.BuildingExtent{BuildingID: int64(len(ext) + 1), MinX: x, MinY: y, MaxX: x + w, MaxY: y + w})
			file = append(file, f)
			counts[f]++
		}
	}
	f := int32(0)
	for i := range 5 {
		for j := range 4 {
			n := 30 + rng.IntN(40)
			if i == 2 && j == 2 {
				n = 180 // 4 leaves of 45
			}
			add(f, 400000+float64(i)*1000, 5700000+float64(j)*1000, n)
			f++
		}
	}
	// Two files of the same buildings' boxes (a file imported twice under
	// two names): equal anchors, which no split tells apart.
	same := f
	add(same, 410000, 5700000, 20)
	for _, e := range ext[len(ext)-20:] {
		e.BuildingID = int64(len(ext) + 1)
		ext, file = append(ext, e), append(file, same+1)
	}
	counts[same+1] = 20
	root := quadtree(ext, file, maxPer)
	leaves := root.leaves(nil)
	seen, names := map[int64]bool{}, map[[3]int]bool{}
	perFile := map[int32]int{}
	var walk func(c *cell)
	walk = func(c *cell) {
		k := [3]int{c.level, c.x, c.y}
		if names[k] {
			t.Errorf("two cells named %v", k)
		}
		names[k] = true
		for _, ch := range c.children {
			walk(ch)
		}
	}
	walk(root)
	for _, l := range leaves {
		if len(l.ids) > maxPer || !slices.IsSorted(l.ids) {
			t.Errorf("leaf %d/%d/%d: %d buildings, sorted %v", l.level, l.x, l.y, len(l.ids), slices.IsSorted(l.ids))
		}
		files := map[int32]bool{}
		for _, id := range l.ids {
			if seen[id] {
				t.Errorf("building %d in two leaves", id)
			}
			seen[id] = true
			files[file[id-1]] = true
		}
		if len(files) > 1 && !(len(files) == 2 && files[same] && files[same+1]) {
			t.Errorf("leaf %d/%d/%d holds files %v", l.level, l.x, l.y, files)
		}
		for f := range files {
			perFile[f]++
		}
		if l.level >= maxDepth {
			t.Errorf("leaf %d/%d/%d at the depth limit", l.level, l.x, l.y)
		}
	}
	if len(seen) != len(ext) {
		t.Errorf("%d of %d buildings in leaves", len(seen), len(ext))
	}
	for f, n := range counts {
		want := 1
		for n > maxPer*want {
			want *= 2
		}
		if f < same && perFile[f] != want {
			t.Errorf("file %d of %d buildings in %d leaves, want %d", f, n, perFile[f], want)
		}
	}
	// Without files: quadrants by building centre, as before.
	n := 0
	for _, l := range quadtree(ext, nil, maxPer).leaves(nil) {
		if len(l.ids) > maxPer {
			t.Errorf("leaf of %d without files", len(l.ids))
		}
		n += len(l.ids)
	}
	if n != len(ext) {
		t.Errorf("%d of %d buildings in leaves without files", n, len(ext))
	}
}
