//go:build linux

package tiles3d_test

import (
	"context"
	"os"
	"os/exec"
	"syscall"
	"testing"

	"github.com/svc-geodata/svc/raster"
	"github.com/svc-geodata/svc/tiles3d"
)

// fdLimitEnv marks the re-executed test binary of TestTerrainMeshFewDescriptors.
const fdLimitEnv = "SVC_TEST_FDLIMIT_CHILD"

// TestTerrainMeshFewDescriptors imports 12 x 12 DGM tiles and builds their
// terrain mesh in a child process whose RLIMIT_NOFILE is 128: a build that
// holds one descriptor per DGM tile it has read fails with "too many open
// files" (EMFILE) before the end. The child keeps the lowered limit to
// itself.
func TestTerrainMeshFewDescriptors(t *testing.T) {
	if os.Getenv(fdLimitEnv) == "1" {
		terrainMeshChild(t)
		return
	}
	if testing.Short() {
		t.Skip("imports and meshes 144 DGM tiles")
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestTerrainMeshFewDescriptors$", "-test.count=1", "-test.v")
	cmd.Env = append(os.Environ(), fdLimitEnv+"=1")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("child: %v\n%s", err, out)
	}
	t.Logf("child:\n%s", out)
}

func terrainMeshChild(t *testing.T) {
	const soft, side = 128, 12
	var rl syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_NOFILE, &rl); err != nil {
		t.Fatal(err)
	}
	rl.Cur = soft
	if err := syscall.Setrlimit(syscall.RLIMIT_NOFILE, &rl); err != nil {
		t.Fatal(err)
	}
	data := t.TempDir()
	importDGM(t, data, "2026-07-20", side, side, nil)
	m, err := tiles3d.BuildTerrainMesh(context.Background(), tiles3d.TerrainMeshOptions{DataDir: data, BL: "he",
		Workers: 2, Cache: raster.NewCache(4 << 20)})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("terrain mesh of %d DGM tiles (%d files) built with RLIMIT_NOFILE %d, descriptor pool of %d",
		side*side, len(m.Files), soft, raster.DefaultFilePool().Max())
}
