package keysadmin

import (
	"github.com/svc-geodata/svc/server/apidoc"
	"github.com/svc-geodata/svc/state"
)

// Schemas are the component schemas of the OpenAPI document the key and
// admin routes take and answer with, by name.
func Schemas() apidoc.Obj {
	limits := apidoc.Object("", nil, apidoc.Obj{"requests_per_minute": apidoc.Int(""), "requests_per_day": apidoc.Int("")})
	usage := apidoc.Obj{"window_months": apidoc.Int("calendar months in the report"), "total_calls": apidoc.Int("calls in the window"),
		"current_month_calls": apidoc.Int("calls in the running month"), "periods": apidoc.Array(apidoc.Ref("UsagePeriod"), "oldest first"),
		"bl_distribution": apidoc.Array(apidoc.Ref("ApiKeyBlDistribution"), "calls per BL that answered, descending"),
		"top_endpoints":   apidoc.Array(apidoc.Ref("ApiKeyTopEndpoint"), "the 10 busiest route patterns, descending")}
	props := apidoc.Obj{"api_key_id": apidoc.Str(""), "key_prefix": apidoc.Str(""), "customer_name": apidoc.Str(""), "tier": apidoc.Str(""),
		"monthly_call_quota": apidoc.Nullable("integer", "monthly quota; 35000 for trial keys; null when unlimited")}
	for k, v := range usage {
		props[k] = v
	}
	return apidoc.Obj{
		"TrialKey": apidoc.Object("Trial key mint response (SPEC 2.14)", nil, apidoc.Obj{
			"key": apidoc.Str("plaintext, returned exactly once"), "tier": apidoc.Enum("", "trial"), "expires_at": apidoc.StrF("date-time", "7 days after mint"),
			"limits": limits, "scopes": apidoc.Array(apidoc.Str(""), "[\"read\"]"), "docs_url": apidoc.StrF("uri", "")}),
		"TrialKeyStatus": apidoc.Object("Trial key status record (SPEC 2.14)", nil, apidoc.Obj{
			"key_prefix": apidoc.Str(""), "tier": apidoc.Str(""), "status": apidoc.Enum("", "active", "expired", "revoked"), "created_at": apidoc.StrF("date-time", ""), "expires_at": apidoc.StrF("date-time", ""),
			"seconds_remaining": apidoc.Int("0 unless active"), "requests_today": apidoc.Int("UTC day"), "requests_total": apidoc.Int(""), "limits": limits}),
		"ApiKeyCreateRequest": apidoc.Object("", []string{"customer_name", "tier"}, apidoc.Obj{
			"customer_name": apidoc.Str(""), "tier": apidoc.Enum("", "trial", "pro", "business", "internal"), "contact_email": apidoc.Nullable("string", ""),
			"monthly_call_quota": apidoc.Nullable("integer", "soft monthly quota, at least 1; null: unlimited"), "notes": apidoc.Nullable("string", ""),
			"payment_customer_id": apidoc.Nullable("string", "payment-provider customer reference")}),
		"ApiKeyCreatedResponse": apidoc.Object("", []string{"api_key_id", "plaintext_key", "key_prefix", "customer_name", "tier", "created_at"}, apidoc.Obj{
			"api_key_id": apidoc.Str(""), "plaintext_key": apidoc.Str("shown once only"), "key_prefix": apidoc.Str(""), "customer_name": apidoc.Str(""), "tier": apidoc.Str(""),
			"created_at": apidoc.StrF("date-time", ""), "contact_email": apidoc.Nullable("string", ""), "monthly_call_quota": apidoc.Nullable("integer", ""),
			"notes": apidoc.Nullable("string", ""), "payment_customer_id": apidoc.Nullable("string", "")}),
		"ApiKeyListItem": apidoc.Object("", []string{"api_key_id", "key_prefix", "customer_name", "tier", "created_at", "updated_at"}, apidoc.Obj{
			"api_key_id": apidoc.Str(""), "key_prefix": apidoc.Str(""), "customer_name": apidoc.Str(""), "tier": apidoc.Str(""), "created_at": apidoc.StrF("date-time", ""),
			"updated_at": apidoc.StrF("date-time", ""), "contact_email": apidoc.Nullable("string", ""), "last_used_at": apidoc.NullableF("string", "date-time", ""),
			"monthly_call_quota": apidoc.Nullable("integer", ""), "notes": apidoc.Nullable("string", ""), "revoked_at": apidoc.NullableF("string", "date-time", ""),
			"payment_customer_id": apidoc.Nullable("string", "")}),
		"ApiKeyListResponse": apidoc.Object("", nil, apidoc.Obj{"api_keys": apidoc.Array(apidoc.Ref("ApiKeyListItem"), ""), "count": apidoc.Int("")}),
		"AuditEvent": apidoc.Object("One key change", []string{"seq", "at", "action", "api_key_id", "actor", "detail"}, apidoc.Obj{
			"seq": apidoc.Int("Position in the trail; grows with every event"), "at": apidoc.StrF("date-time", "When the change took effect"),
			"action": apidoc.Enum("", state.AuditKeyCreate, state.AuditKeyMint, state.AuditKeyRevoke), "api_key_id": apidoc.Str(""),
			"actor": apidoc.Str("Who asked: admin-api request <id>, cli, or client:<hex>"), "detail": apidoc.Str("Customer, tier and campaign of the key")}),
		"AuditTrail": apidoc.Object("One page of the audit trail", []string{"events", "count"}, apidoc.Obj{
			"events": apidoc.Array(apidoc.Ref("AuditEvent"), ""), "count": apidoc.Int(""),
			"next_after": apidoc.Int("Pass as `after` for the next page; absent on the last page")}),
		"ApiKeyRevokedResponse": apidoc.Object("", nil, apidoc.Obj{"api_key_id": apidoc.Str(""), "customer_name": apidoc.Str(""), "key_prefix": apidoc.Str(""), "tier": apidoc.Str(""), "revoked_at": apidoc.StrF("date-time", "")}),
		"HealthProbe": apidoc.Object("One probe of the health report", []string{"name", "status", "latency_ms"}, apidoc.Obj{
			"name": apidoc.Str("what was probed"), "status": apidoc.Enum("", "ok", "fail"), "detail": apidoc.Str("failure reason"), "latency_ms": apidoc.Num("")}),
		"AdminHealthResponse": apidoc.Object("SPEC 2.16", nil, apidoc.Obj{
			"status": apidoc.Enum("ok when every probe passes", "ok", "degraded"), "probes": apidoc.Array(apidoc.Ref("HealthProbe"), ""),
			"lod2_db_bl": apidoc.Int("BL with a published LoD2 database"), "lod2_mesh_bl": apidoc.Int("BL with a published building tileset"),
			"terrain_tiff_bl": apidoc.Int("BL with published terrain COGs"), "terrain_mesh_bl": apidoc.Int("BL with a published terrain mesh"),
			"checked_at": apidoc.StrF("date-time", "")}),
		"UsagePeriod": apidoc.Object("A calendar-month bucket (UTC)", nil, apidoc.Obj{
			"month": apidoc.Str("YYYY-MM"), "start": apidoc.StrF("date", "first day"), "end": apidoc.StrF("date", "last day"),
			"call_count": apidoc.Int(""), "error_count": apidoc.Int("responses with status >= 400")}),
		"ApiKeyBlDistribution": apidoc.Object("", nil, apidoc.Obj{"bundesland_code": apidoc.Str(""), "call_count": apidoc.Int("")}),
		"ApiKeyTopEndpoint":    apidoc.Object("", nil, apidoc.Obj{"endpoint_pattern": apidoc.Str(""), "call_count": apidoc.Int(""), "error_count": apidoc.Int("")}),
		"AnonymousUsageReport": apidoc.Object("Keyless traffic (SPEC 2.16)", []string{"window_months", "total_calls", "current_month_calls", "unique_ips", "periods"}, apidoc.Obj{
			"window_months": apidoc.Int(""), "total_calls": apidoc.Int(""), "current_month_calls": apidoc.Int(""),
			"unique_ips": apidoc.Int("rough distinct-caller proxy"), "periods": apidoc.Array(apidoc.Ref("UsagePeriod"), ""),
			"bl_distribution": apidoc.Array(apidoc.Ref("ApiKeyBlDistribution"), "default []"), "top_endpoints": apidoc.Array(apidoc.Ref("ApiKeyTopEndpoint"), "default []")}),
		"DatasetReloadResponse": apidoc.Object("Result of a rescan of the data directory", nil, apidoc.Obj{
			"published": apidoc.Array(apidoc.Object("", nil, apidoc.Obj{"product": apidoc.Str(""), "bundesland_code": apidoc.Str(""), "snapshot": apidoc.StrF("date", "")}), ""),
			"count":     apidoc.Int("published packs"), "skipped": apidoc.Array(apidoc.Object("", nil, apidoc.Obj{"path": apidoc.Str("relative to the data directory"), "reason": apidoc.Str("")}), ""),
			"scanned_at": apidoc.StrF("date-time", "")}),
		"TrialKeyRequest": apidoc.Obj{"type": "object", "description": "Optional mint body (SPEC 4.7); unknown members are ignored",
			"properties": apidoc.Obj{"source": apidoc.Obj{"type": "string", "pattern": "^[a-z0-9_-]{1,64}$", "description": "campaign or channel label"},
				"email": apidoc.StrF("email", "contact address; optional, unverified, never written to")}},
		"ApiKeyUsageReport": apidoc.Object("Usage of one API key", nil, props),
	}
}
