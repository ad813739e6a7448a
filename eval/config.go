package eval

import (
	"fmt"
	"math"
	"os"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/tapeloop/tapeloop/internal/yamlx"
)

// MaxConfigSize bounds an evalrun.yaml file; a larger one is refused.
const MaxConfigSize = 1 << 20

// Config is what an evalrun.yaml file gives a live run: prices (since they
// change, tapeloop ships none) and rate limits.
//
//	prices:                       # US dollars per million tokens
//	  openai/gpt-4.1-mini: {input: 0.40, output: 1.60, cached: 0.10}
//	limits:                       # per provider
//	  openai: {rpm: 500, tpm: 200000}
//	judge_model: openai/gpt-4.1   # expect.judge items that name no model
type Config struct {
	// Prices by model name; nil means none.
	Prices map[string]Price
	// Limits by provider name; nil means none.
	Limits map[string]Limit
	// JudgeModel is the judge model of the expect.judge items that name
	// none (Options.JudgeModel); empty means none.
	JudgeModel string
}

// LoadConfig reads an evalrun.yaml file. Every problem is an error naming
// the file, the line and the key, wrapping yamlx.ErrFormat.
func LoadConfig(path string) (*Config, error) {
	info, err := os.Stat(path)
	if err != nil {
		return nil, fmt.Errorf("loading %s: %w", path, err)
	}
	if !info.Mode().IsRegular() || info.Size() > MaxConfigSize {
		return nil, fmt.Errorf("loading %s: not a regular file of at most %d bytes", path, MaxConfigSize)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("loading %s: %w", path, err)
	}
	return ParseConfig(data, path)
}

// ParseConfig decodes an evalrun.yaml file's content; file names it in
// errors.
func ParseConfig(data []byte, file string) (*Config, error) {
	d := &yamlx.Decoder{File: file}
	root, err := d.Parse(data)
	if err != nil || root == nil {
		return &Config{}, err
	}
	c := &Config{}
	_, err = d.Fields(root, "", []string{"prices", "limits", "judge_model"}, func(key string, v *yaml.Node) error {
		switch key {
		case "judge_model":
			var err error
			if c.JudgeModel, err = d.Str(v, key); err == nil {
				if _, _, perr := splitModel(c.JudgeModel); perr != nil {
					err = d.Errf(v, key, "%v", perr)
				}
			}
			return err
		case "prices":
			c.Prices = map[string]Price{}
			return d.Pairs(v, key, func(model string, k, pv *yaml.Node) error {
				path := yamlx.Join(key, model)
				if _, _, err := splitModel(model); err != nil {
					return d.Errf(k, path, "%v", err)
				}
				var p Price
				_, err := d.Fields(pv, path, []string{"input", "output", "cached"}, func(f string, n *yaml.Node) error {
					x, err := number(d, n, yamlx.Join(path, f))
					switch f {
					case "input":
						p.Input = x
					case "output":
						p.Output = x
					case "cached":
						p.Cached = x
					}
					return err
				})
				c.Prices[model] = p
				return err
			})
		case "limits":
			c.Limits = map[string]Limit{}
			return d.Pairs(v, key, func(provider string, k, lv *yaml.Node) error {
				path := yamlx.Join(key, provider)
				var l Limit
				_, err := d.Fields(lv, path, []string{"rpm", "tpm"}, func(f string, n *yaml.Node) error {
					x, err := d.Int(n, yamlx.Join(path, f), 0, math.MaxInt32)
					if f == "rpm" {
						l.RPM = int(x)
					} else {
						l.TPM = int(x)
					}
					return err
				})
				c.Limits[provider] = l
				return err
			})
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return c, nil
}

// number decodes a non-negative number (integer or float).
func number(d *yamlx.Decoder, n *yaml.Node, path string) (float64, error) {
	if n.Kind == yaml.ScalarNode && (n.ShortTag() == "!!int" || n.ShortTag() == "!!float") {
		if x, err := strconv.ParseFloat(n.Value, 64); err == nil && x >= 0 && !math.IsInf(x, 0) {
			return x, nil
		}
	}
	return 0, d.Errf(n, path, "want a non-negative number of US dollars per million tokens, got %s", yamlx.Describe(n))
}

// ParsePrice parses a --price flag, "MODEL=INPUT,OUTPUT[,CACHED]" in US
// dollars per million tokens.
func ParsePrice(s string) (string, Price, error) {
	model, nums, ok := strings.Cut(s, "=")
	parts := strings.Split(nums, ",")
	if !ok || len(parts) < 2 || len(parts) > 3 {
		return "", Price{}, fmt.Errorf("--price %q: want MODEL=INPUT,OUTPUT[,CACHED] in US dollars per million tokens", s)
	}
	if _, _, err := splitModel(model); err != nil {
		return "", Price{}, fmt.Errorf("--price %q: %w", s, err)
	}
	var xs [3]float64
	for i, p := range parts {
		x, err := strconv.ParseFloat(strings.TrimSpace(p), 64)
		if err != nil || x < 0 || math.IsInf(x, 0) || math.IsNaN(x) {
			return "", Price{}, fmt.Errorf("--price %q: %q is not a non-negative number", s, p)
		}
		xs[i] = x
	}
	return model, Price{Input: xs[0], Output: xs[1], Cached: xs[2]}, nil
}
