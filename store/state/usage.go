package state

import (
	"context"
	"database/sql"
	"fmt"
	"sort"
)

type dayKey struct{ subject, day string }
type endpointKey struct{ subject, month, pattern string }
type blKey struct{ subject, month, bl string }
type pair struct{ calls, errors int64 }

// Flush implements Store. Deltas are summed per row first, so a batch of
// many requests writes each counter row once.
func (s *SQLite) Flush(ctx context.Context, b Batch) error {
	if b.Empty() {
		return nil
	}
	days, eps, bls := sumUsage(b.Usage)
	err := s.tx(ctx, func(tx *sql.Tx) error {
		up := upserter{ctx: ctx, tx: tx}
		for _, c := range b.Keyless {
			up.exec(`INSERT INTO keyless_client_day (day, client, calls) VALUES (?, ?, ?)
				ON CONFLICT (day, client) DO UPDATE SET calls = calls + excluded.calls`, c.Day, int64(c.Client), c.Calls)
		}
		for k, p := range days {
			up.exec(`INSERT INTO usage_day (subject, day, calls, errors) VALUES (?, ?, ?, ?)
				ON CONFLICT DO UPDATE SET calls = calls + excluded.calls, errors = errors + excluded.errors`, k.subject, k.day, p.calls, p.errors)
		}
		for k, p := range eps {
			up.exec(`INSERT INTO usage_endpoint (subject, month, pattern, calls, errors) VALUES (?, ?, ?, ?, ?)
				ON CONFLICT DO UPDATE SET calls = calls + excluded.calls, errors = errors + excluded.errors`, k.subject, k.month, k.pattern, p.calls, p.errors)
		}
		for k, n := range bls {
			up.exec(`INSERT INTO usage_bl (subject, month, bl, calls) VALUES (?, ?, ?, ?)
				ON CONFLICT DO UPDATE SET calls = calls + excluded.calls`, k.subject, k.month, k.bl, n)
		}
		for _, u := range b.LastUsed {
			up.exec(`UPDATE api_keys SET last_used_at = MAX(COALESCE(last_used_at, 0), ?) WHERE id = ?`, ms(u.At), u.ID)
		}
		if b.PruneBefore != "" {
			up.exec(`DELETE FROM keyless_client_day WHERE day < ?`, b.PruneBefore)
		}
		if up.err != nil {
			return up.err
		}
		return mergeSketches(ctx, tx, b.Sketches)
	})
	if err != nil {
		return fmt.Errorf("state: flush: %w", err)
	}
	return nil
}

// upserter runs statements, prepared once per batch, until the first error.
type upserter struct {
	ctx   context.Context
	tx    *sql.Tx
	stmts map[string]*sql.Stmt
	err   error
}

func (u *upserter) exec(query string, args ...any) {
	if u.err != nil {
		return
	}
	if u.stmts == nil {
		u.stmts = map[string]*sql.Stmt{}
	}
	st := u.stmts[query]
	if st == nil {
		if st, u.err = u.tx.PrepareContext(u.ctx, query); u.err != nil {
			return
		}
		u.stmts[query] = st
	}
	_, u.err = st.ExecContext(u.ctx, args...)
}

// mergeSketches unions each sketch with the stored one of its month.
func mergeSketches(ctx context.Context, tx *sql.Tx, sk []Sketch) error {
	for _, sketch := range sk {
		var old []byte
		err := tx.QueryRowContext(ctx, `SELECT registers FROM keyless_sketch WHERE month = ?`, sketch.Month).Scan(&old)
		if err != nil && err != sql.ErrNoRows {
			return err
		}
		merged := append([]byte(nil), sketch.Registers...)
		if len(old) == len(merged) {
			for i, r := range old {
				merged[i] = max(merged[i], r)
			}
		}
		if _, err := tx.ExecContext(ctx, `INSERT INTO keyless_sketch (month, registers) VALUES (?, ?)
			ON CONFLICT (month) DO UPDATE SET registers = excluded.registers`, sketch.Month, merged); err != nil {
			return err
		}
	}
	return nil
}

// KeylessDay implements Store.
func (s *SQLite) KeylessDay(ctx context.Context, day string, fn func(client uint64, calls int64)) error {
	if s.closed.Load() {
		return ErrClosed
	}
	rows, err := s.r.QueryContext(ctx, `SELECT client, calls FROM keyless_client_day WHERE day = ?`, day)
	if err != nil {
		return fmt.Errorf("state: keyless day %s: %w", day, err)
	}
	defer rows.Close()
	for i := 0; rows.Next(); i++ {
		if i%1024 == 0 && ctx.Err() != nil {
			return fmt.Errorf("state: keyless day %s: %w", day, ctx.Err())
		}
		var client, calls int64
		if err := rows.Scan(&client, &calls); err != nil {
			return fmt.Errorf("state: keyless day %s: %w", day, err)
		}
		fn(uint64(client), calls)
	}
	if err := rows.Err(); err != nil {
		return fmt.Errorf("state: keyless day %s: %w", day, err)
	}
	return nil
}

// KeyCounts implements Store.
func (s *SQLite) KeyCounts(ctx context.Context, subject, day, month string) (Counts, error) {
	if s.closed.Load() {
		return Counts{}, ErrClosed
	}
	var c Counts
	err := s.r.QueryRowContext(ctx, `SELECT
		COALESCE(SUM(CASE WHEN day = ? THEN calls END), 0),
		COALESCE(SUM(CASE WHEN substr(day, 1, 7) = ? THEN calls END), 0),
		COALESCE(SUM(calls), 0)
		FROM usage_day WHERE subject = ?`, day, month, subject).Scan(&c.Today, &c.Month, &c.Total)
	if err != nil {
		return Counts{}, fmt.Errorf("state: counts of %q: %w", subject, err)
	}
	return c, nil
}

// Usage implements Store.
func (s *SQLite) Usage(ctx context.Context, subject string, months []string) (Usage, error) {
	if s.closed.Load() {
		return Usage{}, ErrClosed
	}
	u := Usage{Periods: make([]MonthUsage, len(months)), BL: []BLCount{}, Endpoints: []EndpointCount{}}
	for i, m := range months {
		u.Periods[i].Month = m
		err := s.r.QueryRowContext(ctx, `SELECT COALESCE(SUM(calls), 0), COALESCE(SUM(errors), 0) FROM usage_day
			WHERE subject = ? AND day >= ? AND day < ?`, subject, m+"-00", m+"-99").Scan(&u.Periods[i].Calls, &u.Periods[i].Errors)
		if err != nil {
			return Usage{}, fmt.Errorf("state: usage of %q: %w", subject, err)
		}
		if subject == Anonymous {
			var reg []byte
			err := s.r.QueryRowContext(ctx, `SELECT registers FROM keyless_sketch WHERE month = ?`, m).Scan(&reg)
			if err != nil && err != sql.ErrNoRows {
				return Usage{}, fmt.Errorf("state: sketch %s: %w", m, err)
			}
			if reg != nil {
				u.Sketches = append(u.Sketches, reg)
			}
		}
	}
	if err := s.distributions(ctx, subject, months, &u); err != nil {
		return Usage{}, fmt.Errorf("state: usage of %q: %w", subject, err)
	}
	return u, nil
}

// distributions fills the BL and endpoint totals over months.
func (s *SQLite) distributions(ctx context.Context, subject string, months []string, u *Usage) error {
	if len(months) == 0 {
		return nil
	}
	lo, hi := months[0], months[0]
	for _, m := range months {
		lo, hi = min(lo, m), max(hi, m)
	}
	rows, err := s.r.QueryContext(ctx, `SELECT bl, SUM(calls) FROM usage_bl WHERE subject = ? AND month BETWEEN ? AND ? GROUP BY bl`, subject, lo, hi)
	if err != nil {
		return err
	}
	for rows.Next() {
		var b BLCount
		if err := rows.Scan(&b.BL, &b.Calls); err != nil {
			rows.Close()
			return err
		}
		u.BL = append(u.BL, b)
	}
	rows.Close()
	rows, err = s.r.QueryContext(ctx, `SELECT pattern, SUM(calls), SUM(errors) FROM usage_endpoint
		WHERE subject = ? AND month BETWEEN ? AND ? GROUP BY pattern`, subject, lo, hi)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		var e EndpointCount
		if err := rows.Scan(&e.Pattern, &e.Calls, &e.Errors); err != nil {
			return err
		}
		u.Endpoints = append(u.Endpoints, e)
	}
	sort.SliceStable(u.BL, func(i, j int) bool {
		return u.BL[i].Calls > u.BL[j].Calls || u.BL[i].Calls == u.BL[j].Calls && u.BL[i].BL < u.BL[j].BL
	})
	sort.SliceStable(u.Endpoints, func(i, j int) bool {
		a, b := u.Endpoints[i], u.Endpoints[j]
		return a.Calls > b.Calls || a.Calls == b.Calls && a.Pattern < b.Pattern
	})
	return rows.Err()
}
