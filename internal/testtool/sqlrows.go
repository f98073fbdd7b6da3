package testtool

import (
	"database/sql"
	"fmt"
	"strings"
	"testing"
)

// SQLRows opens the SQLite file at path read-only with the driver
// "sqlite" (the test links it: lod2store imports modernc.org/sqlite; this
// package does not, so that the tests not reading SQLite stay small) and
// returns the rows of each query as text, one line a row, in the order
// the queries give: two files with the same rows give the same text
// whatever their page layout. The resume and incremental tests of
// importer, lod2store and cmd compare a pack with one written in one go.
// Any error fails the test.
func SQLRows(t testing.TB, path string, queries ...string) string {
	t.Helper()
	db, err := sql.Open("sqlite", "file:"+path+"?mode=ro")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var b strings.Builder
	for _, q := range queries {
		rows, err := db.Query(q)
		if err != nil {
			t.Fatalf("%s: %s: %v", path, q, err)
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
		}
		err = rows.Err()
		rows.Close()
		if err != nil {
			t.Fatal(err)
		}
	}
	return b.String()
}
