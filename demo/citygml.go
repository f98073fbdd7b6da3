package demo

import (
	"bufio"
	"fmt"
	"io"
	"math"
	"strconv"
)

// RoofKind is the roof shape of a generated building.
type RoofKind int

// The roof shapes the generator writes.
const (
	Flat  RoofKind = iota
	Gable          // two facets meeting at a ridge along the building's length
	Shed           // one facet rising from the front (v = -depth/2) to the back
)

// Building is a rectangular LoD2 building: a footprint of Length x Depth
// metres centred at (X, Y) in the pack's UTM CRS, rotated by RotDeg
// counter-clockwise from east, standing on Z0 with eaves at Z0+Height.
// PitchDeg is the roof slope of Gable and Shed roofs. A non-nil Part is
// written as a bldg:BuildingPart.
type Building struct {
	ID               string
	X, Y, Z0         float64
	Length, Depth    float64
	Height, PitchDeg float64
	RotDeg           float64
	Roof             RoofKind
	Part             *Building
}

// point is a generated vertex.
type point [3]float64

// face is one polygon with its CityGML class.
type face struct {
	class string // WallSurface, RoofSurface, GroundSurface
	ring  []point
}

// faces returns the closed shell of b: ground (facing down), walls (facing
// out) and roof facets (facing up), each ring counter-clockwise seen from
// outside as CityGML requires.
func (b Building) faces() []face {
	L, D := b.Length/2, b.Depth/2
	t := math.Tan(b.PitchDeg * math.Pi / 180)
	eave := b.Z0 + b.Height
	// Heights of the roof over local (u, v).
	top := func(u, v float64) float64 {
		switch b.Roof {
		case Gable:
			return eave + (D-math.Abs(v))*t
		case Shed:
			return eave + (v+D)*t
		}
		return eave
	}
	sin, cos := math.Sincos(b.RotDeg * math.Pi / 180)
	at := func(u, v, z float64) point { return point{b.X + u*cos - v*sin, b.Y + u*sin + v*cos, z} }
	corners := [][2]float64{{-L, -D}, {L, -D}, {L, D}, {-L, D}} // counter-clockwise from above
	var fs []face
	ground := face{class: "GroundSurface"}
	for i := len(corners) - 1; i >= 0; i-- {
		ground.ring = append(ground.ring, at(corners[i][0], corners[i][1], b.Z0))
	}
	fs = append(fs, ground)
	for i := range corners {
		a, c := corners[i], corners[(i+1)%4]
		w := face{class: "WallSurface", ring: []point{at(a[0], a[1], b.Z0), at(c[0], c[1], b.Z0), at(c[0], c[1], top(c[0], c[1]))}}
		if b.Roof == Gable && a[0] == c[0] { // gable end: the ridge point between the corners
			w.ring = append(w.ring, at(a[0], 0, top(a[0], 0)))
		}
		w.ring = append(w.ring, at(a[0], a[1], top(a[0], a[1])))
		fs = append(fs, w)
	}
	switch b.Roof {
	case Gable:
		fs = append(fs,
			face{"RoofSurface", []point{at(-L, -D, eave), at(L, -D, eave), at(L, 0, top(0, 0)), at(-L, 0, top(0, 0))}},
			face{"RoofSurface", []point{at(-L, 0, top(0, 0)), at(L, 0, top(0, 0)), at(L, D, eave), at(-L, D, eave)}})
	default:
		r := face{class: "RoofSurface"}
		for _, c := range corners {
			r.ring = append(r.ring, at(c[0], c[1], top(c[0], c[1])))
		}
		fs = append(fs, r)
	}
	return fs
}

// CityGMLOptions select the flavour of the written document.
type CityGMLOptions struct {
	EPSG    int // 25832 or 25833
	Version int // 1 (AdV profile, as NRW delivers) or 2
}

// WriteCityGML writes the buildings as a CityGML LoD2 document with
// thematic boundary surfaces, posList rings and a BuildingPart where set.
func WriteCityGML(w io.Writer, o CityGMLOptions, buildings []Building) error {
	bw := bufio.NewWriter(w)
	core, bldg := "http://www.opengis.net/citygml/2.0", "http://www.opengis.net/citygml/building/2.0"
	if o.Version == 1 {
		core, bldg = "http://www.opengis.net/citygml/1.0", "http://www.opengis.net/citygml/building/1.0"
	}
	srs := fmt.Sprintf("urn:adv:crs:ETRS89_UTM%d*DE_DHHN2016_NH", o.EPSG-25800)
	fmt.Fprintf(bw, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<core:CityModel xmlns:core=%q xmlns:bldg=%q xmlns:gml=\"http://www.opengis.net/gml\" xmlns:xlink=\"http://www.w3.org/1999/xlink\">\n", core, bldg)
	n := 0
	for _, b := range buildings {
		fmt.Fprintf(bw, "<core:cityObjectMember><bldg:Building gml:id=%q>\n", b.ID)
		writeShell(bw, b, srs, &n)
		if b.Part != nil {
			fmt.Fprintf(bw, "<bldg:consistsOfBuildingPart><bldg:BuildingPart gml:id=%q>\n", b.Part.ID)
			writeShell(bw, *b.Part, srs, &n)
			bw.WriteString("</bldg:BuildingPart></bldg:consistsOfBuildingPart>\n")
		}
		bw.WriteString("</bldg:Building></core:cityObjectMember>\n")
	}
	bw.WriteString("</core:CityModel>\n")
	return bw.Flush()
}

func writeShell(bw *bufio.Writer, b Building, srs string, n *int) {
	for _, f := range b.faces() {
		*n++
		fmt.Fprintf(bw, "<bldg:boundedBy><bldg:%s gml:id=\"%s_s%d\"><bldg:lod2MultiSurface><gml:MultiSurface srsName=%q srsDimension=\"3\"><gml:surfaceMember><gml:Polygon gml:id=\"%s_p%d\"><gml:exterior><gml:LinearRing><gml:posList>",
			f.class, b.ID, *n, srs, b.ID, *n)
		ring := append(f.ring, f.ring[0])
		var buf []byte
		for i, p := range ring {
			if i > 0 {
				buf = append(buf, ' ')
			}
			buf = strconv.AppendFloat(buf, p[0], 'f', 3, 64)
			buf = append(buf, ' ')
			buf = strconv.AppendFloat(buf, p[1], 'f', 3, 64)
			buf = append(buf, ' ')
			buf = strconv.AppendFloat(buf, p[2], 'f', 3, 64)
		}
		bw.Write(buf)
		fmt.Fprintf(bw, "</gml:posList></gml:LinearRing></gml:exterior></gml:Polygon></gml:surfaceMember></gml:MultiSurface></bldg:lod2MultiSurface></bldg:%s></bldg:boundedBy>\n", f.class)
	}
}
