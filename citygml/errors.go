package citygml

import (
	"errors"
	"fmt"
)

// Sentinel errors. Errors returned by Reader wrap one of them inside an
// *Error that names the input and line.
var (
	// ErrSyntax reports malformed XML: truncated input, mismatched tags,
	// unknown entities, content after the root element.
	ErrSyntax = errors.New("citygml: syntax error")
	// ErrUnknownCRS reports an srsName that names no supported CRS
	// (ETRS89 / UTM zone 32N or 33N), or a building with no srsName at all.
	ErrUnknownCRS = errors.New("citygml: unknown CRS")
	// ErrMixedCRS reports two different CRSs inside one building.
	ErrMixedCRS = errors.New("citygml: mixed CRS in one building")
	// ErrCoordinates reports a bad number, a coordinate count that is not a
	// multiple of the dimension, or an unsupported srsDimension.
	ErrCoordinates = errors.New("citygml: invalid coordinates")
	// ErrTooLarge reports a building, token or nesting depth above the
	// reader's caps (MaxPoints, MaxTokenBytes, MaxDepth).
	ErrTooLarge = errors.New("citygml: input too large")
	// ErrEmpty reports an input with no root element.
	ErrEmpty = errors.New("citygml: empty input")
	// ErrNotCityGML reports a well-formed XML document that holds no
	// bldg:Building and whose root element is not a CityModel.
	ErrNotCityGML = errors.New("citygml: not a CityGML document")
	// ErrNoInput reports an empty input set from Inputs.
	ErrNoInput = errors.New("citygml: no CityGML input")
	// ErrZip reports a zip archive that cannot be read or an entry whose
	// compression method is unsupported.
	ErrZip = errors.New("citygml: bad zip archive")
)

// Error is a positioned error: Name is the input name given to NewReader,
// Line the 1-based line where the problem was found. errors.Is sees the
// wrapped sentinel (or I/O error).
type Error struct {
	Name string
	Line int
	Err  error
	Msg  string
}

// Error formats as "name:line: sentinel: detail".
func (e *Error) Error() string {
	if e.Msg == "" {
		return fmt.Sprintf("%s:%d: %v", e.Name, e.Line, e.Err)
	}
	return fmt.Sprintf("%s:%d: %v: %s", e.Name, e.Line, e.Err, e.Msg)
}

// Unwrap returns the wrapped sentinel or I/O error.
func (e *Error) Unwrap() error { return e.Err }
