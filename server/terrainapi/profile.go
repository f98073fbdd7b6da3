package terrainapi

import (
	"bytes"
	"encoding/json"
	"errors"
	"math"
	"net/http"
	"strconv"

	"github.com/svc-geodata/svc/bl"
	"github.com/svc-geodata/svc/buildings"
	"github.com/svc-geodata/svc/catalog"
	"github.com/svc-geodata/svc/geo"
	"github.com/svc-geodata/svc/pack"
	"github.com/svc-geodata/svc/query"
	"github.com/svc-geodata/svc/server/httpapi"
	"github.com/svc-geodata/svc/terrain"
)

func (s *surface) handleProfile(w http.ResponseWriter, r *http.Request, in *httpapi.Input) error {
	pts := httpapi.ParsedAs[[]geo.LonLat](in, "coords")
	n := in.Integer("samples")
	m := httpapi.ParsedAs[terrain.Interpolation](in, "interpolation")
	v, release := s.Catalog.Acquire()
	defer release()
	p, err := terrain.ProfileAlong(r.Context(), query.Datasets(v, pack.Terrain), pts, n, m)
	if errors.Is(err, terrain.ErrOutside) {
		return httpapi.Report(terrain.ErrOutside, "No sample of the %d along the line lies on terrain data.", n).Because(err)
	}
	if err != nil {
		return rasterProblem(err, "terrain", pts[0].Lon, pts[0].Lat)
	}
	body := profileBody(v, p, len(pts))
	for _, sm := range p.Samples {
		if sm.OK {
			s.SetBL(r.Context(), sm.Dataset.Manifest.BL)
			break
		}
	}
	w.Header().Set("Content-Type", "application/geo+json")
	_, _ = w.Write(body.Bytes())
	return nil
}

// profileBody writes the FeatureCollection by hand: 2,000 features through
// encoding/json cost more than the sampling.
func profileBody(v *catalog.View, p terrain.Profile, coords int) *bytes.Buffer {
	var b bytes.Buffer
	b.Grow(256 + 190*len(p.Samples))
	b.WriteString(`{"type":"FeatureCollection","properties":{"datum":"DHHN2016","coords_count":`)
	b.WriteString(strconv.Itoa(coords) + `,"samples":` + strconv.Itoa(len(p.Samples)) + `,"total_length_m":`)
	b.Write(strconv.AppendFloat(nil, round(p.TotalM, 2), 'f', -1, 64))
	b.WriteString(`,"partial":` + strconv.FormatBool(p.Partial) + `,"failed_tile_ids":`)
	ids, _ := json.Marshal(append([]string{}, p.FailedTileIDs...))
	b.Write(ids)
	b.WriteString(`},"features":[`)
	var bls []*terrain.Dataset
	buf := make([]byte, 0, 32)
	for i, sm := range p.Samples {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(`{"type":"Feature","geometry":{"type":"Point","coordinates":[`)
		b.Write(strconv.AppendFloat(buf[:0], round(sm.Lon, 7), 'f', -1, 64))
		b.WriteByte(',')
		b.Write(strconv.AppendFloat(buf[:0], round(sm.Lat, 7), 'f', -1, 64))
		b.WriteString(`]},"properties":{"elevation_m":`)
		if sm.OK {
			b.Write(strconv.AppendFloat(buf[:0], terrain.Round3(sm.Value), 'f', -1, 64))
		} else {
			b.WriteString("null")
		}
		b.WriteString(`,"distance_m":`)
		b.Write(strconv.AppendFloat(buf[:0], round(sm.DistanceM, 2), 'f', -1, 64))
		b.WriteString(`,"source_bl":"`)
		if sm.Dataset != nil {
			b.WriteString(sm.Dataset.Manifest.BL)
		}
		b.WriteString(`","tile_id":`)
		if sm.OK {
			buildings.WriteJSONString(&b, sm.TileID)
			if len(bls) == 0 || bls[len(bls)-1] != sm.Dataset {
				bls = append(bls, sm.Dataset)
			}
		} else {
			b.WriteString("null")
		}
		b.WriteString(`}}`)
	}
	attr, _ := json.Marshal(rasterAttribution(bls))
	b.WriteString(`],"svc":{"attribution":`)
	b.Write(attr)
	b.WriteString("}}\n")
	return &b
}

// rasterAttribution returns the SPEC 2.6 entries of the distinct datasets
// in order of first use (tiles_count is 1, as on the building search).
func rasterAttribution(ds []*terrain.Dataset) []map[string]any {
	out := []map[string]any{}
	seen := map[*terrain.Dataset]bool{}
	for _, d := range ds {
		if seen[d] {
			continue
		}
		seen[d] = true
		m := d.Manifest
		l := bl.LicenseOf(m.LicenseID)
		out = append(out, map[string]any{"source": m.Source(), "license": l.Label, "url": l.URL, "tiles_count": 1})
	}
	return out
}

// round rounds v to the given decimals, half away from zero.
func round(v float64, decimals int) float64 {
	p := math.Pow10(decimals)
	return math.Round(v*p) / p
}

func (s *surface) handleCanopy(w http.ResponseWriter, r *http.Request, in *httpapi.Input) error {
	p := geo.LonLat{Lon: in.Num("lon"), Lat: in.Num("lat")}
	v, release := s.Catalog.Acquire()
	defer release()
	c, err := query.CanopyAt(r.Context(), v, p, in.Boolean("trunk"))
	if err != nil {
		return rasterProblem(err, "vegetation", p.Lon, p.Lat)
	}
	s.SetBL(r.Context(), c.SourceBL)
	return httpapi.WriteJSON(w, r, http.StatusOK, "", c)
}
