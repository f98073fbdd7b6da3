package importer

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/svc-geodata/svc/geo"
	"github.com/svc-geodata/svc/internal/testtool"
	"github.com/svc-geodata/svc/lod2store"
	"github.com/svc-geodata/svc/pack"
)

// TestImportLoD2ReusesUnchangedFiles imports the real NRW tile cut into 20
// files (with repeated border buildings) as one snapshot, changes one file
// (5 %) and imports the next snapshot: only the changed file and the one
// that repeats buildings of its predecessor are parsed, the new pack is
// the previous one patched (lod2store.PatchLoD2), and everything a user
// sees equals a full import of the same files into an empty data
// directory but the ids of the rows written anew: the buildings, surfaces,
// geometry and R*Tree boxes a GIS tool reads, the statistics and metadata,
// every page of bbox searches (same surfaces in the same order, followed
// through their cursors), every building by gml:id, the manifest and the
// summary. Given in reverse order, the unchanged files cannot keep their
// rows' order, and a new file beyond the extent changes the Hilbert
// curve: in both cases the import writes a new pack copying them instead,
// the same byte for byte as a full import.
func TestImportLoD2ReusesUnchangedFiles(t *testing.T) {
	requireSample(t, sampleNRW)
	src := t.TempDir()
	paths, _ := splitSample(t, sampleNRW, src, splitOptions{Parts: 4, Replicas: 5, Overlap: 0})
	// One overlap, so one file repeats gml:ids and is never reused.
	first, _ := os.ReadFile(paths[0])
	head, _, _ := strings.Cut(string(first), "<core:cityObjectMember>")
	i := strings.Index(string(first), "<core:cityObjectMember>")
	j := strings.Index(string(first), "</core:cityObjectMember>") + len("</core:cityObjectMember>")
	repeat := filepath.Join(src, "r00_p000a.gml")
	os.WriteFile(repeat, []byte(head+string(first[i:j])+"\n</core:CityModel>\n"), 0o644)
	// Addresses (the NRW tile has none) in a file kept and in the file
	// changed below, so the address rows are kept, deleted and written
	// anew.
	addAddress(t, paths[3], "Hauptstraße", "5")
	addAddress(t, paths[7], "Kirchweg", "12a")
	common := func(data, snap string, sum *LoD2Summary) Common {
		return Common{DataDir: data, BL: "nrw", Snapshot: snap, LicenseID: "dl-de-zero-2.0", Workers: 2, Summary: sum}
	}
	type imported struct {
		sum  LoD2Summary
		m    pack.Manifest
		file string
	}
	run := func(t *testing.T, data, snap string, inputs []string) imported {
		t.Helper()
		var r imported
		m, err := LoD2(context.Background(), common(data, snap, &r.sum), inputs)
		if err != nil {
			t.Fatal(err)
		}
		r.m, r.file = m, filepath.Join(data, "lod2", "nrw", snap, LoD2File)
		return r
	}
	// Each case starts from the first snapshot's data directory.
	data0 := t.TempDir()
	sum1 := run(t, data0, "2026-01-01", []string{src}).sum
	if sum1.Duplicates == 0 || sum1.ReusedFiles != 0 {
		t.Fatalf("first import: %d repeats, %d reused", sum1.Duplicates, sum1.ReusedFiles)
	}
	// The yearly update: one file changed (a building moved by 1 m).
	changed := paths[7]
	raw, _ := os.ReadFile(changed)
	raw = bytes.Replace(raw, []byte(" 5659"), []byte(" 5658"), 1)
	raw = bytes.Replace(raw, []byte("Kirchweg"), []byte("Kirchstraße"), 1)
	os.WriteFile(changed, raw, 0o644)
	// A new file 10 km east of the others (ids made unique): the extent
	// grows, so the Hilbert curve changes and the pack cannot be patched.
	part, _ := os.ReadFile(paths[2])
	east := strings.NewReplacer(` 280`, ` 281`, `gml:id="`, `gml:id="east_`, `xlink:href="#`, `xlink:href="#east_`).Replace(string(part))
	extra := filepath.Join(t.TempDir(), "zz_east.gml")
	os.WriteFile(extra, []byte(east), 0o644)
	all, _ := filepath.Glob(filepath.Join(src, "*.gml"))
	reversed := slices.Clone(all)
	slices.Reverse(reversed)
	for _, tc := range []struct {
		name    string
		inputs  []string
		patched bool
		parsed  int
		why     string // in NoPatch
	}{
		{"patched", []string{src}, true, 2, ""},
		// The repeating file now comes first: the one it repeats is parsed too.
		{"reordered", reversed, false, 3, "another order"},
		{"extent grows", []string{src, extra}, false, 3, "extent changes"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			data := t.TempDir()
			if err := os.CopyFS(data, os.DirFS(data0)); err != nil {
				t.Fatal(err)
			}
			inc := run(t, data, "2027-01-01", tc.inputs)
			n := len(paths) + 1 + len(tc.inputs) - 1
			if tc.name == "reordered" {
				n = len(paths) + 1
			}
			if s := inc.sum; s.ReusedFrom != "2026-01-01" || s.ParsedFiles != tc.parsed || s.ReusedFiles != n-tc.parsed || s.Patched != tc.patched || !strings.Contains(s.NoPatch, tc.why) {
				t.Errorf("parsed %d and reused %d of %d files (from %q), patched %v (%s); want %d parsed (the changed file and the ones repeating ids), patched %v (%s)",
					s.ParsedFiles, s.ReusedFiles, n, s.ReusedFrom, s.Patched, s.NoPatch, tc.parsed, tc.patched, tc.why)
			}
			full := run(t, t.TempDir(), "2027-01-01", tc.inputs)
			if full.sum.ParsedFiles != n {
				t.Errorf("full import parsed %d of %d files", full.sum.ParsedFiles, n)
			}
			if da, db := dumpVisible(t, inc.file), dumpVisible(t, full.file); da != db {
				t.Errorf("what a user sees differs from the full import's: %s", firstLineDiff(da, db))
			}
			if tc.patched {
				checkGaps(t, inc.file)
			}
			checkTilesLikeFull(t, "nrw", inc.file, full.file)
			// The previous snapshot is only read.
			prevDir := filepath.Join(data, "lod2", "nrw", "2026-01-01")
			if m, err := pack.ReadManifest(prevDir); err != nil {
				t.Fatal(err)
			} else if dmg, err := pack.Verify(context.Background(), prevDir, m); err != nil || len(dmg) > 0 {
				t.Errorf("the previous snapshot changed: %v %v", dmg, err)
			}
			if !tc.patched {
				if da, db := dumpStore(t, inc.file), dumpStore(t, full.file); da != db {
					t.Errorf("rows differ from the full import's: %s", firstLineDiff(da, db))
				}
				sa, _ := os.ReadFile(inc.file + lod2store.SearchFileSuffix)
				sb, _ := os.ReadFile(full.file + lod2store.SearchFileSuffix)
				if d := firstDiff(sa, sb); d != "" {
					t.Errorf("search file differs from the full import's: %s", d)
				}
			}
			for _, s := range []*LoD2Summary{&inc.sum, &full.sum} {
				s.ParsedFiles, s.ReusedFiles, s.ReusedFrom, s.Patched, s.NoPatch, s.UnreadFiles = 0, 0, "", false, "", 0
			}
			if !reflect.DeepEqual(inc.sum, full.sum) {
				t.Errorf("summary differs from the full import's")
			}
			if a, b := *inc.m.LoD2, *full.m.LoD2; a.BuildingCount != b.BuildingCount || a.SurfaceCount != b.SurfaceCount ||
				*a.ValidationPassPct != *b.ValidationPassPct || !reflect.DeepEqual(inc.m.BBoxWGS84, full.m.BBoxWGS84) || inc.m.CRS != full.m.CRS {
				t.Errorf("manifest %+v, full import %+v", inc.m, full.m)
			}
		})
	}
}

// checkGaps checks a patched pack's surface ids: the replaced file's ids
// are unused (not found, not a cursor), the others all found.
func checkGaps(t *testing.T, path string) {
	t.Helper()
	s, err := lod2store.OpenLoD2(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	_, n := s.Counts()
	found, gap := int64(0), int64(0)
	for sid := int64(1); sid <= 2*n; sid++ {
		if _, err := s.Surface(sid); err == nil {
			found++
		} else if errors.Is(err, lod2store.ErrNotFound) && found < n && gap == 0 {
			gap = sid
		}
	}
	if found != n || gap == 0 {
		t.Fatalf("%d of %d surfaces found by id, first unused id %d; want all and a gap", found, n, gap)
	}
	if _, err := s.Search(context.Background(), s.BBox(), gap, 10); !errors.Is(err, lod2store.ErrCursor) {
		t.Errorf("search after unused surface %d: %v, want ErrCursor", gap, err)
	}
}

// firstLineDiff names the first line where two dumps differ.
func firstLineDiff(a, b string) string {
	la, lb := strings.Split(a, "\n"), strings.Split(b, "\n")
	for i := range min(len(la), len(lb)) {
		if la[i] != lb[i] {
			return fmt.Sprintf("line %d:\n  %.300s\n  %.300s", i+1, la[i], lb[i])
		}
	}
	return fmt.Sprintf("%d lines against %d", len(la), len(lb))
}

// dumpVisible writes out what a user of a LoD2 file sees, without the
// surface and building ids (numbers that differ between a patched and a
// fully written pack): through SQLite what a GIS tool reads (buildings
// with their surfaces and geometry by gml:id, the gml:id lookup, the
// R*Tree box of each surface, the layer statistics, the metadata, the
// source files), and through lod2store what the server answers (every
// page of bbox searches of the whole extent and of 9 parts of it, limit
// 37, each next page asked with the cursor of the last hit; every building
// by gml:id; counts).
func dumpVisible(t *testing.T, path string) string {
	t.Helper()
	db, err := sql.Open("sqlite", "file:"+path+"?mode=ro")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var b strings.Builder
	var gmlids []string
	for _, q := range []string{
		`SELECT b.gmlid, b.surface_count, b.valid, s.gmlid, s.surface_class, hex(s.geom) FROM buildings b JOIN surfaces s USING (building_id) ORDER BY b.gmlid, s.surface_id`,
		`SELECT i.gmlid, b.gmlid FROM building_ids i JOIN buildings b USING (building_id) ORDER BY i.gmlid`,
		`SELECT (SELECT count(*) FROM building_ids), (SELECT count(*) FROM idx_surfaces_geom), (SELECT count(*) FROM surfaces)`,
		`SELECT b.gmlid, s.gmlid, s.surface_class, r.xmin, r.xmax, r.ymin, r.ymax FROM surfaces s JOIN buildings b USING (building_id)
JOIN idx_surfaces_geom r ON r.pkid = s.surface_id ORDER BY b.gmlid, s.surface_id`,
		`SELECT f_table_name, f_geometry_column, row_count, extent_min_x, extent_min_y, extent_max_x, extent_max_y FROM geometry_columns_statistics`,
		`SELECT key, value FROM svc_metadata WHERE key <> 'import_finished_at' ORDER BY key`,
		`SELECT name, size, sha256, buildings, surfaces, duplicates, summary FROM source_files ORDER BY name`,
		`SELECT a.part, a.gmlid, a.parent_gmlid, a.function, a.function_space, a.function_more, a.roof_type, a.roof_type_space, a.measured_height_m, a.storeys, a.creation_date, a.municipality_key, a.municipality_name, a.source_roof, a.source_ground, a.source_position, a.footprint_date, a.footprint_area_m2, a.footprint_source, a.ground_z, a.eaves_z, a.ridge_z, a.height_m, a.roof_area_flat_m2, a.roof_area_low_m2, a.roof_area_medium_m2, a.roof_area_steep_m2, a.roof_area_m2, a.wall_area_m2, a.volume_m3, a.volume_reason, a.lon, a.lat, a.generic, a.invalid FROM building_attrs a JOIN buildings b ON b.building_id = a.building_id ORDER BY b.gmlid, a.part`,
		`SELECT b.gmlid, a.part, a.seq, a.street, a.house_number, a.postal_code, a.locality, a.country, a.street_key, a.number_key, a.locality_key
FROM addresses a JOIN buildings b USING (building_id) ORDER BY b.gmlid, a.part, a.seq`,
		`SELECT b.gmlid, r.min_lon, r.max_lon, r.min_lat, r.max_lat FROM building_bbox r JOIN buildings b USING (building_id) ORDER BY b.gmlid`,
	} {
		rows, err := db.Query(q)
		if err != nil {
			t.Fatal(err)
		}
		cols, _ := rows.Columns()
		vals, ptrs := make([]any, len(cols)), make([]any, len(cols))
		for i := range vals {
			ptrs[i] = &vals[i]
		}
		for rows.Next() {
			if err := rows.Scan(ptrs...); err != nil {
				t.Fatal(err)
			}
			fmt.Fprintln(&b, vals...)
			if strings.HasPrefix(q, "SELECT i.gmlid") {
				gmlids = append(gmlids, fmt.Sprint(vals[0]))
			}
		}
		rows.Close()
	}
	s, err := lod2store.OpenLoD2(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	nb, ns := s.Counts()
	roofs, _ := s.RoofCount()
	fmt.Fprintln(&b, "counts", nb, ns, roofs, s.BBox(), s.EPSG())
	boxes := []geo.BBox{s.BBox()}
	bb := s.BBox()
	w, h := (bb.MaxLon-bb.MinLon)/3, (bb.MaxLat-bb.MinLat)/3
	for x := range 3 {
		for y := range 3 {
			lon, lat := bb.MinLon+float64(x)*w, bb.MinLat+float64(y)*h
			boxes = append(boxes, geo.BBox{MinLon: lon, MinLat: lat, MaxLon: lon + w, MaxLat: lat + h})
		}
	}
	for _, q := range boxes {
		fmt.Fprintln(&b, "search", q)
		for after, page := int64(0), 0; ; page++ {
			hits, err := s.Search(context.Background(), q, after, 37)
			if err != nil {
				t.Fatal(err)
			}
			for _, h := range hits {
				fmt.Fprintln(&b, page, h.GMLID, h.Class, string(h.Coords))
			}
			if len(hits) < 37 {
				break
			}
			after = hits[len(hits)-1].SurfaceID
		}
	}
	for _, id := range gmlids {
		bd, err := s.Building(context.Background(), id)
		if err != nil {
			t.Fatal(err)
		}
		fmt.Fprintln(&b, "building", id, string(bd.Coords))
		a, err := s.Attributes(context.Background(), id)
		if err != nil {
			t.Fatal(err)
		}
		a.BuildingID = 0
		j, _ := json.Marshal(a)
		fmt.Fprintln(&b, "attributes", id, string(j))
	}
	// Building queries, paged through their keyset cursors.
	for _, q := range []lod2store.BuildingQuery{
		{Limit: 7, Sort: []lod2store.Sort{{Name: "height_m", Desc: true}, {Name: "gmlid"}}},
		{Limit: 5, Where: "roof_type = ?", Args: []any{"3100"}, Sort: []lod2store.Sort{{Name: "gmlid"}}, BBox: &boxes[1]},
	} {
		for page := 0; ; page++ {
			p, err := s.QueryBuildings(context.Background(), q)
			if err != nil {
				t.Fatal(err)
			}
			for _, r := range p.Rows {
				fmt.Fprintln(&b, "query", page, r.Owner.GMLID, r.Lon, r.Lat)
			}
			if p.Next == "" {
				break
			}
			q.After = p.Next
		}
	}
	for _, q := range []string{"Hauptstr. 5", "Kirchstrasse 12a", "Kirchweg 12 a"} {
		aq, _ := lod2store.ParseAddress(q)
		hits, err := s.FindAddresses(context.Background(), aq, 10)
		if err != nil {
			t.Fatal(err)
		}
		if len(hits) == 0 && !strings.Contains(q, "weg") {
			t.Errorf("address %q not found", q)
		}
		fmt.Fprintf(&b, "address %q %+v\n", q, hits)
	}
	return b.String()
}

// dumpStore returns the rows of every table of a LoD2 file but its time
// stamps and the source file summaries, in key order.
func dumpStore(t *testing.T, path string) string {
	t.Helper()
	return testtool.SQLRows(t, path,
		`SELECT surface_id, building_id, gmlid, surface_class, hex(geom) FROM surfaces ORDER BY surface_id`,
		`SELECT building_id, gmlid, surface_count, valid FROM buildings ORDER BY building_id`,
		`SELECT gmlid, building_id FROM building_ids ORDER BY gmlid`,
		`SELECT nodeno, hex(data) FROM idx_surfaces_geom_node ORDER BY nodeno`,
		`SELECT rowid, nodeno FROM idx_surfaces_geom_rowid ORDER BY rowid`,
		`SELECT name, size, sha256, first_building, buildings, first_surface, surfaces, duplicates FROM source_files ORDER BY file_id`,
		`SELECT key, value FROM svc_metadata WHERE key <> 'import_finished_at' ORDER BY key`,
		`SELECT * FROM building_attrs ORDER BY building_id, part`,
		`SELECT * FROM addresses ORDER BY building_id, part, seq`,
		`SELECT * FROM building_bbox ORDER BY building_id`,
		`SELECT nodeno, hex(data) FROM building_bbox_node ORDER BY nodeno`)
}

// addAddress gives the first building of the CityGML file at path an
// address (street and number, 50667 Köln) in LoD2-DE's xAL form.
func addAddress(t *testing.T, path, street, number string) {
	t.Helper()
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	addr := `<bldg:address><core:Address><core:xalAddress><xAL:AddressDetails><xAL:Country><xAL:CountryName>Germany</xAL:CountryName>
<xAL:Locality Type="Town"><xAL:LocalityName>Köln</xAL:LocalityName><xAL:Thoroughfare Type="Street">
<xAL:ThoroughfareNumber>` + number + `</xAL:ThoroughfareNumber><xAL:ThoroughfareName>` + street + `</xAL:ThoroughfareName>
</xAL:Thoroughfare><xAL:PostalCode><xAL:PostalCodeNumber>50667</xAL:PostalCodeNumber></xAL:PostalCode></xAL:Locality></xAL:Country>
</xAL:AddressDetails></core:xalAddress></core:Address></bldg:address>
`
	i := bytes.Index(raw, []byte("</bldg:Building>"))
	if i < 0 {
		t.Fatalf("%s: no building", path)
	}
	if err := os.WriteFile(path, slices.Concat(raw[:i], []byte(addr), raw[i:]), 0o644); err != nil {
		t.Fatal(err)
	}
}
