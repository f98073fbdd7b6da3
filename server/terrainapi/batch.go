package terrainapi

import (
	"bytes"
	"encoding/json"
	"net/http"
	"strconv"

	"github.com/svc-geodata/svc/buildings"
	"github.com/svc-geodata/svc/catalog"
	"github.com/svc-geodata/svc/geo"
	"github.com/svc-geodata/svc/pack"
	"github.com/svc-geodata/svc/query"
	"github.com/svc-geodata/svc/server/httpapi"
	"github.com/svc-geodata/svc/terrain"
)

// Batch elevation limits. The body limit leaves room for 10,000 points
// with 15 significant digits each; the point limit is Config.BatchMaxPoints.
const (
	maxBatchBody = 1 << 20
)

const interpolationDesc = "How the value at the point is computed: `nearest` (default) is the stored value of the pixel " +
	"containing the point (the answer of the GET without this parameter); `bilinear` weighs the 2x2 pixel centres around " +
	"the point and `cubic` is cubic convolution (Keys, a = -0.5) over the 4x4 pixel centres, the kernels of GDAL's " +
	"`bilinear` and `cubic` (they agree with GDAL's resampled reads to 1 mm). Pixels across a tile edge come from the " +
	"neighbour tile, so tile edges are seamless. Where the pixel containing the point is NoData the answer is NoData; " +
	"bilinear weighs only the valid pixels of its 2x2, and cubic falls back to that bilinear where one of its 16 pixels " +
	"is NoData or outside the dataset. Neighbours come from the answering BL's dataset only."

// InterpolationParam is the interpolation parameter of the terrain routes
// (and of opentopodata, which samples as /v1/terrain/elevation).
func InterpolationParam() httpapi.Param {
	return httpapi.Param{Name: "interpolation", In: "query", Type: "string", Default: "nearest", Enum: terrain.Interpolations, Desc: interpolationDesc,
		Parse: func(s string) (any, error) {
			m, _ := terrain.ParseInterpolation(s) // the enum admitted s
			return m, nil
		}}
}

// BatchRoute is the batch elevation route (POST /v1/terrain/elevation).
func BatchRoute(env Env) httpapi.Route {
	s := &surface{env}
	return httpapi.Route{Method: "POST", Path: "/v1/terrain/elevation", OpID: "postElevationBatch", Tag: "Terrain", Stability: "beta", Since: "0.2.0",
		Summary: "Terrain heights (DGM1) at many points",
		Desc: "Samples up to " + strconv.Itoa(s.MaxPoints) + " WGS84 points in one request, each as `GET /v1/terrain/elevation` " +
			"does (" + "routing over all BL and both UTM zones, 3 decimals), and answers them in input order. The body is either " +
			"`{\"locations\": [[lat, lon], ...]}` (latitude first, as opentopodata) or a GeoJSON `MultiPoint` or `LineString` " +
			"geometry (`[lon, lat]` or `[lon, lat, z]` positions, z ignored); a GeoJSON `crs` member other than CRS84 / " +
			"EPSG:4326 is refused (422): coordinates are never reprojected silently. A point without a value has " +
			"`elevation_m: null` and a `reason`: `outside` (no dataset covers it), `nodata` (water, gaps), `unavailable` " +
			"(its pass-through COG source could not be read) or `damaged` (its tile is damaged on disk; the operator is told); " +
			"the status stays 200. Cost against the keyless daily limit and key quotas: one call per started 100 points " +
			"(1 to 100 points: 1, 101 to 200: 2, ...); a batch that would exceed the remaining budget is refused with 429 and " +
			"still counted. Bodies over 1 MiB are 413, more points than the limit 413, malformed JSON or a wrong shape 400, " +
			"coordinates out of range or no point 422, a body not sent as JSON 415.",
		Params: []httpapi.Param{InterpolationParam()},
		Body:   &httpapi.RequestBody{Schema: "ElevationBatchRequest", Required: true, Desc: "The points"},
		Responses: []httpapi.Response{{Status: 200, Desc: "One result per point, in input order", Schema: "ElevationBatchResult"},
			{Status: 400, Desc: "Malformed JSON or not one of the accepted shapes", Schema: "Problem"},
			{Status: 413, Desc: "Body over 1 MiB or more points than allowed", Schema: "Problem"},
			{Status: 415, Desc: "Body not sent as JSON", Schema: "Problem"},
			httpapi.Resp422},
		Handle: s.handleElevationBatch}
}

// ParseBatchBody reads the points of ElevationBatchRequest (exported for
// the server's test that holds it to the published schema).
func ParseBatchBody(body []byte, maxPoints int) ([]geo.LonLat, error) {
	var members map[string]json.RawMessage
	if err := json.Unmarshal(body, &members); err != nil {
		return nil, httpapi.Report(httpapi.ErrMalformed, "The body is not a JSON object: %v.", httpapi.JSONReason(err))
	}
	_, hasLoc := members["locations"]
	_, hasType := members["type"]
	allowed := map[string]bool{"locations": true}
	if hasType {
		allowed = map[string]bool{"type": true, "coordinates": true, "bbox": true, "crs": true}
	}
	for k := range members {
		if !allowed[k] {
			if hasLoc && hasType {
				return nil, httpapi.Report(httpapi.ErrMalformed, "The body has both locations and a GeoJSON type; send one of them.")
			}
			return nil, httpapi.Report(httpapi.ErrMalformed, "The body has an unknown member %q; send {\"locations\": [[lat, lon], ...]} or a GeoJSON MultiPoint or LineString.", httpapi.Clip(k))
		}
	}
	var raw [][]float64
	latFirst := true
	switch {
	case hasLoc:
		if err := json.Unmarshal(members["locations"], &raw); err != nil {
			return nil, httpapi.Report(httpapi.ErrMalformed, "Member locations must be an array of [lat, lon] number pairs: %v.", httpapi.JSONReason(err))
		}
	case hasType:
		var typ string
		if err := json.Unmarshal(members["type"], &typ); err != nil {
			return nil, httpapi.Report(httpapi.ErrMalformed, "Member type must be a string.")
		}
		if typ != "MultiPoint" && typ != "LineString" {
			return nil, httpapi.Report(httpapi.ErrInvalid, "GeoJSON type must be MultiPoint or LineString, not %q.", httpapi.Clip(typ))
		}
		if c, ok := members["crs"]; ok {
			if err := checkGeoJSONCRS(c); err != nil {
				return nil, err
			}
		}
		if err := json.Unmarshal(members["coordinates"], &raw); err != nil || members["coordinates"] == nil {
			return nil, httpapi.Report(httpapi.ErrMalformed, "Member coordinates must be an array of [lon, lat] positions.")
		}
		latFirst = false
	default:
		return nil, httpapi.Report(httpapi.ErrMalformed, "The body must be {\"locations\": [[lat, lon], ...]} or a GeoJSON MultiPoint or LineString.")
	}
	if len(raw) == 0 {
		return nil, httpapi.Report(httpapi.ErrInvalid, "The body holds no point.")
	}
	if len(raw) > maxPoints {
		return nil, httpapi.Report(httpapi.ErrTooLarge, "The body holds %d points; at most %d are accepted per request.", len(raw), maxPoints)
	}
	pts := make([]geo.LonLat, len(raw))
	for i, p := range raw {
		if len(p) != 2 && (latFirst || len(p) != 3) {
			if latFirst {
				return nil, httpapi.Report(httpapi.ErrMalformed, "Location %d must be a [lat, lon] pair, not %d numbers.", i, len(p))
			}
			return nil, httpapi.Report(httpapi.ErrMalformed, "Position %d must be [lon, lat] or [lon, lat, z], not %d numbers.", i, len(p))
		}
		lat, lon := p[0], p[1]
		if !latFirst {
			lon, lat = p[0], p[1]
		}
		if !(lat >= -90 && lat <= 90) || !(lon >= -180 && lon <= 180) {
			return nil, httpapi.Report(httpapi.ErrInvalid, "Point %d has latitude %g, longitude %g; latitude must be within ±90 and longitude within ±180.", i, lat, lon)
		}
		pts[i] = geo.LonLat{Lon: lon, Lat: lat}
	}
	return pts, nil
}

// checkGeoJSONCRS accepts the 2008 GeoJSON crs member only when it names
// WGS84 longitude/latitude.
func checkGeoJSONCRS(raw json.RawMessage) error {
	var c struct {
		Properties struct {
			Name string `json:"name"`
		} `json:"properties"`
	}
	if err := json.Unmarshal(raw, &c); err != nil || c.Properties.Name == "" {
		return httpapi.Report(httpapi.ErrMalformed, "Member crs must be {\"type\": \"name\", \"properties\": {\"name\": ...}}.")
	}
	switch c.Properties.Name {
	case "urn:ogc:def:crs:OGC:1.3:CRS84", "urn:ogc:def:crs:OGC::CRS84", "http://www.opengis.net/def/crs/OGC/1.3/CRS84", "EPSG:4326", "urn:ogc:def:crs:EPSG::4326":
		return nil
	}
	return httpapi.Report(httpapi.ErrInvalid, "The body's coordinates are in %q; only WGS84 longitude/latitude (CRS84) is accepted.", httpapi.Clip(c.Properties.Name))
}

func (s *surface) handleElevationBatch(w http.ResponseWriter, r *http.Request, in *httpapi.Input) error {
	m := httpapi.ParsedAs[terrain.Interpolation](in, "interpolation")
	body, err := httpapi.ReadJSONBody(r, maxBatchBody)
	if err != nil {
		return err
	}
	pts, err := ParseBatchBody(body, s.MaxPoints)
	if err != nil {
		return err
	}
	if err := s.Charge(w, r, len(pts)); err != nil {
		return err
	}
	v, release := s.Catalog.Acquire()
	defer release()
	res, err := terrain.ElevationBatch(r.Context(), query.Datasets(v, pack.Terrain), pts, m)
	if err != nil {
		return err
	}
	s.NoteDamage(res)
	w.Header().Set("Content-Type", "application/json")
	_, _ = w.Write(batchBody(v, pts, res, m).Bytes())
	return nil
}

// batchBody writes ElevationBatchResult by hand, as profileBody does.
func batchBody(_ *catalog.View, pts []geo.LonLat, res []terrain.PointResult, m terrain.Interpolation) *bytes.Buffer {
	var b bytes.Buffer
	b.Grow(256 + 130*len(res))
	valid := 0
	for i := range res {
		if res[i].OK {
			valid++
		}
	}
	b.WriteString(`{"interpolation":"` + m.String() + `","datum":"DHHN2016","count":` + strconv.Itoa(len(res)) +
		`,"valid":` + strconv.Itoa(valid) + `,"results":[`)
	var used []*terrain.Dataset
	buf := make([]byte, 0, 32)
	for i, r := range res {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(`{"lat":`)
		b.Write(strconv.AppendFloat(buf[:0], pts[i].Lat, 'f', -1, 64))
		b.WriteString(`,"lon":`)
		b.Write(strconv.AppendFloat(buf[:0], pts[i].Lon, 'f', -1, 64))
		b.WriteString(`,"elevation_m":`)
		if r.OK {
			b.Write(strconv.AppendFloat(buf[:0], terrain.Round3(r.Value), 'f', -1, 64))
		} else {
			b.WriteString("null")
		}
		b.WriteString(`,"source_bl":"`)
		if r.Dataset != nil {
			b.WriteString(r.Dataset.Manifest.BL)
		}
		b.WriteString(`","tile_id":`)
		if r.OK {
			buildings.WriteJSONString(&b, r.TileID)
			if len(used) == 0 || used[len(used)-1] != r.Dataset {
				used = append(used, r.Dataset)
			}
		} else {
			b.WriteString("null")
		}
		b.WriteString(`,"reason":`)
		if r.OK {
			b.WriteString("null}")
		} else {
			b.WriteString(`"` + r.Reason + `"}`)
		}
	}
	attr, _ := json.Marshal(rasterAttribution(used))
	b.WriteString(`],"svc":{"attribution":`)
	b.Write(attr)
	b.WriteString("}}\n")
	return &b
}
