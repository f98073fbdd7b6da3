package importer

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"hash"
	"io"
	"sync/atomic"

	"github.com/svc-geodata/svc/bl"
	"github.com/svc-geodata/svc/citygml"
	"github.com/svc-geodata/svc/geo"
	"github.com/svc-geodata/svc/lod2store"
)

// fileResult is one input file parsed, validated and encoded by a worker,
// waiting for the writer.
type fileResult struct {
	idx    int
	in     citygml.Input
	epsg   int // CRS of the file's buildings; 0 when it has none
	blds   []lod2store.Prepared
	meta   []buildingMeta // follows blds
	tally  *bl.Tally      // where the buildings lie; nil without any vertex
	sha256 string         // of the bytes read (the whole file unless err)
	err    error          // the file is bad: nothing of it is written
	// reuse is the previous pack's record of a file of the same content:
	// its rows are copied, the file was not parsed.
	reuse  *lod2store.SourceFile
	copied *journalFile // what the copy took over
}

// buildingMeta is what the summary needs of a building.
type buildingMeta struct {
	id     string
	line   int
	detail *InvalidBuilding // nil when the building passed validation
}

// hashReader hashes what is read through it.
type hashReader struct {
	r io.Reader
	h hash.Hash
}

func (hr hashReader) Read(p []byte) (int, error) {
	n, err := hr.r.Read(p)
	hr.h.Write(p[:n])
	return n, err
}

// worker parses files; its Preparers (one per CRS met) keep their scratch
// buffers from file to file. A worker is used by one goroutine.
type worker struct {
	st     bl.State
	preps  map[int]*lod2store.Preparer
	bytes  *atomic.Int64 // bytes parsed by all workers, for progress
	parsed *atomic.Int64 // files parsed
	prev   *previous     // nil: parse every file
	known  []match       // when patching: the inputs already looked up
}

// parse reads the whole input into a fileResult. Any error (unreadable,
// malformed, a building the store cannot hold, buildings in two CRSs) is
// the result's err, naming the file and line.
func (wk *worker) parse(ctx context.Context, idx int, in citygml.Input) *fileResult {
	res := &fileResult{idx: idx, in: in}
	if wk.known != nil { // looked up already (lod2patch.go)
		if k := wk.known[idx]; k.src != nil {
			res.reuse, res.sha256 = k.src, k.sum
			wk.bytes.Add(in.Size)
			return res
		}
	} else if wk.prev != nil {
		src, sum, err := wk.prev.lookup(res)
		if err == nil && src != nil {
			res.reuse, res.sha256 = src, sum
			wk.bytes.Add(in.Size)
			return res
		}
	}
	wk.parsed.Add(1)
	if err := wk.parseInto(ctx, res); err != nil {
		res.blds, res.meta, res.tally, res.err = nil, nil, nil, err
	}
	return res
}

func (wk *worker) parseInto(ctx context.Context, res *fileResult) error {
	rc, err := res.in.Open()
	if err != nil {
		return err
	}
	defer rc.Close()
	h := sha256.New()
	r := citygml.NewReader(hashReader{rc, h}, res.in.Name)
	var reported int64
	defer func() { wk.bytes.Add(r.Offset() - reported) }()
	for n := 0; ; n++ {
		if n%256 == 0 {
			if err := ctx.Err(); err != nil {
				return err
			}
		}
		b, err := r.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return err
		}
		if err := wk.building(res, b); err != nil {
			return err
		}
		if off := r.Offset(); off-reported >= 1<<20 {
			wk.bytes.Add(off - reported)
			reported = off
		}
	}
	res.sha256 = hex.EncodeToString(h.Sum(nil))
	return nil
}

// building converts, validates and encodes one building into res.
func (wk *worker) building(res *fileResult, b *citygml.Building) error {
	if res.epsg == 0 {
		res.epsg = b.EPSG
	}
	if b.EPSG != res.epsg {
		return fmt.Errorf("%s:%d: building %s is in EPSG:%d, the file's first building in EPSG:%d",
			res.in.Name, b.Line, b.ID, b.EPSG, res.epsg)
	}
	pr := wk.preps[b.EPSG]
	if pr == nil {
		var err error
		if pr, err = lod2store.NewPreparer(b.EPSG); err != nil {
			return fmt.Errorf("%s:%d: %w", res.in.Name, b.Line, err)
		}
		wk.preps[b.EPSG] = pr
	}
	in := convert(b)
	p, err := pr.Prepare(in)
	if err != nil {
		return fmt.Errorf("%s:%d: %w", res.in.Name, b.Line, err)
	}
	m := buildingMeta{id: b.ID, line: b.Line}
	if !in.Valid {
		d := citygml.Defects(b, citygml.DefaultPlanarityTolM)
		m.detail = &InvalidBuilding{ID: b.ID, Source: fmt.Sprintf("%s:%d", res.in.Name, b.Line),
			Defects: d[:min(len(d), maxDefects):min(len(d), maxDefects)], Failed: len(d)}
	}
	res.blds = append(res.blds, p)
	res.meta = append(res.meta, m)
	wk.locate(res, b)
	return nil
}

// locate counts the building's first vertex for the place check of its
// file.
func (wk *worker) locate(res *fileResult, b *citygml.Building) {
	z, err := geo.ZoneForEPSG(b.EPSG)
	if err != nil {
		return
	}
	for _, s := range b.Surfaces {
		for _, p := range s.Polygons {
			if len(p.Exterior) > 0 {
				if res.tally == nil {
					res.tally = bl.NewTally(wk.st, bl.BorderMarginM)
				}
				lon, lat := geo.FromUTM(z, p.Exterior[0][0], p.Exterior[0][1])
				res.tally.Add(lon, lat)
				return
			}
		}
	}
}
