package keysadmin

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"strings"

	"github.com/svc-geodata/svc/access"
	"github.com/svc-geodata/svc/server/httpapi"
	"github.com/svc-geodata/svc/state"
)

// maxAdminBody caps the body of an admin key creation.
const maxAdminBody = 16 << 10

// APIKeyRoutes are the key management and usage routes of the operator;
// the server puts them on its adminAPI surface.
func APIKeyRoutes(env Env) []httpapi.Route {
	s := &surface{env}
	authResp := []httpapi.Response{{Status: 401, Desc: "Missing or wrong admin token", Schema: "Problem"},
		{Status: 403, Desc: "No admin token configured", Schema: "Problem"},
		{Status: 503, Desc: "The key store is not available", Schema: "Problem"}}
	with := func(rs ...httpapi.Response) []httpapi.Response { return append(rs, authResp...) }
	window := httpapi.Param{Name: "window_months", In: "query", Type: "integer", Default: 3, Min: httpapi.F64(1), Max: httpapi.F64(access.MaxWindowMonths), Malformed: httpapi.ErrMalformed,
		Desc: "Number of calendar months (UTC) in the report, ending with the current (running) month"}
	keyID := httpapi.Param{Name: "api_key_id", In: "path", Type: "string", Required: true, Example: "0b6c7a3e-6a8e-4bdf-9c1d-2f4e8f0a1b2c", Desc: "The key's api_key_id"}
	return []httpapi.Route{
		{Method: "POST", Path: "/v1/admin/api-keys", OpID: "createApiKey", Tag: "Admin", Stability: "beta", Since: "0.1.0", Exempt: true,
			Summary: "Create an API key",
			Desc: "The server generates the key; `plaintext_key` is shown in this response only (the server keeps its SHA-256 hash and prefix). " +
				"Tiers: `trial` (expires 7 days after creation, soft limits 60/min, 5000/day, 35000/month), `pro`, `business`, `internal` " +
				"(no expiry). `monthly_call_quota` null means unlimited; it is soft (shown in X-Svc-Quota-Limit). Unknown members answer 422. " + AuthDoc,
			Body: &httpapi.RequestBody{Schema: "ApiKeyCreateRequest", Required: true, Desc: "The key's customer and contract"},
			Responses: with(httpapi.Response{Status: 201, Desc: "The key, with its plaintext shown once", Schema: "ApiKeyCreatedResponse"},
				httpapi.Resp400, httpapi.Resp422),
			Handle: s.handleCreateKey},
		{Method: "GET", Path: "/v1/admin/api-keys", OpID: "listApiKeys", Tag: "Admin", Stability: "beta", Since: "0.1.0", Exempt: true,
			Summary: "List all API keys, trial keys included",
			Desc: "Oldest first. Never includes a plaintext key. A trial key minted with an e-mail shows it as `contact_email`; revoked and " +
				"expired keys stay listed. " + AuthDoc,
			Responses: with(httpapi.Response{Status: 200, Desc: "All keys", Schema: "ApiKeyListResponse"}),
			Handle:    s.handleListKeys},
		{Method: "DELETE", Path: "/v1/admin/api-keys/{api_key_id}", OpID: "revokeApiKey", Tag: "Admin", Stability: "beta", Since: "0.1.0", Exempt: true,
			Summary: "Revoke an API key",
			Desc: "The key is refused (401) from the moment this returns. Revoking a revoked key answers 200 with the first `revoked_at`. " +
				"The record stays for the usage reports. " + AuthDoc,
			Params:    []httpapi.Param{keyID},
			Responses: with(httpapi.Response{Status: 200, Desc: "The revoked key", Schema: "ApiKeyRevokedResponse"}, httpapi.Resp404),
			Handle:    s.handleRevokeKey},
		{Method: "GET", Path: "/v1/admin/api-keys/{api_key_id}/usage", OpID: "getApiKeyUsage", Tag: "Admin", Stability: "beta", Since: "0.1.0", Exempt: true,
			Summary: "Usage of one API key",
			Desc: "Calls per calendar month (UTC) over the window, oldest first, with error counts (status >= 400), the share per BL and " +
				"the 10 busiest route patterns. Counters are flushed first, so the report is current to the request. Only counted routes " +
				"(those under the keyless limit) are counted for keys as well. " + AuthDoc,
			Params:    []httpapi.Param{keyID, window},
			Responses: with(httpapi.Response{Status: 200, Desc: "Usage report", Schema: "ApiKeyUsageReport"}, httpapi.Resp400, httpapi.Resp404, httpapi.Resp422),
			Handle:    s.handleKeyUsage},
		{Method: "GET", Path: "/v1/admin/audit", OpID: "getAuditTrail", Tag: "Admin", Stability: "beta", Since: "0.2.0", Exempt: true,
			Summary: "Audit trail of key changes",
			Desc: "Every key creation (`key.create`), trial mint (`key.mint`) and effective revocation (`key.revoke`), oldest first, written " +
				"in the same transaction as the change itself (shared by all replicas on a PostgreSQL state store). `actor` is " +
				"`admin-api request <X-Request-Id>`, `cli` (the `svc keys` command) or `client:<hex>` for a trial mint (an opaque number " +
				"derived from the address, never the address). Page with `after` = the last `seq` seen; `next_after` is absent on the last page. " +
				AuthDoc,
			Params: []httpapi.Param{
				{Name: "after", In: "query", Type: "integer", Default: 0, Min: httpapi.F64(0), Malformed: httpapi.ErrMalformed, Desc: "Return events with a larger seq"},
				{Name: "limit", In: "query", Type: "integer", Default: 100, Min: httpapi.F64(1), Max: httpapi.F64(state.MaxAuditPage), Malformed: httpapi.ErrMalformed, Desc: "Events per page"}},
			Responses: with(httpapi.Response{Status: 200, Desc: "One page of the trail", Schema: "AuditTrail"}, httpapi.Resp400, httpapi.Resp422),
			Handle:    s.handleAudit},
		{Method: "GET", Path: "/v1/admin/usage/anonymous", OpID: "getAnonymousUsage", Tag: "Admin", Stability: "beta", Since: "0.1.0", Exempt: true,
			Summary: "Usage of keyless traffic",
			Desc: "Keyless calls per calendar month (UTC) over the window, oldest first; `current_month_calls` is the last period. " +
				"`unique_ips` estimates the distinct client IPs in the window (IPv6 counted per /64) with HyperLogLog, about 1 % error. " +
				"Requests refused with 429 are included as errors. " + AuthDoc,
			Params:    []httpapi.Param{window},
			Responses: with(httpapi.Response{Status: 200, Desc: "Usage report", Schema: "AnonymousUsageReport"}, httpapi.Resp400, httpapi.Resp422),
			Handle:    s.handleAnonymousUsage},
	}
}

func (s *surface) needAccess() error {
	if s.Access == nil {
		return httpapi.Report(httpapi.ErrUnavailable, "Keys are not available on this server.")
	}
	return nil
}

// createBody is ApiKeyCreateRequest.
type createBody struct {
	CustomerName      *string `json:"customer_name"`
	Tier              *string `json:"tier"`
	ContactEmail      *string `json:"contact_email"`
	MonthlyCallQuota  *int64  `json:"monthly_call_quota"`
	Notes             *string `json:"notes"`
	PaymentCustomerID *string `json:"payment_customer_id"`
}

func (s *surface) parseCreateBody(r *http.Request) (access.CreateRequest, error) {
	body, err := io.ReadAll(io.LimitReader(r.Body, maxAdminBody+1))
	if err != nil || len(body) > maxAdminBody {
		return access.CreateRequest{}, httpapi.Report(httpapi.ErrMalformed, "The request body is unreadable or larger than %d bytes.", maxAdminBody)
	}
	if err := s.ExactMembers(body, "ApiKeyCreateRequest"); err != nil {
		return access.CreateRequest{}, err
	}
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.DisallowUnknownFields()
	var b createBody
	if err := dec.Decode(&b); err != nil {
		var te *json.UnmarshalTypeError
		switch {
		case errors.As(err, &te):
			return access.CreateRequest{}, httpapi.Report(httpapi.ErrInvalid, "Body member %s has the wrong type (%s).", te.Field, te.Value)
		case strings.HasPrefix(err.Error(), "json: unknown field"):
			return access.CreateRequest{}, httpapi.Report(httpapi.ErrInvalid, "Body has an %s.", strings.TrimPrefix(err.Error(), "json: "))
		}
		return access.CreateRequest{}, httpapi.Report(httpapi.ErrMalformed, "The request body must be a JSON ApiKeyCreateRequest: %s.", httpapi.JSONReason(err))
	}
	// Decode stops after the first value; what follows it is not ignored.
	if _, err := dec.Token(); err != io.EOF {
		return access.CreateRequest{}, httpapi.Report(httpapi.ErrMalformed, "The request body has data after its JSON object.")
	}
	if b.CustomerName == nil || b.Tier == nil {
		return access.CreateRequest{}, httpapi.Report(httpapi.ErrInvalid, "Body members customer_name and tier are required.")
	}
	return access.CreateRequest{CustomerName: *b.CustomerName, Tier: *b.Tier, ContactEmail: b.ContactEmail,
		MonthlyCallQuota: b.MonthlyCallQuota, Notes: b.Notes, PaymentCustomerID: b.PaymentCustomerID}, nil
}

func (s *surface) handleCreateKey(w http.ResponseWriter, r *http.Request, in *httpapi.Input) error {
	if err := s.needAccess(); err != nil {
		return err
	}
	req, err := s.parseCreateBody(r)
	if err != nil {
		return err
	}
	c, err := s.Access.CreateKey(r.Context(), req)
	var fe *access.FieldError
	if errors.As(err, &fe) {
		return httpapi.Report(httpapi.ErrInvalid, "Body member %s %s.", fe.Field, fe.Reason)
	}
	if err != nil {
		return err
	}
	k := c.Key
	return httpapi.WriteJSON(w, r, http.StatusCreated, "no-store", map[string]any{
		"api_key_id": k.ID, "plaintext_key": c.Plaintext, "key_prefix": k.Prefix, "customer_name": k.CustomerName,
		"tier": k.Tier, "created_at": rfc3339(k.CreatedAt), "contact_email": k.ContactEmail,
		"monthly_call_quota": k.MonthlyCallQuota, "notes": k.Notes, "payment_customer_id": k.PaymentCustomerID})
}

// keyListItem is ApiKeyListItem (SPEC 2.15).
func keyListItem(k state.Key) map[string]any {
	return map[string]any{
		"api_key_id": k.ID, "key_prefix": k.Prefix, "customer_name": k.CustomerName, "tier": k.Tier,
		"created_at": rfc3339(k.CreatedAt), "updated_at": rfc3339(k.UpdatedAt), "contact_email": k.ContactEmail,
		"last_used_at": rfc3339p(k.LastUsedAt), "monthly_call_quota": k.MonthlyCallQuota, "notes": k.Notes,
		"revoked_at": rfc3339p(k.RevokedAt), "payment_customer_id": k.PaymentCustomerID}
}

func (s *surface) handleListKeys(w http.ResponseWriter, r *http.Request, in *httpapi.Input) error {
	if err := s.needAccess(); err != nil {
		return err
	}
	ks, err := s.Access.ListKeys(r.Context())
	if err != nil {
		return err
	}
	items := make([]map[string]any, 0, len(ks))
	for _, k := range ks {
		items = append(items, keyListItem(k))
	}
	return httpapi.WriteJSON(w, r, http.StatusOK, "no-store", map[string]any{"api_keys": items, "count": len(items)})
}

func (s *surface) handleRevokeKey(w http.ResponseWriter, r *http.Request, in *httpapi.Input) error {
	if err := s.needAccess(); err != nil {
		return err
	}
	id := in.Str("api_key_id")
	k, err := s.Access.RevokeKey(r.Context(), id)
	if errors.Is(err, access.ErrNotFound) {
		return httpapi.Report(httpapi.ErrNotFound, "No API key has the id %q.", id)
	}
	if err != nil {
		return err
	}
	return httpapi.WriteJSON(w, r, http.StatusOK, "no-store", map[string]any{"api_key_id": k.ID, "customer_name": k.CustomerName,
		"key_prefix": k.Prefix, "tier": k.Tier, "revoked_at": rfc3339(*k.RevokedAt)})
}

// usageReport renders an access.Report as the members shared by
// ApiKeyUsageReport and AnonymousUsageReport.
func usageReport(rep access.Report) map[string]any {
	periods := make([]map[string]any, 0, len(rep.Periods))
	for _, p := range rep.Periods {
		periods = append(periods, map[string]any{"month": p.Month, "start": p.Start.Format("2006-01-02"),
			"end": p.End.Format("2006-01-02"), "call_count": p.Calls, "error_count": p.Errors})
	}
	bls := make([]map[string]any, 0, len(rep.BL))
	for _, b := range rep.BL {
		bls = append(bls, map[string]any{"bundesland_code": b.BL, "call_count": b.Calls})
	}
	eps := make([]map[string]any, 0, len(rep.Endpoints))
	for _, e := range rep.Endpoints {
		eps = append(eps, map[string]any{"endpoint_pattern": e.Pattern, "call_count": e.Calls, "error_count": e.Errors})
	}
	return map[string]any{"window_months": rep.WindowMonths, "total_calls": rep.TotalCalls,
		"current_month_calls": rep.CurrentMonthCalls, "periods": periods, "bl_distribution": bls, "top_endpoints": eps}
}

func (s *surface) handleKeyUsage(w http.ResponseWriter, r *http.Request, in *httpapi.Input) error {
	if err := s.needAccess(); err != nil {
		return err
	}
	n := in.Integer("window_months")
	id := in.Str("api_key_id")
	k, err := s.Access.Key(r.Context(), id)
	if errors.Is(err, access.ErrNotFound) {
		return httpapi.Report(httpapi.ErrNotFound, "No API key has the id %q.", id)
	}
	if err != nil {
		return err
	}
	rep, err := s.Access.Usage(r.Context(), k.ID, n)
	if err != nil {
		return err
	}
	out := usageReport(rep)
	out["api_key_id"], out["key_prefix"], out["customer_name"], out["tier"] = k.ID, k.Prefix, k.CustomerName, k.Tier
	var limit *int64
	if k.Tier == access.TierTrial {
		q := access.TrialLimits.PerMonth
		limit = &q
	}
	if k.MonthlyCallQuota != nil {
		limit = k.MonthlyCallQuota
	}
	out["monthly_call_quota"] = limit
	return httpapi.WriteJSON(w, r, http.StatusOK, "no-store", out)
}

func (s *surface) handleAnonymousUsage(w http.ResponseWriter, r *http.Request, in *httpapi.Input) error {
	if err := s.needAccess(); err != nil {
		return err
	}
	n := in.Integer("window_months")
	rep, err := s.Access.Usage(r.Context(), state.Anonymous, n)
	if err != nil {
		return err
	}
	out := usageReport(rep)
	out["unique_ips"] = rep.UniqueClients
	return httpapi.WriteJSON(w, r, http.StatusOK, "no-store", out)
}

func (s *surface) handleAudit(w http.ResponseWriter, r *http.Request, in *httpapi.Input) error {
	if err := s.needAccess(); err != nil {
		return err
	}
	after, limit := int64(in.Integer("after")), in.Integer("limit")
	ev, err := s.Access.Audit(r.Context(), after, int(limit))
	if err != nil {
		return err
	}
	items := make([]map[string]any, 0, len(ev))
	for _, e := range ev {
		items = append(items, map[string]any{"seq": e.Seq, "at": rfc3339(e.At), "action": e.Action, "api_key_id": e.KeyID,
			"actor": e.Actor, "detail": e.Detail})
	}
	out := map[string]any{"events": items, "count": len(items)}
	if len(ev) == int(limit) {
		out["next_after"] = ev[len(ev)-1].Seq
	}
	return httpapi.WriteJSON(w, r, http.StatusOK, "no-store", out)
}
