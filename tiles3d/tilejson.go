package tiles3d

import (
	"encoding/json"
	"maps"
	"math"
	"slices"
	"strconv"
)

// The tile trees are written with appendTile rather than encoding/json's
// reflection (about 4x faster, which an incremental build of a few leaves
// notices: it writes the tileset files of the whole tree to compare them
// with the previous build's). The bytes are those json.Marshal writes for
// the same values (TestAppendTileMatchesJSON): key order, number format and
// string escapes; anything unusual (a bounding volume other than a region)
// goes through json.Marshal.

// marshalTileset returns the JSON of doc, as json.Marshal(doc) would.
func marshalTileset(doc tilesetJSON) ([]byte, error) {
	asset, err := json.Marshal(doc.Asset)
	if err != nil {
		return nil, err
	}
	b := append(append([]byte(`{"asset":`), asset...), `,"geometricError":`...)
	if b, err = appendFloat(b, doc.GeometricError); err != nil {
		return nil, err
	}
	b = append(b, `,"root":`...)
	if doc.Root == nil {
		b = append(b, "null"...)
	} else if b, err = appendTile(b, doc.Root); err != nil {
		return nil, err
	}
	if len(doc.Schema) > 0 {
		schema, err := json.Marshal(doc.Schema)
		if err != nil {
			return nil, err
		}
		b = append(append(b, `,"schema":`...), schema...)
	}
	return append(b, '}'), nil
}

// appendTile appends the JSON of t and its descendants.
func appendTile(b []byte, t *tileJSON) ([]byte, error) {
	var err error
	b = append(b, '{')
	if len(t.Transform) > 0 {
		b = append(b, `"transform":`...)
		if b, err = appendFloats(b, t.Transform); err != nil {
			return nil, err
		}
		b = append(b, ',')
	}
	b = append(b, `"boundingVolume":`...)
	if b, err = appendVolume(b, t.BoundingVolume); err != nil {
		return nil, err
	}
	b = append(b, `,"geometricError":`...)
	if b, err = appendFloat(b, t.GeometricError); err != nil {
		return nil, err
	}
	if t.Refine != "" {
		b = appendString(append(b, `,"refine":`...), t.Refine)
	}
	if t.Content != nil {
		b = append(appendString(append(b, `,"content":{"uri":`...), t.Content.URI), '}')
	}
	if len(t.Children) > 0 {
		b = append(b, `,"children":[`...)
		for i, c := range t.Children {
			if i > 0 {
				b = append(b, ',')
			}
			if c == nil {
				b = append(b, "null"...)
			} else if b, err = appendTile(b, c); err != nil {
				return nil, err
			}
		}
		b = append(b, ']')
	}
	return append(b, '}'), nil
}

// appendVolume appends a bounding volume: {"region":[...]} directly, any
// other through json.Marshal.
func appendVolume(b []byte, v map[string]any) ([]byte, error) {
	if r, ok := v["region"].([]float64); ok && len(v) == 1 && r != nil {
		b, err := appendFloats(append(b, `{"region":`...), r)
		return append(b, '}'), err
	}
	j, err := json.Marshal(v)
	return append(b, j...), err
}

func appendFloats(b []byte, v []float64) ([]byte, error) {
	b = append(b, '[')
	var err error
	for i, x := range v {
		if i > 0 {
			b = append(b, ',')
		}
		if b, err = appendFloat(b, x); err != nil {
			return nil, err
		}
	}
	return append(b, ']'), nil
}

// appendFloat formats f as encoding/json does (its floatEncoder, 64 bits):
// the shortest representation, exponent form below 1e-6 and from 1e21,
// "e-07" written "e-7"; NaN and infinities are an error.
func appendFloat(b []byte, f float64) ([]byte, error) {
	if math.IsInf(f, 0) || math.IsNaN(f) {
		return nil, &json.UnsupportedValueError{Str: strconv.FormatFloat(f, 'g', -1, 64)}
	}
	abs := math.Abs(f)
	format := byte('f')
	if abs != 0 && (abs < 1e-6 || abs >= 1e21) {
		format = 'e'
	}
	b = strconv.AppendFloat(b, f, format, -1, 64)
	if format == 'e' {
		if n := len(b); n >= 4 && b[n-4] == 'e' && b[n-3] == '-' && b[n-2] == '0' {
			b[n-2] = b[n-1]
			b = b[:n-1]
		}
	}
	return b, nil
}

// appendString appends s quoted: as is when it holds only characters
// encoding/json writes unescaped and that need no HTML escape, else
// through json.Marshal.
func appendString(b []byte, s string) []byte {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c < 0x20 || c >= 0x7f || c == '"' || c == '\\' || c == '<' || c == '>' || c == '&' {
			j, _ := json.Marshal(s)
			return append(b, j...)
		}
	}
	return append(append(append(b, '"'), s...), '"')
}

// marshalInputs returns the JSON of an InputsFile, as json.Marshal(doc)
// would (map keys sorted), with the tiles written by appendTile.
func marshalInputs(doc inputsDoc) ([]byte, error) {
	b := []byte{'{'}
	if doc.Version != "" {
		b = append(appendString(append(b, `"version":`...), doc.Version), ',')
	}
	b = append(appendString(append(b, `"recipe":`...), doc.Recipe), `,"tiles":`...)
	if doc.Tiles == nil {
		return append(b, "null}"...), nil
	}
	b = append(b, '{')
	var err error
	for i, k := range slices.Sorted(maps.Keys(doc.Tiles)) {
		if i > 0 {
			b = append(b, ',')
		}
		if b, err = appendEntry(append(appendString(b, k), ':'), doc.Tiles[k]); err != nil {
			return nil, err
		}
	}
	return append(b, "}}"...), nil
}

// appendEntry appends the JSON of a reuseEntry (its fields' order and
// omitempty rules).
func appendEntry(b []byte, e reuseEntry) ([]byte, error) {
	b = appendString(append(b, `{"inputs":`...), e.Inputs)
	for _, f := range [][2]string{{"sources", e.Sources}, {"own", e.Own}, {"edge", e.Edge}} {
		if f[1] != "" {
			b = appendString(append(append(append(b, `,"`...), f[0]...), `":`...), f[1])
		}
	}
	if len(e.Tiles) > 0 {
		b = append(b, `,"tiles":{`...)
		var err error
		for i, k := range slices.Sorted(maps.Keys(e.Tiles)) {
			if i > 0 {
				b = append(b, ',')
			}
			b = append(appendString(b, k), ':')
			if t := e.Tiles[k]; t == nil {
				b = append(b, "null"...)
			} else if b, err = appendTile(b, t); err != nil {
				return nil, err
			}
		}
		b = append(b, '}')
	}
	if e.Count != 0 {
		b = strconv.AppendInt(append(b, `,"count":`...), e.Count, 10)
	}
	return append(b, '}'), nil
}
