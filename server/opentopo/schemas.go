package opentopo

import (
	"github.com/svc-geodata/svc/server/apidoc"
	"github.com/svc-geodata/svc/terrain"
)

// Schemas are the component schemas of the OpenAPI document the
// opentopodata routes take and answer with, by name.
func Schemas() apidoc.Obj {
	return apidoc.Obj{
		"OpenTopoDataRequest": apidoc.Obj{"type": "object", "description": "opentopodata POST parameters (JSON or form fields)",
			"properties": apidoc.Obj{
				"locations":     apidoc.Obj{"description": "`lat,lon|lat,lon` or [[lat, lon], ...]", "oneOf": []any{apidoc.Obj{"type": "string"}, apidoc.Obj{"type": "array", "items": apidoc.Obj{"type": "array", "items": apidoc.Obj{"type": "number"}, "minItems": 2, "maxItems": 2}}}},
				"interpolation": apidoc.Enum("", terrain.Interpolations...),
				"nodata_value":  apidoc.Obj{"type": []string{"string", "integer", "null"}, "description": "null or an integer"}},
			"example": apidoc.Obj{"locations": "50.115,8.67|50.116,8.672", "interpolation": "bilinear"}},
		"OpenTopoDataResult": apidoc.Object("opentopodata's answer", nil, apidoc.Obj{
			"results": apidoc.Array(apidoc.Object("", nil, apidoc.Obj{
				"dataset":   apidoc.Str(""),
				"elevation": apidoc.Nullable("number", "metres above NHN (DHHN2016), 3 decimals; null (or nodata_value) without a value"),
				"location":  apidoc.Object("", nil, apidoc.Obj{"lat": apidoc.Num(""), "lng": apidoc.Num("")})}), "input order"),
			"status": apidoc.Enum("", "OK")}),
	}
}
