package tiles3d

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"path/filepath"
	"strconv"

	"github.com/svc-geodata/svc/glb"
	"github.com/svc-geodata/svc/lod2store"
	"github.com/svc-geodata/svc/pack"
	"github.com/svc-geodata/svc/solarstore"
)

// Solar values in the building tileset. When the BL's published solar
// pack (the newest, as the catalog publishes it) was computed for the
// LoD2 snapshot being built (same snapshot and lod2.sqlite SHA-256), every
// leaf carries its roof facets' annual irradiation and share of the best
// plane per vertex (glb.Options.Solar, class roof_solar; the plane of the
// store, or of the facet's climate cell in a store of the built-in default
// climate, solarstore.Info.BestWhM2); otherwise the
// tileset is what it was without solar packs, byte for byte. The values
// are inputs of a leaf: its inputs hash holds the best plane's annual and
// each of its facets' (surface_id, part, annual), and its source key the
// SHA-256 of solar.sqlite, so a changed store has every leaf read and only
// those whose facets' values changed built.

// tileSolar is the solar store a building tileset takes its values from.
type tileSolar struct {
	st       *solarstore.Store
	snapshot string // the solar pack's
	sha      string // SHA-256 of the store's file (its pack manifest's)
	info     solarstore.Info
}

// facetKey names a roof facet: the LoD2 pack's surface_id and the
// polygon's index in the surface.
type facetKey struct {
	sid  int64
	part int
}

// openSolar opens the solar store of LoD2 pack lod of the BL; nil when
// the BL has no solar pack or its newest is another snapshot's. The
// message says which it took, or why none ("" without any solar pack).
// Errors come from opening a published store that matches.
func openSolar(ctx context.Context, dataDir string, lod pack.Manifest) (*tileSolar, string, error) {
	m, dir, err := newestPack(dataDir, pack.Solar, lod.BL, func(m pack.Manifest) bool { return m.Solar != nil })
	var miss *MissingError
	if errors.As(err, &miss) {
		return nil, "", nil
	}
	if err != nil {
		return nil, "", err
	}
	if m.Solar.LoD2Snapshot != lod.Snapshot || m.Solar.LoD2SHA256 != lod.FileSHA256(lod.LoD2.File) {
		return nil, fmt.Sprintf("no solar values: the newest solar pack (%s) was computed for LoD2 snapshot %s, not for %s (run svc build solar --bl %s)",
			m.Snapshot, m.Solar.LoD2Snapshot, lod.Snapshot, lod.BL), nil
	}
	st, err := solarstore.OpenPack(ctx, dir, m)
	if err != nil {
		return nil, "", fmt.Errorf("tiles3d: solar pack %s: %w", filepath.Base(dir), err)
	}
	return &tileSolar{st: st, snapshot: m.Snapshot, sha: m.FileSHA256(m.Solar.File), info: st.Info()},
		fmt.Sprintf("roofs carry the solar values of solar pack %s (%d facets)", m.Snapshot, m.Solar.Facets), nil
}

// values reads the solar values of the roof facets of buildings bs (a
// map, never nil) and appends what the leaf's inputs hash holds of them to b.
func (s *tileSolar) values(ctx context.Context, bs []lod2store.Building3D, b []byte) (map[facetKey]*glb.Solar, []byte, error) {
	var sids []int64
	for _, bd := range bs {
		for _, sf := range bd.Surfaces {
			if sf.Class == lod2store.ClassRoof {
				sids = append(sids, sf.SurfaceID)
			}
		}
	}
	b = strconv.AppendInt(append(b, "solar:"...), s.info.Best.AnnualWhM2, 10)
	out := make(map[facetKey]*glb.Solar, len(sids))
	err := s.st.Surfaces(ctx, sids, func(f solarstore.Facet) error {
		v := &glb.Solar{AnnualKWhM2: float32(f.AnnualWhM2) / 1000, ShareOfBest: glb.NoDataSolar}
		if best := s.info.BestWhM2(f); best > 0 {
			v.ShareOfBest = float32(float64(f.AnnualWhM2) / float64(best))
		}
		out[facetKey{f.SurfaceID, f.Part}] = v
		b = binary.LittleEndian.AppendUint64(b, uint64(f.SurfaceID))
		b = binary.LittleEndian.AppendUint32(b, uint32(f.Part))
		b = binary.LittleEndian.AppendUint64(b, uint64(f.AnnualWhM2))
		if f.BestWhM2 > 0 { // the facet's own best plane (default climate); absent, the hash is as before
			b = binary.LittleEndian.AppendUint64(b, uint64(f.BestWhM2))
		}
		return nil
	})
	if err != nil {
		return nil, nil, fmt.Errorf("tiles3d: %w", err)
	}
	return out, b, nil
}

// surfaceSolar returns the values of the polygons of roof surface sf
// (nil for other surfaces and without values).
func surfaceSolar(vals map[facetKey]*glb.Solar, sf *lod2store.Surface3D) []*glb.Solar {
	if vals == nil || sf.Class != lod2store.ClassRoof {
		return nil
	}
	var out []*glb.Solar
	for part := range sf.Ends {
		if v := vals[facetKey{sf.SurfaceID, part}]; v != nil {
			if out == nil {
				out = make([]*glb.Solar, len(sf.Ends))
			}
			out[part] = v
		}
	}
	return out
}

// assetSolar is what the tileset's asset.extras.solar says of the values:
// the solar pack and its climate, so a client can name them in a legend.
func (s *tileSolar) assetSolar() map[string]any {
	c := s.info.Climate
	out := map[string]any{"solar_snapshot": s.snapshot, "model": s.info.Model, "shading": s.info.Shading,
		"climate":                  map[string]any{"file": c.File, "source": c.Source, "first_year": c.FirstYear, "last_year": c.LastYear},
		"best_plane_annual_kwh_m2": float64(s.info.Best.AnnualWhM2) / 1000,
		"classes":                  map[string]any{"very_good": 0.9, "good": 0.8, "fair": 0.7}}
	if s.info.Best.AnnualWhM2 == 0 { // the default climate: each facet's share is of its cell's best plane
		delete(out, "best_plane_annual_kwh_m2")
		out["best_plane"] = "per 0.2° cell of the default climate"
	}
	return out
}
