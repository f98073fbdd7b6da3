package glb

import (
	"encoding/binary"
	"fmt"

	"github.com/qmuntal/gltf"
)

// FeatureMeshInput is a triangle mesh of several map features (OSM cover):
// per vertex its feature id, per feature a class, an OSM id and a name,
// written with EXT_mesh_features and EXT_structural_metadata so viewers can
// pick a feature and show its properties.
type FeatureMeshInput struct {
	MeshInput
	// FeatureIDs holds one feature index per vertex.
	FeatureIDs []float32
	// Class, OSMID and Name hold one value per feature.
	Class []string
	OSMID []int64
	Name  []string
	// SchemaID and ClassName name the metadata class (e.g. "svc_osm_cover",
	// "surface").
	SchemaID, ClassName string
}

// EncodeFeatureMesh encodes the mesh as a GLB (not Draco-compressed: the
// feature ids must stay per vertex).
func EncodeFeatureMesh(in FeatureMeshInput) ([]byte, error) {
	nv := len(in.Pos) / 3
	nf := len(in.Class)
	if len(in.Pos) == 0 || len(in.Pos) != len(in.Nrm) || len(in.Pos)%3 != 0 || len(in.Idx)%3 != 0 ||
		(in.Colors != nil && len(in.Colors) != 4*nv) || len(in.FeatureIDs) != nv || nf == 0 || len(in.OSMID) != nf || len(in.Name) != nf {
		return nil, fmt.Errorf("%w: %d positions, %d normals, %d colours, %d indexes, %d feature ids, %d/%d/%d properties", ErrGeometry,
			len(in.Pos), len(in.Nrm), len(in.Colors), len(in.Idx), len(in.FeatureIDs), nf, len(in.OSMID), len(in.Name))
	}
	d := &doc{Document: &gltf.Document{Asset: gltf.Asset{Version: "2.0", Generator: "svc glb", Copyright: in.Copyright}, Scene: gltf.Index(0)}}
	color := in.BaseColor
	d.Materials = []*gltf.Material{{Name: in.MeshInput.Name, DoubleSided: true, PBRMetallicRoughness: &gltf.PBRMetallicRoughness{
		BaseColorFactor: &color, MetallicFactor: gltf.Float(0), RoughnessFactor: gltf.Float(1)}}}
	prim, err := d.primitive(&prim{pos: in.Pos, nrm: in.Nrm, idx: in.Idx, col: in.Colors, fid: in.FeatureIDs}, false, true, nf)
	if err != nil {
		return nil, err
	}
	prim.Material = gltf.Index(0)
	d.Meshes = []*gltf.Mesh{{Name: in.MeshInput.Name, Primitives: []*gltf.Primitive{prim}}}
	d.Nodes = []*gltf.Node{{Name: in.MeshInput.Name, Mesh: gltf.Index(0)}}
	d.Scenes = []*gltf.Scene{{Name: in.MeshInput.Name, Nodes: []int{0}}}
	d.featureMetadata(in)
	return d.finish()
}

// strings lays out a STRING property: the UTF-8 bytes and the offsets.
func stringColumn(vals []string) (data, offsets []byte) {
	offsets = make([]byte, 0, 4*(len(vals)+1))
	for _, v := range vals {
		offsets = binary.LittleEndian.AppendUint32(offsets, uint32(len(data)))
		data = append(data, v...)
	}
	offsets = binary.LittleEndian.AppendUint32(offsets, uint32(len(data)))
	if len(data) == 0 {
		data = []byte{0} // a buffer view may not be empty
	}
	return data, offsets
}

func (d *doc) featureMetadata(in FeatureMeshInput) {
	cls, clsOff := stringColumn(in.Class)
	names, namesOff := stringColumn(in.Name)
	ids := make([]byte, 0, 8*len(in.OSMID))
	for _, v := range in.OSMID {
		ids = binary.LittleEndian.AppendUint64(ids, uint64(v))
	}
	cv, co := d.view(cls, gltf.TargetNone, 8), d.view(clsOff, gltf.TargetNone, 8)
	iv := d.view(ids, gltf.TargetNone, 8)
	props := map[string]any{
		"class":  map[string]any{"values": cv, "stringOffsets": co, "stringOffsetType": "UINT32"},
		"osm_id": map[string]any{"values": iv},
	}
	// A page of unnamed features has no name bytes, and a string buffer
	// view must be exactly as long as its strings (and may not be empty):
	// the optional property is left out of the table then.
	if hasText(in.Name) {
		nv, no := d.view(names, gltf.TargetNone, 8), d.view(namesOff, gltf.TargetNone, 8)
		props["name"] = map[string]any{"values": nv, "stringOffsets": no, "stringOffsetType": "UINT32"}
	}
	d.ExtensionsUsed = append(d.ExtensionsUsed, extFeatures, extMetadata)
	d.Extensions = gltf.Extensions{extMetadata: map[string]any{
		"schema": map[string]any{"id": in.SchemaID, "classes": map[string]any{in.ClassName: map[string]any{
			"name": "OpenStreetMap " + in.ClassName,
			"properties": map[string]any{
				"class":  map[string]any{"type": "STRING", "description": "land-cover or transport class"},
				"osm_id": map[string]any{"type": "SCALAR", "componentType": "INT64", "description": "id of the OSM way or relation"},
				"name":   map[string]any{"type": "STRING", "description": "the name tag, empty when untagged"},
			}}}},
		"propertyTables": []any{map[string]any{"class": in.ClassName, "count": len(in.Class), "properties": props}},
	}}
}

func hasText(vals []string) bool {
	for _, v := range vals {
		if v != "" {
			return true
		}
	}
	return false
}
