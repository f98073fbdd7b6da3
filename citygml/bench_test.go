package citygml

import (
	"bytes"
	"encoding/xml"
	"io"
	"os"
	"runtime"
	"testing"
)

func loadSample(b *testing.B, path string) []byte {
	b.Helper()
	data, err := os.ReadFile(samplePath(b, path))
	if err != nil {
		b.Fatal(err)
	}
	return data
}

// BenchmarkReader measures parsing alone (MB/s of CityGML).
func BenchmarkReader(b *testing.B) {
	for _, s := range []struct{ name, path string }{{"NRW", sampleNW}, {"Berlin", sampleBE}} {
		b.Run(s.name, func(b *testing.B) {
			data := loadSample(b, s.path)
			b.SetBytes(int64(len(data)))
			b.ReportAllocs()
			n := 0
			for b.Loop() {
				r := NewReader(bytes.NewReader(data), s.name)
				for {
					_, err := r.Next()
					if err == io.EOF {
						break
					}
					if err != nil {
						b.Fatal(err)
					}
					n++
				}
			}
			b.ReportMetric(float64(n)/b.Elapsed().Seconds(), "buildings/s")
		})
	}
}

// BenchmarkReaderValidate measures parsing plus validation.
func BenchmarkReaderValidate(b *testing.B) {
	data := loadSample(b, sampleBE)
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	polys := 0
	for b.Loop() {
		r := NewReader(bytes.NewReader(data), "be")
		for {
			bl, err := r.Next()
			if err == io.EOF {
				break
			}
			if err != nil {
				b.Fatal(err)
			}
			polys += Validate(bl, DefaultPlanarityTolM).Polygons
		}
	}
	b.ReportMetric(float64(polys)/b.Elapsed().Seconds(), "polygons/s")
}

// BenchmarkEncodingXML is the baseline the package replaces: encoding/xml
// only tokenizing the same file, without building anything.
func BenchmarkEncodingXML(b *testing.B) {
	data := loadSample(b, sampleBE)
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		d := xml.NewDecoder(bytes.NewReader(data))
		for {
			_, err := d.RawToken()
			if err == io.EOF {
				break
			}
			if err != nil {
				b.Fatal(err)
			}
		}
	}
}

func BenchmarkParseFloat(b *testing.B) {
	nums := [][]byte{[]byte("391663.880073737"), []byte("5817711.7550164"), []byte("57.462732299158"), []byte("35.138")}
	b.ReportAllocs()
	for b.Loop() {
		for _, n := range nums {
			if _, _, ok := parseFloat(n); !ok {
				b.Fatal("bad")
			}
		}
	}
	b.ReportMetric(float64(b.N*len(nums))/b.Elapsed().Seconds(), "floats/s")
}

// TestReaderStreamingMemory reads a generated ~50 MB document and checks
// the heap stays small: one building at a time.
func TestReaderStreamingMemory(t *testing.T) {
	if testing.Short() {
		t.Skip("short")
	}
	fixture, err := os.ReadFile("testdata/v2_parts.gml")
	if err != nil {
		t.Fatal(err)
	}
	start := bytes.Index(fixture, []byte("<core:cityObjectMember>"))
	end := bytes.LastIndex(fixture, []byte("</core:cityObjectMember>")) + len("</core:cityObjectMember>")
	member := fixture[start:end]
	const n = 8000
	parts := []io.Reader{bytes.NewReader(fixture[:start])}
	for range n {
		parts = append(parts, bytes.NewReader(member))
	}
	parts = append(parts, bytes.NewReader(fixture[end:]))
	r := NewReader(io.MultiReader(parts...), "gen.gml")
	var ms runtime.MemStats
	peak, count := uint64(0), 0
	for {
		_, err := r.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		if count++; count%500 == 0 {
			runtime.GC()
			runtime.ReadMemStats(&ms)
			peak = max(peak, ms.HeapInuse)
		}
	}
	if count != n {
		t.Fatalf("%d buildings, want %d", count, n)
	}
	if total := int64(len(member)) * n; r.Offset() < total || peak > 32<<20 {
		t.Fatalf("read %d bytes with peak heap %d MB; want >= %d bytes under 32 MB", r.Offset(), peak>>20, total)
	}
}
