package cmd

import (
	"context"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/svc-geodata/svc/catalog"
	"github.com/svc-geodata/svc/geo"
	"github.com/svc-geodata/svc/pack"
	"github.com/svc-geodata/svc/terrain"
)

// printWelcome tells a person who just started the server where to look:
// the address, the published BL with their extents, and example requests
// that answer with data (a building bbox that holds buildings, a point with
// an elevation, the 3D view), found in the data itself.
func printWelcome(ctx context.Context, w io.Writer, base string, v *catalog.View) {
	fmt.Fprintf(w, "\nsvc is serving %s\n", base)
	lod2 := v.Packs(pack.LoD2)
	if len(lod2) == 0 && len(v.Packs(pack.Terrain)) == 0 {
		fmt.Fprintf(w, "  no data published yet: try 'svc demo --data DIR', or import your own (svc import --help)\n\n")
		return
	}
	fmt.Fprintln(w, "  data:")
	for _, p := range lod2 {
		b := p.Manifest.BBoxWGS84
		ext := ""
		if len(b) == 4 {
			ext = fmt.Sprintf(", lon %.4f..%.4f, lat %.4f..%.4f", b[0], b[2], b[1], b[3])
		}
		fmt.Fprintf(w, "    %-4s LoD2 %s%s\n", p.Manifest.BL, p.Manifest.Snapshot, ext)
	}
	fmt.Fprintln(w, "  try:")
	if bbox, ok := buildingBox(ctx, lod2); ok {
		fmt.Fprintf(w, "    buildings  %s/v1/buildings?bbox=%s&limit=5\n", base, bbox)
	}
	if lon, lat, ok := elevationPoint(ctx, v.Packs(pack.Terrain)); ok {
		fmt.Fprintf(w, "    elevation  %s/v1/terrain/elevation?lat=%s&lon=%s\n", base, num(lat), num(lon))
	}
	fmt.Fprintf(w, "    3D view    %s/viewer/\n    API docs   %s/docs\n\n", base, base)
}

// buildingBox is a small bbox around the first building of the first LoD2
// pack: its first surface's first corner, ±0.001°.
func buildingBox(ctx context.Context, packs []*catalog.Pack) (string, bool) {
	for _, p := range packs {
		st, b := p.LoD2, p.Manifest.BBoxWGS84
		if st == nil || len(b) != 4 {
			continue
		}
		hits, err := st.Search(ctx, geo.BBox{MinLon: b[0], MinLat: b[1], MaxLon: b[2], MaxLat: b[3]}, 0, 1)
		if err != nil || len(hits) == 0 {
			continue
		}
		// Coords is GeoJSON MultiPolygon coordinates: the first two numbers
		// are a corner's lon and lat.
		f := strings.FieldsFunc(string(hits[0].Coords), func(r rune) bool { return r == '[' || r == ']' || r == ',' })
		if len(f) < 2 {
			continue
		}
		lon, err1 := strconv.ParseFloat(f[0], 64)
		lat, err2 := strconv.ParseFloat(f[1], 64)
		if err1 != nil || err2 != nil {
			continue
		}
		return fmt.Sprintf("%s,%s,%s,%s", num(lon-0.001), num(lat-0.001), num(lon+0.001), num(lat+0.001)), true
	}
	return "", false
}

// elevationPoint finds a point with a DGM value: the centre of the first
// terrain pack, else points on a grid over it.
func elevationPoint(ctx context.Context, packs []*catalog.Pack) (float64, float64, bool) {
	for _, p := range packs {
		d, b := p.Raster, p.Manifest.BBoxWGS84
		if d == nil || len(b) != 4 {
			continue
		}
		for _, f := range [][2]float64{{0.5, 0.5}, {0.25, 0.25}, {0.75, 0.75}, {0.25, 0.75}, {0.75, 0.25}} {
			lon, lat := b[0]+(b[2]-b[0])*f[0], b[1]+(b[3]-b[1])*f[1]
			if _, err := terrain.Elevation(ctx, []*terrain.Dataset{d}, lon, lat); err == nil {
				return lon, lat, true
			}
		}
	}
	return 0, 0, false
}

func num(v float64) string { return strconv.FormatFloat(v, 'f', 5, 64) }
