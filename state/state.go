// Package state keeps the server's key and usage state: API keys (stored as
// SHA-256 hash and prefix only, never the plaintext), trial-mint records,
// usage counters, the audit trail of key changes, and the JSON dump that
// moves all of it between deployments; no LoD2 or raster data. The access
// package reads and writes it; server uses its records and errors; cmd
// opens a backend.
//
// The Store interface is what users see. It is implemented once, by
// SQLStore, over a Dialect: the few things SQL backends do differently
// (placeholders, transactions, locks, column types, error codes). The two
// backends are subpackages that supply a Dialect and nothing else of
// substance:
//
//   - state/sqlite: an SQLite file beside the data (the default; one process);
//   - state/postgres: a PostgreSQL database shared by several replicas, with
//     the cross-replica extras (an atomic keyless counter, one clock).
//
// The backends are subpackages so that a package needing only the records
// and the interface (access, server) does not get a database driver (pgx,
// SQLite) through state; the svc binary links both, since
// `svc serve --state` chooses at run time.
// A new backend is one more Dialect (see dialect.go).
//
// Days are UTC calendar days written "2006-01-02", months "2006-01". A
// client is an opaque 64-bit number chosen by the caller (the access
// package derives it from the IP address). The package never logs and knows
// nothing of HTTP.
package state

import (
	"context"
	"errors"
	"fmt"
	"time"
)

// Sentinel errors of the package.
var (
	ErrNotFound  = errors.New("state: not found")
	ErrMintLimit = errors.New("state: trial mint limit reached")
	ErrExists    = errors.New("state: key already exists")
	ErrClosed    = errors.New("state: store closed")
	// ErrFull: the store cannot write because its disk (or quota) is full;
	// the transaction was rolled back, nothing was written.
	ErrFull = errors.New("state: storage full")
)

// Anonymous is the usage subject of keyless traffic; keyed traffic uses the
// key's ID as subject.
const Anonymous = ""

// Key is one API key record. The plaintext is never part of it.
type Key struct {
	ID                string
	Hash              [32]byte // SHA-256 of the plaintext key
	Prefix            string   // first characters of the plaintext, for display
	CustomerName      string
	Tier              string
	Source            string // campaign label of a trial mint; "" otherwise
	ContactEmail      *string
	MonthlyCallQuota  *int64
	Notes             *string
	PaymentCustomerID *string
	CreatedAt         time.Time
	UpdatedAt         time.Time
	ExpiresAt         *time.Time // nil: never expires
	RevokedAt         *time.Time
	LastUsedAt        *time.Time
}

// Mint describes the per-client budget a trial mint is checked against:
// at most Limit mints by Client within Window before At.
type Mint struct {
	Client uint64
	Limit  int
	Window time.Duration
	At     time.Time
}

// MintLimitError is returned by MintTrial when the client's budget is used
// up; it matches ErrMintLimit with errors.Is.
type MintLimitError struct {
	RetryAfter time.Duration // until the oldest counted mint leaves the window
}

func (e *MintLimitError) Error() string {
	return fmt.Sprintf("%v; retry after %s", ErrMintLimit, e.RetryAfter)
}

// Is makes errors.Is(err, ErrMintLimit) true.
func (e *MintLimitError) Is(target error) bool { return target == ErrMintLimit }

// ClientCount adds Calls keyless requests of Client on Day.
type ClientCount struct {
	Day    string
	Client uint64
	Calls  int64
}

// UsageDelta adds Calls requests (Errors of them answered with status >=
// 400) of Subject on Day to route Pattern, attributed to federal state BL
// ("" when no BL was involved).
type UsageDelta struct {
	Subject string
	Day     string
	Pattern string
	BL      string
	Calls   int64
	Errors  int64
}

// Sketch is a HyperLogLog register array of the distinct keyless clients in
// Month; stored sketches are merged register-wise by maximum, which is the
// HyperLogLog union.
type Sketch struct {
	Month     string
	Registers []byte
}

// KeyUse records that key ID was last used at At.
type KeyUse struct {
	ID string
	At time.Time
}

// Batch is everything one flush writes, in one transaction.
type Batch struct {
	Keyless  []ClientCount
	Usage    []UsageDelta
	Sketches []Sketch
	LastUsed []KeyUse
	// PruneBefore deletes per-client keyless rows of days before it ("":
	// keep all); only the current day is needed to restore limits.
	PruneBefore string
}

// Empty reports whether b writes nothing.
func (b Batch) Empty() bool {
	return len(b.Keyless) == 0 && len(b.Usage) == 0 && len(b.Sketches) == 0 && len(b.LastUsed) == 0 && b.PruneBefore == ""
}

// Counts are the calls of one subject on one day, in one month and ever.
type Counts struct {
	Today, Month, Total int64
}

// MonthUsage is one calendar month of a subject's usage.
type MonthUsage struct {
	Month  string
	Calls  int64
	Errors int64
}

// BLCount is the calls attributed to one federal state.
type BLCount struct {
	BL    string
	Calls int64
}

// EndpointCount is the calls and errors of one route pattern.
type EndpointCount struct {
	Pattern string
	Calls   int64
	Errors  int64
}

// Usage is a subject's usage over a set of months. Periods has one entry
// per requested month, in the order requested, zero when unused; BL and
// Endpoints are sorted by calls, descending; Sketches holds the stored
// sketches of those months (Anonymous only).
type Usage struct {
	Periods   []MonthUsage
	BL        []BLCount
	Endpoints []EndpointCount
	Sketches  [][]byte
}

// Store is the persistent state. Implementations are safe for concurrent
// use; every method taking ctx honours its cancellation.
type Store interface {
	// CreateKey stores k durably; ErrExists when its ID or hash is taken.
	CreateKey(ctx context.Context, k Key) error
	// MintTrial stores trial key k unless m.Client minted m.Limit keys within
	// m.Window, atomically: concurrent mints never exceed the limit. It
	// returns a *MintLimitError when the budget is used up.
	MintTrial(ctx context.Context, k Key, m Mint) error
	// KeyByHash returns the key whose plaintext hashes to hash, or ErrNotFound.
	KeyByHash(ctx context.Context, hash [32]byte) (Key, error)
	// Key returns the key with the given ID, or ErrNotFound.
	Key(ctx context.Context, id string) (Key, error)
	// ListKeys returns every key, oldest first; empty when there is none.
	ListKeys(ctx context.Context) ([]Key, error)
	// RevokeKey marks key id revoked at at and returns it; revoking a revoked
	// key keeps the first revocation time. ErrNotFound for an unknown id.
	RevokeKey(ctx context.Context, id string, at time.Time) (Key, error)
	// Audit returns up to limit events of the audit trail with Seq > after,
	// oldest first (limit <= 0 or over MaxAuditPage: MaxAuditPage).
	Audit(ctx context.Context, after int64, limit int) ([]AuditEvent, error)
	// KeysVersion changes whenever any process creates, mints or revokes a
	// key, so caches of key records know when to drop their entries.
	KeysVersion(ctx context.Context) (int64, error)
	// Flush adds the counters of b in one transaction.
	Flush(ctx context.Context, b Batch) error
	// KeylessDay calls fn for every client with keyless calls on day.
	KeylessDay(ctx context.Context, day string, fn func(client uint64, calls int64)) error
	// KeyCounts returns the stored calls of subject on day, in month and ever.
	KeyCounts(ctx context.Context, subject, day, month string) (Counts, error)
	// Usage returns the stored usage of subject over months.
	Usage(ctx context.Context, subject string, months []string) (Usage, error)
	// Ping checks that the store answers and accepts writes.
	Ping(ctx context.Context) error
	// Close releases the store; later calls fail with ErrClosed.
	Close() error
}
