package draco

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/svc-geodata/svc/internal/testtool"
)

// decoded is a mesh as an independent decoder returned it.
type decoded struct {
	indices []uint32
	points  int
	// attrs maps the unique id (node) or the kind (OBJ) to values per point.
	attrs map[uint32]decAttr
}

type decAttr struct {
	kind  Kind
	comps int
	vals  []float64
}

// decodeNode decodes drc with npm draco3d through testdata/decode.js.
func decodeNode(t *testing.T, drc string) (decoded, error) {
	t.Helper()
	node := testtool.Node(t, "draco3d")
	var stderr bytes.Buffer
	cmd := exec.CommandContext(t.Context(), node, filepath.Join("testdata", "decode.js"), drc)
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return decoded{}, fmt.Errorf("draco3d: %v: %s", err, stderr.String())
	}
	var js struct {
		Faces, Points int
		Indices       []uint32
		Attributes    []struct {
			ID     uint32
			Type   int
			Comps  int
			Values []float64
		}
	}
	if err := json.Unmarshal(out, &js); err != nil {
		return decoded{}, fmt.Errorf("draco3d output: %w", err)
	}
	d := decoded{indices: js.Indices, points: js.Points, attrs: map[uint32]decAttr{}}
	for _, a := range js.Attributes {
		d.attrs[a.ID] = decAttr{kind: Kind(a.Type), comps: a.Comps, vals: a.Values}
	}
	return d, nil
}

// decodeCLI decodes drc with Debian's draco_decoder into OBJ and expands it
// per corner; attributes are keyed by Kind (position, normal, texcoord).
func decodeCLI(t *testing.T, drc string) (decoded, error) {
	t.Helper()
	bin := testtool.Require(t, "draco_decoder", "apt-get install draco")
	obj := strings.TrimSuffix(drc, ".drc") + ".obj"
	if out, err := exec.CommandContext(t.Context(), bin, "-i", drc, "-o", obj).CombinedOutput(); err != nil {
		return decoded{}, fmt.Errorf("draco_decoder: %v: %s", err, out)
	}
	f, err := os.Open(obj)
	if err != nil {
		return decoded{}, err
	}
	defer f.Close()
	lists := map[string][]float64{}
	comps := map[string]int{"v": 3, "vn": 3, "vt": 2}
	kinds := []struct {
		tag  string
		kind Kind
	}{{"v", Position}, {"vt", TexCoord}, {"vn", Normal}}
	d := decoded{attrs: map[uint32]decAttr{}}
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		fs := strings.Fields(sc.Text())
		if len(fs) == 0 {
			continue
		}
		switch fs[0] {
		case "v", "vn", "vt":
			for _, s := range fs[1 : 1+comps[fs[0]]] {
				v, err := strconv.ParseFloat(s, 64)
				if err != nil {
					return d, err
				}
				lists[fs[0]] = append(lists[fs[0]], v)
			}
		case "f":
			if len(fs) != 4 {
				return d, fmt.Errorf("obj: non-triangle face %q", sc.Text())
			}
			for _, corner := range fs[1:] {
				parts := strings.Split(corner, "/")
				for k, kd := range kinds {
					if k >= len(parts) || parts[k] == "" {
						continue
					}
					i, err := strconv.Atoi(parts[k])
					if err != nil || i < 1 || i*comps[kd.tag] > len(lists[kd.tag]) {
						return d, fmt.Errorf("obj: bad index %q", corner)
					}
					a := d.attrs[uint32(kd.kind)]
					a.kind, a.comps = kd.kind, comps[kd.tag]
					a.vals = append(a.vals, lists[kd.tag][(i-1)*a.comps:i*a.comps]...)
					d.attrs[uint32(kd.kind)] = a
				}
				d.indices = append(d.indices, uint32(len(d.indices)))
			}
		}
	}
	d.points = len(d.indices)
	return d, sc.Err()
}

// quantGrid reproduces the encoder's quantization grid for one attribute.
type quantGrid struct {
	min   []float64
	delta float64
	inv   float64 // (2^bits-1)/range, exactly as the encoder computes it
	scale float64 // magnitude of the values, for float32 rounding
	bits  int
	half  float64 // half a quantization step of the encoder
}

func gridOf(a *Attribute, bits int, used []bool) quantGrid {
	c := a.Components
	g := quantGrid{min: make([]float64, c), bits: bits}
	hi := make([]float64, c)
	for j := range g.min {
		g.min[j], hi[j] = math.Inf(1), math.Inf(-1)
	}
	for v := 0; v*c < len(a.Data); v++ {
		if !used[v] {
			continue
		}
		for j := 0; j < c; j++ {
			x := float64(a.Data[v*c+j])
			g.min[j], hi[j] = min(g.min[j], x), max(hi[j], x)
		}
	}
	rng := 0.0
	for j := range g.min {
		rng = max(rng, float64(float32(hi[j])-float32(g.min[j])))
	}
	if rng == 0 {
		rng = 1
	}
	g.delta = rng / float64(int64(1)<<uint(bits)-1)
	g.inv = float64(int64(1)<<uint(bits)-1) / rng
	g.half = g.delta / 2
	if bits > 22 {
		// Finer than float32 resolves: match on a 2^16 grid instead (exact
		// for the integer-valued test meshes used with such bit depths).
		g.delta, g.inv = rng/65536, 65536/rng
	}
	g.scale = rng
	for _, m := range g.min {
		g.scale = max(g.scale, math.Abs(m)+rng)
	}
	return g
}

// inKey quantizes an input position with the encoder's formula, so ties
// round the same way.
func (g quantGrid) inKey(v []float64) [3]int64 {
	var k [3]int64
	for j := 0; j < 3; j++ {
		k[j] = int64(math.Floor((v[j]-g.min[j])*g.inv + 0.5))
	}
	return k
}

// key recovers the quantized value of a decoded position.
func (g quantGrid) key(v []float64) [3]int64 {
	var k [3]int64
	for j := 0; j < 3; j++ {
		k[j] = int64(math.Round((v[j] - g.min[j]) / g.delta))
	}
	return k
}

type triKey [3][3]int64

// canonical rotates a triangle so its smallest vertex key comes first,
// keeping the winding; it returns the rotation applied.
func canonical(k triKey) (triKey, int) {
	best, rot := k, 0
	for r := 1; r < 3; r++ {
		c := triKey{k[r], k[(r+1)%3], k[(r+2)%3]}
		if compareTri(c, best) < 0 {
			best, rot = c, r
		}
	}
	return best, rot
}

func compareTri(a, b triKey) int {
	for i := range a {
		if c := slices.Compare(a[i][:], b[i][:]); c != 0 {
			return c
		}
	}
	return 0
}
