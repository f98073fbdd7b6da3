package tiles3d

import "testing"

func TestGridFor(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		edge, px float64
		want     int
	}{{1000, 1, 1025}, {1000, 2, 513}, {1024, 1, 1025}, {1025, 1, 2049}, {500, 1, 513}, {1000, 0, 513}, {2, 1, 3}} {
		if got := gridFor(tc.edge, tc.px); got != tc.want {
			t.Errorf("gridFor(%g, %g) = %d, want %d", tc.edge, tc.px, got, tc.want)
		}
	}
}
