// Package keysadmin holds the key and admin surfaces of the server: the
// self-service trial keys (/v1/keys), the operator's key management and
// usage reports, dataset reloads and the health report (/v1/admin). What
// they need of the server comes as an Env; the policies their routes
// answer under (keysAPI, adminAPI, whose admin token the server checks
// before a handler runs) are the server's.
package keysadmin

import (
	"context"
	"net/http"
	"net/netip"
	"time"

	"github.com/svc-geodata/svc/access"
	"github.com/svc-geodata/svc/catalog"
)

// Env is what the surfaces need of the server that composes them.
type Env struct {
	Catalog *catalog.Catalog
	// Access manages keys and counts; nil: the key routes answer 503.
	Access *access.Service
	// Now is the clock of the health report.
	Now func() time.Time
	// Reload rescans the data directory (POST /v1/admin/datasets).
	Reload func() (*catalog.View, error)
	// DocsURL is the address of the docs page, named in the mint answer.
	DocsURL string
	// TrialMintingOff answers POST /v1/keys/trial with 503.
	TrialMintingOff bool
	// ClientAddr is the client IP of a request, through trusted proxies.
	ClientAddr func(*http.Request) netip.Addr
	// ExactMembers refuses a JSON body member that is not, to the letter,
	// a property of the named component schema.
	ExactMembers func(body []byte, schema string) error
	// Damage lists the damaged files requests met; ResetDamage forgets them
	// (a rescan is how the operator says the data was repaired).
	Damage      func() []string
	ResetDamage func()
	// VerifyInBackground checks every published pack's files after a
	// rescan.
	VerifyInBackground func(ctx context.Context)
}

type surface struct{ Env }
