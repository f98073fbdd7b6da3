package dataapi

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"testing"

	"github.com/svc-geodata/svc/lod2store"
	"github.com/svc-geodata/svc/roofsolar"
	"github.com/svc-geodata/svc/server/httpapi"
)

// TestDefaultClimateOutside: a building beyond Germany's default climate
// grid (its first roof vertex in Paris) is a 503 problem naming
// --irradiance, not a 500.
func TestDefaultClimateOutside(t *testing.T) {
	s := &surface{Env{DefaultClimate: roofsolar.NewDefaultClimates(1)}}
	facets := []lod2store.Facet{{Coords: []byte(`[[[2.352,48.857,35],[2.353,48.857,35],[2.353,48.858,35],[2.352,48.857,35]]]`)}}
	_, err := s.solarClimateOf(context.Background(), lod2store.Source{}, "X", facets)
	var f *httpapi.Fault
	if !errors.As(err, &f) || !errors.Is(err, httpapi.ErrNotConfigured) {
		t.Fatalf("Paris: %v, want a 503 problem", err)
	}
	if e := httpapi.ToHTTPError(err); e.Status != http.StatusServiceUnavailable || !strings.Contains(e.Detail, "--irradiance") {
		t.Errorf("Paris: %d %q", e.Status, e.Detail)
	}
}
