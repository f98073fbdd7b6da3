package server

import (
	"context"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/svc-geodata/svc/catalog"
)

// TestNoClimateNotAnError: the solar route's 503 on a server started
// without --irradiance is a configuration the operator chose, not a fault:
// the client gets the problem, the log has no ERROR line for it (the
// request line is INFO, status 503).
func TestNoClimateNotAnError(t *testing.T) {
	cat := catalog.New(catalog.Options{Dir: t.TempDir()})
	if _, err := cat.Reload(context.Background()); err != nil {
		t.Fatal(err)
	}
	logs := &syncBuffer{}
	srv, err := New(Config{BaseURL: "http://api.test"}, Deps{Catalog: cat,
		Logger: slog.New(slog.NewTextHandler(logs, &slog.HandlerOptions{Level: slog.LevelDebug}))})
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(srv)
	defer ts.Close()
	res, err := http.Get(ts.URL + "/v1/buildings/DENW0001/solar")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(res.Body)
	res.Body.Close()
	if res.StatusCode != 503 || !strings.Contains(string(body), "--irradiance") {
		t.Fatalf("%d %s", res.StatusCode, body)
	}
	log := logs.String()
	if strings.Contains(log, "level=ERROR") {
		t.Errorf("the 503 without a climate is logged as an error:\n%s", log)
	}
	if !strings.Contains(log, "level=INFO msg=request") || !strings.Contains(log, "status=503") {
		t.Errorf("no INFO request line with status 503:\n%s", log)
	}
}
