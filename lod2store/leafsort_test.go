package lod2store

import (
	"bytes"
	"context"
	"encoding/binary"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strconv"
	"strings"
	"testing"
)

// writeTownRuns writes n box buildings like writeTown with the leaf
// entries sorted in runs of runLen (0: the default).
func writeTownRuns(t testing.TB, dir string, n, runLen int) string {
	t.Helper()
	path := filepath.Join(dir, fmt.Sprintf("lod2-%d.sqlite", runLen))
	w, err := CreateLoD2(context.Background(), path, 25832)
	if err != nil {
		t.Fatal(err)
	}
	w.runLen = runLen
	rng := rand.New(rand.NewPCG(11, 7))
	for i := range n {
		x, y := 470000+rng.Float64()*2000, 5600000+rng.Float64()*2000
		if i%10 == 0 { // identical boxes: ties of the Hilbert key keep the surface id order
			x, y = 471000, 5601000
		}
		b := BuildingInput{GMLID: fmt.Sprintf("DENW%08d", i), Valid: true, Surfaces: prism(x, y, 5+rng.Float64()*15, 5+rng.Float64()*15, 100, 10)}
		if err := w.Add(context.Background(), b); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := w.Finish(context.Background(), map[string]string{"bl": "nrw"}); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestStreamedIndexEqualsInMemory: the search file and R*Tree of a pack
// whose leaf entries were sorted in many runs merged on disk equal those of
// one run, and the streamed index equals the in-memory reference
// buildIndex over the surfaces' boxes; the pack is searched alike.
func TestStreamedIndexEqualsInMemory(t *testing.T) {
	dir := t.TempDir()
	const n = 700 // 4,200 surfaces: 3 levels above the leaves
	one := writeTownRuns(t, dir, n, 0)
	for _, runLen := range []int{1, 7, 1000} {
		t.Run(strconv.Itoa(runLen), func(t *testing.T) {
			many := writeTownRuns(t, dir, n, runLen)
			a, _ := os.ReadFile(many + SearchFileSuffix)
			b, _ := os.ReadFile(one + SearchFileSuffix)
			if i := firstDiff(a, b); i >= 0 {
				t.Fatalf("search file of runs of %d differs from one run's at byte %d of %d", runLen, i, len(b))
			}
			if dumpRows(t, many) != dumpRows(t, one) {
				t.Fatalf("rows or R*Tree of runs of %d differ from one run's", runLen)
			}
			if entries, _ := filepath.Glob(filepath.Join(dir, "*.run*")); len(entries) > 0 {
				t.Errorf("runs left behind: %v", entries)
			}
		})
	}
	sf, err := openSearchFile(one + SearchFileSuffix)
	if err != nil {
		t.Fatal(err)
	}
	defer sf.close()
	ids := make([]uint32, sf.idx.n)
	boxes := make([]box, sf.idx.n)
	for pos := range sf.idx.n {
		r, _ := sf.record(pos)
		p, err := parseRecord(r)
		if err != nil {
			t.Fatal(err)
		}
		ids[p.surfaceID-1], boxes[p.surfaceID-1] = p.surfaceID, recordBox(p)
	}
	want, _ := buildIndex(ids, boxes)
	data, _ := os.ReadFile(one + SearchFileSuffix)
	got := data[16 : 16+binary.LittleEndian.Uint64(data[8:])]
	if i := firstDiff(got, want); i >= 0 {
		t.Fatalf("streamed index differs from buildIndex at byte %d of %d", i, len(want))
	}
}

func firstDiff(a, b []byte) int {
	if bytes.Equal(a, b) {
		return -1
	}
	for i := range min(len(a), len(b)) {
		if a[i] != b[i] {
			return i
		}
	}
	return min(len(a), len(b))
}

// TestWriterPeakRSSFlat writes 20,000 and 80,000 box buildings (120,000
// and 480,000 surfaces) in child processes and compares their peak RSS
// (VmHWM, what /usr/bin/time -v reports): a writer that keeps ids and boxes per
// surface and maps the whole record spool while writing the search file
// grows by about 150 MB between the two; the external sort by little more
// than its run buffer.
func TestWriterPeakRSSFlat(t *testing.T) {
	if n := os.Getenv("SVC_TEST_RSS_BUILDINGS"); n != "" {
		count, _ := strconv.Atoi(n)
		writeTownRuns(t, os.Getenv("SVC_TEST_RSS_DIR"), count, 0)
		status, err := os.ReadFile("/proc/self/status")
		if err != nil {
			t.Fatal(err)
		}
		for _, line := range strings.Split(string(status), "\n") {
			if strings.HasPrefix(line, "VmHWM:") {
				fmt.Println("peak", strings.Fields(line)[1]) // kB
			}
		}
		return
	}
	if testing.Short() {
		t.Skip("writes 600,000 surfaces")
	}
	if runtime.GOOS != "linux" {
		t.Skip("peak RSS is read from /proc/self/status (Linux)")
	}
	peak := func(buildings int) int64 {
		cmd := exec.Command(os.Args[0], "-test.run=^TestWriterPeakRSSFlat$", "-test.count=1")
		cmd.Env = append(os.Environ(), "SVC_TEST_RSS_BUILDINGS="+strconv.Itoa(buildings), "SVC_TEST_RSS_DIR="+t.TempDir())
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("%d buildings: %v\n%s", buildings, err, out)
		}
		// VmHWM of the child itself: its ru_maxrss counts the parent's
		// pages at the fork.
		m := regexp.MustCompile(`(?m)^peak (\d+)$`).FindSubmatch(out)
		if m == nil {
			t.Fatalf("%d buildings: no peak in\n%s", buildings, out)
		}
		kb, _ := strconv.ParseInt(string(m[1]), 10, 64)
		return kb / 1024
	}
	small, large := peak(20000), peak(80000)
	t.Logf("peak RSS: %d MB for 120,000 surfaces, %d MB for 480,000", small, large)
	if large-small > 48 {
		t.Errorf("peak RSS grows by %d MB from 120,000 to 480,000 surfaces (%d -> %d MB), want at most 48 MB (the sort's run buffer)", large-small, small, large)
	}
}
