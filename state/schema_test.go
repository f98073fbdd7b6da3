package state_test

import (
	"context"
	"testing"

	"github.com/svc-geodata/svc/state/postgres"
)

// TestConcurrentMigrate: replicas starting together on a new database
// apply the schema once.
func TestConcurrentMigrate(t *testing.T) {
	c := pgtestShared(t)
	url := c.CreateDB(t, "migrate_race")
	errs := make(chan error, 4)
	for range 4 {
		go func() {
			s, err := postgres.Open(context.Background(), url)
			if err == nil {
				s.Close()
			}
			errs <- err
		}()
	}
	for range 4 {
		if err := <-errs; err != nil {
			t.Error(err)
		}
	}
	s, err := postgres.Open(context.Background(), url)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if have, known, err := s.SchemaVersion(context.Background()); err != nil || have != known {
		t.Errorf("schema version %d of %d: %v", have, known, err)
	}
}
