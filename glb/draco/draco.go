// Package draco encodes triangle meshes as Draco bitstreams (version 2.2),
// the payload of the glTF extension KHR_draco_mesh_compression.
//
// It is a pure-Go encoder (no cgo) written against the Draco bitstream
// specification (https://google.github.io/draco/spec/) and checked against
// Google's decoders. Two connectivity codings are supported:
//
//   - MESH_EDGEBREAKER_ENCODING, the default: vertices are shared by
//     position, the traversal is coded with the standard or the valence
//     symbol coding (whichever is smaller), positions use parallelogram
//     prediction. Attributes with seams (flat normals, texture atlases) get
//     their own per-corner connectivity, as in the reference encoder.
//     Non-manifold edges and vertices are cut apart first.
//   - MESH_SEQUENTIAL_ENCODING, the fallback: points keep the input order,
//     indices are delta and rANS coded.
//
// Float attributes are quantized (normals as octahedral coordinates);
// integer attributes (feature ids, 8-bit colours) are coded losslessly. All
// entropy coding is rANS as in the reference implementation.
//
// The encoder replays the reference decoder on its own output before
// writing attributes, because the decoder reorders points and attribute
// values follow its traversal. A glTF accessor describing a Draco primitive
// describes the decoded order: its count must be Result.Points, the index
// accessor's count 3*Result.Triangles.
package draco

import (
	"errors"
	"fmt"
	"math"
)

// Sentinel errors returned (wrapped) by Encode.
var (
	// ErrInvalidMesh reports structurally invalid input: no position
	// attribute, mismatched lengths, index counts not divisible by 3.
	ErrInvalidMesh = errors.New("draco: invalid mesh")
	// ErrEmptyMesh reports a mesh without (non-degenerate) triangles.
	ErrEmptyMesh = errors.New("draco: empty mesh")
	// ErrIndexRange reports a triangle index beyond the vertex count.
	ErrIndexRange = errors.New("draco: index out of range")
	// ErrNonFinite reports a NaN or infinite float attribute value.
	ErrNonFinite = errors.New("draco: NaN or infinite value")
	// ErrOption reports an option or per-attribute setting out of range.
	ErrOption = errors.New("draco: invalid option")
	// ErrTooLarge reports input beyond the encoder's size limits.
	ErrTooLarge = errors.New("draco: mesh too large")
)

// Limits on input sizes. Encoding needs roughly 300 bytes of memory per
// triangle, so the caps keep one call below about 5 GB.
const (
	// MaxVertices is the largest accepted vertex count.
	MaxVertices = 1 << 24
	// MaxTriangles is the largest accepted triangle count.
	MaxTriangles  = 1 << 24
	maxComponents = 16
)

// Kind is the semantic of an attribute; the values equal Draco's
// GeometryAttribute::Type, which the bitstream stores.
type Kind uint8

// Attribute kinds.
const (
	Position Kind = iota // glTF POSITION, 3 float components
	Normal               // glTF NORMAL
	Color                // glTF COLOR_n, float (quantized) or uint8/uint16
	TexCoord             // glTF TEXCOORD_n
	Generic              // anything else, e.g. _FEATURE_ID_0
)

// Method selects the connectivity coding.
type Method uint8

// Connectivity codings.
const (
	// Edgebreaker is MESH_EDGEBREAKER_ENCODING with parallelogram
	// prediction of positions: the compact default.
	Edgebreaker Method = iota
	// Sequential is MESH_SEQUENTIAL_ENCODING: points keep the input order,
	// indices are delta and rANS coded. Larger, but simple.
	Sequential
)

// Attribute holds one per-vertex attribute. Exactly one of Data, U8, U16 or
// U32 is set, with Components (1..16) values per vertex (vertex-major).
type Attribute struct {
	Kind       Kind
	Components int
	// Data holds float values; they are quantized to QuantBits bits over
	// one range for all components (Draco's AttributeQuantizationTransform),
	// so the error is at most range/(2^bits-1)/2 plus float32 rounding.
	// A Normal with 3 components is coded as octahedral coordinates and
	// decodes as a unit vector (zero vectors decode as +X).
	Data []float32
	// U8, U16 and U32 hold integer values, coded losslessly (the range
	// max-min of each must be below 2^31).
	U8  []uint8
	U16 []uint16
	U32 []uint32
	// Normalized marks integer data as normalized (glTF colours).
	Normalized bool
	// QuantBits overrides the option default for this float attribute
	// (1..30); 0 takes the default for its Kind.
	QuantBits int
}

// Mesh is an indexed triangle mesh. Every attribute has one entry per
// vertex; exactly one attribute has Kind Position with 3 components.
type Mesh struct {
	// Indices lists triangles as vertex index triples.
	Indices    []uint32
	Attributes []Attribute
}

// Options tunes Encode; the zero value selects the defaults.
type Options struct {
	// Method is the connectivity coding (default Edgebreaker).
	Method Method
	// PositionBits quantizes positions (default 18, 1..30).
	PositionBits int
	// NormalBits quantizes normals (default 10).
	NormalBits int
	// ColorBits quantizes float colours (default 8).
	ColorBits int
	// TexCoordBits quantizes texture coordinates (default 12).
	TexCoordBits int
	// GenericBits quantizes float generic attributes (default 16).
	GenericBits int
}

// Result is an encoded mesh.
type Result struct {
	// Data is the Draco bitstream.
	Data []byte
	// AttributeIDs[i] is the bitstream unique id of Mesh.Attributes[i], the
	// value for the extension's "attributes" map (it equals i).
	AttributeIDs []uint32
	// Method is the connectivity coding actually used: Sequential when
	// Edgebreaker was asked for but the mesh's connectivity defeated it.
	Method Method
	// Points is the number of points the decoder outputs (accessor count).
	Points int
	// Triangles is the number of triangles encoded (degenerate ones are dropped).
	Triangles int
	// PositionMin and PositionMax bound the positions as decoded (after
	// quantization), the values for the POSITION accessor's min and max.
	PositionMin, PositionMax [3]float32
}

// Encode compresses m and returns the Draco bitstream; see EncodeResult.
func Encode(m *Mesh, opts Options) ([]byte, error) {
	r, err := EncodeResult(m, opts)
	if err != nil {
		return nil, err
	}
	return r.Data, nil
}

// EncodeResult compresses m into a Draco 2.2 bitstream. Triangles with a
// repeated index and unreferenced vertices are dropped; a mesh without any
// other triangle is ErrEmptyMesh. Other errors wrap ErrInvalidMesh,
// ErrIndexRange, ErrNonFinite, ErrOption or ErrTooLarge. The input is never
// modified, and equal input gives equal output.
func EncodeResult(m *Mesh, opts Options) (Result, error) {
	opts, err := opts.withDefaults()
	if err != nil {
		return Result{}, err
	}
	in, err := prepare(m, opts)
	if err != nil {
		return Result{}, err
	}
	var w writer
	points := in.numPoints
	method := opts.Method
	if method == Edgebreaker {
		points, err = encodeEdgebreaker(&w, in)
		if errors.Is(err, errSimulation) {
			// A connectivity the traversal cannot express: fall back.
			w.b, points, method = w.b[:0], in.numPoints, Sequential
		} else if err != nil {
			return Result{}, err
		}
	}
	if method == Sequential {
		if err := encodeSequential(&w, in); err != nil {
			return Result{}, err
		}
	}
	ids := make([]uint32, len(m.Attributes))
	for i := range ids {
		ids[i] = uint32(i)
	}
	r := Result{Data: w.b, AttributeIDs: ids, Method: method, Points: points, Triangles: len(in.faces)}
	r.PositionMin, r.PositionMax = in.atts[in.pos].decodedBounds()
	return r, nil
}

func (o Options) withDefaults() (Options, error) {
	def := func(v *int, d int, name string) error {
		if *v == 0 {
			*v = d
		}
		if *v < 1 || *v > 30 {
			return fmt.Errorf("draco: %s=%d not in 1..30: %w", name, *v, ErrOption)
		}
		return nil
	}
	if err := errors.Join(def(&o.PositionBits, 18, "PositionBits"), def(&o.NormalBits, 10, "NormalBits"),
		def(&o.ColorBits, 8, "ColorBits"), def(&o.TexCoordBits, 12, "TexCoordBits"),
		def(&o.GenericBits, 16, "GenericBits")); err != nil {
		return o, err
	}
	if o.Method > Sequential {
		return o, fmt.Errorf("draco: method %d: %w", o.Method, ErrOption)
	}
	return o, nil
}

func (o Options) bitsFor(k Kind) int {
	switch k {
	case Position:
		return o.PositionBits
	case Normal:
		return o.NormalBits
	case Color:
		return o.ColorBits
	case TexCoord:
		return o.TexCoordBits
	}
	return o.GenericBits
}

// isFinite reports whether f is neither NaN nor infinite.
func isFinite(f float32) bool {
	return !math.IsNaN(float64(f)) && !math.IsInf(float64(f), 0)
}
