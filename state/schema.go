package state

import (
	"context"
	"fmt"
	"strings"
	"time"
)

// schema holds the migrations, applied in order; each runs once, recorded
// in schema_migrations. Append, never edit. {int}, {bytes}, {serial} and
// {clustered} stand for the dialect's ColumnTypes. Times are Unix
// milliseconds (UTC) in every backend, so a dump copies values unchanged.
var schema = []string{
	`CREATE TABLE meta (name TEXT PRIMARY KEY, value {int} NOT NULL);
INSERT INTO meta (name, value) VALUES ('keys_version', 0), ('health_checked_at', 0);
CREATE TABLE api_keys (
	id TEXT PRIMARY KEY,
	hash {bytes} NOT NULL UNIQUE,
	prefix TEXT NOT NULL,
	customer_name TEXT NOT NULL,
	tier TEXT NOT NULL,
	source TEXT NOT NULL DEFAULT '',
	contact_email TEXT,
	monthly_call_quota {int},
	notes TEXT,
	payment_customer_id TEXT,
	created_at {int} NOT NULL,
	updated_at {int} NOT NULL,
	expires_at {int},
	revoked_at {int},
	last_used_at {int}
);
CREATE INDEX api_keys_created ON api_keys (created_at);
CREATE TABLE trial_mints (client {int} NOT NULL, minted_at {int} NOT NULL);
CREATE INDEX trial_mints_client ON trial_mints (client, minted_at);
CREATE TABLE keyless_client_day (
	day TEXT NOT NULL, client {int} NOT NULL, calls {int} NOT NULL,
	PRIMARY KEY (day, client)){clustered};
CREATE TABLE usage_day (
	subject TEXT NOT NULL, day TEXT NOT NULL, calls {int} NOT NULL, errors {int} NOT NULL,
	PRIMARY KEY (subject, day)){clustered};
CREATE TABLE usage_endpoint (
	subject TEXT NOT NULL, month TEXT NOT NULL, pattern TEXT NOT NULL, calls {int} NOT NULL, errors {int} NOT NULL,
	PRIMARY KEY (subject, month, pattern)){clustered};
CREATE TABLE usage_bl (
	subject TEXT NOT NULL, month TEXT NOT NULL, bl TEXT NOT NULL, calls {int} NOT NULL,
	PRIMARY KEY (subject, month, bl)){clustered};
CREATE TABLE keyless_sketch (month TEXT PRIMARY KEY, registers {bytes} NOT NULL);`,
	`CREATE TABLE audit_log (
	seq {serial}, at {int} NOT NULL, action TEXT NOT NULL,
	key_id TEXT NOT NULL, actor TEXT NOT NULL, detail TEXT NOT NULL);`,
}

// ddl writes a schema statement in the dialect's column types.
func ddl(c ColumnTypes, stmt string) string {
	return strings.NewReplacer("{int}", c.Int, "{bytes}", c.Bytes, "{serial}", c.Serial, "{clustered}", c.Clustered).Replace(stmt)
}

// migrate applies the migrations not yet recorded, in one write
// transaction under LockMigrate.
func (s *SQLStore) migrate(ctx context.Context) error {
	cols := s.d.Columns()
	return s.d.Write(ctx, func(c Conn) error {
		if err := s.d.Lock(ctx, c, LockMigrate); err != nil {
			return fmt.Errorf("migration lock: %w", err)
		}
		if _, err := c.Exec(ctx, ddl(cols, `CREATE TABLE IF NOT EXISTS schema_migrations (version INTEGER PRIMARY KEY, applied_at {int} NOT NULL)`)); err != nil {
			return fmt.Errorf("migrations table: %w", err)
		}
		var have int
		if err := c.QueryRow(ctx, `SELECT COALESCE(MAX(version), 0) FROM schema_migrations`).Scan(&have); err != nil {
			return fmt.Errorf("schema version: %w", err)
		}
		if have > len(schema) {
			return fmt.Errorf("schema version %d is newer than this build knows (%d)", have, len(schema))
		}
		for v := have + 1; v <= len(schema); v++ {
			if _, err := c.Exec(ctx, ddl(cols, schema[v-1])); err != nil {
				return fmt.Errorf("migration %d: %w", v, err)
			}
			if _, err := c.Exec(ctx, `INSERT INTO schema_migrations (version, applied_at) VALUES (?, ?)`, v, time.Now().Unix()); err != nil {
				return fmt.Errorf("migration %d: %w", v, err)
			}
		}
		return nil
	})
}

// SchemaVersion returns the number of applied migrations and the number this
// build knows.
func (s *SQLStore) SchemaVersion(ctx context.Context) (have, known int, err error) {
	if s.closed.Load() {
		return 0, 0, ErrClosed
	}
	err = s.d.Read().QueryRow(ctx, `SELECT COALESCE(MAX(version), 0) FROM schema_migrations`).Scan(&have)
	return have, len(schema), err
}
