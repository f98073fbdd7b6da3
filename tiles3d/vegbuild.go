package tiles3d

import (
	"context"
	"fmt"
	"github.com/svc-geodata/svc/geoid"
	"os"
	"path/filepath"
	"strings"

	"github.com/svc-geodata/svc/geo"
	"github.com/svc-geodata/svc/pack"
	"github.com/svc-geodata/svc/terrain"
)

// BuildVegetationOptions configure BuildVegetation.
type BuildVegetationOptions struct {
	DataDir    string
	BL         string
	ToleranceM float64 // plantcover RTIN tolerance (default 0.5 m)
	Workers    int     // tiles built concurrently (default runtime.NumCPU())
	// Progress, when set, is called with the CDSM tiles done and their total.
	Progress func(done, total int64)
	// Stats, when set, counts the tiles built and those reused from the
	// pack being rebuilt (same canopy, ground and options).
	Stats *BuildStats
	// HeightModel lifts DHHN2016 heights to ellipsoidal ones (default: the
	// embedded GCG2016, geoid.Default).
	HeightModel *geoid.Model
}

// BuildVegetation rebuilds the trees and plantcover themes of the newest
// published vegetation pack of o.BL (after a terrain pack arrived, or with
// another tolerance): it writes a new version of the same snapshot holding
// the pack's CDSM/TDSM files (hard-linked where the file system allows,
// else copied) and index unchanged, plus freshly built themes, and
// publishes it atomically in place of the old one. The importer builds the
// same themes itself, so a fresh import needs no rebuild. Errors wrap
// ErrNoSource when the BL has no vegetation pack.
func BuildVegetation(ctx context.Context, o BuildVegetationOptions) (pack.Manifest, error) {
	src, dir, err := newestPack(o.DataDir, pack.Vegetation, o.BL, func(m pack.Manifest) bool { return m.Vegetation != nil })
	if err != nil {
		return pack.Manifest{}, err
	}
	ix, err := terrain.ReadIndex(filepath.Join(dir, filepath.FromSlash(src.Vegetation.Index)))
	if err != nil {
		return pack.Manifest{}, fmt.Errorf("tiles3d: %s: %w", src.Key(), err)
	}
	z, err := geo.ZoneForEPSG(ix.EPSG)
	if err != nil {
		return pack.Manifest{}, fmt.Errorf("tiles3d: %s: %w", src.Key(), err)
	}
	w, err := pack.Create(o.DataDir, src.Key())
	if err != nil {
		return pack.Manifest{}, fmt.Errorf("tiles3d: %w", err)
	}
	defer w.Abort()
	for _, f := range src.Files {
		if isVegTheme(f.Path) || f.Path == InputsFile {
			continue
		}
		from, to := filepath.Join(dir, filepath.FromSlash(f.Path)), filepath.Join(w.Dir(), filepath.FromSlash(f.Path))
		if err := pack.LinkOrCopy(from, to); err != nil {
			return pack.Manifest{}, fmt.Errorf("tiles3d: %s: %w", src.Key(), err)
		}
		// The CDSM/TDSM rasters are the published pack's files: Commit
		// takes their SHA-256 from its manifest while they are its inodes.
		if fi, err := os.Stat(from); err == nil {
			w.Reuse(to, fi, f.SHA256)
		}
	}
	res, err := WriteVegetation(ctx, w.Dir(), VegetationOptions{DataDir: o.DataDir, BL: src.BL, Snapshot: src.Snapshot, Zone: z,
		Tiles: ix.Layers[terrain.LayerCDSM], ToleranceM: o.ToleranceM, Workers: o.Workers, HeightModel: o.HeightModel,
		Attribution: src.AttributionText(), BBoxWGS84: src.BBoxWGS84, Stats: o.Stats, Progress: o.Progress, Linked: w.Reuse})
	if err != nil {
		return pack.Manifest{}, err
	}
	m := src
	vi := *src.Vegetation
	vi.Themes = nil
	for _, t := range src.Vegetation.Themes {
		if t.Kind != "3dtiles" {
			vi.Themes = append(vi.Themes, t)
		}
	}
	vi.Themes = append(vi.Themes, res.Themes...)
	m.Vegetation = &vi
	m.HeightModel = res.HeightModel
	if m, err = w.Commit(ctx, m); err != nil {
		return pack.Manifest{}, fmt.Errorf("tiles3d: %w", err)
	}
	return m, nil
}

// isVegTheme reports whether a pack file belongs to a 3D Tiles theme.
func isVegTheme(p string) bool {
	return strings.HasPrefix(p, ThemeTrees+"/") || strings.HasPrefix(p, ThemePlantcover+"/")
}
