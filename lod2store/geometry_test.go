package lod2store

import (
	"context"
	"errors"
	"testing"

	"github.com/svc-geodata/svc/geo"
)

func TestBuildingGeometry(t *testing.T) {
	s, _ := writeTown(t, 25832, 477000, 5553000, 1000, 300, 11)
	ctx := context.Background()
	lon0, lat0 := geo.FromUTM(geo.Zone32, 476990, 5552990)
	lon1, lat1 := geo.FromUTM(geo.Zone32, 478100, 5554100)
	all := geo.BBox{MinLon: lon0, MinLat: lat0, MaxLon: lon1, MaxLat: lat1}
	ids, err := s.BuildingIDsIn(ctx, all, -1)
	if err != nil || len(ids) != 300 {
		t.Fatalf("%d ids, %v; want 300", len(ids), err)
	}
	if _, err := s.BuildingIDsIn(ctx, all, 299); !errors.Is(err, ErrTooMany) {
		t.Errorf("limit 299: %v, want ErrTooMany", err)
	}
	// A budget used up by another BL stays used up: 0 is not "no limit".
	if _, err := s.BuildingIDsIn(ctx, all, 0); !errors.Is(err, ErrTooMany) {
		t.Errorf("limit 0: %v, want ErrTooMany", err)
	}
	var got []int64
	err = s.BuildingGeometry(ctx, ids[10:20], func(b *Building3D) error {
		got = append(got, b.BuildingID)
		if len(b.Surfaces) != 6 || b.GMLID == "" {
			t.Errorf("building %d: %d surfaces, gmlid %q", b.BuildingID, len(b.Surfaces), b.GMLID)
		}
		for _, sf := range b.Surfaces {
			if len(sf.Ends) != 1 || len(sf.Flat) != 15 || sf.Flat[2] < 100 {
				t.Errorf("surface %+v", sf)
			}
		}
		return nil
	})
	if err != nil || len(got) != 10 || got[0] != ids[10] || got[9] != ids[19] {
		t.Errorf("streamed %v (%v), want ids %v", got, err, ids[10:20])
	}
	n := 0
	if err := s.AllBuildingGeometry(ctx, func(*Building3D) error { n++; return nil }); err != nil || n != 300 {
		t.Errorf("all: %d buildings, %v", n, err)
	}
	ext, err := s.Extents(ctx)
	if err != nil || len(ext) != 300 || ext[0].MaxX-ext[0].MinX < 5 {
		t.Errorf("extents: %d, %v", len(ext), err)
	}
	stop := errors.New("stop")
	if err := s.BuildingGeometry(ctx, ids, func(*Building3D) error { return stop }); !errors.Is(err, stop) {
		t.Errorf("callback error: %v", err)
	}
}
