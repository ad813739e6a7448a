package tools_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"

	"github.com/tapeloop/tapeloop/fixtures"
	"github.com/tapeloop/tapeloop/internal/jsonschema/jsonschematest"
	"github.com/tapeloop/tapeloop/tools"
	"github.com/tapeloop/tapeloop/workspace"
)

// TestSchemasAgainstSanthosh holds tools.Schema to the validator tapeloop
// used before (santhosh-tekuri/jsonschema/v6) on the schemas and arguments
// tapeloop ships: every bundled fixture's parameters and every schema a
// scenario declares, each validated against every argument object the
// scenarios' tapes hold (so most pairs fail, on many keywords), plus some
// mutations of the arguments. Verdicts and messages must be identical.
func TestSchemasAgainstSanthosh(t *testing.T) {
	schemas := map[string]json.RawMessage{}
	for _, name := range fixtures.Names() {
		f, _ := fixtures.Lookup(name)
		tool, err := f.New(name, &fixtures.Env{Workspace: workspace.NewMemory()}, nil)
		if err != nil {
			continue // needs options: its schema comes from the scenarios that configure it
		}
		if p := tool.Spec().Parameters; p != nil {
			schemas["fixture "+name] = p
		}
	}
	var args []string
	files, err := filepath.Glob("../scenarios/*/*.yaml")
	if err != nil || len(files) == 0 {
		t.Fatalf("no scenarios: %v", err)
	}
	for _, file := range files {
		if strings.HasSuffix(file, ".golden.yaml") {
			continue
		}
		data, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		var root yaml.Node
		if err := yaml.Unmarshal(data, &root); err != nil {
			t.Fatalf("%s: %v", file, err)
		}
		walkYAML(&root, func(key string, v *yaml.Node) {
			switch key {
			case "parameters":
				if raw := yamlJSON(t, v); raw != nil {
					schemas[file+":"+strconv.Itoa(v.Line)] = raw
				}
			case "arguments":
				if v.Kind == yaml.ScalarNode {
					args = append(args, v.Value)
				} else if raw := yamlJSON(t, v); raw != nil {
					args = append(args, string(raw))
				}
			}
		})
	}
	if len(schemas) < 10 || len(args) < 20 {
		t.Fatalf("found %d schemas and %d argument objects: the walk is broken", len(schemas), len(args))
	}
	args = append(args, mutations(args)...)

	failures, pairs := 0, 0
	for _, key := range sortedKeys(schemas) {
		raw := schemas[key]
		s, err := tools.CompileSchema(raw)
		if err != nil {
			t.Errorf("%s: %v", key, err)
			continue
		}
		doc, err := decodeNumbers(string(raw))
		if err != nil {
			t.Fatal(err)
		}
		ref, err := jsonschematest.Compile(doc)
		if err != nil {
			t.Fatalf("%s: santhosh refuses the schema: %v", key, err)
		}
		for _, a := range args {
			v, _, err := tools.ParseJSON(a, nil)
			if err != nil {
				continue
			}
			want := ref.Validate(v)
			got := s.Validate(v)
			pairs++
			if len(got) > 0 {
				failures++
			}
			var gotF []jsonschematest.Failure
			for _, e := range got {
				gotF = append(gotF, jsonschematest.Failure{Path: e.Path, Message: e.Message})
			}
			if !slices.Equal(gotF, want) {
				t.Errorf("%s %s, arguments %s:\n got %q\nwant %q", key, raw, a, gotF, want)
			}
		}
	}
	if failures == 0 || failures == pairs {
		t.Fatalf("%d of %d pairs fail: the comparison covers only one verdict", failures, pairs)
	}
	t.Logf("%d schemas, %d argument objects, %d pairs, %d invalid", len(schemas), len(args), pairs, failures)
}

// mutations returns variants of argument objects: each value replaced by
// values of other types, and a property dropped, so that the type, required,
// enum and range messages show.
func mutations(args []string) []string {
	var out []string
	seen := map[string]bool{}
	for _, a := range args {
		var obj map[string]json.RawMessage
		if json.Unmarshal([]byte(a), &obj) != nil {
			continue
		}
		for _, k := range sortedKeys(obj) {
			for _, repl := range []string{`null`, `-1`, `0`, `2.5`, `12345678`, `""`, `"x"`, `true`, `[]`, `[1,1]`, `{}`, `{"zz":1}`} {
				m := map[string]json.RawMessage{}
				for k2, v := range obj {
					m[k2] = v
				}
				m[k] = json.RawMessage(repl)
				b, _ := json.Marshal(m)
				if !seen[string(b)] {
					seen[string(b)] = true
					out = append(out, string(b))
				}
			}
			m := map[string]json.RawMessage{}
			for k2, v := range obj {
				if k2 != k {
					m[k2] = v
				}
			}
			b, _ := json.Marshal(m)
			if !seen[string(b)] {
				seen[string(b)] = true
				out = append(out, string(b))
			}
		}
	}
	return out
}

func walkYAML(n *yaml.Node, visit func(key string, v *yaml.Node)) {
	if n.Kind == yaml.MappingNode {
		for i := 0; i+1 < len(n.Content); i += 2 {
			visit(n.Content[i].Value, n.Content[i+1])
		}
	}
	for _, c := range n.Content {
		walkYAML(c, visit)
	}
}

// yamlJSON converts a YAML mapping to JSON text; nil for anything else.
func yamlJSON(t *testing.T, n *yaml.Node) json.RawMessage {
	if n.Kind == yaml.ScalarNode && strings.HasPrefix(strings.TrimSpace(n.Value), "{") {
		return json.RawMessage(n.Value)
	}
	if n.Kind != yaml.MappingNode {
		return nil
	}
	var v any
	if err := n.Decode(&v); err != nil {
		t.Fatalf("line %d: %v", n.Line, err)
	}
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatalf("line %d: %v", n.Line, err)
	}
	return b
}

func decodeNumbers(text string) (any, error) {
	dec := json.NewDecoder(strings.NewReader(text))
	dec.UseNumber()
	var v any
	err := dec.Decode(&v)
	return v, err
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}
