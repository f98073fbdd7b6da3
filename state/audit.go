package state

import (
	"context"
	"fmt"
	"time"
)

// Audit actions: every change of a key record writes one event in the same
// transaction as the change, so the trail never misses nor invents one.
const (
	AuditKeyCreate = "key.create"
	AuditKeyMint   = "key.mint"
	AuditKeyRevoke = "key.revoke"
)

// AuditEvent is one entry of the audit trail. Seq grows with every event of
// the store (across replicas on PostgreSQL) and orders the trail.
type AuditEvent struct {
	Seq    int64
	At     time.Time
	Action string
	KeyID  string
	// Actor says who asked: "admin-api", "cli", or "client:<hex>" for a
	// trial mint (the opaque client number, never an address).
	Actor string
	// Detail is a short human-readable note (customer, tier, campaign).
	Detail string
}

type actorKey struct{}

// WithActor returns ctx carrying the actor recorded by the key changes made
// with it. The actor is request-scoped metadata (who asked), which is what
// context values are for; without one the trail says "unknown".
func WithActor(ctx context.Context, actor string) context.Context {
	return context.WithValue(ctx, actorKey{}, actor)
}

func actorOf(ctx context.Context) string {
	if a, ok := ctx.Value(actorKey{}).(string); ok && a != "" {
		return a
	}
	return "unknown"
}

// MaxAuditPage bounds one Audit call.
const MaxAuditPage = 1000

const auditColumns = `seq, at, action, key_id, actor, detail`

func keyDetail(k Key) string {
	d := fmt.Sprintf("customer=%q tier=%q", k.CustomerName, k.Tier)
	if k.Source != "" {
		d += fmt.Sprintf(" source=%q", k.Source)
	}
	return d
}

// audit writes one event of the trail inside the write transaction c.
func audit(ctx context.Context, c Conn, at time.Time, action, keyID, detail string) error {
	_, err := c.Exec(ctx, `INSERT INTO audit_log (at, action, key_id, actor, detail) VALUES (?,?,?,?,?)`,
		ms(at), action, keyID, actorOf(ctx), detail)
	if err != nil {
		return fmt.Errorf("audit: %w", err)
	}
	return nil
}

func scanAudit(rows Rows) ([]AuditEvent, error) {
	defer rows.Close()
	out := []AuditEvent{}
	for rows.Next() {
		var e AuditEvent
		var at int64
		if err := rows.Scan(&e.Seq, &at, &e.Action, &e.KeyID, &e.Actor, &e.Detail); err != nil {
			return nil, err
		}
		e.At = fromMS(at)
		out = append(out, e)
	}
	return out, rows.Err()
}

func auditLimit(limit int) int {
	if limit <= 0 || limit > MaxAuditPage {
		return MaxAuditPage
	}
	return limit
}

// Audit implements Store.
func (s *SQLStore) Audit(ctx context.Context, after int64, limit int) ([]AuditEvent, error) {
	c, err := s.read()
	if err != nil {
		return nil, err
	}
	rows, err := c.Query(ctx, `SELECT `+auditColumns+` FROM audit_log WHERE seq > ? ORDER BY seq LIMIT ?`,
		after, auditLimit(limit))
	if err != nil {
		return nil, fmt.Errorf("state: audit: %w", err)
	}
	ev, err := scanAudit(rows)
	if err != nil {
		return nil, fmt.Errorf("state: audit: %w", err)
	}
	return ev, nil
}
