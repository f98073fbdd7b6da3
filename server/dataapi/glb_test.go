package dataapi

import (
	"fmt"
	"strings"
	"testing"

	"github.com/svc-geodata/svc/glb"
	"github.com/svc-geodata/svc/glb/draco"
)

// TestCompressionErrorText: X-Svc-Compression-Error words the failure for
// the client; the encoder's own message (package prefixes) stays in the log.
func TestCompressionErrorText(t *testing.T) {
	for _, tc := range []struct {
		err  error
		want string
	}{
		{fmt.Errorf("%w: %w", glb.ErrDraco, fmt.Errorf("draco: encode: %w: 3000000 points", draco.ErrTooLarge)), "too large"},
		{fmt.Errorf("%w: %w", glb.ErrDraco, draco.ErrNonFinite), "non-finite"},
		{fmt.Errorf("%w: %w", glb.ErrDraco, draco.ErrIndexRange), "cannot be Draco-encoded"},
		{fmt.Errorf("%w: feature ids are not compressed", glb.ErrDraco), "encoder failed"},
	} {
		got := compressionError(tc.err)
		if !strings.Contains(got, tc.want) || strings.Contains(got, "draco:") || strings.Contains(got, "glb:") {
			t.Errorf("%v: %q", tc.err, got)
		}
	}
}
