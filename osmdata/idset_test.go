package osmdata

import (
	"math/rand/v2"
	"slices"
	"testing"
)

// TestIDSet: ids added in any order, with repeats, over several chunks,
// come out sorted and unique; rank finds each at its index and nothing
// else; the iterator walks them in order.
func TestIDSet(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	var want []int64
	c := idCollector{chunk: 1000}
	id := int64(5_000_000_000)
	for range 20_000 {
		id += 1 + rng.Int64N(300) // gaps as in an extract, some over 127 (two bytes)
		want = append(want, id)
	}
	want = append(want, 1, 1<<40) // a one-byte and a six-byte gap
	slices.Sort(want)
	for _, i := range rng.Perm(len(want)) {
		c.add(want[i])
		if i%7 == 0 {
			c.add(want[i]) // repeated
		}
	}
	s := c.done()
	if s.n != len(want) {
		t.Fatalf("%d ids, want %d", s.n, len(want))
	}
	it := s.iter()
	for i, w := range want {
		if it.done || it.id != w || it.i != i {
			t.Fatalf("iter at %d: %d (rank %d), want %d", i, it.id, it.i, w)
		}
		it.next()
		if r, ok := s.rank(w); !ok || r != i {
			t.Fatalf("rank(%d) = %d %t, want %d", w, r, ok, i)
		}
		if _, ok := s.rank(w + 1); ok && !slices.Contains(want, w+1) {
			t.Fatalf("rank(%d) found an absent id", w+1)
		}
	}
	if !it.done {
		t.Error("iterator goes past the end")
	}
	if _, ok := s.rank(0); ok {
		t.Error("rank(0) found")
	}
	if per := float64(len(s.data)+16*len(s.first)) / float64(s.n); per > 3 {
		t.Errorf("%.2f bytes per id", per)
	}
}
