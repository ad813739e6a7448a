// Package repair repairs broken JSON in tool-call arguments: the repair cascade.
//
// Models cut their output short, quote keys with single quotes, write Python's
// True and None, wrap the JSON in prose or a Markdown fence. Repair turns such
// text into valid JSON and says which named fixes it applied, or refuses with a
// message the model can act on:
//
//	out, fixes, err := repair.Repair(`{"path": 'a.txt', "force": True,`)
//	// out:   {"path": "a.txt", "force": true}
//	// fixes: [trailing_comma single_quotes python_literals close_brackets]
//
//	_, _, err = repair.Repair(`{"a" ]`)
//	// err: re-emit the call as valid JSON: unexpected ']' where ':' should follow
//	// the key at line 1, column 6
//
// # How it works
//
// Valid input is returned unchanged with no fixes (strict parse first, the fast
// path). Otherwise one pass of a repairing parser reads the input token by token
// (no regular expressions over the whole text) and writes JSON. Each fix applies
// only at a point where strict parsing fails, so the pass applies exactly the
// fixes a cascade of separate passes, least invasive first, would need, and
// stops at the first point no fix explains. The output is checked before it is
// returned by the package's own strict validator (valid; the fuzz target
// FuzzRepair checks that it agrees with json.Valid): Repair never returns
// invalid JSON. Repairing an output again returns it unchanged.
//
// # Fixes
//
// In cascade order, least invasive first (the order Repair reports them in):
//
//   - trim: stray text after a complete value: a semicolon, surplus closing
//     brackets, junk after a complete object or array on its line ([1] 2);
//     junk after a string's closing quote before the next comma or bracket
//     ({"b": "ok" true}, a # note, a stray ```); a word of one or two letters
//     joined to a quoted string (h"that" gives "that"; Python's r"\d" keeps
//     its backslashes), dropped.
//   - strip_bom: a byte-order mark or zero-width character, a non-ASCII space
//     between tokens.
//   - comments: // and /* */ comments, and HTML <!-- --> comments.
//   - strip_prose: prose before the value ("Here's the JSON: {…", "**Answer**:",
//     bullets, "(1) …"), prose after a complete object or array, a Markdown code
//     fence of three or more backticks.
//   - escape_control_chars: a literal newline, tab, carriage return, backspace or
//     form feed inside a string; a line break just before a closing quote is
//     dropped ("name\n": 1).
//   - escape_backslashes: backslashes kept as text in a path, or dropped before
//     a character JSON cannot escape (see below); \0 as the NUL character; a
//     backslash just before a string's closing quote kept (["C:\", 1]), or
//     before a key's closing quote and colon ({"a\": 1}). Listed only when a
//     backslash changed: an escaped path, "C:\\Users", is copied as it is.
//   - trailing_comma: a comma before a closing bracket or the end, doubled, or
//     a run of empty commas ([1,,,2], {,"a":1}).
//   - missing_comma: a comma between two values or members.
//   - missing_colon: the colon between a key and its value.
//   - curly_quotes: “ ” „ ‘ ’, backticks and the fullwidth ＂ as string
//     delimiters, mixed with straight ones; JSON written with fullwidth
//     brackets, colons and commas (｛＂a＂：1｝).
//   - single_quotes: 'single-quoted' strings.
//   - unquoted_keys: keys without quotes.
//   - unquoted_strings: bare words and text as values (also /regex/, 3/4,
//     brackets closed within the text: Hello {name}!, and parentheses
//     closed within the text: foo(bar), f(x, y)).
//   - inner_quotes: a " inside a string that is not its end, escaped; doubled
//     quotes ""x"" read as one.
//   - python_literals: True, False, None, and TRUE, Null, … as JSON literals;
//     tuples (1, 2) and sets {'a', 'b'} as arrays.
//   - js_literals: undefined as null.
//   - numbers: 2. → 2.0, .5 → 0.5, 1e → 1e0, - → -0.
//   - concatenation: "a" + "b" joined.
//   - function_call: a value unwrapped from callback(…), ObjectId(…), NumberLong(…)
//     when a ) closes it; with a space before the ( only around an object or
//     array (JSONP), so that see (below) stays text; around a bare word,
//     foo(bar), it is text too.
//   - ellipsis: a ... placeholder in an array or object dropped.
//   - multiple_values: several top-level values (one a line, or separated by
//     commas) wrapped in an array.
//   - missing_value: null for a key without a value ({"a":} or {"a": cut).
//   - close_literal: a literal cut off by the end of the input completed: tru,
//     nul, fals, Tr, Non.
//   - close_string: a string whose closing quote is missing; cut off by the
//     end of the input, it keeps its line breaks, not the spaces after them.
//   - close_brackets: arrays and objects left open, a mismatched closing bracket
//     or a stray ")"; an object closed too early with members after it
//     ({"a": 1}, "b": 2} is one object); key: value inside an array (an object
//     in it); an array whose [ is missing ({"t": "a", "b"]}).
//   - missing_braces: key: value lines with no braces at all (name: John, a
//     line each or with commas) as an object; a name's value must not open a
//     bracket, so "Answer: {…" stays prose.
//
// # Policies
//
// Where a string ends: a closing quote ends a string only when what follows fits
// (the end, a comma and a next key or value, a closing bracket); otherwise the
// quote is text and is escaped: {"a": "John is "good", hah"} keeps
// `John is "good", hah`. A next key cut by the end of the input fits too:
// {"a": "x", "b gives {"a": "x", "b":null}. A quote after a comma that does
// not fit means the string's own closing quote is missing before that comma:
// {"a":"b,"c":1}. A string that is never closed runs to the end of the input
// (a cut), except that when the input ends with a bracket it stops at the
// first bracket or line break, or a comma before a next member: {"a":"b} gives {"a":"b"}, and
// {"a": "x, y} keeps "x, y". A string whose text is JSON, "{"x": 1}", ends at
// the quote after its closing bracket. Text after a string's closing quote
// that fits nothing is junk and dropped: {"b": "ok" true} gives {"b": "ok"}. A string without its closing quote
// drops a final +, a concatenation left unfinished: {"a":"x + gives {"a":"x"}.
//
// Backslashes: a string that starts with a drive letter (C:\), or holds an
// escape JSON does not know and two or more backslashes each before a name
// (\documents\data), is taken as text with literal backslashes, as in a
// Windows path: its backslashes are kept, so "C:\Users\new" keeps \n as a
// backslash and an n. Elsewhere an escape JSON does not know loses its
// backslash, as every other repairer does: "\q" gives "q". Only \" and \\ stay escapes
// in such a string, except that, as in any string, \' becomes ' and a
// backslash before a line break becomes \n (the backslash dropped). Elsewhere
// valid escapes are kept and a malformed \u escape is refused. A string that
// stops without its closing quote (at a comma, bracket or line break, see
// Policies) right after \" ended at that quote, and the backslash before it is
// text: ["C:\", 1] gives ["C:\\", 1] and {"a": "x\"} gives {"a": "x\\"}, with
// no quote added; unless an earlier \" pairs with it: {"a": "say \"hi\"} keeps
// say "hi" and adds the missing quote. A string cut off by the end of the input
// keeps a final \" as a quote. In a key, a \" followed by the colon is the key's
// closing quote, {"a\": 1} gives {"a\\": 1}, unless a later quote on the line
// closes the key before a colon: {"a\": b": 1,} keeps the key a": b.
//
// Prose: text before the value is dropped only when it reads as an introduction
// (no double quotes, closing brackets or backticks, apostrophes only inside
// words, ending with a colon or a line break, or three words or more), and
// text after it only after a complete object or array. A fragment
// such as `"x": {"a":1}` inside prose is refused, never returned as if it were
// the whole value.
//
// Control characters other than the five above are refused, as is an empty input.
package repair
