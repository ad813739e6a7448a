package jsonschema

import (
	"encoding/json"
	"fmt"
	"math/big"
	"regexp"
	"strings"
	"sync"

	"github.com/tapeloop/tapeloop/internal/jsoncoerce"
)

// checkKeywords checks the keywords of one schema object against what its
// draft's meta-schema allows (the subschemas are checked as they are
// walked). Unknown keywords are allowed, as the meta-schemas allow them.
func (c *compiler) checkKeywords(obj map[string]any, ptr string) error {
	for _, kw := range sortedKeys(obj) {
		if err := c.checkKeyword(kw, obj[kw]); err != nil {
			return fmt.Errorf("at %s: %s", quotePtr(ptr+"/"+escape(kw)), err)
		}
	}
	if c.draft == 4 {
		// the draft-04 meta-schema: exclusiveMaximum needs maximum
		for _, p := range [][2]string{{"exclusiveMaximum", "maximum"}, {"exclusiveMinimum", "minimum"}} {
			if _, ok := obj[p[0]]; ok {
				if _, ok := obj[p[1]]; !ok {
					return fmt.Errorf("at %s: %s needs %s", quotePtr(ptr), p[0], p[1])
				}
			}
		}
	}
	return nil
}

// The anchor name patterns, compiled on first use rather than at start-up.
var (
	anchorRE     = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[A-Za-z_][-A-Za-z0-9._]*$`) })
	anchorRE2019 = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[A-Za-z][-A-Za-z0-9.:_]*$`) })
)

func (c *compiler) checkKeyword(kw string, v any) error {
	d := c.draft
	switch kw {
	case "$schema", "$ref", "$comment", "title", "description", "format", "contentEncoding", "contentMediaType":
		if kw == "$comment" && d < 7 || (kw == "contentEncoding" || kw == "contentMediaType") && d < 7 || kw == "format" && d == 4 {
			return nil
		}
		return wantString(v)
	case "$id", "id":
		if kw != c.idKeyword() {
			return nil
		}
		if err := wantString(v); err != nil {
			return err
		}
		if s := v.(string); d >= 2019 {
			if i := strings.IndexByte(s, '#'); i >= 0 && i != len(s)-1 {
				return fmt.Errorf("an id must not have a fragment, got %q", s)
			}
		}
	case "$anchor", "$dynamicAnchor":
		if d < 2019 || kw == "$dynamicAnchor" && d < 2020 {
			return nil
		}
		if err := wantString(v); err != nil {
			return err
		}
		re := anchorRE()
		if d == 2019 {
			re = anchorRE2019()
		}
		if !re.MatchString(v.(string)) {
			return fmt.Errorf("invalid anchor %q", v)
		}
	case "$dynamicRef":
		if d >= 2020 {
			return wantString(v)
		}
	case "$recursiveRef":
		if d >= 2019 {
			return wantString(v)
		}
	case "$recursiveAnchor":
		switch d {
		case 2019:
			return wantBool(v)
		case 2020:
			if err := wantString(v); err != nil {
				return err
			}
			if !anchorRE().MatchString(v.(string)) {
				return fmt.Errorf("invalid anchor %q", v)
			}
		}
	case "$vocabulary":
		if d < 2019 {
			return nil
		}
		m, ok := v.(map[string]any)
		if !ok {
			return fmt.Errorf("want an object, got %s", jsoncoerce.TypeName(v))
		}
		for k, x := range m {
			if _, ok := x.(bool); !ok {
				return fmt.Errorf("%q: want a boolean, got %s", k, jsoncoerce.TypeName(x))
			}
		}
	case "$defs", "definitions", "properties", "patternProperties", "dependentSchemas":
		if kw == "$defs" && d < 2019 || kw == "dependentSchemas" && d < 2019 {
			return nil
		}
		if _, ok := v.(map[string]any); !ok {
			return fmt.Errorf("want an object, got %s", jsoncoerce.TypeName(v))
		}
		if kw == "patternProperties" {
			for k := range v.(map[string]any) {
				if _, err := regexp.Compile(k); err != nil {
					return fmt.Errorf("invalid regular expression %q: %v", k, err)
				}
			}
		}
	case "dependencies":
		m, ok := v.(map[string]any)
		if !ok {
			return fmt.Errorf("want an object, got %s", jsoncoerce.TypeName(v))
		}
		for k, x := range m {
			if l, ok := x.([]any); ok {
				if err := stringArray(l, d == 4); err != nil {
					return fmt.Errorf("%q: %v", k, err)
				}
			}
		}
	case "dependentRequired":
		if d < 2019 {
			return nil
		}
		m, ok := v.(map[string]any)
		if !ok {
			return fmt.Errorf("want an object, got %s", jsoncoerce.TypeName(v))
		}
		for k, x := range m {
			l, ok := x.([]any)
			if !ok {
				return fmt.Errorf("%q: want an array of strings, got %s", k, jsoncoerce.TypeName(x))
			}
			if err := stringArray(l, false); err != nil {
				return fmt.Errorf("%q: %v", k, err)
			}
		}
	case "allOf", "anyOf", "oneOf", "prefixItems":
		if kw == "prefixItems" && d < 2020 {
			return nil
		}
		l, ok := v.([]any)
		if !ok {
			return fmt.Errorf("want an array of schemas, got %s", jsoncoerce.TypeName(v))
		}
		if len(l) == 0 {
			return fmt.Errorf("want at least one schema, got none")
		}
	case "items":
		if l, ok := v.([]any); ok {
			if d >= 2020 {
				return fmt.Errorf("want a schema, got an array (prefixItems holds a list of schemas since Draft 2020-12)")
			}
			if len(l) == 0 && d != 4 {
				return fmt.Errorf("want at least one schema, got none")
			}
		}
	case "type":
		return checkType(v)
	case "enum":
		l, ok := v.([]any)
		if !ok {
			return fmt.Errorf("want an array, got %s", jsoncoerce.TypeName(v))
		}
		if d == 4 {
			if len(l) == 0 {
				return fmt.Errorf("want at least one value, got none")
			}
			if i, j := duplicates(l); i >= 0 {
				return fmt.Errorf("values %d and %d are equal", i, j)
			}
		}
	case "multipleOf":
		r, err := wantNumber(v)
		if err != nil {
			return err
		}
		if r.Sign() <= 0 {
			return fmt.Errorf("want a number greater than 0, got %s", v)
		}
	case "maximum", "minimum":
		_, err := wantNumber(v)
		return err
	case "exclusiveMaximum", "exclusiveMinimum":
		if d == 4 {
			return wantBool(v)
		}
		_, err := wantNumber(v)
		return err
	case "maxLength", "minLength", "maxItems", "minItems", "maxProperties", "minProperties", "maxContains", "minContains":
		if (kw == "maxContains" || kw == "minContains") && d < 2019 {
			return nil
		}
		r, err := wantNumber(v)
		if err != nil {
			return err
		}
		if !r.IsInt() || r.Sign() < 0 {
			return fmt.Errorf("want a non-negative integer, got %s", v)
		}
	case "pattern":
		if err := wantString(v); err != nil {
			return err
		}
		if _, err := regexp.Compile(v.(string)); err != nil {
			return fmt.Errorf("invalid regular expression %q: %v", v, err)
		}
	case "uniqueItems", "deprecated", "readOnly", "writeOnly":
		if kw == "deprecated" && d < 2019 || (kw == "readOnly" || kw == "writeOnly") && d < 7 {
			return nil
		}
		return wantBool(v)
	case "required":
		l, ok := v.([]any)
		if !ok {
			return fmt.Errorf("want an array of strings, got %s", jsoncoerce.TypeName(v))
		}
		return stringArray(l, d == 4)
	case "examples":
		if d >= 6 {
			if _, ok := v.([]any); !ok {
				return fmt.Errorf("want an array, got %s", jsoncoerce.TypeName(v))
			}
		}
	}
	return nil
}

func wantString(v any) error {
	if _, ok := v.(string); !ok {
		return fmt.Errorf("want a string, got %s", jsoncoerce.TypeName(v))
	}
	return nil
}

func wantBool(v any) error {
	if _, ok := v.(bool); !ok {
		return fmt.Errorf("want a boolean, got %s", jsoncoerce.TypeName(v))
	}
	return nil
}

func wantNumber(v any) (*big.Rat, error) {
	if n, ok := v.(json.Number); ok {
		if r, ok := new(big.Rat).SetString(string(n)); ok {
			return r, nil
		}
	}
	return nil, fmt.Errorf("want a number, got %s", jsoncoerce.TypeName(v))
}

// stringArray checks a list of distinct strings (and not empty, for draft 4).
func stringArray(l []any, nonEmpty bool) error {
	if nonEmpty && len(l) == 0 {
		return fmt.Errorf("want at least one name, got none")
	}
	seen := map[string]bool{}
	for _, x := range l {
		s, ok := x.(string)
		if !ok {
			return fmt.Errorf("want an array of strings, it holds %s", jsoncoerce.TypeName(x))
		}
		if seen[s] {
			return fmt.Errorf("%q is listed twice", s)
		}
		seen[s] = true
	}
	return nil
}

const typeList = "array, boolean, integer, null, number, object or string"

func checkType(v any) error {
	switch v := v.(type) {
	case string:
		if typeBit(v) == 0 {
			return fmt.Errorf("unknown type %q (want %s)", v, typeList)
		}
		return nil
	case []any:
		if len(v) == 0 {
			return fmt.Errorf("want at least one type, got none")
		}
		seen := map[string]bool{}
		for _, x := range v {
			s, ok := x.(string)
			if !ok || typeBit(s) == 0 {
				return fmt.Errorf("unknown type %s (want %s)", display(x), typeList)
			}
			if seen[s] {
				return fmt.Errorf("type %q is listed twice", s)
			}
			seen[s] = true
		}
		return nil
	}
	return fmt.Errorf("want a type name or a list of them, got %s", jsoncoerce.TypeName(v))
}
