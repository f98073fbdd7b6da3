package lod2store

import "github.com/svc-geodata/svc/glb"

// GLBAttrs picks the attributes of building a written to the feature
// metadata of a GLB (the 3D Tiles leaves and the GLB export alike: one
// schema, glb.BuildingClass): the building's own function and roof type,
// else the first part's that has one (a building of parts often carries
// them only on its parts), the German AdV labels, and its measures.
func GLBAttrs(a *Attributes) *glb.Attrs {
	out := &glb.Attrs{HeightM: a.Measures.HeightM, GroundZM: a.Measures.GroundZ, RidgeZM: a.Measures.RidgeZ,
		EavesZM: a.Measures.EavesZ, FootprintAreaM2: a.Measures.FootprintAreaM2, RoofAreaM2: a.Measures.RoofAreaM2}
	for _, o := range a.Owners {
		if out.Function == "" && len(o.Functions) > 0 {
			out.Function, out.FunctionLabel = o.Functions[0].Code, o.Functions[0].De
		}
		if out.RoofType == "" && o.RoofType != nil {
			out.RoofType, out.RoofTypeLabel = o.RoofType.Code, o.RoofType.De
		}
		if out.Storeys == nil && o.Storeys != nil {
			out.Storeys = o.Storeys
		}
		if out.MunicipalityKey == "" && o.MunicipalityKey != nil {
			out.MunicipalityKey = *o.MunicipalityKey
		}
		if out.CreationDate == "" && o.CreationDate != nil {
			out.CreationDate = *o.CreationDate
		}
	}
	return out
}
