package importer

import (
	"context"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/svc-geodata/svc/internal/testtool"
)

// TestLoD2FileOpensInGISTools imports the real Berlin sample and asks GDAL
// and the spatialite CLI what they see in the result.
func TestLoD2FileOpensInGISTools(t *testing.T) {
	t.Parallel()
	requireSample(t, sampleBE)
	ogrinfo := testtool.Require(t, "ogrinfo", "apt-get install gdal-bin")
	spatialite := testtool.Require(t, "spatialite", "apt-get install spatialite-bin")
	data := t.TempDir()
	m, err := LoD2(context.Background(), Common{DataDir: data, BL: "be", Snapshot: "2026-07-20", LicenseID: "dl-de-zero-2.0"}, []string{sampleBE})
	if err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(data, "lod2", "be", "2026-07-20", LoD2File)

	out, err := exec.Command(ogrinfo, "-ro", "-so", file, "surfaces").CombinedOutput()
	if err != nil {
		t.Fatalf("ogrinfo: %v\n%s", err, out)
	}
	info := string(out)
	for _, want := range []string{"Layer name: surfaces", "Geometry: 3D Multi Polygon", `ID["EPSG",25833]`,
		"Feature Count: " + strconv.FormatInt(m.LoD2.SurfaceCount, 10)} {
		if !strings.Contains(info, want) {
			t.Errorf("ogrinfo lacks %q:\n%s", want, info)
		}
	}

	// ST_IsValid is 2D in GEOS, where every vertical wall is degenerate, so
	// it is no measure of LoD2 validity; the counts and types are.
	sql := "SELECT CheckSpatialMetaData(); SELECT count(*), min(ST_SRID(geom)), max(ST_SRID(geom)) FROM surfaces; " +
		"SELECT GeometryType(geom) FROM surfaces LIMIT 1; SELECT count(DISTINCT building_id) FROM surfaces;"
	out, err = exec.Command(spatialite, "-silent", file, sql).Output()
	if err != nil {
		t.Fatalf("spatialite: %v\n%s", err, out)
	}
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	want := []string{"3", strconv.FormatInt(m.LoD2.SurfaceCount, 10) + "|25833|25833", "MULTIPOLYGON Z", strconv.FormatInt(m.LoD2.BuildingCount, 10)}
	if strings.Join(lines, "\n") != strings.Join(want, "\n") {
		t.Fatalf("spatialite said %.300q, want %q", lines, want)
	}

	// The R*Tree is packed by the importer (not built by SQLite insert by
	// insert): SpatiaLite must find it consistent with the geometries and
	// answer a window through it as a full scan does (the index is a
	// filter of float32 boxes rounded outwards, so it is combined with the
	// exact test, as SpatiaLite users do).
	frame := "BuildMbr(391400, 5817750, 391800, 5817950, 25833)"
	sql = "SELECT CheckSpatialIndex('surfaces', 'geom'); " +
		"SELECT count(*) FROM surfaces WHERE MbrIntersects(geom, " + frame + ") AND " +
		"ROWID IN (SELECT ROWID FROM SpatialIndex WHERE f_table_name = 'surfaces' AND search_frame = " + frame + "); " +
		"SELECT count(*) FROM surfaces WHERE MbrIntersects(geom, " + frame + ");"
	out, err = exec.Command(spatialite, "-silent", file, sql).Output()
	if err != nil {
		t.Fatalf("spatialite: %v\n%s", err, out)
	}
	lines = strings.Split(strings.TrimSpace(string(out)), "\n")
	if len(lines) != 3 || lines[0] != "1" || lines[1] != lines[2] || lines[1] == "0" {
		t.Errorf("spatialite: CheckSpatialIndex, window through the index, full scan: %q", lines)
	}

	// The attribute tables of schema 2 (docs/buildings-attributes.md) read
	// as plain SQLite: one building row per building, the sample's 196
	// addresses, and the building box R*Tree queried as SQLite documents.
	sql = "SELECT count(*) FROM building_attrs WHERE part = 0; SELECT count(*) FROM addresses; " +
		"SELECT count(*) FROM building_bbox WHERE max_lon >= 13.0 AND min_lon <= 14.0 AND max_lat >= 52.0 AND min_lat <= 53.0; " +
		"SELECT value FROM svc_metadata WHERE key = 'lod2_schema';"
	out, err = exec.Command(spatialite, "-silent", file, sql).Output()
	if err != nil {
		t.Fatalf("spatialite: %v\n%s", err, out)
	}
	n := strconv.FormatInt(m.LoD2.BuildingCount, 10)
	if got, want := strings.Fields(string(out)), []string{n, "196", n, "2"}; !slices.Equal(got, want) {
		t.Errorf("spatialite: buildings with attributes, addresses, boxes in Berlin, schema: %q, want %q", got, want)
	}
}
