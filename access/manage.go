package access

import (
	"context"
	"errors"
	"fmt"
	"net/mail"
	"slices"
	"strings"
	"time"

	"github.com/google/uuid"

	"github.com/svc-geodata/svc/state"
)

// Created is a key just created: the plaintext, shown once, and its record.
type Created struct {
	Plaintext string
	Key       state.Key
}

// MintRequest is a trial-key mint. Source and Email are optional (nil when
// absent); Email becomes the key's contact address.
type MintRequest struct {
	Client Client
	Source *string
	Email  *string
}

// ValidateSource checks a mint source label (SPEC 4.7): 1 to 64 characters
// of [a-z0-9_-].
func ValidateSource(s string) error {
	if s == "" || len(s) > 64 || strings.IndexFunc(s, func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '_' || r == '-')
	}) >= 0 {
		return &FieldError{Field: "source", Reason: "must be 1 to 64 characters of a-z, 0-9, _ and -"}
	}
	return nil
}

// ValidateEmail checks that s is a plain e-mail address (local@domain, no
// display name, at most 254 characters, a dot in the domain).
func ValidateEmail(field, s string) error {
	bad := &FieldError{Field: field, Reason: "must be an e-mail address such as name@example.org"}
	if len(s) > 254 {
		return bad
	}
	a, err := mail.ParseAddress(s)
	if err != nil || a.Address != s || a.Name != "" {
		return bad
	}
	at := strings.LastIndexByte(s, '@')
	if dom := s[at+1:]; !strings.Contains(dom, ".") || strings.HasPrefix(dom, ".") || strings.HasSuffix(dom, ".") {
		return bad
	}
	return nil
}

// MintTrial validates req and mints a trial key, durable before it
// returns. Errors: *FieldError (ErrInvalid) for a bad source or e-mail,
// with nothing minted; a *state.MintLimitError (ErrMintLimit) when the
// client used up its mints in the window.
func (s *Service) MintTrial(ctx context.Context, req MintRequest) (Created, error) {
	var k state.Key
	if req.Source != nil {
		if err := ValidateSource(*req.Source); err != nil {
			return Created{}, err
		}
		k.Source = *req.Source
	}
	if req.Email != nil {
		if err := ValidateEmail("email", *req.Email); err != nil {
			return Created{}, err
		}
		k.ContactEmail = req.Email
	}
	now := s.now().UTC().Truncate(time.Second)
	exp := now.Add(TrialLifetime)
	k.CustomerName, k.Tier, k.ExpiresAt = "trial", TierTrial, &exp
	c := s.newKey(k, now)
	// The trail names the client by its opaque number, never its address.
	ctx = state.WithActor(ctx, fmt.Sprintf("client:%016x", uint64(req.Client)))
	err := s.store.MintTrial(ctx, c.Key, state.Mint{Client: uint64(req.Client), Limit: s.opts.MintsPerClient, Window: s.opts.MintWindow, At: now})
	if err != nil {
		return Created{}, fmt.Errorf("access: %w", err)
	}
	return c, nil
}

func (s *Service) newKey(k state.Key, now time.Time) Created {
	plain := newPlaintext()
	k.ID, k.Hash, k.Prefix = uuid.NewString(), HashKey(plain), plain[:PrefixLen]
	k.CreatedAt, k.UpdatedAt = now, now
	return Created{Plaintext: plain, Key: k}
}

// CreateRequest is an admin key creation (SPEC 2.15 ApiKeyCreateRequest).
type CreateRequest struct {
	CustomerName      string
	Tier              string
	ContactEmail      *string
	MonthlyCallQuota  *int64
	Notes             *string
	PaymentCustomerID *string
}

// Validate checks r; it returns a *FieldError naming the first bad field.
func (r CreateRequest) Validate() error {
	switch {
	case strings.TrimSpace(r.CustomerName) == "" || len(r.CustomerName) > 200:
		return &FieldError{Field: "customer_name", Reason: "must be 1 to 200 characters"}
	case !slices.Contains(Tiers, r.Tier):
		return &FieldError{Field: "tier", Reason: "must be one of " + strings.Join(Tiers, ", ")}
	case r.MonthlyCallQuota != nil && *r.MonthlyCallQuota < 1:
		return &FieldError{Field: "monthly_call_quota", Reason: "must be a positive integer or null (unlimited)"}
	case r.Notes != nil && len(*r.Notes) > 2000:
		return &FieldError{Field: "notes", Reason: "must be at most 2000 characters"}
	case r.PaymentCustomerID != nil && len(*r.PaymentCustomerID) > 200:
		return &FieldError{Field: "payment_customer_id", Reason: "must be at most 200 characters"}
	}
	if r.ContactEmail != nil {
		return ValidateEmail("contact_email", *r.ContactEmail)
	}
	return nil
}

// CreateKey validates r and creates a key, durable before it returns. A
// trial-tier key expires after TrialLifetime like a minted one.
func (s *Service) CreateKey(ctx context.Context, r CreateRequest) (Created, error) {
	if err := r.Validate(); err != nil {
		return Created{}, err
	}
	now := s.now().UTC().Truncate(time.Second)
	k := state.Key{CustomerName: r.CustomerName, Tier: r.Tier, ContactEmail: r.ContactEmail,
		MonthlyCallQuota: r.MonthlyCallQuota, Notes: r.Notes, PaymentCustomerID: r.PaymentCustomerID}
	if r.Tier == TierTrial {
		exp := now.Add(TrialLifetime)
		k.ExpiresAt = &exp
	}
	c := s.newKey(k, now)
	if err := s.store.CreateKey(ctx, c.Key); err != nil {
		return Created{}, fmt.Errorf("access: %w", err)
	}
	return c, nil
}

// ListKeys returns every key record, oldest first.
func (s *Service) ListKeys(ctx context.Context) ([]state.Key, error) {
	ks, err := s.store.ListKeys(ctx)
	if err != nil {
		return nil, fmt.Errorf("access: %w", err)
	}
	return ks, nil
}

// Key returns the record of key id; ErrNotFound when there is none.
func (s *Service) Key(ctx context.Context, id string) (state.Key, error) {
	k, err := s.store.Key(ctx, id)
	if err != nil {
		return state.Key{}, fmt.Errorf("access: %w", err)
	}
	return k, nil
}

// RevokeKey revokes key id; from the moment it returns the key is refused.
// Revoking twice returns the first revocation. ErrNotFound for unknown ids.
func (s *Service) RevokeKey(ctx context.Context, id string) (state.Key, error) {
	k, err := s.store.RevokeKey(ctx, id, s.now().UTC().Truncate(time.Second))
	if err != nil {
		return state.Key{}, fmt.Errorf("access: %w", err)
	}
	s.keys.drop(k.Hash)
	return k, nil
}

// Audit returns up to limit events of the key audit trail after sequence
// number after, oldest first.
func (s *Service) Audit(ctx context.Context, after int64, limit int) ([]state.AuditEvent, error) {
	ev, err := s.store.Audit(ctx, after, limit)
	if err != nil {
		return nil, fmt.Errorf("access: %w", err)
	}
	return ev, nil
}

// TrialStatus is the status record of a trial key (SPEC 2.14).
type TrialStatus struct {
	Key              state.Key
	Status           string // active, expired or revoked
	SecondsRemaining int64  // until expiry; 0 when not active
	RequestsToday    int64
	RequestsTotal    int64
}

// Status values of a key.
const (
	StatusActive  = "active"
	StatusExpired = "expired"
	StatusRevoked = "revoked"
)

// TrialStatusOf returns the status of the trial key with this plaintext.
// Malformed, unknown and non-trial keys all give ErrKeyUnknown.
func (s *Service) TrialStatusOf(ctx context.Context, plaintext string) (TrialStatus, error) {
	hash := HashKey(plaintext)
	if !WellFormed(plaintext) {
		return TrialStatus{}, ErrKeyUnknown
	}
	k, err := s.store.KeyByHash(ctx, hash)
	if errors.Is(err, state.ErrNotFound) || err == nil && k.Tier != TierTrial {
		return TrialStatus{}, ErrKeyUnknown
	}
	if err != nil {
		return TrialStatus{}, fmt.Errorf("access: trial status: %w", err)
	}
	now := s.now()
	st := TrialStatus{Key: k, Status: StatusActive}
	switch {
	case k.RevokedAt != nil:
		st.Status = StatusRevoked
	case k.ExpiresAt != nil && !now.Before(*k.ExpiresAt):
		st.Status = StatusExpired
	case k.ExpiresAt != nil:
		st.SecondsRemaining = int64(k.ExpiresAt.Sub(now) / time.Second)
	}
	l, err := s.live(ctx, k.ID, now)
	if err != nil {
		return TrialStatus{}, err
	}
	l.mu.Lock()
	l.roll(now)
	st.RequestsToday, st.RequestsTotal = l.today, l.total
	l.mu.Unlock()
	return st, nil
}
