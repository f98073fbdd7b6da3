// Package citygml reads German state LoD2 building models in CityGML 1.0
// (AdV profile) and 2.0 as a stream, one bldg:Building at a time.
//
// The reader is a purpose-built XML scanner rather than encoding/xml: on the
// real Berlin tile encoding/xml only tokenizes at about 66 MB/s, while this
// reader parses whole buildings at about 370 MB/s on one core (see
// BenchmarkEncodingXML and BenchmarkReader).
// It keeps one building in memory: its points, polygons and a map of the
// gml:ids inside it, used to resolve xlink:href references within the
// building. Caps (MaxPoints, MaxItems, MaxTokenBytes, MaxDepth) bound memory
// whatever the input.
//
// What is read: bldg:Building and nested bldg:BuildingPart; their
// bldg:boundedBy thematic surfaces WallSurface, RoofSurface, GroundSurface,
// ClosureSurface, OuterCeilingSurface and OuterFloorSurface with their
// bldg:lod2MultiSurface; bldg:lod2Solid and bldg:lod2MultiSurface of the
// building or part, used only when that building or part has no thematic
// surface (their polygons are returned as Unclassified, and polygons that a
// solid references by xlink:href are never counted twice). Geometry may be
// gml:Polygon, gml:PolygonPatch, gml:Triangle or gml:Rectangle inside any
// nesting of gml:MultiSurface, gml:CompositeSurface, gml:Solid, gml:Shell,
// gml:Surface, gml:TriangulatedSurface and gml:OrientableSurface
// (orientation="-" reverses the rings); rings are gml:LinearRing with
// gml:posList, a sequence of gml:pos, or gml:coordinates (default
// separators). srsDimension is 3 unless given; with srsDimension="2" points
// get z = 0.
//
// The attributes of LoD2-DE are read for the building and each part (see
// Attributes): bldg:function, bldg:roofType, bldg:measuredHeight,
// bldg:storeysAboveGround, core:creationDate, every bldg:address (xAL) and
// the generic attributes (gen:stringAttribute and its kin).
//
// What is skipped: LoD0/1/3/4 geometry, terrain intersection curves,
// openings (windows, doors), interior LoD4 surfaces (InteriorWallSurface,
// CeilingSurface, FloorSurface), building installations, appearances,
// other attributes (gml:name, external references, bldg:class, usage,
// yearOfConstruction, ...) and every non-building city object. The XML encoding
// declaration is not interpreted (ids and coordinates are ASCII); entities
// other than the predefined and numeric ones are an error.
package citygml

import (
	"bytes"
	"errors"
	"fmt"
	"io"
)

// Caps on what one building may hold. Past them Next returns ErrTooLarge.
const (
	// MaxPoints caps the points of one building (24 MB of coordinates).
	MaxPoints = 1 << 20
	// MaxItems caps the polygons, rings, surfaces, parts and references of
	// one building together.
	MaxItems = 1 << 20
	// MaxDepth caps the element nesting depth.
	MaxDepth = 256
	// maxIDBytes caps the bytes of gml:id and xlink:href values kept for
	// one building.
	maxIDBytes = 64 << 20
)

// nsKind classifies an XML namespace.
type nsKind uint8

const (
	nsOther nsKind = iota
	nsGML
	nsBldg
	nsCore
	nsGen
	nsXAL
)

// kindOfURI classifies a namespace URI: GML 3.1 and 3.2, the CityGML 1.0,
// 2.0 and 3.0 building and generics modules, the other CityGML modules
// (core), and OASIS xAL 2.0 (addresses).
func kindOfURI(uri []byte) nsKind {
	switch {
	case bytes.HasPrefix(uri, []byte("http://www.opengis.net/gml")):
		return nsGML
	case bytes.Contains(uri, []byte("citygml/building/")):
		return nsBldg
	case bytes.Contains(uri, []byte("citygml/generics/")):
		return nsGen
	case bytes.HasPrefix(uri, []byte("urn:oasis:names:tc:ciq:xsdschema:xAL")):
		return nsXAL
	case bytes.Contains(uri, []byte("opengis.net/citygml/")):
		return nsCore
	}
	return nsOther
}

// role is what an element means to the reader; children's roles follow
// from their parent's role and their own name (see childRole).
type role uint8

const (
	rOutside   role = iota // outside any building
	rOwner                 // bldg:Building or bldg:BuildingPart
	rPartWrap              // bldg:consistsOfBuildingPart
	rBoundedBy             // bldg:boundedBy
	rThematic              // a boundary surface such as bldg:RoofSurface
	rGeom                  // a surface geometry or a property holding one
	rPolygon               // gml:Polygon and the other planar patches
	rRingSlot              // gml:exterior or gml:interior of a polygon
	rRing                  // gml:LinearRing
	rPointWrap             // gml:pointProperty or gml:Point inside a ring
	rCoords                // gml:posList, gml:pos, gml:coordinates
	rAttrText              // an attribute leaf whose text is kept (see attrKind)
	rGen                   // a generic attribute or gen:genericAttributeSet
	rAddrProp              // bldg:address
	rAddr                  // an element inside bldg:address
	rSkip                  // ignored, with all its content
)

// Coordinate element kinds.
const (
	cPosList = iota
	cPos
	cCoordinates
)

// frame is one open element.
type frame struct {
	nameStart, nameEnd int32 // the qualified name in Reader.names
	nsMark             int32 // len(Reader.ns) before this element
	role               role
	dim                int8 // srsDimension in force, 0 if none given
	rev                bool // inside an odd number of reversed OrientableSurfaces
	exterior           bool // rRingSlot: exterior (true) or interior
	coords             uint8
	attr               attrKind // rAttrText: what the text is
	target             int32    // surface target index, -1 outside one
	owner              int32    // owner index, -1 outside a building
	ctr                int32    // container index when the element has a gml:id, else -1
	line               int32    // rCoords: line of the start tag
}

// binding maps a namespace prefix to a kind.
type binding struct {
	prefix string
	kind   nsKind
}

// Reader reads buildings from one CityGML document. It is not safe for
// concurrent use.
type Reader struct {
	name  string
	lx    *lexer
	stack []frame
	names []byte
	ns    []binding

	fileEPSG int
	epsg     int
	lastSRS  []byte
	lastCode int

	rootSeen    bool
	rootCity    bool
	rootLine    int
	buildings   int
	err         error
	text        []byte
	b           build
	attrScratch attrs
	interned    map[string]string
}

// attrs holds the attributes of one start tag that the reader uses.
type attrs struct {
	id, href, srs, dim, orient []byte
	codeSpace, uom, name       []byte
	hasID, hasHref, hasSRS     bool
}

// NewReader returns a Reader of the CityGML document r. name (usually the
// file name) prefixes every error as "name:line:". The reader buffers its
// input; it never closes r.
func NewReader(r io.Reader, name string) *Reader {
	return &Reader{name: name, lx: newLexer(r)}
}

// SRS returns the EPSG code of the horizontal CRS in force: that of the
// building last returned by Next, or before the first building the last
// srsName seen in the file; 0 when none was seen yet. Unknown CRSs are
// reported by Next as errors wrapping ErrUnknownCRS.
func (r *Reader) SRS() int {
	if r.epsg != 0 {
		return r.epsg
	}
	return r.fileEPSG
}

// Offset returns the number of input bytes consumed so far, for progress
// reporting against Input.Size.
func (r *Reader) Offset() int64 { return r.lx.offset() }

// Next returns the next building. At the end of the document it returns
// io.EOF. Errors are *Error values naming the input and line and wrapping
// ErrSyntax, ErrUnknownCRS, ErrMixedCRS, ErrCoordinates, ErrTooLarge,
// ErrEmpty, ErrNotCityGML or the read error; after an error, Next returns
// the same error again.
func (r *Reader) Next() (*Building, error) {
	if r.err != nil {
		return nil, r.err
	}
	b, err := r.next()
	if err != nil {
		r.err = err
		return nil, err
	}
	return b, nil
}

func (r *Reader) next() (*Building, error) {
	for {
		kind, err := r.lx.next()
		if err != nil {
			return nil, r.lexError(err)
		}
		var done bool
		switch kind {
		case tokStart:
			done, err = r.startElement()
		case tokEnd:
			done, err = r.endElement()
		case tokText:
			err = r.addText()
		case tokEOF:
			return nil, r.endOfInput()
		}
		if err != nil {
			return nil, err
		}
		if done {
			b, err := r.finish()
			if err != nil {
				return nil, err
			}
			r.buildings++
			return b, nil
		}
	}
}

// errorf returns an *Error at the current token.
func (r *Reader) errorf(sentinel error, format string, args ...any) error {
	return &Error{Name: r.name, Line: r.lx.lineAt(r.lx.tok), Err: sentinel, Msg: fmt.Sprintf(format, args...)}
}

// lexError positions a lexer or read error.
func (r *Reader) lexError(err error) error {
	line := r.lx.lineAt(r.lx.tok)
	var se *syntaxError
	if errors.As(err, &se) {
		if se.msg == "unexpected end of file inside markup" {
			line = r.lx.lineAt(r.lx.end)
		}
		return &Error{Name: r.name, Line: line, Err: se.err, Msg: se.msg}
	}
	return &Error{Name: r.name, Line: line, Err: err}
}

// endOfInput checks the document is complete and returns io.EOF if so.
func (r *Reader) endOfInput() error {
	line := r.lx.lineAt(r.lx.end)
	if len(r.stack) > 0 {
		f := r.stack[len(r.stack)-1]
		return &Error{Name: r.name, Line: line, Err: ErrSyntax,
			Msg: fmt.Sprintf("unexpected end of file: <%s> not closed", r.names[f.nameStart:f.nameEnd])}
	}
	if !r.rootSeen {
		return &Error{Name: r.name, Line: line, Err: ErrEmpty, Msg: "no root element"}
	}
	if r.buildings == 0 && !r.rootCity {
		return &Error{Name: r.name, Line: r.rootLine, Err: ErrNotCityGML, Msg: "root element is not a CityModel and holds no bldg:Building"}
	}
	return io.EOF
}

// addText collects the character data of a coordinate element or an
// attribute leaf.
func (r *Reader) addText() error {
	t := r.lx.text
	if len(r.text)+len(t) > MaxTokenBytes {
		return r.errorf(ErrTooLarge, "text of one element longer than MaxTokenBytes")
	}
	if r.lx.cdata {
		r.text = append(r.text, t...)
		return nil
	}
	var err error
	r.text, err = appendDecoded(r.text, t)
	if err != nil {
		return r.lexError(err)
	}
	return nil
}

// readAttrs extracts the attributes the reader uses and pushes namespace
// declarations.
func (r *Reader) readAttrs() *attrs {
	a := &r.attrScratch
	*a = attrs{}
	for _, at := range r.lx.attrs {
		n := at.name
		if bytes.HasPrefix(n, []byte("xmlns")) {
			if len(n) == 5 || n[5] == ':' {
				prefix := ""
				if len(n) > 5 {
					prefix = string(n[6:])
				}
				r.ns = append(r.ns, binding{prefix, kindOfURI(at.value)})
				continue
			}
		}
		if i := bytes.IndexByte(n, ':'); i >= 0 {
			n = n[i+1:]
		}
		switch string(n) {
		case "id":
			a.id, a.hasID = at.value, true
		case "href":
			a.href, a.hasHref = at.value, true
		case "srsName":
			a.srs, a.hasSRS = at.value, true
		case "srsDimension":
			a.dim = at.value
		case "orientation":
			a.orient = at.value
		case "codeSpace":
			a.codeSpace = at.value
		case "uom":
			a.uom = at.value
		case "name":
			a.name = at.value
		}
	}
	return a
}

// resolve returns the namespace kind and local name of a qualified name.
func (r *Reader) resolve(qname []byte) (nsKind, []byte) {
	prefix, local := []byte(nil), qname
	if i := bytes.IndexByte(qname, ':'); i >= 0 {
		prefix, local = qname[:i], qname[i+1:]
	}
	for i := len(r.ns) - 1; i >= 0; i-- {
		if r.ns[i].prefix == string(prefix) {
			return r.ns[i].kind, local
		}
	}
	// Unbound prefix: tolerate the conventional ones.
	switch string(prefix) {
	case "gml":
		return nsGML, local
	case "bldg":
		return nsBldg, local
	case "core":
		return nsCore, local
	}
	return nsOther, local
}
