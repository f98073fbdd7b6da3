package keysadmin

import (
	"encoding/json"
	"testing"

	"github.com/svc-geodata/svc/server/httpapi"
)

func FuzzMintBody(f *testing.F) {
	for _, s := range []string{"", "null", "{}", `{"source":"a","email":"a@b.c"}`, `{"email":5}`, `[`, `"x"`, `{"source":"x"} {}`,
		`{"SOURCE":"x"}`, `{"source":"a","Source":"b"}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		m, err := parseMintBody(b)
		if err != nil {
			he := httpapi.ToHTTPError(err)
			if he.Status != 400 && he.Status != 422 {
				t.Fatalf("parseMintBody error %v", err)
			}
			return
		}
		if m.Source != nil && m.Email != nil && len(*m.Source)+len(*m.Email) > len(b)*6 {
			t.Fatalf("members longer than the input")
		}
		// Only a member named exactly source or email fills them.
		var members map[string]json.RawMessage
		_ = json.Unmarshal(b, &members)
		for name, got := range map[string]*string{"source": m.Source, "email": m.Email} {
			var want *string
			if raw, ok := members[name]; ok {
				_ = json.Unmarshal(raw, &want)
			}
			if (got == nil) != (want == nil) || got != nil && *got != *want {
				t.Fatalf("%q: %s is %v, the body's exact member %v", b, name, got, want)
			}
		}
	})
}
