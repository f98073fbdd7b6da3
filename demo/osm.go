package demo

import (
	"context"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"

	"github.com/svc-geodata/svc/geo"
	"github.com/svc-geodata/svc/importer"
	"github.com/svc-geodata/svc/tiles3d"
)

// osmXML writes OSM XML node by node.
type osmXML struct {
	b      strings.Builder
	z      geo.Zone
	nextID int64
}

func (x *osmXML) node(e, n float64) int64 {
	x.nextID++
	lon, lat := geo.FromUTM(x.z, e, n)
	fmt.Fprintf(&x.b, `<node id="%d" version="1" timestamp="2026-07-01T00:00:00Z" lat="%.8f" lon="%.8f"/>`+"\n", x.nextID, lat, lon)
	return x.nextID
}

func (x *osmXML) way(id int64, nodes []int64, tags ...string) {
	fmt.Fprintf(&x.b, `<way id="%d" version="1" timestamp="2026-07-01T00:00:00Z">`, id)
	for _, n := range nodes {
		fmt.Fprintf(&x.b, `<nd ref="%d"/>`, n)
	}
	for i := 0; i+1 < len(tags); i += 2 {
		fmt.Fprintf(&x.b, `<tag k="%s" v="%s"/>`, tags[i], tags[i+1])
	}
	x.b.WriteString("</way>\n")
}

// ring adds the nodes of a closed ring of (e, n) corners.
func (x *osmXML) ring(pts ...[2]float64) []int64 {
	var ids []int64
	for _, p := range pts {
		ids = append(ids, x.node(p[0], p[1]))
	}
	return append(ids, ids[0])
}

// writeOSMExtract writes a small synthetic extract over the site's DGM
// tiles: the town as residential land with a park (holed by a pond) and a
// parking lot, a forest, the river as water, a primary road with a width,
// streets, a footpath, a railway crossing the river on a bridge and, for a
// coastal BL, a coastline across the north with the sea beyond it.
func writeOSMExtract(path string, s Site, coastal bool) error {
	z, e0, n0 := s.Origin()
	tiles := s.DGMTiles()
	minE, minN, maxE, maxN := math.Inf(1), math.Inf(1), math.Inf(-1), math.Inf(-1)
	for _, t := range tiles {
		minE, minN = math.Min(minE, t[0]), math.Min(minN, t[1])
		maxE, maxN = math.Max(maxE, t[0]+DGMTileM), math.Max(maxN, t[1]+DGMTileM)
	}
	x := &osmXML{z: z}
	x.b.WriteString(`<?xml version="1.0" encoding="UTF-8"?>` + "\n" + `<osm version="0.6" generator="svc demo">` + "\n")
	wn := s.WaterN()
	town := [4]float64{e0, n0, e0 + TilesX*TileM, n0 + TilesY*TileM}
	x.way(1, x.ring([2]float64{town[0], town[1]}, [2]float64{town[2], town[1]}, [2]float64{town[2], town[3]}, [2]float64{town[0], town[3]}),
		"landuse", "residential", "name", "Demostadt")
	// A park with a pond cut out of it: a multipolygon.
	pe, pn := town[0]+420, town[1]+180
	x.way(2, x.ring([2]float64{pe, pn}, [2]float64{pe + 160, pn}, [2]float64{pe + 160, pn + 120}, [2]float64{pe, pn + 120}))
	x.way(3, x.ring([2]float64{pe + 60, pn + 40}, [2]float64{pe + 100, pn + 40}, [2]float64{pe + 100, pn + 80}, [2]float64{pe + 60, pn + 80}))
	x.b.WriteString(`<relation id="1" version="1"><member type="way" ref="2" role="outer"/><member type="way" ref="3" role="inner"/>` +
		`<tag k="type" v="multipolygon"/><tag k="leisure" v="park"/><tag k="name" v="Stadtpark"/></relation>` + "\n")
	x.way(4, x.ring([2]float64{pe + 60, pn + 40}, [2]float64{pe + 100, pn + 40}, [2]float64{pe + 100, pn + 80}, [2]float64{pe + 60, pn + 80}),
		"natural", "water", "name", "Parkteich")
	x.way(5, x.ring([2]float64{town[0] + 40, town[1] + 40}, [2]float64{town[0] + 120, town[1] + 40}, [2]float64{town[0] + 120, town[1] + 90}, [2]float64{town[0] + 40, town[1] + 90}),
		"amenity", "parking")
	// The river: a band of water along its centre line, and a forest
	// beyond it.
	var river [][2]float64
	for e := minE; e <= maxE; e += 50 {
		river = append(river, [2]float64{e, wn + 30*math.Sin(e/100) - 15})
	}
	for e := maxE; e >= minE; e -= 50 {
		river = append(river, [2]float64{e, wn + 30*math.Sin(e/100) + 15})
	}
	x.way(6, x.ring(river...), "natural", "water", "name", "Demobach")
	fN := wn + 80
	if fN+200 > maxN {
		fN = wn - 300
	}
	x.way(7, x.ring([2]float64{minE + 100, fN}, [2]float64{minE + 700, fN}, [2]float64{minE + 650, fN + 180}, [2]float64{minE + 150, fN + 200}),
		"landuse", "forest")
	// Roads and a railway on a bridge over the river.
	x.way(10, []int64{x.node(minE, town[1]-20), x.node(maxE, town[1]-20)}, "highway", "primary", "width", "9", "name", "Hauptstraße")
	for i := 1; i < 4; i++ {
		e := town[0] + float64(i)*TileM*TilesX/4
		x.way(int64(10+i), []int64{x.node(e, town[1]-20), x.node(e, town[3])}, "highway", "residential")
	}
	x.way(15, []int64{x.node(town[0], town[1]+250), x.node(town[2], town[1]+260)}, "highway", "footway")
	re := town[0] + 300
	x.way(20, []int64{x.node(re, minN), x.node(re, wn-60)}, "railway", "rail")
	x.way(21, []int64{x.node(re, wn-60), x.node(re, wn+60)}, "railway", "rail", "bridge", "yes", "layer", "1")
	x.way(22, []int64{x.node(re, wn+60), x.node(re, maxN)}, "railway", "rail")
	if coastal {
		// Land on the left: walking west, the sea lies north.
		var coast []int64
		for e := maxE + 100; e >= minE-100; e -= 100 {
			coast = append(coast, x.node(e, maxN-120+10*math.Sin(e/60)))
		}
		x.way(30, coast, "natural", "coastline")
	}
	x.b.WriteString("</osm>\n")
	return os.WriteFile(path, []byte(x.b.String()), 0o644)
}

// buildOSMCover writes, imports and builds the OSM cover of the OSM sites
// (after their DGM and terrain mesh).
func buildOSMCover(ctx context.Context, o Options) error {
	for _, s := range Sites {
		coastal := s.BL == "sh"
		if s.BL != "he" && !coastal {
			continue
		}
		path := filepath.Join(o.DataDir, "sources", s.BL, "osm", s.BL+".osm")
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			return err
		}
		if err := writeOSMExtract(path, s, coastal); err != nil {
			return fmt.Errorf("demo: %s: %w", s.BL, err)
		}
		m, err := importer.OSM(ctx, importer.Common{DataDir: o.DataDir, BL: s.BL, Snapshot: s.Snapshot, LicenseID: "odbl-1.0",
			SourceURL: fileURL(path)}, path)
		if err != nil {
			return fmt.Errorf("demo: %s: %w", s.BL, err)
		}
		n := 0
		for _, c := range m.OSM.Features {
			n += c
		}
		cm, err := tiles3d.BuildOSMCover(ctx, tiles3d.OSMCoverOptions{DataDir: o.DataDir, BL: s.BL})
		if err != nil {
			return fmt.Errorf("demo: %s: %w", s.BL, err)
		}
		var themes []string
		for _, t := range cm.OSMCover.Themes {
			themes = append(themes, fmt.Sprintf("%s %d", t.Name, t.TileCount))
		}
		o.Log("osm cover %-3s %d features; themes %s", s.BL, n, strings.Join(themes, ", "))
	}
	return nil
}
