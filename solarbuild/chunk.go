package solarbuild

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/svc-geodata/svc/solarstore"
)

// A chunk file holds the computed buildings of one range of building ids,
// in id order: a magic line, the record count, then per building a record
// (varints; see putRecord). It is written under a temporary name, synced
// and renamed, so a chunk file that exists is complete.
const chunkMagic = "svc-solar-chunk/2\n"

// maxChunkString bounds a string read from a chunk file (a gml:id, a
// reason): a damaged file must not allocate gigabytes.
const maxChunkString = 1 << 16

// maxChunkFacets bounds the facets of one record read back.
const maxChunkFacets = 1 << 20

// record is one building of a chunk: computed (b) or failed (reason).
type record struct {
	b      solarstore.Building
	failed string
}

func chunkPath(dir string, k int64) string {
	return filepath.Join(dir, chunkDir, fmt.Sprintf("%08d.bin", k))
}

// writeChunk writes the records of chunk k.
func writeChunk(dir string, k int64, recs []record) error {
	p := chunkPath(dir, k)
	tmp := p + ".tmp"
	f, err := os.Create(tmp)
	if err != nil {
		return err
	}
	w := bufio.NewWriterSize(f, 1<<16)
	buf := binary.AppendUvarint([]byte(chunkMagic), uint64(len(recs)))
	for i := range recs {
		buf = putRecord(buf, &recs[i])
		if len(buf) > 1<<15 {
			if _, err := w.Write(buf); err != nil {
				f.Close()
				return err
			}
			buf = buf[:0]
		}
	}
	_, err = w.Write(buf)
	if err == nil {
		err = w.Flush()
	}
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return err
	}
	return os.Rename(tmp, p)
}

func putString(b []byte, s string) []byte {
	return append(binary.AppendUvarint(b, uint64(len(s))), s...)
}

// putRecord appends r: kind (0 computed, 1 failed), building id, gml:id,
// then the shading and facets, or the reason.
func putRecord(b []byte, r *record) []byte {
	if r.failed != "" {
		b = binary.AppendUvarint(b, 1)
		b = binary.AppendVarint(b, r.b.ID)
		b = putString(b, r.b.GMLID)
		return putString(b, r.failed)
	}
	b = binary.AppendUvarint(b, 0)
	b = binary.AppendVarint(b, r.b.ID)
	b = putString(b, r.b.GMLID)
	b = putString(b, r.b.Shading)
	b = binary.AppendUvarint(b, uint64(len(r.b.Facets)))
	for _, f := range r.b.Facets {
		b = binary.AppendVarint(b, f.SurfaceID)
		b = binary.AppendUvarint(b, uint64(f.Part))
		b = binary.AppendVarint(b, f.AnnualWhM2)
		b = binary.AppendVarint(b, f.Unshaded)
		b = binary.AppendVarint(b, f.BestWhM2)
		for _, m := range f.MonthlyWhM2 {
			b = binary.AppendVarint(b, m)
		}
		if f.Loss == nil {
			b = append(b, 0)
			continue
		}
		b = append(b, 1)
		b = binary.AppendVarint(b, f.Loss.Terrain)
		b = binary.AppendVarint(b, f.Loss.Buildings)
		b = binary.AppendVarint(b, f.Loss.Trees)
	}
	return b
}

// errChunk marks a chunk file that does not decode.
var errChunk = errors.New("solarbuild: damaged chunk file")

// chunkReader reads the records of one chunk file.
type chunkReader struct {
	r   *bufio.Reader
	f   *os.File
	n   uint64 // records left
	err error
}

func openChunk(p string) (*chunkReader, error) {
	f, err := os.Open(p)
	if err != nil {
		return nil, err
	}
	c := &chunkReader{r: bufio.NewReaderSize(f, 1<<16), f: f}
	magic := make([]byte, len(chunkMagic))
	if _, err := io.ReadFull(c.r, magic); err != nil || string(magic) != chunkMagic {
		f.Close()
		return nil, fmt.Errorf("%w: %s: no chunk header", errChunk, p)
	}
	if c.n, err = binary.ReadUvarint(c.r); err != nil {
		f.Close()
		return nil, fmt.Errorf("%w: %s: %v", errChunk, p, err)
	}
	return c, nil
}

func (c *chunkReader) Close() error { return c.f.Close() }

// next reads the next record; false at the end or on an error (c.err).
func (c *chunkReader) next(r *record) bool {
	if c.n == 0 || c.err != nil {
		return false
	}
	c.n--
	*r = record{}
	if c.err = c.decode(r); c.err != nil {
		c.err = fmt.Errorf("%w: %s: %v", errChunk, c.f.Name(), c.err)
		return false
	}
	return true
}

func (c *chunkReader) str() (string, error) {
	n, err := binary.ReadUvarint(c.r)
	if err != nil {
		return "", err
	}
	if n > maxChunkString {
		return "", fmt.Errorf("string of %d bytes", n)
	}
	b := make([]byte, n)
	_, err = io.ReadFull(c.r, b)
	return string(b), err
}

func (c *chunkReader) decode(r *record) error {
	kind, err := binary.ReadUvarint(c.r)
	if err != nil {
		return err
	}
	if r.b.ID, err = binary.ReadVarint(c.r); err != nil {
		return err
	}
	if r.b.GMLID, err = c.str(); err != nil {
		return err
	}
	if kind == 1 {
		r.failed, err = c.str()
		if err == nil && r.failed == "" {
			err = errors.New("failure without a reason")
		}
		return err
	}
	if kind != 0 {
		return fmt.Errorf("record kind %d", kind)
	}
	if r.b.Shading, err = c.str(); err != nil {
		return err
	}
	nf, err := binary.ReadUvarint(c.r)
	if err != nil {
		return err
	}
	if nf > maxChunkFacets {
		return fmt.Errorf("%d facets", nf)
	}
	r.b.Facets = make([]solarstore.Facet, nf)
	for i := range r.b.Facets {
		if err := c.facet(&r.b.Facets[i]); err != nil {
			return err
		}
	}
	return nil
}

func (c *chunkReader) facet(f *solarstore.Facet) error {
	vals := make([]int64, 0, 20)
	var err error
	var v int64
	read := func(n int) {
		for range n {
			if err != nil {
				return
			}
			v, err = binary.ReadVarint(c.r)
			vals = append(vals, v)
		}
	}
	read(1)
	part, perr := binary.ReadUvarint(c.r)
	if err == nil {
		err = perr
	}
	read(15)
	if err != nil {
		return err
	}
	f.SurfaceID, f.Part, f.AnnualWhM2, f.Unshaded, f.BestWhM2 = vals[0], int(part), vals[1], vals[2], vals[3]
	copy(f.MonthlyWhM2[:], vals[4:16])
	has, err := c.r.ReadByte()
	if err != nil || has == 0 {
		return err
	}
	read(3)
	if err != nil {
		return err
	}
	f.Loss = &solarstore.Loss{Terrain: vals[16], Buildings: vals[17], Trees: vals[18]}
	return nil
}
