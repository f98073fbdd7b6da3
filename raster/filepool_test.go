package raster

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"testing"
	"time"
)

// poolFiles writes n files of 4 KiB, file i filled with byte i.
func poolFiles(t testing.TB, n int) []string {
	t.Helper()
	dir := t.TempDir()
	paths := make([]string, n)
	for i := range n {
		paths[i] = filepath.Join(dir, "f"+strconv.Itoa(i))
		if err := os.WriteFile(paths[i], bytes.Repeat([]byte{byte(i)}, 4096), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return paths
}

func openAll(t testing.TB, p *FilePool, paths []string) []*FileSource {
	t.Helper()
	srcs := make([]*FileSource, len(paths))
	for i, path := range paths {
		s, err := p.Open(path)
		if err != nil {
			t.Fatal(err)
		}
		srcs[i] = s
		t.Cleanup(func() { s.Close() })
	}
	return srcs
}

// readByte reads one byte of s at off and checks it is want.
func readByte(t testing.TB, s *FileSource, off int64, want byte) {
	t.Helper()
	b := make([]byte, 1)
	if _, err := s.ReadAt(context.Background(), b, off); err != nil {
		t.Fatal(err)
	}
	if b[0] != want {
		t.Fatalf("%s at %d: got byte %d, want %d", s.path, off, b[0], want)
	}
}

func TestFilePoolEvictsLeastRecent(t *testing.T) {
	t.Parallel()
	p := NewFilePool(3)
	srcs := openAll(t, p, poolFiles(t, 5))
	if got := p.Held(); got != 3 {
		t.Fatalf("after opening 5 files: %d descriptors held, want 3", got)
	}
	// Open order leaves 2, 3, 4 held; reading 2 makes 3 the least recent.
	readByte(t, srcs[2], 0, 2)
	readByte(t, srcs[0], 10, 0) // reopens 0, evicts 3
	held := func() (h []int) {
		p.mu.Lock()
		defer p.mu.Unlock()
		for i, s := range srcs {
			if s.f != nil {
				h = append(h, i)
			}
		}
		return h
	}
	if got := held(); len(got) != 3 || got[0] != 0 || got[1] != 2 || got[2] != 4 {
		t.Fatalf("held %v, want [0 2 4]", got)
	}
	for i, s := range srcs { // every source still reads its own bytes
		readByte(t, s, 4095, byte(i))
	}
	if got := p.Held(); got != 3 {
		t.Fatalf("%d descriptors held, want 3", got)
	}
	for _, s := range srcs {
		if err := s.Close(); err != nil {
			t.Fatal(err)
		}
	}
	if got := p.Held(); got != 0 {
		t.Fatalf("after Close: %d descriptors held, want 0", got)
	}
	if _, err := srcs[0].ReadAt(context.Background(), make([]byte, 1), 0); !errors.Is(err, os.ErrClosed) {
		t.Fatalf("read after Close: err = %v, want os.ErrClosed", err)
	}
}

func TestFilePoolPinned(t *testing.T) {
	t.Parallel()
	p := NewFilePool(1)
	srcs := openAll(t, p, poolFiles(t, 2))
	f0, err := srcs[0].acquire() // pinned: a read in flight
	if err != nil {
		t.Fatal(err)
	}
	readByte(t, srcs[1], 0, 1) // needs a second descriptor: the pool goes over its bound
	if srcs[0].f != f0 {
		t.Fatal("the pinned descriptor was evicted")
	}
	b := make([]byte, 1)
	if _, err := f0.ReadAt(b, 0); err != nil || b[0] != 0 {
		t.Fatalf("pinned descriptor: byte %d, err %v", b[0], err)
	}
	if got := p.Held(); got != 1 {
		t.Fatalf("while pinned: %d descriptors held, want 1 (the idle one closed at its release)", got)
	}
	srcs[0].release()
	if got := p.Held(); got != 1 {
		t.Fatalf("after release: %d descriptors held, want 1", got)
	}
	// Close while pinned closes at the release.
	f1, err := srcs[1].acquire()
	if err != nil {
		t.Fatal(err)
	}
	if err := srcs[1].Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := f1.ReadAt(b, 0); err != nil || b[0] != 1 {
		t.Fatalf("descriptor pinned across Close: byte %d, err %v", b[0], err)
	}
	srcs[1].release()
	if _, err := f1.ReadAt(b, 0); !errors.Is(err, os.ErrClosed) {
		t.Fatalf("after the last release of a closed source: err = %v, want os.ErrClosed", err)
	}
}

func TestFilePoolConcurrent(t *testing.T) {
	t.Parallel()
	p := NewFilePool(4)
	srcs := openAll(t, p, poolFiles(t, 16))
	var wg sync.WaitGroup
	errs := make(chan error, 8)
	for g := range 8 {
		wg.Go(func() {
			b := make([]byte, 64)
			for k := range 2000 {
				i := (g*7 + k*5) % len(srcs)
				if _, err := srcs[i].ReadAt(context.Background(), b, int64(k%4000)); err != nil {
					errs <- err
					return
				}
				for _, c := range b {
					if c != byte(i) {
						errs <- errors.New("file " + strconv.Itoa(i) + " read byte " + strconv.Itoa(int(c)))
						return
					}
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	if got := p.Held(); got > 4 {
		t.Fatalf("%d descriptors held after the reads, want at most 4", got)
	}
}

func TestFilePoolChangedFile(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		change func(path string) error
	}{
		{"replaced", func(path string) error { // the usual atomic replace: new inode
			tmp := path + ".new"
			if err := os.WriteFile(tmp, bytes.Repeat([]byte{9}, 4096), 0o644); err != nil {
				return err
			}
			return os.Rename(tmp, path)
		}},
		{"removed", os.Remove},
		{"truncated", func(path string) error { return os.Truncate(path, 100) }},
		{"rewritten in place", func(path string) error {
			f, err := os.OpenFile(path, os.O_WRONLY, 0)
			if err != nil {
				return err
			}
			if _, err := f.WriteAt([]byte{9}, 0); err != nil {
				return err
			}
			if err := f.Close(); err != nil {
				return err
			}
			later := time.Now().Add(time.Second)
			return os.Chtimes(path, later, later)
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			p := NewFilePool(1)
			paths := poolFiles(t, 2)
			srcs := openAll(t, p, paths)
			readByte(t, srcs[0], 0, 0) // evicts 1
			if err := tc.change(paths[1]); err != nil {
				t.Fatal(err)
			}
			_, err := srcs[1].ReadAt(context.Background(), make([]byte, 1), 0)
			if !errors.Is(err, ErrChanged) || !errors.Is(err, ErrCorrupt) {
				t.Fatalf("read of a %s file: err = %v, want ErrChanged (ErrCorrupt)", tc.name, err)
			}
			if got := p.Held(); got != 1 {
				t.Fatalf("%d descriptors held, want 1", got)
			}
		})
	}
}

func TestPoolSizeFor(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		soft uint64
		want int
	}{{0, 16}, {256, 64}, {1024, 256}, {20000, 4096}, {1 << 20, 4096}} {
		if got := poolSizeFor(tc.soft); got != tc.want {
			t.Errorf("poolSizeFor(%d) = %d, want %d", tc.soft, got, tc.want)
		}
	}
}

// BenchmarkFilePoolReadAt reads 4 KiB from 64 files round-robin through a
// pool holding them all and through one of 4 that reopens a file (open,
// fstat, identity check, close of the evicted one) on every read.
func BenchmarkFilePoolReadAt(b *testing.B) {
	paths := poolFiles(b, 64)
	for _, bc := range []struct {
		name  string
		files int
	}{{"held", 128}, {"thrashing", 4}} {
		b.Run(bc.name, func(b *testing.B) {
			srcs := openAll(b, NewFilePool(bc.files), paths)
			buf := make([]byte, 4096)
			ctx := context.Background()
			b.ReportAllocs()
			i := 0
			for b.Loop() {
				if _, err := srcs[i%len(srcs)].ReadAt(ctx, buf, 0); err != nil {
					b.Fatal(err)
				}
				i++
			}
		})
	}
}
