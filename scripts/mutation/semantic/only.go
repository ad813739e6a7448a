package main

import (
	"errors"
	"fmt"
	"regexp"
	"strconv"
	"strings"
)

// chosen is -only's list: the mutants to test, by key or by ID. A nil
// *chosen chooses nothing and has nothing unmatched (no -only given).
type chosen struct {
	names   []string        // as given, in order
	keys    map[string]bool // the keys asked for
	ids     map[int]bool    // the IDs asked for
	matched map[string]bool // the names that matched a mutant
}

// keyShape is a mutant's key (see keys): 10 hex digits, which may all be
// decimal ones, and -N for the second and later with the same hash.
var keyShape = regexp.MustCompile(`^[0-9a-f]{10}(-[0-9]+)?$`)

// parseOnly reads -only's value: keys (as -list prints them, or a whole
// allowlist key "PKGDIR/FILE.go KIND KEY") or IDs (any other number),
// comma-separated. It is
// nil when the value is empty. IDs need one package (they are a package's),
// and -only does not go with -sample (it names the mutants itself).
func parseOnly(value string, sample, packages int) (*chosen, error) {
	if strings.TrimSpace(value) == "" {
		return nil, nil
	}
	if sample > 0 {
		return nil, errors.New("-only names the mutants to test: it does not go with -sample")
	}
	c := &chosen{keys: map[string]bool{}, ids: map[int]bool{}, matched: map[string]bool{}}
	for _, item := range strings.Split(value, ",") {
		item = strings.TrimSpace(item)
		if item == "" {
			continue
		}
		if f := strings.Fields(item); len(f) > 1 {
			item = f[len(f)-1] // a whole allowlist key: its last field is the mutant's key
		}
		if id, err := strconv.Atoi(item); err == nil && !keyShape.MatchString(item) {
			if packages > 1 {
				return nil, fmt.Errorf("-only %s: an ID names a mutant of one package; give one package, or keys", item)
			}
			c.ids[id] = true
		} else {
			c.keys[item] = true
		}
		c.names = append(c.names, item)
	}
	if len(c.names) == 0 {
		return nil, fmt.Errorf("-only %q names no mutant", value)
	}
	return c, nil
}

// choose returns the mutants of ms that c names, in ms's order, and notes
// which names matched.
func (c *chosen) choose(ms []*Mutant) []*Mutant {
	var out []*Mutant
	for _, m := range ms {
		byKey, byID := c.keys[m.Key], c.ids[m.ID]
		if byKey {
			c.matched[m.Key] = true
		}
		if byID {
			c.matched[strconv.Itoa(m.ID)] = true
		}
		if byKey || byID {
			out = append(out, m)
		}
	}
	return out
}

// unmatched returns the names that matched no mutant so far, in the order
// given.
func (c *chosen) unmatched() []string {
	if c == nil {
		return nil
	}
	var out []string
	for _, n := range c.names {
		if !c.matched[n] {
			out = append(out, n)
		}
	}
	return out
}
