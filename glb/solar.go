package glb

import (
	"math"

	"github.com/qmuntal/gltf"
)

// Solar is the precomputed irradiation of one roof facet, written with
// Options.Solar per vertex of the facet's triangles as
// EXT_structural_metadata property attributes (class roof_solar, see
// SolarSchema), which a CesiumJS CustomShader reads as
// fsInput.metadata.annual_kwh_m2 and share_of_best.
type Solar struct {
	AnnualKWhM2 float32 // on the facet's plane over the climate's year, after shading
	ShareOfBest float32 // AnnualKWhM2 over the best plane's at the site
}

// NoDataSolar is the noData value of the roof_solar properties: the value
// of every vertex of a wall, a ground surface and a roof facet without a
// precomputed value (irradiation and shares are never negative).
const NoDataSolar = -1.0

// Names of the roof_solar property attributes (application-specific
// attribute semantics start with an underscore, glTF 2.0 3.7.2.1).
const (
	attrAnnual = "_ANNUAL_KWH_M2"
	attrShare  = "_SHARE_OF_BEST"
)

// SolarSchema returns the EXT_structural_metadata schema of building
// tiles with solar values: BuildingClass and the class roof_solar of the
// per-vertex property attributes.
func SolarSchema() map[string]any {
	s := BuildingClass()
	s["classes"].(map[string]any)["roof_solar"] = map[string]any{
		"name": "Roof facet solar irradiation",
		"description": "precomputed irradiation of the roof facet a vertex belongs to (GET /v1/buildings/{gmlid}/solar); " +
			"walls, ground surfaces and facets without a value have noData. The suitability class follows from share_of_best: " +
			">= 0.9 very_good, >= 0.8 good, >= 0.7 fair, else poor",
		"properties": map[string]any{
			"annual_kwh_m2": map[string]any{"type": "SCALAR", "componentType": "FLOAT32", "noData": NoDataSolar,
				"description": "annual irradiation on the facet's plane after shading, kWh/m²"},
			"share_of_best": map[string]any{"type": "SCALAR", "componentType": "FLOAT32", "noData": NoDataSolar,
				"description": "annual irradiation over that of the best plane at the climate's site (0 to about 1)"},
		},
	}
	return s
}

// solarPropertyAttributes is the propertyAttributes entry of a GLB with
// solar values; primitives reference it by index 0.
func solarPropertyAttributes() []any {
	return []any{map[string]any{"class": "roof_solar", "properties": map[string]any{
		"annual_kwh_m2": map[string]any{"attribute": attrAnnual},
		"share_of_best": map[string]any{"attribute": attrShare},
	}}}
}

// solarValues returns the values of v for a vertex: NoDataSolar for nil
// and for non-finite or negative numbers.
func solarValues(v *Solar) (annual, share float32) {
	ok := func(x float32) bool {
		f := float64(x)
		return !math.IsNaN(f) && !math.IsInf(f, 0) && f >= 0
	}
	annual, share = NoDataSolar, NoDataSolar
	if v != nil && ok(v.AnnualKWhM2) {
		annual = v.AnnualKWhM2
	}
	if v != nil && ok(v.ShareOfBest) {
		share = v.ShareOfBest
	}
	return annual, share
}

// solarAttributes adds the property attributes of p to prim (uncompressed
// primitives only).
func (d *doc) solarAttributes(p *prim, prim *gltf.Primitive) {
	nv := len(p.pos) / 3
	prim.Attributes[attrAnnual] = d.accessor(&gltf.Accessor{ComponentType: gltf.ComponentFloat, Type: gltf.AccessorScalar, Count: nv,
		BufferView: gltf.Index(d.viewF32(p.annual, gltf.TargetArrayBuffer))})
	prim.Attributes[attrShare] = d.accessor(&gltf.Accessor{ComponentType: gltf.ComponentFloat, Type: gltf.AccessorScalar, Count: nv,
		BufferView: gltf.Index(d.viewF32(p.share, gltf.TargetArrayBuffer))})
	if prim.Extensions == nil {
		prim.Extensions = gltf.Extensions{}
	}
	prim.Extensions[extMetadata] = map[string]any{"propertyAttributes": []any{0}}
}
