// Command gen cuts the Germany subset out of PROJ's EGM96 15' grid
// (egm96_15.gtx, Debian package proj-data, public domain: NGA/NASA EGM96
// geoid undulations w.r.t. WGS84) and writes it as a .gtx file for the
// geoid package to embed: lon 4..17° E, lat 46..57° N, which holds every
// BL with a margin of more than one degree.
//
//	go run ./internal/gen /usr/share/proj/egm96_15.gtx egm96_de.gtx
package main

import (
	"fmt"
	"log"
	"os"

	"github.com/svc-geodata/svc/geoid"
)

func main() {
	if len(os.Args) != 3 {
		log.Fatal("usage: gen SOURCE.gtx OUT.gtx")
	}
	b, err := geoid.Subset(os.Args[1], 4, 46, 17, 57)
	if err != nil {
		log.Fatal(err)
	}
	if err := os.WriteFile(os.Args[2], b, 0o644); err != nil {
		log.Fatal(err)
	}
	fmt.Printf("%s: %d bytes\n", os.Args[2], len(b))
}
