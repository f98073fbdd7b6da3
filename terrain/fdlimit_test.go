//go:build linux

package terrain

import (
	"context"
	"math"
	"os"
	"os/exec"
	"strconv"
	"syscall"
	"testing"

	"github.com/svc-geodata/svc/pack"
)

// fdLimitEnv marks the re-executed test binary of TestManyTilesFewDescriptors.
const fdLimitEnv = "SVC_TEST_FDLIMIT_CHILD"

// TestManyTilesFewDescriptors samples every tile of a 20 x 20 tile layer in
// a process whose RLIMIT_NOFILE is 256: a layer holding one descriptor per
// opened tile fails with "too many open files" (EMFILE). It runs in a child
// process so the lowered limit touches no other test.
func TestManyTilesFewDescriptors(t *testing.T) {
	if os.Getenv(fdLimitEnv) == "1" {
		manyTilesChild(t)
		return
	}
	t.Parallel()
	cmd := exec.Command(os.Args[0], "-test.run=^TestManyTilesFewDescriptors$", "-test.count=1", "-test.v")
	cmd.Env = append(os.Environ(), fdLimitEnv+"=1")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("child: %v\n%s", err, out)
	}
	t.Logf("child:\n%s", out)
}

// manyTilesChild lowers the descriptor limit, then builds and samples the
// layer.
func manyTilesChild(t *testing.T) {
	const soft, n, size = 256, 20, 16
	var rl syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_NOFILE, &rl); err != nil {
		t.Fatal(err)
	}
	rl.Cur = soft
	if err := syscall.Setrlimit(syscall.RLIMIT_NOFILE, &rl); err != nil {
		t.Fatal(err)
	}
	var tiles []fixtureTile
	for i := range n {
		for j := range n {
			tiles = append(tiles, fixtureTile{name: "t" + strconv.Itoa(i) + "_" + strconv.Itoa(j),
				e0: 477000 + float64(i*size), n0: 5551000 + float64(j*size), size: size, f: smooth})
		}
	}
	d := makePack(t, t.TempDir(), pack.Terrain, "nrw", "2026-07-20", 25832, map[string][]fixtureTile{LayerDGM: tiles}, nil)
	l := d.Layer(LayerDGM)
	ctx := context.Background()
	for pass := range 2 { // the second pass reopens evicted tiles
		for _, ft := range tiles {
			e, n := ft.e0+float64(size)/2+0.5, ft.n0+float64(size)/2+0.5
			v, tile, err := l.Sample(ctx, e, n)
			if err != nil {
				t.Fatalf("pass %d, tile %s: %v", pass, ft.name, err)
			}
			if want := smooth(e, n); l.Tiles()[tile].Name != ft.name || math.Abs(v-want) > 1e-3 {
				t.Fatalf("pass %d: got %.4f from tile %d, want %.4f from %s", pass, v, tile, want, ft.name)
			}
		}
	}
	fds, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%d tiles sampled twice with RLIMIT_NOFILE %d; %d descriptors open at the end", len(tiles), soft, len(fds))
	if len(fds) > soft/2 {
		t.Errorf("%d descriptors open after sampling, want at most %d", len(fds), soft/2)
	}
}
