// Package schemacheck checks decoded JSON values against the JSON Schema
// subset svc's OpenAPI documents use, for the tests that hold the server to
// its declarations: $ref into components.schemas, type (one or a list),
// enum, properties, required, additionalProperties: false, items,
// minItems, maxItems, oneOf and anyOf. Formats are not checked.
package schemacheck

import (
	"fmt"
	"math"
	"slices"
	"strings"
)

// Conforms reports the first place where v (as encoding/json decodes into
// any) breaks schema, a schema object of the document whose
// components.schemas is comps; nil when it conforms.
func Conforms(v, schema any, comps map[string]any) error {
	return conforms(v, schema, comps, "$")
}

func conforms(v, schema any, comps map[string]any, at string) error {
	s, _ := schema.(map[string]any)
	if s == nil {
		return nil
	}
	if r, ok := s["$ref"].(string); ok {
		return conforms(v, comps[strings.TrimPrefix(r, "#/components/schemas/")], comps, at)
	}
	if err := alternatives(v, s, comps, at); err != nil {
		return err
	}
	if enum, ok := s["enum"].([]any); ok && v != nil {
		if !slices.ContainsFunc(enum, func(e any) bool { return fmt.Sprint(e) == fmt.Sprint(v) }) {
			return fmt.Errorf("%s: %v is not one of %v", at, v, enum)
		}
	}
	var types []string
	switch t := s["type"].(type) {
	case string:
		types = []string{t}
	case []any:
		for _, x := range t {
			types = append(types, fmt.Sprint(x))
		}
	case []string:
		types = t
	}
	if len(types) > 0 && !slices.ContainsFunc(types, func(t string) bool { return isType(v, t) }) {
		return fmt.Errorf("%s: %T value %.80v is not %v", at, v, v, types)
	}
	switch x := v.(type) {
	case map[string]any:
		return object(x, s, comps, at)
	case []any:
		if n, ok := number(s["minItems"]); ok && float64(len(x)) < n {
			return fmt.Errorf("%s: %d items, at least %g", at, len(x), n)
		}
		if n, ok := number(s["maxItems"]); ok && float64(len(x)) > n {
			return fmt.Errorf("%s: %d items, at most %g", at, len(x), n)
		}
		for i, it := range x {
			if err := conforms(it, s["items"], comps, fmt.Sprintf("%s[%d]", at, i)); err != nil {
				return err
			}
		}
	}
	return nil
}

// alternatives checks oneOf (exactly one branch) and anyOf (at least one).
func alternatives(v any, s map[string]any, comps map[string]any, at string) error {
	for _, key := range []string{"oneOf", "anyOf"} {
		branches, ok := s[key].([]any)
		if !ok {
			continue
		}
		n := 0
		for _, b := range branches {
			if conforms(v, b, comps, at) == nil {
				n++
			}
		}
		if n == 0 || key == "oneOf" && n > 1 {
			return fmt.Errorf("%s: %.80v matches %d of the %s branches", at, v, n, key)
		}
	}
	return nil
}

func object(x map[string]any, s map[string]any, comps map[string]any, at string) error {
	props, _ := s["properties"].(map[string]any)
	var required []string
	switch r := s["required"].(type) {
	case []any:
		for _, n := range r {
			required = append(required, fmt.Sprint(n))
		}
	case []string:
		required = r
	}
	for _, r := range required {
		if _, has := x[r]; !has {
			return fmt.Errorf("%s: required member %v missing", at, r)
		}
	}
	for k, val := range x {
		ps, declared := props[k]
		if !declared {
			if ap, ok := s["additionalProperties"].(bool); ok && !ap {
				return fmt.Errorf("%s: member %q is not declared", at, k)
			}
			continue
		}
		if err := conforms(val, ps, comps, at+"."+k); err != nil {
			return err
		}
	}
	return nil
}

func number(v any) (float64, bool) {
	switch n := v.(type) {
	case float64:
		return n, true
	case int:
		return float64(n), true
	}
	return 0, false
}

func isType(v any, t string) bool {
	switch t {
	case "null":
		return v == nil
	case "object":
		_, ok := v.(map[string]any)
		return ok
	case "array":
		_, ok := v.([]any)
		return ok
	case "string":
		_, ok := v.(string)
		return ok
	case "boolean":
		_, ok := v.(bool)
		return ok
	case "number":
		_, ok := v.(float64)
		return ok
	case "integer":
		f, ok := v.(float64)
		return ok && f == math.Trunc(f)
	}
	return false
}
