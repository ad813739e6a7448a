package scenario

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/tapeloop/tapeloop/internal/regularfile"
	"github.com/tapeloop/tapeloop/internal/yamlx"
	"github.com/tapeloop/tapeloop/llm"
	"github.com/tapeloop/tapeloop/llm/textcalls"
)

// MaxFamiliesFileSize bounds the file setup.loop.text_calls.families may
// name.
const MaxFamiliesFileSize = 1 << 20

var (
	textCallKeys = []string{"formats", "families"}
	familyKeys   = []string{"name", "start", "end", "args"}
)

// decodeTextCalls reads setup.loop.text_calls: a boolean, or a mapping
// {formats, families} that turns extraction on and tunes it
// (LoopSetup.TextCallOptions). families is a list of declarations or the
// name of a YAML file holding one, relative to the scenario's folder.
func decodeTextCalls(d *yamlx.Decoder, v *yaml.Node, path string, l *LoopSetup) error {
	if v.Kind != yaml.MappingNode {
		var err error
		l.TextCalls, err = d.Bool(v, path)
		return err
	}
	l.TextCalls = true
	opts := &l.TextCallOptions
	var formats *yaml.Node
	_, err := d.Fields(v, path, textCallKeys, func(key string, v *yaml.Node) error {
		key = yamlx.Join(path, key)
		switch {
		case strings.HasSuffix(key, ".formats"):
			formats = v
			var err error
			opts.Formats, err = d.Strs(v, key)
			return err
		case v.Kind == yaml.ScalarNode && !yamlx.IsNull(v):
			return decodeFamiliesFile(d, v, key, opts)
		default:
			fams, err := decodeFamilies(d, v, key)
			opts.Families = fams
			return err
		}
	})
	if err != nil || formats == nil {
		return err
	}
	for i, name := range opts.Formats {
		declared := slices.ContainsFunc(opts.Families, func(f textcalls.Family) bool { return f.Name == name })
		if !declared && !slices.Contains(textcalls.Envelopes(), name) {
			return d.Errf(formats.Content[i], yamlx.Index(yamlx.Join(path, "formats"), i),
				"unknown format %q: name a declared family or one of %s", name, strings.Join(textcalls.Envelopes(), ", "))
		}
	}
	return nil
}

// decodeFamiliesFile reads the families from the YAML file that v names,
// relative to the scenario's folder and inside its confinement (as
// setup.workspace.from); its problems name that file.
func decodeFamiliesFile(d *yamlx.Decoder, v *yaml.Node, key string, opts *textcalls.Options) error {
	name, err := d.Str(v, key)
	if err != nil {
		return err
	}
	if filepath.IsAbs(name) || strings.HasPrefix(name, "/") {
		return d.Errf(v, key, "%q is an absolute path; name a file relative to the scenario's folder", name)
	}
	bound, desc := confinement(d.File)
	abs, err := filepath.Abs(filepath.Join(filepath.Dir(d.File), filepath.FromSlash(name)))
	if err != nil {
		return d.Errf(v, key, "%q: %v", name, err)
	}
	rel, err := filepath.Rel(bound, abs)
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return d.Errf(v, key, "%q leads outside %s; the families file must be inside it", name, desc)
	}
	root, err := os.OpenRoot(bound)
	if err != nil {
		return d.Errf(v, key, "%q: %v", name, err)
	}
	defer root.Close()
	data, err := regularfile.ReadIn(root, rel, MaxFamiliesFileSize)
	if err != nil {
		return d.Errf(v, key, "%q (resolved against the scenario's folder): %v", name, errors.Unwrap(err))
	}
	opts.Families, err = parseFamilies(data, filepath.Join(filepath.Dir(d.File), filepath.FromSlash(name)))
	if err != nil {
		// Both places: the key that names the file, and the file's own
		// file:line: key.
		return d.Errf(v, key, "%v", err)
	}
	return nil
}

// ReadFamilies reads a families file, as setup.loop.text_calls.families
// names one: a YAML list of {name, start, end, args}, each checked by
// textcalls.Family.Check. A problem wraps ErrScenario and names the file,
// the line and the key.
func ReadFamilies(path string) ([]textcalls.Family, error) {
	data, err := regularfile.Read(path, MaxFamiliesFileSize)
	if err != nil {
		return nil, &scenarioError{err: fmt.Errorf("reading families: %w", err)}
	}
	fams, err := parseFamilies(data, path)
	if err != nil {
		return nil, &scenarioError{err: err}
	}
	return fams, nil
}

// parseFamilies decodes the families file data, named file in its errors.
func parseFamilies(data []byte, file string) ([]textcalls.Family, error) {
	fd := &yamlx.Decoder{File: file, In: "a families file"}
	doc, err := fd.Parse(data)
	if err != nil {
		return nil, err
	}
	if doc == nil {
		return nil, fd.Errf(nil, "", "empty; want a list of families {name, start, end, args}")
	}
	return decodeFamilies(fd, doc, "families")
}

// decodeFamilies reads a list of declared families, each checked by
// textcalls.Family.Check and named once.
func decodeFamilies(d *yamlx.Decoder, n *yaml.Node, path string) ([]textcalls.Family, error) {
	if err := d.Want(n, path, yaml.SequenceNode); err != nil {
		return nil, err
	}
	var out []textcalls.Family
	lines := map[string]int{}
	for i, item := range n.Content {
		key := yamlx.Index(path, i)
		var f textcalls.Family
		fields := map[string]*yaml.Node{}
		keys, err := d.Fields(item, key, familyKeys, func(k string, v *yaml.Node) error {
			fields[k] = v
			var err error
			switch k {
			case "name":
				f.Name, err = d.Str(v, yamlx.Join(key, k))
			case "start":
				f.Start, err = d.Str(v, yamlx.Join(key, k))
			case "end":
				f.End, err = d.Str(v, yamlx.Join(key, k))
			case "args":
				f.Args, err = d.Enum(v, yamlx.Join(key, k), textcalls.ArgEncodings...)
			}
			return err
		})
		if err != nil {
			return nil, err
		}
		for _, k := range []string{"name", "start", "args"} {
			if !keys.Has(k) {
				return nil, d.Errf(item, key, "missing %s (a family needs name, start and args; end is optional)", k)
			}
		}
		if err := f.Check(); err != nil {
			// Check names the field first ("name: ..."): report it on that
			// field's line.
			first := err
			if j, ok := err.(interface{ Unwrap() []error }); ok && len(j.Unwrap()) > 0 {
				first = j.Unwrap()[0]
			}
			field, problem, _ := strings.Cut(first.Error(), ": ")
			return nil, d.Errf(fields[field], yamlx.Join(key, field), "%s", problem)
		}
		if prev, dup := lines[f.Name]; dup {
			return nil, d.Errf(fields["name"], yamlx.Join(key, "name"), "family %q is already declared on line %d", f.Name, prev)
		}
		lines[f.Name] = fields["name"].Line
		out = append(out, f)
	}
	return out, nil
}

// textCallFormats warns about a tape response whose text holds a call in a
// format setup.loop.text_calls.formats leaves out: the run reads it as text,
// which is the point only if the scenario says so.
func (l *linter) textCallFormats(s *Scenario) {
	loop := s.Setup.Loop
	if !loop.TextCalls || len(loop.TextCallOptions.Formats) == 0 || s.Setup.Agent != nil {
		return // a bridged agent reads its model's text itself
	}
	var offered []llm.ToolDefinition
	for _, t := range s.Setup.Tools {
		offered = append(offered, llm.ToolDefinition{Name: t.Name})
	}
	every := &textcalls.Options{Families: loop.TextCallOptions.Families}
	for i, e := range s.Tape {
		if e.Response == nil || len(e.Response.Message.ToolCalls) > 0 || e.Response.Message.Content == "" {
			continue
		}
		text := e.Response.Message.Content
		if res := textcalls.Extract(text, offered, &loop.TextCallOptions); len(res.Calls) > 0 {
			continue
		}
		if res := textcalls.Extract(text, offered, every); len(res.Calls) > 0 {
			l.warn(e.Line, yamlx.Index("tape", i)+".response.content",
				"holds a %s call, which stays text: setup.loop.text_calls.formats leaves %s out", res.Envelope, res.Envelope)
		}
	}
}
