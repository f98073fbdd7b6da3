package server

import (
	"encoding/json"
	"maps"
	"slices"
	"strings"

	"github.com/svc-geodata/svc/server/httpapi"
)

// exactMembers refuses a JSON object body with a member that is not, to
// the letter, a property of the declared schema: encoding/json matches
// struct fields without regard to case and would fill customer_name from
// "Customer_Name". A body that is no object is left to the decoder.
func (s *Server) exactMembers(body []byte, schema string) error {
	var members map[string]json.RawMessage
	if json.Unmarshal(body, &members) != nil {
		return nil
	}
	sc, _ := s.schemas[schema].(obj)
	props, _ := sc["properties"].(obj)
	for name := range members {
		if _, ok := props[name]; !ok {
			names := slices.Sorted(maps.Keys(props))
			return httpapi.Report(httpapi.ErrInvalid, "Body has an unknown member %q; the members are %s (names are case-sensitive).",
				httpapi.Clip(name), strings.Join(names, ", "))
		}
	}
	return nil
}
