package opentopo

import (
	"testing"

	"github.com/svc-geodata/svc/server/httpapi"
)

// FuzzLocations: opentopodata's locations parameter.
func FuzzLocations(f *testing.F) {
	for _, s := range []string{"50.1,8.6", "50.1,8.6|51,9", "gfo}EtohhU", "91,8", ",", "|", "50.1, 8.6 | 51 ,9"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		pts, err := parseLocations(s, 20)
		if err != nil {
			if httpapi.ToHTTPError(err).Status >= 500 {
				t.Fatalf("%q: %v", s, err)
			}
			return
		}
		if len(pts) == 0 || len(pts) > 20 {
			t.Fatalf("%q: %d points", s, len(pts))
		}
		for _, p := range pts {
			if !(p.Lat >= -90 && p.Lat <= 90 && p.Lon >= -180 && p.Lon <= 180) {
				t.Fatalf("%q: point %+v out of range", s, p)
			}
		}
	})
}
