// Command svc serves German open geodata (LoD2 buildings, DGM1 terrain,
// canopy height, 3D Tiles) from a local data directory.
package main

import (
	"os"

	"github.com/svc-geodata/svc/cmd"
)

func main() { os.Exit(cmd.Execute()) }
