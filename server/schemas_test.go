package server

import (
	"strings"
	"testing"

	"github.com/svc-geodata/svc/server/apidoc"
)

// TestMergeSchemas: each surface declares its own component schemas; a
// name two of them declare would publish one surface's shape for the
// other's routes, so the server refuses to start.
func TestMergeSchemas(t *testing.T) {
	shared := func() obj { return obj{"Problem": apidoc.Str("")} }
	if m, err := mergeSchemas(shared(), obj{"A": apidoc.Str("")}, obj{"B": apidoc.Int("")}); err != nil || len(m) != 3 {
		t.Errorf("distinct names: %v, %v", m, err)
	}
	for name, surfaces := range map[string][]obj{
		"Problem": {obj{"Problem": apidoc.Str("")}},
		"A":       {obj{"A": apidoc.Str("")}, obj{"A": apidoc.Int("")}},
	} {
		if _, err := mergeSchemas(shared(), surfaces...); err == nil || !strings.Contains(err.Error(), "schema "+name+" is declared twice") {
			t.Errorf("%s twice: err = %v", name, err)
		}
	}
	if _, err := components(); err != nil {
		t.Fatal(err)
	}
}
