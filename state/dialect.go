package state

import "context"

// Dialect is what an SQL backend supplies to SQLStore: its connections and
// transactions, and the few things its SQL and its errors do differently.
// SQLStore writes every statement once, in the SQL both SQLite and
// PostgreSQL accept, with ? placeholders; a Conn of a backend that numbers
// its placeholders ($1, $2...) rewrites them.
type Dialect interface {
	// Columns names the column types the schema is written with.
	Columns() ColumnTypes
	// Read is the connection for reads outside a transaction.
	Read() Conn
	// Write runs f in one write transaction, committing when it returns nil
	// and rolling back otherwise.
	Write(ctx context.Context, f func(Conn) error) error
	// Snapshot runs f in a read-only transaction that sees one consistent
	// state of every table.
	Snapshot(ctx context.Context, f func(Conn) error) error
	// Lock takes l inside the write transaction c, released with it. A
	// backend whose write transactions already exclude each other (SQLite)
	// does nothing.
	Lock(ctx context.Context, c Conn, l Lock) error
	// ExecBatch runs stmts in order inside the write transaction c,
	// stopping at the first error; many repeat the same query.
	ExecBatch(ctx context.Context, c Conn, stmts []Stmt) error
	// AfterImport runs in the write transaction of Import, after rows were
	// inserted with their own audit sequence numbers, so that the next
	// generated one follows them.
	AfterImport(ctx context.Context, c Conn) error
	// NoRows reports the error of a QueryRow that found no row.
	NoRows(err error) bool
	// Unique reports a unique-constraint violation.
	Unique(err error) bool
	// Full reports a write that failed for want of disk (or quota).
	Full(err error) bool
	// Close releases the connections.
	Close() error
}

// Conn runs statements on a connection pool or in a transaction.
type Conn interface {
	// Exec runs query and returns the number of rows it changed.
	Exec(ctx context.Context, query string, args ...any) (int64, error)
	QueryRow(ctx context.Context, query string, args ...any) Row
	Query(ctx context.Context, query string, args ...any) (Rows, error)
}

// Row is the result of Conn.QueryRow.
type Row interface {
	Scan(dest ...any) error
}

// Rows is the result of Conn.Query.
type Rows interface {
	Next() bool
	Scan(dest ...any) error
	Err() error
	Close()
}

// Stmt is one statement of a batch.
type Stmt struct {
	Query string
	Args  []any
}

// Lock names what a write transaction must hold alone where several
// writers can run at once (PostgreSQL replicas).
type Lock int

const (
	// LockMigrate: replicas starting together apply the schema once.
	LockMigrate Lock = iota + 1
	// LockMints: the count of a client's trial mints and the new mint see
	// one state, so concurrent mints never exceed the limit.
	LockMints
	// LockSketches: two merges of one month's sketch never lose a union.
	LockSketches
)

// ColumnTypes are the dialect's names for the schema's column types.
type ColumnTypes struct {
	Int    string // a 64-bit integer
	Bytes  string // a byte string
	Serial string // an auto-increasing 64-bit primary key
	// Clustered follows the table definition of a table whose rows are
	// kept in primary-key order ("" when the dialect has no such option).
	Clustered string
}
