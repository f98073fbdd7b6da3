package apidoc

import "slices"

// Obj is a JSON object of the OpenAPI document: a schema, a header, a
// component table.
type Obj = map[string]any

// Schema builders: small helpers so that the component schemas each
// surface declares (its Schemas function) read like the tables of SPEC
// section 2. Each returns a new value.

// Str is a string schema.
func Str(desc string) Obj { return Obj{"type": "string", "description": desc} }

// StrF is a string schema of a format (date, date-time, uri, uuid, email).
func StrF(format, desc string) Obj {
	return Obj{"type": "string", "format": format, "description": desc}
}

// Int is an integer schema.
func Int(desc string) Obj { return Obj{"type": "integer", "description": desc} }

// Num is a number schema.
func Num(desc string) Obj { return Obj{"type": "number", "description": desc} }

// Bool is a boolean schema.
func Bool(desc string) Obj { return Obj{"type": "boolean", "description": desc} }

// Nullable is a schema of type t or null.
func Nullable(t, desc string) Obj {
	return Obj{"type": []string{t, "null"}, "description": desc}
}

// NullableF is a schema of type t in a format, or null.
func NullableF(t, format, desc string) Obj {
	return Obj{"type": []string{t, "null"}, "format": format, "description": desc}
}

// Array is an array of items.
func Array(items Obj, desc string) Obj {
	return Obj{"type": "array", "items": items, "description": desc}
}

// Enum is a string schema of the values.
func Enum(desc string, values ...string) Obj {
	return Obj{"type": "string", "enum": values, "description": desc}
}

// Object builds an object schema; required lists the required properties
// (nil: all of them, sorted).
func Object(desc string, required []string, props Obj) Obj {
	if required == nil {
		required = []string{}
		for k := range props {
			required = append(required, k)
		}
		slices.Sort(required)
	}
	return Obj{"type": "object", "description": desc, "required": required, "properties": props}
}

// Ref refers to the component schema name.
func Ref(name string) Obj { return Obj{"$ref": "#/components/schemas/" + name} }

// ListOf is an object holding the array key of the component schema item,
// and a count of its entries when withCount is set.
func ListOf(item, key string, withCount bool) Obj {
	props := Obj{key: Array(Ref(item), "")}
	if withCount {
		props["count"] = Int("number of entries")
	}
	return Object("", nil, props)
}

// BBox4 is a WGS84 bounding box of four numbers.
func BBox4() Obj {
	return Obj{"type": "array", "items": Obj{"type": "number"}, "minItems": 4, "maxItems": 4,
		"description": "minLon,minLat,maxLon,maxLat (WGS84)"}
}

// GeoJSON is a GeoJSON geometry of kind (Point, MultiPoint, LineString,
// Polygon, MultiPolygon; another kind has coordinates of any shape).
func GeoJSON(kind, desc string) Obj {
	position := Obj{"type": "array", "items": Obj{"type": "number"}, "minItems": 2, "maxItems": 3, "description": "lon, lat[, z]"}
	nest := func(o Obj, depth int) Obj {
		for range depth {
			o = Obj{"type": "array", "items": o}
		}
		return o
	}
	coords := map[string]Obj{"Point": position, "MultiPoint": nest(position, 1), "LineString": nest(position, 1),
		"Polygon": nest(position, 2), "MultiPolygon": nest(position, 3)}[kind]
	if coords == nil {
		coords = Obj{"type": "array", "items": Obj{}}
	}
	return Obj{"type": "object", "description": desc + " (RFC 7946, coordinates lon,lat[,z] WGS84)", "required": []string{"type", "coordinates"},
		"properties": Obj{"type": Enum("", kind), "coordinates": coords}}
}
