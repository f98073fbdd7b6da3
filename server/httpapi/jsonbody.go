package httpapi

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"strings"
)

// ReadJSONBody reads a JSON request body of at most limit bytes.
func ReadJSONBody(r *http.Request, limit int64) ([]byte, error) {
	mt, _, err := mime.ParseMediaType(r.Header.Get("Content-Type"))
	if err != nil || mt != "application/json" && !strings.HasSuffix(mt, "+json") {
		return nil, Report(ErrMediaType, "The request body must be sent as application/json or application/geo+json.")
	}
	body, err := io.ReadAll(io.LimitReader(r.Body, limit+1))
	if err != nil {
		return nil, Report(ErrMalformed, "The request body could not be read.")
	}
	if int64(len(body)) > limit {
		return nil, Report(ErrTooLarge, "The request body exceeds %d bytes.", limit)
	}
	return body, nil
}

// JSONReason shortens a decoding error for a problem detail.
func JSONReason(err error) string {
	var se *json.SyntaxError
	var te *json.UnmarshalTypeError
	switch {
	case errors.As(err, &se):
		return fmt.Sprintf("invalid JSON at byte %d", se.Offset)
	case errors.As(err, &te):
		return fmt.Sprintf("a %s where a %s belongs", te.Value, te.Type)
	}
	return strings.TrimPrefix(err.Error(), "json: ")
}
