package tiles3d

import (
	"crypto/sha256"
	"encoding/binary"
	"sort"
	"strconv"

	"github.com/svc-geodata/svc/lod2store"
)

// A building leaf is keyed twice. Its source key hashes, per building, the
// building id and the source file it came from (the LoD2 pack's
// source_files: name-independent SHA-256 and size of the file's content,
// and the file's first building id): it is computed from the pack's
// extents and source table alone, without reading geometry. An import
// writes the buildings of one file with consecutive ids in file order, and
// the LoD2 import copies the rows of a file whose content is unchanged
// from the previous pack instead of parsing it again, so equal source
// keys mean equal buildings. Only where the source keys differ (a changed
// file, ids shifted, a pack without source_files) is the geometry read and
// hashed (the inputs key), and only where that differs too is the leaf
// built. Files that repeated gml:ids of earlier files (Duplicates > 0)
// give no source key: which of their buildings were kept depends on the
// files before them.

// buildingSources finds the source file of a building id.
type buildingSources struct {
	files []lod2store.SourceFile // by FirstBuilding
	// prints are, per file, the SHA-256 of its content hash, size and
	// first building id; nil for a file that gives no source key.
	prints [][]byte
}

// newBuildingSources indexes the source files of a LoD2 pack; nil (no
// source keys) when the pack records none.
func newBuildingSources(files []lod2store.SourceFile) *buildingSources {
	if len(files) == 0 {
		return nil
	}
	bs := &buildingSources{files: append([]lod2store.SourceFile(nil), files...)}
	sort.Slice(bs.files, func(i, j int) bool { return bs.files[i].FirstBuilding < bs.files[j].FirstBuilding })
	bs.prints = make([][]byte, len(bs.files))
	for i, f := range bs.files {
		if f.Duplicates == 0 {
			p := sha256.Sum256([]byte(f.SHA256 + "/" + strconv.FormatInt(f.Size, 10) + "/" + strconv.FormatInt(f.FirstBuilding, 10)))
			bs.prints[i] = p[:]
		}
	}
	return bs
}

// file returns the index of the source file of building id, -1 when none
// holds it.
func (bs *buildingSources) file(id int64) int {
	i := sort.Search(len(bs.files), func(i int) bool { return bs.files[i].FirstBuilding > id }) - 1
	if i < 0 || id >= bs.files[i].FirstBuilding+bs.files[i].Buildings {
		return -1
	}
	return i
}

// key is the source key of a leaf whose buildings are ids, with the leaf's
// own parts (name, frame, zone); "" when a building has no usable source
// file (or bs is nil), which never matches.
func (bs *buildingSources) key(ids []int64, parts ...any) string {
	if bs == nil || len(ids) == 0 {
		return ""
	}
	ih := newInputHash(append([]any{"sources"}, parts...)...)
	buf := make([]byte, 0, len(ids)*(8+sha256.Size))
	for _, id := range ids {
		i := bs.file(id)
		if i < 0 || bs.prints[i] == nil {
			return ""
		}
		buf = binary.LittleEndian.AppendUint64(buf, uint64(id))
		buf = append(buf, bs.prints[i]...)
	}
	ih.h.Write(buf)
	return ih.sum()
}

// filesOf returns, per building of ext (sorted by id), the index of its
// source file in bs, -1 for a building no file holds; nil when bs is nil.
// The quadtree keeps a file's buildings out of other files' leaves.
func (bs *buildingSources) filesOf(ext []lod2store.BuildingExtent) []int32 {
	if bs == nil {
		return nil
	}
	out := make([]int32, len(ext))
	f := 0
	for i, e := range ext {
		for f < len(bs.files) && e.BuildingID >= bs.files[f].FirstBuilding+bs.files[f].Buildings {
			f++
		}
		out[i] = -1
		if f < len(bs.files) && e.BuildingID >= bs.files[f].FirstBuilding {
			out[i] = int32(f)
		}
	}
	return out
}
