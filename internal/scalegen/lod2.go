package scalegen

import (
	"bufio"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// ErrTemplate is returned for a LoD2 template the generator cannot
// replicate (no buildings, coordinates finer than a millimetre, ids that
// would collide once rewritten).
var ErrTemplate = errors.New("scalegen: unusable LoD2 template")

type segKind uint8

const (
	segLiteral segKind = iota
	segCoords          // x y z triples in mm, shifted per tile and building
	segID              // a gml:id, an xlink target or a building id in text
	segStem            // the template's own tile name (gml:name)
	segAddress         // a bldg:address, replaced by a generated one
)

type segment struct {
	kind segKind
	lit  []byte
	mm   []int64 // segCoords: x y z x y z ... in millimetres
	bld  int     // segCoords, segAddress: index of the building (-1: the file's envelope)
	id   string  // segID; segAddress: the core:Address gml:id ("" without)
	seq  int     // segAddress: the address's index among its building's
}

// building is what the generator keeps of one top-level building of the
// template: its footprint box (metres, template CRS) and its height range.
type building struct {
	minX, minY, maxX, maxY float64
	minZ, maxZ             float64
	id                     string // gml:id as in the template
	addresses              int    // bldg:address elements, its parts' included
}

// template is a real LoD2 CityGML tile cut into literal text, coordinate
// lists and ids, so a shifted copy is written without parsing XML again.
type template struct {
	segs      []segment
	stem      string // e.g. LoD2_32_280_5659_1_NW
	tile      Tile
	buildings []building
	idPrefix  string // AdV prefix of the building ids, e.g. DENW
	parts     int    // bldg:BuildingPart elements
	size      int64
}

var coordOpeners = []string{"<gml:posList", "<gml:pos>", "<gml:pos ", "<gml:lowerCorner", "<gml:upperCorner"}

// loadTemplate reads a real LoD2 tile named like the state portals name
// them (LoD2_<zone>_<E>_<N>_1_<BL>.gml/.xml).
func loadTemplate(path, idPrefix string) (*template, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("scalegen: template: %w", err)
	}
	stem := strings.TrimSuffix(filepath.Base(path), filepath.Ext(path))
	var z, e, n int
	var rest string
	if _, err := fmt.Sscanf(strings.ReplaceAll(stem, "_", " "), "LoD2 %d %d %d %s", &z, &e, &n, &rest); err != nil {
		return nil, fmt.Errorf("%w: %s is not named LoD2_<zone>_<E>_<N>_...: %v", ErrTemplate, stem, err)
	}
	t := &template{stem: stem, tile: Tile{e, n}, idPrefix: idPrefix, size: int64(len(b))}
	if err := t.cut(b); err != nil {
		return nil, err
	}
	if len(t.buildings) == 0 {
		return nil, fmt.Errorf("%w: %s holds no building", ErrTemplate, stem)
	}
	return t, t.checkIDs()
}

// cut splits the template into segments.
func (t *template) cut(b []byte) error {
	s := string(b)
	bld := -1
	lit := 0
	flush := func(end int) {
		if end > lit {
			t.segs = append(t.segs, segment{kind: segLiteral, lit: b[lit:end]})
		}
	}
	for i := 0; i < len(s); {
		j := strings.IndexAny(s[i:], "<>gx"+t.stem[:1])
		if j < 0 {
			break
		}
		i += j
		rest := s[i:]
		switch {
		case strings.HasPrefix(rest, "<core:cityObjectMember>"):
			bld++
			t.buildings = append(t.buildings, building{minX: math.Inf(1), minY: math.Inf(1), maxX: math.Inf(-1), maxY: math.Inf(-1), minZ: math.Inf(1), maxZ: math.Inf(-1)})
			i += len("<core:cityObjectMember>")
		case strings.HasPrefix(rest, "<bldg:BuildingPart"):
			t.parts++
			i++
		case strings.HasPrefix(rest, "<bldg:address>") && bld >= 0:
			// The template's addresses are replaced by generated ones:
			// every copy would repeat them. The element's indentation is
			// kept from the line it opens.
			end := strings.Index(rest, "</bldg:address>")
			if end < 0 {
				return fmt.Errorf("%w: unterminated bldg:address at byte %d", ErrTemplate, i)
			}
			flush(i)
			nl := strings.LastIndexByte(s[:i], '\n')
			indent := strings.TrimLeft(s[nl+1:i], " \t") == ""
			seg := segment{kind: segAddress, bld: bld, seq: t.buildings[bld].addresses}
			if indent {
				seg.lit = []byte(s[nl+1 : i])
			}
			if _, after, ok := strings.Cut(rest[:end], `<core:Address gml:id="`); ok {
				seg.id = after[:strings.IndexByte(after, '"')]
			}
			t.segs = append(t.segs, seg)
			t.buildings[bld].addresses++
			i += end + len("</bldg:address>")
			lit = i
		case hasAnyPrefix(rest, coordOpeners):
			gt := strings.IndexByte(rest, '>')
			lt := strings.IndexByte(rest[gt:], '<')
			if gt < 0 || lt < 0 {
				return fmt.Errorf("%w: unterminated coordinate list at byte %d", ErrTemplate, i)
			}
			start, end := i+gt+1, i+gt+lt
			flush(start)
			mm, err := parseMM(s[start:end])
			if err != nil {
				return fmt.Errorf("%w: byte %d: %v", ErrTemplate, start, err)
			}
			t.segs = append(t.segs, segment{kind: segCoords, mm: mm, bld: bld})
			if bld >= 0 {
				t.buildings[bld].extend(mm)
			}
			lit, i = end, end
		case strings.HasPrefix(rest, `gml:id="`), strings.HasPrefix(rest, `xlink:href="#`), strings.HasPrefix(rest, ">"+t.idPrefix):
			start := i + strings.IndexAny(rest, `"#>`) + 1
			if rest[0] == 'x' {
				start = i + len(`xlink:href="#`)
			}
			end := start + strings.IndexAny(s[start:], `"<`)
			if end < start {
				return fmt.Errorf("%w: unterminated id at byte %d", ErrTemplate, i)
			}
			flush(start)
			t.segs = append(t.segs, segment{kind: segID, id: s[start:end]})
			if bld >= 0 && t.buildings[bld].id == "" && rest[0] == 'g' {
				t.buildings[bld].id = s[start:end] // the Building's own, the first in its member
			}
			lit, i = end, end
		case strings.HasPrefix(rest, t.stem):
			flush(i)
			t.segs = append(t.segs, segment{kind: segStem})
			i += len(t.stem)
			lit = i
		default:
			i++
		}
	}
	flush(len(s))
	return nil
}

func hasAnyPrefix(s string, ps []string) bool {
	for _, p := range ps {
		if strings.HasPrefix(s, p) {
			return true
		}
	}
	return false
}

func (b *building) extend(mm []int64) {
	for k := 0; k+2 < len(mm); k += 3 {
		x, y, z := float64(mm[k])/1000, float64(mm[k+1])/1000, float64(mm[k+2])/1000
		b.minX, b.maxX = math.Min(b.minX, x), math.Max(b.maxX, x)
		b.minY, b.maxY = math.Min(b.minY, y), math.Max(b.maxY, y)
		b.minZ, b.maxZ = math.Min(b.minZ, z), math.Max(b.maxZ, z)
	}
}

// parseMM reads a whitespace-separated list of x y z triples with at most
// millimetre precision (what the AdV profile delivers).
func parseMM(s string) ([]int64, error) {
	f := strings.Fields(s)
	if len(f)%3 != 0 {
		return nil, fmt.Errorf("%d numbers, not x y z triples", len(f))
	}
	out := make([]int64, len(f))
	for k, w := range f {
		v, err := strconv.ParseFloat(w, 64)
		if err != nil {
			return nil, err
		}
		mm := math.Round(v * 1000)
		if math.Abs(v*1000-mm) > 1e-4 {
			return nil, fmt.Errorf("%q is finer than a millimetre", w)
		}
		out[k] = int64(mm)
	}
	return out, nil
}

// TileCode is four base-36 characters unique for every km tile of a
// 1296 km square: it replaces the district part of the AdV building ids
// (DENW43AL00002f8o -> DENW<code>00002f8o) and suffixes the other ids.
func TileCode(t Tile) string {
	const digits = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ"
	e, n := ((t.EKM%1296)+1296)%1296, ((t.NKM%1296)+1296)%1296
	return string([]byte{digits[e/36], digits[e%36], digits[n/36], digits[n%36]})
}

func (t *template) rewriteID(id, code string) string {
	if strings.HasPrefix(id, t.idPrefix) && len(id) > len(t.idPrefix)+4 {
		return t.idPrefix + code + id[len(t.idPrefix)+4:]
	}
	return id + "_" + code
}

// checkIDs makes sure the rewritten ids of one tile stay unique.
func (t *template) checkIDs() error {
	seen := map[string]string{}
	for _, s := range t.segs {
		if s.kind != segID && (s.kind != segAddress || s.id == "") {
			continue
		}
		r := t.rewriteID(s.id, "0000")
		if o, ok := seen[r]; ok && o != s.id {
			return fmt.Errorf("%w: ids %s and %s collide once rewritten", ErrTemplate, o, s.id)
		}
		seen[r] = s.id
	}
	return nil
}

// writeTile writes the template shifted to tile to path: x and y by whole
// km, each building's heights so its lowest point stands on the terrain
// (ground(x, y) in metres at the building's footprint centre), every id made
// unique for the tile, the addresses those of addrs (by building, as
// Addresser.Tile returns them for t.lots()). It returns the bytes written.
func (t *template) writeTile(path string, tile Tile, stem string, ground func(x, y float64) float64, addrs [][]Address) (int64, error) {
	dx, dy := int64(tile.EKM-t.tile.EKM)*1e6, int64(tile.NKM-t.tile.NKM)*1e6
	dz := make([]int64, len(t.buildings))
	lowZ, highZ := int64(math.MaxInt64), int64(math.MinInt64)
	for k, b := range t.buildings {
		cx, cy := (b.minX+b.maxX)/2+float64(dx)/1000, (b.minY+b.maxY)/2+float64(dy)/1000
		dz[k] = int64(math.Round((ground(cx, cy) - b.minZ) * 1000))
		lowZ = min(lowZ, int64(math.Round(b.minZ*1000))+dz[k])
		highZ = max(highZ, int64(math.Round(b.maxZ*1000))+dz[k])
	}
	f, err := os.Create(path)
	if err != nil {
		return 0, fmt.Errorf("scalegen: %w", err)
	}
	w := bufio.NewWriterSize(f, 256<<10)
	code := TileCode(tile)
	var buf []byte
	envelope := 0
	for _, s := range t.segs {
		switch s.kind {
		case segLiteral:
			w.Write(s.lit)
		case segStem:
			w.WriteString(stem)
		case segID:
			w.WriteString(t.rewriteID(s.id, code))
		case segAddress:
			id := ""
			if s.id != "" {
				id = t.rewriteID(s.id, code)
			}
			buf = appendXAL(buf[:0], addrs[s.bld][s.seq], id, string(s.lit))
			w.Write(buf)
		case segCoords:
			buf = buf[:0]
			for k := 0; k+2 < len(s.mm); k += 3 {
				z := s.mm[k+2]
				if s.bld >= 0 {
					z += dz[s.bld]
				} else if envelope++; envelope == 1 {
					z = lowZ
				} else {
					z = highZ
				}
				if k > 0 {
					buf = append(buf, ' ')
				}
				buf = appendMM(buf, s.mm[k]+dx)
				buf = append(buf, ' ')
				buf = appendMM(buf, s.mm[k+1]+dy)
				buf = append(buf, ' ')
				buf = appendMM(buf, z)
			}
			w.Write(buf)
		}
	}
	if err := w.Flush(); err != nil {
		f.Close()
		return 0, fmt.Errorf("scalegen: %s: %w", path, err)
	}
	st, err := f.Stat()
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return 0, fmt.Errorf("scalegen: %s: %w", path, err)
	}
	return st.Size(), nil
}

// appendMM formats millimetres as metres the way the AdV files do: at
// least one and at most three decimals.
func appendMM(b []byte, mm int64) []byte {
	if mm < 0 {
		b = append(b, '-')
		mm = -mm
	}
	b = strconv.AppendInt(b, mm/1000, 10)
	frac := mm % 1000
	b = append(b, '.', byte('0'+frac/100))
	if frac%100 != 0 {
		b = append(b, byte('0'+frac/10%10))
		if frac%10 != 0 {
			b = append(b, byte('0'+frac%10))
		}
	}
	return b
}

// lots are the template's buildings for the address generator.
func (t *template) lots() []Lot {
	x0, y0 := float64(t.tile.EKM)*1000, float64(t.tile.NKM)*1000
	out := make([]Lot, len(t.buildings))
	for i, b := range t.buildings {
		out[i] = Lot{X: (b.minX+b.maxX)/2 - x0, Y: (b.minY+b.maxY)/2 - y0, Addresses: b.addresses}
	}
	return out
}

// appendXAL appends a bldg:address in the AdV profile's xAL (CityGML 1.0
// core:Address, as the NRW tiles and Bavaria write it: country name,
// locality, thoroughfare with number and name, postcode), each line after
// the first indented by indent and two spaces per level.
func appendXAL(b []byte, a Address, id, indent string) []byte {
	open := "<core:Address>"
	if id != "" {
		open = `<core:Address gml:id="` + id + `">`
	}
	lines := []struct {
		depth int
		text  string
	}{
		{0, "<bldg:address>"}, {1, open}, {2, "<core:xalAddress>"}, {3, "<xAL:AddressDetails>"}, {4, "<xAL:Country>"},
		{5, "<xAL:CountryName>Germany</xAL:CountryName>"},
		{5, `<xAL:Locality Type="Town">`},
		{6, "<xAL:LocalityName>" + xmlText(a.Locality) + "</xAL:LocalityName>"},
		{6, `<xAL:Thoroughfare Type="Street">`},
		{7, "<xAL:ThoroughfareNumber>" + xmlText(a.Number) + "</xAL:ThoroughfareNumber>"},
		{7, "<xAL:ThoroughfareName>" + xmlText(a.Street) + "</xAL:ThoroughfareName>"},
		{6, "</xAL:Thoroughfare>"},
		{6, "<xAL:PostalCode>"}, {7, "<xAL:PostalCodeNumber>" + a.PostalCode + "</xAL:PostalCodeNumber>"}, {6, "</xAL:PostalCode>"},
		{5, "</xAL:Locality>"}, {4, "</xAL:Country>"}, {3, "</xAL:AddressDetails>"}, {2, "</core:xalAddress>"}, {1, "</core:Address>"},
		{0, "</bldg:address>"},
	}
	for i, l := range lines {
		if i > 0 {
			b = append(b, '\n')
			b = append(b, indent...)
			for range l.depth {
				b = append(b, "  "...)
			}
		}
		b = append(b, l.text...)
	}
	return b
}

// xmlText escapes the characters XML text may not hold.
func xmlText(s string) string {
	if !strings.ContainsAny(s, "<>&") {
		return s
	}
	return strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;").Replace(s)
}
