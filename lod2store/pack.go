package lod2store

import (
	"context"
	"fmt"
	"path/filepath"

	"github.com/svc-geodata/svc/pack"
)

// OpenPack opens the LoD2 file of a published pack; it is the catalog's
// opener for pack.LoD2.
func OpenPack(ctx context.Context, dir string, m pack.Manifest) (*LoD2, error) {
	if m.LoD2 == nil || m.LoD2.File == "" || !m.Has(m.LoD2.File) || !m.Has(m.LoD2.File+SearchFileSuffix) {
		return nil, fmt.Errorf("%w: manifest does not list the LoD2 files", pack.ErrCorrupt)
	}
	return OpenLoD2(ctx, filepath.Join(dir, filepath.FromSlash(m.LoD2.File)))
}
