package harness

// CheckGolden is checkGolden, for the external tests.
var CheckGolden = checkGolden
