package importer

import (
	"os"
	"strconv"
	"testing"
)

// TestWriteSplitSample writes the real NRW tile cut into 8 parts x
// SVC_SPLIT_REPLICAS replicas under SVC_SPLIT_DIR, as input for measuring
// an import's peak RSS with /usr/bin/time -v (docs/performance.md). It is
// a tool, not a test: skipped unless SVC_SPLIT_DIR is set.
func TestWriteSplitSample(t *testing.T) {
	dir := os.Getenv("SVC_SPLIT_DIR")
	if dir == "" {
		t.Skip("SVC_SPLIT_DIR not set: writes measurement input only on request")
	}
	requireSample(t, sampleNRW)
	replicas, err := strconv.Atoi(os.Getenv("SVC_SPLIT_REPLICAS"))
	if err != nil || replicas < 1 {
		t.Fatalf("SVC_SPLIT_REPLICAS: %q", os.Getenv("SVC_SPLIT_REPLICAS"))
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	paths, total := splitSample(t, sampleNRW, dir, splitOptions{Parts: 8, Replicas: replicas})
	t.Logf("%d files, %d bytes in %s", len(paths), total, dir)
}
