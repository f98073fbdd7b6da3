package solarbuild

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"

	"github.com/svc-geodata/svc/pack"
	"github.com/svc-geodata/svc/roofsolar"
	"github.com/svc-geodata/svc/solarstore"
)

// finish writes the store from the chunks in order and commits the pack.
func (b *build) finish(ctx context.Context) (Result, error) {
	c := b.o.Climate
	if c == nil {
		var err error
		if c, err = b.o.DefaultClimate.Centre(ctx); err != nil {
			return b.res, fmt.Errorf("solarbuild: %w", err)
		}
	}
	lm := b.o.LoD2Manifest
	info := solarstore.Info{LoD2Snapshot: b.j.LoD2Snapshot, LoD2SHA256: b.j.LoD2SHA256, Model: c.Sky.Description(),
		Shading: b.in.Evaluated(), Climate: roofsolar.StoreClimate(c), Inputs: b.j.Inputs, BBoxWGS84: b.j.BBox}
	// The default climate's best plane is each facet's own (its cell's).
	if b.o.Climate != nil {
		info.Best = solarstore.Plane{TiltDeg: c.BestTiltDeg, AzimuthDeg: c.BestAzimuthDeg, AnnualWhM2: int64(math.Round(c.BestWhM2))}
	}
	path := filepath.Join(b.w.Dir(), solarstore.FileName)
	// A store begun by a run killed while writing it is written again.
	if err := os.Remove(path); err != nil && !errors.Is(err, os.ErrNotExist) {
		return b.res, fmt.Errorf("solarbuild: %w", err)
	}
	sw, err := solarstore.Create(ctx, path, info)
	if err != nil {
		return b.res, err
	}
	if err := b.putAll(ctx, sw); err != nil {
		sw.Abort()
		return b.res, err
	}
	if info, err = sw.Close(ctx); err != nil {
		return b.res, err
	}
	b.res.Info = info
	if b.o.Strict && len(b.res.Failed) > 0 {
		f := b.res.Failed[0]
		return b.res, fmt.Errorf("%w: %d, the first %s: %s (without --strict they are left out)", ErrFailed, len(b.res.Failed), f.GMLID, f.Reason)
	}
	// The checkpoints do not belong to the pack.
	if err := os.RemoveAll(filepath.Join(b.w.Dir(), chunkDir)); err != nil {
		return b.res, fmt.Errorf("solarbuild: %w", err)
	}
	if err := os.Remove(filepath.Join(b.w.Dir(), journalName)); err != nil {
		return b.res, fmt.Errorf("solarbuild: %w", err)
	}
	m, err := b.w.Commit(ctx, pack.Manifest{LicenseID: lm.LicenseID, Name: lm.Name, SourceURL: lm.SourceURL,
		SourceName: lm.SourceName, Attribution: lm.Attribution, CRS: lm.CRS, BBoxWGS84: lm.BBoxWGS84,
		Solar: &pack.SolarInfo{File: solarstore.FileName, LoD2Snapshot: info.LoD2Snapshot, LoD2SHA256: info.LoD2SHA256,
			ClimateFile: info.Climate.File, ClimateSHA256: info.Climate.SHA256, ClimateFormat: info.Climate.Format, Model: info.Model,
			Buildings: info.Buildings, Facets: info.Facets}})
	if err != nil {
		return b.res, fmt.Errorf("solarbuild: %w", err)
	}
	b.res.Manifest = m
	return b.res, nil
}

// putAll hands every computed building of the chunks to the writer in
// chunk order and collects the failed ones.
func (b *build) putAll(ctx context.Context, sw *solarstore.Writer) error {
	b.res.Failed = nil
	for k := range int64(len(b.spans)) {
		if err := ctx.Err(); err != nil {
			return err
		}
		cr, err := openChunk(chunkPath(b.w.Dir(), k))
		if err != nil {
			return fmt.Errorf("solarbuild: chunk %d: %w", k, err)
		}
		var r record
		for cr.next(&r) {
			if r.failed != "" {
				b.res.Failed = append(b.res.Failed, Failure{GMLID: r.b.GMLID, Reason: r.failed})
				continue
			}
			if err := sw.Put(ctx, r.b); err != nil {
				cr.Close()
				return err
			}
		}
		cr.Close()
		if cr.err != nil {
			return cr.err
		}
	}
	return nil
}

// writeJSONAtomic writes v to path under a temporary name, synced, then
// renamed.
func writeJSONAtomic(path string, v any) error {
	raw, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return err
	}
	tmp := path + ".tmp"
	f, err := os.Create(tmp)
	if err != nil {
		return err
	}
	_, err = f.Write(append(raw, '\n'))
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return err
	}
	return os.Rename(tmp, path)
}

func readJSON(path string, v any) error {
	raw, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	return json.Unmarshal(raw, v)
}
