package maplayer

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"sync"

	"github.com/svc-geodata/svc/geo"
	"github.com/svc-geodata/svc/pmtiles"
)

// Export is what WritePMTiles writes: the layer's tiles of zooms
// MinZoom..MaxZoom (clamped to the layer's) meeting BBox (WGS84).
type Export struct {
	BBox             geo.BBox
	MinZoom, MaxZoom int
	// Workers make tiles in parallel (0: all cores); the archive's bytes do
	// not depend on it.
	Workers int
	// Progress, when set, is called after each tile is written, from one
	// goroutine.
	Progress func(Progress)
}

// Progress is how far an export is.
type Progress struct {
	Tiles, TilesTotal int
	Bytes             int64 // tile bytes made so far (before deduplication)
}

// Metadata is the JSON metadata object of an archive (PMTiles spec 5 plus
// TileJSON keys), and svc_layer, the name `svc serve --pmtiles` serves the
// archive under.
type Metadata struct {
	Name         string        `json:"name"`
	Description  string        `json:"description,omitempty"`
	Attribution  string        `json:"attribution,omitempty"`
	Type         string        `json:"type"`
	Format       string        `json:"format"`
	TileSize     int           `json:"tileSize,omitempty"`
	Encoding     string        `json:"encoding,omitempty"`
	VectorLayers []VectorLayer `json:"vector_layers,omitempty"`
	Layer        string        `json:"svc_layer"`
}

// zoomsOf clamps the export's zooms to the layer's.
func zoomsOf(l Layer, o Export) (int, int, error) {
	lo, hi := max(o.MinZoom, l.MinZoom), min(o.MaxZoom, l.MaxZoom)
	if lo > hi {
		return 0, 0, fmt.Errorf("maplayer: %s has zooms %d to %d, none in %d to %d", l.Name, l.MinZoom, l.MaxZoom, o.MinZoom, o.MaxZoom)
	}
	return lo, hi, nil
}

// WritePMTiles writes the archive of l to ws (an empty file): tiles made by
// o.Workers goroutines, written in tile id order as they complete, so the
// bytes are the same for any worker count. It returns the header; a bbox
// without any tile content is an error.
func WritePMTiles(ctx context.Context, ws io.WriteSeeker, l Layer, o Export) (pmtiles.Header, error) {
	lo, hi, err := zoomsOf(l, o)
	if err != nil {
		return pmtiles.Header{}, err
	}
	tiles, err := Tiles(o.BBox, lo, hi)
	if err != nil {
		return pmtiles.Header{}, err
	}
	cov := l.Coverage(o.BBox)
	meta, err := json.Marshal(Metadata{Name: l.Title, Description: l.Description, Attribution: cov.Attribution, Type: "overlay",
		Format: l.Format.String(), TileSize: l.TileSizePx, Encoding: l.Encoding, VectorLayers: vectorLayersIn(l.VectorLayers, lo, hi), Layer: l.Name})
	if err != nil {
		return pmtiles.Header{}, err
	}
	po := pmtiles.Options{TileType: pmtiles.PNG, TileCompression: pmtiles.NoCompression, CenterZoom: uint8(lo),
		MinLon: o.BBox.MinLon, MinLat: o.BBox.MinLat, MaxLon: o.BBox.MaxLon, MaxLat: o.BBox.MaxLat, Metadata: meta}
	if l.Format == MVT {
		po.TileType = pmtiles.MVT
	}
	if l.Gzip {
		po.TileCompression = pmtiles.Gzip
	}
	w, err := pmtiles.NewWriter(ws, po)
	if err != nil {
		return pmtiles.Header{}, err
	}
	pr := Progress{TilesTotal: len(tiles)}
	err = makeInOrder(ctx, l, tiles, o.Workers, func(t TileAddr, b []byte) error {
		pr.Tiles++
		pr.Bytes += int64(len(b))
		if o.Progress != nil {
			defer o.Progress(pr)
		}
		if len(b) == 0 {
			return nil
		}
		return w.Add(uint8(t.Z), uint32(t.X), uint32(t.Y), b)
	})
	if err != nil {
		return pmtiles.Header{}, err
	}
	return w.Close()
}

// vectorLayersIn are the vector layers with zooms in lo..hi, their zooms
// clamped to it: the archive's metadata lists what its tiles hold (no
// roofs in an archive ending below their first zoom).
func vectorLayersIn(vls []VectorLayer, lo, hi int) []VectorLayer {
	var out []VectorLayer
	for _, v := range vls {
		v.MinZoom, v.MaxZoom = max(v.MinZoom, lo), min(v.MaxZoom, hi)
		if v.MinZoom <= v.MaxZoom {
			out = append(out, v)
		}
	}
	return out
}

type made struct {
	b   []byte
	err error
}

// makeInOrder makes the tiles on workers goroutines and hands each to put
// in list order. At most 4 tiles per worker wait for their turn, which
// bounds memory; the first error stops the work.
func makeInOrder(ctx context.Context, l Layer, tiles []TileAddr, workers int, put func(TileAddr, []byte) error) error {
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	window := 4 * workers
	slots := make([]chan made, window)
	for i := range slots {
		slots[i] = make(chan made, 1)
	}
	jobs := make(chan int)
	free := make(chan struct{}, window)
	var wg sync.WaitGroup
	for range workers {
		wg.Go(func() {
			for i := range jobs {
				t := tiles[i]
				b, err := l.Tile(ctx, t.Z, t.X, t.Y)
				if err != nil {
					err = fmt.Errorf("maplayer: %s tile %d/%d/%d: %w", l.Name, t.Z, t.X, t.Y, err)
				}
				select { // the window keeps the slot free, unless the export stopped
				case slots[i%window] <- made{b, err}:
				case <-ctx.Done():
					return
				}
			}
		})
	}
	go func() {
		defer close(jobs)
		for i := range tiles {
			select {
			case free <- struct{}{}:
			case <-ctx.Done():
				return
			}
			select {
			case jobs <- i:
			case <-ctx.Done():
				return
			}
		}
	}()
	var err error
	for i := range tiles {
		var m made
		select {
		case m = <-slots[i%window]:
		case <-ctx.Done():
			m.err = ctx.Err()
		}
		if m.err == nil {
			m.err = put(tiles[i], m.b)
		}
		if m.err != nil {
			err = m.err
			break
		}
		<-free
	}
	cancel()
	wg.Wait()
	return err
}

// WriteFile writes the archive of l to path atomically: into a temporary
// file beside it, renamed over path only when complete, so an interrupted
// export leaves no half archive (and an old one stays intact).
func WriteFile(ctx context.Context, path string, l Layer, o Export) (pmtiles.Header, error) {
	f, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".tmp-*")
	if err != nil {
		return pmtiles.Header{}, fmt.Errorf("maplayer: %w", err)
	}
	defer os.Remove(f.Name()) // after the rename, a no-op
	h, err := WritePMTiles(ctx, f, l, o)
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Chmod(f.Name(), 0o644)
	}
	if err == nil {
		err = os.Rename(f.Name(), path)
	}
	if err != nil {
		return pmtiles.Header{}, errors.Join(fmt.Errorf("maplayer: write %s", path), err)
	}
	return h, nil
}
