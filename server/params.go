package server

import (
	"encoding/base64"
	"errors"
	"net/url"
	"strconv"
	"strings"

	"github.com/svc-geodata/svc/bl"
	"github.com/svc-geodata/svc/geo"
	"github.com/svc-geodata/svc/store"
)

// parseBBoxParam reads the required WGS84 bbox query parameter; every
// failure is a 400 naming the expected form (SPEC 4.4 rule 4).
func parseBBoxParam(q url.Values) (geo.BBox, error) {
	raw, ok := q["bbox"]
	if !ok || len(raw) == 0 || raw[0] == "" {
		return geo.BBox{}, badRequest("Parameter bbox is required: %s in WGS84 degrees, e.g. bbox=8.68,50.11,8.69,50.12.", geo.BBoxForm)
	}
	if len(raw) > 1 {
		return geo.BBox{}, badRequest("Parameter bbox is given %d times; send it once as %s.", len(raw), geo.BBoxForm)
	}
	b, err := geo.ParseBBox(raw[0])
	if err != nil {
		return geo.BBox{}, badRequest("Parameter bbox: %v", err)
	}
	return b, nil
}

// parseIntParam reads an optional integer parameter within [lo, hi]; any
// failure is a 422 naming the parameter and its range.
func parseIntParam(q url.Values, name string, def, lo, hi int) (int, error) {
	s := q.Get(name)
	if s == "" {
		if _, present := q[name]; present {
			return 0, invalid("Parameter %s is empty; it must be an integer from %d to %d.", name, lo, hi)
		}
		return def, nil
	}
	v, ok := decimalInt(s)
	if !ok || v < lo || v > hi {
		return 0, invalid("Parameter %s must be an integer from %d to %d, not %q.", name, lo, hi, clip(s))
	}
	return v, nil
}

// clip shortens echoed input so a problem body never grows with a request.
func clip(s string) string {
	if len(s) > 32 {
		return s[:32] + "…"
	}
	return s
}

// maxCursorLen bounds the cursor parameter: "nrw:" plus 19 digits is 32
// characters in base64.
const maxCursorLen = 64

var errPreFederation = errors.New("pre-federation cursor")

// decodeCursor parses an opaque cursor: base64 (URL-safe or standard, with
// or without padding) of "<bl>:<surface_id>".
func decodeCursor(s string) (store.Position, error) {
	if len(s) > maxCursorLen {
		return store.Position{}, errors.New("too long")
	}
	var raw []byte
	var err error
	for _, enc := range []*base64.Encoding{base64.RawURLEncoding, base64.URLEncoding, base64.StdEncoding, base64.RawStdEncoding} {
		if raw, err = enc.DecodeString(s); err == nil {
			break
		}
	}
	if err != nil {
		return store.Position{}, errors.New("not base64")
	}
	code, id, ok := strings.Cut(string(raw), ":")
	if !ok {
		// The old format was a bare decimal surface id; anything else
		// without a BL part is simply not a cursor.
		if _, isDecimal := decimalInt(string(raw)); isDecimal && len(raw) > 0 && raw[0] != '-' {
			return store.Position{}, errPreFederation
		}
		return store.Position{}, errors.New("no BL part")
	}
	if st, found := bl.Lookup(code); !found || st.Code != code {
		return store.Position{}, errors.New("unknown BL")
	}
	n, err := strconv.ParseInt(id, 10, 64)
	if err != nil || n <= 0 || strconv.FormatInt(n, 10) != id {
		return store.Position{}, errors.New("bad surface id")
	}
	return store.Position{BL: code, SurfaceID: n}, nil
}

func encodeCursor(p store.Position) string {
	return base64.RawURLEncoding.EncodeToString([]byte(p.BL + ":" + strconv.FormatInt(p.SurfaceID, 10)))
}

// decimalInt parses an integer written as digits with an optional leading
// '-': no '+', no spaces, no underscores, at most 18 digits.
func decimalInt(s string) (int, bool) {
	d := strings.TrimPrefix(s, "-")
	if d == "" || len(d) > 18 || strings.TrimLeft(d, "0123456789") != "" {
		return 0, false
	}
	v, err := strconv.Atoi(s)
	return v, err == nil
}
