package glb

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"io"
	"math"

	"github.com/qmuntal/gltf"

	"github.com/svc-geodata/svc/glb/draco"
)

// Extension names written by this package.
const (
	extDraco    = "KHR_draco_mesh_compression"
	extFeatures = "EXT_mesh_features"
	extMetadata = "EXT_structural_metadata"
)

// Materials: base colours (linear RGB) of walls, roofs and ground.
var matColors = [numMats][4]float64{{0.85, 0.83, 0.80, 1}, {0.62, 0.25, 0.18, 1}, {0.35, 0.35, 0.35, 1}}

var matNames = [numMats]string{"wall", "roof", "ground"}

// doc is a glTF document under construction with its binary chunk. In
// lazy mode the chunk is not built: buffer views only reference the
// builder's arrays (segs), which writeSegments converts while streaming, so
// a large export is never held in memory a second time.
type doc struct {
	*gltf.Document
	bin  []byte
	lazy bool
	segs []segment
	n    int // chunk length so far in lazy mode
}

// segment is one buffer view's bytes in lazy mode, after pad zero bytes:
// raw bytes, float32 values, or indexes written as uint16 or uint32.
type segment struct {
	pad      int
	raw      []byte
	f32      []float32
	idx      []uint32
	idxShort bool
}

func (d *doc) binLen() int {
	if d.lazy {
		return d.n
	}
	return len(d.bin)
}

// place adds a buffer view of size bytes aligned to align, filled from s.
func (d *doc) place(size, align int, target gltf.Target, s segment) int {
	pad := (align - d.binLen()%align) % align
	off := d.binLen() + pad
	d.BufferViews = append(d.BufferViews, &gltf.BufferView{Buffer: 0, ByteOffset: off, ByteLength: size, Target: target})
	if d.lazy {
		s.pad = pad
		d.segs = append(d.segs, s)
		d.n = off + size
	} else {
		d.bin = append(d.bin, make([]byte, pad)...)
		d.bin = s.appendTo(d.bin)
	}
	return len(d.BufferViews) - 1
}

// view appends data as a buffer view aligned to align bytes.
func (d *doc) view(data []byte, target gltf.Target, align int) int {
	return d.place(len(data), align, target, segment{raw: data})
}

// viewF32 appends float32 values as a 4-byte aligned buffer view.
func (d *doc) viewF32(v []float32, target gltf.Target) int {
	return d.place(4*len(v), 4, target, segment{f32: v})
}

// viewIndex appends triangle indexes as uint16 when the vertices allow,
// else uint32, and returns the view and the component type.
func (d *doc) viewIndex(idx []uint32, vertices int) (int, gltf.ComponentType) {
	if vertices <= math.MaxUint16 {
		return d.place(2*len(idx), 4, gltf.TargetElementArrayBuffer, segment{idx: idx, idxShort: true}), gltf.ComponentUshort
	}
	return d.place(4*len(idx), 4, gltf.TargetElementArrayBuffer, segment{idx: idx}), gltf.ComponentUint
}

// appendTo appends the segment's bytes (without its padding) to dst.
func (s segment) appendTo(dst []byte) []byte {
	switch {
	case s.f32 != nil:
		for _, f := range s.f32 {
			dst = binary.LittleEndian.AppendUint32(dst, math.Float32bits(f))
		}
	case s.idx != nil && s.idxShort:
		for _, v := range s.idx {
			dst = binary.LittleEndian.AppendUint16(dst, uint16(v))
		}
	case s.idx != nil:
		for _, v := range s.idx {
			dst = binary.LittleEndian.AppendUint32(dst, v)
		}
	default:
		dst = append(dst, s.raw...)
	}
	return dst
}

// writeSegments streams the lazy chunk through a small buffer.
func (d *doc) writeSegments(w io.Writer) error {
	const chunk = 64 << 10
	buf := make([]byte, 0, chunk+8)
	flush := func() error {
		_, err := w.Write(buf)
		buf = buf[:0]
		return err
	}
	for _, s := range d.segs {
		buf = append(buf, make([]byte, s.pad)...)
		n := max(len(s.f32), len(s.idx), len(s.raw))
		for i := 0; i < n; i += chunk / 4 {
			j := min(n, i+chunk/4)
			part := segment{idxShort: s.idxShort}
			switch {
			case s.f32 != nil:
				part.f32 = s.f32[i:j]
			case s.idx != nil:
				part.idx = s.idx[i:j]
			default:
				part.raw = s.raw[i:j]
			}
			buf = part.appendTo(buf)
			if len(buf) >= chunk {
				if err := flush(); err != nil {
					return err
				}
			}
		}
	}
	return flush()
}

func (d *doc) accessor(a *gltf.Accessor) int {
	d.Accessors = append(d.Accessors, a)
	return len(d.Accessors) - 1
}

func f32Bytes(v []float32) []byte {
	out := make([]byte, 4*len(v))
	for i, f := range v {
		binary.LittleEndian.PutUint32(out[4*i:], math.Float32bits(f))
	}
	return out
}

func minMax(pos []float32) (lo, hi []float64) {
	lo = []float64{math.Inf(1), math.Inf(1), math.Inf(1)}
	hi = []float64{math.Inf(-1), math.Inf(-1), math.Inf(-1)}
	for i := 0; i+2 < len(pos); i += 3 {
		for k := range 3 {
			lo[k], hi[k] = math.Min(lo[k], float64(pos[i+k])), math.Max(hi[k], float64(pos[i+k]))
		}
	}
	return lo, hi
}

// GLB returns the uncompressed binary glTF of everything added; without
// any building it is a valid GLB with an empty scene.
func (b *Builder) GLB() ([]byte, error) { return b.encode(false) }

// DracoGLB returns the GLB with every primitive compressed by
// KHR_draco_mesh_compression (positions quantized to 18 bits, normals to
// 10). Errors wrap ErrDraco when the encoder refuses a primitive; GLB
// still works then.
func (b *Builder) DracoGLB() ([]byte, error) { return b.encode(true) }

func (b *Builder) document(compress, lazy bool) (*doc, error) {
	b.finish()
	d := &doc{Document: &gltf.Document{Asset: gltf.Asset{Version: "2.0", Generator: "svc glb", Copyright: b.o.Copyright}, Scene: gltf.Index(0)}, lazy: lazy}
	nMat := 1
	if b.o.ColorizeRoofs {
		nMat = numMats
	}
	for m := range nMat {
		c := matColors[m]
		name := matNames[m]
		if !b.o.ColorizeRoofs {
			name = "building"
		}
		d.Materials = append(d.Materials, &gltf.Material{Name: name, PBRMetallicRoughness: &gltf.PBRMetallicRoughness{
			BaseColorFactor: &c, MetallicFactor: gltf.Float(0), RoughnessFactor: gltf.Float(0.9)}})
	}
	scene := &gltf.Scene{Name: "buildings"}
	for _, g := range b.groups {
		mesh := &gltf.Mesh{Name: g.name}
		for m := range g.prims {
			p := &g.prims[m]
			if len(p.idx) == 0 {
				continue
			}
			prim, err := d.primitive(p, compress, b.o.Features, len(b.ids))
			if err != nil {
				return nil, err
			}
			prim.Material = gltf.Index(m)
			mesh.Primitives = append(mesh.Primitives, prim)
		}
		if len(mesh.Primitives) == 0 {
			continue
		}
		d.Meshes = append(d.Meshes, mesh)
		d.Nodes = append(d.Nodes, &gltf.Node{Name: g.name, Mesh: gltf.Index(len(d.Meshes) - 1)})
		scene.Nodes = append(scene.Nodes, len(d.Nodes)-1)
	}
	d.Scenes = []*gltf.Scene{scene}
	if compress {
		d.ExtensionsUsed = append(d.ExtensionsUsed, extDraco)
		d.ExtensionsRequired = append(d.ExtensionsRequired, extDraco)
	}
	if b.o.Features && len(b.ids) > 0 {
		b.metadata(d)
	}
	if d.lazy {
		if d.n > 0 {
			d.Buffers = []*gltf.Buffer{{ByteLength: d.n}}
		}
		return d, nil
	}
	// byteLength is the data's length, as the stream declares it; the
	// encoder pads the BIN chunk (glTF 2.0 allows the chunk up to 3 bytes
	// longer). Padding the data here made GLB and WriteGLB differ.
	if len(d.bin) > 0 {
		d.Buffers = []*gltf.Buffer{{ByteLength: len(d.bin), Data: d.bin}}
	}
	return d, nil
}

func (b *Builder) encode(compress bool) ([]byte, error) {
	d, err := b.document(compress, false)
	if err != nil {
		return nil, err
	}
	var out bytes.Buffer
	out.Grow(len(d.bin) + 4096)
	if err := gltf.NewEncoder(&out).Encode(d.Document); err != nil {
		return nil, fmt.Errorf("glb: encode: %w", err)
	}
	return out.Bytes(), nil
}

// glbFrame returns the uncompressed GLB without its binary chunk's data:
// the header, the JSON chunk and the BIN chunk header, as gltf's encoder
// writes them for a buffer of the chunk's length, and the length of the
// chunk's data plus its padding.
func (b *Builder) glbFrame() (*doc, []byte, int, error) {
	d, err := b.document(false, true)
	if err != nil {
		return nil, nil, 0, err
	}
	var out bytes.Buffer
	if err := gltf.NewEncoder(&out).Encode(d.Document); err != nil {
		return nil, nil, 0, fmt.Errorf("glb: encode: %w", err)
	}
	// With no Data the encoder writes only the chunk's zero padding after
	// the BIN header; cut it off, the data and padding follow when streaming.
	pad := (4 - d.n%4) % 4
	return d, out.Bytes()[:out.Len()-pad], d.n + pad, nil
}

// GLBSize returns the length in bytes of GLB() without building it.
func (b *Builder) GLBSize() (int64, error) {
	_, head, tail, err := b.glbFrame()
	return int64(len(head) + tail), err
}

// WriteGLB streams the uncompressed GLB to w, byte for byte what GLB
// returns, converting the builder's arrays in small pieces instead of
// holding the whole file in memory.
func (b *Builder) WriteGLB(w io.Writer) error {
	d, head, tail, err := b.glbFrame()
	if err != nil {
		return err
	}
	if _, err := w.Write(head); err != nil {
		return err
	}
	if err := d.writeSegments(w); err != nil {
		return err
	}
	_, err = w.Write(make([]byte, tail-d.n))
	return err
}

// primitive writes the accessors of p, plain or Draco-compressed.
func (d *doc) primitive(p *prim, compress, features bool, featureCount int) (*gltf.Primitive, error) {
	nv := len(p.pos) / 3
	lo, hi := minMax(p.pos)
	posAcc := &gltf.Accessor{ComponentType: gltf.ComponentFloat, Type: gltf.AccessorVec3, Count: nv, Min: lo, Max: hi}
	nrmAcc := &gltf.Accessor{ComponentType: gltf.ComponentFloat, Type: gltf.AccessorVec3, Count: nv}
	idxAcc := &gltf.Accessor{ComponentType: gltf.ComponentUint, Type: gltf.AccessorScalar, Count: len(p.idx)}
	prim := &gltf.Primitive{Mode: gltf.PrimitiveTriangles}
	var fidAcc *gltf.Accessor
	if compress && p.annual != nil {
		return nil, fmt.Errorf("%w: solar values are written to uncompressed GLB only", ErrOptions)
	}
	if compress {
		atts := []draco.Attribute{
			{Kind: draco.Position, Components: 3, Data: p.pos},
			{Kind: draco.Normal, Components: 3, Data: p.nrm},
		}
		if p.col != nil {
			atts = append(atts, draco.Attribute{Kind: draco.Color, Components: 4, U8: p.col, Normalized: true})
		}
		if features {
			ids, err := featureIDsU16(p.fid, featureCount)
			if err != nil {
				return nil, err
			}
			atts = append(atts, draco.Attribute{Kind: draco.Generic, Components: 1, U16: ids})
		}
		res, err := draco.EncodeResult(&draco.Mesh{Indices: p.idx, Attributes: atts}, draco.Options{PositionBits: 18})
		if err != nil {
			return nil, fmt.Errorf("%w: %w", ErrDraco, err)
		}
		posAcc.Count, nrmAcc.Count, idxAcc.Count = res.Points, res.Points, 3*res.Triangles
		if res.Points <= math.MaxUint16 {
			idxAcc.ComponentType = gltf.ComponentUshort
		}
		bv := d.view(res.Data, gltf.TargetNone, 4)
		ids := map[string]any{"POSITION": res.AttributeIDs[0], "NORMAL": res.AttributeIDs[1]}
		if p.col != nil {
			ids["COLOR_0"] = res.AttributeIDs[2]
		}
		if features {
			ids["_FEATURE_ID_0"] = res.AttributeIDs[len(res.AttributeIDs)-1]
			fidAcc = &gltf.Accessor{ComponentType: gltf.ComponentUshort, Type: gltf.AccessorScalar, Count: res.Points}
		}
		prim.Extensions = gltf.Extensions{extDraco: map[string]any{"bufferView": bv, "attributes": ids}}
	} else {
		posAcc.BufferView = gltf.Index(d.viewF32(p.pos, gltf.TargetArrayBuffer))
		nrmAcc.BufferView = gltf.Index(d.viewF32(p.nrm, gltf.TargetArrayBuffer))
		iv, ct := d.viewIndex(p.idx, nv)
		idxAcc.ComponentType = ct
		idxAcc.BufferView = gltf.Index(iv)
	}
	prim.Attributes = gltf.PrimitiveAttributes{gltf.POSITION: d.accessor(posAcc), gltf.NORMAL: d.accessor(nrmAcc)}
	if p.col != nil {
		prim.Attributes[gltf.COLOR_0] = d.accessor(d.colorAccessor(p.col, posAcc.Count, compress))
	}
	prim.Indices = gltf.Index(d.accessor(idxAcc))
	if p.annual != nil {
		d.solarAttributes(p, prim)
	}
	if features {
		if fidAcc == nil {
			fidAcc = &gltf.Accessor{ComponentType: gltf.ComponentFloat, Type: gltf.AccessorScalar, Count: nv,
				BufferView: gltf.Index(d.viewF32(p.fid, gltf.TargetArrayBuffer))}
		}
		prim.Attributes["_FEATURE_ID_0"] = d.accessor(fidAcc)
		// Beside KHR_draco_mesh_compression, when compressed: replacing
		// the map would leave the accessors without data (all zeros).
		if prim.Extensions == nil {
			prim.Extensions = gltf.Extensions{}
		}
		prim.Extensions[extFeatures] = map[string]any{"featureIds": []any{
			map[string]any{"featureCount": featureCount, "attribute": 0, "propertyTable": 0}}}
	}
	return prim, nil
}

// featureIDsU16 converts the feature ids of a primitive to the integers a
// Draco generic attribute codes losslessly. glTF admits feature ids as
// UNSIGNED_BYTE, UNSIGNED_SHORT or FLOAT vertex attributes
// (EXT_mesh_features); Draco would quantize floats, so a compressed
// primitive carries them as UNSIGNED_SHORT, which bounds the features of
// one GLB to 65,536 (errors wrap ErrDraco and ErrFeatureIDs beyond).
func featureIDsU16(fid []float32, featureCount int) ([]uint16, error) {
	if featureCount > math.MaxUint16+1 {
		return nil, fmt.Errorf("%w: %w: %d features", ErrDraco, ErrFeatureIDs, featureCount)
	}
	out := make([]uint16, len(fid))
	for i, v := range fid {
		out[i] = uint16(v)
	}
	return out, nil
}
