// Command scale is make bench-scale: it generates a synthetic state of
// SCALE x the state's area from real shapes (internal/scalegen), runs the
// whole svc pipeline on it with the built binary (internal/scalerun) and
// writes bench/results/scale-<SCALE>.md and .json. See docs/performance.md.
//
//	go run ./bench/scale -scale 0.01 -svc ./svc
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"runtime"
	"time"

	"github.com/svc-geodata/svc/internal/scalegen"
	"github.com/svc-geodata/svc/internal/scalerun"
)

func main() {
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "bench-scale:", err)
		os.Exit(1)
	}
}

func run() error {
	scale := flag.Float64("scale", 0.01, "share of the state's area (NRW: 1 = 34,000 km²)")
	blCode := flag.String("bl", "nrw", "state (only nrw has a template)")
	seed := flag.Uint64("seed", 1, "seed of the relief and forests")
	samples := flag.String("samples", "../shared/samples", "the shared samples (real/ LoD2, osm/ extracts)")
	svc := flag.String("svc", "./svc", "the built svc binary")
	work := flag.String("work", "", "work directory for the generated input and the data directory (default: a new one under $TMPDIR, removed afterwards)")
	out := flag.String("out", "bench/results", "where scale-<SCALE>.md and .json go")
	workers := flag.Int("workers", runtime.NumCPU(), "--workers for every command that has it (0: the command's default)")
	load := flag.Duration("load", 10*time.Second, "bbox search load duration")
	conns := flag.Int("conns", 32, "concurrent search clients")
	pixel := flag.Float64("pixel", 1, "DGM/CDSM pixel size in metres (1: DGM1 as delivered)")
	judge := flag.String("judge", envOr("JUDGE", "auto"), "judge the 3D Tiles output with the official validator and CesiumJS in headless Chromium: auto (each when its tool is found), on (fail when one is missing), off (env JUDGE)")
	irradiance := flag.String("irradiance", "solar/climate/testdata/tmy_potsdam.csv", "climate file of the build solar stage (\"\": no solar stage)")
	solarKM2 := flag.Float64("solar-km2", 4, "generated km² build solar computes (its --bbox; below 1 part of one tile; 0: all buildings, hours at SCALE 0.01)")
	sample := flag.Int("validate-sample", 300, "most content files the validator checks per product (an even sample; the tileset JSON and external tilesets are always validated whole; -1: all)")
	flag.Parse()

	var judges scalerun.Judges
	switch *judge {
	case "off", "0":
		judges.SkipValidator, judges.SkipCesium = "-judge off", "-judge off"
	case "auto", "on", "1":
		root, err := os.Getwd()
		if err != nil {
			return err
		}
		judges = scalerun.FindJudges(root, filepath.Dir(filepath.Clean(*samples)))
		judges.SampleContent = *sample
		for _, skip := range []string{judges.SkipValidator, judges.SkipCesium} {
			if skip != "" && *judge != "auto" {
				return fmt.Errorf("-judge on: %s", skip)
			} else if skip != "" {
				fmt.Println("judge skipped:", skip)
			}
		}
	default:
		return fmt.Errorf("-judge %q: want auto, on or off", *judge)
	}

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	dir := *work
	if dir == "" {
		d, err := os.MkdirTemp("", "svc-bench-scale-")
		if err != nil {
			return err
		}
		defer os.RemoveAll(d)
		dir = d
	}
	osmium, _ := exec.LookPath("osmium")
	if osmium == "" {
		fmt.Println("osmium not found (apt-get install osmium-tool): the OSM extract stays OSM XML")
	}
	fmt.Printf("generating SCALE=%g into %s\n", *scale, dir)
	m, err := scalegen.Generate(ctx, scalegen.Options{BL: *blCode, Scale: *scale, Seed: *seed, Dir: filepath.Join(dir, "input"),
		Samples: *samples, Osmium: osmium, PixelM: *pixel})
	if err != nil {
		return err
	}
	fmt.Printf("generated %d km², %d buildings, %.0f MB LoD2, %.0f MB OSM in %.1f s\n", m.AreaKM2, m.LoD2.Buildings, float64(m.LoD2.Bytes)/1e6, float64(m.OSM.Bytes)/1e6, m.Seconds)
	r, err := scalerun.Run(ctx, scalerun.Options{SVC: *svc, Data: filepath.Join(dir, "data"), Manifest: m, Workers: *workers,
		Load: *load, Conns: *conns, Log: os.Stdout, Judges: judges, Irradiance: absOrEmpty(*irradiance), SolarKM2: *solarKM2})
	if err != nil {
		return err
	}
	md, err := scalerun.Write(*out, r, m)
	if err != nil {
		return err
	}
	fmt.Printf("done in %.1f s: %s\n", r.TotalS, md)
	return nil
}

// absOrEmpty is path made absolute (the stages run in other directories).
func absOrEmpty(path string) string {
	if path == "" {
		return ""
	}
	if a, err := filepath.Abs(path); err == nil {
		return a
	}
	return path
}

func envOr(name, def string) string {
	if v := os.Getenv(name); v != "" {
		return v
	}
	return def
}
