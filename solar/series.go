package solar

import (
	"context"
	"fmt"
	"time"
)

// ClearSkyYear describes a clear-sky climate series: the Ineichen-Perez
// irradiance at Site for every Step of Year, the sun placed at the centre of
// each step (hourly: HH:30 UTC).
type ClearSkyYear struct {
	Site Site
	SPA  SPAOptions
	Year int
	Step time.Duration // 1 h for hourly; must divide a day
	// LinkeByMonth is the Linke turbidity of each UTC month (January first);
	// no open monthly climatology for Germany is embedded, so it is required.
	LinkeByMonth [12]float64
}

// Records returns the series. It returns ErrInvalid for a step that does
// not divide a day or a turbidity below 1, and ctx's error when cancelled.
func (c ClearSkyYear) Records(ctx context.Context) ([]Record, error) {
	if c.Step < time.Minute || (24*time.Hour)%c.Step != 0 {
		return nil, fmt.Errorf("solar: step %v does not divide a day: %w", c.Step, ErrInvalid)
	}
	for m, tl := range c.LinkeByMonth {
		if err := (ClearSky{LinkeTurbidity: tl, AltitudeM: c.Site.ElevationM}).Validate(); err != nil {
			return nil, fmt.Errorf("solar: month %d: %w", m+1, err)
		}
	}
	start := time.Date(c.Year, 1, 1, 0, 0, 0, 0, time.UTC).Add(c.Step / 2)
	end := time.Date(c.Year+1, 1, 1, 0, 0, 0, 0, time.UTC)
	recs := make([]Record, 0, int(end.Sub(start)/c.Step)+1)
	for t := start; t.Before(end); t = t.Add(c.Step) {
		if len(recs)%ctxEvery == 0 {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
		}
		pos := SunPosition(t, c.Site, c.SPA)
		cs := ClearSky{LinkeTurbidity: c.LinkeByMonth[t.Month()-1], AltitudeM: c.Site.ElevationM}
		recs = append(recs, Record{Time: t, Irradiance: cs.At(pos.ApparentZenithDeg, Extraterrestrial(t))})
	}
	return recs, nil
}
