// Package importer turns source data as the German state portals deliver it
// into published packs: it checks the request, streams the sources through
// the parsers into a pack being written, and commits the pack atomically, so
// a failed or interrupted import leaves the previous snapshot published and
// nothing half-imported visible.
package importer

import (
	"errors"
	"fmt"

	"github.com/svc-geodata/svc/bl"
	"github.com/svc-geodata/svc/pack"
)

// ErrOptions reports an invalid import request (unknown BL, licence or
// snapshot, no input).
var ErrOptions = errors.New("importer: invalid options")

// Common describes what every import needs.
type Common struct {
	DataDir   string
	BL        string // BL code, e.g. "nrw"
	Snapshot  string // YYYY-MM-DD, date of the source download
	LicenseID string // e.g. dl-de-zero-2.0
	SourceURL string
	Name      string // display name; default derived from BL and licence
	// Progress, when set, is called as work advances, from one goroutine
	// at a time, at most a few times per second.
	Progress func(Progress)
	// Force imports data whose CRS or building ids say it belongs to
	// another BL than BL (see ErrWrongBL).
	Force bool
	// Summary, when set, receives what a LoD2 import left out or flagged
	// (raster imports: DGMOptions.Summary, VegetationOptions.Summary).
	Summary *LoD2Summary
	// Workers is how many files (LoD2) or tiles (rasters) an import
	// handles at once; 0 means runtime.NumCPU(). The pack does not depend
	// on it.
	Workers int
	// Strict fails an import at its first bad file instead of leaving the
	// file out (LoD2Summary.BadFiles, RasterSummary.BadFiles).
	Strict bool
	// Resume continues an interrupted import of the same BL and snapshot
	// from its journal: LoD2 from its last checkpoint (same inputs, else
	// the import starts over, LoD2Summary.Restarted), rasters without
	// converting again the tiles whose source is unchanged. Without it
	// such an import is discarded and the import starts afresh.
	Resume bool
	// Checksum hashes every input of a LoD2 import to find those unchanged
	// from the previous snapshot, like rsync -c; without it an input whose
	// relative name, size and modification time (ns) equal those recorded
	// in the previous pack is taken as unchanged without being read.
	Checksum bool
}

// Normalize returns c with its BL code in canonical form: codes are
// case-insensitive on the command line ("NRW" is nrw).
func (c Common) Normalize() Common {
	if code := bl.Canonical(c.BL); code != "" {
		c.BL = code
	}
	return c
}

// Progress reports how far an import has come.
type Progress struct {
	File              string
	Files, FilesTotal int
	Bytes, BytesTotal int64
	Buildings, Tiles  int64
	BadFiles          int   // input files (LoD2) or raster sources skipped as bad
	BytesResumed      int64 // of Bytes, done by an interrupted import (Common.Resume)
}

func (c Common) check() (bl.State, error) {
	switch {
	case c.BL == "":
		return bl.State{}, fmt.Errorf("%w: --bl is required (one of bw by be bb hb hh he mv ni nrw rp sl sn st sh th)", ErrOptions)
	case c.Snapshot == "":
		return bl.State{}, fmt.Errorf("%w: --snapshot is required: the date of the source download, YYYY-MM-DD", ErrOptions)
	case c.LicenseID == "":
		return bl.State{}, fmt.Errorf("%w: --license is required (dl-de-zero-2.0, dl-de-by-2.0, cc-by-4.0 or odbl-1.0)", ErrOptions)
	}
	st, ok := bl.Lookup(c.BL)
	if !ok || st.Code != c.BL {
		return st, fmt.Errorf("%w: unknown BL %q (one of bw by be bb hb hh he mv ni nrw rp sl sn st sh th)", ErrOptions, c.BL)
	}
	if !pack.ValidSnapshot(c.Snapshot) {
		return st, fmt.Errorf("%w: snapshot %q is not a date YYYY-MM-DD", ErrOptions, c.Snapshot)
	}
	if _, ok := bl.LookupLicense(c.LicenseID); !ok {
		var ids []string
		for _, l := range bl.Licenses() {
			ids = append(ids, l.ID)
		}
		return st, fmt.Errorf("%w: unknown licence %q (one of %v)", ErrOptions, c.LicenseID, ids)
	}
	if c.DataDir == "" {
		return st, fmt.Errorf("%w: no data directory", ErrOptions)
	}
	return st, nil
}

func (c Common) manifest(st bl.State) pack.Manifest {
	return pack.Manifest{LicenseID: c.LicenseID, Name: c.Name, SourceURL: c.SourceURL, SourceName: st.SourceName}
}
