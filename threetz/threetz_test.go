package threetz

import (
	"archive/zip"
	"bytes"
	"crypto/md5"
	"encoding/binary"
	"errors"
	"io"
	"testing"
)

// TestIndex: every file is found through the index at the offset of its
// local header, the index is the last entry, and zip readers read it all.
func TestIndex(t *testing.T) {
	t.Parallel()
	files := map[string][]byte{"tileset.json": bytes.Repeat([]byte(`{"asset":{"version":"1.1"}}`), 20),
		"tiles/0_0_0.glb": []byte("glTF...."), "sub/tileset.json": []byte(`{}`)}
	var b bytes.Buffer
	w := NewWriter(&b)
	for _, p := range []string{"tileset.json", "tiles/0_0_0.glb", "sub/tileset.json"} {
		if err := w.Add(p, files[p]); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Add("tiles/0_0_0.glb", nil); !errors.Is(err, ErrPath) {
		t.Fatalf("repeated path: %v", err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	zr, err := zip.NewReader(bytes.NewReader(b.Bytes()), int64(b.Len()))
	if err != nil {
		t.Fatal(err)
	}
	last := zr.File[len(zr.File)-1]
	if last.Name != IndexName || last.Method != zip.Store {
		t.Fatalf("last entry %s (method %d), want the stored index", last.Name, last.Method)
	}
	rc, _ := last.Open()
	idx, _ := io.ReadAll(rc)
	if len(idx) != 24*len(files) {
		t.Fatalf("index of %d bytes for %d files", len(idx), len(files))
	}
	for _, f := range zr.File[:len(zr.File)-1] {
		h := md5.Sum([]byte(f.Name))
		found := false
		for i := 0; i < len(idx); i += 24 {
			if bytes.Equal(idx[i:i+16], h[:]) {
				off, _ := f.DataOffset()
				lh := off - 30 - int64(len(f.Name)) - int64(len(f.Extra))
				if got := binary.LittleEndian.Uint64(idx[i+16:]); got != uint64(lh) {
					t.Fatalf("%s: index offset %d, local header at %d", f.Name, got, lh)
				}
				found = true
			}
		}
		rc, _ := f.Open()
		data, err := io.ReadAll(rc)
		if !found || err != nil || !bytes.Equal(data, files[f.Name]) {
			t.Fatalf("%s: in index %v, read %v, equal %v", f.Name, found, err, bytes.Equal(data, files[f.Name]))
		}
	}
}

// TestSameBytes: the same files in the same order give the same archive.
func TestSameBytes(t *testing.T) {
	t.Parallel()
	write := func() []byte {
		var b bytes.Buffer
		w := NewWriter(&b)
		for _, p := range []string{"tileset.json", "a/b.glb"} {
			if err := w.Add(p, []byte(p+p+p)); err != nil {
				t.Fatal(err)
			}
		}
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
		return b.Bytes()
	}
	if !bytes.Equal(write(), write()) {
		t.Fatal("two archives of the same files differ")
	}
}
