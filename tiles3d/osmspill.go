package tiles3d

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"os"

	"github.com/svc-geodata/svc/osmdata"
)

// featureSpill keeps the OSM features of an osm-cover build on disk: each
// feature's fields in a compact binary record (float64 bits as they are,
// so a feature read back is the one written), one after the other in a
// temporary file, read back by index with ReadAt (safe from several
// workers). In memory it holds 8 bytes per feature, where the features
// themselves take kilobytes: a state's extract is read tile by tile.
type featureSpill struct {
	f   *os.File
	w   *bufio.Writer
	off []int64 // record i is off[i]..off[i+1] (the last up to end)
	end int64
	buf []byte
}

var errSpill = errors.New("tiles3d: corrupt feature spill record")

// newFeatureSpill creates the spill file at path (removed by close).
func newFeatureSpill(path string) (*featureSpill, error) {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return nil, fmt.Errorf("tiles3d: %w", err)
	}
	return &featureSpill{f: f, w: bufio.NewWriterSize(f, 1<<20)}, nil
}

// add appends f and returns its index.
func (s *featureSpill) add(f *osmdata.Feature) (int32, error) {
	if len(s.off) >= math.MaxInt32 {
		return 0, fmt.Errorf("tiles3d: more than %d OSM features", math.MaxInt32)
	}
	s.buf = appendFeature(s.buf[:0], f)
	if _, err := s.w.Write(s.buf); err != nil {
		return 0, fmt.Errorf("tiles3d: feature spill: %w", err)
	}
	s.off = append(s.off, s.end)
	s.end += int64(len(s.buf))
	return int32(len(s.off) - 1), nil
}

// len is the number of features added.
func (s *featureSpill) len() int { return len(s.off) }

// done flushes the writes; at may be called from then on.
func (s *featureSpill) done() error {
	if err := s.w.Flush(); err != nil {
		return fmt.Errorf("tiles3d: feature spill: %w", err)
	}
	return nil
}

// at reads feature i back.
func (s *featureSpill) at(i int32) (osmdata.Feature, error) {
	end := s.end
	if int(i)+1 < len(s.off) {
		end = s.off[i+1]
	}
	b := make([]byte, end-s.off[i])
	if _, err := s.f.ReadAt(b, s.off[i]); err != nil {
		return osmdata.Feature{}, fmt.Errorf("tiles3d: feature spill: %w", err)
	}
	f, err := decodeFeature(b)
	if err != nil {
		return osmdata.Feature{}, fmt.Errorf("tiles3d: feature %d: %w", i, err)
	}
	return f, nil
}

// close removes the spill file.
func (s *featureSpill) close() error {
	name := s.f.Name()
	err := s.f.Close()
	if rerr := os.Remove(name); err == nil {
		err = rerr
	}
	return err
}

func appendFeature(b []byte, f *osmdata.Feature) []byte {
	b = binary.AppendVarint(b, f.ID)
	for _, s := range []string{f.Type, f.Theme, f.Class, f.Name} {
		b = binary.AppendUvarint(b, uint64(len(s)))
		b = append(b, s...)
	}
	b = binary.AppendUvarint(b, uint64(len(f.Polygons)))
	for _, p := range f.Polygons {
		b = binary.AppendUvarint(b, uint64(len(p)))
		for _, r := range p {
			b = appendPoints(b, r)
		}
	}
	b = binary.AppendUvarint(b, uint64(len(f.Lines)))
	for _, l := range f.Lines {
		b = appendPoints(b, l)
	}
	b = binary.LittleEndian.AppendUint64(b, math.Float64bits(f.WidthM))
	b = binary.AppendVarint(b, int64(f.Layer))
	var flags byte
	if f.Bridge {
		flags |= 1
	}
	if f.Tunnel {
		flags |= 2
	}
	return append(b, flags)
}

func appendPoints(b []byte, pts [][2]float64) []byte {
	b = binary.AppendUvarint(b, uint64(len(pts)))
	for _, q := range pts {
		b = binary.LittleEndian.AppendUint64(b, math.Float64bits(q[0]))
		b = binary.LittleEndian.AppendUint64(b, math.Float64bits(q[1]))
	}
	return b
}

// spillReader decodes one record; the first error sticks.
type spillReader struct {
	b   []byte
	err error
}

func (r *spillReader) uvarint(limit int) int {
	v, n := binary.Uvarint(r.b)
	if n <= 0 || v > uint64(limit) {
		r.err, r.b = errSpill, nil
		return 0
	}
	r.b = r.b[n:]
	return int(v)
}

func (r *spillReader) varint() int64 {
	v, n := binary.Varint(r.b)
	if n <= 0 {
		r.err, r.b = errSpill, nil
		return 0
	}
	r.b = r.b[n:]
	return v
}

func (r *spillReader) float() float64 {
	if len(r.b) < 8 {
		r.err, r.b = errSpill, nil
		return 0
	}
	v := math.Float64frombits(binary.LittleEndian.Uint64(r.b))
	r.b = r.b[8:]
	return v
}

func (r *spillReader) str() string {
	n := r.uvarint(len(r.b))
	s := string(r.b[:n])
	r.b = r.b[n:]
	return s
}

// points reads a point list; a count is bounded by the bytes left, so a
// bad record cannot allocate more than its size.
func (r *spillReader) points() [][2]float64 {
	n := r.uvarint(len(r.b) / 16)
	if n == 0 {
		return nil
	}
	pts := make([][2]float64, n)
	for i := range pts {
		pts[i] = [2]float64{r.float(), r.float()}
	}
	return pts
}

func decodeFeature(b []byte) (osmdata.Feature, error) {
	r := &spillReader{b: b}
	f := osmdata.Feature{ID: r.varint(), Type: r.str(), Theme: r.str(), Class: r.str(), Name: r.str()}
	if n := r.uvarint(len(r.b)); n > 0 {
		f.Polygons = make([][][][2]float64, n)
		for i := range f.Polygons {
			if m := r.uvarint(len(r.b)); m > 0 {
				f.Polygons[i] = make([][][2]float64, m)
				for j := range f.Polygons[i] {
					f.Polygons[i][j] = r.points()
				}
			}
		}
	}
	if n := r.uvarint(len(r.b)); n > 0 {
		f.Lines = make([][][2]float64, n)
		for i := range f.Lines {
			f.Lines[i] = r.points()
		}
	}
	f.WidthM = r.float()
	f.Layer = int(r.varint())
	if len(r.b) != 1 {
		return osmdata.Feature{}, errSpill
	}
	f.Bridge, f.Tunnel = r.b[0]&1 != 0, r.b[0]&2 != 0
	if r.err != nil {
		return osmdata.Feature{}, r.err
	}
	return f, nil
}
