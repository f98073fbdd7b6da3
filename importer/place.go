package importer

import (
	"fmt"
	"sort"
	"strings"

	"github.com/svc-geodata/svc/bl"
	"github.com/svc-geodata/svc/geo"
)

// minShareInState is the share of a file's footprint that must lie in the
// state imported as (or within bl.BorderMarginM of its boundary): a file
// mostly elsewhere is another state's (Common.Force imports it anyway). A
// tile straddling a border has well over half of it within the margin of
// both states.
const minShareInState = 0.5

// footprintGrid is the number of points per side of the grid a raster
// tile's extent is judged by.
const footprintGrid = 8

// placeCheck collects, per source file, where its footprint lies.
type placeCheck struct {
	st    bl.State
	files []string
	tally map[string]*bl.Tally
}

func newPlaceCheck(st bl.State) *placeCheck {
	return &placeCheck{st: st, tally: map[string]*bl.Tally{}}
}

// add counts the point e/n (metres, UTM zone z) for the file name.
func (pc *placeCheck) add(name string, z geo.Zone, e, n float64) {
	t := pc.tally[name]
	if t == nil {
		t = bl.NewTally(pc.st, bl.BorderMarginM)
		pc.tally[name] = t
		pc.files = append(pc.files, name)
	}
	lon, lat := geo.FromUTM(z, e, n)
	t.Add(lon, lat)
}

// addTally adds the tally t of the file name, which must not have one.
func (pc *placeCheck) addTally(name string, t *bl.Tally) {
	pc.tally[name] = t
	pc.files = append(pc.files, name)
}

// addBBox counts a grid of points over the extent minE/minN/maxE/maxN.
func (pc *placeCheck) addBBox(name string, z geo.Zone, bbox [4]float64) {
	for i := range footprintGrid {
		for j := range footprintGrid {
			fx, fy := (float64(i)+0.5)/footprintGrid, (float64(j)+0.5)/footprintGrid
			pc.add(name, z, bbox[0]+fx*(bbox[2]-bbox[0]), bbox[1]+fy*(bbox[3]-bbox[1]))
		}
	}
}

// problem returns why the files do not belong to the state and the --bl to
// suggest, or "" when every file lies mostly in it.
func (pc *placeCheck) problem() (why, suggest string) {
	var bad []string
	votes := map[string]int{}
	for _, f := range pc.files {
		t := pc.tally[f]
		if t.Fraction() >= minShareInState {
			continue
		}
		if len(bad) < 3 {
			bad = append(bad, fmt.Sprintf("%s lies in %s, not in %s (%s)", baseName(f), t.Where(), pc.st.Name, pc.st.Code))
		}
		if sh := t.Shares(); sh[0].State.Code != "" {
			votes[sh[0].State.Code]++
		}
	}
	if len(bad) == 0 {
		return "", ""
	}
	why = strings.Join(bad, "; ")
	if n := pc.badCount(); n > len(bad) {
		why += fmt.Sprintf(" (and %d more of %d files)", n-len(bad), len(pc.files))
	}
	codes := make([]string, 0, len(votes))
	for c := range votes {
		codes = append(codes, c)
	}
	sort.Slice(codes, func(i, j int) bool {
		return votes[codes[i]] > votes[codes[j]] || votes[codes[i]] == votes[codes[j]] && codes[i] < codes[j]
	})
	if len(codes) > 0 {
		suggest = codes[0]
	}
	return why, suggest
}

func (pc *placeCheck) badCount() int {
	n := 0
	for _, t := range pc.tally {
		if t.Fraction() < minShareInState {
			n++
		}
	}
	return n
}

// baseName is the last element of a path or zip entry name (a.zip!x/y.tif).
func baseName(name string) string {
	if i := strings.LastIndexAny(name, `/\!`); i >= 0 {
		return name[i+1:]
	}
	return name
}

// wrongBL formats the ErrWrongBL error for the reasons why, suggesting
// --bl suggest when it is known.
func wrongBL(st bl.State, why []string, suggest string) error {
	fix := "check --bl"
	if suggest != "" && suggest != st.Code {
		fix = "use --bl " + suggest
	}
	return fmt.Errorf("%w: importing as --bl %s (%s), but %s; %s, or pass --force to import them as %s anyway",
		ErrWrongBL, st.Code, st.Name, strings.Join(why, "; "), fix, st.Code)
}
