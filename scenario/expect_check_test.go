package scenario_test

import "testing"

// TestExpectChecksNeedAName: an expect.check item without name: is refused
// at its line; there is no check to call.
func TestExpectChecksNeedAName(t *testing.T) {
	checkParseErrors(t, map[string]string{
		"expect:\n  check:\n    - with: {min: 1}\n": `s.yaml:6: expect.check[0]: missing key "name" (the registered check to call)`,
	})
}

// TestExpectChecksDecoded: one check or a list of them is kept in file
// order, each with its name and with: node.
func TestExpectChecksDecoded(t *testing.T) {
	s := parseBody(t, "expect:\n  check:\n    - {name: budget, with: {max: 3}}\n    - name: tone\n")
	if len(s.Expect.Checks) != 2 || s.Expect.Checks[0].Name != "budget" || s.Expect.Checks[0].With == nil || s.Expect.Checks[1].Name != "tone" || s.Expect.Checks[1].With != nil {
		t.Errorf("expect.check = %+v; want budget with its with:, then tone", s.Expect.Checks)
	}
}
