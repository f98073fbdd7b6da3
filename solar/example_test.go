package solar_test

import (
	"context"
	"fmt"
	"time"

	"github.com/svc-geodata/svc/solar"
)

// A south-facing 35° roof in Potsdam under a clear-sky year, with a wall that
// hides the sun before 9:00 UTC and a sky-view factor of 0.9: the location
// cell's Sky is built once, each facet costs one allocation-free pass.
func ExampleSky_Irradiation() {
	site := solar.Site{LatDeg: 52.39, LonDeg: 13.06, ElevationM: 35}
	spa := solar.DefaultSPAOptions()
	recs, err := solar.ClearSkyYear{Site: site, SPA: spa, Year: 2025, Step: time.Hour,
		LinkeByMonth: [12]float64{3.0, 3.2, 3.6, 4.0, 4.2, 4.3, 4.5, 4.4, 4.0, 3.6, 3.2, 3.0}}.Records(context.Background())
	if err != nil {
		panic(err)
	}
	sky, err := solar.NewSky(context.Background(), recs, solar.SkyOptions{Site: site, SPA: spa, Model: solar.Perez, StepH: 1, Albedo: 0.2})
	if err != nil {
		panic(err)
	}
	vis := make([]float32, sky.Len())
	for i := range vis {
		if t, _, _, _ := sky.Step(i); t.Hour() >= 9 {
			vis[i] = 1
		}
	}
	var r solar.Result
	if err := sky.Irradiation(solar.Facet{TiltDeg: 35, AzimuthDeg: 180, SkyView: 0.9}, vis, &r); err != nil {
		panic(err)
	}
	a := r.Annual()
	fmt.Println(sky.Description())
	fmt.Printf("unshaded %.0f kWh/m² (beam %.0f, sky %.0f, ground %.0f)\n", a.GlobalUnshaded()/1000, a.BeamUnshaded/1000, a.SkyUnshaded/1000, a.Ground/1000)
	fmt.Printf("shaded   %.0f kWh/m² (beam %.0f, sky %.0f), loss %.1f %%\n", a.Global()/1000, a.Beam/1000, a.Sky/1000, 100*(1-a.Global()/a.GlobalUnshaded()))
	fmt.Printf("June %.0f, December %.0f kWh/m²\n", r.Monthly[5].Global()/1000, r.Monthly[11].Global()/1000)
	// Output:
	// NREL SPA sun positions; sky diffuse Perez 1990 (allsitescomposite1990); ground albedo 0.20; 1 h steps
	// unshaded 2053 kWh/m² (beam 1583, sky 443, ground 27)
	// shaded   1667 kWh/m² (beam 1271, sky 368), loss 18.8 %
	// June 183, December 70 kWh/m²
}
