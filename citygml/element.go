package citygml

import (
	"bytes"
	"fmt"
)

// childRole decides the role of an element from its parent's role and its
// name; for rThematic it also returns the surface class.
func childRole(parent role, kind nsKind, local []byte) (role, Class) {
	switch parent {
	case rOutside:
		if kind == nsBldg && string(local) == "Building" {
			return rOwner, 0
		}
		return rOutside, 0
	case rOwner:
		if kind != nsBldg {
			return rSkip, 0
		}
		switch string(local) {
		case "boundedBy":
			return rBoundedBy, 0
		case "consistsOfBuildingPart":
			return rPartWrap, 0
		case "lod2Solid", "lod2MultiSurface":
			return rGeom, 0
		}
	case rPartWrap:
		if kind == nsBldg && string(local) == "BuildingPart" {
			return rOwner, 0
		}
	case rBoundedBy:
		if kind == nsBldg {
			if c, ok := classOf(local); ok {
				return rThematic, c
			}
		}
	case rThematic:
		if kind == nsBldg && string(local) == "lod2MultiSurface" {
			return rGeom, 0
		}
	case rGeom:
		return geomRole(kind, local), 0
	case rPolygon:
		if kind == nsGML {
			switch string(local) {
			case "exterior", "interior", "outerBoundaryIs", "innerBoundaryIs":
				return rRingSlot, 0
			}
		}
	case rRingSlot:
		if kind == nsGML && string(local) == "LinearRing" {
			return rRing, 0
		}
	case rRing, rPointWrap:
		if kind == nsGML {
			switch string(local) {
			case "posList", "pos", "coordinates":
				return rCoords, 0
			case "pointProperty", "pointRep", "Point":
				return rPointWrap, 0
			}
		}
	}
	return rSkip, 0
}

// geomRole classifies an element inside a surface geometry: planar patches
// become polygons, non-surface geometry is skipped, every other GML element
// (aggregates, solids, shells, member properties) is transparent.
func geomRole(kind nsKind, local []byte) role {
	if kind != nsGML {
		return rSkip
	}
	switch string(local) {
	case "Polygon", "PolygonPatch", "Triangle", "Rectangle":
		return rPolygon
	case "LinearRing", "Ring", "LineString", "Curve", "MultiCurve", "CompositeCurve",
		"OrientableCurve", "Point", "MultiPoint", "Envelope", "boundedBy", "name", "description":
		return rSkip
	}
	return rGeom
}

// startElement handles a start tag; done reports the end of a building
// (a self-closing bldg:Building).
func (r *Reader) startElement() (bool, error) {
	lx := r.lx
	if len(r.stack) >= MaxDepth {
		return false, r.errorf(ErrTooLarge, "elements nested deeper than %d", MaxDepth)
	}
	nsMark := int32(len(r.ns))
	a := r.readAttrs()
	kind, local := r.resolve(lx.name)
	parent := frame{role: rOutside, target: -1, owner: -1, ctr: -1}
	if n := len(r.stack); n > 0 {
		parent = r.stack[n-1]
	} else {
		if r.rootSeen {
			return false, r.errorf(ErrSyntax, "content after the root element")
		}
		r.rootSeen, r.rootCity = true, string(local) == "CityModel"
		r.rootLine = lx.lineAt(lx.tok)
	}
	rl, class := childRole(parent.role, kind, local)
	var ak attrKind
	switch parent.role {
	case rOwner:
		if rl == rSkip {
			rl, ak = ownerRole(kind, local)
		}
	case rAddrProp, rAddr:
		rl, ak = addrRole(kind, local)
	case rGen:
		rl, ak = genRole(kind, local)
	}
	f := frame{nsMark: nsMark, role: rl, dim: parent.dim, rev: parent.rev,
		exterior: parent.exterior, target: parent.target, owner: parent.owner, ctr: -1, attr: ak}
	if err := r.startRole(&f, parent.role, class, local, a); err != nil {
		return false, err
	}
	if a.hasSRS {
		if err := r.setSRS(a.srs); err != nil {
			return false, err
		}
	}
	if a.dim != nil {
		switch string(bytes.TrimSpace(a.dim)) {
		case "2":
			f.dim = 2
		case "3":
			f.dim = 3
		default:
			return false, r.errorf(ErrCoordinates, "srsDimension %q not supported (2 or 3)", a.dim)
		}
	}
	f.nameStart = int32(len(r.names))
	r.names = append(r.names, lx.name...)
	f.nameEnd = int32(len(r.names))
	r.stack = append(r.stack, f)
	lx.wantText = f.role == rCoords || f.role == rAttrText
	if lx.selfClose {
		return r.endElement()
	}
	return false, nil
}

// startRole runs the actions of an element's role at its start tag.
func (r *Reader) startRole(f *frame, parent role, class Class, local []byte, a *attrs) error {
	b := &r.b
	var err error
	switch f.role {
	case rOwner:
		id, err := r.idString(a.id)
		if err != nil {
			return err
		}
		if parent == rOutside {
			b.reset()
			b.active, b.id, b.line = true, id, r.lx.lineAt(r.lx.tok)
		} else {
			b.parts = append(b.parts, id)
		}
		parentOwner := f.owner
		f.owner = int32(len(b.owners))
		b.owners = append(b.owners, owner{id: id, parent: parentOwner, attrs: Attributes{StoreysAboveGround: -1}})
		f.target = -1
		return r.item()
	case rThematic:
		id, err := r.idString(a.id)
		if err != nil {
			return err
		}
		f.target = int32(len(b.targets))
		b.targets = append(b.targets, target{thematic: true, class: class, owner: f.owner, id: id})
		b.owners[f.owner].thematic = true
		return r.item()
	case rGeom:
		return r.startGeom(f, parent, local, a)
	case rAttrText, rGen, rAddrProp:
		return r.startAttr(f, local, a)
	case rPolygon:
		b.polyID, err = r.idString(a.id)
		b.polyRings = int32(len(b.rings))
	case rRingSlot:
		f.exterior = string(local) == "exterior" || string(local) == "outerBoundaryIs"
	case rRing:
		b.ringStart = int32(len(b.pts))
	case rCoords:
		switch string(local) {
		case "posList":
			f.coords = cPosList
		case "pos":
			f.coords = cPos
		default:
			f.coords = cCoordinates
		}
		f.line = int32(r.lx.lineAt(r.lx.tok))
		r.text = r.text[:0]
	}
	return err
}

// startGeom handles surface geometry elements and geometry properties:
// a new unclassified target for lod2Solid/lod2MultiSurface of an owner,
// orientation, references and containers with a gml:id.
func (r *Reader) startGeom(f *frame, parent role, local []byte, a *attrs) error {
	b := &r.b
	if parent == rOwner {
		f.target = int32(len(b.targets))
		b.targets = append(b.targets, target{owner: f.owner})
		if err := r.item(); err != nil {
			return err
		}
	}
	if string(local) == "OrientableSurface" && string(bytes.TrimSpace(a.orient)) == "-" {
		f.rev = !f.rev
	}
	if a.hasHref {
		href, err := r.idString(a.href)
		if err != nil {
			return err
		}
		b.entries = append(b.entries, entry{target: f.target, poly: -1, href: href, rev: f.rev})
		if err := r.item(); err != nil {
			return err
		}
	}
	if a.hasID {
		id, err := r.idString(a.id)
		if err != nil {
			return err
		}
		f.ctr = int32(len(b.ctrs))
		b.ctrs = append(b.ctrs, container{id: id, polyStart: int32(len(b.polys)), polyEnd: -1})
		return r.item()
	}
	return nil
}

// idString decodes an id or href value, charging it to the building's cap.
func (r *Reader) idString(v []byte) (string, error) {
	if len(v) == 0 {
		return "", nil
	}
	r.b.idBytes += len(v)
	if r.b.idBytes > maxIDBytes {
		return "", r.errorf(ErrTooLarge, "ids of one building exceed %d bytes", maxIDBytes)
	}
	s, err := decodeString(v)
	if err != nil {
		return "", r.lexError(err)
	}
	return s, nil
}

// item charges one polygon, ring, surface, part or reference to the cap.
func (r *Reader) item() error {
	r.b.items++
	if r.b.items > MaxItems {
		return r.errorf(ErrTooLarge, "building has more than %d polygons, rings, surfaces and references", MaxItems)
	}
	return nil
}

// setSRS applies an srsName: inside a building to the building, outside
// to the rest of the file.
func (r *Reader) setSRS(v []byte) error {
	code := r.lastCode
	if code == 0 || !bytes.Equal(v, r.lastSRS) {
		s, err := decodeString(v)
		if err != nil {
			return r.lexError(err)
		}
		c, err := ParseSRS(s)
		if err != nil {
			return r.errorf(ErrUnknownCRS, "srsName %q (supported: ETRS89 / UTM zone 32N or 33N)", s)
		}
		r.lastSRS, r.lastCode, code = append(r.lastSRS[:0], v...), c, c
	}
	if !r.b.active {
		r.fileEPSG = code
		return nil
	}
	if r.b.epsg != 0 && r.b.epsg != code {
		return r.errorf(ErrMixedCRS, "EPSG:%d and EPSG:%d in building %q", r.b.epsg, code, r.b.id)
	}
	r.b.epsg = code
	return nil
}

// endElement handles an end tag; done reports the end of a building.
func (r *Reader) endElement() (bool, error) {
	n := len(r.stack)
	if n == 0 {
		return false, r.errorf(ErrSyntax, "unexpected end tag </%s>", r.lx.name)
	}
	f := r.stack[n-1]
	if open := r.names[f.nameStart:f.nameEnd]; !bytes.Equal(open, r.lx.name) {
		return false, r.errorf(ErrSyntax, "end tag </%s> does not match <%s>", r.lx.name, open)
	}
	r.stack = r.stack[:n-1]
	r.names = r.names[:f.nameStart]
	r.ns = r.ns[:f.nsMark]
	r.lx.wantText = false
	b := &r.b
	switch f.role {
	case rCoords:
		return false, r.endCoords(&f)
	case rRing:
		pts := b.pts[b.ringStart:]
		if f.rev {
			for i, j := 0, len(pts)-1; i < j; i, j = i+1, j-1 {
				pts[i], pts[j] = pts[j], pts[i]
			}
		}
		b.rings = append(b.rings, ringRec{start: b.ringStart, end: int32(len(b.pts)), exterior: f.exterior})
		return false, r.item()
	case rPolygon:
		b.entries = append(b.entries, entry{target: f.target, poly: int32(len(b.polys))})
		b.polys = append(b.polys, polyRec{id: b.polyID, ringStart: b.polyRings, ringEnd: int32(len(b.rings))})
		return false, r.item()
	case rGeom:
		if f.ctr >= 0 {
			b.ctrs[f.ctr].polyEnd = int32(len(b.polys))
		}
	case rOwner:
		return f.owner == 0, nil
	case rAttrText:
		return false, r.endAttr(&f)
	case rGen:
		return false, r.endGen(&f)
	}
	return false, nil
}

// endCoords parses the collected text of a posList, pos or coordinates
// element into points of the current ring.
func (r *Reader) endCoords(f *frame) error {
	var err error
	switch f.coords {
	case cPosList:
		err = r.parsePosList(f)
	case cPos:
		err = r.parsePos(f)
	default:
		err = r.parseCoordinates(f)
	}
	if err == nil && len(r.b.pts) > MaxPoints {
		err = fmt.Errorf("%w: building has more than %d points", ErrTooLarge, MaxPoints)
	}
	if err != nil {
		return r.coordError(f, err)
	}
	return nil
}
