package lod2store

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
)

// QueryBuildingsIn runs q over every source and merges the buildings in
// one order: the sort values, then BL code, then building id. Each page
// takes up to q.Limit buildings; the cursor (Next, given back as q.After)
// holds each BL's own keyset position, so that following it returns every
// matching building of every BL exactly once, in that order. A cursor
// naming a BL that is no source any more, or not of this query's shape,
// wraps ErrCursor.
func QueryBuildingsIn(ctx context.Context, sources []Source, q BuildingQuery) (BuildingPage, error) {
	if q.Limit <= 0 {
		return BuildingPage{}, fmt.Errorf("%w: limit %d", ErrInput, q.Limit)
	}
	after := map[string]string{}
	if q.After != "" {
		b, err := base64.RawURLEncoding.DecodeString(q.After)
		if err != nil || json.Unmarshal(b, &after) != nil {
			return BuildingPage{}, fmt.Errorf("%w: not a cursor of a building query", ErrCursor)
		}
		for bl := range after {
			if !slices.ContainsFunc(sources, func(s Source) bool { return s.BL == bl }) {
				return BuildingPage{}, fmt.Errorf("%w: BL %q is not published", ErrCursor, bl)
			}
		}
	}
	srcs := slices.SortedFunc(slices.Values(sources), func(a, b Source) int { return strings.Compare(a.BL, b.BL) })
	var all []BuildingRow
	more := false // a BL has rows past those it answered
	for _, src := range srcs {
		sq := q
		sq.After = after[src.BL]
		p, err := src.LoD2.QueryBuildings(ctx, sq)
		if err != nil {
			return BuildingPage{}, fmt.Errorf("store: query buildings of %s: %w", src.BL, err)
		}
		for i := range p.Rows {
			p.Rows[i].BL = src.BL
		}
		more = more || p.Next != ""
		all = append(all, p.Rows...)
	}
	slices.SortStableFunc(all, func(a, b BuildingRow) int { return compareRows(a, b, q.Sort) })
	page := BuildingPage{Rows: all[:min(len(all), q.Limit)]}
	if len(all) <= q.Limit && !more {
		return page, nil
	}
	// Each BL continues after the last of its rows taken; a BL none of
	// whose rows were taken continues where it did.
	next := map[string]string{}
	for bl, c := range after {
		next[bl] = c
	}
	for _, r := range page.Rows {
		next[r.BL] = encodeKeyset(r.keys)
	}
	b, _ := json.Marshal(next)
	page.Next = base64.RawURLEncoding.EncodeToString(b)
	return page, nil
}

// compareRows orders two rows by their sort values (as SQLite orders
// them, reversed for a descending key), then BL, then building id.
func compareRows(a, b BuildingRow, sorts []Sort) int {
	for i := range sorts {
		c := compareSQL(a.keys[i], b.keys[i])
		if sorts[i].Desc {
			c = -c
		}
		if c != 0 {
			return c
		}
	}
	if c := strings.Compare(a.BL, b.BL); c != 0 {
		return c
	}
	return compareSQL(a.keys[len(a.keys)-1], b.keys[len(b.keys)-1])
}

// compareSQL compares two values as SQLite does: NULL before numbers
// (integers and reals by value) before text (binary) before blobs.
func compareSQL(a, b any) int {
	class := func(v any) (int, float64, string) {
		switch x := v.(type) {
		case nil:
			return 0, 0, ""
		case int64:
			return 1, float64(x), ""
		case float64:
			return 1, x, ""
		case string:
			return 2, 0, x
		case []byte:
			return 3, 0, string(x)
		}
		return 4, 0, fmt.Sprint(v)
	}
	ca, fa, sa := class(a)
	cb, fb, sb := class(b)
	switch {
	case ca != cb:
		return ca - cb
	case ca == 1 && fa < fb:
		return -1
	case ca == 1 && fa > fb:
		return 1
	}
	return strings.Compare(sa, sb)
}
