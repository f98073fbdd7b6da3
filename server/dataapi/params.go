package dataapi

import (
	"bytes"
	"encoding/base64"
	"errors"
	"strconv"
	"strings"

	"github.com/svc-geodata/svc/bl"
	"github.com/svc-geodata/svc/geo"
	"github.com/svc-geodata/svc/lod2store"
	"github.com/svc-geodata/svc/server/httpapi"
)

// BBoxParam declares the WGS84 bbox of the /v1 routes.
func BBoxParam(required bool, example, desc string) httpapi.Param {
	return httpapi.Param{Name: "bbox", In: "query", Type: "string", Required: required, Example: example, Desc: desc, Parse: parseBBox}
}

// parseBBox reads minLon,minLat,maxLon,maxLat; every failure is a syntax
// fault naming the expected form (SPEC 4.4 rule 4: 400).
func parseBBox(s string) (any, error) {
	b, err := geo.ParseBBox(s)
	var be *geo.BBoxError
	if errors.As(err, &be) {
		return nil, httpapi.SyntaxFault("%s; expected %s in WGS84 degrees, e.g. bbox=8.68,50.11,8.69,50.12.", be.Reason, geo.BBoxForm)
	}
	return b, err
}

// maxCursorLen bounds the cursor parameter: "nrw:" plus 19 digits is 32
// characters in base64.
const maxCursorLen = 64

var errPreFederation = errors.New("pre-federation cursor")

// ParseCursor reads the search cursor (SPEC 10 rule 7: the
// pre-federation form is 400).
func ParseCursor(s string) (any, error) {
	p, err := decodeCursor(s)
	switch {
	case errors.Is(err, errPreFederation):
		return nil, httpapi.SyntaxFault("is in the pre-federation format, which is no longer accepted; restart the search without a cursor.")
	case err != nil:
		return nil, httpapi.SyntaxFault("is invalid: not a cursor this service issued (%v); pass `svc.next` of the previous page unchanged.", err)
	}
	return p, nil
}

// decodeCursor parses an opaque cursor: base64 (URL-safe or standard, with
// or without padding) of "<bl>:<surface_id>".
func decodeCursor(s string) (lod2store.Position, error) {
	if len(s) > maxCursorLen {
		return lod2store.Position{}, errors.New("too long")
	}
	var raw []byte
	var err error
	for _, enc := range []*base64.Encoding{base64.RawURLEncoding, base64.URLEncoding, base64.StdEncoding, base64.RawStdEncoding} {
		if raw, err = enc.DecodeString(s); err == nil {
			break
		}
	}
	if err != nil {
		return lod2store.Position{}, errors.New("not base64")
	}
	code, id, ok := strings.Cut(string(raw), ":")
	if !ok {
		// The old format was a bare decimal surface id; anything else
		// without a BL part is simply not a cursor.
		if _, isDecimal := httpapi.DecimalInt(string(raw)); isDecimal && len(raw) > 0 && raw[0] != '-' {
			return lod2store.Position{}, errPreFederation
		}
		return lod2store.Position{}, errors.New("no BL part")
	}
	if st, found := bl.Lookup(code); !found || st.Code != code {
		return lod2store.Position{}, errors.New("unknown BL")
	}
	n, err := strconv.ParseInt(id, 10, 64)
	if err != nil || n <= 0 || strconv.FormatInt(n, 10) != id {
		return lod2store.Position{}, errors.New("bad surface id")
	}
	return lod2store.Position{BL: code, SurfaceID: n}, nil
}

func encodeCursor(p lod2store.Position) string {
	return base64.RawURLEncoding.EncodeToString([]byte(p.BL + ":" + strconv.FormatInt(p.SurfaceID, 10)))
}

// writeCursor writes encodeCursor(p) to b without allocating.
func writeCursor(b *bytes.Buffer, p lod2store.Position) {
	var raw [64]byte
	plain := strconv.AppendInt(append(append(raw[:0], p.BL...), ':'), p.SurfaceID, 10)
	b.Write(base64.RawURLEncoding.AppendEncode(b.AvailableBuffer(), plain))
}
