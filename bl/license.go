package bl

// License describes an open-data licence a pack is published under.
type License struct {
	ID    string // machine id, e.g. "dl-de-by-2.0"
	Label string // display label as the spec names it, e.g. "DL-DE BY 2.0"
	URL   string // licence text
	// Attribution is true when users must show the source visibly (every
	// licence but DL-DE/Zero 2.0).
	Attribution bool
}

var licenses = []License{
	{"dl-de-zero-2.0", "DL-DE/Zero 2.0", "https://www.govdata.de/dl-de/zero-2-0", false},
	{"dl-de-by-2.0", "DL-DE BY 2.0", "https://www.govdata.de/dl-de/by-2-0", true},
	{"cc-by-4.0", "CC BY 4.0", "https://creativecommons.org/licenses/by/4.0/", true},
	{"odbl-1.0", "ODbL 1.0", "https://opendatacommons.org/licenses/odbl/1-0/", true},
}

// LookupLicense returns the licence with the given id.
func LookupLicense(id string) (License, bool) {
	for _, l := range licenses {
		if l.ID == id {
			return l, true
		}
	}
	return License{}, false
}

// LicenseOf is the licence with the given id, or, for an id no licence has
// (a pack written by a newer svc), one that shows the id as its label, so
// an answer still names what the pack declares.
func LicenseOf(id string) License {
	if l, ok := LookupLicense(id); ok {
		return l
	}
	return License{ID: id, Label: id}
}

// Licenses returns the known licences.
func Licenses() []License { return append([]License(nil), licenses...) }
