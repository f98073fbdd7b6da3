package cmd

import (
	"fmt"
	"io"
	"sync"
	"time"

	"github.com/spf13/pflag"
	"github.com/vbauerster/mpb/v8"
	"github.com/vbauerster/mpb/v8/decor"
)

// buildLogEvery is how often a build writes a progress line when stderr
// is not a terminal.
const buildLogEvery = 10 * time.Second

// progressFlag adds --progress-interval to a build.
func progressFlag(f *pflag.FlagSet, every *time.Duration) {
	f.DurationVar(every, "progress-interval", buildLogEvery, "time between progress lines when stderr is not a terminal")
}

// buildProgress shows a build's progress on w by setting *progress: on a
// terminal a bar (items done of total, rate, ETA); elsewhere (a pipe, a
// log file, systemd) a plain line every logEvery and one at the end when
// any was written, e.g.
//
//	build terrain-mesh: 120/640 tiles (19 %), 4.1 tiles/s, ETA 2m7s
//
// It returns a function that ends the display.
func buildProgress(w io.Writer, progress *func(done, total int64), what, unit string, logEvery time.Duration) func() {
	if p := newProgress(w); p != nil {
		return buildBar(p, progress, unit)
	}
	start := time.Now()
	var mu sync.Mutex
	var last time.Time
	var done, total int64
	pending := false
	*progress = func(d, t int64) {
		mu.Lock()
		defer mu.Unlock()
		done, total, pending = d, t, true
		if now := time.Now(); now.Sub(last) >= logEvery {
			last, pending = now, false
			fmt.Fprintln(w, buildLine(what, unit, d, t, now.Sub(start)))
		}
	}
	return func() {
		mu.Lock()
		defer mu.Unlock()
		if pending && !last.IsZero() {
			fmt.Fprintln(w, buildLine(what, unit, done, total, time.Since(start)))
		}
	}
}

// buildLine formats one progress line.
func buildLine(what, unit string, done, total int64, elapsed time.Duration) string {
	pct, rate := 100.0, 0.0
	if total > 0 {
		pct = 100 * float64(done) / float64(total)
	}
	if s := elapsed.Seconds(); s > 0 {
		rate = float64(done) / s
	}
	eta := "-"
	switch {
	case done >= total:
		eta = "0s, done in " + elapsed.Round(time.Millisecond).String()
	case rate > 0:
		eta = time.Duration(float64(total-done) / rate * float64(time.Second)).Round(time.Second).String()
	}
	return fmt.Sprintf("%s: %d/%d %s (%.0f %%), %.1f %s/s, ETA %s", what, done, total, unit, pct, rate, unit, eta)
}

// buildBar draws the terminal bar.
func buildBar(p *mpb.Progress, progress *func(done, total int64), unit string) func() {
	var bar *mpb.Bar
	var mu sync.Mutex
	*progress = func(done, total int64) {
		mu.Lock()
		defer mu.Unlock()
		if bar == nil {
			bar = p.New(total, mpb.BarStyle(), mpb.PrependDecorators(decor.Name(unit+" "), decor.CountersNoUnit("%d / %d")),
				mpb.AppendDecorators(decor.AverageSpeed(0, "  %.0f/s"), decor.Name("  ETA "), decor.AverageETA(decor.ET_STYLE_GO)))
		}
		bar.SetCurrent(done)
	}
	return func() {
		mu.Lock()
		b := bar
		mu.Unlock()
		if b != nil {
			b.SetTotal(-1, true)
		}
		p.Wait()
	}
}
