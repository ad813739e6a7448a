package repair

import "unsafe"

// Repair returns input as valid JSON and the names of the fixes applied, in
// cascade order. Valid input is returned unchanged with no fixes. When the input
// cannot be repaired without guessing, Repair returns an *Error wrapping
// ErrUnrepairable; it never returns text that is not valid JSON
// (json.Valid).
func Repair(input string) (output string, fixes []string, err error) {
	if valid(input) {
		return input, nil, nil
	}
	in, used := input, fix(0)
	if hasFullwidthStructure(input) {
		in, used = normalizeFullwidth(input), fixCurlyQuotes
	}
	// One allocation holds the output and, after it, the first 8 bytes of
	// the container stack: the three-index slices keep either from growing
	// into the other (append reallocates past a capacity).
	outCap := len(in) + len(in)/8 + 8
	buf := make([]byte, 0, outCap+8)
	p := parser{in: in, n: len(in), out: buf[:0:outCap], stack: buf[outCap:outCap], used: used}
	if !p.parseDocument() {
		return "", nil, p.err
	}
	// p.out is not written after this point, so the string can share its
	// bytes instead of copying them (as strings.Builder does).
	output = unsafe.String(unsafe.SliceData(p.out), len(p.out))
	if !valid(output) {
		return "", nil, newError(input, p.pos, "the text could not be repaired", p.used)
	}
	return output, p.used.names(), nil
}

// Cascade is the repair cascade as a value: it satisfies tools.Repairer. Its zero
// value is ready to use and has no options.
type Cascade struct{}

// Repair calls the package-level Repair.
func (Cascade) Repair(input string) (string, []string, error) { return Repair(input) }
