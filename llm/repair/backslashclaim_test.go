package repair

import "testing"

// TestRepairEscapeBackslashesOnlyWhenChanged checks that escape_backslashes is
// listed only when a backslash of the input is changed. RFC 8259 §7 lets a
// string hold a backslash only as the escape \\, so a path such as
// "C:\\Users\\a" is already valid JSON text: when the input needs another fix
// (a trailing comma, a missing bracket), the path is copied as it is and the
// fix list must not claim a backslash repair. A lone backslash that starts no
// JSON escape (C:\Users) or one that JSON would read as an escape (C:\temp)
// is changed into \\, and is reported.
func TestRepairEscapeBackslashesOnlyWhenChanged(t *testing.T) {
	tests := []struct {
		name  string
		input string
		want  string // the exact output text
		fixes []string
	}{
		// Already escaped: the string is copied unchanged, not reported.
		{"escaped drive before a trailing comma", `["D:\\", 2,]`, `["D:\\", 2]`, []string{FixTrailingComma}},
		{"escaped path in an object", `{"home": "C:\\Users\\ana", "n": 1,}`, `{"home": "C:\\Users\\ana", "n": 1}`, []string{FixTrailingComma}},
		{"escaped drive in a single-quoted object", `{'root': "E:\\"}`, `{"root": "E:\\"}`, []string{FixSingleQuotes}},
		{"escaped path cut short", `["F:\\logs\\x", 1`, `["F:\\logs\\x", 1]`, []string{FixCloseBrackets}},
		{"escaped path with an escaped quote", `["G:\\say \"hi\"", 3,]`, `["G:\\say \"hi\"", 3]`, []string{FixTrailingComma}},
		{"drive letter without backslashes", `["H:", 4,]`, `["H:", 4]`, []string{FixTrailingComma}},
		{"raw string without backslashes", `{"w": r"abc"}`, `{"w": "abc"}`, []string{FixTrim}},

		// A backslash changed: reported.
		{"lone backslash after the drive", `["C:\Users", 2,]`, `["C:\\Users", 2]`, []string{FixEscapeBackslashes, FixTrailingComma}},
		{"one lone, one escaped", `{"p": "D:\data\\logs",}`, `{"p": "D:\\data\\logs"}`, []string{FixEscapeBackslashes, FixTrailingComma}},
		{"drive with a JSON escape kept as text", `["C:\temp", 1,]`, `["C:\\temp", 1]`, []string{FixEscapeBackslashes, FixTrailingComma}},
		{"drive with a unicode escape kept as text", `["C:\u0041", 1,]`, `["C:\\u0041", 1]`, []string{FixEscapeBackslashes, FixTrailingComma}},
		{"raw string with a backslash", `{"w": r"a\d"}`, `{"w": "a\\d"}`, []string{FixTrim, FixEscapeBackslashes}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			checkRepair(t, tt.input, tt.want, tt.fixes)
			if out, _, err := Repair(tt.input); err == nil && out != tt.want {
				t.Errorf("Repair(%q) = %s, want exactly %s", tt.input, out, tt.want)
			}
		})
	}
}
