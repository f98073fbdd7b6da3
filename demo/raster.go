package demo

import (
	"bufio"
	"compress/gzip"
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"sync"

	"github.com/svc-geodata/svc/bl"
	"github.com/svc-geodata/svc/importer"
	"github.com/svc-geodata/svc/raster"
)

// DGMTileM is the edge of a demo DGM1/CDSM/TDSM tile (m); pixels are 1 m.
const DGMTileM = 1000

// rasterFormat says how a site's raster sources are delivered.
type rasterFormat int

const (
	formatCOG  rasterFormat = iota // GeoTIFF (COG), imported with --mode mirror
	formatTIFF                     // GeoTIFF, imported with --mode convert
	formatXYZ                      // XYZ ASCII, the first tile gzipped
)

// rasterFormatOf picks the source format of a site: XYZ for nrw and bb (as
// those states deliver DGM1), mirrored COGs for be, GeoTIFF otherwise.
func rasterFormatOf(s Site) rasterFormat {
	switch s.BL {
	case "nrw", "bb":
		return formatXYZ
	case "be":
		return formatCOG
	}
	return formatTIFF
}

// DGMTiles returns the south-west corners (UTM metres, in the site's zone)
// of the 1 km raster tiles covering the site's town.
func (s Site) DGMTiles() [][2]float64 {
	_, e0, n0 := s.Origin()
	var out [][2]float64
	for n := math.Floor(n0/DGMTileM) * DGMTileM; n < n0+TilesY*TileM; n += DGMTileM {
		for e := math.Floor(e0/DGMTileM) * DGMTileM; e < e0+TilesX*TileM; e += DGMTileM {
			out = append(out, [2]float64{e, n})
		}
	}
	return out
}

// WaterN returns the northing (m) of the centre line of the site's river,
// which lies in the half of the tile row the town leaves free; DGM pixels
// within 15 m of the line (as it meanders by 30 m) are NoData.
func (s Site) WaterN() float64 {
	_, _, n0 := s.Origin()
	if math.Mod(n0, DGMTileM) == 0 {
		return n0 + 750
	}
	return n0 - 250
}

// waterFunc reports whether (e, n) lies in the site's river.
func (s Site) waterFunc() func(e, n float64) bool {
	wn := s.WaterN()
	return func(e, n float64) bool { return math.Abs(n-(wn+30*math.Sin(e/100))) < 15 }
}

// CanopyFunc returns the synthetic canopy height (m above ground) at (e, n),
// NaN where there is no vegetation: tree crowns of 5 m radius on a 10 m
// lattice in the free half of the tile row, at least 60 m from the river.
func (s Site) CanopyFunc() func(e, n float64) float64 {
	_, _, n0 := s.Origin()
	wn := s.WaterN()
	return func(e, n float64) float64 {
		if (n >= n0 && n < n0+TilesY*TileM) || math.Abs(n-wn) < 60 {
			return math.NaN()
		}
		ce, cn := math.Floor(e/10)*10+5, math.Floor(n/10)*10+5
		d := math.Hypot(e-ce, n-cn)
		if d >= 5 {
			return math.NaN()
		}
		h := 12 + 10*math.Abs(math.Sin(ce*0.37+cn*0.11))
		return math.Round(h*(1-0.3*(d/5)*(d/5))*100) / 100
	}
}

// rasterGrid builds one 1 km tile of a raster function (NaN is NoData).
func rasterGrid(epsg int, e0, n0 float64, f func(e, n float64) float64) raster.Grid {
	nd := -9999.0
	g := raster.Grid{Width: DGMTileM, Height: DGMTileM, Data: make([]float32, DGMTileM*DGMTileM), EPSG: epsg, Nodata: &nd,
		GeoTransform: [6]float64{e0, 1, 0, n0 + DGMTileM, 0, -1}}
	for r := range DGMTileM {
		n := n0 + DGMTileM - float64(r) - 0.5
		for c := range DGMTileM {
			v := f(e0+float64(c)+0.5, n)
			if math.IsNaN(v) {
				v = nd
			}
			g.Data[r*DGMTileM+c] = float32(v)
		}
	}
	return g
}

// writeRasterSources writes the DGM1, CDSM and TDSM tiles of a site under
// dir and returns the three directories.
func writeRasterSources(dir string, s Site) (dgm, cdsm, tdsm string, err error) {
	st, _ := bl.Lookup(s.BL)
	zone := st.EPSG - 25800
	dgm, cdsm, tdsm = filepath.Join(dir, "dgm1"), filepath.Join(dir, "cdsm"), filepath.Join(dir, "tdsm")
	for _, d := range []string{dgm, cdsm, tdsm} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			return "", "", "", err
		}
	}
	water, canopy := s.waterFunc(), s.CanopyFunc()
	ground := func(e, n float64) float64 {
		if water(e, n) {
			return math.NaN()
		}
		return math.Round(Ground(e, n)*100) / 100
	}
	crown := func(e, n float64) float64 { return math.Round(canopy(e, n)*25) / 100 }
	for i, t := range s.DGMTiles() {
		name := fmt.Sprintf("%d_%d_%d", zone, int(t[0]/1000), int(t[1]/1000))
		err := writeSource(filepath.Join(dgm, "dgm1_"+name), rasterFormatOf(s), i == 0, rasterGrid(st.EPSG, t[0], t[1], ground))
		if err == nil {
			err = writeSource(filepath.Join(cdsm, "cdsm_"+name), rasterFormatOf(s), false, rasterGrid(st.EPSG, t[0], t[1], canopy))
		}
		if err == nil {
			err = writeSource(filepath.Join(tdsm, "tdsm_"+name), formatTIFF, false, rasterGrid(st.EPSG, t[0], t[1], crown))
		}
		if err != nil {
			return "", "", "", err
		}
	}
	return dgm, cdsm, tdsm, nil
}

// writeSource writes g to base plus the format's extension.
func writeSource(base string, f rasterFormat, gz bool, g raster.Grid) error {
	gz = gz && f == formatXYZ
	name := base + ".tif"
	if f == formatXYZ {
		name = base + ".xyz"
		if gz {
			name += ".gz"
		}
	}
	out, err := os.Create(name)
	if err != nil {
		return err
	}
	bw := bufio.NewWriterSize(out, 1<<20)
	var w io.Writer = bw
	var zw *gzip.Writer
	if gz {
		zw, _ = gzip.NewWriterLevel(bw, gzip.BestSpeed)
		w = zw
	}
	if f == formatXYZ {
		err = writeXYZ(w, g)
	} else {
		err = raster.WriteCOG(w, g, raster.WriteOptions{Compression: raster.CompressionDeflate, Level: 1})
	}
	if zw != nil && err == nil {
		err = zw.Close()
	}
	if err == nil {
		err = bw.Flush()
	}
	if cerr := out.Close(); err == nil {
		err = cerr
	}
	return err
}

// writeXYZ writes the valid pixels of g as "x y z" lines of pixel centres,
// south to north and west to east (as NRW orders its files); NoData
// pixels are left out, as the portals do.
func writeXYZ(w io.Writer, g raster.Grid) error {
	gt := g.GeoTransform
	line := make([]byte, 0, 64)
	for r := g.Height - 1; r >= 0; r-- {
		y := gt[3] + (float64(r)+0.5)*gt[5]
		for c := range g.Width {
			v := g.Data[r*g.Width+c]
			if v == -9999 {
				continue
			}
			line = strconv.AppendFloat(line[:0], gt[0]+(float64(c)+0.5)*gt[1], 'f', 1, 64)
			line = append(line, ' ')
			line = strconv.AppendFloat(line, y, 'f', 1, 64)
			line = append(line, ' ')
			line = strconv.AppendFloat(line, float64(v), 'f', -1, 32)
			line = append(line, '\n')
			if _, err := w.Write(line); err != nil {
				return err
			}
		}
	}
	return nil
}

// importRasters writes and imports the DGM1 and vegetation rasters of a site.
func importRasters(ctx context.Context, o Options, s Site) error {
	dir := filepath.Join(o.DataDir, "sources", s.BL)
	dgm, cdsm, tdsm, err := writeRasterSources(dir, s)
	if err != nil {
		return err
	}
	mode := importer.ModeConvert
	if rasterFormatOf(s) == formatCOG {
		mode = importer.ModeMirror
	}
	c := importer.Common{DataDir: o.DataDir, BL: s.BL, Snapshot: s.Snapshot, LicenseID: s.LicenseID, SourceURL: fileURL(dgm)}
	m, err := importer.DGM(ctx, c, importer.DGMOptions{Mode: mode}, []string{dgm})
	if err != nil {
		return err
	}
	o.Log("dgm  %-3s %d tiles (%s, %s)", s.BL, m.Terrain.TileCount, m.Terrain.Source, m.CRS)
	c.SourceURL, c.Workers = fileURL(cdsm), 1
	vo := importer.VegetationOptions{Mode: mode, CDSM: []string{cdsm}, TDSM: []string{tdsm}}
	if s.BL == BridgeBL {
		if vo.BridgeMask, err = writeBridgeMask(dir, s); err != nil {
			return err
		}
	}
	m, err = importer.Vegetation(ctx, c, vo)
	if err != nil {
		return err
	}
	o.Log("veg  %-3s %d themes (%s%s)", s.BL, len(m.Vegetation.Themes), m.CRS,
		map[bool]string{true: ", bridge mask", false: ""}[m.Vegetation.BridgeMask])
	return nil
}

// importAllRasters runs importRasters for every site, one site per CPU at
// a time, and logs the sites' lines in site order.
func importAllRasters(ctx context.Context, o Options) error {
	logs := make([][]string, len(Sites))
	errs := make([]error, len(Sites))
	sem := make(chan struct{}, max(1, runtime.GOMAXPROCS(0)))
	var wg sync.WaitGroup
	for i, site := range Sites {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer func() { <-sem; wg.Done() }()
			so := o
			so.Log = func(f string, a ...any) { logs[i] = append(logs[i], fmt.Sprintf(f, a...)) }
			if err := importRasters(ctx, so, site); err != nil {
				errs[i] = fmt.Errorf("demo: %s: %w", site.BL, err)
			}
		}()
	}
	wg.Wait()
	for i := range Sites {
		for _, l := range logs[i] {
			o.Log("%s", l)
		}
	}
	return errors.Join(errs...)
}
