package export

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"

	"github.com/svc-geodata/svc/catalog"
	"github.com/svc-geodata/svc/geo"
	"github.com/svc-geodata/svc/pack"
	"github.com/svc-geodata/svc/threetz"
)

// ErrNoTiles is returned by ThreeTZ when no tile of the chosen content
// meets the bbox.
var ErrNoTiles = errors.New("export: no 3D Tiles meet the bbox")

// TZContents are the tilesets `svc export 3tz --content` can pack.
var TZContents = []string{"buildings", "terrain-mesh", "osm-cover"}

// TZResult counts what ThreeTZ wrote.
type TZResult struct {
	Tilesets []string // the tilesets that met the bbox, as <content>/<bl>[/<theme>]
	Files    int      // tileset JSON and content files
	Tiles    int      // tiles kept (meeting the bbox)
}

// tzSet is one pack's tileset: the archive prefix of its files and the
// path of its tileset JSON in the pack.
type tzSet struct {
	name, prefix, dir, tileset string
	root                       map[string]any
	files                      map[string][]byte
}

// tzSets lists the tilesets of the published packs for the contents.
func tzSets(v *catalog.View, contents []string) []tzSet {
	var sets []tzSet
	for _, c := range contents {
		for _, p := range v.Packs(pack.Product(c)) {
			m := p.Manifest
			base := c + "/" + m.BL
			switch pack.Product(c) {
			case pack.Buildings3D:
				sets = append(sets, tzSet{name: base, prefix: base + "/", dir: p.Dir, tileset: "tileset.json"})
			case pack.TerrainMesh:
				ts := "tileset.json"
				if m.TerrainMesh != nil && m.TerrainMesh.TilesetPath != "" {
					ts = m.TerrainMesh.TilesetPath
				}
				sets = append(sets, tzSet{name: base, prefix: base + "/", dir: p.Dir, tileset: ts})
			case pack.OSMCover:
				if m.OSMCover == nil {
					continue
				}
				for _, th := range m.OSMCover.Themes {
					sets = append(sets, tzSet{name: base + "/" + th.Name, prefix: base + "/", dir: p.Dir, tileset: th.Path})
				}
			}
		}
	}
	return sets
}

// ThreeTZ writes the 3D Tiles of the published packs of the contents
// (TZContents: buildings, terrain-mesh, osm-cover) meeting the bbox
// (WGS84) as a 3TZ archive to w: each tileset pruned to the tiles whose
// bounding region meets the bbox (tiles without a region are kept),
// external tilesets followed and pruned alike, with the content they
// reference, unchanged. One tileset: it is the archive's tileset.json.
// Several: tileset.json is a root whose children are the tilesets, under
// <content>/<bl>/, as external tilesets.
func ThreeTZ(ctx context.Context, w io.Writer, v *catalog.View, b geo.BBox, contents []string) (TZResult, error) {
	var res TZResult
	var sets []tzSet
	for _, s := range tzSets(v, contents) {
		s.files = map[string][]byte{}
		pr := pruner{ctx: ctx, dir: s.dir, bbox: bboxRadians(b), files: s.files}
		ts, ok, err := pr.tileset(s.tileset)
		if err != nil {
			return TZResult{}, fmt.Errorf("export: %s: %w", s.name, err)
		}
		if ok {
			s.root = ts
			sets = append(sets, s)
			res.Tiles += pr.tiles
			res.Tilesets = append(res.Tilesets, s.name)
		}
	}
	if len(sets) == 0 {
		return TZResult{}, ErrNoTiles
	}
	zw := threetz.NewWriter(w)
	add := func(name string, data []byte) error {
		res.Files++
		return zw.Add(name, data)
	}
	if len(sets) == 1 && sets[0].tileset == "tileset.json" {
		if err := addFiles(sets[0].files, "", add); err != nil {
			return TZResult{}, err
		}
		return res, zw.Close()
	}
	var children []any
	union := []float64{math.Inf(1), math.Inf(1), math.Inf(-1), math.Inf(-1), math.Inf(1), math.Inf(-1)}
	geomErr := 0.0
	for _, s := range sets {
		if err := addFiles(s.files, s.prefix, add); err != nil {
			return TZResult{}, err
		}
		root, _ := s.root["root"].(map[string]any)
		ge, _ := s.root["geometricError"].(float64)
		geomErr = math.Max(geomErr, ge)
		if r, ok := region(root); ok {
			for i := range 6 {
				if i < 2 || i == 4 {
					union[i] = math.Min(union[i], r[i])
				} else {
					union[i] = math.Max(union[i], r[i])
				}
			}
		}
		children = append(children, map[string]any{"boundingVolume": root["boundingVolume"], "geometricError": ge,
			"content": map[string]any{"uri": s.prefix + s.tileset}})
	}
	if math.IsInf(union[0], 0) {
		return TZResult{}, errors.New("export: no tileset root has a bounding region")
	}
	top, err := json.Marshal(map[string]any{
		"asset":          map[string]any{"version": "1.1", "generator": "svc export 3tz"},
		"geometricError": geomErr,
		"root": map[string]any{"boundingVolume": map[string]any{"region": union}, "geometricError": geomErr, "refine": "ADD",
			"children": children}})
	if err != nil {
		return TZResult{}, err
	}
	if err := add("tileset.json", top); err != nil {
		return TZResult{}, err
	}
	return res, zw.Close()
}

func addFiles(files map[string][]byte, prefix string, add func(string, []byte) error) error {
	names := make([]string, 0, len(files))
	for n := range files {
		names = append(names, n)
	}
	slices.Sort(names)
	for _, n := range names {
		if err := add(prefix+n, files[n]); err != nil {
			return err
		}
	}
	return nil
}

// pruner reads a pack's tilesets and keeps the tiles meeting bbox.
type pruner struct {
	ctx   context.Context
	dir   string
	bbox  [4]float64 // west, south, east, north in radians
	files map[string][]byte
	tiles int
}

func bboxRadians(b geo.BBox) [4]float64 {
	const r = math.Pi / 180
	return [4]float64{b.MinLon * r, b.MinLat * r, b.MaxLon * r, b.MaxLat * r}
}

// tileset reads the tileset JSON at name (relative to the pack), prunes
// it and records it and its content in p.files; ok is false when its root
// does not meet the bbox.
func (p *pruner) tileset(name string) (map[string]any, bool, error) {
	if err := p.ctx.Err(); err != nil {
		return nil, false, err
	}
	raw, err := p.read(name)
	if err != nil {
		return nil, false, err
	}
	var ts map[string]any
	if err := json.Unmarshal(raw, &ts); err != nil {
		return nil, false, fmt.Errorf("%s: %w", name, err)
	}
	root, _ := ts["root"].(map[string]any)
	if root == nil {
		return nil, false, fmt.Errorf("%s: no root tile", name)
	}
	ok, err := p.tile(root, path.Dir(name))
	if err != nil || !ok {
		return nil, false, err
	}
	out, err := json.Marshal(ts)
	if err != nil {
		return nil, false, err
	}
	p.files[name] = out
	return ts, true, nil
}

// tile prunes the children of t; false when t itself does not meet the bbox.
func (p *pruner) tile(t map[string]any, base string) (bool, error) {
	if r, ok := region(t); ok && (r[0] > p.bbox[2] || r[2] < p.bbox[0] || r[1] > p.bbox[3] || r[3] < p.bbox[1]) {
		return false, nil
	}
	p.tiles++
	var contents []any
	if c, ok := t["content"].(map[string]any); ok {
		contents = append(contents, c)
	}
	if cs, ok := t["contents"].([]any); ok {
		contents = append(contents, cs...)
	}
	for _, c := range contents {
		cm, _ := c.(map[string]any)
		uri, _ := cm["uri"].(string)
		if uri == "" || strings.Contains(uri, ":") {
			continue
		}
		name := path.Clean(path.Join(base, uri))
		if strings.HasPrefix(name, "../") {
			return false, fmt.Errorf("content %q outside the pack", uri)
		}
		if strings.HasSuffix(name, ".json") {
			if _, ok, err := p.tileset(name); err != nil {
				return false, err
			} else if !ok {
				delete(cm, "uri") // replaced below
				delete(t, "content")
			}
			continue
		}
		data, err := p.read(name)
		if err != nil {
			return false, err
		}
		p.files[name] = data
	}
	if kids, ok := t["children"].([]any); ok {
		var keep []any
		for _, k := range kids {
			km, _ := k.(map[string]any)
			if km == nil {
				continue
			}
			ok, err := p.tile(km, base)
			if err != nil {
				return false, err
			}
			if ok {
				keep = append(keep, km)
			}
		}
		if len(keep) > 0 {
			t["children"] = keep
		} else {
			delete(t, "children")
		}
	}
	return true, nil
}

func (p *pruner) read(name string) ([]byte, error) {
	b, err := os.ReadFile(filepath.Join(p.dir, filepath.FromSlash(name)))
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", name, err)
	}
	return b, nil
}

// region returns a tile's bounding region (radians, metres), if it has one.
func region(t map[string]any) ([6]float64, bool) {
	bv, _ := t["boundingVolume"].(map[string]any)
	rs, _ := bv["region"].([]any)
	var r [6]float64
	if len(rs) != 6 {
		return r, false
	}
	for i, v := range rs {
		f, ok := v.(float64)
		if !ok {
			return r, false
		}
		r[i] = f
	}
	return r, true
}
