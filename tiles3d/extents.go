package tiles3d

import (
	"context"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"math"
	"os"
	"path/filepath"

	"github.com/svc-geodata/svc/lod2store"
)

// The quadtree of a building tileset is laid out from the footprint box of
// every building (lod2store.LoD2.Extents), which scans every surface record
// of the search file: about 1 % of a full build, 10 % of an incremental one
// where 5 % of the files changed. A building pack therefore keeps, in
// ExtentsFile, the boxes of the buildings of each source file, keyed by the
// file's content (SHA-256 and size, as the LoD2 pack's source_files record
// it). The next build takes the boxes of an unchanged file from there and
// scans only the surfaces of the changed files (lod2store.LoD2.ExtentsIn):
// the LoD2 import copies the rows of an unchanged file, so its buildings
// are the same, under ids shifted by where the file starts. The boxes are
// the same float64 values either way, so is the tileset.
const (
	// ExtentsFile is the name of the sidecar in a building pack.
	ExtentsFile  = "build-extents.bin"
	extentsMagic = "SVCEXT01"
)

// extentsKey names a source file by its content.
type extentsKey struct {
	sha256 string
	size   int64
}

// fileExtents are the boxes of a file's buildings in id order, as stored
// in ExtentsFile: 4 little-endian float64 each (minX, minY, maxX, maxY; a
// building without surfaces has +Inf as minX). They stay encoded, a slice
// of the file, so that a state's boxes are held once while read.
type fileExtents []byte

// box returns the box of the k-th building.
func (f fileExtents) box(k int) [4]float64 {
	var b [4]float64
	for c := range b {
		b[c] = math.Float64frombits(binary.LittleEndian.Uint64(f[32*k+8*c:]))
	}
	return b
}

// buildingExtents returns the footprint box of every building of st by id,
// taking those of the source files listed in prev (the previous build's
// ExtentsFile; nil for none) from there and scanning the search file for
// the others; it counts the buildings scanned in stats.Scanned. A pack
// whose source files do not account for all its buildings and surfaces is
// scanned whole.
func buildingExtents(ctx context.Context, st *lod2store.LoD2, bs *buildingSources, prev map[extentsKey]fileExtents, stats *BuildStats) ([]lod2store.BuildingExtent, error) {
	buildings, surfaces := st.Counts()
	// Without boxes to take, one pass over the search file in its order
	// (ExtentsIn reads the records of a file's surfaces by id, scattered
	// over the Hilbert-ordered file).
	if bs == nil || len(prev) == 0 || !coversAll(bs.files, buildings, surfaces) {
		stats.Scanned.Add(buildings)
		return st.Extents(ctx)
	}
	out := make([]lod2store.BuildingExtent, 0, min(buildings, 1<<24))
	for _, f := range bs.files {
		if p, ok := prev[extentsKey{f.SHA256, f.Size}]; ok && f.Duplicates == 0 && int64(len(p)) == 32*f.Buildings {
			for k := range int(f.Buildings) {
				if b := p.box(k); !math.IsInf(b[0], 1) {
					out = append(out, lod2store.BuildingExtent{BuildingID: f.FirstBuilding + int64(k), MinX: b[0], MinY: b[1], MaxX: b[2], MaxY: b[3]})
				}
			}
			continue
		}
		ext, err := st.ExtentsIn(ctx, f.FirstSurface, f.Surfaces)
		if err != nil {
			return nil, err
		}
		stats.Scanned.Add(f.Buildings)
		for _, e := range ext {
			if e.BuildingID < f.FirstBuilding || e.BuildingID >= f.FirstBuilding+f.Buildings {
				// A surface of another file's building: the ranges do not
				// hold what they say, so take the boxes of the whole file.
				stats.Scanned.Add(buildings)
				return st.Extents(ctx)
			}
		}
		out = append(out, ext...)
	}
	return out, nil
}

// coversAll tells whether files (by FirstBuilding) hold buildings and
// surfaces in ascending ranges that do not overlap and add up to the pack's
// counts: every building once. The ranges may leave gaps: a pack that
// patched its predecessor (lod2store.PatchLoD2) does not reuse the ids of
// the files it replaced.
func coversAll(files []lod2store.SourceFile, buildings, surfaces int64) bool {
	nb, ns := int64(1), int64(1) // the first id the next file may use
	var sb, ss int64
	for _, f := range files {
		if f.FirstBuilding < nb || f.FirstSurface < ns || f.Buildings < 0 || f.Surfaces < 0 {
			return false
		}
		nb, ns = f.FirstBuilding+f.Buildings, f.FirstSurface+f.Surfaces
		sb, ss = sb+f.Buildings, ss+f.Surfaces
	}
	return sb == buildings && ss == surfaces
}

// writeExtents writes ExtentsFile into dir: for each source file without
// repeated gml:ids, its key and the boxes of its buildings from ext (by
// id). Files are in the order of bs, so the bytes depend only on the pack.
func writeExtents(dir string, bs *buildingSources, ext []lod2store.BuildingExtent) error {
	if bs == nil {
		return nil
	}
	b := append([]byte(nil), extentsMagic...)
	var n uint32
	for _, f := range bs.files {
		if f.Duplicates == 0 {
			n++
		}
	}
	b = binary.LittleEndian.AppendUint32(b, n)
	i := 0
	for _, f := range bs.files {
		if f.Duplicates != 0 {
			continue
		}
		b = binary.LittleEndian.AppendUint16(b, uint16(len(f.SHA256)))
		b = append(b, f.SHA256...)
		b = binary.LittleEndian.AppendUint64(b, uint64(f.Size))
		b = binary.LittleEndian.AppendUint64(b, uint64(f.Buildings))
		for id := f.FirstBuilding; id < f.FirstBuilding+f.Buildings; id++ {
			for i < len(ext) && ext[i].BuildingID < id {
				i++
			}
			box := [4]float64{math.Inf(1), math.Inf(1), math.Inf(-1), math.Inf(-1)}
			if i < len(ext) && ext[i].BuildingID == id {
				box = [4]float64{ext[i].MinX, ext[i].MinY, ext[i].MaxX, ext[i].MaxY}
			}
			for _, v := range box {
				b = binary.LittleEndian.AppendUint64(b, math.Float64bits(v))
			}
		}
	}
	if err := os.WriteFile(filepath.Join(dir, ExtentsFile), b, 0o644); err != nil {
		return fmt.Errorf("tiles3d: %w", err)
	}
	return nil
}

// readExtents reads ExtentsFile of the previous build in prevDir when its
// SHA-256 is sum (the previous manifest's); nil when it is missing,
// damaged or of another format, and the boxes are scanned again.
func readExtents(prevDir, sum string) map[extentsKey]fileExtents {
	if prevDir == "" || sum == "" {
		return nil
	}
	b, err := os.ReadFile(filepath.Join(prevDir, ExtentsFile))
	if err != nil {
		return nil
	}
	if h := sha256.Sum256(b); hex.EncodeToString(h[:]) != sum {
		return nil
	}
	if len(b) < len(extentsMagic)+4 || string(b[:len(extentsMagic)]) != extentsMagic {
		return nil
	}
	n := binary.LittleEndian.Uint32(b[len(extentsMagic):])
	b = b[len(extentsMagic)+4:]
	out := map[extentsKey]fileExtents{}
	for range n {
		if len(b) < 2 {
			return nil
		}
		l := int(binary.LittleEndian.Uint16(b))
		if len(b) < 2+l+16 {
			return nil
		}
		k := extentsKey{sha256: string(b[2 : 2+l]), size: int64(binary.LittleEndian.Uint64(b[2+l:]))}
		cnt := binary.LittleEndian.Uint64(b[2+l+8:])
		b = b[2+l+16:]
		if cnt > uint64(len(b)/32) { // bounds the allocation by the file
			return nil
		}
		out[k] = fileExtents(b[:32*cnt])
		b = b[32*cnt:]
	}
	if len(b) != 0 {
		return nil
	}
	return out
}
