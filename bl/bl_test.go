package bl

import "testing"

func TestForID(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ id, want string }{
		{"DENW49AL0000LI95", "nrw"}, {"DEBY_LOD2_4906972", "by"}, {"DEHE062000013OfY", "he"},
		{"debe000000000000", "be"}, {"BLDG_00030008004010f2", ""}, {"6f9619ff-8b86-4011-b42d-00c04fc964ff", ""}, {"DE", ""},
	} {
		st, ok := ForID(tc.id)
		if ok != (tc.want != "") || st.Code != tc.want {
			t.Errorf("ForID(%q) = %q %v, want %q", tc.id, st.Code, ok, tc.want)
		}
	}
}

func TestTable(t *testing.T) {
	t.Parallel()
	all := All()
	if len(all) != 16 {
		t.Fatalf("%d states", len(all))
	}
	prefixes := map[string]bool{}
	for i, s := range all {
		if i > 0 && all[i-1].Code >= s.Code {
			t.Errorf("not sorted at %s", s.Code)
		}
		if s.EPSG != 25832 && s.EPSG != 25833 {
			t.Errorf("%s: EPSG %d", s.Code, s.EPSG)
		}
		if prefixes[s.IDPrefix] {
			t.Errorf("%s: duplicate prefix %s", s.Code, s.IDPrefix)
		}
		prefixes[s.IDPrefix] = true
		if got, ok := Lookup(s.Code); !ok || got != s || Canonical(s.Code) != s.Code {
			t.Errorf("Lookup(%s) = %+v %v", s.Code, got, ok)
		}
	}
	if Canonical("NRW") != "nrw" || Canonical("xx") != "" {
		t.Error("Canonical")
	}
	for _, id := range []string{"dl-de-zero-2.0", "dl-de-by-2.0", "cc-by-4.0", "odbl-1.0"} {
		l, ok := LookupLicense(id)
		if !ok || l.URL == "" || l.Attribution == (id == "dl-de-zero-2.0") {
			t.Errorf("licence %s: %+v", id, l)
		}
	}
}

func TestLicenseOf(t *testing.T) {
	for _, c := range []struct{ id, label string }{
		{"dl-de-by-2.0", "DL-DE BY 2.0"},
		{"cc-by-4.0", "CC BY 4.0"},
		{"some-future-licence", "some-future-licence"},
	} {
		if l := LicenseOf(c.id); l.ID != c.id || l.Label != c.label {
			t.Errorf("LicenseOf(%q) = %+v, want label %q", c.id, l, c.label)
		}
	}
}
