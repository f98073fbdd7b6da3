// Package scalegen writes a synthetic federal state from real shapes for
// the scale benchmark (make bench-scale, docs/performance.md): the real
// LoD2 CityGML sample replicated across a km grid inside the state's
// boundary (unique ids, shifted coordinates, buildings standing on the
// terrain, unique generated addresses: address.go), DGM1 and canopy (CDSM) GeoTIFF tiles of a fractal relief with
// forest patches, and an OSM extract of the same extent made of shifted
// copies of a real OSM sample. The same options give the same files.
package scalegen

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync/atomic"
	"time"

	"golang.org/x/sync/errgroup"

	"github.com/svc-geodata/svc/bl"
	"github.com/svc-geodata/svc/geo"
	"github.com/svc-geodata/svc/raster"
)

// AreaKM2 is the land area SCALE=1 stands for, per state (NRW: 34,000 km²,
// about 35,000 LoD2 and 34,000 DGM1 tiles).
var AreaKM2 = map[string]float64{"nrw": 34000}

// Options says what to generate.
type Options struct {
	BL      string  // state code; only "nrw" has a template (the real NRW sample)
	Scale   float64 // share of the state's area: 0.01 is 340 km²
	Seed    uint64  // relief and forest; the same seed writes the same files
	Dir     string  // output directory (created)
	Samples string  // the shared samples directory (real/ and osm/ below it)
	Workers int     // tiles written concurrently; 0 means GOMAXPROCS
	// PixelM is the DGM and CDSM pixel size in metres: 0 or 1 writes
	// DGM1 as delivered (1000 x 1000 per km); a coarser size (the smoke
	// test's 4 m) makes every raster stage cheaper by its square.
	PixelM float64
	// Osmium, when set, is the osmium binary that turns the OSM XML into
	// .osm.pbf (what Geofabrik delivers); empty keeps OSM XML.
	Osmium string
}

// Manifest describes what Generate wrote; the runner checks the import
// counts against it.
type Manifest struct {
	BL       string  `json:"bl"`
	Scale    float64 `json:"scale"`
	Seed     uint64  `json:"seed"`
	AreaKM2  int     `json:"area_km2"`
	Tiles    []Tile  `json:"tiles"`
	Template string  `json:"lod2_template"`
	LoD2     struct {
		Dir       string `json:"dir"`
		Files     int    `json:"files"`
		Buildings int    `json:"buildings"`
		Parts     int    `json:"building_parts"`
		Bytes     int64  `json:"bytes"`
	} `json:"lod2"`
	// Addresses are the generated addresses of the buildings (the
	// template's replaced, the template's count per building kept).
	Addresses AddressStats `json:"addresses"`
	DGM       rasterSet    `json:"dgm"`
	CDSM      rasterSet    `json:"cdsm"`
	OSM       struct {
		Path        string `json:"path"`
		Format      string `json:"format"`
		Sample      string `json:"sample"`
		SampleBytes int64  `json:"sample_bytes"`
		osmCounts
	} `json:"osm"`
	ExtentWGS84 geo.BBox `json:"extent_wgs84"`
	Seconds     float64  `json:"seconds"`
}

// rasterSet is one set of GeoTIFF tiles.
type rasterSet struct {
	Dir    string  `json:"dir"`
	Tiles  int     `json:"tiles"`
	Bytes  int64   `json:"bytes"`
	PixelM float64 `json:"pixel_m"`
	// Valid is the share of pixels holding a value (CDSM: vegetation).
	Valid float64 `json:"valid_share"`
}

const tilePx = 1000 // the building mask: 1 m pixels over 1 km

// Generate writes the synthetic state into o.Dir and returns its manifest
// (also written as manifest.json).
func Generate(ctx context.Context, o Options) (*Manifest, error) {
	start := time.Now()
	st, ok := bl.Lookup(o.BL)
	if !ok {
		return nil, fmt.Errorf("scalegen: unknown state %q", o.BL)
	}
	area, ok := AreaKM2[st.Code]
	if !ok {
		return nil, fmt.Errorf("scalegen: no LoD2 template for %s (only nrw)", st.Code)
	}
	zone, err := geo.ZoneForEPSG(st.EPSG)
	if err != nil {
		return nil, err
	}
	n := max(1, int(math.Round(o.Scale*area)))
	tiles, err := placeTiles(st, zone, n)
	if err != nil {
		return nil, err
	}
	tplPath := filepath.Join(o.Samples, "real", "LoD2_32_280_5659_1_NW.gml")
	tpl, err := loadTemplate(tplPath, st.IDPrefix)
	if err != nil {
		return nil, err
	}
	m := &Manifest{BL: st.Code, Scale: o.Scale, Seed: o.Seed, AreaKM2: len(tiles), Tiles: tiles, Template: filepath.Base(tplPath)}
	for _, d := range []string{"lod2", "dgm", "cdsm", "osm"} {
		if err := os.MkdirAll(filepath.Join(o.Dir, d), 0o755); err != nil {
			return nil, fmt.Errorf("scalegen: %w", err)
		}
	}
	m.LoD2.Dir, m.DGM.Dir, m.CDSM.Dir = filepath.Join(o.Dir, "lod2"), filepath.Join(o.Dir, "dgm"), filepath.Join(o.Dir, "cdsm")
	if o.PixelM <= 0 {
		o.PixelM = 1
	}
	if px := 1000 / o.PixelM; px != math.Trunc(px) {
		return nil, fmt.Errorf("scalegen: pixel size %g m does not divide 1 km", o.PixelM)
	}
	m.DGM.PixelM, m.CDSM.PixelM = o.PixelM, o.PixelM

	g, gctx := errgroup.WithContext(ctx)
	g.Go(func() error { return genOSM(gctx, o, zone, tiles, m) })
	if err := genTiles(gctx, o, st, zone, tpl, tiles, m); err != nil {
		g.Wait()
		return nil, err
	}
	if err := g.Wait(); err != nil {
		return nil, err
	}
	m.Addresses = addressStats(o.Seed, tpl, tiles, zone)
	m.ExtentWGS84 = extentWGS84(zone, tiles)
	m.Seconds = time.Since(start).Seconds()
	b, _ := json.MarshalIndent(m, "", " ")
	if err := os.WriteFile(filepath.Join(o.Dir, "manifest.json"), b, 0o644); err != nil {
		return nil, fmt.Errorf("scalegen: %w", err)
	}
	return m, nil
}

// genTiles writes the LoD2, DGM and CDSM file of every tile.
func genTiles(ctx context.Context, o Options, st bl.State, zone geo.Zone, tpl *template, tiles []Tile, m *Manifest) error {
	relief := Relief{seed: o.Seed}
	addr, lots := NewAddresser(o.Seed), tpl.lots()
	mask := tpl.buildingMask()
	workers := o.Workers
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	var lodBytes, dgmBytes, cdsmBytes, vegPx atomic.Int64
	suffix := strings.ToUpper(st.Code[:2])
	if st.Code == "nrw" {
		suffix = "NW"
	}
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(workers)
	for _, t := range tiles {
		g.Go(func() error {
			if err := gctx.Err(); err != nil {
				return err
			}
			name := t.Name(zone)
			stem := fmt.Sprintf("LoD2_%s_1_%s", name, suffix)
			nb, err := tpl.writeTile(filepath.Join(m.LoD2.Dir, stem+".gml"), t, stem, relief.Ground, addr.Tile(t, lots))
			if err != nil {
				return err
			}
			lodBytes.Add(nb)
			minX, maxY := float64(t.EKM)*1000, float64(t.NKM+1)*1000
			px := int(1000 / o.PixelM)
			buf := make([]float32, px*px)
			relief.Terrain(buf, minX, maxY, o.PixelM, px, px)
			low := strings.ToLower(suffix)
			nb, err = writeGeoTIFF(filepath.Join(m.DGM.Dir, fmt.Sprintf("dgm1_%s_1_%s.tif", name, low)), buf, px, o.PixelM, minX, maxY, st.EPSG)
			if err != nil {
				return err
			}
			dgmBytes.Add(nb)
			buf = make([]float32, px*px)
			relief.Canopy(buf, minX, maxY, o.PixelM, px, px, func(x, y float64) bool {
				return mask[int(maxY-y)*tilePx+int(x-minX)]
			})
			veg := 0
			for _, v := range buf {
				if v == v {
					veg++
				}
			}
			vegPx.Add(int64(veg))
			nb, err = writeGeoTIFF(filepath.Join(m.CDSM.Dir, fmt.Sprintf("cdsm1_%s_1_%s.tif", name, low)), buf, px, o.PixelM, minX, maxY, st.EPSG)
			cdsmBytes.Add(nb)
			return err
		})
	}
	if err := g.Wait(); err != nil {
		return err
	}
	m.LoD2.Files, m.LoD2.Buildings, m.LoD2.Parts, m.LoD2.Bytes = len(tiles), len(tiles)*len(tpl.buildings), len(tiles)*tpl.parts, lodBytes.Load()
	m.DGM.Tiles, m.DGM.Bytes, m.DGM.Valid = len(tiles), dgmBytes.Load(), 1
	m.CDSM.Tiles, m.CDSM.Bytes = len(tiles), cdsmBytes.Load()
	px := 1000 / o.PixelM
	m.CDSM.Valid = float64(vegPx.Load()) / (float64(len(tiles)) * px * px)
	return nil
}

// buildingMask marks the pixels of the template's km under a building's
// footprint box: the CDSM is building-masked, as the deliveries are.
func (t *template) buildingMask() []bool {
	mask := make([]bool, tilePx*tilePx)
	x0, y1 := float64(t.tile.EKM)*1000, float64(t.tile.NKM+1)*1000
	for _, b := range t.buildings {
		c0, c1 := max(0, int(b.minX-x0)), min(tilePx-1, int(b.maxX-x0))
		r0, r1 := max(0, int(y1-b.maxY)), min(tilePx-1, int(y1-b.minY))
		for r := r0; r <= r1; r++ {
			for c := c0; c <= c1; c++ {
				mask[r*tilePx+c] = true
			}
		}
	}
	return mask
}

// writeGeoTIFF writes a square float32 tile of n x n pixels of pixelM
// metres (NaN for NoData, written as -9999) as a tiled, DEFLATE-compressed
// GeoTIFF.
func writeGeoTIFF(path string, px []float32, n int, pixelM, minX, maxY float64, epsg int) (int64, error) {
	nodata := -9999.0
	g := raster.Grid{Width: n, Height: n, Data: px, GeoTransform: [6]float64{minX, pixelM, 0, maxY, 0, -pixelM}, EPSG: epsg, Nodata: &nodata}
	g.ReplaceNodata(nodata)
	f, err := os.Create(path)
	if err != nil {
		return 0, fmt.Errorf("scalegen: %w", err)
	}
	cw := &countWriter{w: f}
	err = raster.WriteCOG(cw, g, raster.WriteOptions{})
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return 0, fmt.Errorf("scalegen: %s: %w", path, err)
	}
	return cw.n, nil
}

// genOSM writes copies of the OSM sample over every tile.
func genOSM(ctx context.Context, o Options, zone geo.Zone, tiles []Tile, m *Manifest) error {
	sample := filepath.Join(o.Samples, "osm", "lauf-200115.osm.pbf")
	s, err := loadOSM(ctx, sample, zone)
	if err != nil {
		return err
	}
	cellE := int(math.Ceil((s.maxE - s.minE) / 1000))
	cellN := int(math.Ceil((s.maxN - s.minN) / 1000))
	have := map[Tile]bool{}
	minE, minN, maxE, maxN := math.MaxInt, math.MaxInt, math.MinInt, math.MinInt
	for _, t := range tiles {
		have[t] = true
		minE, minN, maxE, maxN = min(minE, t.EKM), min(minN, t.NKM), max(maxE, t.EKM), max(maxN, t.NKM)
	}
	var copies []osmCopy
	for n := minN; n <= maxN; n += cellN {
		for e := minE; e <= maxE; e += cellE {
			if cellHasTile(have, e, n, cellE, cellN) {
				copies = append(copies, osmCopy{float64(e) * 1000, float64(n) * 1000})
			}
		}
	}
	xmlPath := filepath.Join(o.Dir, "osm", o.BL+"-synthetic.osm")
	c, err := writeOSM(xmlPath, s, zone, copies, extentWGS84(zone, tiles))
	if err != nil {
		return err
	}
	m.OSM.Sample, m.OSM.SampleBytes, m.OSM.osmCounts = filepath.Base(sample), s.size, c
	m.OSM.Path, m.OSM.Format = xmlPath, "osm-xml"
	if o.Osmium == "" {
		return nil
	}
	pbf := xmlPath + ".pbf"
	if out, err := exec.CommandContext(ctx, o.Osmium, "cat", "--overwrite", "-o", pbf, xmlPath).CombinedOutput(); err != nil {
		return fmt.Errorf("scalegen: osmium cat: %v: %s", err, out)
	}
	fi, err := os.Stat(pbf)
	if err != nil {
		return fmt.Errorf("scalegen: %w", err)
	}
	m.OSM.Path, m.OSM.Format, m.OSM.Bytes = pbf, "osm-pbf (osmium cat)", fi.Size()
	return os.Remove(xmlPath)
}

func cellHasTile(have map[Tile]bool, e0, n0, w, h int) bool {
	for n := n0; n < n0+h; n++ {
		for e := e0; e < e0+w; e++ {
			if have[Tile{e, n}] {
				return true
			}
		}
	}
	return false
}

// extentWGS84 is the lon/lat box around the tiles.
func extentWGS84(zone geo.Zone, tiles []Tile) geo.BBox {
	b := geo.BBox{MinLon: 180, MinLat: 90, MaxLon: -180, MaxLat: -90}
	for _, t := range tiles {
		for _, c := range [][2]int{{0, 0}, {1, 0}, {0, 1}, {1, 1}} {
			lon, lat := geo.FromUTM(zone, float64(t.EKM+c[0])*1000, float64(t.NKM+c[1])*1000)
			b.MinLon, b.MaxLon = math.Min(b.MinLon, lon), math.Max(b.MaxLon, lon)
			b.MinLat, b.MaxLat = math.Min(b.MinLat, lat), math.Max(b.MaxLat, lat)
		}
	}
	return b
}
