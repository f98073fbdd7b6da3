package testtool

import (
	"os/exec"
	"testing"
)

// PythonPvlib returns a python interpreter that imports numpy, pandas and
// scipy, and the path of pvlib-python in ../shared/tools/pvlib to put on
// PYTHONPATH (the judge of package solar), skipping locally when either is
// missing and failing under CI.
func PythonPvlib(t testing.TB) (python, pvlibPath string) {
	t.Helper()
	pvlibPath = Shared(t, "tools/pvlib")
	for _, py := range []string{"/usr/bin/python3", "python3"} {
		if exec.Command(py, "-c", "import numpy, pandas, scipy").Run() == nil {
			return py, pvlibPath
		}
	}
	missing(t, "python3 with numpy, pandas, scipy not found: apt-get install python3-numpy python3-pandas python3-scipy python3-h5py python3-tz python3-requests")
	return "", ""
}
