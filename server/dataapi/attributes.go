package dataapi

import (
	"encoding/json"
	"errors"
	"net/http"

	"github.com/svc-geodata/svc/buildings"
	"github.com/svc-geodata/svc/lod2store"
	"github.com/svc-geodata/svc/server/httpapi"
)

// maxAddressQuery bounds the text of an address search (a postal address
// is well under 200 bytes).
const maxAddressQuery = 200

// AttributeRoutes are the attribute and address routes (issue 25): the
// stored attributes of one building and the address lookup.
func AttributeRoutes(env Env) []httpapi.Route {
	s := &surface{env}
	return []httpapi.Route{
		{Method: "GET", Path: "/v1/buildings/{gmlid}/attributes", OpID: "getBuildingAttributes", Tag: "Buildings", Stability: "beta", Since: "0.3.0",
			Summary: "All attributes of one building and its parts, with derived measures",
			Desc: "The LoD2-DE attributes as imported (docs/buildings-attributes.md): function and roof type as code with codeSpace and " +
				"the AdV code list's German and English label (no label for codes outside the AdV lists, such as Berlin's own), " +
				"measured height, storeys, creation date, the municipality and data-source generic attributes in their own members, " +
				"every generic attribute as written, every address; the same for each building part (`parts`, in file order, with " +
				"the gml:id of the building or part holding it). `measures` are derived from the geometry of the building with all " +
				"its parts, with units: footprint area (m², UTM), ground, eaves and ridge height (m, DHHN2016), height (ridge - " +
				"ground), roof area per tilt class (flat < 10°, low < 30°, medium < 45°, steep), wall area, volume (null with " +
				"`volume_reason` when a shell is not closed). Absent values are null. The BL is found as for /v1/buildings/{gmlid}.",
			Params: []httpapi.Param{{Name: "gmlid", In: "path", Type: "string", Required: true, Example: "DENW49AL0000LI95",
				Desc: "gml:id of the building or of one of its parts"}},
			Responses: []httpapi.Response{{Status: 200, Desc: "The building's attributes", Schema: "BuildingAttributes"}, httpapi.Resp404},
			Handle:    s.handleAttributes},
		{Method: "GET", Path: "/v1/addresses", OpID: "searchAddresses", Tag: "Buildings", Stability: "beta", Since: "0.3.0",
			Summary: "Find buildings by postal address",
			Desc: "Looks an address up in the address index of every published BL (built at import from the buildings' " +
				"`bldg:address`; Berlin and Bavaria deliver addresses, most states none). `q` is free text in the German order " +
				"`street number, postcode city`; commas are optional. Spelling is forgiven: case, umlauts and ß (`Muellerstrasse` = " +
				"`Müllerstraße`), hyphens, spaces and dots, `Str.`/`Strasse`/`Straße`, and a street misspelt by up to a quarter of its " +
				"letters. A house number matches itself and its letter suffixes (`5` finds `5a`, not `51`); postcode or city raise " +
				"the score of the matching addresses. Answers the matching buildings, best first, each with its gml:id, BL, " +
				"the address as stored, a point (WGS84, the centre of the building's bounding box) and a score (1 a perfect match).",
			Params: []httpapi.Param{
				{Name: "q", In: "query", Type: "string", Required: true, Example: "Gitschiner Str. 81, Berlin", Parse: parseAddressQuery,
					Desc: "street and house number, optionally postcode and city"},
				{Name: "limit", In: "query", Type: "integer", Default: 10, Min: httpapi.F64(1), Max: httpapi.F64(50), Desc: "most matches answered"},
			},
			Responses: []httpapi.Response{{Status: 200, Desc: "Matching buildings, best first", Schema: "AddressSearchResponse"},
				{Status: 400, Desc: "q names no street", Schema: "Problem"}, httpapi.Resp422},
			Handle: s.handleAddresses},
	}
}

// parseAddressQuery parses q (see lod2store.ParseAddress).
func parseAddressQuery(q string) (any, error) {
	if len(q) > maxAddressQuery {
		return nil, httpapi.SyntaxFault("is longer than %d bytes.", maxAddressQuery)
	}
	a, err := lod2store.ParseAddress(q)
	if err != nil {
		return nil, httpapi.SyntaxFault("names no street: give `street number, postcode city`, the street first.")
	}
	return a, nil
}

func (s *surface) handleAttributes(w http.ResponseWriter, r *http.Request, in *httpapi.Input) error {
	gmlid := in.Str("gmlid")
	v, release := s.Catalog.Acquire()
	defer release()
	src, a, err := buildings.Attributes(r.Context(), buildings.Sources(v), gmlid)
	if errors.Is(err, lod2store.ErrNotFound) {
		return notFound(gmlid)
	}
	if err != nil {
		return err
	}
	body, err := json.Marshal(buildings.AttributesBody(src.BL, a))
	if err != nil {
		return err
	}
	s.writeBuildingBodyAs(w, r, v, src.BL, "application/json", append(body, '\n'))
	return nil
}

func (s *surface) handleAddresses(w http.ResponseWriter, r *http.Request, in *httpapi.Input) error {
	q, limit := httpapi.ParsedAs[lod2store.AddressQuery](in, "q"), in.Integer("limit")
	v, release := s.Catalog.Acquire()
	defer release()
	hits, err := lod2store.FindAddressesIn(r.Context(), buildings.Sources(v), q, limit)
	if err != nil {
		return err
	}
	body, err := json.Marshal(buildings.AddressBody(q, hits))
	if err != nil {
		return err
	}
	w.Header()["Content-Type"] = hdrJSON
	_, _ = w.Write(append(body, '\n'))
	return nil
}
