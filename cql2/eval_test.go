package cql2

import (
	"database/sql"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/twpayne/go-geom"
	_ "modernc.org/sqlite"
)

// testFeature is one row of the evaluation fixture: five buildings with
// footprints on a planar grid (metres), a touches b along x = 10, e lies
// inside a, d has a courtyard (a hole) from 45,5 to 55,15.
type testFeature struct {
	id, function, roof, name string
	height                   any // float64 or nil
	storeys                  int
	built                    any // time.Time or nil
	tags                     []any
	footprint                geom.T
}

func square(x0, y0, x1, y1 float64) *geom.Polygon {
	return geom.NewPolygonFlat(geom.XY, []float64{x0, y0, x1, y0, x1, y1, x0, y1, x0, y0}, []int{10})
}

func day(s string) time.Time { t, _ := time.Parse(time.DateOnly, s); return t }

func fixture() []testFeature {
	court := geom.NewPolygonFlat(geom.XY, []float64{
		40, 0, 60, 0, 60, 20, 40, 20, 40, 0,
		45, 5, 45, 15, 55, 15, 55, 5, 45, 5,
	}, []int{10, 20})
	return []testFeature{
		{"a", "Wohnhaus", "Flachdach", "Hauptstraße 1", 25.0, 8, day("2010-05-01"), []any{"solar", "green"}, square(0, 0, 10, 10)},
		{"b", "Garage", "Satteldach", "Nebenstraße 2", 3.0, 1, day("1999-01-01"), nil, square(10, 0, 15, 5)},
		{"c", "Wohnhaus", "Flachdach", "Bahnhofstraße 5", 12.5, 4, day("2020-01-01"), []any{"solar"}, square(20, 20, 30, 30)},
		{"d", "Schule", "Walmdach", "Schulweg 3 ÉCOLE", nil, 3, nil, nil, court},
		{"e", "Wohnhaus", "flachdach", "Am Markt 7", 20.0, 6, day("2015-06-30"), nil, square(2, 2, 8, 8)},
	}
}

func (f testFeature) feature() Feature {
	props := map[string]any{"id": f.id, "function": f.function, "roof": f.roof, "name": f.name,
		"height": f.height, "storeys": f.storeys, "built": f.built}
	if f.tags != nil {
		props["tags"] = f.tags
	}
	return Feature{Properties: props, Geometry: f.footprint}
}

var evalCases = []struct {
	filter string
	want   string // ids, comma-separated
}{
	{"function = 'Wohnhaus'", "a,c,e"},
	{"function = 'Wohnhaus' AND height > 20", "a"},
	{"function = 'Wohnhaus' OR height IS NULL", "a,c,d,e"},
	{"height BETWEEN 10 AND 20", "c,e"},
	{"height NOT BETWEEN 10 AND 20", "a,b"},
	{"height IS NULL", "d"},
	{"NOT (height > 10)", "b"},
	{"function IN ('Garage', 'Schule')", "b,d"},
	{"function NOT IN ('Garage', 'Schule')", "a,c,e"},
	{"name LIKE '%straße%'", "a,b,c"},
	{"name LIKE '_m%'", "e"},
	{"name LIKE '%STRASSE%'", ""},
	{"roof = 'Flachdach'", "a,c"},
	{"CASEI(roof) = CASEI('FLACHDACH')", "a,c,e"},
	{"ACCENTI(CASEI(name)) LIKE ACCENTI(CASEI('%ecole'))", "d"},
	{"height / storeys > 3", "a,c,e"},
	{"storeys * 3 >= height", "b"},
	{"height - storeys * 3 > 1 AND storeys + 1 < 8", "e"},
	{"storeys % 2 = 0", "a,c,e"},
	{"storeys div 3 = 1", "c,d"},
	{"S_INTERSECTS(geometry, POINT(5 5))", "a,e"},
	{"S_INTERSECTS(geometry, POINT(50 10))", ""},
	{"S_INTERSECTS(geometry, POINT(10 2))", "a,b"},
	{"S_INTERSECTS(geometry, POLYGON((46 6, 54 6, 54 14, 46 14, 46 6)))", ""},
	{"S_INTERSECTS(geometry, LINESTRING(-5 5, 100 5))", "a,b,d,e"},
	{"S_TOUCHES(geometry, POLYGON((10 0, 15 0, 15 5, 10 5, 10 0)))", "a"},
	{"S_EQUALS(geometry, POLYGON((10 0, 15 0, 15 5, 10 5, 10 0)))", "b"},
	{"S_WITHIN(geometry, BBOX(-1, -1, 16, 11))", "a,b,e"},
	{"S_WITHIN(geometry, POLYGON((40 0, 60 0, 60 20, 40 20, 40 0)))", "d"},
	{"S_CONTAINS(geometry, POINT(3 3))", "a,e"},
	{"S_CONTAINS(geometry, POLYGON((2 2, 8 2, 8 8, 2 8, 2 2)))", "a,e"},
	{"S_DISJOINT(geometry, BBOX(0, 0, 16, 11))", "c,d"},
	{"S_OVERLAPS(geometry, POLYGON((5 5, 12 5, 12 12, 5 12, 5 5)))", "a,e"},
	{"S_CROSSES(geometry, LINESTRING(-5 5, 5 5))", "a,e"},
	{"S_CROSSES(geometry, LINESTRING(41 10, 59 10))", "d"},
	{"S_CROSSES(geometry, LINESTRING(46 10, 54 10))", ""},
	{"S_INTERSECTS(geometry, MULTIPOINT((25 25), (50 1)))", "c,d"},
	{"S_INTERSECTS(geometry, GEOMETRYCOLLECTION(POINT(25 25), LINESTRING(12 1, 13 1)))", "b,c"},
	{"function = 'Wohnhaus' AND S_INTERSECTS(geometry, BBOX(0, 0, 9, 9))", "a,e"},
	{"T_AFTER(built, DATE('2012-01-01'))", "c,e"},
	{"T_BEFORE(built, TIMESTAMP('2000-01-01T00:00:00Z'))", "b"},
	{"T_DURING(built, INTERVAL('2000-01-01', '2016-01-01'))", "a,e"},
	{"T_INTERSECTS(built, INTERVAL('2015-06-30', '..'))", "c,e"},
	{"built >= DATE('2015-06-30')", "c,e"},
	{"A_CONTAINS(tags, ('solar'))", "a,c"},
	{"A_OVERLAPS(tags, ('green', 'x'))", "a"},
	{"A_CONTAINEDBY(tags, ('solar', 'green', 'x'))", "a,c"},
}

func matching(t *testing.T, e *Expr, feats []testFeature) string {
	t.Helper()
	var ids []string
	for _, f := range feats {
		ok, err := e.Match(f.feature())
		if err != nil {
			t.Fatalf("%s: %v", f.id, err)
		}
		if ok {
			ids = append(ids, f.id)
		}
	}
	return strings.Join(ids, ",")
}

// TestMatch evaluates each filter on the fixture, from cql2-text and from its
// cql2-json printing, and compares the matching ids.
func TestMatch(t *testing.T) {
	t.Parallel()
	feats := fixture()
	for _, c := range evalCases {
		t.Run(c.filter, func(t *testing.T) {
			e, err := ParseText(c.filter)
			if err != nil {
				t.Fatal(err)
			}
			if got := matching(t, e, feats); got != c.want {
				t.Errorf("text: got %q, want %q", got, c.want)
			}
			j, err := ParseJSON(e.JSON())
			if err != nil {
				t.Fatal(err)
			}
			if got := matching(t, j, feats); got != c.want {
				t.Errorf("json: got %q, want %q", got, c.want)
			}
		})
	}
}

// TestSQLSplit runs each filter the way the server will: ToSQL's WHERE on a
// real SQLite table (modernc) holding the fixture's attributes, then the
// residual in Go on the rows it returned, and compares the ids with the
// expected ones. It also checks the envelope prefilter keeps every match.
func TestSQLSplit(t *testing.T) {
	t.Parallel()
	db, err := sql.Open("sqlite", ":memory:")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	db.SetMaxOpenConns(1)
	if _, err := db.Exec(`CREATE TABLE b (id TEXT, function TEXT, roof TEXT, name TEXT, height REAL, storeys INTEGER)`); err != nil {
		t.Fatal(err)
	}
	feats := fixture()
	byID := map[string]testFeature{}
	for _, f := range feats {
		byID[f.id] = f
		if _, err := db.Exec(`INSERT INTO b VALUES (?, ?, ?, ?, ?, ?)`, f.id, f.function, f.roof, f.name, f.height, f.storeys); err != nil {
			t.Fatal(err)
		}
	}
	columns := []string{"id", "function", "roof", "name", "height", "storeys"}
	opts := SQLOptions{Column: func(p string) (string, bool) {
		if slices.Contains(columns, p) {
			return `"` + p + `"`, true
		}
		return "", false
	}}
	inSQL := 0
	for _, c := range evalCases {
		e, err := ParseText(c.filter)
		if err != nil {
			t.Fatal(err)
		}
		q, err := ToSQL(e, opts)
		if err != nil {
			t.Fatal(err)
		}
		where := q.Where
		if where == "" {
			where = "1"
		} else {
			inSQL++
		}
		rows, err := db.Query(`SELECT id FROM b WHERE `+where+` ORDER BY id`, q.Args...)
		if err != nil {
			t.Fatalf("%s: %s: %v", c.filter, where, err)
		}
		var ids []string
		for rows.Next() {
			var id string
			if err := rows.Scan(&id); err != nil {
				t.Fatal(err)
			}
			f := byID[id]
			if q.Envelope != nil && !envelopeHits(q.Envelope, f.footprint) {
				continue
			}
			if q.Residual != nil {
				ok, err := q.Residual.Match(f.feature())
				if err != nil {
					t.Fatal(err)
				}
				if !ok {
					continue
				}
			}
			ids = append(ids, id)
		}
		rows.Close()
		if got := strings.Join(ids, ","); got != c.want {
			t.Errorf("%s: WHERE %s %v, residual %v: got %q, want %q", c.filter, where, q.Args, q.Residual != nil, got, c.want)
		}
	}
	if inSQL < 15 {
		t.Errorf("only %d filters reached SQL", inSQL)
	}
}

func envelopeHits(env []float64, g geom.T) bool {
	b := g.Bounds()
	return b.Min(0) <= env[2] && b.Max(0) >= env[0] && b.Min(1) <= env[3] && b.Max(1) >= env[1]
}
