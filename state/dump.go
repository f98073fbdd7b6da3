package state

import (
	"context"
	"database/sql"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"strings"
)

// DumpFormat names the JSON export of a state store; DumpVersion changes
// when its shape does.
const (
	DumpFormat  = "svc-state"
	DumpVersion = 1
)

// Dump is the whole state of a store as plain values: what `svc state
// export` writes and `svc state import` and the SQLite-to-PostgreSQL move
// read. Times are Unix milliseconds, clients the 64-bit client numbers
// written as decimal strings (JSON numbers lose precision past 2^53).
type Dump struct {
	Format  string             `json:"format"`
	Version int                `json:"version"`
	Meta    map[string]int64   `json:"meta"`
	Tables  map[string][][]any `json:"tables"`
}

// dumpTables are the tables of a dump with their columns in order; the
// column kinds drive the JSON conversion on import: i = integer, s = text,
// b = bytes, c = client (uint64 as decimal string), n* = nullable.
var dumpTables = []struct {
	name, cols, kinds string
}{
	{"api_keys", keyColumns, "s b s s s s ns ni ns ns i i ni ni ni"},
	{"trial_mints", "client, minted_at", "c i"},
	{"keyless_client_day", "day, client, calls", "s c i"},
	{"usage_day", "subject, day, calls, errors", "s s i i"},
	{"usage_endpoint", "subject, month, pattern, calls, errors", "s s s i i"},
	{"usage_bl", "subject, month, bl, calls", "s s s i"},
	{"keyless_sketch", "month, registers", "s b"},
	{"audit_log", auditColumns, "i i s s s s"},
}

func readTable(rows Rows, kinds []string) ([][]any, error) {
	defer rows.Close()
	out := [][]any{}
	for rows.Next() {
		dst := make([]any, len(kinds))
		for i, k := range kinds {
			switch k {
			case "i", "c":
				dst[i] = new(int64)
			case "ni":
				dst[i] = new(sql.NullInt64)
			case "s":
				dst[i] = new(string)
			case "ns":
				dst[i] = new(sql.NullString)
			case "b":
				dst[i] = new([]byte)
			}
		}
		if err := rows.Scan(dst...); err != nil {
			return nil, err
		}
		row := make([]any, len(kinds))
		for i, d := range dst {
			switch v := d.(type) {
			case *int64:
				row[i] = *v
				if kinds[i] == "c" {
					row[i] = fmt.Sprint(uint64(*v))
				}
			case *sql.NullInt64:
				if v.Valid {
					row[i] = v.Int64
				}
			case *string:
				row[i] = *v
			case *sql.NullString:
				if v.Valid {
					row[i] = v.String
				}
			case *[]byte:
				row[i] = *v
			}
		}
		out = append(out, row)
	}
	return out, rows.Err()
}

// importValues converts one JSON-decoded row (numbers as json.Number-like
// strings via fmt, bytes as base64 strings) to driver values.
func importValues(row []any, kinds []string) ([]any, error) {
	if len(row) != len(kinds) {
		return nil, fmt.Errorf("row has %d values, want %d", len(row), len(kinds))
	}
	vals := make([]any, len(row))
	for i, k := range kinds {
		v := row[i]
		if v == nil {
			if !strings.HasPrefix(k, "n") {
				return nil, fmt.Errorf("column %d: null not allowed", i+1)
			}
			continue
		}
		var err error
		switch strings.TrimPrefix(k, "n") {
		case "i":
			vals[i], err = toInt64(v)
		case "c":
			var u uint64
			if _, err = fmt.Sscan(fmt.Sprint(v), &u); err == nil {
				vals[i] = int64(u)
			}
		case "s":
			s, ok := v.(string)
			if !ok {
				err = errors.New("not a string")
			}
			vals[i] = s
		case "b":
			vals[i], err = toBytes(v)
		}
		if err != nil {
			return nil, fmt.Errorf("column %d: %w", i+1, err)
		}
	}
	return vals, nil
}

// Export reads every table of s in one read-only snapshot.
func (s *SQLStore) Export(ctx context.Context) (Dump, error) {
	if s.closed.Load() {
		return Dump{}, ErrClosed
	}
	d := Dump{Format: DumpFormat, Version: DumpVersion, Meta: map[string]int64{}, Tables: map[string][][]any{}}
	err := s.d.Snapshot(ctx, func(c Conn) error {
		for _, t := range dumpTables {
			rows, err := c.Query(ctx, `SELECT `+t.cols+` FROM `+t.name)
			if err != nil {
				return fmt.Errorf("%s: %w", t.name, err)
			}
			if d.Tables[t.name], err = readTable(rows, strings.Fields(t.kinds)); err != nil {
				return fmt.Errorf("%s: %w", t.name, err)
			}
		}
		var v int64
		err := c.QueryRow(ctx, `SELECT value FROM meta WHERE name = 'keys_version'`).Scan(&v)
		d.Meta["keys_version"] = v
		return err
	})
	if err != nil {
		return Dump{}, fmt.Errorf("state: export: %w", err)
	}
	return d, nil
}

// Import writes d into s, which must hold no keys and no counters yet (a
// move never merges into live state), in one transaction.
func (s *SQLStore) Import(ctx context.Context, d Dump) error {
	if err := d.check(); err != nil {
		return err
	}
	err := s.write(ctx, func(c Conn) error {
		for _, t := range dumpTables {
			var n int
			if err := c.QueryRow(ctx, `SELECT COUNT(*) FROM `+t.name).Scan(&n); err != nil {
				return err
			}
			if n > 0 {
				return fmt.Errorf("table %s is not empty (%d rows): import only into a new database", t.name, n)
			}
			kinds := strings.Fields(t.kinds)
			q := `INSERT INTO ` + t.name + ` (` + t.cols + `) VALUES (` + strings.TrimSuffix(strings.Repeat("?,", len(kinds)), ",") + `)`
			for i, row := range d.Tables[t.name] {
				vals, err := importValues(row, kinds)
				if err != nil {
					return fmt.Errorf("%s row %d: %w", t.name, i+1, err)
				}
				if _, err := c.Exec(ctx, q, vals...); err != nil {
					return fmt.Errorf("%s row %d: %w", t.name, i+1, err)
				}
			}
		}
		if err := s.d.AfterImport(ctx, c); err != nil {
			return err
		}
		_, err := c.Exec(ctx, `UPDATE meta SET value = value + ? + 1 WHERE name = 'keys_version'`, d.Meta["keys_version"])
		return err
	})
	if err != nil {
		return fmt.Errorf("state: import: %w", err)
	}
	return nil
}

func (d Dump) check() error {
	if d.Format != DumpFormat || d.Version != DumpVersion {
		return fmt.Errorf("state: import: not an svc state export (format %q version %d, want %q version %d)",
			d.Format, d.Version, DumpFormat, DumpVersion)
	}
	for name := range d.Tables {
		known := false
		for _, t := range dumpTables {
			known = known || t.name == name
		}
		if !known {
			return fmt.Errorf("state: import: unknown table %q", name)
		}
	}
	return nil
}

// toInt64 accepts what encoding/json yields for a number (json.Number with
// UseNumber, float64 without) and the int64 of an in-memory dump.
func toInt64(v any) (int64, error) {
	switch n := v.(type) {
	case int64:
		return n, nil
	case json.Number:
		return n.Int64()
	case float64:
		if n != math.Trunc(n) || math.Abs(n) > 1<<53 {
			return 0, fmt.Errorf("%v is not an exact integer", n)
		}
		return int64(n), nil
	}
	return 0, fmt.Errorf("%v is not a number", v)
}

// toBytes accepts base64 text (how encoding/json writes []byte) and bytes.
func toBytes(v any) ([]byte, error) {
	switch b := v.(type) {
	case []byte:
		return b, nil
	case string:
		return base64.StdEncoding.DecodeString(b)
	}
	return nil, fmt.Errorf("%v is not base64 bytes", v)
}

// ReadDump decodes a JSON export; numbers stay exact.
func ReadDump(r io.Reader) (Dump, error) {
	dec := json.NewDecoder(r)
	dec.UseNumber()
	var d Dump
	if err := dec.Decode(&d); err != nil {
		return Dump{}, fmt.Errorf("state: read export: %w", err)
	}
	if dec.More() {
		return Dump{}, errors.New("state: read export: trailing data after the JSON document")
	}
	return d, d.check()
}
