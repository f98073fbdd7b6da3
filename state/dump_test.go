package state_test

import (
	"bytes"
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/svc-geodata/svc/state"
)

// fill gives s one of everything a dump holds.
func fill(t *testing.T, s state.Store) {
	t.Helper()
	ctx := context.Background()
	if err := s.CreateKey(ctx, testKey("k", 1)); err != nil {
		t.Fatal(err)
	}
	if err := s.MintTrial(ctx, testKey("trial", 2), state.Mint{Client: 1<<63 + 12345, Limit: 3, Window: 24 * time.Hour, At: t0}); err != nil {
		t.Fatal(err)
	}
	if _, err := s.RevokeKey(ctx, "k", t0.Add(time.Minute)); err != nil {
		t.Fatal(err)
	}
	sk := make([]byte, 16)
	sk[3] = 7
	err := s.Flush(ctx, state.Batch{
		Keyless:  []state.ClientCount{{"2026-05-14", 1<<64 - 1, 5}},
		Usage:    []state.UsageDelta{{state.Anonymous, "2026-05-14", "GET /v1/x", "he", 6, 1}, {"k", "2026-05-14", "GET /v1/y", "", 2, 0}},
		Sketches: []state.Sketch{{"2026-05", sk}},
		LastUsed: []state.KeyUse{{"k", t0}},
	})
	if err != nil {
		t.Fatal(err)
	}
}

type porter interface {
	state.Store
	Export(context.Context) (state.Dump, error)
	Import(context.Context, state.Dump) error
}

func roundTrip(t *testing.T, d state.Dump) state.Dump {
	t.Helper()
	var buf bytes.Buffer
	if err := json.NewEncoder(&buf).Encode(d); err != nil {
		t.Fatal(err)
	}
	back, err := state.ReadDump(&buf)
	if err != nil {
		t.Fatal(err)
	}
	return back
}

func canon(t *testing.T, d state.Dump) string {
	t.Helper()
	d.Meta = nil // keys_version legitimately moves on import
	b, err := json.Marshal(d)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestMoveBetweenBackends moves a filled SQLite store to PostgreSQL and
// back through the JSON export: every row arrives unchanged, including
// 64-bit client numbers beyond 2^53, and an import never merges into a
// store that already holds state.
func TestMoveBetweenBackends(t *testing.T) {
	ctx := context.Background()
	src, _ := openTest(t)
	fill(t, src)
	d0, err := src.Export(ctx)
	if err != nil {
		t.Fatal(err)
	}
	pg := openPG(t)
	if err := pg.Import(ctx, roundTrip(t, d0)); err != nil {
		t.Fatal(err)
	}
	d1, err := pg.Export(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if a, b := canon(t, d0), canon(t, d1); a != b {
		t.Errorf("PostgreSQL export differs from the SQLite one:\n%s\n%s", a, b)
	}
	back, _ := openTest(t)
	if err := back.Import(ctx, roundTrip(t, d1)); err != nil {
		t.Fatal(err)
	}
	d2, _ := back.Export(ctx)
	if canon(t, d0) != canon(t, d2) {
		t.Errorf("round trip changed the state")
	}
	// What the stores answer agrees too.
	for _, s := range []porter{src, pg, back} {
		k, err := s.KeyByHash(ctx, [32]byte{1})
		if err != nil || k.RevokedAt == nil || k.LastUsedAt == nil || !k.LastUsedAt.Equal(t0) {
			t.Errorf("%T: key = %+v, %v", s, k, err)
		}
		got := map[uint64]int64{}
		s.KeylessDay(ctx, "2026-05-14", func(c uint64, n int64) { got[c] = n })
		if got[1<<64-1] != 5 {
			t.Errorf("%T: keyless = %v", s, got)
		}
	}
	// The audit trail moved whole and goes on after the imported events.
	for _, s := range []porter{pg, back} {
		if err := s.CreateKey(ctx, testKey("after", 9)); err != nil {
			t.Fatal(err)
		}
		ev, err := s.Audit(ctx, 0, 0)
		if err != nil || len(ev) != 4 || ev[3].Action != state.AuditKeyCreate || ev[3].KeyID != "after" || ev[3].Seq <= ev[2].Seq {
			t.Errorf("%T: audit after the move = %+v, %v", s, ev, err)
		}
	}
	if err := pg.Import(ctx, d0); err == nil || !strings.Contains(err.Error(), "not empty") {
		t.Errorf("import into a filled store: %v", err)
	}
	if _, err := state.ReadDump(strings.NewReader(`{"format":"other","version":1}`)); err == nil {
		t.Error("foreign JSON accepted")
	}
	if _, err := state.ReadDump(strings.NewReader(`{"format":"svc-state","version":1} {}`)); err == nil {
		t.Error("trailing data accepted")
	}
}
