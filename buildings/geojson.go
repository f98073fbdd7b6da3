package buildings

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"strconv"

	"github.com/svc-geodata/svc/geo"
	"github.com/svc-geodata/svc/lod2store"
)

// A surface feature is written by hand, not through encoding/json: its
// coordinates are stored as ready GeoJSON text, and a page holds up to
// 10,000 features, so re-encoding would cost more than the search itself.
// What is written is declared once, here: a Form lists the Properties of a
// feature, each with its JSON Schema and its writer, and the OpenAPI
// document describes the forms from the same lists (server/schemas.go), so
// a property added to a form is written and documented by the same edit.

// Feature is what a surface feature is written from.
type Feature struct {
	lod2store.FedHit
	Roof RoofSummary // the roof properties (the OGC roofs collection)
}

// Property is one member of a feature's properties object.
type Property struct {
	Name string
	// Type is the JSON Schema type of the value (integer, number, string);
	// Nullable adds null.
	Type     string
	Nullable bool
	Enum     []any // the only values, or nil
	Desc     string
	write    func(b *bytes.Buffer, f *Feature)
	// value is what write writes, as a Go value (int64, float64, string or
	// nil): what a CQL2 filter and sortby compare.
	value func(f *Feature) any
	key   string // "name": as written, set by newForm
}

// Value returns the value of p in f as written (int64, float64, string,
// or nil for null): what filters and sorting compare.
func (p *Property) Value(f *Feature) any { return p.value(f) }

func optFloat(v *float64) any {
	if v == nil {
		return nil
	}
	return *v
}

// The properties a surface feature can have.
var (
	PropSurfaceID = &Property{Name: "surface_id", Type: "integer",
		Desc:  "unique within a snapshot, not across snapshots: a new snapshot keeps the ids of its unchanged source files' surfaces and numbers the changed files' anew, after the last (gaps where files were replaced)",
		value: func(f *Feature) any { return f.SurfaceID },
		write: func(b *bytes.Buffer, f *Feature) { writeInt(b, f.SurfaceID) }}
	PropBuildingID = &Property{Name: "building_id", Type: "integer", Desc: "shared by the surfaces of one building",
		value: func(f *Feature) any { return f.BuildingID },
		write: func(b *bytes.Buffer, f *Feature) { writeInt(b, f.BuildingID) }}
	PropGMLID = &Property{Name: "gmlid", Type: "string",
		value: func(f *Feature) any { return f.GMLID },
		write: func(b *bytes.Buffer, f *Feature) { WriteJSONString(b, f.GMLID) }}
	PropSurfaceClass = &Property{Name: "surface_class", Type: "integer", Desc: "709 wall, 710 ground, 712 roof",
		Enum:  []any{lod2store.ClassWall, lod2store.ClassGround, lod2store.ClassRoof},
		value: func(f *Feature) any { return int64(f.Class) },
		write: func(b *bytes.Buffer, f *Feature) { writeInt(b, int64(f.Class)) }}
	PropBundesland = &Property{Name: "bundesland", Type: "string", Desc: "unprefixed BL code",
		value: func(f *Feature) any { return f.BL },
		write: func(b *bytes.Buffer, f *Feature) { b.WriteByte('"'); b.WriteString(f.BL); b.WriteByte('"') }}
	PropLoD = &Property{Name: "lod", Type: "string", Enum: []any{"LoD2"},
		value: func(f *Feature) any { return "LoD2" },
		write: func(b *bytes.Buffer, f *Feature) { b.WriteString(`"LoD2"`) }}
	PropRoofArea = &Property{Name: "area_m2", Type: "number", Desc: "horizontal area of all polygons of the surface, m2, 2 decimals",
		value: func(f *Feature) any { return f.Roof.AreaM2 },
		write: func(b *bytes.Buffer, f *Feature) { writeFloat(b, f.Roof.AreaM2) }}
	PropRoofFacets = &Property{Name: "facets", Type: "integer", Desc: "planar polygons of the surface",
		value: func(f *Feature) any { return int64(f.Roof.Facets) },
		write: func(b *bytes.Buffer, f *Feature) { writeInt(b, int64(f.Roof.Facets)) }}
	PropRoofTilt = &Property{Name: "tilt_deg", Type: "number", Nullable: true, Desc: "tilt of the largest polygon; null without polygons",
		value: func(f *Feature) any { return optFloat(f.Roof.TiltDeg) },
		write: func(b *bytes.Buffer, f *Feature) { writeOptFloat(b, f.Roof.TiltDeg) }}
	PropRoofAzimuth = &Property{Name: "azimuth_deg", Type: "number", Nullable: true,
		Desc:  "azimuth (true north) of the largest polygon; null when it is flat (tilt < 5) or there is none",
		value: func(f *Feature) any { return optFloat(f.Roof.AzimuthDeg) },
		write: func(b *bytes.Buffer, f *Feature) { writeOptFloat(b, f.Roof.AzimuthDeg) }}
)

// Form is the GeoJSON form of a surface feature on one API surface: how
// its id is written and which properties it has, in order.
type Form struct {
	id         func(b *bytes.Buffer, f *Feature)
	Properties []*Property
}

// The forms of the API surfaces.
var (
	// SearchSurface is a feature of GET /v1/buildings (SPEC 2.3): the id
	// is the gmlid.
	SearchSurface = newForm(func(b *bytes.Buffer, f *Feature) { WriteJSONString(b, f.GMLID) },
		PropSurfaceID, PropBuildingID, PropGMLID, PropSurfaceClass, PropBundesland, PropLoD)
	// OGCSurface is a feature of the OGC buildings collections: the id is
	// <bl>.<surface_id>, unique over the federation.
	OGCSurface = newForm(writeOGCID, PropGMLID, PropBundesland, PropSurfaceID, PropBuildingID, PropSurfaceClass, PropLoD)
	// OGCRoof is a feature of the OGC roofs collection.
	OGCRoof = newForm(writeOGCID, PropGMLID, PropBundesland, PropRoofArea, PropRoofFacets, PropRoofTilt, PropRoofAzimuth)
)

// newForm returns the form writing its id with id and the properties in
// the order given.
func newForm(id func(b *bytes.Buffer, f *Feature), props ...*Property) *Form {
	for _, p := range props {
		p.key = `"` + p.Name + `":`
	}
	return &Form{id: id, Properties: props}
}

func writeOGCID(b *bytes.Buffer, f *Feature) {
	b.WriteByte('"')
	b.WriteString(f.BL)
	b.WriteByte('.')
	writeInt(b, f.SurfaceID)
	b.WriteByte('"')
}

// Names returns the property names of the form, in order.
func (fm *Form) Names() []string {
	out := make([]string, len(fm.Properties))
	for i, p := range fm.Properties {
		out[i] = p.Name
	}
	return out
}

// Write writes f as a GeoJSON Feature of this form, its coordinates in
// crs: CRS84 copies the stored coordinates, other CRS convert them. Stored
// coordinates that cannot be read are an error wrapping lod2store.ErrCorrupt
// (b then holds a partial feature); the caller, who knows the feature's
// source, reports it as that source's damage (Damaged).
func (fm *Form) Write(b *bytes.Buffer, f *Feature, crs geo.CRS) error {
	b.WriteString(`{"type":"Feature","id":`)
	fm.id(b, f)
	b.WriteString(`,"geometry":{"type":"MultiPolygon","coordinates":`)
	if err := writeCoords(b, f.Coords, crs); err != nil {
		return fmt.Errorf("buildings: surface %d of BL %s: %w", f.SurfaceID, f.BL, err)
	}
	b.WriteString(`},"properties":{`)
	for i, p := range fm.Properties {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(p.key)
		p.write(b, f)
	}
	b.WriteString(`}}`)
	return nil
}

// writeCoords writes GeoJSON MultiPolygon coordinates (stored as WGS84
// lon, lat, z text) in crs: metres with 3 decimals, degrees with 8. Stored
// text that is not MultiPolygon coordinates is an error wrapping
// lod2store.ErrCorrupt.
//
// Other CRS than CRS84 are converted while the text is scanned, position by
// position, without decoding it into slices first (a page of 100 surfaces
// was 2,700 allocations through encoding/json). The numbers are read by
// strconv.ParseFloat, as encoding/json reads them, so the output is the
// same.
func writeCoords(b *bytes.Buffer, coords []byte, crs geo.CRS) error {
	if crs == geo.CRS84 {
		b.Write(coords)
		return nil
	}
	prec := 8
	if crs.Projected() {
		prec = 3
	}
	corrupt := func(what string) error {
		return fmt.Errorf("%w: stored coordinates: %s", lod2store.ErrCorrupt, what)
	}
	var (
		depth int        // arrays open
		pos   [3]float64 // the numbers of the position being read
		n     int        // how many it has
		after bool       // a value was just completed at this depth (a ',' or ']' must follow)
		done  bool       // the outer array is closed
	)
	for i := 0; i < len(coords); i++ {
		c := coords[i]
		switch {
		case c == ' ' || c == '\t' || c == '\n' || c == '\r':
		case done:
			return corrupt("text after the coordinates")
		case c == '[':
			if depth == 4 || after {
				return corrupt("not MultiPolygon coordinates")
			}
			if depth++; depth == 4 {
				n = 0
			} else {
				b.WriteByte('[')
			}
		case c == ',':
			if !after || depth == 0 {
				return corrupt("a stray ','")
			}
			after = false
			if depth < 4 {
				b.WriteByte(',')
			}
		case c == ']':
			if depth == 0 || !after && (depth == 4 || b.Bytes()[b.Len()-1] != '[') {
				return corrupt("a stray ']'")
			}
			if depth == 4 {
				if n < 2 {
					return fmt.Errorf("%w: stored coordinates: a position of %d numbers", lod2store.ErrCorrupt, n)
				}
				writePosition(b, pos[:min(n, 3)], crs, prec)
			} else {
				b.WriteByte(']')
			}
			depth--
			after, done = true, depth == 0
		case depth == 4 && !after && (c == '-' || c >= '0' && c <= '9'):
			j := i + 1
			for j < len(coords) && (coords[j] >= '0' && coords[j] <= '9' || coords[j] == '.' || coords[j] == 'e' || coords[j] == 'E' || coords[j] == '+' || coords[j] == '-') {
				j++
			}
			v, err := strconv.ParseFloat(string(coords[i:j]), 64)
			if err != nil {
				return corrupt("a malformed number")
			}
			if n < len(pos) {
				pos[n] = v
			}
			n++
			i, after = j-1, true
		default:
			return corrupt("not MultiPolygon coordinates")
		}
	}
	if !done {
		return corrupt("unterminated")
	}
	return nil
}

// writePosition writes one position converted from WGS84 to crs.
func writePosition(b *bytes.Buffer, p []float64, crs geo.CRS, prec int) {
	x, y := crs.FromWGS84(p[0], p[1])
	b.WriteByte('[')
	b.Write(strconv.AppendFloat(b.AvailableBuffer(), round(x, prec), 'f', -1, 64))
	b.WriteByte(',')
	b.Write(strconv.AppendFloat(b.AvailableBuffer(), round(y, prec), 'f', -1, 64))
	if len(p) > 2 {
		b.WriteByte(',')
		b.Write(strconv.AppendFloat(b.AvailableBuffer(), p[2], 'f', -1, 64))
	}
	b.WriteByte(']')
}

// WriteJSONString writes s as a JSON string. Ids are nearly always plain
// ASCII, which is copied as is; anything else goes through encoding/json.
func WriteJSONString(buf *bytes.Buffer, s string) {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c == '"' || c == '\\' || c >= 0x7f || c == '<' || c == '>' || c == '&' {
			b, _ := json.Marshal(s)
			buf.Write(b)
			return
		}
	}
	buf.WriteByte('"')
	buf.WriteString(s)
	buf.WriteByte('"')
}

func writeInt(b *bytes.Buffer, v int64) {
	var num [24]byte
	b.Write(strconv.AppendInt(num[:0], v, 10))
}

func writeFloat(b *bytes.Buffer, v float64) {
	var num [32]byte
	b.Write(strconv.AppendFloat(num[:0], v, 'f', -1, 64))
}

func writeOptFloat(b *bytes.Buffer, v *float64) {
	if v == nil {
		b.WriteString("null")
		return
	}
	writeFloat(b, *v)
}

// round rounds v to the given decimals, half away from zero.
func round(v float64, decimals int) float64 {
	p := math.Pow10(decimals)
	return math.Round(v*p) / p
}

// Select returns the form with only the properties keep admits, in the
// form's order (OGC API - Features property selection); the id and the
// geometry are always written.
func (fm *Form) Select(keep func(name string) bool) *Form {
	out := &Form{id: fm.id}
	for _, p := range fm.Properties {
		if keep(p.Name) {
			out.Properties = append(out.Properties, p)
		}
	}
	return out
}
