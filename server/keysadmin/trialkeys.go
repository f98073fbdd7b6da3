package keysadmin

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"mime"
	"net/http"
	"strings"
	"time"

	"github.com/svc-geodata/svc/access"
	"github.com/svc-geodata/svc/server/httpapi"
	"github.com/svc-geodata/svc/state"
)

// maxMintBody caps the mint request body; a valid one is under 400 bytes.
const maxMintBody = 4 << 10

// KeyRoutes are the self-service trial key routes; the server puts them on
// its keysAPI surface.
func KeyRoutes(env Env) []httpapi.Route {
	s := &surface{env}
	unavailable := httpapi.Response{Status: 503, Desc: "Trial minting is switched off or the key store is unavailable; clients should degrade silently", Schema: "Problem"}
	return []httpapi.Route{
		{Method: "POST", Path: "/v1/keys/trial", OpID: "mintTrialKey", Tag: "Keys", Stability: "beta", Since: "0.1.0", Exempt: true,
			Summary: "Mint a trial key (no registration)",
			Desc: "The body is optional; when sent it must be JSON (`Content-Type: application/json`, at most 4 KiB). Unknown members are " +
				"ignored; `null` members count as absent. `source` must be a slug of [a-z0-9_-], 1 to 64 characters; `email` a plain address " +
				"(no display name, at most 254 characters): otherwise 422 and no key is minted. The address is stored as the key's " +
				"contact_email, never echoed and never written to. A body that is not valid JSON answers 400; a body with another " +
				"media type 415; a larger body 413. Each client IP may mint a limited number of keys per 24 h (sliding window, " +
				"default 3); past it 429 with type `trial-mint-limit`, `Retry-After` and `retry_after` (seconds until the oldest " +
				"mint leaves the window). The client IP is the socket peer, or the rightmost X-Forwarded-For entry when the peer is " +
				"a trusted proxy. The key works for 7 days; `Cache-Control: no-store`. Not counted against the keyless limit.",
			Body: &httpapi.RequestBody{Schema: "TrialKeyRequest", Desc: "Optional campaign label and contact address"},
			Responses: []httpapi.Response{{Status: 200, Desc: "The new key; the plaintext is shown only here", Schema: "TrialKey"},
				httpapi.Resp400, {Status: 413, Desc: "Body larger than 4 KiB", Schema: "Problem"},
				{Status: 415, Desc: "Body sent with a media type other than JSON", Schema: "Problem"}, httpapi.Resp422,
				{Status: 429, Desc: "Mint limit of this IP reached (type ends in /trial-mint-limit)", Schema: "Problem", Headers: []string{"Retry-After"},
					Problems: []string{"trial-mint-limit"}},
				unavailable},
			Handle: s.handleMintTrial},
		{Method: "GET", Path: "/v1/keys/trial/{key}", OpID: "getTrialKeyStatus", Tag: "Keys", Stability: "beta", Since: "0.1.0", Exempt: true,
			Summary: "Status of a trial key",
			Desc: "`status` is `active`, `expired` (7 days after the mint) or `revoked`; `seconds_remaining` is 0 unless active. " +
				"`requests_today` counts the current UTC day. An unknown or malformed key, or a key of another tier, answers 404. " +
				"The key is cut to its prefix in server logs. `Cache-Control: no-store`. Not counted against the keyless limit.",
			Params:    []httpapi.Param{{Name: "key", In: "path", Type: "string", Required: true, Example: "svc_trial_...", Desc: "The plaintext trial key"}},
			Responses: []httpapi.Response{{Status: 200, Desc: "Status record", Schema: "TrialKeyStatus"}, httpapi.Resp404, unavailable},
			Handle:    s.handleTrialStatus},
	}
}

// mintBody is the optional JSON body of a mint; unknown members are
// ignored (SPEC 4.7), and so are members that name source or email in
// another case (encoding/json alone would take {"SOURCE": ...} as source).
type mintBody struct {
	Source *string `json:"source"`
	Email  *string `json:"email"`
}

// parseMintBody parses the mint body (untrusted bytes): empty or null is an
// empty request; malformed JSON is a 400; a member of the wrong type or a
// body that is not an object is a 422.
func parseMintBody(body []byte) (mintBody, error) {
	var m mintBody
	if len(bytes.TrimSpace(body)) == 0 {
		return m, nil
	}
	if err := json.Unmarshal(body, &m); err != nil {
		var te *json.UnmarshalTypeError
		if errors.As(err, &te) {
			if te.Field == "" {
				return mintBody{}, httpapi.Report(httpapi.ErrInvalid, "The request body must be a JSON object with the optional members source and email.")
			}
			return mintBody{}, httpapi.Report(httpapi.ErrInvalid, "Body member %s must be a string.", te.Field)
		}
		return mintBody{}, httpapi.Report(httpapi.ErrMalformed, "The request body is not valid JSON: %s.", httpapi.JSONReason(err))
	}
	// Take the members by their exact names only.
	var members map[string]json.RawMessage
	_ = json.Unmarshal(body, &members) // an object or null: the decode above passed
	m = mintBody{}
	for name, dst := range map[string]**string{"source": &m.Source, "email": &m.Email} {
		if raw, ok := members[name]; ok {
			_ = json.Unmarshal(raw, dst)
		}
	}
	return m, nil
}

// readMintBody reads and checks the request body of a mint.
func readMintBody(r *http.Request) (mintBody, error) {
	body, err := io.ReadAll(io.LimitReader(r.Body, maxMintBody+1))
	if err != nil {
		return mintBody{}, httpapi.Report(httpapi.ErrMalformed, "The request body could not be read.")
	}
	if len(body) > maxMintBody {
		return mintBody{}, httpapi.Report(httpapi.ErrTooLarge, "The request body exceeds %d bytes.", maxMintBody)
	}
	if len(bytes.TrimSpace(body)) == 0 {
		return mintBody{}, nil
	}
	mt, _, err := mime.ParseMediaType(r.Header.Get("Content-Type"))
	if err != nil || mt != "application/json" && !strings.HasSuffix(mt, "+json") {
		return mintBody{}, httpapi.Report(httpapi.ErrMediaType, "A request body must be sent as application/json.")
	}
	return parseMintBody(body)
}

func (s *surface) handleMintTrial(w http.ResponseWriter, r *http.Request, in *httpapi.Input) error {
	if s.TrialMintingOff || s.Access == nil {
		return httpapi.Report(httpapi.ErrUnavailable, "Trial key minting is switched off on this server.")
	}
	b, err := readMintBody(r)
	if err != nil {
		return err
	}
	c, err := s.Access.MintTrial(r.Context(), access.MintRequest{
		Client: access.ClientOf(s.ClientAddr(r)), Source: b.Source, Email: b.Email})
	var fe *access.FieldError
	var ml *state.MintLimitError
	switch {
	case errors.As(err, &fe):
		return httpapi.Report(httpapi.ErrInvalid, "Body member %s %s; no key was minted.", fe.Field, fe.Reason)
	case errors.As(err, &ml):
		secs := int64((ml.RetryAfter + time.Second - 1) / time.Second)
		return httpapi.Report(access.ErrMintLimit, "This IP address has minted %d trial keys in the last 24 hours, the most allowed; try again in %d seconds.",
			s.mintLimit(), secs).With(map[string]any{"retry_after": secs, "docs_url": s.DocsURL})
	case err != nil:
		return err
	}
	return httpapi.WriteJSON(w, r, http.StatusOK, "no-store", map[string]any{
		"key": c.Plaintext, "tier": c.Key.Tier, "expires_at": rfc3339(*c.Key.ExpiresAt),
		"limits": trialLimits(), "scopes": []string{"read"}, "docs_url": s.DocsURL})
}

func (s *surface) mintLimit() int {
	if s.Access == nil {
		return 0
	}
	return s.Access.MintsPerClient()
}

func trialLimits() map[string]int64 {
	return map[string]int64{"requests_per_minute": access.TrialLimits.PerMinute, "requests_per_day": access.TrialLimits.PerDay}
}

func (s *surface) handleTrialStatus(w http.ResponseWriter, r *http.Request, in *httpapi.Input) error {
	if s.Access == nil {
		return httpapi.Report(httpapi.ErrUnavailable, "Keys are not available on this server.")
	}
	st, err := s.Access.TrialStatusOf(r.Context(), in.Str("key"))
	if errors.Is(err, access.ErrKeyUnknown) {
		return httpapi.Report(httpapi.ErrNotFound, "No trial key matches the path.")
	}
	if err != nil {
		return err
	}
	k := st.Key
	return httpapi.WriteJSON(w, r, http.StatusOK, "no-store", map[string]any{
		"key_prefix": k.Prefix, "tier": k.Tier, "status": st.Status, "created_at": rfc3339(k.CreatedAt),
		"expires_at": rfc3339p(k.ExpiresAt), "seconds_remaining": st.SecondsRemaining,
		"requests_today": st.RequestsToday, "requests_total": st.RequestsTotal, "limits": trialLimits()})
}

// rfc3339 formats t in UTC to the second (ISO 8601).
func rfc3339(t time.Time) string { return t.UTC().Format(time.RFC3339) }

func rfc3339p(t *time.Time) *string {
	if t == nil {
		return nil
	}
	v := rfc3339(*t)
	return &v
}
