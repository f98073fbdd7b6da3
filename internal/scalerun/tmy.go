package scalerun

import (
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"
)

// FullYearTMY writes to dst a PVGIS TMY CSV of a whole year (8760 hours)
// made from src, a PVGIS TMY CSV that holds one day of each month (the
// project's sample, solar/climate/testdata/tmy_potsdam.csv): each month's
// day is repeated on every day of that month. The build solar stage's cost
// grows with the daylight hours of the climate file, so it is measured on
// a year's worth of them, not on 12 days. The header and the legend are
// copied as they are.
func FullYearTMY(src, dst string) error {
	raw, err := os.ReadFile(src)
	if err != nil {
		return err
	}
	lines := strings.Split(strings.ReplaceAll(string(raw), "\r\n", "\n"), "\n")
	var head, tail []string
	days := map[int][]string{} // month -> the day's lines
	var order []int
	inData := false
	for _, l := range lines {
		switch {
		case !inData && strings.HasPrefix(l, "time(UTC)"):
			head, inData = append(head, l), true
		case !inData:
			head = append(head, l)
		case len(l) >= 13 && l[8] == ':' && isDigits(l[:8]):
			m, _ := strconv.Atoi(l[4:6])
			if days[m] == nil {
				order = append(order, m)
			}
			days[m] = append(days[m], l)
		default:
			tail = append(tail, l)
		}
	}
	if len(order) != 12 {
		return fmt.Errorf("scalerun: %s holds %d months, want 12", src, len(order))
	}
	for _, m := range order {
		if len(days[m]) != 24 {
			return fmt.Errorf("scalerun: %s: month %d holds %d hours: %w", src, m, len(days[m]), ErrNotDaily)
		}
	}
	var b strings.Builder
	for _, l := range head {
		b.WriteString(l + "\r\n")
	}
	for _, m := range order {
		day := days[m]
		year, _ := strconv.Atoi(day[0][:4])
		n := time.Date(year, time.Month(m)+1, 0, 0, 0, 0, 0, time.UTC).Day()
		for d := 1; d <= n; d++ {
			for _, l := range day {
				fmt.Fprintf(&b, "%s%02d%s\r\n", l[:6], d, l[8:])
			}
		}
	}
	for _, l := range tail {
		b.WriteString(l + "\r\n")
	}
	return os.WriteFile(dst, []byte(strings.TrimSuffix(b.String(), "\r\n")+"\n"), 0o644)
}

// ErrNotDaily reports a TMY that is not one day per month (a whole year
// already, say): it is used as it is.
var ErrNotDaily = errors.New("scalerun: not one day per month")

func isDigits(s string) bool {
	for _, c := range s {
		if c < '0' || c > '9' {
			return false
		}
	}
	return s != ""
}
