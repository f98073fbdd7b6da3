// Package cql2 parses, checks, prints and evaluates filters in the Common
// Query Language CQL2 (OGC 21-065r2, version 1.0), the filter language of
// OGC API - Features Part 3. It knows nothing of HTTP or SQL drivers.
//
// ParseText (cql2-text, the BNF of Annex B) and ParseJSON (cql2-json, the
// JSON schema of Annex A) build the same AST (*Expr); Text and JSON print it
// back canonically, and Equal compares two ASTs whatever encoding they came
// from. Errors are *SyntaxError values wrapping ErrSyntax or ErrInvalid with
// the line, column, byte offset and offending token (text) or the JSON
// pointer (JSON), so a server can answer a 400 problem that names them.
//
// Queryables.Validate checks a filter against the properties a collection
// offers (unknown property, type mismatch, value outside an enum). Match
// evaluates a filter on one feature; ToSQL splits a filter into a SQLite
// WHERE clause with bound parameters for the attribute conditions and a
// residual for Match (spatial and temporal conditions), with an envelope for
// the spatial index. docs/cql2.md describes the conformance classes covered
// and the decisions taken where the standard is silent.
//
// Known limit of cql2-text (not of this package): a one-element array
// outside an IN list or an A_* operand prints as a parenthesised value.
package cql2
