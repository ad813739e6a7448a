package jsonschema

import (
	"errors"
	"fmt"
	"net/netip"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"time"
)

// format is a string format asserted under the drafts before 2019-09, where
// "format" is an assertion by default. The checks and their messages are
// those santhosh-tekuri/jsonschema/v6 made. Formats not listed here
// (uri-template, period, semver and any unknown name) are annotations.
type format struct {
	name  string
	check func(string) error
}

// formatNamed returns the asserted format of a name, nil for the others.
func formatNamed(name string) *format {
	var f func(string) error
	switch name {
	case "json-pointer":
		f = checkJSONPointer
	case "relative-json-pointer":
		f = checkRelativeJSONPointer
	case "uuid":
		f = checkUUID
	case "duration":
		f = checkDuration
	case "ipv4":
		f = checkIPv4
	case "ipv6":
		f = checkIPv6
	case "hostname":
		f = checkHostname
	case "email":
		f = checkEmail
	case "date":
		f = checkDate
	case "time":
		f = checkTime
	case "date-time":
		f = checkDateTime
	case "uri", "iri":
		f = checkURI
	case "uri-reference", "iri-reference":
		f = checkURIReference
	case "regex":
		f = func(s string) error { _, err := regexp.Compile(s); return err }
	default:
		return nil
	}
	return &format{name, f}
}

func checkJSONPointer(s string) error {
	if s == "" {
		return nil
	}
	if s[0] != '/' {
		return errors.New("not starting with /")
	}
	for _, tok := range strings.Split(s[1:], "/") {
		tilde := false
		for _, r := range tok {
			if tilde {
				if r != '0' && r != '1' {
					return errors.New("~ must be followed by 0 or 1")
				}
				tilde = false
				continue
			}
			if r == '~' {
				tilde = true
				continue
			}
			if r == '/' || r == '~' || r > 0x10FFFF {
				return fmt.Errorf("invalid character %q", r)
			}
		}
		if tilde {
			return errors.New("~ must be followed by 0 or 1")
		}
	}
	return nil
}

func leadingDigits(s string) int {
	n := 0
	for n < len(s) && s[n] >= '0' && s[n] <= '9' {
		n++
	}
	return n
}

func checkRelativeJSONPointer(s string) error {
	n := leadingDigits(s)
	if n == 0 {
		return errors.New("must start with non-negative integer")
	}
	if n > 1 && s[0] == '0' {
		return errors.New("starts with zero")
	}
	if s[n:] == "#" {
		return nil
	}
	return checkJSONPointer(s[n:])
}

func checkUUID(s string) error {
	lens := []int{8, 4, 4, 4, 12}
	parts := strings.Split(s, "-")
	if len(parts) != len(lens) {
		return fmt.Errorf("must have %d elements", len(lens))
	}
	for i, p := range parts {
		if len(p) != lens[i] {
			return fmt.Errorf("element %d must be %d characters long", i+1, lens[i])
		}
		for _, r := range p {
			if !isHex(r) {
				return fmt.Errorf("non-hex character %q", r)
			}
		}
	}
	return nil
}

func isHex(r rune) bool {
	return r >= '0' && r <= '9' || r >= 'a' && r <= 'f' || r >= 'A' && r <= 'F'
}

func checkDuration(s string) error {
	s, ok := strings.CutPrefix(s, "P")
	if !ok {
		return errors.New("must start with P")
	}
	if s == "" {
		return errors.New("nothing after P")
	}
	if w, ok := strings.CutSuffix(s, "W"); ok {
		if w == "" {
			return errors.New("no number in week")
		}
		if leadingDigits(w) != len(w) {
			return errors.New("invalid week")
		}
		return nil
	}
	units := [2]string{"YMD", "HMS"}
	for i, part := range strings.Split(s, "T") {
		if i > 0 && part == "" {
			return errors.New("no time elements")
		}
		if i > 1 {
			return errors.New("more than one T")
		}
		left := units[i]
		for part != "" {
			n := leadingDigits(part)
			if n == 0 {
				return errors.New("missing number")
			}
			part = part[n:]
			if part == "" {
				return errors.New("missing unit")
			}
			u := part[0]
			j := strings.IndexByte(left, u)
			if j < 0 {
				if strings.IndexByte(units[i], u) >= 0 {
					return fmt.Errorf("unit %q out of order", u)
				}
				return fmt.Errorf("invalid unit %q", u)
			}
			left = left[j+1:]
			part = part[1:]
		}
	}
	return nil
}

func checkIPv4(s string) error {
	parts := strings.Split(s, ".")
	if len(parts) != 4 {
		return errors.New("expected four decimals")
	}
	for _, p := range parts {
		if len(p) > 1 && p[0] == '0' {
			return errors.New("leading zeros")
		}
		n, err := strconv.Atoi(p)
		if err != nil {
			return err
		}
		if n < 0 || n > 255 {
			return errors.New("decimal must be between 0 and 255")
		}
	}
	return nil
}

func checkIPv6(s string) error {
	if !strings.Contains(s, ":") {
		return errors.New("missing colon")
	}
	a, err := netip.ParseAddr(s)
	if err != nil {
		return err
	}
	if a.Zone() != "" {
		return errors.New("zone id is not a part of ipv6 address")
	}
	return nil
}

func checkHostname(s string) error {
	s = strings.TrimSuffix(s, ".")
	if len(s) > 253 {
		return errors.New("more than 253 characters long")
	}
	for _, label := range strings.Split(s, ".") {
		if len(label) < 1 || len(label) > 63 {
			return errors.New("label must be 1 to 63 characters long")
		}
		if label[0] == '-' {
			return errors.New("label starts with hyphen")
		}
		if label[len(label)-1] == '-' {
			return errors.New("label ends with hyphen")
		}
		for _, r := range label {
			if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '-') {
				return fmt.Errorf("invalid character %q", r)
			}
		}
	}
	return nil
}

func checkEmail(s string) error {
	if len(s) > 254 {
		return errors.New("more than 255 characters long")
	}
	at := strings.LastIndexByte(s, '@')
	if at < 0 {
		return errors.New("missing @")
	}
	local, domain := s[:at], s[at+1:]
	if len(local) > 64 {
		return errors.New("local part more than 64 characters long")
	}
	if len(local) > 1 && local[0] == '"' && local[len(local)-1] == '"' {
		if strings.ContainsAny(local[1:len(local)-1], `\"`) {
			return errors.New("backslash and quote are not allowed within quoted local part")
		}
	} else {
		switch {
		case strings.HasPrefix(local, "."):
			return errors.New("starts with dot")
		case strings.HasSuffix(local, "."):
			return errors.New("ends with dot")
		case strings.Contains(local, ".."):
			return errors.New("consecutive dots")
		}
		for _, r := range local {
			if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune(".!#$%&'*+-/=?^_`{|}~", r)) {
				return fmt.Errorf("invalid character %q", r)
			}
		}
	}
	if len(domain) >= 2 && domain[0] == '[' && domain[len(domain)-1] == ']' {
		ip := domain[1 : len(domain)-1]
		if v6, ok := strings.CutPrefix(ip, "IPv6:"); ok {
			if err := checkIPv6(v6); err != nil {
				return fmt.Errorf("invalid ipv6 address: %v", err)
			}
			return nil
		}
		if err := checkIPv4(ip); err != nil {
			return fmt.Errorf("invalid ipv4 address: %v", err)
		}
		return nil
	}
	if err := checkHostname(domain); err != nil {
		return fmt.Errorf("invalid domain: %v", err)
	}
	return nil
}

func checkDate(s string) error {
	_, err := time.Parse("2006-01-02", s)
	return err
}

func checkTime(s string) error {
	if len(s) < 9 {
		return errors.New("less than 9 characters long")
	}
	if s[2] != ':' || s[5] != ':' {
		return errors.New("missing colon in correct place")
	}
	var hms [3]int
	for i, tok := range strings.SplitN(s[:8], ":", 3) {
		n, err := strconv.Atoi(tok)
		if err != nil {
			return errors.New("invalid hour/min/sec")
		}
		if n < 0 {
			return errors.New("non-positive hour/min/sec")
		}
		hms[i] = n
	}
	h, m, sec := hms[0], hms[1], hms[2]
	if h > 23 || m > 59 || sec > 60 {
		return errors.New("hour/min/sec out of range")
	}
	rest := s[8:]
	if frac, ok := strings.CutPrefix(rest, "."); ok {
		n := leadingDigits(frac)
		if n == 0 {
			return errors.New("no digits in second fraction")
		}
		rest = frac[n:]
	}
	if rest != "z" && rest != "Z" {
		if len(rest) != 6 {
			return errors.New("offset must be 6 characters long")
		}
		var sign int
		switch rest[0] {
		case '+':
			sign = -1
		case '-':
			sign = 1
		default:
			return errors.New("offset must begin with plus/minus")
		}
		rest = rest[1:]
		if rest[2] != ':' {
			return errors.New("missing colon in offset in correct place")
		}
		var zhm [2]int
		for i, tok := range strings.SplitN(rest, ":", 2) {
			n, err := strconv.Atoi(tok)
			if err != nil {
				return errors.New("invalid hour/min in offset")
			}
			if n < 0 {
				return errors.New("non-positive hour/min in offset")
			}
			zhm[i] = n
		}
		if zhm[0] > 23 || zhm[1] > 59 {
			return errors.New("hour/min in offset out of range")
		}
		hm := h*60 + m + sign*(zhm[0]*60+zhm[1])
		if hm < 0 {
			hm += 24 * 60
		}
		h, m = hm/60, hm%60
	}
	if sec >= 60 && (h != 23 || m != 59) {
		return errors.New("invalid leap second")
	}
	return nil
}

func checkDateTime(s string) error {
	if len(s) < 20 {
		return errors.New("less than 20 characters long")
	}
	if s[10] != 't' && s[10] != 'T' {
		return errors.New("11th character must be t or T")
	}
	if err := checkDate(s[:10]); err != nil {
		return fmt.Errorf("invalid date element: %v", err)
	}
	if err := checkTime(s[11:]); err != nil {
		return fmt.Errorf("invalid time element: %v", err)
	}
	return nil
}

func parseURL(s string) (*url.URL, error) {
	u, err := url.Parse(s)
	if err != nil {
		return nil, err
	}
	if h := u.Hostname(); strings.Contains(h, ":") {
		if !strings.Contains(u.Host, "[") || !strings.Contains(u.Host, "]") {
			return nil, errors.New("ipv6 address not enclosed in brackets")
		}
		if err := checkIPv6(h); err != nil {
			return nil, fmt.Errorf("invalid ipv6 address: %v", err)
		}
	}
	return u, nil
}

func checkURI(s string) error {
	u, err := parseURL(s)
	if err != nil {
		return err
	}
	if !u.IsAbs() {
		return errors.New("relative url")
	}
	return nil
}

func checkURIReference(s string) error {
	if strings.Contains(s, `\`) {
		return errors.New(`contains \`)
	}
	_, err := parseURL(s)
	return err
}
