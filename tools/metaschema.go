package tools

import (
	"embed"
	"encoding/json"
	"fmt"
	"net/url"
	"strings"
	"sync"

	"github.com/google/jsonschema-go/jsonschema"
)

// metaschemas holds the meta-schemas of Draft 2020-12 and Draft 7 as the JSON
// Schema specification publishes them, unchanged. The validator does not
// check a schema against its draft's meta-schema, so CompileSchema does,
// with the validator itself.
//
//go:embed metaschemas
var metaschemas embed.FS

// metaschemaFiles maps a meta-schema's $id to its file.
var metaschemaFiles = map[string]string{
	"https://json-schema.org/draft/2020-12/schema": "metaschemas/draft2020-12/schema.json",
	"http://json-schema.org/draft-07/schema":       "metaschemas/draft7/schema.json",
	"https://json-schema.org/draft-07/schema":      "metaschemas/draft7/schema.json",
}

// metaschemaOf returns the resolved meta-schema of a draft ("" for the
// default, 2020-12), resolved once on first use (not at start-up).
var metaschemaOf = func() func(draft string) (*jsonschema.Resolved, error) {
	type entry struct {
		once sync.Once
		r    *jsonschema.Resolved
		err  error
	}
	var mu sync.Mutex
	cache := map[string]*entry{}
	return func(draft string) (*jsonschema.Resolved, error) {
		id := strings.TrimSuffix(draft, "#")
		if id == "" {
			id = "https://json-schema.org/draft/2020-12/schema"
		}
		mu.Lock()
		e := cache[id]
		if e == nil {
			e = &entry{}
			cache[id] = e
		}
		mu.Unlock()
		e.once.Do(func() {
			var s *jsonschema.Schema
			if s, e.err = loadMetaschema(id); e.err == nil {
				e.r, e.err = s.Resolve(&jsonschema.ResolveOptions{Loader: loadMetaschemaURL})
			}
		})
		return e.r, e.err
	}
}()

// loadMetaschemaURL loads a meta-schema, or one of the 2020-12 vocabularies
// it refers to, from the embedded files; any other document is an error.
func loadMetaschemaURL(u *url.URL) (*jsonschema.Schema, error) {
	c := *u
	c.Fragment = ""
	return loadMetaschema(c.String())
}

func loadMetaschema(id string) (*jsonschema.Schema, error) {
	file, ok := metaschemaFiles[id]
	if !ok {
		rest, isVocab := strings.CutPrefix(id, "https://json-schema.org/draft/2020-12/meta/")
		if !isVocab || strings.ContainsAny(rest, "./") {
			return nil, fmt.Errorf("%s: references to other documents are not followed", id)
		}
		file = "metaschemas/draft2020-12/meta/" + rest + ".json"
	}
	data, err := metaschemas.ReadFile(file)
	if err != nil {
		return nil, fmt.Errorf("%s: references to other documents are not followed", id)
	}
	s := new(jsonschema.Schema)
	if err := json.Unmarshal(data, s); err != nil {
		return nil, fmt.Errorf("meta-schema %s: %w", id, err)
	}
	return s, nil
}

// checkMetaschema validates a decoded schema document against its draft's
// meta-schema, reporting the first failure.
func checkMetaschema(doc map[string]any) error {
	draft, _ := doc["$schema"].(string)
	meta, err := metaschemaOf(draft)
	if err != nil {
		return err
	}
	v, _ := floatNumbers(any(doc))
	if err := meta.Validate(v); err != nil {
		return fmt.Errorf("not a valid schema: %s", message(err))
	}
	return nil
}
