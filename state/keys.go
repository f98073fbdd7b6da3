package state

import (
	"context"
	"database/sql"
	"fmt"
	"time"
)

const keyColumns = `id, hash, prefix, customer_name, tier, source, contact_email, monthly_call_quota, notes,
	payment_customer_id, created_at, updated_at, expires_at, revoked_at, last_used_at`

// insertKey writes k and bumps the keys version, inside the transaction c.
func (s *SQLStore) insertKey(ctx context.Context, c Conn, k Key) error {
	_, err := c.Exec(ctx, `INSERT INTO api_keys (`+keyColumns+`) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)`,
		k.ID, k.Hash[:], k.Prefix, k.CustomerName, k.Tier, k.Source, k.ContactEmail, k.MonthlyCallQuota, k.Notes,
		k.PaymentCustomerID, ms(k.CreatedAt), ms(k.UpdatedAt), nullMS(k.ExpiresAt), nullMS(k.RevokedAt), nullMS(k.LastUsedAt))
	if err != nil {
		if s.d.Unique(err) {
			return fmt.Errorf("state: key %s: %w", k.ID, ErrExists)
		}
		return err
	}
	return bumpKeysVersion(ctx, c)
}

func bumpKeysVersion(ctx context.Context, c Conn) error {
	_, err := c.Exec(ctx, `UPDATE meta SET value = value + 1 WHERE name = 'keys_version'`)
	return err
}

// CreateKey implements Store.
func (s *SQLStore) CreateKey(ctx context.Context, k Key) error {
	err := s.write(ctx, func(c Conn) error {
		if err := s.insertKey(ctx, c, k); err != nil {
			return err
		}
		return audit(ctx, c, k.CreatedAt, AuditKeyCreate, k.ID, keyDetail(k))
	})
	if err != nil {
		return fmt.Errorf("state: create key: %w", err)
	}
	return nil
}

// MintTrial implements Store. The count and the insert run in one write
// transaction holding LockMints, so concurrent mints (of any process or
// replica) are serialised and never exceed the limit; mints are rare (a few
// per client and day), so the serialisation costs nothing that matters.
func (s *SQLStore) MintTrial(ctx context.Context, k Key, m Mint) error {
	err := s.write(ctx, func(c Conn) error {
		if err := s.d.Lock(ctx, c, LockMints); err != nil {
			return err
		}
		since := ms(m.At.Add(-m.Window))
		if _, err := c.Exec(ctx, `DELETE FROM trial_mints WHERE minted_at <= ?`, since); err != nil {
			return err
		}
		var n int
		var oldest sql.NullInt64
		err := c.QueryRow(ctx, `SELECT COUNT(*), MIN(minted_at) FROM trial_mints WHERE client = ? AND minted_at > ?`,
			int64(m.Client), since).Scan(&n, &oldest)
		if err != nil {
			return err
		}
		if n >= m.Limit {
			retry := fromMS(oldest.Int64).Add(m.Window).Sub(m.At)
			return &MintLimitError{RetryAfter: max(retry, time.Second)}
		}
		if _, err := c.Exec(ctx, `INSERT INTO trial_mints (client, minted_at) VALUES (?, ?)`, int64(m.Client), ms(m.At)); err != nil {
			return err
		}
		if err := s.insertKey(ctx, c, k); err != nil {
			return err
		}
		return audit(ctx, c, k.CreatedAt, AuditKeyMint, k.ID, keyDetail(k))
	})
	if err != nil {
		return fmt.Errorf("state: mint trial key: %w", err)
	}
	return nil
}

func scanKey(row Row) (Key, error) {
	var k Key
	var hash []byte
	var created, updated int64
	var expires, revoked, used sql.NullInt64
	var email, notes, payment sql.NullString
	var quota sql.NullInt64
	err := row.Scan(&k.ID, &hash, &k.Prefix, &k.CustomerName, &k.Tier, &k.Source, &email, &quota, &notes,
		&payment, &created, &updated, &expires, &revoked, &used)
	if err != nil {
		return Key{}, err
	}
	copy(k.Hash[:], hash)
	k.ContactEmail, k.Notes, k.PaymentCustomerID = nullStr(email), nullStr(notes), nullStr(payment)
	if quota.Valid {
		k.MonthlyCallQuota = &quota.Int64
	}
	k.CreatedAt, k.UpdatedAt = fromMS(created), fromMS(updated)
	k.ExpiresAt, k.RevokedAt, k.LastUsedAt = ptrMS(expires), ptrMS(revoked), ptrMS(used)
	return k, nil
}

func nullStr(v sql.NullString) *string {
	if !v.Valid {
		return nil
	}
	return &v.String
}

func (s *SQLStore) oneKey(ctx context.Context, what, where string, arg any) (Key, error) {
	c, err := s.read()
	if err != nil {
		return Key{}, err
	}
	k, err := scanKey(c.QueryRow(ctx, `SELECT `+keyColumns+` FROM api_keys WHERE `+where, arg))
	if err != nil && s.d.NoRows(err) {
		return Key{}, fmt.Errorf("state: key %s: %w", what, ErrNotFound)
	}
	if err != nil {
		return Key{}, fmt.Errorf("state: key %s: %w", what, err)
	}
	return k, nil
}

// KeyByHash implements Store. The lookup compares hashes, never plaintexts.
func (s *SQLStore) KeyByHash(ctx context.Context, hash [32]byte) (Key, error) {
	return s.oneKey(ctx, "by hash", `hash = ?`, hash[:])
}

// Key implements Store.
func (s *SQLStore) Key(ctx context.Context, id string) (Key, error) {
	return s.oneKey(ctx, id, `id = ?`, id)
}

// ListKeys implements Store.
func (s *SQLStore) ListKeys(ctx context.Context) ([]Key, error) {
	c, err := s.read()
	if err != nil {
		return nil, err
	}
	rows, err := c.Query(ctx, `SELECT `+keyColumns+` FROM api_keys ORDER BY created_at, id`)
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
func (s *SQLStore) RevokeKey(ctx context.Context, id string, at time.Time) (Key, error) {
	var k Key
	err := s.write(ctx, func(c Conn) error {
		n, err := c.Exec(ctx, `UPDATE api_keys SET revoked_at = ?, updated_at = ? WHERE id = ? AND revoked_at IS NULL`,
			ms(at), ms(at), id)
		if err != nil {
			return err
		}
		if n > 0 {
			if err := bumpKeysVersion(ctx, c); err != nil {
				return err
			}
			if err := audit(ctx, c, at, AuditKeyRevoke, id, ""); err != nil {
				return err
			}
		}
		k, err = scanKey(c.QueryRow(ctx, `SELECT `+keyColumns+` FROM api_keys WHERE id = ?`, id))
		if err != nil && s.d.NoRows(err) {
			return ErrNotFound
		}
		return err
	})
	if err != nil {
		return Key{}, fmt.Errorf("state: revoke key %s: %w", id, err)
	}
	return k, nil
}
