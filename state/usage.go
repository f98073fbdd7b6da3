package state

import (
	"context"
	"fmt"
	"sort"
	"sync"
)

type dayKey struct{ subject, day string }
type endpointKey struct{ subject, month, pattern string }
type blKey struct{ subject, month, bl string }
type pair struct{ calls, errors int64 }

// Flush implements Store: one write transaction, the upserts run in
// batches (ExecBatch: prepared once on SQLite, pipelined on PostgreSQL).
// Deltas are summed per row first, so a batch of many requests writes each
// counter row once, and counter rows add (calls = t.calls +
// excluded.calls), so flushes of several replicas never lose an update.
func (s *SQLStore) Flush(ctx context.Context, b Batch) error {
	if b.Empty() {
		return nil
	}
	days, eps, bls := sumUsage(b.Usage)
	err := s.write(ctx, func(c Conn) error {
		q := stmtBatch{ctx: ctx, c: c, d: s.d, size: len(b.Keyless) + len(days) + len(eps) + len(bls) + len(b.LastUsed) + 1}
		defer q.release()
		for _, kc := range b.Keyless {
			q.add(`INSERT INTO keyless_client_day AS t (day, client, calls) VALUES (?, ?, ?)
				ON CONFLICT (day, client) DO UPDATE SET calls = t.calls + excluded.calls`, kc.Day, int64(kc.Client), kc.Calls)
		}
		for k, p := range days {
			q.add(`INSERT INTO usage_day AS t (subject, day, calls, errors) VALUES (?, ?, ?, ?)
				ON CONFLICT (subject, day) DO UPDATE SET calls = t.calls + excluded.calls, errors = t.errors + excluded.errors`,
				k.subject, k.day, p.calls, p.errors)
		}
		for k, p := range eps {
			q.add(`INSERT INTO usage_endpoint AS t (subject, month, pattern, calls, errors) VALUES (?, ?, ?, ?, ?)
				ON CONFLICT (subject, month, pattern) DO UPDATE SET calls = t.calls + excluded.calls, errors = t.errors + excluded.errors`,
				k.subject, k.month, k.pattern, p.calls, p.errors)
		}
		for k, n := range bls {
			q.add(`INSERT INTO usage_bl AS t (subject, month, bl, calls) VALUES (?, ?, ?, ?)
				ON CONFLICT (subject, month, bl) DO UPDATE SET calls = t.calls + excluded.calls`, k.subject, k.month, k.bl, n)
		}
		for _, u := range b.LastUsed {
			// last_used_at only moves forward: flushes may arrive out of order.
			q.add(`UPDATE api_keys SET last_used_at = ? WHERE id = ? AND (last_used_at IS NULL OR last_used_at < ?)`, ms(u.At), u.ID, ms(u.At))
		}
		if b.PruneBefore != "" {
			q.add(`DELETE FROM keyless_client_day WHERE day < ?`, b.PruneBefore)
		}
		if err := q.run(); err != nil {
			return err
		}
		return s.mergeSketches(ctx, c, b.Sketches)
	})
	if err != nil {
		return fmt.Errorf("state: flush: %w", err)
	}
	return nil
}

// stmtBatchSize bounds the statements a stmtBatch holds before it runs
// them: a flush of many rows needs no memory in proportion.
const stmtBatchSize = 512

// stmtBuffers recycles the buffers of stmtBatch from one flush to the next.
var stmtBuffers sync.Pool // of *stmtBuffer

type stmtBuffer struct {
	q    []Stmt
	args []any
}

// stmtBatch collects statements and runs them through the dialect's
// ExecBatch, stmtBatchSize at a time, until the first error. Its buffer
// is reused once a run returned (ExecBatch keeps no reference); release
// gives it back.
type stmtBatch struct {
	ctx  context.Context
	c    Conn
	d    Dialect
	size int // statements expected, to size a new buffer
	buf  *stmtBuffer
	err  error
}

func (b *stmtBatch) add(query string, args ...any) {
	if b.err != nil {
		return
	}
	if b.buf == nil {
		b.buf, _ = stmtBuffers.Get().(*stmtBuffer)
		if b.buf == nil {
			n := min(b.size, stmtBatchSize)
			b.buf = &stmtBuffer{q: make([]Stmt, 0, n), args: make([]any, 0, 5*n)}
		}
	}
	n := len(b.buf.args)
	b.buf.args = append(b.buf.args, args...)
	b.buf.q = append(b.buf.q, Stmt{query, b.buf.args[n:len(b.buf.args):len(b.buf.args)]})
	if len(b.buf.q) == stmtBatchSize {
		b.err = b.run()
	}
}

// run runs the collected statements and returns the first error.
func (b *stmtBatch) run() error {
	if b.buf == nil {
		return b.err
	}
	if b.err == nil && len(b.buf.q) > 0 {
		b.err = b.d.ExecBatch(b.ctx, b.c, b.buf.q)
	}
	clear(b.buf.q)
	clear(b.buf.args)
	b.buf.q, b.buf.args = b.buf.q[:0], b.buf.args[:0]
	return b.err
}

// release returns the buffer to stmtBuffers.
func (b *stmtBatch) release() {
	if b.buf != nil {
		stmtBuffers.Put(b.buf)
		b.buf = nil
	}
}

// sumUsage sums deltas per counter row, so a batch writes each row once.
func sumUsage(us []UsageDelta) (map[dayKey]pair, map[endpointKey]pair, map[blKey]int64) {
	days, eps, bls := map[dayKey]pair{}, map[endpointKey]pair{}, map[blKey]int64{}
	for _, u := range us {
		month := u.Day[:min(7, len(u.Day))]
		p := days[dayKey{u.Subject, u.Day}]
		days[dayKey{u.Subject, u.Day}] = pair{p.calls + u.Calls, p.errors + u.Errors}
		e := eps[endpointKey{u.Subject, month, u.Pattern}]
		eps[endpointKey{u.Subject, month, u.Pattern}] = pair{e.calls + u.Calls, e.errors + u.Errors}
		if u.BL != "" {
			bls[blKey{u.Subject, month, u.BL}] += u.Calls
		}
	}
	return days, eps, bls
}

// mergeSketches unions each sketch with the stored one of its month, under
// LockSketches (a lost union would undercount distinct clients).
func (s *SQLStore) mergeSketches(ctx context.Context, c Conn, sk []Sketch) error {
	if len(sk) == 0 {
		return nil
	}
	if err := s.d.Lock(ctx, c, LockSketches); err != nil {
		return err
	}
	for _, sketch := range sk {
		var old []byte
		err := c.QueryRow(ctx, `SELECT registers FROM keyless_sketch WHERE month = ?`, sketch.Month).Scan(&old)
		if err != nil && !s.d.NoRows(err) {
			return err
		}
		merged := append([]byte(nil), sketch.Registers...)
		if len(old) == len(merged) {
			for i, r := range old {
				merged[i] = max(merged[i], r)
			}
		}
		if _, err := c.Exec(ctx, `INSERT INTO keyless_sketch (month, registers) VALUES (?, ?)
			ON CONFLICT (month) DO UPDATE SET registers = excluded.registers`, sketch.Month, merged); err != nil {
			return err
		}
	}
	return nil
}

// KeylessDay implements Store.
func (s *SQLStore) KeylessDay(ctx context.Context, day string, fn func(client uint64, calls int64)) error {
	c, err := s.read()
	if err != nil {
		return err
	}
	rows, err := c.Query(ctx, `SELECT client, calls FROM keyless_client_day WHERE day = ?`, day)
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

// KeyCounts implements Store. (SUM of a BIGINT is NUMERIC in PostgreSQL,
// hence the casts.)
func (s *SQLStore) KeyCounts(ctx context.Context, subject, day, month string) (Counts, error) {
	conn, err := s.read()
	if err != nil {
		return Counts{}, err
	}
	var c Counts
	err = conn.QueryRow(ctx, `SELECT
		CAST(COALESCE(SUM(CASE WHEN day = ? THEN calls END), 0) AS BIGINT),
		CAST(COALESCE(SUM(CASE WHEN substr(day, 1, 7) = ? THEN calls END), 0) AS BIGINT),
		CAST(COALESCE(SUM(calls), 0) AS BIGINT)
		FROM usage_day WHERE subject = ?`, day, month, subject).Scan(&c.Today, &c.Month, &c.Total)
	if err != nil {
		return Counts{}, fmt.Errorf("state: counts of %q: %w", subject, err)
	}
	return c, nil
}

// Usage implements Store.
func (s *SQLStore) Usage(ctx context.Context, subject string, months []string) (Usage, error) {
	c, err := s.read()
	if err != nil {
		return Usage{}, err
	}
	u := Usage{Periods: make([]MonthUsage, len(months)), BL: []BLCount{}, Endpoints: []EndpointCount{}}
	for i, m := range months {
		u.Periods[i].Month = m
		err := c.QueryRow(ctx, `SELECT CAST(COALESCE(SUM(calls), 0) AS BIGINT), CAST(COALESCE(SUM(errors), 0) AS BIGINT) FROM usage_day
			WHERE subject = ? AND day >= ? AND day < ?`, subject, m+"-00", m+"-99").Scan(&u.Periods[i].Calls, &u.Periods[i].Errors)
		if err != nil {
			return Usage{}, fmt.Errorf("state: usage of %q: %w", subject, err)
		}
		if subject == Anonymous {
			var reg []byte
			err := c.QueryRow(ctx, `SELECT registers FROM keyless_sketch WHERE month = ?`, m).Scan(&reg)
			if err != nil && !s.d.NoRows(err) {
				return Usage{}, fmt.Errorf("state: sketch %s: %w", m, err)
			}
			if reg != nil {
				u.Sketches = append(u.Sketches, reg)
			}
		}
	}
	if err := distributions(ctx, c, subject, months, &u); err != nil {
		return Usage{}, fmt.Errorf("state: usage of %q: %w", subject, err)
	}
	return u, nil
}

// distributions fills the BL and endpoint totals over months.
func distributions(ctx context.Context, c Conn, subject string, months []string, u *Usage) error {
	if len(months) == 0 {
		return nil
	}
	lo, hi := months[0], months[0]
	for _, m := range months {
		lo, hi = min(lo, m), max(hi, m)
	}
	rows, err := c.Query(ctx, `SELECT bl, CAST(SUM(calls) AS BIGINT) FROM usage_bl
		WHERE subject = ? AND month BETWEEN ? AND ? GROUP BY bl`, subject, lo, hi)
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
	if err := rows.Err(); err != nil {
		return err
	}
	rows, err = c.Query(ctx, `SELECT pattern, CAST(SUM(calls) AS BIGINT), CAST(SUM(errors) AS BIGINT) FROM usage_endpoint
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
