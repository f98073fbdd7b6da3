package server

import (
	"context"
	"sync"

	"github.com/svc-geodata/svc/pack"
)

// verifier checks the published packs' files against their manifests in
// the background, one run at a time: a damaged file is in /v1/admin/health
// and /readyz before a request meets it. A new run (after a rescan)
// cancels the previous one.
type verifier struct {
	mu     sync.Mutex
	cancel context.CancelFunc
	done   chan struct{}
}

// VerifyInBackground starts checking every file of the published packs
// (size and SHA-256 against the manifest, as svc verify does); damaged
// files are noted for the health reports and logged. It returns at once;
// Wait blocks until the run ends (tests, shutdown).
func (s *Server) VerifyInBackground(ctx context.Context) {
	s.verify.mu.Lock()
	defer s.verify.mu.Unlock()
	if s.verify.cancel != nil {
		s.verify.cancel()
		<-s.verify.done
	}
	ctx, cancel := context.WithCancel(context.WithoutCancel(ctx))
	done := make(chan struct{})
	s.verify.cancel, s.verify.done = cancel, done
	v, release := s.deps.Catalog.Acquire()
	go func() {
		defer close(done)
		defer release()
		damaged := 0
		for _, prod := range pack.Products() {
			for _, p := range v.Packs(prod) {
				ds, err := pack.Verify(ctx, p.Dir, p.Manifest)
				if err != nil {
					return // cancelled by a newer run or shutdown
				}
				for _, d := range ds {
					id := p.Manifest.Key().String() + "/" + d.Path
					s.damage.noteAs(id, errString(d.Problem))
					s.log.Warn("damaged file", "file", id, "problem", d.Problem)
					damaged++
				}
			}
		}
		s.log.Info("background verification done", "damaged_files", damaged)
	}()
}

// WaitVerify blocks until the current background verification ends.
func (s *Server) WaitVerify() {
	s.verify.mu.Lock()
	done := s.verify.done
	s.verify.mu.Unlock()
	if done != nil {
		<-done
	}
}

type errString string

func (e errString) Error() string { return string(e) }
