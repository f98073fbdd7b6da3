package server

import (
	"errors"
	"net/http"
	"slices"
	"strconv"
	"strings"

	"github.com/svc-geodata/svc/geo"
	"github.com/svc-geodata/svc/glb"
	"github.com/svc-geodata/svc/store"
)

// buildGLB streams the buildings of every source into one builder. Only
// the building being converted is held besides the growing mesh.
func (s *Server) buildGLB(r *http.Request, g glbRequest, srcs []glbSource) (*glb.Builder, error) {
	o := glb.Options{Zone: int(g.zone), OriginE: g.originE, OriginN: g.originN, RotateXDeg: g.rotX, RotateZDeg: g.rotZ,
		IncludeGround: g.ground, ColorizeRoofs: g.colorize, MergeBuildings: g.merge, WeldToleranceM: g.weld}
	switch g.zBase {
	case "bbox_min":
		o.ZBase = glb.ZBBoxMin
	case "absolute":
		o.ZBase = glb.ZAbsolute
	}
	if g.frame == "mercator" {
		o.Frame = glb.FrameMercator
	}
	o.Copyright = glbCopyright(srcs)
	b, err := glb.NewBuilder(o)
	if err != nil {
		return nil, invalid("Parameters: %v", err)
	}
	var gb glb.Building
	for _, src := range srcs {
		if len(src.ids) == 0 {
			continue
		}
		setBL(r.Context(), src.bl)
		zone := src.st.Zone()
		err := src.st.BuildingGeometry(r.Context(), src.ids, func(bd *store.Building3D) error {
			gb.GMLID, gb.BuildingID, gb.Surfaces = bd.GMLID, bd.BuildingID, gb.Surfaces[:0]
			for _, sf := range bd.Surfaces {
				if zone != g.zone {
					reproject(sf.Flat, zone, g.zone)
				}
				gb.Surfaces = append(gb.Surfaces, glb.Surface{Class: sf.Class, Flat: sf.Flat, Ends: sf.Ends})
			}
			_, err := b.Add(&gb)
			return err
		})
		if errors.Is(err, glb.ErrTooLarge) {
			return nil, tooLarge(g, "The buildings of the bbox exceed the mesh size limit (%d vertices).", glb.MaxVertices)
		}
		if err != nil {
			return nil, err
		}
	}
	return b, nil
}

// reproject moves x, y of flat (x, y, z triples) from one UTM zone into
// another, in place.
func reproject(flat []float64, from, to geo.Zone) {
	for i := 0; i+2 < len(flat); i += 3 {
		lon, lat := geo.FromUTM(from, flat[i], flat[i+1])
		flat[i], flat[i+1] = geo.ToUTM(to, lon, lat)
	}
}

// writeGLB sends the GLB: Draco-compressed when asked (the compressed file
// is small and built in memory; on an encoder error the plain GLB follows
// with the fallback headers of SPEC 4.4), else streamed from the builder's
// arrays so that a large admin export is never held in memory twice.
func writeGLB(w http.ResponseWriter, r *http.Request, g glbRequest, b *glb.Builder) error {
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
			msg := err.Error()
			if len(msg) > 160 {
				msg = msg[:160]
			}
			h.Set("X-Svc-Compression-Error", strconv.QuoteToASCII(msg)[1:len(strconv.QuoteToASCII(msg))-1])
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

// glbCopyright joins the attributions of the BL whose buildings are in the
// GLB (asset.copyright), in BL order, each once.
func glbCopyright(srcs []glbSource) string {
	var parts []string
	for _, s := range srcs {
		if len(s.ids) > 0 && s.attribution != "" && !slices.Contains(parts, s.attribution) {
			parts = append(parts, s.attribution)
		}
	}
	return strings.Join(parts, "; ")
}
