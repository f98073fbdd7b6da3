package scalegen

import (
	"bufio"
	"context"
	"encoding/xml"
	"fmt"
	"io"
	"math"
	"os"
	"runtime"
	"strconv"

	"github.com/paulmach/osm"
	"github.com/paulmach/osm/osmpbf"
	"github.com/svc-geodata/svc/geo"
)

// idStride separates the ids of two copies of the OSM sample: larger than
// any id of 2020 (nodes below 8e9), small enough for 9e8 copies.
const idStride = 10_000_000_000

// osmSample is a real OSM extract held in memory, its nodes in the UTM
// zone the copies are shifted in.
type osmSample struct {
	nodes                  []*osm.Node
	e, n                   []float64 // UTM of each node
	ways                   []*osm.Way
	rels                   []*osm.Relation
	minE, minN, maxE, maxN float64
	size                   int64
}

// loadOSM reads an .osm.pbf sample (nodes, ways, relations in id order, as
// every PBF writer keeps them).
func loadOSM(ctx context.Context, path string, zone geo.Zone) (*osmSample, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("scalegen: osm sample: %w", err)
	}
	defer f.Close()
	st, _ := f.Stat()
	s := &osmSample{minE: math.Inf(1), minN: math.Inf(1), maxE: math.Inf(-1), maxN: math.Inf(-1), size: st.Size()}
	sc := osmpbf.New(ctx, f, max(1, runtime.GOMAXPROCS(0)))
	defer sc.Close()
	for sc.Scan() {
		switch o := sc.Object().(type) {
		case *osm.Node:
			e, n := geo.ToUTM(zone, o.Lon, o.Lat)
			s.nodes, s.e, s.n = append(s.nodes, o), append(s.e, e), append(s.n, n)
			s.minE, s.maxE = math.Min(s.minE, e), math.Max(s.maxE, e)
			s.minN, s.maxN = math.Min(s.minN, n), math.Max(s.maxN, n)
		case *osm.Way:
			s.ways = append(s.ways, o)
		case *osm.Relation:
			s.rels = append(s.rels, o)
		}
	}
	if err := sc.Err(); err != nil && err != io.EOF {
		return nil, fmt.Errorf("scalegen: osm sample %s: %w", path, err)
	}
	if len(s.nodes) == 0 {
		return nil, fmt.Errorf("scalegen: osm sample %s has no nodes", path)
	}
	return s, nil
}

// osmCopy places one copy of the sample: its south-west corner in UTM
// metres.
type osmCopy struct{ e, n float64 }

// osmCounts is what writeOSM wrote.
type osmCounts struct {
	Copies, Nodes, Ways, Relations int
	Bytes                          int64
}

// writeOSM writes the copies as one OSM XML file the way osmium writes it
// (nodes, then ways, then relations, each in id order; copy k adds
// k*idStride to every id and reference).
func writeOSM(path string, s *osmSample, zone geo.Zone, copies []osmCopy, bounds geo.BBox) (osmCounts, error) {
	f, err := os.Create(path)
	if err != nil {
		return osmCounts{}, fmt.Errorf("scalegen: %w", err)
	}
	cw := &countWriter{w: f}
	w := bufio.NewWriterSize(cw, 1<<20)
	c := osmCounts{Copies: len(copies)}
	fmt.Fprintf(w, "<?xml version='1.0' encoding='UTF-8'?>\n<osm version=\"0.6\" generator=\"svc scalegen\">\n")
	fmt.Fprintf(w, "  <bounds minlat=\"%.7f\" minlon=\"%.7f\" maxlat=\"%.7f\" maxlon=\"%.7f\"/>\n", bounds.MinLat, bounds.MinLon, bounds.MaxLat, bounds.MaxLon)
	var b []byte
	for k, cp := range copies {
		off := osm.NodeID(int64(k) * idStride)
		de, dn := cp.e-s.minE, cp.n-s.minN
		for i, nd := range s.nodes {
			lon, lat := geo.FromUTM(zone, s.e[i]+de, s.n[i]+dn)
			b = append(b[:0], `  <node id="`...)
			b = strconv.AppendInt(b, int64(nd.ID+off), 10)
			b = append(b, `" version="`...)
			b = strconv.AppendInt(b, int64(max(nd.Version, 1)), 10)
			b = append(b, `" lat="`...)
			b = strconv.AppendFloat(b, lat, 'f', 7, 64)
			b = append(b, `" lon="`...)
			b = strconv.AppendFloat(b, lon, 'f', 7, 64)
			if len(nd.Tags) == 0 {
				b = append(b, "\"/>\n"...)
			} else {
				b = append(b, "\">\n"...)
				b = appendTags(b, nd.Tags)
				b = append(b, "  </node>\n"...)
			}
			w.Write(b)
			c.Nodes++
		}
	}
	for k := range copies {
		off := int64(k) * idStride
		for _, wy := range s.ways {
			b = append(b[:0], `  <way id="`...)
			b = strconv.AppendInt(b, int64(wy.ID)+off, 10)
			b = append(b, `" version="`...)
			b = strconv.AppendInt(b, int64(max(wy.Version, 1)), 10)
			b = append(b, "\">\n"...)
			for _, wn := range wy.Nodes {
				b = append(b, `    <nd ref="`...)
				b = strconv.AppendInt(b, int64(wn.ID)+off, 10)
				b = append(b, "\"/>\n"...)
			}
			b = appendTags(b, wy.Tags)
			b = append(b, "  </way>\n"...)
			w.Write(b)
			c.Ways++
		}
	}
	for k := range copies {
		off := int64(k) * idStride
		for _, r := range s.rels {
			b = append(b[:0], `  <relation id="`...)
			b = strconv.AppendInt(b, int64(r.ID)+off, 10)
			b = append(b, `" version="`...)
			b = strconv.AppendInt(b, int64(max(r.Version, 1)), 10)
			b = append(b, "\">\n"...)
			for _, m := range r.Members {
				b = append(b, `    <member type="`...)
				b = append(b, m.Type...)
				b = append(b, `" ref="`...)
				b = strconv.AppendInt(b, m.Ref+off, 10)
				b = append(b, `" role="`...)
				b = appendEscaped(b, m.Role)
				b = append(b, "\"/>\n"...)
			}
			b = appendTags(b, r.Tags)
			b = append(b, "  </relation>\n"...)
			w.Write(b)
			c.Relations++
		}
	}
	w.WriteString("</osm>\n")
	err = w.Flush()
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return c, fmt.Errorf("scalegen: %s: %w", path, err)
	}
	c.Bytes = cw.n
	return c, nil
}

// appendTags appends one tag line per tag.
func appendTags(b []byte, tags osm.Tags) []byte {
	for _, t := range tags {
		b = append(b, `    <tag k="`...)
		b = appendEscaped(b, t.Key)
		b = append(b, `" v="`...)
		b = appendEscaped(b, t.Value)
		b = append(b, "\"/>\n"...)
	}
	return b
}

type byteWriter struct{ b *[]byte }

func (w byteWriter) Write(p []byte) (int, error) { *w.b = append(*w.b, p...); return len(p), nil }

func appendEscaped(b []byte, s string) []byte {
	xml.EscapeText(byteWriter{&b}, []byte(s))
	return b
}

type countWriter struct {
	w io.Writer
	n int64
}

func (c *countWriter) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	c.n += int64(n)
	return n, err
}
