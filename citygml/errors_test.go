package citygml

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"testing"
)

// doc builds a one-building document: the srsName goes on the file
// envelope (line 3), the ring content on line 6, the building starts on
// line 4.
func doc(srs, ring string) string {
	return `<?xml version="1.0"?>
<core:CityModel xmlns:core="http://www.opengis.net/citygml/2.0" xmlns:bldg="http://www.opengis.net/citygml/building/2.0" xmlns:gml="http://www.opengis.net/gml">
<gml:boundedBy><gml:Envelope` + srs + `/></gml:boundedBy>
<core:cityObjectMember><bldg:Building gml:id="B1">
<bldg:boundedBy><bldg:RoofSurface><bldg:lod2MultiSurface><gml:MultiSurface><gml:surfaceMember><gml:Polygon><gml:exterior><gml:LinearRing>
` + ring + `
</gml:LinearRing></gml:exterior></gml:Polygon></gml:surfaceMember></gml:MultiSurface></bldg:lod2MultiSurface></bldg:RoofSurface></bldg:boundedBy>
</bldg:Building></core:cityObjectMember>
</core:CityModel>
`
}

const (
	okSRS  = ` srsName="EPSG:25832"`
	okRing = `<gml:posList>0 0 0 1 0 0 1 1 0 0 0 0</gml:posList>`
)

// lineCount returns the 1-based line number of the end of s.
func lineCount(s string) int { return strings.Count(s, "\n") + 1 }

func TestReaderErrors(t *testing.T) {
	t.Parallel()
	good := doc(okSRS, okRing)
	fixture, err := os.ReadFile("testdata/v2_parts.gml")
	if err != nil {
		t.Fatal(err)
	}
	cut := string(fixture[:bytes.Index(fixture, []byte("690002 5330002"))+7])
	cutTag := string(fixture[:bytes.Index(fixture, []byte("<gml:Polygon gml:id=\"DEBY_roof_poly2"))+12])
	deep := doc(okSRS, strings.Repeat("<gml:pointProperty>", MaxDepth)+strings.Repeat("</gml:pointProperty>", MaxDepth))
	tests := []struct {
		name     string
		in       string
		sentinel error
		line     int
		msg      string
	}{
		{"empty", "", ErrEmpty, 1, "no root element"},
		{"whitespace only", "\n\n", ErrEmpty, 3, ""},
		{"declaration only", "<?xml version=\"1.0\"?>\n", ErrEmpty, 2, ""},
		{"truncated in posList", cut, ErrSyntax, lineCount(cut), "<gml:posList> not closed"},
		{"truncated in tag", cutTag, ErrSyntax, lineCount(cutTag), "end of file inside markup"},
		{"mismatched end tag", strings.Replace(good, "</gml:exterior>", "</gml:interior>", 1), ErrSyntax, 7, "does not match"},
		{"stray end tag", "</a>", ErrSyntax, 1, "unexpected end tag"},
		{"content after root", "<core:CityModel/>\n<x/>", ErrSyntax, 2, "after the root"},
		{"unquoted attribute", "<a b=c/>", ErrSyntax, 1, "not quoted"},
		{"unknown entity", strings.Replace(good, `gml:id="B1"`, `gml:id="B&nbsp;1"`, 1), ErrSyntax, 4, "unknown entity"},
		{"bad number", doc(okSRS, `<gml:posList>0 0 0 1 0 0 1 1x 0 0 0 0</gml:posList>`), ErrCoordinates, 6, `bad number "1x"`},
		{"NaN", doc(okSRS, `<gml:posList>0 0 0 1 0 0 NaN 1 0 0 0 0</gml:posList>`), ErrCoordinates, 6, "bad number"},
		{"odd coordinate count", doc(okSRS, `<gml:posList>0 0 0 1 0 0 1 1 0 0 0</gml:posList>`), ErrCoordinates, 6, "not a multiple of srsDimension 3"},
		{"odd count 2D", doc(okSRS, `<gml:posList srsDimension="2">0 0 1 0 1</gml:posList>`), ErrCoordinates, 6, "srsDimension 2"},
		{"bad srsDimension", doc(okSRS, `<gml:posList srsDimension="4">0 0 0 0</gml:posList>`), ErrCoordinates, 6, "srsDimension"},
		{"pos with 4 numbers", doc(okSRS, `<gml:pos>1 2 3 4</gml:pos>`), ErrCoordinates, 6, "gml:pos has 4"},
		{"unknown CRS", doc(` srsName="EPSG:31467"`, okRing), ErrUnknownCRS, 3, `"EPSG:31467"`},
		{"no CRS", doc("", okRing), ErrUnknownCRS, 4, `no srsName for building "B1"`},
		{"mixed CRS", doc(okSRS, `<gml:posList srsName="EPSG:25833">0 0 0 1 0 0 1 1 0 0 0 0</gml:posList><gml:pos srsName="EPSG:25832">0 0 0</gml:pos>`), ErrMixedCRS, 6, "EPSG:25833 and EPSG:25832"},
		{"not CityGML", "<html>\n<body/></html>", ErrNotCityGML, 1, ""},
		{"too deep", deep, ErrTooLarge, 6, "nested deeper"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			err := drain(strings.NewReader(tc.in), "bad.gml")
			if !errors.Is(err, tc.sentinel) {
				t.Fatalf("error %v, want %v", err, tc.sentinel)
			}
			var pe *Error
			if !errors.As(err, &pe) || pe.Name != "bad.gml" || pe.Line != tc.line {
				t.Fatalf("error %v: want bad.gml line %d", err, tc.line)
			}
			if prefix := fmt.Sprintf("bad.gml:%d: ", tc.line); !strings.HasPrefix(err.Error(), prefix) || !strings.Contains(err.Error(), tc.msg) {
				t.Fatalf("message %q: want prefix %q and %q", err, prefix, tc.msg)
			}
		})
	}
}

// drain reads all buildings and returns the first error other than io.EOF.
func drain(rd io.Reader, name string) error {
	r := NewReader(rd, name)
	for {
		_, err := r.Next()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			if _, again := r.Next(); again != err {
				return fmt.Errorf("second Next returned %v after %w", again, err)
			}
			return err
		}
	}
}

func TestReaderGoodDoc(t *testing.T) {
	t.Parallel()
	if err := drain(strings.NewReader(doc(okSRS, okRing)), "good.gml"); err != nil {
		t.Fatal(err)
	}
	// A CityModel without buildings is fine: io.EOF straight away.
	if err := drain(strings.NewReader(`<CityModel xmlns="http://www.opengis.net/citygml/2.0"/>`), "none.gml"); err != nil {
		t.Fatal(err)
	}
}

func TestReaderTooManyPoints(t *testing.T) {
	t.Parallel()
	var sb strings.Builder
	sb.WriteString("<gml:posList>")
	for range MaxPoints + 1 {
		sb.WriteString("1 2 3 ")
	}
	sb.WriteString("</gml:posList>")
	err := drain(strings.NewReader(doc(okSRS, sb.String())), "big.gml")
	if !errors.Is(err, ErrTooLarge) || !strings.HasPrefix(err.Error(), "big.gml:6: ") {
		t.Fatalf("error %v, want ErrTooLarge at big.gml:6", err)
	}
}

// failReader returns its data, then err.
type failReader struct {
	data []byte
	err  error
}

func (f *failReader) Read(p []byte) (int, error) {
	if len(f.data) == 0 {
		return 0, f.err
	}
	n := copy(p, f.data)
	f.data = f.data[n:]
	return n, nil
}

func TestReaderReadError(t *testing.T) {
	t.Parallel()
	boom := errors.New("disk on fire")
	in := doc(okSRS, okRing)
	err := drain(&failReader{data: []byte(in[:300]), err: boom}, "r.gml")
	if !errors.Is(err, boom) || !strings.HasPrefix(err.Error(), "r.gml:") {
		t.Fatalf("error %v, want wrapped read error with name", err)
	}
}

// oneByteReader returns one byte per Read, to exercise token boundaries.
type oneByteReader struct{ r io.Reader }

func (o oneByteReader) Read(p []byte) (int, error) { return o.r.Read(p[:1]) }

func TestReaderSmallReads(t *testing.T) {
	t.Parallel()
	data, err := os.ReadFile("testdata/v2_parts.gml")
	if err != nil {
		t.Fatal(err)
	}
	want := readAll(t, data, "a")
	r := NewReader(oneByteReader{bytes.NewReader(data)}, "b")
	got, err := r.Next()
	if err != nil {
		t.Fatal(err)
	}
	if fmt.Sprint(got.Surfaces) != fmt.Sprint(want[0].Surfaces) {
		t.Fatal("byte-by-byte read differs from whole read")
	}
}
