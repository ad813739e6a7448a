package pathtext

import "testing"

func TestReplace(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"/tmp/a", "$W"},
		{"cd /tmp/a && ls", "cd $W && ls"},
		{"/tmp/a/notes.txt", "$W/notes.txt"},
		{`{"path":"/tmp/a/x"}`, `{"path":"$W/x"}`},
		{"it works in /tmp/a.", "it works in $W."},
		{"it works in /tmp/a...", "it works in $W..."},
		{"/tmp/ab", "/tmp/ab"},
		{"/tmp/a.txt", "/tmp/a.txt"},
		{"/tmp/a-b /tmp/a_b /tmp/a~", "/tmp/a-b /tmp/a_b /tmp/a~"},
		{"/srv/tmp/a", "/srv/tmp/a"},
		{"x/tmp/a", "x/tmp/a"},
		{"/tmp/ab and /tmp/a", "/tmp/ab and $W"},
		{"/tmp/a/tmp/a", "$W/tmp/a"},
		{"nothing here", "nothing here"},
	} {
		if got := Replace(tc.in, "/tmp/a", "$W"); got != tc.want {
			t.Errorf("Replace(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
	if got := Replace("/tmp/a", "", "$W"); got != "/tmp/a" {
		t.Errorf("an empty path replaced: %q", got)
	}
}
