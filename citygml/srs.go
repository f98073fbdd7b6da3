package citygml

import (
	"fmt"
	"strconv"
	"strings"
)

// horizontalEPSG maps the EPSG codes the reader accepts to the horizontal
// CRS of the coordinates: ETRS89 / UTM 32N and 33N, alone or as compound CRS
// with a German height system (DHHN92: 5555, 5556).
var horizontalEPSG = map[int]int{
	25832: 25832,
	25833: 25833,
	5555:  25832,
	5556:  25833,
}

// verticalEPSG lists height CRSs that may appear as the second part of a
// compound srsName: DHHN92 and DHHN2016 heights.
var verticalEPSG = map[int]bool{5783: true, 7837: true}

// ParseSRS returns the EPSG code of the horizontal CRS named by a GML
// srsName. Accepted forms include "EPSG:25833", "urn:ogc:def:crs:EPSG::25832",
// "urn:ogc:def:crs:EPSG:6.12:25832", "http://www.opengis.net/def/crs/EPSG/0/25832",
// "http://www.opengis.net/gml/srs/epsg.xml#25832", the compound URN
// "urn:ogc:def:crs,crs:EPSG::25832,crs:EPSG::7837" and the AdV forms
// "urn:adv:crs:ETRS89_UTM32*DE_DHHN2016_NH" (any suffix). Only ETRS89 /
// UTM zone 32N and 33N are supported; anything else, including an empty
// string, returns an error wrapping ErrUnknownCRS.
func ParseSRS(s string) (int, error) {
	low := strings.ToLower(strings.TrimSpace(s))
	if strings.Contains(low, "etrs89_utm32") {
		return 25832, nil
	}
	if strings.Contains(low, "etrs89_utm33") {
		return 25833, nil
	}
	if !strings.Contains(low, "epsg") {
		return 0, fmt.Errorf("%w: srsName %q", ErrUnknownCRS, s)
	}
	// A compound URN lists its components separated by commas; other forms
	// have one component. In each, the code is the last run of digits.
	found := 0
	for part := range strings.SplitSeq(low, ",") {
		code, ok := lastNumber(part)
		if !ok || (part != low && !strings.Contains(part, "epsg")) {
			continue
		}
		if verticalEPSG[code] {
			continue
		}
		h, ok := horizontalEPSG[code]
		if !ok || (found != 0 && found != h) {
			return 0, fmt.Errorf("%w: srsName %q", ErrUnknownCRS, s)
		}
		found = h
	}
	if found == 0 {
		return 0, fmt.Errorf("%w: srsName %q", ErrUnknownCRS, s)
	}
	return found, nil
}

// lastNumber returns the last run of ASCII digits in s, if any and if it
// fits an int of at most 9 digits.
func lastNumber(s string) (int, bool) {
	end := len(s)
	for end > 0 && (s[end-1] < '0' || s[end-1] > '9') {
		end--
	}
	start := end
	for start > 0 && s[start-1] >= '0' && s[start-1] <= '9' {
		start--
	}
	if start == end || end-start > 9 {
		return 0, false
	}
	n, err := strconv.Atoi(s[start:end])
	return n, err == nil
}
