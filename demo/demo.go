// Package demo generates the deterministic demo data pack: source files in
// the formats the state portals deliver (CityGML LoD2, and as the raster
// importers arrive, DGM1 and canopy rasters) for five federal states, which
// it then imports through the real import code paths.
package demo

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"net/url"
	"os"
	"path/filepath"

	"github.com/google/uuid"

	"github.com/svc-geodata/svc/bl"
	"github.com/svc-geodata/svc/geo"
	"github.com/svc-geodata/svc/importer"
	"github.com/svc-geodata/svc/tiles3d"
)

// Site is one demo BL: where its synthetic town lies and how its data are
// licensed.
type Site struct {
	BL        string
	Lon, Lat  float64 // centre of the town
	LicenseID string
	Snapshot  string
	Version   int    // CityGML version of the source files
	IDStyle   string // "adv" (DEHE..., DENW...) or "uuid"
}

// Sites are the demo states: two western inland (EPSG:25832), two eastern
// (EPSG:25833) and one coastal, with the three licences German states use.
var Sites = []Site{
	{BL: "he", Lon: 8.6821, Lat: 50.1109, LicenseID: "dl-de-by-2.0", Snapshot: "2026-07-20", Version: 2, IDStyle: "adv"},
	{BL: "nrw", Lon: 6.9583, Lat: 50.9413, LicenseID: "dl-de-zero-2.0", Snapshot: "2026-07-16", Version: 1, IDStyle: "adv"},
	{BL: "be", Lon: 13.4050, Lat: 52.5200, LicenseID: "dl-de-zero-2.0", Snapshot: "2026-07-20", Version: 2, IDStyle: "uuid"},
	{BL: "bb", Lon: 13.0645, Lat: 52.3906, LicenseID: "dl-de-by-2.0", Snapshot: "2026-07-16", Version: 2, IDStyle: "adv"},
	{BL: "sh", Lon: 10.1228, Lat: 54.3233, LicenseID: "cc-by-4.0", Snapshot: "2026-07-16", Version: 2, IDStyle: "adv"},
}

// TileM is the edge of one generated source tile (m); each site has
// TilesX x TilesY tiles around its centre.
const (
	TileM  = 500
	TilesX = 2
	TilesY = 1
)

// Options configure Run.
type Options struct {
	DataDir string
	Seed    uint64
	Log     func(format string, args ...any)
}

// Run writes the source files under <data>/sources, imports them and builds
// the 3D Tiles (buildings, terrain mesh) from the imported packs. It is
// deterministic for a seed: the same seed gives the same sources.
func Run(ctx context.Context, o Options) error {
	if o.Log == nil {
		o.Log = func(string, ...any) {}
	}
	for i, site := range Sites {
		rng := rand.New(rand.NewPCG(o.Seed, uint64(i)))
		srcDir := filepath.Join(o.DataDir, "sources", site.BL, "lod2")
		if err := writeLoD2Sources(srcDir, site, rng); err != nil {
			return fmt.Errorf("demo: %s: %w", site.BL, err)
		}
		m, err := importer.LoD2(ctx, importer.Common{DataDir: o.DataDir, BL: site.BL, Snapshot: site.Snapshot,
			LicenseID: site.LicenseID, SourceURL: fileURL(srcDir)}, []string{srcDir})
		if err != nil {
			return fmt.Errorf("demo: %s: %w", site.BL, err)
		}
		o.Log("lod2 %-3s %d buildings, %d surfaces (%s, %s)", site.BL, m.LoD2.BuildingCount, m.LoD2.SurfaceCount, m.CRS, site.LicenseID)
		tm, err := tiles3d.Build(ctx, tiles3d.Options{DataDir: o.DataDir, BL: site.BL})
		if err != nil {
			return fmt.Errorf("demo: %s: %w", site.BL, err)
		}
		o.Log("3d tiles %-3s %d buildings, %d tiles, tileset %s", site.BL, tm.Tileset.BuildingCount, tm.Tileset.TileCount, tm.Tileset.TilesetID)
	}
	if err := importAllRasters(ctx, o); err != nil {
		return err
	}
	for _, site := range Sites {
		tm, err := tiles3d.BuildTerrainMesh(ctx, tiles3d.TerrainMeshOptions{DataDir: o.DataDir, BL: site.BL})
		if err != nil {
			return fmt.Errorf("demo: %s: %w", site.BL, err)
		}
		o.Log("terrain mesh %-3s %d tiles, RTIN tolerance %g m", site.BL, tm.TerrainMesh.TileCount, tm.TerrainMesh.RTINToleranceM)
	}
	return buildOSMCover(ctx, o)
}

// Origin returns the south-west corner of the site's first tile in its UTM
// zone, snapped to the tile grid.
func (s Site) Origin() (geo.Zone, float64, float64) {
	st, _ := bl.Lookup(s.BL)
	z, _ := geo.ZoneForEPSG(st.EPSG)
	e, n := geo.ToUTM(z, s.Lon, s.Lat)
	return z, math.Floor(e/TileM)*TileM - TileM*(TilesX/2), math.Floor(n/TileM) * TileM
}

// Ground is the synthetic terrain height (m above NHN) at (e, n): a smooth
// relief shared by the buildings and the demo DGM.
func Ground(e, n float64) float64 {
	return 80 + 12*math.Sin(e/410)*math.Cos(n/530) + 4*math.Sin((e+n)/170)
}

// WriteLoD2Sources writes the CityGML files of Sites[i] into dir, the
// ones Run writes and imports for the seed.
func WriteLoD2Sources(dir string, i int, seed uint64) error {
	return writeLoD2Sources(dir, Sites[i], rand.New(rand.NewPCG(seed, uint64(i))))
}

func writeLoD2Sources(dir string, s Site, rng *rand.Rand) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	st, _ := bl.Lookup(s.BL)
	_, e0, n0 := s.Origin()
	seq := 0
	for ty := range TilesY {
		for tx := range TilesX {
			te, tn := e0+float64(tx*TileM), n0+float64(ty*TileM)
			bs := town(te, tn, s, rng, &seq, st.IDPrefix)
			name := filepath.Join(dir, fmt.Sprintf("LoD2_%d_%d_%d_1_%s.gml", st.EPSG-25800, int(te/1000), int(tn/1000), st.IDPrefix[2:]))
			if tx%2 == 1 {
				name = filepath.Join(dir, fmt.Sprintf("LoD2_%d_%d_%d_1_%s_b.gml", st.EPSG-25800, int(te/1000), int(tn/1000), st.IDPrefix[2:]))
			}
			f, err := os.Create(name)
			if err != nil {
				return err
			}
			err = WriteCityGML(f, CityGMLOptions{EPSG: st.EPSG, Version: s.Version}, bs)
			if cerr := f.Close(); err == nil {
				err = cerr
			}
			if err != nil {
				return err
			}
		}
	}
	return nil
}

// town places buildings on a 25 m grid over one tile, leaving gaps for
// streets and yards, with varied sizes, rotations and roofs.
func town(e0, n0 float64, s Site, rng *rand.Rand, seq *int, prefix string) []Building {
	const cell = 25.0
	var out []Building
	for j := range int(TileM / cell) {
		for i := range int(TileM / cell) {
			if i%5 == 4 || j%4 == 3 || rng.Float64() < 0.25 { // streets and empty lots
				continue
			}
			*seq++
			x, y := e0+(float64(i)+0.5)*cell, n0+(float64(j)+0.5)*cell
			b := Building{ID: buildingID(s, prefix, *seq, rng), X: x, Y: y, Z0: math.Round(Ground(x, y)*100) / 100,
				Length: 9 + rng.Float64()*7, Depth: 7 + rng.Float64()*5, Height: 3 + rng.Float64()*9,
				PitchDeg: 25 + rng.Float64()*25, RotDeg: rng.Float64()*30 - 15, Roof: RoofKind(rng.IntN(3))}
			if *seq%7 == 0 { // a garage as a building part, on the +u side
				sin, cos := math.Sincos(b.RotDeg * math.Pi / 180)
				b.Length = math.Min(b.Length, 14)
				u := b.Length/2 + 2
				b.Part = &Building{ID: b.ID + "_BP1", X: x + u*cos, Y: y + u*sin, Z0: b.Z0, Length: 4, Depth: 5.5,
					Height: 2.8, RotDeg: b.RotDeg, Roof: Flat}
			}
			out = append(out, b)
		}
	}
	return out
}

func buildingID(s Site, prefix string, seq int, rng *rand.Rand) string {
	if s.IDStyle == "uuid" {
		var b [16]byte
		for i := range b {
			b[i] = byte(rng.Uint32())
		}
		u, _ := uuid.FromBytes(b[:])
		u[6] = (u[6] & 0x0f) | 0x40 // version 4
		u[8] = (u[8] & 0x3f) | 0x80 // RFC 4122 variant
		return u.String()
	}
	return fmt.Sprintf("%s%s%08d", prefix, "DM", seq)
}

// fileURL is the file:// URL of a local path, absolute as RFC 8089 wants.
func fileURL(p string) string {
	if abs, err := filepath.Abs(p); err == nil {
		p = abs
	}
	return (&url.URL{Scheme: "file", Path: filepath.ToSlash(p)}).String()
}
