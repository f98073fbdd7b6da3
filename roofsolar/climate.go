// Package roofsolar computes the solar irradiation of a building's roof
// facets over the year of an operator's climate file: the open plane's
// (package solar: NREL SPA sun, Perez sky, albedo 0.2) and, with a DGM of
// the building's CRS, what the terrain, the LoD2 buildings and the CDSM
// crowns leave of it (package shading). It is the one implementation the
// solar route (on demand) and `svc build solar` (every roof of a state,
// into a solarstore) share, and converts between its values and the
// store's whole Wh/m² (docs/solar.md). It knows nothing of HTTP.
package roofsolar

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/svc-geodata/svc/solar"
	"github.com/svc-geodata/svc/solar/climate"
)

// Climate is an operator's irradiance file, read once, and what every
// roof computed under it shares: the sky of its site and the best plane's
// yield there (the reference of the classes).
type Climate struct {
	File   string // base name of the file, as answers name it
	SHA256 string // of the file's bytes: a store computed under another file is not used
	Series *climate.Series
	Sky    *solar.Sky
	// Best is the plane of the highest annual irradiation at the climate's
	// site (tilt 0-90° in 1° steps, azimuth 0-355° in 5° steps), unshaded.
	BestTiltDeg, BestAzimuthDeg, BestWhM2 float64
	// Method and Attribution describe the built-in default climate (how
	// its hours are made, whom its data credit); "" for a file.
	Method, Attribution string
}

// Model and Albedo are the sky model and ground albedo of every roof:
// Perez is what PVGIS and pvlib default to for tilted planes; 0.2 is the
// usual albedo of mixed urban ground.
const (
	Model  = solar.Perez
	Albedo = 0.2
)

// maxClimateBytes bounds the climate file read into memory: an hourly EPW
// is ~1.6 MB, a PVGIS TMY JSON ~3 MB.
const maxClimateBytes = 64 << 20

// LoadClimate reads a PVGIS TMY (CSV or JSON) or EPW file and prepares the
// sky at its site. Errors carry the reader's message (the line at fault).
func LoadClimate(ctx context.Context, path string) (*Climate, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var raw bytes.Buffer
	if _, err := raw.ReadFrom(io.LimitReader(f, maxClimateBytes+1)); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if raw.Len() > maxClimateBytes {
		return nil, fmt.Errorf("%s: larger than %d MB: not a climate file", path, maxClimateBytes>>20)
	}
	sum := sha256.Sum256(raw.Bytes())
	series, err := climate.Read(bytes.NewReader(raw.Bytes()))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	c, err := Prepare(ctx, series)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	c.File, c.SHA256 = filepath.Base(path), hex.EncodeToString(sum[:])
	return c, nil
}

// Prepare builds the sky of a series at its site and finds its best plane
// (a climate without a file: File and SHA256 empty).
func Prepare(ctx context.Context, series *climate.Series) (*Climate, error) {
	sky, err := solar.NewSky(ctx, series.Records, solar.SkyOptions{Site: series.Site, SPA: solar.DefaultSPAOptions(),
		Model: Model, StepH: series.StepH, Albedo: Albedo})
	if err != nil {
		return nil, err
	}
	c := &Climate{Series: series, Sky: sky}
	var r solar.Result
	for tilt := 0.0; tilt <= 90; tilt++ {
		for az := 0.0; az < 360; az += 5 {
			if err := sky.Irradiation(solar.Facet{TiltDeg: tilt, AzimuthDeg: az, SkyView: 1}, nil, &r); err != nil {
				return nil, err
			}
			if g := r.Annual().GlobalUnshaded(); g > c.BestWhM2 {
				c.BestTiltDeg, c.BestAzimuthDeg, c.BestWhM2 = tilt, az, g
			}
			if tilt == 0 {
				break // a flat plane has no azimuth
			}
		}
	}
	return c, nil
}

// Classes are the suitability classes of a facet by its annual
// irradiation as a share of the best plane's at the climate's site (docs/
// solar.md section 10), best first: the one definition the solar route,
// the vector and map tiles and their legend use.
var Classes = []struct {
	MinShare float64
	Name     string
}{{0.9, "very_good"}, {0.8, "good"}, {0.7, "fair"}, {0, "poor"}}

// Class names the suitability of a facet whose annual irradiation is share
// (0-1) of the best plane's: very_good, good, fair or poor.
func Class(share float64) string {
	for _, c := range Classes {
		if share >= c.MinShare {
			return c.Name
		}
	}
	return "poor"
}
