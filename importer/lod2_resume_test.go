package importer

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/svc-geodata/svc/lod2store"
	"github.com/svc-geodata/svc/pack"
)

// TestImportLoD2ResumeAfterCancel stops an import of the real Berlin tile
// (cut and replicated into 24 files, about 70 MB) by cancelling its
// context once 14 files are written, then: --resume continues after the
// last checkpoint without reading the files before it again and yields
// byte for byte the pack of an uninterrupted import (time stamps
// masked); an import without --resume discards the interrupted one, says
// why, and yields it too.
func TestImportLoD2ResumeAfterCancel(t *testing.T) {
	requireSample(t, sampleBE)
	paths, _ := splitSample(t, sampleBE, t.TempDir(), splitOptions{Parts: 2, Replicas: 12})
	common := func(data string) Common {
		return Common{DataDir: data, BL: "be", Snapshot: "2026-07-20", LicenseID: "dl-de-zero-2.0", Workers: 2}
	}
	ref := t.TempDir()
	if _, err := LoD2(context.Background(), common(ref), paths); err != nil {
		t.Fatal(err)
	}
	refDir := filepath.Join(ref, "lod2", "be", "2026-07-20")
	// interrupt returns how many files the journal says are done.
	interrupt := func(t *testing.T, data string) int {
		t.Helper()
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		c := common(data)
		c.Progress = func(p Progress) {
			if p.Files >= 14 { // the first checkpoint comes after about 12 (16 MiB)
				cancel()
			}
		}
		_, err := LoD2(ctx, c, paths)
		if err == nil {
			t.Skip("the import finished before the cancel reached it")
		}
		if !errors.Is(err, context.Canceled) {
			t.Fatalf("interrupted import: %v", err)
		}
		r, ok, err := readJournal(filepath.Join(data, "lod2", "be", pack.ResumePrefix+"2026-07-20"),
			journalHeader{Format: journalFormat, BL: "be", Snapshot: "2026-07-20", Inputs: len(paths)})
		if !ok || err != nil || len(r.files) == 0 {
			t.Fatalf("no checkpoint kept: %v %v", ok, err)
		}
		return len(r.files)
	}
	same := func(t *testing.T, data string) {
		t.Helper()
		dir := filepath.Join(data, "lod2", "be", "2026-07-20")
		for _, f := range []string{LoD2File, LoD2File + lod2store.SearchFileSuffix} {
			a, _ := os.ReadFile(filepath.Join(refDir, f))
			b, _ := os.ReadFile(filepath.Join(dir, f))
			if d := firstDiff(maskStamps(a), maskStamps(b)); d != "" {
				t.Errorf("%s differs from the uninterrupted import's: %s", f, d)
			}
		}
		if entries, _ := os.ReadDir(filepath.Join(data, "lod2", "be")); len(entries) != 1 {
			t.Errorf("the BL directory holds %d entries, want the snapshot only", len(entries))
		}
	}

	t.Run("resume", func(t *testing.T) {
		data := t.TempDir()
		done := interrupt(t, data)
		var sum LoD2Summary
		c := common(data)
		c.Resume, c.Summary = true, &sum
		// Files done before the checkpoint are not read again: made
		// unreadable, they would be bad files.
		for _, p := range paths[:done] {
			os.Chmod(p, 0)
		}
		defer func() {
			for _, p := range paths {
				os.Chmod(p, 0o644)
			}
		}()
		if _, err := LoD2(context.Background(), c, paths); err != nil {
			t.Fatal(err)
		}
		if sum.ResumedFiles != done || len(sum.BadFiles) != 0 || sum.Restarted != "" {
			t.Errorf("resumed %d of %d files, bad %v, restarted %q", sum.ResumedFiles, len(paths), sum.BadFiles, sum.Restarted)
		}
		t.Logf("resumed after %d of %d files", sum.ResumedFiles, len(paths))
		same(t, data)
	})
	t.Run("start over", func(t *testing.T) {
		data := t.TempDir()
		interrupt(t, data)
		var sum LoD2Summary
		c := common(data)
		c.Summary = &sum
		if _, err := LoD2(context.Background(), c, paths); err != nil {
			t.Fatal(err)
		}
		if sum.ResumedFiles != 0 || sum.Restarted == "" {
			t.Errorf("resumed %d files, restarted %q", sum.ResumedFiles, sum.Restarted)
		}
		same(t, data)
	})
}
