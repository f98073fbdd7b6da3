package dataapi

import (
	"errors"
	"net/http"
	"strconv"

	"github.com/svc-geodata/svc/glb"
	"github.com/svc-geodata/svc/glb/draco"
)

// writeGLB sends the GLB: Draco-compressed when asked (the compressed file
// is small and built in memory; on an encoder error the plain GLB follows
// with the fallback headers of SPEC 4.4), else streamed from the builder's
// arrays so that a large admin export is never held in memory twice.
func (s *surface) writeGLB(w http.ResponseWriter, r *http.Request, g glbRequest, b *glb.Builder) error {
	rawSize, err := b.GLBSize()
	if err != nil {
		return err
	}
	var packed []byte
	h := w.Header()
	if g.compression == "draco" {
		p, err := b.DracoGLB()
		switch {
		case err == nil:
			packed = p
		case errors.Is(err, glb.ErrDraco):
			// The client learns why in words of its own request; the
			// encoder's message, which names internals, goes to the log.
			s.Log.Warn("draco compression failed", "request_id", s.RequestID(r.Context()), "err", err)
			h.Set("X-Svc-Compression-Error", compressionError(err))
		default:
			return err
		}
	}
	applied, length := "none", rawSize
	if packed != nil {
		applied, length = "draco", int64(len(packed))
	}
	h.Set("Content-Type", glbContentType)
	h.Set("X-Svc-Buildings", strconv.Itoa(b.Buildings()))
	h.Set("X-Svc-Compression", applied)
	h.Set("X-Svc-Raw-Size", strconv.FormatInt(rawSize, 10))
	h.Set("Content-Length", strconv.FormatInt(length, 10))
	w.WriteHeader(http.StatusOK)
	if r.Method == http.MethodHead {
		return nil
	}
	if packed != nil {
		_, _ = w.Write(packed)
		return nil
	}
	_ = b.WriteGLB(w) // headers are out: a failed write is the client's hang-up
	return nil
}

// compressionError is the short text of X-Svc-Compression-Error (SPEC 4.4)
// for a Draco encoding that failed.
func compressionError(err error) string {
	switch {
	case errors.Is(err, glb.ErrFeatureIDs):
		return "more than 65536 buildings: Draco feature ids are 16-bit"
	case errors.Is(err, draco.ErrTooLarge):
		return "the mesh is too large for Draco"
	case errors.Is(err, draco.ErrNonFinite):
		return "the mesh has a non-finite coordinate"
	case errors.Is(err, draco.ErrEmptyMesh), errors.Is(err, draco.ErrInvalidMesh), errors.Is(err, draco.ErrIndexRange):
		return "the mesh cannot be Draco-encoded"
	}
	return "the Draco encoder failed"
}
