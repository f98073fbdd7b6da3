package scalerun

import (
	"context"
	"errors"
	"path/filepath"
	"testing"

	"github.com/svc-geodata/svc/roofsolar"
)

// TestFullYearTMY: the Potsdam sample (one day a month) becomes a year of
// hours the climate reader takes (8760 records, 365 days); a year is not
// expanded again.
func TestFullYearTMY(t *testing.T) {
	t.Parallel()
	dst := filepath.Join(t.TempDir(), "full.csv")
	if err := FullYearTMY(filepath.Join("..", "..", "solar", "climate", "testdata", "tmy_potsdam.csv"), dst); err != nil {
		t.Fatal(err)
	}
	c, err := roofsolar.LoadClimate(context.Background(), dst)
	if err != nil {
		t.Fatal(err)
	}
	if n := len(c.Series.Records); n != 8760 {
		t.Errorf("%d records, want 8760", n)
	}
	if kwh := c.BestWhM2 / 1000; kwh < 700 || kwh > 2000 {
		t.Errorf("best plane %.0f kWh/m² a year", kwh)
	}
	if err := FullYearTMY(dst, dst+".2"); !errors.Is(err, ErrNotDaily) {
		t.Errorf("a whole year again: %v", err)
	}
}
