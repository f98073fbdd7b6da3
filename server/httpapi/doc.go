// Package httpapi is the small HTTP framework the server's surfaces are
// declared on: a Route with its parameters (Param), request body and
// responses; the policy of the API surface a route is on (Surface: keyed,
// counted, strict, time budget, error form, stability); ReadInput, which
// parses and checks the declared parameters into an Input before a handler
// runs; and the problem kinds, the one ProblemTable mapping an error to its
// status and RFC 9457 problem type, and WriteProblem, the only place a
// problem response is written; and the response writers surfaces share
// (WriteJSON, WriteMVT and the offline bundle answers). It knows no surface: the surfaces and their
// routes are declared in package server, which composes them with the
// middleware (docs/server-layer.md, docs/architecture.md).
package httpapi
