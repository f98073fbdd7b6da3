package ogcapi

import (
	"bytes"
	"encoding/json"
	"errors"
	"math"
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"github.com/svc-geodata/svc/cql2"
	"github.com/svc-geodata/svc/geo"
	"github.com/svc-geodata/svc/lod2store"
	"github.com/svc-geodata/svc/server/httpapi"
	"github.com/twpayne/go-geom"
)

// The buildings collection: one feature per building (issue 25 point 2),
// read from the attribute tables of each pack (building_attrs), filtered
// in SQL where CQL2 translates and in Go (cql2.Match) where it does not.

// collWhole is the collection of whole buildings.
const collWhole = "buildings"

// wholePrefix starts a cursor of the buildings collection: the federated
// keyset cursor of lod2store.QueryBuildingsIn ('.' is no base64url
// character, so it cannot be mistaken for a surface cursor).
const wholePrefix = "b."

// maxWholeCursorLen bounds a buildings cursor: one keyset per BL, each the
// sort values and building id of its last building.
const maxWholeCursorLen = 8192

// wholeProp is one property of a building feature.
type wholeProp struct {
	name, typ, desc string
	value           func(r *lod2store.BuildingRow) any
}

func labelOf(ls []lod2store.Label) *lod2store.Label {
	if len(ls) == 0 {
		return nil
	}
	return &ls[0]
}

func optStr(p *string) any {
	if p == nil {
		return nil
	}
	return *p
}

func optNum(p *float64) any {
	if p == nil {
		return nil
	}
	return *p
}

// wholeProps are the properties of a building feature, in the order they
// are written: the queryables (lod2store.Queryables, same names and
// values as the SQL columns) with the AdV labels of the codes beside them.
func wholeProps() []wholeProp {
	str := func(name, desc string, get func(r *lod2store.BuildingRow) *string) wholeProp {
		return wholeProp{name, "string", desc, func(r *lod2store.BuildingRow) any { return optStr(get(r)) }}
	}
	num := func(name, desc string, get func(r *lod2store.BuildingRow) *float64) wholeProp {
		return wholeProp{name, "number", desc, func(r *lod2store.BuildingRow) any { return optNum(get(r)) }}
	}
	fn := func(get func(l *lod2store.Label) string) func(r *lod2store.BuildingRow) any {
		return func(r *lod2store.BuildingRow) any {
			if l := labelOf(r.Owner.Functions); l != nil && get(l) != "" {
				return get(l)
			}
			return nil
		}
	}
	rt := func(get func(l *lod2store.Label) string) func(r *lod2store.BuildingRow) any {
		return func(r *lod2store.BuildingRow) any {
			if l := r.Owner.RoofType; l != nil && get(l) != "" {
				return get(l)
			}
			return nil
		}
	}
	m := func(r *lod2store.BuildingRow) *lod2store.Measures { return &r.Measures }
	return []wholeProp{
		{"gmlid", "string", "gml:id of the building (the feature id)", func(r *lod2store.BuildingRow) any { return r.Owner.GMLID }},
		{"bl", "string", "federal state code", func(r *lod2store.BuildingRow) any { return r.BL }},
		{"function", "string", "building function code (bldg:function, the first when several)", fn(func(l *lod2store.Label) string { return l.Code })},
		{"function_label_de", "string", "AdV label of the function, German", fn(func(l *lod2store.Label) string { return l.De })},
		{"function_label_en", "string", "AdV label of the function, English", fn(func(l *lod2store.Label) string { return l.En })},
		{"roof_type", "string", "roof type code (bldg:roofType)", rt(func(l *lod2store.Label) string { return l.Code })},
		{"roof_type_label_de", "string", "AdV label of the roof type, German", rt(func(l *lod2store.Label) string { return l.De })},
		{"roof_type_label_en", "string", "AdV label of the roof type, English", rt(func(l *lod2store.Label) string { return l.En })},
		num("measured_height_m", "bldg:measuredHeight, m", func(r *lod2store.BuildingRow) *float64 { return r.Owner.MeasuredHeightM }),
		{"storeys", "integer", "bldg:storeysAboveGround", func(r *lod2store.BuildingRow) any {
			if r.Owner.Storeys == nil {
				return nil
			}
			return *r.Owner.Storeys
		}},
		str("creation_date", "core:creationDate (YYYY-MM-DD)", func(r *lod2store.BuildingRow) *string { return r.Owner.CreationDate }),
		str("municipality_key", "Gemeindeschluessel (AGS)", func(r *lod2store.BuildingRow) *string { return r.Owner.MunicipalityKey }),
		str("municipality_name", "Gemeindename where the file gives it", func(r *lod2store.BuildingRow) *string { return r.Owner.MunicipalityName }),
		str("source_roof", "DatenquelleDachhoehe", func(r *lod2store.BuildingRow) *string { return r.Owner.SourceRoof }),
		str("source_ground", "DatenquelleBodenhoehe", func(r *lod2store.BuildingRow) *string { return r.Owner.SourceGround }),
		str("source_position", "DatenquelleLage", func(r *lod2store.BuildingRow) *string { return r.Owner.SourcePosition }),
		str("footprint_date", "Grundrissaktualitaet", func(r *lod2store.BuildingRow) *string { return r.Owner.FootprintDate }),
		num("footprint_area_m2", "horizontal footprint area, m² (UTM)", func(r *lod2store.BuildingRow) *float64 { return m(r).FootprintAreaM2 }),
		num("ground_z_m", "lowest ground height, m DHHN2016", func(r *lod2store.BuildingRow) *float64 { return m(r).GroundZ }),
		num("eaves_z_m", "lowest roof height, m DHHN2016", func(r *lod2store.BuildingRow) *float64 { return m(r).EavesZ }),
		num("ridge_z_m", "highest roof height, m DHHN2016", func(r *lod2store.BuildingRow) *float64 { return m(r).RidgeZ }),
		num("height_m", "ridge_z_m - ground_z_m, m", func(r *lod2store.BuildingRow) *float64 { return m(r).HeightM }),
		num("roof_area_flat_m2", "roof area tilted below 10°, m²", func(r *lod2store.BuildingRow) *float64 { return m(r).RoofAreaFlatM2 }),
		num("roof_area_low_m2", "roof area tilted 10° to below 30°, m²", func(r *lod2store.BuildingRow) *float64 { return m(r).RoofAreaLowM2 }),
		num("roof_area_medium_m2", "roof area tilted 30° to below 45°, m²", func(r *lod2store.BuildingRow) *float64 { return m(r).RoofAreaMedM2 }),
		num("roof_area_steep_m2", "roof area tilted 45° and more, m²", func(r *lod2store.BuildingRow) *float64 { return m(r).RoofAreaSteepM2 }),
		num("roof_area_m2", "roof area, all tilts, m²", func(r *lod2store.BuildingRow) *float64 { return m(r).RoofAreaM2 }),
		num("wall_area_m2", "wall area, m²", func(r *lod2store.BuildingRow) *float64 { return m(r).WallAreaM2 }),
		num("volume_m3", "enclosed volume, m³; null when a shell is not closed", func(r *lod2store.BuildingRow) *float64 { return m(r).VolumeM3 }),
		str("volume_reason", "why volume_m3 is null", func(r *lod2store.BuildingRow) *string { return m(r).VolumeReason }),
		{"address", "string", "the building's addresses (its own, then its parts'), each \"street number, postcode locality\", joined by \"; \"; null without one (not a queryable: GET /v1/addresses searches them)",
			func(r *lod2store.BuildingRow) any { return addressSummary(r.Owner.Addresses) }},
	}
}

func wholePropNames() []string {
	var out []string
	for _, p := range wholeProps() {
		out = append(out, p.name)
	}
	return out
}

// wholeQueryables are the queryables of the buildings collection: the
// store's (lod2store.Queryables) and the geometry (the footprint). The
// code lists are not enforced in a filter (a pack may hold codes outside
// the AdV lists, Berlin's own function codes); /queryables shows them as
// enums all the same.
func wholeQueryables() cql2.Queryables {
	q := cql2.Queryables{geometryName: {Type: cql2.TypeGeometry}}
	for _, sq := range lod2store.Queryables() {
		t := cql2.TypeString
		switch sq.Type {
		case "integer":
			t = cql2.TypeInteger
		case "number":
			t = cql2.TypeNumber
		}
		q[sq.Name] = cql2.Queryable{Type: t}
	}
	return q
}

func wholeQueryableNames() []string {
	var out []string
	for _, q := range lod2store.Queryables() {
		out = append(out, q.Name)
	}
	return out
}

// wholeQueryablesDoc is the JSON Schema of the buildings' queryables
// (geometry true) or sortables.
func (s *surface) wholeQueryablesDoc(c ogcCollection, path string, geometry bool) map[string]any {
	props := map[string]any{}
	if geometry {
		props[geometryName] = map[string]any{"title": "geometry", "format": "geometry-multipolygon",
			"x-ogc-role": "primary-geometry", "description": "the footprint: the building's ground surfaces (GeoJSON MultiPolygon, 2D)"}
	}
	for _, q := range lod2store.Queryables() {
		d := map[string]any{"title": q.Name, "type": []string{q.Type, "null"}, "description": q.Desc}
		if q.Name == "gmlid" {
			d["type"] = q.Type
		}
		if q.Format != "" {
			d["format"] = q.Format
		}
		if q.Unit != "" {
			d["x-ogc-unit"] = q.Unit
		}
		if q.Enum != nil {
			codes := make([]string, len(q.Enum))
			var labels []string
			for i, e := range q.Enum {
				codes[i] = e.Code
				labels = append(labels, e.Code+" "+e.De+" / "+e.En)
			}
			d["enum"] = codes
			d["description"] = q.Desc + " (AdV code list; a file may hold other codes, which a filter still matches)"
			d["x-enum-labels"] = labels
		}
		props[q.Name] = d
	}
	return map[string]any{
		"$schema": "https://json-schema.org/draft/2020-12/schema", "$id": s.BaseURL + path,
		"type": "object", "title": c.title, "properties": props, "additionalProperties": false}
}

// wholeFilter is what filter, sortby and properties ask of the buildings.
type wholeFilter struct {
	where    string
	args     []any
	residual *cql2.Expr
	needGeom bool
	envelope *geo.BBox
	sort     []lod2store.Sort
	props    []wholeProp
}

func wholeFilterOf(in *httpapi.Input) (wholeFilter, error) {
	out := wholeFilter{props: wholeProps()}
	q := wholeQueryables()
	if in.Has("filter") {
		e, err := parseFilter(in.Str("filter"), in.Str("filter-lang"), q)
		if err != nil {
			return out, err
		}
		if crs := httpapi.ParsedAs[geo.CRS](in, "filter-crs"); crs != geo.CRS84 {
			e = e.Transform(crs.ToWGS84)
		}
		cols := map[string]string{}
		for _, sq := range lod2store.Queryables() {
			cols[sq.Name] = `"` + sq.Column + `"`
		}
		split, err := cql2.ToSQL(e, cql2.SQLOptions{Column: func(p string) (string, bool) { c, ok := cols[p]; return c, ok }, GeometryProperty: geometryName})
		if err != nil {
			return out, err
		}
		out.where, out.args, out.residual = split.Where, split.Args, split.Residual
		out.needGeom = mentions(split.Residual, geometryName)
		if env := split.Envelope; env != nil {
			out.envelope = &geo.BBox{MinLon: env[0] - envelopePad, MinLat: env[1] - envelopePad,
				MaxLon: env[2] + envelopePad, MaxLat: env[3] + envelopePad}
		}
	} else {
		for _, p := range []string{"filter-lang", "filter-crs"} {
			if in.Has(p) {
				return out, httpapi.Report(httpapi.ErrMalformed, "Parameter %s needs a filter.", p)
			}
		}
	}
	if in.Has("sortby") {
		for _, k := range httpapi.ParsedAs[[]sortKey](in, "sortby") {
			if qd, ok := q[k.name]; !ok || qd.Type == cql2.TypeGeometry {
				return out, httpapi.Report(httpapi.ErrMalformed, "Parameter sortby: %q is not a sortable queryable of %s; they are %s.",
					httpapi.Clip(k.name), collWhole, strings.Join(wholeQueryableNames(), ", "))
			}
			out.sort = append(out.sort, lod2store.Sort{Name: k.name, Desc: k.desc})
		}
	}
	if in.Has("properties") {
		names := httpapi.ParsedAs[[]string](in, "properties")
		all := wholePropNames()
		for _, n := range names {
			if !containsStr(all, n) {
				return out, httpapi.Report(httpapi.ErrMalformed, "Parameter properties: %q is not a property of %s; they are %s.",
					httpapi.Clip(n), collWhole, strings.Join(all, ", "))
			}
		}
		var sel []wholeProp
		for _, p := range out.props {
			if containsStr(names, p.name) {
				sel = append(sel, p)
			}
		}
		out.props = sel
	}
	return out, nil
}

// wholeFeature is a building found, with its footprint (in the pack's
// UTM zone, 2D; nil when it has no ground surface) and, in the LoD2
// profile, every polygon of its surfaces (x, y in the zone, z as stored).
type wholeFeature struct {
	row       lod2store.BuildingRow
	zone      geo.Zone
	footprint [][][][2]float64
	lod2      bool
	solid     [][][][3]float64
}

// footprints reads the ground surfaces of rows (all of one source) as
// their footprints, and with lod2 every surface polygon as the solid.
func footprints(r *http.Request, src lod2store.Source, feats []*wholeFeature, lod2 bool) error {
	ids := make([]int64, len(feats))
	at := map[int64]*wholeFeature{}
	for i, f := range feats {
		ids[i] = f.row.BuildingID
		at[f.row.BuildingID] = f
		f.zone, f.lod2 = src.LoD2.Zone(), lod2
	}
	sortInt64(ids)
	addrs, err := src.LoD2.AddressesOf(r.Context(), ids)
	if err != nil {
		return err
	}
	for id, as := range addrs {
		if f := at[id]; f != nil {
			f.row.Owner.Addresses = as
		}
	}
	return src.LoD2.BuildingGeometry(r.Context(), ids, func(b *lod2store.Building3D) error {
		f := at[b.BuildingID]
		if f == nil {
			return nil
		}
		for _, sf := range b.Surfaces {
			if lod2 {
				f.solid = appendSolid(f.solid, sf)
			}
			if sf.Class != lod2store.ClassGround {
				continue
			}
			start := 0
			for _, ends := range sf.Ends {
				var poly [][][2]float64
				for _, end := range ends {
					ring := make([][2]float64, 0, (end-start)/3)
					for k := start; k+2 < end; k += 3 {
						ring = append(ring, [2]float64{sf.Flat[k], sf.Flat[k+1]})
					}
					poly = append(poly, ring)
					start = end
				}
				f.footprint = append(f.footprint, poly)
			}
		}
		return nil
	})
}

func sortInt64(v []int64) {
	for i := 1; i < len(v); i++ {
		for j := i; j > 0 && v[j] < v[j-1]; j-- {
			v[j], v[j-1] = v[j-1], v[j]
		}
	}
}

// wgs84Geom is the footprint as a CRS84 MultiPolygon, for Match.
func (f *wholeFeature) wgs84Geom() geom.T {
	if f.footprint == nil {
		return nil
	}
	out := make([][][]geom.Coord, len(f.footprint))
	for i, poly := range f.footprint {
		out[i] = make([][]geom.Coord, len(poly))
		for j, ring := range poly {
			out[i][j] = make([]geom.Coord, len(ring))
			for k, p := range ring {
				lon, lat := geo.FromUTM(f.zone, p[0], p[1])
				out[i][j][k] = geom.Coord{lon, lat}
			}
		}
	}
	g, err := geom.NewMultiPolygon(geom.XY).SetCoords(out)
	if err != nil {
		return nil
	}
	return g
}

// handleWholeItems answers the items of the buildings collection.
func (s *surface) handleWholeItems(w http.ResponseWriter, r *http.Request, in *httpapi.Input, iq itemsQuery, c ogcCollection, html, generic bool) error {
	if generic && in.Has("surface_class") {
		return httpapi.Report(httpapi.ErrMalformed, "Parameter surface_class is for the surface collections; %s holds whole buildings.", collWhole)
	}
	if iq.after.BL != "" || iq.after.sorted != "" {
		return httpapi.Report(httpapi.ErrMalformed, "Parameter cursor belongs to a surface collection; follow the next link of %s unchanged.", collWhole)
	}
	flt, err := wholeFilterOf(in)
	if err != nil {
		return err
	}
	profile := wholeProfile(in)
	if profile == profileLoD2 {
		iq.limit = min(iq.limit, MaxLoD2Limit)
	}
	var srcs []lod2store.Source
	for _, src := range c.sources {
		if iq.admitsSnapshot(c.snapshots[src.BL]) {
			srcs = append(srcs, src)
		}
	}
	bq := lod2store.BuildingQuery{Where: flt.where, Args: flt.args, Sort: flt.sort}
	if g := in.Str("gmlid"); g != "" {
		bq.Where = strings.TrimPrefix(bq.Where+` AND "gmlid" = ?`, " AND ")
		bq.Args = append(bq.Args, g)
	}
	if !generic {
		// The queryables as query parameters (Part 1, filtering on feature
		// properties): equality, ANDed with the rest.
		for _, q := range lod2store.Queryables() {
			if q.Name == "gmlid" || !in.Has(q.Name) {
				continue
			}
			var v any = in.Str(q.Name)
			switch q.Type {
			case "number":
				v = in.Num(q.Name)
			case "integer":
				v = in.Integer(q.Name)
			}
			bq.Where = strings.TrimPrefix(bq.Where+` AND "`+q.Column+`" = ?`, " AND ")
			bq.Args = append(bq.Args, v)
		}
	}
	var box *geo.BBox
	if !iq.all {
		b := iq.bbox
		box = &b
	}
	if env := flt.envelope; env != nil {
		if box == nil {
			box = env
		} else if box.Intersects(*env) {
			box = &geo.BBox{MinLon: max(box.MinLon, env.MinLon), MinLat: max(box.MinLat, env.MinLat),
				MaxLon: min(box.MaxLon, env.MaxLon), MaxLat: min(box.MaxLat, env.MaxLat)}
		} else {
			srcs = nil
		}
	}
	bq.BBox = box
	after := ""
	// The digest of every BL's snapshot: after a reload that replaced a
	// pack the cursor is refused instead of continuing on other data.
	digest := snapshotDigest(c.snapshots)
	if in.Has("cursor") {
		d, rest, ok := strings.Cut(httpapi.ParsedAs[ogcCursor](in, "cursor").whole, ".")
		if !ok || d != digest {
			return httpapi.Report(httpapi.ErrMalformed, "Parameter cursor is from other data (a BL was reloaded since it was issued) or not of %s; restart paging without a cursor.", collWhole)
		}
		after = rest
	}
	// The bbox prefilter is on the buildings' boxes; the exact test (the
	// footprint meets bbox) runs in Go, as the residual does.
	var exactBox *cql2.Expr
	if !iq.all {
		b := iq.bbox
		if exactBox, err = cql2.ParseText("S_INTERSECTS(geometry, BBOX(" + strconv.FormatFloat(b.MinLon, 'g', -1, 64) + "," +
			strconv.FormatFloat(b.MinLat, 'g', -1, 64) + "," + strconv.FormatFloat(b.MaxLon, 'g', -1, 64) + "," +
			strconv.FormatFloat(b.MaxLat, 'g', -1, 64) + "))"); err != nil {
			return err
		}
	}
	var feats []*wholeFeature
	next := ""
	bySrc := map[string]lod2store.Source{}
	for _, src := range srcs {
		bySrc[src.BL] = src
	}
	for rounds := 0; len(feats) < iq.limit && len(srcs) > 0; rounds++ {
		bq.Limit, bq.After = iq.limit-len(feats), after
		page, err := lod2store.QueryBuildingsIn(r.Context(), srcs, bq)
		if errors.Is(err, lod2store.ErrCursor) {
			return httpapi.Report(httpapi.ErrMalformed, "Parameter cursor does not belong to the current data or to this sortby; restart paging without a cursor.")
		}
		if err != nil {
			return err
		}
		batch := make([]*wholeFeature, len(page.Rows))
		per := map[string][]*wholeFeature{}
		for i := range page.Rows {
			batch[i] = &wholeFeature{row: page.Rows[i]}
			per[page.Rows[i].BL] = append(per[page.Rows[i].BL], batch[i])
		}
		for bl, fs := range per {
			if err := footprints(r, bySrc[bl], fs, profile == profileLoD2); err != nil {
				return err
			}
		}
		for _, f := range batch {
			ok, err := s.wholeMatch(f, flt, exactBox)
			if err != nil {
				return err
			}
			if ok {
				feats = append(feats, f)
			}
		}
		after = page.Next
		if after == "" {
			break
		}
	}
	next = after
	if len(feats) > 0 {
		s.SetBL(r.Context(), feats[0].row.BL)
	}
	wantMatched := iq.all && !iq.hasTime && !in.Has("filter") && !in.Has("gmlid")
	if !generic {
		for _, q := range lod2store.Queryables() {
			wantMatched = wantMatched && !in.Has(q.Name)
		}
	}
	path := "/ogc/collections/" + c.id + "/items"
	q := in.Values()
	links := s.selfLinks(path, q, html, "application/geo+json")
	if next != "" {
		links = append(links, s.nextLink(path, q, wholePrefix+digest+"."+next, html))
	}
	links = append(links, ogcLink{Href: s.ogcURL("/ogc/collections/"+c.id, nil), Rel: "collection", Type: "application/json", Title: c.title})
	links = withProfileLink(links, profile)
	matched := int64(-1)
	if wantMatched {
		matched = 0
		for _, src := range srcs {
			n, _ := src.LoD2.Counts()
			matched += n
		}
	}
	setProfileHeaders(w.Header(), iq.crs, profile)
	body := wholeItemsBody(feats, flt.props, iq.crs, links, matched)
	if html {
		var doc map[string]any
		if err := json.Unmarshal(body.Bytes(), &doc); err != nil {
			return err
		}
		return s.writeOGCHTML(w, c.title, doc)
	}
	w.Header().Set("Content-Type", "application/geo+json")
	_, _ = w.Write(body.Bytes())
	return nil
}

// wholeMatch tells whether f passes the parts of the request SQL did not
// decide: the exact bbox test on the footprint and the CQL2 residual.
func (s *surface) wholeMatch(f *wholeFeature, flt wholeFilter, box *cql2.Expr) (bool, error) {
	var g geom.T
	if box != nil || flt.needGeom {
		g = f.wgs84Geom()
	}
	if box != nil {
		if g == nil {
			return false, nil
		}
		in, err := box.Match(cql2.Feature{Geometry: g, GeometryProperty: geometryName})
		if err != nil || !in {
			return false, err
		}
	}
	if flt.residual == nil {
		return true, nil
	}
	props := map[string]any{}
	for _, p := range wholeProps() {
		props[p.name] = p.value(&f.row)
	}
	ok, err := flt.residual.Match(cql2.Feature{Properties: props, Geometry: g, GeometryProperty: geometryName})
	if err != nil {
		return false, httpapi.Report(httpapi.ErrMalformed, "Parameter filter cannot be evaluated: %s", strings.TrimPrefix(err.Error(), "cql2: "))
	}
	return ok, nil
}

// wholeItemsBody writes the FeatureCollection of buildings.
func wholeItemsBody(feats []*wholeFeature, props []wholeProp, crs geo.CRS, links []ogcLink, matched int64) *bytes.Buffer {
	b := &bytes.Buffer{}
	b.WriteString(`{"type":"FeatureCollection","features":[`)
	for i, f := range feats {
		if i > 0 {
			b.WriteByte(',')
		}
		writeWholeFeature(b, f, props, crs)
	}
	b.WriteString(`],"numberReturned":`)
	b.WriteString(strconv.Itoa(len(feats)))
	if matched >= 0 {
		b.WriteString(`,"numberMatched":`)
		b.WriteString(strconv.FormatInt(matched, 10))
	}
	lj, _ := json.Marshal(links)
	b.WriteString(`,"links":`)
	b.Write(lj)
	b.WriteString(`}`)
	return b
}

// writeWholeFeature writes one building: id the gml:id, geometry the
// footprint in crs (null without ground surfaces), then props.
func writeWholeFeature(b *bytes.Buffer, f *wholeFeature, props []wholeProp, crs geo.CRS) {
	id, _ := json.Marshal(f.row.Owner.GMLID)
	b.WriteString(`{"type":"Feature","id":`)
	b.Write(id)
	b.WriteString(`,"geometry":`)
	switch {
	case f.lod2:
		writeSolid(b, f, crs)
	case f.footprint == nil:
		b.WriteString("null")
	default:
		writeMultiPolygon(b, f.footprint, f.zone, crs, func(*bytes.Buffer, [2]float64) {})
	}
	b.WriteString(`,"properties":{`)
	for i, p := range props {
		if i > 0 {
			b.WriteByte(',')
		}
		k, _ := json.Marshal(p.name)
		v, _ := json.Marshal(p.value(&f.row))
		b.Write(k)
		b.WriteByte(':')
		b.Write(v)
	}
	b.WriteString(`}}`)
}

func roundTo(v float64, decimals int) float64 {
	p := math.Pow(10, float64(decimals))
	return math.Round(v*p) / p
}

// handleWholeItem answers one building of the buildings collection by its
// gml:id.
func (s *surface) handleWholeItem(w http.ResponseWriter, r *http.Request, in *httpapi.Input, c ogcCollection, fid string, crs geo.CRS, html bool) error {
	page, err := lod2store.QueryBuildingsIn(r.Context(), c.sources, lod2store.BuildingQuery{Where: `"gmlid" = ?`, Args: []any{fid}, Limit: 1})
	if err != nil {
		return err
	}
	if len(page.Rows) == 0 {
		return httpapi.Report(httpapi.ErrNotFound, "Collection %s has no feature %q; ids are the buildings' gml:id.", c.id, httpapi.Clip(fid))
	}
	profile := wholeProfile(in)
	f := &wholeFeature{row: page.Rows[0]}
	if err := footprints(r, sourceOf(c.sources, f.row.BL), []*wholeFeature{f}, profile == profileLoD2); err != nil {
		return err
	}
	s.SetBL(r.Context(), f.row.BL)
	var b bytes.Buffer
	writeWholeFeature(&b, f, wholeProps(), crs)
	var doc map[string]any
	if err := json.Unmarshal(b.Bytes(), &doc); err != nil {
		return err
	}
	path := "/ogc/collections/" + c.id + "/items/" + url.PathEscape(fid)
	links := append(s.selfLinks(path, in.Values(), html, "application/geo+json"),
		ogcLink{Href: s.ogcURL("/ogc/collections/"+c.id, nil), Rel: "collection", Type: "application/json", Title: c.title})
	links = withProfileLink(links, profile)
	doc["links"] = links
	setProfileHeaders(w.Header(), crs, profile)
	if html {
		return s.writeOGCHTML(w, c.title+": "+fid, doc)
	}
	out, err := json.Marshal(doc)
	if err != nil {
		return err
	}
	w.Header().Set("Content-Type", "application/geo+json")
	_, _ = w.Write(out)
	return nil
}

// wholeDesc describes the items of the buildings collection.
const wholeDesc = "The buildings collection: one feature per building of every published BL, id its gml:id, geometry its " +
	"footprint (the ground surfaces, 2D MultiPolygon in `crs`; null for a building without ground surface) or, with " +
	"`profile=lod2`, all its LoD2 surfaces as a MultiPolygon Z with heights in DHHN2016 (EPSG:7837), properties " +
	"its LoD2-DE attributes with the AdV labels of the codes and the derived measures (docs/buildings-attributes.md). " +
	"`filter` (CQL2) and `sortby` run as SQL on each BL's attribute table where CQL2 translates (comparisons, LIKE, " +
	"BETWEEN, IN, IS NULL, NOT/AND/OR on the queryables); the rest (CASEI, ACCENTI, spatial functions on the footprint) " +
	"is evaluated per building, and the spatial conjuncts' envelope narrows the search first. `bbox` keeps the " +
	"buildings whose footprint meets it. Each queryable is also a query parameter (equality, as Part 1 describes " +
	"filtering on feature properties); a code list value outside the AdV list still matches (Berlin's own function " +
	"codes). Pages are in the order of `sortby` (then BL, then the store's building order), `next` carries each " +
	"BL's position; `numberMatched` is given only without bbox, datetime and filters."

// wholeParams are the queryables (but gmlid) as query parameters.
func wholeParams() []httpapi.Param {
	var out []httpapi.Param
	for _, q := range lod2store.Queryables() {
		if q.Name == "gmlid" {
			continue
		}
		p := httpapi.Param{Name: q.Name, In: "query", Type: q.Type, Desc: "only buildings whose " + q.Name + " equals this (" + q.Desc + ")"}
		if q.Type == "string" {
			p.Pattern = `^\S.*$`
		}
		out = append(out, p)
	}
	return out
}

func (s *surface) handleOGCBuildingsItems(w http.ResponseWriter, r *http.Request, in *httpapi.Input) error {
	html := wantsHTML(r, in)
	iq, err := itemsQueryOf(in, false)
	if err != nil {
		return err
	}
	v, release := s.Catalog.Acquire()
	defer release()
	c, err := findCollection(v, collWhole)
	if err != nil {
		return err
	}
	return s.handleWholeItems(w, r, in, iq, c, html, false)
}

// addressSummary writes addresses as "street number, postcode locality",
// joined by "; " (nil for none).
func addressSummary(as []lod2store.Address) any {
	var out []string
	for _, a := range as {
		line := strings.TrimSpace(a.Street + " " + a.HouseNumber)
		place := strings.TrimSpace(a.PostalCode + " " + a.Locality)
		switch {
		case line != "" && place != "":
			line += ", " + place
		case line == "":
			line = place
		}
		if line != "" {
			out = append(out, line)
		}
	}
	if len(out) == 0 {
		return nil
	}
	return strings.Join(out, "; ")
}
