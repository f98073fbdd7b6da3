// Package tiles3d builds the 3D Tiles packs of a federal state from its
// published source packs: the buildings (Build: 3D Tiles 1.1, one glb per
// leaf of a quadtree over the LoD2 buildings, a feature id per building
// with EXT_mesh_features and its gmlid and building_id in an
// EXT_structural_metadata property table), the terrain mesh of the DGM
// (BuildTerrainMesh), the OSM land cover draped on it (BuildOSMCover) and
// the vegetation themes trees and plantcover of the canopy rasters
// (BuildVegetation, WriteVegetation). See
// https://docs.ogc.org/cs/22-025r4/22-025r4.html.
//
// Placement: the root tile carries the East-North-Up to ECEF transform at
// the centre of the BL's data; each leaf carries, relative to it, the
// affine map from UTM grid offsets around the leaf centre to ECEF (grid
// convergence and scale included, exact to well under a millimetre over a
// leaf). Heights are ellipsoidal, h = H + N: the DHHN2016 normal height of
// the source plus the undulation of the height model (GCG2016 by default;
// see HeightVertical and docs/height-model.md), so every product sits on
// the quantized-mesh terrain and on any ellipsoidal globe.
// Bounding volumes are regions (radians, metres).
//
// Every tileset is a quadtree of empty tiles over the content tiles,
// written as tileset.json (its first levels) and external tilesets under
// SubDir, so that a state-size tileset loads fast (see writeHierarchy and
// docs/3d-tiles.md).
package tiles3d

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"time"

	"github.com/svc-geodata/svc/geoid"
	"github.com/svc-geodata/svc/lod2store"
	"github.com/svc-geodata/svc/pack"
)

// ErrNoSource reports that the data directory lacks a source a build needs
// (a LoD2, terrain, OSM or vegetation pack of the BL; see MissingError), or
// that the source holds nothing to build from.
var ErrNoSource = errors.New("tiles3d: missing source")

// MissingError reports that the data directory holds no published pack of
// a product a build needs; its text names what is missing and the import
// that makes it. It wraps ErrNoSource.
type MissingError struct {
	Product    pack.Product
	BL         string
	DataDir    string
	Unfinished bool // snapshots exist but none is finished
}

// missingWhat names each product as a user knows it and the command that
// makes it.
var missingWhat = map[pack.Product][2]string{
	pack.LoD2:       {"LoD2 buildings", "svc import lod2 --data %s --bl %s --snapshot YYYY-MM-DD --license ID FILE..."},
	pack.Terrain:    {"DGM (terrain)", "svc import dgm --data %s --bl %s --snapshot YYYY-MM-DD --license ID FILE..."},
	pack.OSM:        {"OpenStreetMap extract", "svc import osm --data %s --bl %s --snapshot YYYY-MM-DD FILE.osm.pbf"},
	pack.Vegetation: {"vegetation (CDSM)", "svc import vegetation --data %s --bl %s --snapshot YYYY-MM-DD --license ID --cdsm FILE..."},
}

func (e *MissingError) Error() string {
	w, ok := missingWhat[e.Product]
	if !ok {
		return fmt.Sprintf("tiles3d: no %s pack published for %s in %s", e.Product, e.BL, e.DataDir)
	}
	what := w[0] + " published"
	if e.Unfinished {
		what = "finished " + w[0]
	}
	return fmt.Sprintf("tiles3d: no %s for %s in %s: import it with %s", what, e.BL, e.DataDir, fmt.Sprintf(w[1], e.DataDir, e.BL))
}

// Unwrap makes errors.Is(err, ErrNoSource) hold.
func (e *MissingError) Unwrap() error { return ErrNoSource }

// Options configure Build.
type Options struct {
	DataDir string
	BL      string
	// MaxPerTile splits a quadtree cell holding more buildings (default
	// 1000).
	MaxPerTile int
	// Workers is the number of tiles built concurrently (default runtime.NumCPU()).
	Workers int
	// Progress, when set, is called with buildings done and the total
	// (from the worker goroutines, serialised).
	Progress func(done, total int64)
	// Now stamps generated_at (default time.Now).
	Now func() time.Time
	// HeightModel lifts DHHN2016 heights to ellipsoidal ones (default: the
	// embedded GCG2016, geoid.Default).
	HeightModel *geoid.Model
	// Stats, when set, counts the leaves built and those reused from the
	// BL's previous tileset (same buildings, byte for byte).
	Stats *BuildStats
}

// Build writes the tileset pack of the newest published LoD2 snapshot of
// o.BL, under the same snapshot date, and returns its manifest (with a new
// tileset id). Errors wrap ErrNoSource, or come from the store and pack
// packages; a failed build leaves nothing behind.
func Build(ctx context.Context, o Options) (pack.Manifest, error) {
	if o.MaxPerTile <= 0 {
		o.MaxPerTile = 1000
	}
	o.Workers = workers(o.Workers)
	if o.Now == nil {
		o.Now = time.Now
	}
	o.HeightModel = heightModel(o.HeightModel)
	src, dir, err := newestLoD2(o.DataDir, o.BL)
	if err != nil {
		return pack.Manifest{}, err
	}
	if err := checkCovers(o.HeightModel, src.BBoxWGS84); err != nil {
		return pack.Manifest{}, err
	}
	st, err := lod2store.OpenLoD2(ctx, filepath.Join(dir, filepath.FromSlash(src.LoD2.File)))
	if err != nil {
		return pack.Manifest{}, fmt.Errorf("tiles3d: %w", err)
	}
	defer st.Close()
	prevDir := previousBuild(o.DataDir, pack.Buildings3D, src.BL)
	w, err := pack.Create(o.DataDir, pack.Key{Product: pack.Buildings3D, BL: src.BL, Snapshot: src.Snapshot})
	if err != nil {
		return pack.Manifest{}, fmt.Errorf("tiles3d: %w", err)
	}
	defer w.Abort()
	credit := withCredit(src.AttributionText(), o.HeightModel)
	ru := newReuserAt(tilesetVersion, prevDir, o.Stats, "buildings", modelPrint(o.HeightModel), credit)
	srcs, err := st.Sources(ctx)
	if err != nil {
		return pack.Manifest{}, fmt.Errorf("tiles3d: %w", err)
	}
	ru.buildings, ru.linked = newBuildingSources(srcs), w.Reuse
	sol, msg, err := openSolar(ctx, o.DataDir, src)
	if err != nil {
		return pack.Manifest{}, err
	}
	ru.stats.Solar = msg
	if sol != nil {
		defer sol.st.Close()
	}
	info, err := write(ctx, st, sol, w.Dir(), o, credit, ru)
	if err != nil {
		return pack.Manifest{}, err
	}
	info.GeneratedAt = o.Now().UTC().Truncate(time.Second)
	m := pack.Manifest{LicenseID: src.LicenseID, Name: src.Name, SourceURL: src.SourceURL, SourceName: src.SourceName,
		Attribution: src.Attribution, CRS: src.CRS, BBoxWGS84: info.BoundingVolume, HeightModel: o.HeightModel.ID(), Tileset: &info}
	if m, err = w.Commit(ctx, m); err != nil {
		return pack.Manifest{}, fmt.Errorf("tiles3d: %w", err)
	}
	return m, nil
}

// newestLoD2 returns the manifest and directory of the newest finished
// LoD2 snapshot of a BL.
func newestLoD2(dataDir, bl string) (pack.Manifest, string, error) {
	return newestPack(dataDir, pack.LoD2, bl, func(m pack.Manifest) bool { return m.LoD2 != nil })
}

// newestPack returns the newest finished snapshot of a product and BL that
// ok accepts.
func newestPack(dataDir string, prod pack.Product, bl string, ok func(pack.Manifest) bool) (pack.Manifest, string, error) {
	base := filepath.Join(dataDir, string(prod), bl)
	entries, err := os.ReadDir(base)
	if err != nil {
		return pack.Manifest{}, "", &MissingError{Product: prod, BL: bl, DataDir: dataDir}
	}
	sort.Slice(entries, func(i, j int) bool { return entries[i].Name() > entries[j].Name() })
	for _, e := range entries {
		if !e.IsDir() || !pack.ValidSnapshot(e.Name()) {
			continue
		}
		dir := filepath.Join(base, e.Name())
		m, err := pack.ReadManifest(dir)
		if err == nil && ok(m) {
			return m, dir, nil
		}
	}
	return pack.Manifest{}, "", &MissingError{Product: prod, BL: bl, DataDir: dataDir, Unfinished: true}
}
