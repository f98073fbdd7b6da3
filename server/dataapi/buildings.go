package dataapi

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strconv"

	"github.com/svc-geodata/svc/bl"
	"github.com/svc-geodata/svc/buildings"
	"github.com/svc-geodata/svc/catalog"
	"github.com/svc-geodata/svc/geo"
	"github.com/svc-geodata/svc/lod2store"
	"github.com/svc-geodata/svc/pack"
	"github.com/svc-geodata/svc/server/httpapi"
)

// BuildingRoutes are the building and roof routes and the search.
func BuildingRoutes(env Env) []httpapi.Route {
	s := &surface{env}
	gmlidParam := httpapi.Param{Name: "gmlid", In: "path", Type: "string", Required: true, Example: "DEHEDM00000001",
		Desc: "BL-prefixed GML id (e.g. DENW49AL0000LI95, DEHE062000013OfY) or a pure UUID; also the id of a building part or the `properties.gmlid` of any search feature"}
	return []httpapi.Route{
		{Method: "GET", Path: "/v1/buildings", OpID: "searchBuildings", Tag: "Buildings", Stability: "stable", Since: "0.1.0",
			Summary: "Federated bbox search of LoD2 building surfaces",
			Desc: "Searches every published BL whose extent meets the bbox, concurrently, and merges the results by BL code and then along " +
				"a Hilbert curve within each BL, so that following `svc.next` until it is empty returns every intersecting surface exactly once. " +
				"A surface intersects when its footprint meets the bbox outline projected into its BL's CRS. Intended for areas of about 1 km2 " +
				"or less; use /v1/tilesets for larger areas. The cursor is opaque; a cursor for another snapshot of a BL is rejected with 400.",
			Params: []httpapi.Param{
				BBoxParam(true, "8.67,50.104,8.684,50.113", "WGS84 minLon,minLat,maxLon,maxLat"),
				{Name: "limit", In: "query", Type: "integer", Default: 100, Min: httpapi.F64(1), Max: httpapi.F64(1000), Desc: "page size"},
				{Name: "cursor", In: "query", Type: "string", Desc: "opaque cursor from `svc.next` of the previous page", Parse: ParseCursor},
			},
			Responses: []httpapi.Response{{Status: 200, Desc: "GeoJSON FeatureCollection of surfaces", Schema: "BuildingSearchResponse", ContentType: "application/geo+json"},
				{Status: 400, Desc: "Malformed bbox (detail names minLon,minLat,maxLon,maxLat) or cursor", Schema: "Problem"}, httpapi.Resp422},
			Handle: s.handleSearch},
		{Method: "GET", Path: "/v1/buildings/{gmlid}", OpID: "getBuilding", Tag: "Buildings", Stability: "stable", Since: "0.1.0",
			Summary: "One building with the geometry of all its surfaces",
			Desc: "The BL is taken from the id prefix (DENW -> nrw, DEHE -> he, ...); ids without a known prefix, or not found under it, " +
				"are looked up in every published BL. The licence of the answering BL is linked in a `Link: <licence>; rel=\"license\"` header.",
			Params:    []httpapi.Param{gmlidParam},
			Responses: []httpapi.Response{{Status: 200, Desc: "Building detail", Schema: "BuildingDetail", ContentType: "application/geo+json"}, httpapi.Resp404},
			Handle:    s.handleBuilding},
		{Method: "GET", Path: "/v1/buildings/{gmlid}/roof", OpID: "getBuildingRoof", Tag: "Buildings", Stability: "beta", Since: "0.1.0",
			Summary: "Roof facets of a building with tilt, azimuth and projected area",
			Desc: "One Polygon feature per planar roof polygon. tilt_deg comes from the facet's Newell normal; azimuth_deg is the compass " +
				"direction (true north, corrected for UTM grid convergence) of the outward normal, null when tilt < 5; area_m2 is the " +
				"horizontal projected area in the BL's UTM CRS. Values are rounded to 2 decimals. `count: 0` for a building without roof " +
				"surfaces. `svc.attribution` carries the licence of the BL.",
			Params:    []httpapi.Param{gmlidParam},
			Responses: []httpapi.Response{{Status: 200, Desc: "Roof facets", Schema: "RoofResponse", ContentType: "application/geo+json"}, httpapi.Resp404},
			Handle:    s.handleRoof},
		SolarRoute(env, gmlidParam),
	}
}

func (s *surface) handleSearch(w http.ResponseWriter, r *http.Request, in *httpapi.Input) error {
	bbox, limit, after := httpapi.ParsedAs[geo.BBox](in, "bbox"), in.Integer("limit"), httpapi.ParsedAs[lod2store.Position](in, "cursor")
	v, release := s.Catalog.Acquire()
	defer release()
	page, err := buildings.Search(r.Context(), buildings.Sources(v), bbox, after, limit, lod2store.Filter{})
	if err != nil {
		return err
	}
	defer page.Release()
	if len(page.Hits) > 0 {
		s.SetBL(r.Context(), page.Hits[0].BL) // usage by BL counts a page for the BL it starts in
	}
	buf, err := searchBody(v, page, bbox, limit, s.damagedWarnings(page.Damaged))
	if err != nil {
		return err
	}
	defer httpapi.PutBuffer(buf)
	w.Header()["Content-Type"] = hdrGeoJSON
	_, _ = w.Write(buf.Bytes())
	return nil
}

// hdrGeoJSON is the Content-Type of the search, shared by every answer
// (header values are never changed once set).
var hdrGeoJSON = []string{"application/geo+json"}

// searchBody writes the FeatureCollection by hand, its features in the
// buildings.SearchSurface form. It writes into a pooled buffer and
// allocates nothing per feature.
func searchBody(v *catalog.View, page buildings.Page, bbox geo.BBox, limit int, warnings []string) (*bytes.Buffer, error) {
	hits, next := page.Hits, page.Next
	b := httpapi.GetBuffer()
	b.Grow(512 + 1200*len(hits))
	b.WriteString(`{"type":"FeatureCollection","bbox":[`)
	for i, f := range [4]float64{bbox.MinLon, bbox.MinLat, bbox.MaxLon, bbox.MaxLat} {
		if i > 0 {
			b.WriteByte(',')
		}
		b.Write(strconv.AppendFloat(b.AvailableBuffer(), f, 'f', -1, 64))
	}
	b.WriteString(`],"count":`)
	b.Write(strconv.AppendInt(b.AvailableBuffer(), int64(len(hits)), 10))
	b.WriteString(`,"limit":`)
	b.Write(strconv.AppendInt(b.AvailableBuffer(), int64(limit), 10))
	b.WriteString(`,"features":[`)
	var blBuf [8]string
	bls := blBuf[:0]
	var f buildings.Feature // one for the page: a feature passed to Write escapes
	for i, h := range hits {
		if i > 0 {
			b.WriteByte(',')
		}
		if len(bls) == 0 || bls[len(bls)-1] != h.BL {
			bls = append(bls, h.BL)
		}
		f.FedHit = h
		if err := buildings.SearchSurface.Write(b, &f, geo.CRS84); err != nil {
			httpapi.PutBuffer(b)
			return nil, err
		}
	}
	b.WriteString(`],"svc":{"attribution":`)
	writeAttribution(b, v, bls)
	if len(warnings) > 0 {
		w, _ := json.Marshal(warnings)
		b.WriteString(`,"warnings":`)
		b.Write(w)
	}
	b.WriteString(`,"next":"`)
	if next != nil {
		writeCursor(b, *next)
	}
	b.WriteString("\"}}\n")
	return b, nil
}

// writeAttribution writes the SPEC 2.6 attribution entries of the BLs, in
// order, as a JSON array: the bytes json.Marshal writes for a list of
// maps (keys sorted), without a map per entry.
func writeAttribution(b *bytes.Buffer, v *catalog.View, bls []string) {
	b.WriteByte('[')
	n := 0
	for _, code := range bls {
		p, ok := v.Pack(pack.LoD2, code)
		if !ok {
			continue
		}
		if n++; n > 1 {
			b.WriteByte(',')
		}
		l := bl.LicenseOf(p.Manifest.LicenseID)
		b.WriteString(`{"license":`)
		buildings.WriteJSONString(b, l.Label)
		b.WriteString(`,"source":`)
		buildings.WriteJSONString(b, sourceName(p.Manifest))
		b.WriteString(`,"tiles_count":1,"url":`)
		buildings.WriteJSONString(b, l.URL)
		b.WriteByte('}')
	}
	b.WriteByte(']')
}

// notFound answers a gml:id no published BL has.
func notFound(gmlid string) error {
	return httpapi.Report(httpapi.ErrNotFound, "No building with gmlid %q in any published BL.", httpapi.Clip(gmlid))
}

// writeBuildingBody sends the GeoJSON answer of one BL's building: it
// records the BL for usage and links the BL's licence (RFC 8288 rel=license),
// since the detail body itself has no room for attribution.
func (s *surface) writeBuildingBody(w http.ResponseWriter, r *http.Request, v *catalog.View, code string, body []byte) {
	s.writeBuildingBodyAs(w, r, v, code, "application/geo+json", body)
}

// writeBuildingBodyAs is writeBuildingBody with another content type.
func (s *surface) writeBuildingBodyAs(w http.ResponseWriter, r *http.Request, v *catalog.View, code, contentType string, body []byte) {
	s.SetBL(r.Context(), code)
	if p, ok := v.Pack(pack.LoD2, code); ok {
		if l := bl.LicenseOf(p.Manifest.LicenseID); l.URL != "" {
			w.Header().Add("Link", fmt.Sprintf("<%s>; rel=\"license\"", l.URL))
		}
	}
	w.Header().Set("Content-Type", contentType)
	_, _ = w.Write(body)
}

func (s *surface) handleBuilding(w http.ResponseWriter, r *http.Request, in *httpapi.Input) error {
	gmlid := in.Str("gmlid")
	v, release := s.Catalog.Acquire()
	defer release()
	src, b, err := buildings.Building(r.Context(), buildings.Sources(v), gmlid)
	if errors.Is(err, lod2store.ErrNotFound) {
		return notFound(gmlid)
	}
	if err != nil {
		return err
	}
	code := src.BL
	var buf bytes.Buffer
	buf.WriteString(`{"gmlid":`)
	writeJSONString(&buf, gmlid)
	buf.WriteString(`,"bundesland_code":"` + code + `","building_id":` + strconv.FormatInt(b.BuildingID, 10))
	buf.WriteString(`,"lod":"LoD2","geometry":{"type":"MultiPolygon","coordinates":`)
	buf.Write(b.Coords)
	buf.WriteString("}}\n")
	s.writeBuildingBody(w, r, v, code, buf.Bytes())
	return nil
}

func (s *surface) handleRoof(w http.ResponseWriter, r *http.Request, in *httpapi.Input) error {
	gmlid := in.Str("gmlid")
	v, release := s.Catalog.Acquire()
	defer release()
	src, facets, err := buildings.Roof(r.Context(), buildings.Sources(v), gmlid)
	if errors.Is(err, lod2store.ErrNotFound) {
		return notFound(gmlid)
	}
	if err != nil {
		return err
	}
	code := src.BL
	var buf bytes.Buffer
	buf.WriteString(`{"type":"FeatureCollection","count":` + strconv.Itoa(len(facets)) + `,"features":[`)
	for i, f := range facets {
		if i > 0 {
			buf.WriteByte(',')
		}
		buf.WriteString(`{"type":"Feature","geometry":{"type":"Polygon","coordinates":`)
		buf.Write(f.Coords)
		buf.WriteString(`},"properties":{"tilt_deg":` + strconv.FormatFloat(f.TiltDeg, 'f', -1, 64) + `,"azimuth_deg":`)
		if f.AzimuthDeg == nil {
			buf.WriteString("null")
		} else {
			buf.WriteString(strconv.FormatFloat(*f.AzimuthDeg, 'f', -1, 64))
		}
		buf.WriteString(`,"area_m2":` + strconv.FormatFloat(f.AreaM2, 'f', -1, 64) + `}}`)
	}
	buf.WriteString(`],"svc":{"gmlid":`)
	writeJSONString(&buf, gmlid)
	buf.WriteString(`,"bl":"` + code + `","attribution":`)
	writeAttribution(&buf, v, []string{code})
	buf.WriteString("}}\n")
	s.writeBuildingBody(w, r, v, code, buf.Bytes())
	return nil
}

// writeJSONString writes s as a JSON string.
func writeJSONString(buf *bytes.Buffer, s string) { buildings.WriteJSONString(buf, s) }

// damagedWarnings notes the BL a federated search skipped in the damage log
// (admin health, /readyz) and words them for svc.warnings.
func (s *surface) damagedWarnings(damaged []*lod2store.DamagedError) []string {
	return DamagedWarnings(damaged, s.NoteDamage)
}

// DamagedWarnings notes the BL a federated search skipped with note and
// words them for svc.warnings (the OGC API's search words them the same).
func DamagedWarnings(damaged []*lod2store.DamagedError, note func(error)) []string {
	var out []string
	for _, d := range damaged {
		note(d)
		out = append(out, fmt.Sprintf("BL %s was skipped: its LoD2 data is damaged (%s); the other states are complete, "+
			"and the operator sees it in /v1/admin/health and /readyz.", d.BL, d.Pack))
	}
	return out
}
