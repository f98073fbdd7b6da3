package dataapi

import (
	"crypto/sha256"
	"crypto/subtle"
	"encoding/hex"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"

	"github.com/svc-geodata/svc/export"
	"github.com/svc-geodata/svc/geo"
	"github.com/svc-geodata/svc/server/httpapi"
)

// GLB limits (SPEC 8): public, and with the admin token.
const (
	glbMaxAreaKM2      = 1.0
	glbMaxBuildings    = 20000
	glbAdminAreaKM2    = 250.0
	glbAdminBuildings  = 1000000
	glbCache           = "public, max-age=300"
	glbAdminTokenHint  = "Server-to-server callers holding the server's admin token may send it in the request header X-Svc-Admin-Token to raise the limits to 250 km2 and 1,000,000 buildings."
	glbContentType     = "model/gltf-binary"
	glbETagVersionSalt = "glb/3" // 2: asset.copyright; 3: feature ids and metadata
)

// glbHeaders are the response headers of SPEC 4.4 (components.headers).
var glbHeaders = []string{"ETag", "Cache-Control", "X-Svc-Buildings", "X-Svc-Anchor-Srid", "X-Svc-Anchor-LonLat", "X-Svc-Origin-EN",
	"X-Svc-Target-Frame", "X-Svc-Z-Base", "X-Svc-Compression", "X-Svc-Compression-Requested", "X-Svc-Compression-Error",
	"X-Svc-Raw-Size", "X-Svc-Max-Buildings", "X-Svc-Admin-Limits"}

// GLBRoute is the GLB export route.
func GLBRoute(env Env) httpapi.Route {
	s := &surface{env}
	boolParam := func(name string, def bool, desc string) httpapi.Param {
		return httpapi.Param{Name: name, In: "query", Type: "boolean", Default: def, Desc: desc}
	}
	return httpapi.Route{Method: "GET", Path: "/v1/buildings/3d.glb", OpID: "getBuildingsGlb", Tag: "Buildings", AdminRaises: true, Stability: "stable", Since: "0.1.0", Budget: httpapi.LongBudget,
		Summary: "All buildings meeting a bbox as one binary glTF (GLB)",
		Desc: "Buildings of every published BL with a surface meeting the bbox (same test as the search), triangulated per planar surface " +
			"(polygons with holes, ear clipping in the surface plane), faces wound outward with flat normals. Coordinates are a local East-North-Up " +
			"frame, Z up: with `target_frame=utm` metres in the UTM zone of the bbox centre (the anchor; buildings of the other zone are " +
			"reprojected), with `target_frame=mercator` Web Mercator (EPSG:3857) metres relative to the anchor and heights scaled by 1/cos(lat) " +
			"(MapLibre: translate to MercatorCoordinate.fromLngLat(anchor), scale by (s, -s, s) with s = 1/(2*pi*6378137)). glTF viewers are Y-up: " +
			"send rotate_x=-90. The rotation is R = Rx(rotate_x) * Rz(rotate_z) applied to positions and normals. " +
			"Heights stay DHHN2016 normal heights (with `z_base=absolute` the Z values are the source's; no geoid is applied, unlike the " +
			"3D Tiles, which are ellipsoidal): the GLB is a local model, not placed on a globe. `asset.copyright` holds the attribution " +
			"of every BL whose buildings are in it. " +
			"Each building is a feature (3D Tiles 1.1 metadata, as in the tilesets; `feature_metadata=false` leaves it out): every vertex carries its building's index in " +
			"`_FEATURE_ID_0` (EXT_mesh_features; FLOAT, or UNSIGNED_SHORT inside the Draco buffer), and the EXT_structural_metadata " +
			"property table of class `building` (schema `svc_buildings`, the tilesets' schema) holds per index its gmlid, building_id, " +
			"function and roof_type codes with their German AdV labels, height_m, ground_z_m, ridge_z_m, eaves_z_m (DHHN2016), " +
			"storeys, footprint_area_m2, roof_area_m2, municipality_key and creation_date (absent values are the property's noData). " +
			"Draco numbers at most 65,536 buildings: beyond, the answer is the uncompressed GLB with X-Svc-Compression-Error. " +
			"Limits: 1 km2 and 20,000 buildings (413 beyond), 250 km2 and 1,000,000 with the admin token in X-Svc-Admin-Token. " +
			"The ETag is strong; If-None-Match answers 304. When Draco is requested but fails, the answer is the uncompressed GLB " +
			"with X-Svc-Compression: none and X-Svc-Compression-Error.",
		Params: []httpapi.Param{
			BBoxParam(true, "8.672,50.106,8.68,50.112", "WGS84 minLon,minLat,maxLon,maxLat"),
			{Name: "z_base", In: "query", Type: "string", Default: "per_building", Enum: []string{"per_building", "bbox_min", "absolute"},
				Desc: "per_building: each building's lowest point at Z=0; bbox_min: the lowest point of all at Z=0; absolute: DHHN2016 heights"},
			{Name: "compression", In: "query", Type: "string", Default: "none", Enum: []string{"none", "draco"}, Desc: "draco: KHR_draco_mesh_compression, 18-bit positions"},
			boolParam("colorize_roofs", false, "wall, ground and roof as separate materials"),
			boolParam("merge_buildings", true, "true: one mesh with one primitive per material; false: one mesh and node per building, named by gmlid"),
			{Name: "target_frame", In: "query", Type: "string", Default: "utm", Enum: []string{"utm", "mercator"}, Desc: "utm: UTM metres; mercator: EPSG:3857 metres at the anchor"},
			{Name: "origin", In: "query", Type: "string", Default: "center", Enum: []string{"center", "corner"}, Desc: "center: bbox centre; corner: minLon,minLat"},
			{Name: "rotate_x", In: "query", Type: "number", Default: 0.0, Min: httpapi.F64(-360), Max: httpapi.F64(360), Desc: "degrees about X, applied first (intrinsic)"},
			{Name: "rotate_z", In: "query", Type: "number", Default: 0.0, Min: httpapi.F64(-360), Max: httpapi.F64(360), Desc: "degrees about the rotated Z, applied after X"},
			boolParam("include_ground", true, "false omits GroundSurface (class 710)"),
			boolParam("feature_metadata", true, "true: each building is a feature (_FEATURE_ID_0, EXT_mesh_features) with its attributes in an "+
				"EXT_structural_metadata property table; false: the mesh alone (smaller: the 1,500 buildings of 1 km2 are 1.23 MB instead of 1.53 MB plain, 40 KB instead of 161 KB with Draco)"),
			{Name: "weld_tolerance_m", In: "query", Type: "number", Default: 0.0, Min: httpapi.F64(0), Max: httpapi.F64(10), Desc: "merge vertices closer than this with the same normal; 0 is off"},
			{Name: "X-Svc-Admin-Token", In: "header", Type: "string", Desc: "the server's admin token: raises the limits (server-to-server use only)"},
		},
		Responses: []httpapi.Response{
			{Status: 200, Desc: "Binary glTF", ContentType: glbContentType, Headers: glbHeaders},
			{Status: 304, Desc: "Not modified (If-None-Match matched the ETag)"},
			{Status: 400, Desc: "Malformed bbox (detail names minLon,minLat,maxLon,maxLat)", Schema: "Problem"},
			{Status: 413, Desc: "bbox area or building count over the limit; the detail tells how to send X-Svc-Admin-Token", Schema: "Problem"},
			httpapi.Resp422},
		Handle: s.handleGLB}
}

// glbRequest is a parsed and validated 3d.glb request.
type glbRequest struct {
	bbox                    geo.BBox
	zBase, compression      string
	frame, origin           string
	colorize, merge, ground bool
	features                bool
	rotX, rotZ, weld        float64
	admin                   bool
	maxAreaKM2              float64
	maxBuildings            int
	zone                    geo.Zone
	anchor                  geo.LonLat
	originE, originN        float64
}

// glbRequestOf reads the declared parameters of a 3d.glb request.
func glbRequestOf(in *httpapi.Input) glbRequest {
	return glbRequest{bbox: httpapi.ParsedAs[geo.BBox](in, "bbox"), zBase: in.Str("z_base"), compression: in.Str("compression"),
		frame: in.Str("target_frame"), origin: in.Str("origin"),
		colorize: in.Boolean("colorize_roofs"), merge: in.Boolean("merge_buildings"), ground: in.Boolean("include_ground"),
		features: in.Boolean("feature_metadata"),
		rotX:     in.Num("rotate_x"), rotZ: in.Num("rotate_z"), weld: in.Num("weld_tolerance_m")}
}

// adminToken reports whether r carries the server's admin token in
// X-Svc-Admin-Token, compared in constant time. A mismatch is not an error
// here: it means public limits.
func (s *surface) adminToken(r *http.Request) bool {
	tok := r.Header.Get("X-Svc-Admin-Token")
	if s.AdminTok == "" || tok == "" {
		return false
	}
	want, got := sha256.Sum256([]byte(s.AdminTok)), sha256.Sum256([]byte(tok))
	return subtle.ConstantTimeCompare(got[:], want[:]) == 1
}

func (s *surface) handleGLB(w http.ResponseWriter, r *http.Request, in *httpapi.Input) error {
	g := glbRequestOf(in)
	g.admin = s.adminToken(r)
	g.maxAreaKM2, g.maxBuildings = glbMaxAreaKM2, glbMaxBuildings
	if g.admin {
		g.maxAreaKM2, g.maxBuildings = glbAdminAreaKM2, glbAdminBuildings
	}
	req := g.exportRequest()
	if a := g.bbox.AreaKM2(); a > g.maxAreaKM2 {
		return tooLarge(g, "The bbox covers %.3f km2; this endpoint allows at most %g km2.", a, g.maxAreaKM2)
	}
	an := req.Anchor()
	g.zone, g.anchor, g.originE, g.originN = an.Zone, an.LonLat, an.E, an.N
	v, release := s.Catalog.Acquire()
	defer release()
	srcs := export.SourcesIn(v, g.bbox)
	etag := glbETag(g, srcs)
	setGLBHeaders(w.Header(), g, etag)
	if inm := r.Header.Get("If-None-Match"); inm != "" && httpapi.ETagMatch(inm, etag) {
		w.WriteHeader(http.StatusNotModified)
		return nil
	}
	res, err := export.GLB(r.Context(), srcs, req)
	var tl *export.TooLargeError
	switch {
	case errors.As(err, &tl):
		return tooLarge(g, "%s", strings.Replace(tl.Detail, "are allowed", "are allowed by this endpoint", 1))
	case err != nil:
		return err
	}
	if n := len(res.BL); n > 0 {
		s.SetBL(r.Context(), res.BL[n-1])
	}
	return s.writeGLB(w, r, g, res.Builder)
}

// exportRequest is the request for package export.
func (g glbRequest) exportRequest() export.GLBRequest {
	return export.GLBRequest{BBox: g.bbox, ZBase: g.zBase, Frame: g.frame, Origin: g.origin, Colorize: g.colorize, Merge: g.merge,
		Ground: g.ground, Features: g.features, RotateX: g.rotX, RotateZ: g.rotZ, WeldM: g.weld, MaxAreaKM2: g.maxAreaKM2, MaxBuildings: g.maxBuildings}
}

func tooLarge(g glbRequest, format string, args ...any) error {
	detail := fmt.Sprintf(format, args...)
	if !g.admin {
		detail += " Split the bbox into smaller requests, or use /v1/tilesets for large areas. " + glbAdminTokenHint
	}
	return httpapi.Report(httpapi.ErrTooLarge, "%s", detail).With(map[string]any{"max_area_km2": g.maxAreaKM2, "max_buildings": g.maxBuildings})
}

// glbETag is a strong validator: the output is a deterministic function of
// the normalised parameters and the snapshots of the packs read.
func glbETag(g glbRequest, srcs []export.Source) string {
	h := sha256.New()
	fmt.Fprintf(h, "%s|%v|%s|%s|%s|%s|%t|%t|%t|%t|%g|%g|%g", glbETagVersionSalt, g.bbox, g.zBase, g.compression, g.frame, g.origin,
		g.colorize, g.merge, g.ground, g.features, g.rotX, g.rotZ, g.weld)
	for _, s := range srcs {
		fmt.Fprintf(h, "|%s:%s", s.BL, s.Snapshot)
	}
	return `"` + hex.EncodeToString(h.Sum(nil)[:16]) + `"`
}

// glbExposedHeaders are the GLB export's own headers a browser client reads
// (anchor and frame to place the model, compression outcome, limits).
const glbExposedHeaders = httpapi.ExposedHeaders + ", X-Svc-Buildings, X-Svc-Anchor-Srid, X-Svc-Anchor-LonLat, X-Svc-Origin-EN, " +
	"X-Svc-Target-Frame, X-Svc-Z-Base, X-Svc-Compression, X-Svc-Compression-Requested, X-Svc-Compression-Error, " +
	"X-Svc-Raw-Size, X-Svc-Max-Buildings, X-Svc-Admin-Limits"

func setGLBHeaders(h http.Header, g glbRequest, etag string) {
	h.Set("Access-Control-Expose-Headers", glbExposedHeaders)
	h.Set("ETag", etag)
	h.Set("Cache-Control", glbCache)
	h.Set("X-Svc-Anchor-Srid", strconv.Itoa(g.zone.EPSG()))
	// 9 decimals (0.1 mm) hide float noise such as 8.677499999999998.
	h.Set("X-Svc-Anchor-LonLat", trimFloat(g.anchor.Lon, 9)+","+trimFloat(g.anchor.Lat, 9))
	h.Set("X-Svc-Origin-EN", strconv.FormatFloat(g.originE, 'f', 3, 64)+","+strconv.FormatFloat(g.originN, 'f', 3, 64))
	h.Set("X-Svc-Target-Frame", g.frame)
	h.Set("X-Svc-Z-Base", g.zBase)
	h.Set("X-Svc-Compression-Requested", g.compression)
	h.Set("X-Svc-Max-Buildings", strconv.Itoa(g.maxBuildings))
	admin := "0"
	if g.admin {
		admin = "1"
	}
	h.Set("X-Svc-Admin-Limits", admin)
}

// GLBHeaderDocs documents the GLB response headers for components.headers.
func GLBHeaderDocs() map[string]any {
	str := func(desc string) map[string]any {
		return map[string]any{"schema": map[string]any{"type": "string"}, "description": desc}
	}
	num := func(desc string) map[string]any {
		return map[string]any{"schema": map[string]any{"type": "integer"}, "description": desc}
	}
	return map[string]any{
		"ETag":                        str("strong validator of the GLB; send it in If-None-Match for a 304"),
		"X-Svc-Buildings":             num("number of buildings in the GLB"),
		"X-Svc-Anchor-Srid":           num("EPSG code of the UTM anchor zone (25832 or 25833, the zone of the bbox centre)"),
		"X-Svc-Anchor-LonLat":         str("lon,lat (WGS84) of the anchor: the bbox centre, or minLon,minLat with origin=corner"),
		"X-Svc-Origin-EN":             str("E,N of the origin in the anchor CRS, metres"),
		"X-Svc-Target-Frame":          str("utm or mercator"),
		"X-Svc-Z-Base":                str("per_building, bbox_min or absolute"),
		"X-Svc-Compression":           str("compression applied: none or draco"),
		"X-Svc-Compression-Requested": str("compression requested; differs from X-Svc-Compression on fallback"),
		"X-Svc-Compression-Error":     str("only on fallback: short error text"),
		"X-Svc-Raw-Size":              num("bytes of the uncompressed GLB"),
		"X-Svc-Max-Buildings":         num("building limit applied (20000, or 1000000 with the admin token)"),
		"X-Svc-Admin-Limits":          str("1 when the admin token raised the limits, else 0"),
	}
}

// trimFloat formats v with at most prec decimals and no trailing zeros.
func trimFloat(v float64, prec int) string {
	s := strconv.FormatFloat(v, 'f', prec, 64)
	s = strings.TrimRight(s, "0")
	return strings.TrimSuffix(s, ".")
}
