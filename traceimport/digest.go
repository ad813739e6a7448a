package traceimport

import (
	"encoding/json"
	"strconv"
)

// digestSpan is a span of ADK's telemetry test digests: a tree of spans
// with decoded attributes and their log records, IDs and times replaced
// by "PRESENT".
type digestSpan struct {
	Name       string                     `json:"name"`
	Attributes map[string]json.RawMessage `json:"attributes"`
	Status     string                     `json:"status"`
	Children   []json.RawMessage          `json:"children"`
	Logs       []struct {
		EventName  string                     `json:"event_name"`
		Body       json.RawMessage            `json:"body"`
		Attributes map[string]json.RawMessage `json:"attributes"`
	} `json:"logs"`
}

// digest reads the tree under root, depth first: a span's children follow
// it in the order they started, so the file's order orders the spans. The
// trace and span IDs are made up: "digest", "s1", "s2", ...
func (rd *reader) digest(root json.RawMessage) error {
	return rd.digestSpan(root, "", 0)
}

func (rd *reader) digestSpan(raw json.RawMessage, parent string, depth int) error {
	if depth > MaxDepth {
		return rd.errorf("spans nested more than %d levels deep", MaxDepth)
	}
	var d digestSpan
	if err := json.Unmarshal(raw, &d); err != nil {
		return rd.errorf("root_span: not a span tree: %v", err)
	}
	sp := &Span{
		TraceID:  "digest",
		SpanID:   "s" + strconv.Itoa(len(rd.spans)+1),
		ParentID: parent,
		Name:     d.Name,
		Error:    d.Status == "ERROR",
		Attrs:    d.Attributes,
	}
	for _, l := range d.Logs {
		ev := Event{Name: l.EventName, Attrs: l.Attributes}
		if len(l.Body) > 0 && string(l.Body) != "null" {
			ev.Body = l.Body
		}
		sp.Events = append(sp.Events, ev)
	}
	if err := rd.add(sp); err != nil {
		return err
	}
	for _, c := range d.Children {
		if err := rd.digestSpan(c, sp.SpanID, depth+1); err != nil {
			return err
		}
	}
	return nil
}
