package state

import (
	"context"
	"errors"
	"fmt"
	"sort"

	"github.com/jackc/pgx/v5"
)

// Flush implements Store: one transaction, the upserts sent as one pipelined
// batch. Counter rows add (calls = calls + excluded.calls), so flushes of
// several replicas never lose an update.
func (s *Postgres) Flush(ctx context.Context, b Batch) error {
	if b.Empty() {
		return nil
	}
	days, eps, bls := sumUsage(b.Usage)
	err := s.tx(ctx, func(tx pgx.Tx) error {
		var q pgx.Batch
		for _, c := range b.Keyless {
			q.Queue(`INSERT INTO keyless_client_day AS t (day, client, calls) VALUES ($1, $2, $3)
				ON CONFLICT (day, client) DO UPDATE SET calls = t.calls + excluded.calls`, c.Day, int64(c.Client), c.Calls)
		}
		for k, p := range days {
			q.Queue(`INSERT INTO usage_day AS t (subject, day, calls, errors) VALUES ($1, $2, $3, $4)
				ON CONFLICT (subject, day) DO UPDATE SET calls = t.calls + excluded.calls, errors = t.errors + excluded.errors`,
				k.subject, k.day, p.calls, p.errors)
		}
		for k, p := range eps {
			q.Queue(`INSERT INTO usage_endpoint AS t (subject, month, pattern, calls, errors) VALUES ($1, $2, $3, $4, $5)
				ON CONFLICT (subject, month, pattern) DO UPDATE SET calls = t.calls + excluded.calls, errors = t.errors + excluded.errors`,
				k.subject, k.month, k.pattern, p.calls, p.errors)
		}
		for k, n := range bls {
			q.Queue(`INSERT INTO usage_bl AS t (subject, month, bl, calls) VALUES ($1, $2, $3, $4)
				ON CONFLICT (subject, month, bl) DO UPDATE SET calls = t.calls + excluded.calls`, k.subject, k.month, k.bl, n)
		}
		for _, u := range b.LastUsed {
			q.Queue(`UPDATE api_keys SET last_used_at = GREATEST(COALESCE(last_used_at, 0), $1) WHERE id = $2`, ms(u.At), u.ID)
		}
		if b.PruneBefore != "" {
			q.Queue(`DELETE FROM keyless_client_day WHERE day < $1`, b.PruneBefore)
		}
		if q.Len() > 0 {
			if err := tx.SendBatch(ctx, &q).Close(); err != nil {
				return err
			}
		}
		return pgMergeSketches(ctx, tx, b.Sketches)
	})
	if err != nil {
		return fmt.Errorf("state: flush: %w", err)
	}
	return nil
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

// pgMergeSketches unions each sketch with the stored one of its month; the
// advisory lock keeps two replicas from merging the same month at once (a
// lost union would undercount distinct clients).
func pgMergeSketches(ctx context.Context, tx pgx.Tx, sk []Sketch) error {
	if len(sk) == 0 {
		return nil
	}
	if _, err := tx.Exec(ctx, `SELECT pg_advisory_xact_lock($1, 0)`, pgLockSketch); err != nil {
		return err
	}
	for _, sketch := range sk {
		var old []byte
		err := tx.QueryRow(ctx, `SELECT registers FROM keyless_sketch WHERE month = $1`, sketch.Month).Scan(&old)
		if err != nil && !errors.Is(err, pgx.ErrNoRows) {
			return err
		}
		merged := append([]byte(nil), sketch.Registers...)
		if len(old) == len(merged) {
			for i, r := range old {
				merged[i] = max(merged[i], r)
			}
		}
		if _, err := tx.Exec(ctx, `INSERT INTO keyless_sketch (month, registers) VALUES ($1, $2)
			ON CONFLICT (month) DO UPDATE SET registers = excluded.registers`, sketch.Month, merged); err != nil {
			return err
		}
	}
	return nil
}

// KeylessDay implements Store.
func (s *Postgres) KeylessDay(ctx context.Context, day string, fn func(client uint64, calls int64)) error {
	if s.closed.Load() {
		return ErrClosed
	}
	rows, err := s.pool.Query(ctx, `SELECT client, calls FROM keyless_client_day WHERE day = $1`, day)
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
func (s *Postgres) KeyCounts(ctx context.Context, subject, day, month string) (Counts, error) {
	if s.closed.Load() {
		return Counts{}, ErrClosed
	}
	var c Counts
	err := s.pool.QueryRow(ctx, `SELECT
		COALESCE(SUM(CASE WHEN day = $1 THEN calls END), 0)::BIGINT,
		COALESCE(SUM(CASE WHEN substr(day, 1, 7) = $2 THEN calls END), 0)::BIGINT,
		COALESCE(SUM(calls), 0)::BIGINT
		FROM usage_day WHERE subject = $3`, day, month, subject).Scan(&c.Today, &c.Month, &c.Total)
	if err != nil {
		return Counts{}, fmt.Errorf("state: counts of %q: %w", subject, err)
	}
	return c, nil
}

// Usage implements Store.
func (s *Postgres) Usage(ctx context.Context, subject string, months []string) (Usage, error) {
	if s.closed.Load() {
		return Usage{}, ErrClosed
	}
	u := Usage{Periods: make([]MonthUsage, len(months)), BL: []BLCount{}, Endpoints: []EndpointCount{}}
	for i, m := range months {
		u.Periods[i].Month = m
		err := s.pool.QueryRow(ctx, `SELECT COALESCE(SUM(calls), 0)::BIGINT, COALESCE(SUM(errors), 0)::BIGINT FROM usage_day
			WHERE subject = $1 AND day >= $2 AND day < $3`, subject, m+"-00", m+"-99").Scan(&u.Periods[i].Calls, &u.Periods[i].Errors)
		if err != nil {
			return Usage{}, fmt.Errorf("state: usage of %q: %w", subject, err)
		}
		if subject == Anonymous {
			var reg []byte
			err := s.pool.QueryRow(ctx, `SELECT registers FROM keyless_sketch WHERE month = $1`, m).Scan(&reg)
			if err != nil && !errors.Is(err, pgx.ErrNoRows) {
				return Usage{}, fmt.Errorf("state: sketch %s: %w", m, err)
			}
			if reg != nil {
				u.Sketches = append(u.Sketches, reg)
			}
		}
	}
	if len(months) > 0 {
		lo, hi := months[0], months[0]
		for _, m := range months {
			lo, hi = min(lo, m), max(hi, m)
		}
		if err := s.distributions(ctx, subject, lo, hi, &u); err != nil {
			return Usage{}, fmt.Errorf("state: usage of %q: %w", subject, err)
		}
	}
	return u, nil
}

func (s *Postgres) distributions(ctx context.Context, subject, lo, hi string, u *Usage) error {
	rows, err := s.pool.Query(ctx, `SELECT bl, SUM(calls)::BIGINT FROM usage_bl WHERE subject = $1 AND month BETWEEN $2 AND $3 GROUP BY bl`, subject, lo, hi)
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
	rows, err = s.pool.Query(ctx, `SELECT pattern, SUM(calls)::BIGINT, SUM(errors)::BIGINT FROM usage_endpoint
		WHERE subject = $1 AND month BETWEEN $2 AND $3 GROUP BY pattern`, subject, lo, hi)
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

// KeylessHit adds calls keyless calls of client on day in one atomic upsert,
// saturating at ceiling (the limit plus one: a refused client is not counted
// further), and returns the stored total. Replicas calling it concurrently
// serialise on the row, so the totals they see are exact.
func (s *Postgres) KeylessHit(ctx context.Context, day string, client uint64, calls, ceiling int64) (int64, error) {
	if s.closed.Load() {
		return 0, ErrClosed
	}
	var n int64
	err := s.pool.QueryRow(ctx, `INSERT INTO keyless_client_day AS t (day, client, calls) VALUES ($1, $2, LEAST($4::bigint, $3))
		ON CONFLICT (day, client) DO UPDATE SET calls = LEAST(t.calls + $4, $3) RETURNING calls`,
		day, int64(client), ceiling, calls).Scan(&n)
	if err != nil {
		return 0, fmt.Errorf("state: keyless hit: %w", err)
	}
	return n, nil
}
