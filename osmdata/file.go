package osmdata

import (
	"bufio"
	"compress/gzip"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
)

// Attribution is what the ODbL requires to be shown with the data.
const Attribution = "© OpenStreetMap contributors"

// ReadFile streams the features of a features file (gzip-compressed JSON
// lines, as the importer writes them).
func ReadFile(path string, each func(Feature) error) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		return fmt.Errorf("osmdata: %s: %w", path, err)
	}
	dec := json.NewDecoder(bufio.NewReaderSize(zr, 1<<20))
	for {
		var ft Feature
		if err := dec.Decode(&ft); errors.Is(err, io.EOF) {
			return nil
		} else if err != nil {
			return fmt.Errorf("osmdata: %s: %w", path, err)
		}
		if err := each(ft); err != nil {
			return err
		}
	}
}
