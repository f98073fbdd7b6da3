package citygml

import (
	"bytes"
	"errors"
	"io"
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// FuzzReader feeds arbitrary bytes to the reader: it must not panic, must
// end with io.EOF or a positioned *Error, must respect the caps, and must
// list every building part once with its attributes and a parent read
// before it. testdata/v1_attrs.gml seeds the attribute elements.
func FuzzReader(f *testing.F) {
	files, _ := filepath.Glob("testdata/*.gml")
	for _, p := range files {
		data, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	f.Add([]byte(doc(okSRS, okRing)))
	f.Add([]byte(doc(okSRS, `<gml:pos>1 2 3</gml:pos><gml:pos>4 5 6</gml:pos>`)))
	f.Add([]byte(`<a><![CDATA[x]]><!-- c --><?pi x?><!DOCTYPE a [<!ENTITY e "x">]></a>`))
	f.Fuzz(func(t *testing.T, data []byte) {
		r := NewReader(bytes.NewReader(data), "fuzz.gml")
		for range 10000 {
			b, err := r.Next()
			if err == io.EOF {
				return
			}
			if err != nil {
				var pe *Error
				if !errors.As(err, &pe) || pe.Line < 1 {
					t.Fatalf("unpositioned error %v", err)
				}
				return
			}
			if len(b.BuildingParts) != len(b.Parts) {
				t.Fatalf("%d BuildingParts for %d Parts", len(b.BuildingParts), len(b.Parts))
			}
			for i, p := range b.BuildingParts {
				if p.ID != b.Parts[i] || (p.ParentID != b.ID && !slices.Contains(b.Parts[:i], p.ParentID)) {
					t.Fatalf("part %d %q with parent %q out of order", i, p.ID, p.ParentID)
				}
			}
			pts := 0
			for _, s := range b.Surfaces {
				if len(s.Polygons) == 0 {
					t.Fatal("surface without polygons")
				}
				for _, p := range s.Polygons {
					pts += len(p.Exterior)
					for _, h := range p.Interiors {
						pts += len(h)
					}
					CheckPolygon(p, DefaultPlanarityTolM)
				}
			}
			if pts > MaxPoints+1 {
				t.Fatalf("building with %d points passed the cap", pts)
			}
		}
	})
}
