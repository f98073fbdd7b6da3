package tiles3d

// FirstViewRequests is firstViewRequests for the external tests.
var FirstViewRequests = firstViewRequests
