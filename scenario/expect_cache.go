package scenario

import (
	"go.yaml.in/yaml/v3"

	"github.com/tapeloop/tapeloop/internal/yamlx"
)

// CacheExpect is expect.cache: how much of the run's input a provider's
// prompt cache must be able to read (package cost), so that a change that
// breaks the prompt's prefix fails the scenario with the place it broke.
type CacheExpect struct {
	// MinShare is min_cached_share: the least cacheable share of the run's
	// input tokens, from 0 to 1.
	MinShare float64
	// Rules is rules: the cache rules the share is read with ("openai",
	// "anthropic", "gemini", "bedrock"); "" (the default, "generic")
	// compares whole elements with no minimum length.
	Rules string
	// Line is the line of expect.cache; 0 when unknown.
	Line int
}

var cacheKeys = []string{"min_cached_share", "rules"}

// CacheRules are the values of expect.cache.rules.
var CacheRules = []string{"generic", "openai", "anthropic", "gemini", "bedrock"}

// decodeCache reads expect.cache: {min_cached_share: SHARE, rules: NAME}.
func decodeCache(d *yamlx.Decoder, n *yaml.Node, path string) (*CacheExpect, error) {
	c := &CacheExpect{Line: n.Line}
	seen, err := d.Fields(n, path, cacheKeys, func(key string, v *yaml.Node) error {
		var err error
		switch key {
		case "min_cached_share":
			c.MinShare, err = d.Unit(v, yamlx.Join(path, key))
		case "rules":
			c.Rules, err = d.Enum(v, yamlx.Join(path, key), CacheRules...)
			if c.Rules == "generic" {
				c.Rules = ""
			}
		}
		return err
	})
	if err != nil {
		return nil, err
	}
	if !seen.Has("min_cached_share") {
		return nil, d.Errf(n, path, "missing key \"min_cached_share\" (the least cacheable share of input tokens, from 0 to 1)")
	}
	return c, nil
}
