package yamlx

import "go.yaml.in/yaml/v3"

// CopyComments copies the comments of from onto to, node by node, where to
// has none of its own: a mapping's keys are matched by name, a sequence's
// items by their "name" key when both have one, else by position. Nodes of
// to with no counterpart in from keep what they have. Either may be nil.
func CopyComments(from, to *yaml.Node) {
	if from == nil || to == nil {
		return
	}
	if from.Kind == yaml.DocumentNode && len(from.Content) == 1 {
		from = from.Content[0]
	}
	if to.HeadComment == "" {
		to.HeadComment = from.HeadComment
	}
	if to.LineComment == "" {
		to.LineComment = from.LineComment
	}
	if to.FootComment == "" {
		to.FootComment = from.FootComment
	}
	switch {
	case from.Kind == yaml.MappingNode && to.Kind == yaml.MappingNode:
		for i := 0; i+1 < len(to.Content); i += 2 {
			for j := 0; j+1 < len(from.Content); j += 2 {
				if from.Content[j].Value == to.Content[i].Value {
					CopyComments(from.Content[j], to.Content[i])
					CopyComments(from.Content[j+1], to.Content[i+1])
					break
				}
			}
		}
	case from.Kind == yaml.SequenceNode && to.Kind == yaml.SequenceNode:
		for i, item := range to.Content {
			if name := nameOf(item); name != "" {
				for _, f := range from.Content {
					if nameOf(f) == name {
						CopyComments(f, item)
						break
					}
				}
				continue
			}
			if i < len(from.Content) {
				CopyComments(from.Content[i], item)
			}
		}
	}
}

// nameOf returns the scalar value of mapping n's "name" key; "" when none.
func nameOf(n *yaml.Node) string {
	if n == nil || n.Kind != yaml.MappingNode {
		return ""
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		if n.Content[i].Value == "name" && n.Content[i+1].Kind == yaml.ScalarNode {
			return n.Content[i+1].Value
		}
	}
	return ""
}
