package server

import (
	"fmt"

	"github.com/svc-geodata/svc/server/apidoc"
	"github.com/svc-geodata/svc/server/dataapi"
	"github.com/svc-geodata/svc/server/keysadmin"
	"github.com/svc-geodata/svc/server/ogcapi"
	"github.com/svc-geodata/svc/server/opentopo"
	"github.com/svc-geodata/svc/server/terrainapi"
)

// obj is a JSON object of the OpenAPI document.
type obj = apidoc.Obj

// components are the components of the OpenAPI documents: the schemas each
// surface declares for its routes (its Schemas), the ones the server's own
// routes and several surfaces share, the response headers and the security
// schemes. A schema name declared twice is an error: one of the two would
// describe the routes of the other.
func components() (obj, error) {
	shared := obj{
		"Problem": obj{"type": "object", "description": "RFC 9457 problem detail; extension members may follow.",
			"required": []string{"type", "title", "status", "detail", "instance"},
			"properties": obj{"type": apidoc.StrF("uri", "{errors_base}/<name>"), "title": apidoc.Str(""), "status": apidoc.Int("HTTP status"),
				"detail": apidoc.Str("what went wrong, naming the parameter"), "instance": apidoc.Str("request path; empty for a request the server could not parse (400 malformed, 431)"),
				"retry_after": apidoc.Int("seconds until the limit resets (429 only)"), "limit": apidoc.Int("the exhausted limit (keyless 429)"),
				"key_url": apidoc.StrF("uri", "where to get a key (keyless 429)"), "docs_url": apidoc.StrF("uri", "documentation (keyless 429)")},
			"additionalProperties": true},
		"Healthz":         apidoc.Object("", nil, obj{"status": apidoc.Str("`ok` while the process runs"), "service": apidoc.Str("service name")}),
		"OpenAPIDocument": obj{"type": "object", "description": "An OpenAPI 3.1 document"},
		"Readiness": apidoc.Object("Readiness report", []string{"status", "published_packs", "problems"}, obj{
			"status": apidoc.Enum("", "ready", "degraded", "not-ready"), "published_packs": apidoc.Int("packs being served"),
			"problems": apidoc.Array(apidoc.Str(""), "what is degraded or missing, one line each")}),
		"AttributionEntry": apidoc.Object("Attribution of one BL in a response (SPEC 2.6)", nil, obj{
			"source": apidoc.Str("authority or geodata agency"), "license": apidoc.Enum("", "DL-DE/Zero 2.0", "CC BY 4.0", "DL-DE BY 2.0"),
			"url": apidoc.StrF("uri", "licence URL"), "tiles_count": apidoc.Int("always 1 on the building search")}),
	}
	schemas, err := mergeSchemas(shared, dataapi.Schemas(), terrainapi.Schemas(), ogcapi.Schemas(), opentopo.Schemas(), keysadmin.Schemas())
	if err != nil {
		return nil, err
	}
	headers := obj{
		"Cache-Control":       obj{"schema": obj{"type": "string"}, "description": "public, max-age=300"},
		"Retry-After":         obj{"schema": obj{"type": "integer"}, "description": "seconds to wait before retrying: until the limit resets (429), or until the server expects to answer (503)"},
		"X-Keyless-Remaining": obj{"schema": obj{"type": "integer"}, "description": "remaining keyless requests today for this IP"},
		"Content-Crs":         obj{"schema": obj{"type": "string"}, "description": "CRS of the coordinates, as <URI> (OGC API Features Part 2)"},
	}
	for k, v := range dataapi.GLBHeaderDocs() {
		headers[k] = v
	}
	return obj{"schemas": schemas, "headers": headers, "securitySchemes": obj{
		"apiKey":     obj{"type": "apiKey", "in": "header", "name": "X-API-Key", "description": "Optional on data endpoints; lifts the keyless limit."},
		"adminToken": obj{"type": "apiKey", "in": "header", "name": "X-Svc-Admin-Token", "description": "The server's admin token (or Authorization: Bearer)."},
	}}, nil
}

// mergeSchemas adds the schemas of each surface to shared; a name declared
// twice is an error naming it.
func mergeSchemas(shared obj, surfaces ...obj) (obj, error) {
	for _, surface := range surfaces {
		for name, sc := range surface {
			if _, ok := shared[name]; ok {
				return nil, fmt.Errorf("server: component schema %s is declared twice", name)
			}
			shared[name] = sc
		}
	}
	return shared, nil
}
