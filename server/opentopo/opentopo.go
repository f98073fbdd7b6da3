// Package opentopo is the opentopodata surface of the server: its two
// routes (GET and POST /opentopodata/v1/{dataset}) answer elevations in
// opentopodata's API shape, from the same terrain sampling as
// /v1/terrain/elevation. What it needs of the server (the catalog, the
// batch limits, counting and the damage log) it gets as an Env; the policy
// its routes answer under is the server's openTopoDataAPI surface.
package opentopo

import (
	"bytes"
	"encoding/json"
	"io"
	"mime"
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"github.com/svc-geodata/svc/catalog"
	"github.com/svc-geodata/svc/geo"
	"github.com/svc-geodata/svc/pack"
	"github.com/svc-geodata/svc/query"
	"github.com/svc-geodata/svc/server/httpapi"
	"github.com/svc-geodata/svc/terrain"
)

// openTopoDataSets maps opentopodata dataset names to products.
var openTopoDataSets = map[string]pack.Product{"dgm1": pack.Terrain}

const openTopoDataDesc = "A compatibility layer for clients of opentopodata (https://www.opentopodata.org/api/): change the " +
	"base URL from `https://api.opentopodata.org` to this server and keep the rest. `dataset` is `dgm1` (DGM1 over all " +
	"published BL). `locations` is `lat,lon|lat,lon|...` (the Google polyline form is not supported: 400). Results come in " +
	"input order in opentopodata's shape (`results[].elevation`, `.location.lat`/`.lng`, `.dataset`, `status: \"OK\"`), " +
	"elevations in metres above NHN (DHHN2016, 3 decimals), points without a value give `elevation: null` (or " +
	"`nodata_value`). Sampling and `interpolation` are those of `/v1/terrain/elevation`. Differences: errors are " +
	"RFC 9457 problems like everywhere on this server, carrying opentopodata's `error` message as an extension member " +
	"(opentopodata's own `status` string cannot coexist with the problem's numeric `status`); up to the server's batch " +
	"limit of points per request (opentopodata's default is 100); the same keyless limit as `/v1`, one call per started " +
	"100 points."

// maxBody is the largest POST body, as the batch elevation route's: room
// for 10,000 points with 15 significant digits each.
const maxBody = 1 << 20

// Env is what the surface needs of the server that composes it.
type Env struct {
	Catalog *catalog.Catalog
	// MaxPoints is the most locations one request may give (the server's
	// batch limit).
	MaxPoints int
	// Interpolation is the data API's interpolation parameter, declared
	// there and taken as it is: sampling is that of /v1/terrain/elevation.
	Interpolation httpapi.Param
	// Charge counts a request for points locations beyond the call the
	// access layer counted when it admitted it (one call per started 100
	// points); a keyless budget it exceeds is an error (429).
	Charge func(w http.ResponseWriter, r *http.Request, points int) error
	// NoteDamage lists the damaged tiles a batch met in the damage log.
	NoteDamage func([]terrain.PointResult)
}

type surface struct{ Env }

// Routes are the surface's routes; the server puts them on its
// openTopoDataAPI surface.
func Routes(env Env) []httpapi.Route {
	s := &surface{env}
	params := []httpapi.Param{
		{Name: "dataset", In: "path", Type: "string", Required: true, Enum: []string{"dgm1"}, Example: "dgm1", Desc: "dataset name"},
		{Name: "locations", In: "query", Type: "string", Example: "50.115,8.67|50.116,8.672",
			Desc: "`lat,lon` pairs separated by `|`; required for GET, for POST in the query or the body"},
		s.Interpolation,
		{Name: "nodata_value", In: "query", Type: "string", Default: "null", Pattern: `^(null|-?[0-9]{1,9})$`,
			Desc: "what `elevation` is for a point without a value: `null` or an integer"},
	}
	resps := []httpapi.Response{{Status: 200, Desc: "opentopodata results", Schema: "OpenTopoDataResult"},
		{Status: 400, Desc: "Malformed locations or parameters", Schema: "Problem"},
		{Status: 404, Desc: "Unknown dataset", Schema: "Problem"},
		{Status: 413, Desc: "More locations than allowed", Schema: "Problem"}, httpapi.Resp422}
	get := httpapi.Route{Method: "GET", Path: "/opentopodata/v1/{dataset}", OpID: "getOpenTopoData", Tag: "Compatibility", Since: "0.2.0",
		Summary: "Elevations in opentopodata's API shape", Desc: openTopoDataDesc, Params: params, Responses: resps,
		Handle: s.handleOpenTopoData}
	post := get
	post.Method, post.OpID, post.Summary = "POST", "postOpenTopoData", "Elevations in opentopodata's API shape, parameters in the body"
	post.Body = &httpapi.RequestBody{Schema: "OpenTopoDataRequest", Desc: "locations, interpolation and nodata_value as JSON or form fields"}
	post.Responses = append(append([]httpapi.Response{}, resps...), httpapi.Response{Status: 415, Desc: "Body neither JSON nor a form", Schema: "Problem"})
	return []httpapi.Route{get, post}
}

func (s *surface) handleOpenTopoData(w http.ResponseWriter, r *http.Request, in *httpapi.Input) error {
	name := in.Str("dataset")
	prod, ok := openTopoDataSets[name]
	if !ok {
		return httpapi.Report(httpapi.ErrNotFound, "Dataset %q is not served; this server has dgm1.", httpapi.Clip(name))
	}
	if r.Method == http.MethodPost {
		body, err := openTopoDataBody(r)
		if err != nil {
			return err
		}
		if in, err = in.Merge(body); err != nil {
			return err
		}
	}
	m := httpapi.ParsedAs[terrain.Interpolation](in, "interpolation")
	nodata := in.Str("nodata_value")
	pts, err := parseLocations(in.Str("locations"), s.MaxPoints)
	if err != nil {
		return err
	}
	if err := s.Charge(w, r, len(pts)); err != nil {
		return err
	}
	v, release := s.Catalog.Acquire()
	defer release()
	res, err := terrain.ElevationBatch(r.Context(), query.Datasets(v, prod), pts, m)
	if err != nil {
		return err
	}
	s.NoteDamage(res)
	var b bytes.Buffer
	b.Grow(64 + 90*len(res))
	b.WriteString(`{"results":[`)
	buf := make([]byte, 0, 32)
	for i, r := range res {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(`{"dataset":"` + name + `","elevation":`)
		if r.OK {
			b.Write(strconv.AppendFloat(buf[:0], terrain.Round3(r.Value), 'f', -1, 64))
		} else {
			b.WriteString(nodata)
		}
		b.WriteString(`,"location":{"lat":`)
		b.Write(strconv.AppendFloat(buf[:0], pts[i].Lat, 'f', -1, 64))
		b.WriteString(`,"lng":`)
		b.Write(strconv.AppendFloat(buf[:0], pts[i].Lon, 'f', -1, 64))
		b.WriteString(`}}`)
	}
	b.WriteString(`],"status":"OK"}` + "\n")
	w.Header().Set("Content-Type", "application/json")
	_, _ = w.Write(b.Bytes())
	return nil
}

// openTopoDataBody reads a POST body: a JSON object (locations as a string
// or as [[lat, lon], ...]) or form fields.
func openTopoDataBody(r *http.Request) (map[string]string, error) {
	mt, _, _ := mime.ParseMediaType(r.Header.Get("Content-Type"))
	if mt == "application/x-www-form-urlencoded" {
		// The body alone: r.ParseForm would read the URL's query too.
		raw, err := io.ReadAll(io.LimitReader(r.Body, maxBody+1))
		if err != nil {
			return nil, httpapi.Report(httpapi.ErrMalformed, "The request body could not be read.")
		}
		if len(raw) > maxBody {
			return nil, httpapi.Report(httpapi.ErrTooLarge, "The request body exceeds %d bytes.", maxBody)
		}
		form, err := url.ParseQuery(string(raw))
		if err != nil {
			return nil, httpapi.Report(httpapi.ErrMalformed, "The form body is malformed.")
		}
		out := map[string]string{}
		for k, v := range form {
			if len(v) > 1 {
				return nil, httpapi.Report(httpapi.ErrMalformed, "Field %s is given more than once; give it once.", httpapi.Clip(k))
			}
			out[k] = v[0]
		}
		return out, nil
	}
	body, err := httpapi.ReadJSONBody(r, maxBody)
	if err != nil {
		return nil, err
	}
	var members map[string]json.RawMessage
	if err := json.Unmarshal(body, &members); err != nil {
		return nil, httpapi.Report(httpapi.ErrMalformed, "The body is not a JSON object: %v.", httpapi.JSONReason(err))
	}
	out := map[string]string{}
	for k, raw := range members {
		switch k {
		case "locations":
			var s string
			if json.Unmarshal(raw, &s) == nil {
				out[k] = s
				continue
			}
			var pairs [][]float64
			if err := json.Unmarshal(raw, &pairs); err != nil {
				return nil, httpapi.Report(httpapi.ErrMalformed, "Member locations must be \"lat,lon|...\" or [[lat, lon], ...]: %v.", httpapi.JSONReason(err))
			}
			parts := make([]string, len(pairs))
			for i, p := range pairs {
				if len(p) != 2 {
					return nil, httpapi.Report(httpapi.ErrMalformed, "Location %d must be a [lat, lon] pair.", i)
				}
				parts[i] = strconv.FormatFloat(p[0], 'g', -1, 64) + "," + strconv.FormatFloat(p[1], 'g', -1, 64)
			}
			out[k] = strings.Join(parts, "|")
		case "interpolation", "nodata_value":
			var s string
			if err := json.Unmarshal(raw, &s); err != nil {
				var n json.Number
				if k != "nodata_value" || json.Unmarshal(raw, &n) != nil {
					if string(raw) != "null" {
						return nil, httpapi.Report(httpapi.ErrMalformed, "Member %s must be a string.", k)
					}
					continue
				}
				s = n.String()
			}
			out[k] = s
		default:
			return nil, httpapi.Report(httpapi.ErrMalformed, "The body has an unknown member %q; accepted are locations, interpolation and nodata_value.", httpapi.Clip(k))
		}
	}
	return out, nil
}

// parseLocations reads opentopodata's "lat,lon|lat,lon".
func parseLocations(s string, maxPoints int) ([]geo.LonLat, error) {
	if s == "" {
		return nil, httpapi.Report(httpapi.ErrMalformed, "Parameter locations is required: lat,lon pairs separated by |.")
	}
	if n := strings.Count(s, "|") + 1; n > maxPoints {
		return nil, httpapi.Report(httpapi.ErrTooLarge, "%d locations given; at most %d are accepted per request.", n, maxPoints)
	}
	parts := strings.Split(s, "|")
	pts := make([]geo.LonLat, len(parts))
	for i, p := range parts {
		a, b, ok := strings.Cut(p, ",")
		lat, ok1 := geo.ParseDecimal(strings.TrimSpace(a))
		lon, ok2 := geo.ParseDecimal(strings.TrimSpace(b))
		if !ok || !ok1 || !ok2 {
			return nil, httpapi.Report(httpapi.ErrMalformed, "Location %d %q is not lat,lon (polyline-encoded locations are not supported).", i, httpapi.Clip(p))
		}
		if !(lat >= -90 && lat <= 90) || !(lon >= -180 && lon <= 180) {
			return nil, httpapi.Report(httpapi.ErrInvalid, "Location %d has latitude %g, longitude %g; latitude must be within ±90 and longitude within ±180.", i, lat, lon)
		}
		pts[i] = geo.LonLat{Lon: lon, Lat: lat}
	}
	return pts, nil
}
