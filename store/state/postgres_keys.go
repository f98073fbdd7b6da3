package state

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
)

const pgKeyValues = `$1,$2,$3,$4,$5,$6,$7,$8,$9,$10,$11,$12,$13,$14,$15`

func pgInsertKey(ctx context.Context, tx pgx.Tx, k Key) error {
	_, err := tx.Exec(ctx, `INSERT INTO api_keys (`+keyColumns+`) VALUES (`+pgKeyValues+`)`,
		k.ID, k.Hash[:], k.Prefix, k.CustomerName, k.Tier, k.Source, k.ContactEmail, k.MonthlyCallQuota, k.Notes,
		k.PaymentCustomerID, ms(k.CreatedAt), ms(k.UpdatedAt), nullMS(k.ExpiresAt), nullMS(k.RevokedAt), nullMS(k.LastUsedAt))
	if err != nil {
		if isUnique(err) {
			return fmt.Errorf("state: key %s: %w", k.ID, ErrExists)
		}
		return err
	}
	_, err = tx.Exec(ctx, `UPDATE meta SET value = value + 1 WHERE name = 'keys_version'`)
	return err
}

// CreateKey implements Store.
func (s *Postgres) CreateKey(ctx context.Context, k Key) error {
	err := s.tx(ctx, func(tx pgx.Tx) error {
		if err := pgInsertKey(ctx, tx, k); err != nil {
			return err
		}
		return auditPG(ctx, tx, k.CreatedAt, AuditKeyCreate, k.ID, keyDetail(k))
	})
	if err != nil {
		return fmt.Errorf("state: create key: %w", err)
	}
	return nil
}

// MintTrial implements Store. The table lock serialises mints of every
// replica (they are rare: a few per client and day), so the count and the
// insert see one consistent state and the limit holds across replicas.
func (s *Postgres) MintTrial(ctx context.Context, k Key, m Mint) error {
	err := s.tx(ctx, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, `LOCK TABLE trial_mints IN SHARE ROW EXCLUSIVE MODE`); err != nil {
			return err
		}
		since := ms(m.At.Add(-m.Window))
		if _, err := tx.Exec(ctx, `DELETE FROM trial_mints WHERE minted_at <= $1`, since); err != nil {
			return err
		}
		var n int
		var oldest sql.NullInt64
		err := tx.QueryRow(ctx, `SELECT COUNT(*), MIN(minted_at) FROM trial_mints WHERE client = $1 AND minted_at > $2`,
			int64(m.Client), since).Scan(&n, &oldest)
		if err != nil {
			return err
		}
		if n >= m.Limit {
			retry := fromMS(oldest.Int64).Add(m.Window).Sub(m.At)
			return &MintLimitError{RetryAfter: max(retry, time.Second)}
		}
		if _, err := tx.Exec(ctx, `INSERT INTO trial_mints (client, minted_at) VALUES ($1, $2)`, int64(m.Client), ms(m.At)); err != nil {
			return err
		}
		if err := pgInsertKey(ctx, tx, k); err != nil {
			return err
		}
		return auditPG(ctx, tx, k.CreatedAt, AuditKeyMint, k.ID, keyDetail(k))
	})
	if err != nil {
		return fmt.Errorf("state: mint trial key: %w", err)
	}
	return nil
}

func (s *Postgres) oneKey(ctx context.Context, what, where string, arg any) (Key, error) {
	if s.closed.Load() {
		return Key{}, ErrClosed
	}
	k, err := scanKey(s.pool.QueryRow(ctx, `SELECT `+keyColumns+` FROM api_keys WHERE `+where, arg))
	if errors.Is(err, pgx.ErrNoRows) {
		return Key{}, fmt.Errorf("state: key %s: %w", what, ErrNotFound)
	}
	if err != nil {
		return Key{}, fmt.Errorf("state: key %s: %w", what, err)
	}
	return k, nil
}

// KeyByHash implements Store.
func (s *Postgres) KeyByHash(ctx context.Context, hash [32]byte) (Key, error) {
	return s.oneKey(ctx, "by hash", `hash = $1`, hash[:])
}

// Key implements Store.
func (s *Postgres) Key(ctx context.Context, id string) (Key, error) {
	return s.oneKey(ctx, id, `id = $1`, id)
}

// ListKeys implements Store.
func (s *Postgres) ListKeys(ctx context.Context) ([]Key, error) {
	if s.closed.Load() {
		return nil, ErrClosed
	}
	rows, err := s.pool.Query(ctx, `SELECT `+keyColumns+` FROM api_keys ORDER BY created_at, id`)
	if err != nil {
		return nil, fmt.Errorf("state: list keys: %w", err)
	}
	defer rows.Close()
	keys := []Key{}
	for rows.Next() {
		k, err := scanKey(rows)
		if err != nil {
			return nil, fmt.Errorf("state: list keys: %w", err)
		}
		keys = append(keys, k)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("state: list keys: %w", err)
	}
	return keys, nil
}

// RevokeKey implements Store.
func (s *Postgres) RevokeKey(ctx context.Context, id string, at time.Time) (Key, error) {
	var k Key
	err := s.tx(ctx, func(tx pgx.Tx) error {
		tag, err := tx.Exec(ctx, `UPDATE api_keys SET revoked_at = $1, updated_at = $1 WHERE id = $2 AND revoked_at IS NULL`, ms(at), id)
		if err != nil {
			return err
		}
		if tag.RowsAffected() > 0 {
			if _, err := tx.Exec(ctx, `UPDATE meta SET value = value + 1 WHERE name = 'keys_version'`); err != nil {
				return err
			}
			if err := auditPG(ctx, tx, at, AuditKeyRevoke, id, ""); err != nil {
				return err
			}
		}
		k, err = scanKey(tx.QueryRow(ctx, `SELECT `+keyColumns+` FROM api_keys WHERE id = $1`, id))
		if errors.Is(err, pgx.ErrNoRows) {
			return ErrNotFound
		}
		return err
	})
	if err != nil {
		return Key{}, fmt.Errorf("state: revoke key %s: %w", id, err)
	}
	return k, nil
}
