package citygml

import (
	"bytes"
	"strconv"
)

// Code is a coded value of a gml:CodeType element such as bldg:function:
// the code as written (for example "31001_1010" or "1000") and its
// codeSpace attribute ("" when the file gives none). Look the code up in
// package adv for labels.
type Code struct {
	Value, Space string
}

// Measure is a gml:MeasureType value such as bldg:measuredHeight.
type Measure struct {
	// Value is the number; meaningful only when Valid.
	Value float64
	// UOM is the uom attribute as written (for example "urn:adv:uom:m",
	// "m" or "#m"); "" when the file gives none (LoD2-DE then means metres).
	UOM string
	// Valid is false when the element is absent or its text is not a
	// number (then Attributes.Invalid says so).
	Valid bool
}

// GenericType is the kind of a CityGML generic attribute.
type GenericType uint8

// The generic attribute kinds of the CityGML 1.0/2.0 generics module.
const (
	GenString GenericType = iota
	GenInt
	GenDouble
	GenDate
	GenURI
	GenMeasure
)

// String returns the element name of the kind, for example "stringAttribute".
func (g GenericType) String() string {
	switch g {
	case GenInt:
		return "intAttribute"
	case GenDouble:
		return "doubleAttribute"
	case GenDate:
		return "dateAttribute"
	case GenURI:
		return "uriAttribute"
	case GenMeasure:
		return "measureAttribute"
	}
	return "stringAttribute"
}

// Generic is one generic attribute (gen:stringAttribute, gen:intAttribute,
// ...), such as Gemeindeschluessel or DatenquelleDachhoehe of LoD2-DE.
// Attributes inside a gen:genericAttributeSet are listed as if they stood
// on their own.
type Generic struct {
	Name  string
	Type  GenericType
	Value string // the gen:value text, trimmed, as written
	UOM   string // the uom of a measureAttribute's value, else ""
}

// Address is one bldg:address, read from its xAL:AddressDetails. Each field
// is the trimmed text of the xAL element of that name; when an address
// repeats an element (two ThoroughfareNumbers), the texts are joined with
// ", ". Fields the file does not give are "".
type Address struct {
	Street      string // xAL:ThoroughfareName
	HouseNumber string // xAL:ThoroughfareNumber
	PostalCode  string // xAL:PostalCodeNumber
	Locality    string // xAL:LocalityName (the city or municipality)
	Country     string // xAL:CountryName
}

// Attributes are the thematic attributes of a Building or BuildingPart
// that LoD2-DE uses, in CityGML 1.0 and 2.0.
type Attributes struct {
	// Function lists the bldg:function values (CityGML allows several).
	Function []Code
	// RoofType is bldg:roofType; Value is "" when absent.
	RoofType Code
	// MeasuredHeight is bldg:measuredHeight.
	MeasuredHeight Measure
	// StoreysAboveGround is bldg:storeysAboveGround, -1 when absent or not
	// a non-negative integer.
	StoreysAboveGround int
	// CreationDate is core:creationDate as written (xs:date,
	// "2020-12-18"), "" when absent.
	CreationDate string
	// Addresses lists every bldg:address in file order.
	Addresses []Address
	// Generic lists the generic attributes in file order.
	Generic []Generic
	// Invalid describes values that could not be read (for example
	// `bldg:measuredHeight "abc": not a number`); the attribute is then
	// left absent. Nil when all were read.
	Invalid []string
}

// GenericValue returns the value of the first generic attribute named name
// and whether there is one.
func (a *Attributes) GenericValue(name string) (string, bool) {
	for _, g := range a.Generic {
		if g.Name == name {
			return g.Value, true
		}
	}
	return "", false
}

// BuildingPart is one bldg:BuildingPart with its own attributes.
type BuildingPart struct {
	// ID is the gml:id of the part (may be empty).
	ID string
	// ParentID is the gml:id of the Building or BuildingPart whose
	// bldg:consistsOfBuildingPart holds it.
	ParentID string
	Attributes
}

// attrKind is what the text of an attribute leaf element is.
type attrKind uint8

const (
	aNone attrKind = iota
	aFunction
	aRoofType
	aMeasuredHeight
	aStoreys
	aCreationDate
	aGenValue
	aStreet
	aNumber
	aPostcode
	aLocality
	aCountry
)

// maxIntern caps the strings a Reader interns (codes, code spaces, units,
// generic names, dates, localities): values repeat across buildings, and
// interning saves one allocation per value, but the map must not grow
// with a hostile file.
const maxIntern = 4096

// ownerRole classifies an element directly inside a Building or
// BuildingPart that is not geometry: the attribute leaves, addresses and
// generic attributes (rSkip for anything else).
func ownerRole(kind nsKind, local []byte) (role, attrKind) {
	switch kind {
	case nsBldg:
		switch string(local) {
		case "function":
			return rAttrText, aFunction
		case "roofType":
			return rAttrText, aRoofType
		case "measuredHeight":
			return rAttrText, aMeasuredHeight
		case "storeysAboveGround":
			return rAttrText, aStoreys
		case "address":
			return rAddrProp, aNone
		}
	case nsCore:
		if string(local) == "creationDate" {
			return rAttrText, aCreationDate
		}
	case nsGen:
		if _, ok := genericType(local); ok || string(local) == "genericAttributeSet" {
			return rGen, aNone
		}
	}
	return rSkip, aNone
}

// genericType maps a generics element name to its kind.
func genericType(local []byte) (GenericType, bool) {
	switch string(local) {
	case "stringAttribute":
		return GenString, true
	case "intAttribute":
		return GenInt, true
	case "doubleAttribute":
		return GenDouble, true
	case "dateAttribute":
		return GenDate, true
	case "uriAttribute":
		return GenURI, true
	case "measureAttribute":
		return GenMeasure, true
	}
	return 0, false
}

// genRole classifies an element inside a generic attribute or set.
func genRole(kind nsKind, local []byte) (role, attrKind) {
	if kind == nsGen {
		if string(local) == "value" {
			return rAttrText, aGenValue
		}
		if _, ok := genericType(local); ok || string(local) == "genericAttributeSet" {
			return rGen, aNone
		}
	}
	return rSkip, aNone
}

// addrRole classifies an element inside bldg:address: the xAL leaves whose
// text is kept, everything else transparent.
func addrRole(kind nsKind, local []byte) (role, attrKind) {
	if kind == nsXAL {
		switch string(local) {
		case "ThoroughfareName":
			return rAttrText, aStreet
		case "ThoroughfareNumber":
			return rAttrText, aNumber
		case "PostalCodeNumber":
			return rAttrText, aPostcode
		case "LocalityName":
			return rAttrText, aLocality
		case "CountryName":
			return rAttrText, aCountry
		}
	}
	return rAddr, aNone
}

// startAttr records what an attribute element's start tag carries: the
// codeSpace or uom of a leaf, the name and kind of a generic attribute, a
// new address.
func (r *Reader) startAttr(f *frame, local []byte, a *attrs) error {
	b := &r.b
	switch f.role {
	case rAttrText:
		r.text = r.text[:0]
		var raw []byte
		switch f.attr {
		case aFunction, aRoofType:
			raw = a.codeSpace
		case aMeasuredHeight, aGenValue:
			raw = a.uom
		}
		var err error
		if b.pendAttr, err = appendDecoded(b.pendAttr[:0], bytes.TrimSpace(raw)); err != nil {
			return r.lexError(err)
		}
	case rGen:
		if t, ok := genericType(local); ok {
			var err error
			if b.pendAttr, err = appendDecoded(b.pendAttr[:0], bytes.TrimSpace(a.name)); err != nil {
				return r.lexError(err)
			}
			if b.idBytes += len(b.pendAttr); b.idBytes > maxIDBytes {
				return r.errorf(ErrTooLarge, "ids and attributes of one building exceed %d bytes", maxIDBytes)
			}
			b.gen = Generic{Name: r.internB(b.pendAttr), Type: t}
			b.inGen = true
		}
	case rAddrProp:
		b.addrs = append(b.addrs, owned[Address]{owner: f.owner})
		return r.item()
	}
	return nil
}

// endAttr stores the text of an attribute leaf in the owner's attributes.
func (r *Reader) endAttr(f *frame) error {
	b := &r.b
	txt := bytes.TrimSpace(r.text)
	b.idBytes += len(txt) + len(b.pendAttr)
	if b.idBytes > maxIDBytes {
		return r.errorf(ErrTooLarge, "ids and attributes of one building exceed %d bytes", maxIDBytes)
	}
	at := &b.owners[f.owner].attrs
	switch f.attr {
	case aFunction:
		b.codes = append(b.codes, owned[Code]{f.owner, Code{Value: r.internB(txt), Space: r.internB(b.pendAttr)}})
		return r.item()
	case aRoofType:
		at.RoofType = Code{Value: r.internB(txt), Space: r.internB(b.pendAttr)}
	case aMeasuredHeight:
		v, err := strconv.ParseFloat(string(txt), 64)
		if err != nil || !isFinite(v) {
			at.Invalid = append(at.Invalid, "bldg:measuredHeight "+quoteShort(txt)+": not a number")
			return r.item()
		}
		at.MeasuredHeight = Measure{Value: v, UOM: r.internB(b.pendAttr), Valid: true}
	case aStoreys:
		n, err := strconv.Atoi(string(txt))
		if err != nil || n < 0 {
			at.Invalid = append(at.Invalid, "bldg:storeysAboveGround "+quoteShort(txt)+": not a non-negative integer")
			return r.item()
		}
		at.StoreysAboveGround = n
	case aCreationDate:
		at.CreationDate = r.internB(txt)
	case aGenValue:
		if b.inGen {
			b.gen.Value, b.gen.UOM = r.internB(txt), r.internB(b.pendAttr)
		}
	default:
		if n := len(b.addrs); n > 0 {
			setAddr(&b.addrs[n-1].v, f.attr, r.internB(txt))
		}
	}
	return nil
}

// setAddr sets (or extends) one field of an address.
func setAddr(ad *Address, k attrKind, v string) {
	var p *string
	switch k {
	case aStreet:
		p = &ad.Street
	case aNumber:
		p = &ad.HouseNumber
	case aPostcode:
		p = &ad.PostalCode
	case aLocality:
		p = &ad.Locality
	default:
		p = &ad.Country
	}
	if *p == "" {
		*p = v
	} else if v != "" {
		*p += ", " + v
	}
}

// endGen appends the generic attribute that ends here (nothing for the
// end of a gen:genericAttributeSet).
func (r *Reader) endGen(f *frame) error {
	b := &r.b
	if !b.inGen {
		return nil
	}
	b.inGen = false
	b.gens = append(b.gens, owned[Generic]{f.owner, b.gen})
	return r.item()
}

// owned is a repeated attribute value (function, address, generic
// attribute) of the owner with the given index, collected for the whole
// building so that assembling allocates one array per kind.
type owned[T any] struct {
	owner int32
	v     T
}

// spread copies the values of recs into one array, grouped by owner in
// file order, and hands each owner its part; cnt is scratch of at least
// nOwners+1 elements. The array is buf when the values fit (the common
// single function or address, kept inside the Building to save an
// allocation), else a new one.
func spread[T any](recs []owned[T], cnt []int32, buf []T, set func(owner int, vs []T)) {
	if len(recs) == 0 {
		return
	}
	clear(cnt)
	for _, r := range recs {
		cnt[r.owner+1]++
	}
	for i := 1; i < len(cnt); i++ {
		cnt[i] += cnt[i-1]
	}
	all := buf
	if len(recs) > len(buf) {
		all = make([]T, len(recs))
	}
	fill := cnt[:len(cnt)-1]
	for _, r := range recs {
		all[fill[r.owner]] = r.v
		fill[r.owner]++
	}
	// fill[o] is now the end of owner o's values and fill[o-1] its start.
	start := int32(0)
	for o := range fill {
		if end := fill[o]; end > start {
			set(o, all[start:end:end])
			start = end
		}
	}
}

// internB returns v (already decoded) as a string, shared with earlier equal values while
// the intern table has room.
func (r *Reader) internB(v []byte) string {
	if len(v) == 0 {
		return ""
	}
	if s, ok := r.interned[string(v)]; ok {
		return s
	}
	s := string(v)
	if len(r.interned) < maxIntern && len(v) <= 64 {
		if r.interned == nil {
			r.interned = make(map[string]string)
		}
		r.interned[s] = s
	}
	return s
}

func isFinite(v float64) bool { return v-v == 0 }

// quoteShort quotes a value for a message, cut to its first 40 bytes.
func quoteShort(v []byte) string {
	if len(v) > 40 {
		return strconv.Quote(string(v[:40])) + "..."
	}
	return strconv.Quote(string(v))
}
