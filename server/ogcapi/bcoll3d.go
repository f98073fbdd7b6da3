package ogcapi

import (
	"bytes"
	"net/http"
	"strconv"

	"github.com/svc-geodata/svc/geo"
	"github.com/svc-geodata/svc/lod2store"
	"github.com/svc-geodata/svc/server/httpapi"
)

// The profiles of the buildings collection (issue 25 point 2): which
// geometry a building feature carries. The properties, ids, paging, bbox
// and CQL2 are the same in both; a spatial filter and bbox always test the
// footprint (the queryable geometry), whatever the profile.
const (
	// profileFootprint is the default: the ground surfaces, 2D MultiPolygon.
	profileFootprint = "footprint"
	// profileLoD2 answers every LoD2 surface of the building (walls,
	// roofs, ground, closure surfaces, its parts' included) as one
	// GeoJSON MultiPolygon Z, one polygon per surface polygon, heights as
	// stored: DHHN2016 normal heights (EPSG:7837), not ellipsoidal.
	profileLoD2 = "lod2"
)

// profileURIs identify the profiles in the Link rel="profile" header and
// link (RFC 6906: an identifier, the same on every server; it resolves to
// the documentation of the profile).
var profileURIs = map[string]string{
	profileFootprint: "https://github.com/svc-geodata/svc/blob/main/docs/buildings-attributes.md#profile-footprint",
	profileLoD2:      "https://github.com/svc-geodata/svc/blob/main/docs/buildings-attributes.md#profile-lod2",
}

// MaxLoD2Limit is the largest page of the LoD2 profile: a building's
// surfaces are about three times its footprint's bytes (a page of 1,000
// real buildings is about 3.7 MB), so a larger limit gives a
// server-limited page of this many, as limit above MaxLimit does.
const MaxLoD2Limit = 1000

// dhhn2016URI is the vertical CRS of the stored heights (LoD2-DE: normal
// heights in DHHN2016, EPSG:7837).
const dhhn2016URI = "http://www.opengis.net/def/crs/EPSG/0/7837"

// profileParam is the profile query parameter of the items and item routes.
func profileParam() httpapi.Param {
	return httpapi.Param{Name: "profile", In: "query", Type: "string", Enum: []string{profileFootprint, profileLoD2}, Default: profileFootprint, Component: "profile",
		Desc: "geometry of a building of the `buildings` collection (other collections refuse the parameter): `footprint` " +
			"(default) its ground surfaces as a 2D MultiPolygon; `lod2` all its LoD2 surfaces (walls, roofs, ground, closure " +
			"surfaces, its parts' included) as one MultiPolygon Z, one polygon per surface polygon, the third coordinate the " +
			"stored height in metres DHHN2016 (normal heights, EPSG:7837; not ellipsoidal heights, so not the WGS84 heights " +
			"RFC 7946 describes), in every `crs`. `Content-Crs` then names the compound CRS (the horizontal `crs` + DHHN2016) " +
			"and `Link: <...>; rel=\"profile\"` the profile. bbox, filter, sortby and paging are the same in both profiles; " +
			"spatial tests are on the footprint. A `lod2` page holds at most 1000 buildings (a larger `limit` gives a server-limited " +
			"page with a `next` link, as a limit above its maximum does). On the collection document it makes the `items` links ask for the profile, " +
			"so a client that forwards the query of a collection URL to every request reads 3D buildings (GDAL: " +
			"`OAPIF:https://host/ogc/collections/buildings?profile=lod2`)."}
}

// refuseProfile answers 400 when a collection other than buildings gets
// the profile parameter.
func refuseProfile(in *httpapi.Input, c ogcCollection) error {
	if !c.whole && in.Has("profile") {
		return httpapi.Report(httpapi.ErrMalformed, "Parameter profile applies to the %s collection; %s has one geometry.", collWhole, c.id)
	}
	return nil
}

// wholeProfile is the profile an answer of the buildings collection is in.
func wholeProfile(in *httpapi.Input) string {
	if in.Str("profile") == profileLoD2 {
		return profileLoD2
	}
	return profileFootprint
}

// setProfileHeaders writes Content-Crs (compound with DHHN2016 in the LoD2
// profile) and the profile link.
func setProfileHeaders(h http.Header, crs geo.CRS, profile string) {
	if profile == profileLoD2 {
		h.Set("Content-Crs", "<http://www.opengis.net/def/crs-compound?1="+crs.URI()+"&2="+dhhn2016URI+">")
		h.Add("Link", "<"+profileURIs[profile]+`>; rel="profile"`)
		return
	}
	h.Set("Content-Crs", "<"+crs.URI()+">")
}

// withProfileLink appends the profile link of an answer in the LoD2
// profile (the default footprint answer stays as it was before profiles).
func withProfileLink(links []ogcLink, profile string) []ogcLink {
	if profile != profileLoD2 {
		return links
	}
	return append(links, ogcLink{Href: profileURIs[profile], Rel: "profile", Title: "the LoD2 profile: every surface as MultiPolygon Z, heights DHHN2016"})
}

// writeSolid writes f's surfaces as a MultiPolygon Z in crs: x, y as the
// footprint's, z in metres with 3 decimals.
func writeSolid(b *bytes.Buffer, f *wholeFeature, crs geo.CRS) {
	if len(f.solid) == 0 {
		b.WriteString("null")
		return
	}
	writeMultiPolygon(b, f.solid, f.zone, crs, func(b *bytes.Buffer, p [3]float64) {
		b.WriteByte(',')
		b.WriteString(strconv.FormatFloat(roundTo(p[2], 3), 'f', -1, 64))
	})
}

// writeMultiPolygon writes polys (UTM of zone) as a GeoJSON MultiPolygon in
// crs, 8 decimals for degrees and 3 for metres; z writes what follows x, y
// of a point (nothing for a 2D footprint, ",z" for the surfaces).
func writeMultiPolygon[P [2]float64 | [3]float64](b *bytes.Buffer, polys [][][]P, zone geo.Zone, crs geo.CRS, z func(*bytes.Buffer, P)) {
	prec := 8
	if crs.Projected() {
		prec = 3
	}
	b.WriteString(`{"type":"MultiPolygon","coordinates":[`)
	for i, poly := range polys {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteByte('[')
		for j, ring := range poly {
			if j > 0 {
				b.WriteByte(',')
			}
			b.WriteByte('[')
			for k, p := range ring {
				if k > 0 {
					b.WriteByte(',')
				}
				b.WriteByte('[')
				writeXY(b, zone, crs, prec, p[0], p[1])
				z(b, p)
				b.WriteByte(']')
			}
			b.WriteByte(']')
		}
		b.WriteByte(']')
	}
	b.WriteString(`]}`)
}

// writeXY writes x, y (UTM of zone) in crs with prec decimals, as "x,y".
func writeXY(b *bytes.Buffer, zone geo.Zone, crs geo.CRS, prec int, x, y float64) {
	if crs.EPSG != zone.EPSG() {
		lon, lat := geo.FromUTM(zone, x, y)
		x, y = crs.FromWGS84(lon, lat)
	}
	b.WriteString(strconv.FormatFloat(roundTo(x, prec), 'f', -1, 64))
	b.WriteByte(',')
	b.WriteString(strconv.FormatFloat(roundTo(y, prec), 'f', -1, 64))
}

// appendSolid appends the polygons of sf to solid, copied (the store
// reuses its buffers between buildings).
func appendSolid(solid [][][][3]float64, sf lod2store.Surface3D) [][][][3]float64 {
	start := 0
	for _, ends := range sf.Ends {
		poly := make([][][3]float64, 0, len(ends))
		for _, end := range ends {
			ring := make([][3]float64, 0, (end-start)/3)
			for k := start; k+2 < end; k += 3 {
				ring = append(ring, [3]float64{sf.Flat[k], sf.Flat[k+1], sf.Flat[k+2]})
			}
			poly = append(poly, ring)
			start = end
		}
		solid = append(solid, poly)
	}
	return solid
}

// profileItemsLinks makes the items links of a collection document ask for
// profile: a client that keeps the query of the collection URL (GDAL's
// OAPIF driver forwards it to every request) then reads the features in
// that profile.
func profileItemsLinks(doc map[string]any, profile string) {
	links, _ := doc["links"].([]ogcLink)
	for i := range links {
		if links[i].Rel == "items" {
			links[i].Href += "&profile=" + profile
		}
	}
}
