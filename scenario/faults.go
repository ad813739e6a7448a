package scenario

import (
	"errors"

	"go.yaml.in/yaml/v3"

	"github.com/tapeloop/tapeloop/internal/yamlx"
	"github.com/tapeloop/tapeloop/llm/faults/faultspec"
)

// faultKeys are the keys of one entry of faults:.
var faultKeys = []string{"call", "http", "retry_after", "stream", "after_bytes", "type", "arguments", "latency"}

// decodeFaults decodes the faults: list; each entry is checked with
// faultspec.Validate and its errors carry the entry's line.
func decodeFaults(d *yamlx.Decoder, n *yaml.Node) ([]faultspec.Fault, error) {
	if err := d.Want(n, "faults", yaml.SequenceNode); err != nil {
		return nil, err
	}
	var out []faultspec.Fault
	for i, item := range n.Content {
		path := yamlx.Index("faults", i)
		var f faultspec.Fault
		_, err := d.Fields(item, path, faultKeys, func(key string, v *yaml.Node) error {
			kp := yamlx.Join(path, key)
			var err error
			var i64 int64
			switch key {
			case "call":
				i64, err = d.Int(v, kp, 1, 1_000_000)
				f.Call = int(i64)
			case "http":
				i64, err = d.Int(v, kp, 400, 599)
				f.HTTP = int(i64)
			case "retry_after":
				f.RetryAfter, err = d.Duration(v, kp)
			case "stream":
				f.Stream, err = d.Enum(v, kp, faultspec.StreamCut, faultspec.StreamError)
			case "after_bytes":
				i64, err = d.Int(v, kp, 0, 1<<30)
				f.AfterBytes = int(i64)
			case "type":
				f.Type, err = d.Enum(v, kp, faultspec.TypeOverloaded, faultspec.TypeRateLimited, faultspec.TypeServer)
			case "arguments":
				f.Arguments, err = d.Enum(v, kp, faultspec.ArgumentsTruncate)
			case "latency":
				f.Latency, err = d.Duration(v, kp)
			}
			return err
		})
		if err != nil {
			return nil, err
		}
		out = append(out, f)
	}
	var fe *faultspec.Error
	if err := faultspec.Validate(out); errors.As(err, &fe) {
		return nil, d.Errf(n.Content[fe.Index], yamlx.Index("faults", fe.Index), "%s", fe.Problem)
	}
	return out, nil
}
