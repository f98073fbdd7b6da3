package terrain

import (
	"context"
	"math"

	"github.com/svc-geodata/svc/geo"
)

// MinCanopyM is the vegetation threshold of the CDSM (spec 2.10): lower
// values count as vegetation-free.
const MinCanopyM = 2.0

// CanopyHit is the answer of Canopy.
type CanopyHit struct {
	Hit                 // canopy height above ground (m), dataset, CDSM tile id
	CrownBaseM *float64 // TDSM crown base above ground (m); nil when not asked, no TDSM or NoData
}

// Canopy samples the CDSM of the vegetation datasets (ordered by BL code) at
// the WGS84 point lon, lat, with the routing and edge rules of Elevation,
// and, when trunk is set, the TDSM of the answering dataset at the same
// point. Heights below MinCanopyM count as NoData. Errors: ErrOutside,
// ErrNoData, or a *TileError for an unreadable CDSM tile. An unreadable
// TDSM tile leaves CrownBaseM nil rather than failing the request.
func Canopy(ctx context.Context, datasets []*Dataset, lon, lat float64, trunk bool) (CanopyHit, error) {
	h, err := sampleAt(ctx, datasets, LayerCDSM, lon, lat, Nearest, 0)
	if err != nil {
		return CanopyHit{Hit: h}, err
	}
	if h.Value < MinCanopyM {
		return CanopyHit{Hit: h}, ErrNoData
	}
	out := CanopyHit{Hit: h}
	if !trunk {
		return out, nil
	}
	if l := h.Dataset.layers[LayerTDSM]; l != nil {
		x, y := geo.ToUTM(h.Dataset.Zone, lon, lat)
		v, _, err := l.Sample(ctx, x, y)
		if err != nil && ctx.Err() != nil {
			return CanopyHit{}, ctx.Err()
		}
		if err == nil && v >= 0 && v <= h.Value {
			out.CrownBaseM = &v
		}
	}
	return out, nil
}

// Leaf area density bounds (m2 of leaf or woody area per m3 of crown) of the
// transmissivity model: leaf-on from open to dense broadleaf/mixed crowns,
// leaf-off the woody plant area of the same crowns.
const (
	ladLeafOnLow, ladLeafOnHigh   = 0.2, 0.5
	ladLeafOffLow, ladLeafOffHigh = 0.05, 0.15
	// extinctionG is the projection coefficient of a spherical leaf-angle
	// distribution for light from the zenith (Monsi and Saeki).
	extinctionG = 0.5
	// crownShare is the crown depth as a share of canopy height when no
	// crown base is known: the TDSM puts the crown base at 25 %.
	crownShare = 0.75
)

// Transmissivity is the light model behind the canopy result's
// transmissivity field: Beer-Lambert extinction through the crown,
// T = 100 * exp(-G * LAD * d) percent, with G = 0.5 (spherical leaf
// angles, sun at the zenith), d the crown depth (canopy height minus crown
// base, or 75 % of the canopy height without crown base) and the leaf area
// density LAD between a dense and an open crown. Each pair is [low, high]:
// the transmitted share through a dense crown, then through an open one,
// rounded to 0.1 %. Leaf-on uses LAD 0.5 and 0.2 m2/m3, leaf-off the woody
// plant area 0.15 and 0.05 m2/m3. A non-positive crown depth gives 100 %.
func Transmissivity(canopyM float64, crownBaseM *float64) (leafOn, leafOff [2]float64) {
	d := crownShare * canopyM
	if crownBaseM != nil {
		d = canopyM - *crownBaseM
	}
	d = math.Max(d, 0)
	t := func(lad float64) float64 { return math.Round(1000*math.Exp(-extinctionG*lad*d)) / 10 }
	return [2]float64{t(ladLeafOnHigh), t(ladLeafOnLow)}, [2]float64{t(ladLeafOffHigh), t(ladLeafOffLow)}
}
