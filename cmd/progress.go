package cmd

import (
	"fmt"
	"io"
	"time"

	"github.com/vbauerster/mpb/v8"
	"github.com/vbauerster/mpb/v8/decor"

	"github.com/svc-geodata/svc/importer"
)

// defaultLogEvery is how often an import writes a progress line when
// stderr is not a terminal.
const defaultLogEvery = 10 * time.Second

// importProgress shows the progress of an import on w: on a terminal a
// bar (files, MB, rate, ETA); elsewhere (a pipe, a log file, systemd)
// plain lines, the first at the first report, then one every logEvery and
// the final figures at the end, so logs stay free of bar redraws but a
// long import still says how far it is. It sets o.Progress and returns a
// function that ends the display.
func importProgress(w io.Writer, o *importer.Common, what, unit string, logEvery time.Duration) func() {
	if p := newProgress(w); p != nil {
		return importBar(p, o, unit)
	}
	start := time.Now()
	var last time.Time
	var latest importer.Progress
	pending := false // latest is not printed yet
	o.Progress = func(pr importer.Progress) {
		latest, pending = pr, true
		if now := time.Now(); now.Sub(last) >= logEvery {
			last, pending = now, false
			fmt.Fprintln(w, progressLine(what, unit, pr, now.Sub(start)))
		}
	}
	return func() {
		// Ends with the final figures (an import that never reported, one
		// refused before its first file, prints nothing).
		if pending && !last.IsZero() {
			fmt.Fprintln(w, progressLine(what, unit, latest, time.Since(start)))
		}
	}
}

// progressLine formats one progress line, e.g.
//
//	import lod2: 12/64 files, 3.2/21.4 MB (15 %), 4.1 MB/s, 1234 buildings, ETA 4s
//
// with ", 2 bad files" when some were skipped.
func progressLine(what, unit string, pr importer.Progress, elapsed time.Duration) string {
	pct := 100.0
	if pr.BytesTotal > 0 {
		pct = 100 * float64(pr.Bytes) / float64(pr.BytesTotal)
	}
	rate := 0.0 // of this run: files done before a --resume do not count
	if s := elapsed.Seconds(); s > 0 {
		rate = float64(pr.Bytes-pr.BytesResumed) / 1e6 / s
	}
	eta := "-"
	switch {
	case pr.Files == pr.FilesTotal:
		eta = "0s, done in " + elapsed.Round(time.Millisecond).String()
	case rate > 0:
		eta = (time.Duration(float64(pr.BytesTotal-pr.Bytes) / 1e6 / rate * float64(time.Second))).Round(time.Second).String()
	}
	bad := ""
	if pr.BadFiles > 0 {
		bad = fmt.Sprintf(", %d bad files", pr.BadFiles)
	}
	return fmt.Sprintf("%s: %d/%d files, %.1f/%.1f MB (%.0f %%), %.1f MB/s, %d %s%s, ETA %s",
		what, pr.Files, pr.FilesTotal, float64(pr.Bytes)/1e6, float64(pr.BytesTotal)/1e6, pct, rate, pr.Buildings+pr.Tiles, unit, bad, eta)
}

// importBar draws the terminal bar.
func importBar(p *mpb.Progress, o *importer.Common, unit string) func() {
	var bar *mpb.Bar
	var last importer.Progress
	o.Progress = func(pr importer.Progress) {
		last = pr
		if bar == nil {
			// The bar counts this run's bytes: rate and ETA stay right
			// after a --resume.
			bar = p.New(pr.BytesTotal-pr.BytesResumed, mpb.BarStyle(),
				mpb.PrependDecorators(decor.Any(func(decor.Statistics) string {
					bad := ""
					if last.BadFiles > 0 {
						bad = fmt.Sprintf("  bad %d", last.BadFiles)
					}
					return fmt.Sprintf("files %d/%d  %s %d%s", last.Files, last.FilesTotal, unit, last.Buildings+last.Tiles, bad)
				})),
				mpb.AppendDecorators(decor.CountersKibiByte("% .1f / % .1f"), decor.Name("  "),
					decor.AverageSpeed(decor.SizeB1024(0), "% .1f"), decor.Name("  ETA "), decor.AverageETA(decor.ET_STYLE_GO)))
		}
		bar.SetCurrent(pr.Bytes - pr.BytesResumed)
	}
	return func() {
		if bar != nil {
			bar.SetTotal(-1, true)
		}
		p.Wait()
	}
}
