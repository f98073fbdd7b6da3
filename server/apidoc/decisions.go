package apidoc

import (
	"fmt"
	"strings"
)

// Decisions documents the choices the specification leaves open: the
// description of the whole API's document and the appendix of the /docs
// page. It ends with the list of problem type names.
var Decisions = strings.TrimSpace(fmt.Sprintf(`
All data endpoints are read-only GETs under /v1 and need no key. Errors are RFC 9457 (7807)
problem documents (application/problem+json) with type, title, status, detail, instance; the type
is {errors_base}/<name>, and with the default errors base it resolves to a description page.

Decisions where the interface specification is silent:
- Unknown routes answer 404 and known routes with a wrong method 405 (with an Allow header), both as problems.
- Parameters are checked as this document declares them (type, minimum, maximum, enum, pattern), and the detail names
  the parameter; one exception: a limit above its maximum on the OGC API items is taken as the maximum (a
  server-limited page with a next link, as OGC API - Features describes limit). On /v1 a value out of its range or enum is 422, as is a number or boolean that does not parse
  (lat=abc, limit=); a malformed bbox, coords or cursor is 400; /ogc answers 400 to every invalid parameter (OGC
  API - Features Part 1, /req/core/query-param-invalid). A path parameter that cannot name a resource (a tile level
  beyond the pyramid, a tileset id that is no UUID) is 404, a malformed one 400. Refused everywhere with 400: a
  parameter given twice, invalid percent-encoding, ';' in a name, and on /v1, /ogc and /opentopodata a parameter the
  operation does not declare. Numbers are decimal: no hex floats (0x1p3), digit separators (1_0), signs on integers
  (+5), inf or NaN. An empty value (cursor=) is the same as no value for a string without a pattern; for numbers,
  booleans and patterned strings it is checked like any value and refused.
- JSON request bodies: member names are matched exactly (case-sensitive); data after the JSON value is 400; an
  unknown member is 400 on the batch and opentopodata bodies, 422 on the API key create body, and ignored on the
  trial key mint (SPEC 4.7).
- Each error response of this document lists the problem types it can carry in x-problem-types.
- Requests net/http cannot parse (a malformed request line or header, headers over 1 MB, an unknown transfer
  encoding) answer 400, 431 or 501 as problems with an empty instance; the tile host's 416 and 412 are problems too.
- Unexpected errors answer 500 with the problem type internal-error and a detail that reveals nothing
  internal; the X-Request-Id response header identifies the log line.
- Every response carries X-Request-Id (a caller's own id of 8 to 64 characters [A-Za-z0-9._-] is kept).
- CORS: any origin; preflights (OPTIONS) answer 204 allowing GET, HEAD, POST, DELETE and the headers
  Content-Type, X-API-Key, X-Svc-Admin-Token, Authorization; the X-Svc-*, X-Keyless-Remaining and
  Retry-After headers are exposed to scripts.
- GET /v1/attribution lists the licence and attribution of every published product and BL; it is exempt from
  the keyless limit.
- POST /v1/admin/datasets rescans the data directory (like SIGHUP) and returns what is published and what was
  skipped, with reasons.
- Admin endpoints need the server's admin token (X-Svc-Admin-Token or Authorization: Bearer); 401 without it,
  403 when the server has none configured; the token is checked before any parameter.
- A BL pack appears only once its import finished; a newer snapshot replaces the older atomically.
- Keyless limit: counted per client IP (IPv6 per /64) and UTC day before routing, so 404, 405 and 422 count; every /v1,
  /ogc and /opentopodata response to a request without X-API-Key carries X-Keyless-Remaining (exempt routes show it without counting). The
  client IP is the socket peer, or the rightmost X-Forwarded-For entry when the peer is a trusted proxy. Admin routes
  (admin token) and everything under /v1/keys/ are not counted. Tile routes are not counted either (hillshade,
  quantized-mesh and footprint tiles, 3D Tiles): their grid is fixed and their answers cacheable, and a map client asks
  for dozens while a person pans. The built-in viewer draws only from those, so panning never uses the budget; what a
  click asks (roof, elevation, canopy, profile) is counted like any other request, and past the limit the viewer says so
  and offers a trial key. No header or page marks a request as the viewer's: the exemption is by route, which a script
  gains nothing from that the uncounted 3D Tiles of the same buildings do not already give.
- API keys: svc_ followed by 32 characters of [A-Za-z0-9_-]; key_prefix is the first 12 characters. A malformed,
  unknown, expired or revoked X-API-Key answers 401 (problem type unauthorized, WWW-Authenticate) on every /v1,
  /ogc and /opentopodata route outside /v1/keys/ and /v1/admin/; keys are looked up by SHA-256 hash. Tiers: trial, pro, business, internal.
  Keyed responses on counted routes carry X-Svc-Quota-Used (calls this UTC month) and X-Svc-Quota-Limit (absent when
  unlimited; 35000 for trial keys), and X-Svc-Quota-Exceeded naming soft limits now exceeded (minute, day, month).
- Trial keys: the mint 429 has type trial-mint-limit; an unknown key on GET /v1/keys/trial/{key} answers 404; key
  status values are active, expired and revoked.
- Revoke is DELETE /v1/admin/api-keys/{api_key_id}; the per-key usage report is GET
  /v1/admin/api-keys/{api_key_id}/usage. Usage periods are calendar months (UTC) with month, start, end, call_count
  and error_count (status >= 400); counters are written in batches every second and reports flush them first.
- Pro and business keys have no built-in limits: their monthly_call_quota (if set) is shown in X-Svc-Quota-Limit
  and, like every keyed limit, is soft (counted and shown, never refused).
- Data records other than keys have no states a client sees: a dataset is either published (its import
  finished) or absent.
- The service sends no events, webhooks or notifications.
- Heights: GLB exports and every JSON answer carry DHHN2016 normal heights as the sources have them; 3D Tiles and
  the quantized-mesh terrain place vertices at ellipsoidal heights h = H + N, N from the height model their
  listing names in height_model (BKG's GCG2016 by default, EGM96 beyond its extent), consistently for
  buildings, terrain and vegetation.
- Problem types: %s.`, strings.Join(problemSlugs(), ", ")))
