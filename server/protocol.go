package server

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"regexp"
	"strconv"

	"github.com/svc-geodata/svc/server/httpapi"
)

// Requests net/http cannot parse never reach a handler: it answers them
// itself, on the connection, with a text/plain reply (400 for a malformed
// request, 431 for headers over MaxHeaderBytes, 501 for an unknown
// transfer encoding). The API promises a problem document for every error,
// so the listener's connections rewrite exactly those replies.

// goErrorReply matches the whole of such a reply, written in one Write:
// status line, the two headers net/http sends with it, and the status
// text as the body.
var goErrorReply = regexp.MustCompile("^HTTP/1\\.1 ([0-9]{3}) ([^\r\n]*)\r\nContent-Type: text/plain; charset=utf-8\r\nConnection: close\r\n\r\n")

// Listener wraps ln so that net/http's own error replies go out as
// problem+json.
func (s *Server) Listener(ln net.Listener) net.Listener { return problemListener{ln, s} }

type problemListener struct {
	net.Listener
	s *Server
}

func (l problemListener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err != nil {
		return nil, err
	}
	return problemConn{c, l.s}, nil
}

type problemConn struct {
	net.Conn
	s *Server
}

// Write passes every write through but net/http's own error replies. It
// runs for every response: bodies and success headers leave after a byte
// comparison, the pattern is tried only on a 4xx or 5xx status line.
func (c problemConn) Write(p []byte) (int, error) {
	if !bytes.HasPrefix(p, []byte("HTTP/1.1 4")) && !bytes.HasPrefix(p, []byte("HTTP/1.1 5")) {
		return c.Conn.Write(p)
	}
	m := goErrorReply.FindSubmatch(p)
	if m == nil {
		return c.Conn.Write(p)
	}
	status, _ := strconv.Atoi(string(m[1]))
	if _, err := c.Conn.Write(c.s.protocolProblem(status, string(bytes.TrimSpace(p[len(m[0]):])))); err != nil {
		return 0, err
	}
	return len(p), nil
}

// ReadFrom keeps net/http's sendfile path for file bodies (the tile
// host, COG ranges): it looks for io.ReaderFrom on the connection, which an
// embedded net.Conn does not pass on.
func (c problemConn) ReadFrom(r io.Reader) (int64, error) {
	if rf, ok := c.Conn.(io.ReaderFrom); ok {
		return rf.ReadFrom(r)
	}
	return io.Copy(struct{ io.Writer }{c.Conn}, r)
}

// CloseWrite keeps net/http's half-close before it closes a connection
// (after the 431 reply among others), so the client reads the reply
// instead of a reset.
func (c problemConn) CloseWrite() error {
	if cw, ok := c.Conn.(interface{ CloseWrite() error }); ok {
		return cw.CloseWrite()
	}
	return nil
}

// protocolProblem renders the whole reply to a request net/http refused.
// instance is empty: the request was not understood far enough to name it.
func (s *Server) protocolProblem(status int, text string) []byte {
	slug, detail := "bad-request", "The request is not valid HTTP/1.1 and was not read; the connection is closed."
	switch status {
	case http.StatusRequestHeaderFieldsTooLarge:
		slug, detail = "header-fields-too-large", "The request headers exceed the server's limit and were not read; the connection is closed."
	case http.StatusNotImplemented:
		slug, detail = "not-implemented", "The request uses a transfer encoding this server does not implement; the connection is closed."
	}
	if t, ok := httpapi.ProblemTypes[slug]; ok {
		text = t.Title
	}
	body, _ := json.Marshal(httpapi.Problem{Type: s.cfg.ErrorsBase + "/" + slug, Title: text, Status: status, Detail: detail})
	return fmt.Appendf(nil, "HTTP/1.1 %d %s\r\nContent-Type: application/problem+json\r\nCache-Control: no-store\r\n"+
		"Connection: close\r\nContent-Length: %d\r\n\r\n%s\n", status, http.StatusText(status), len(body)+1, body)
}
