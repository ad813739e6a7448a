package tape

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/tapeloop/tapeloop/llm"
)

// An offered block's `cache:` says where the request put its cache
// breakpoints (llm.Request.Cache), one place each, in the order of the
// prompt: `tools` after the last tool, `tools[i]` after tool i; `system`
// after the last system prompt, `system[i]` after system prompt i;
// `messages[-k]` after the k-th message from the end of the request
// (`messages[-1]` its last), so that a breakpoint an agent keeps on its
// last message reads the same on every request. `messages[k]`, k from 0,
// counts from the conversation's first message (after the system
// prompts). The places are kept, not compared: a breakpoint changes what
// the provider caches, not the answer.

// CachePlaces returns where req's cache breakpoints are, as `cache:`
// states them; nil when req records none (its Cache is nil), empty when it
// marks none.
func CachePlaces(req *llm.Request) []string {
	if req == nil || req.Cache == nil {
		return nil
	}
	nsys := len(req.Messages) - len(Conversation(req))
	out := []string{}
	for _, m := range req.Cache {
		switch {
		case m.Tools && m.Index == len(req.Tools)-1:
			out = append(out, "tools")
		case m.Tools:
			out = append(out, fmt.Sprintf("tools[%d]", m.Index))
		case m.Index == nsys-1:
			out = append(out, "system")
		case m.Index < nsys:
			out = append(out, fmt.Sprintf("system[%d]", m.Index))
		default:
			out = append(out, fmt.Sprintf("messages[%d]", m.Index-len(req.Messages)))
		}
	}
	return out
}

// CacheMarks returns the breakpoints places (as CachePlaces states them)
// put in req; nil for nil places. A place req does not have (a tool or a
// message past its end) is left out.
func CacheMarks(places []string, req *llm.Request) []llm.CacheMark {
	if places == nil {
		return nil
	}
	nsys := len(req.Messages) - len(Conversation(req))
	out := []llm.CacheMark{}
	for _, p := range places {
		part, i, indexed, err := parsePlace(p)
		if err != nil {
			continue
		}
		var m llm.CacheMark
		switch {
		case part == "tools":
			m = llm.CacheMark{Tools: true, Index: len(req.Tools) - 1}
			if indexed {
				m.Index = i
			}
			if m.Index < 0 || m.Index >= len(req.Tools) {
				continue
			}
		case part == "system":
			m.Index = nsys - 1
			if indexed {
				m.Index = i
			}
			if m.Index < 0 || m.Index >= nsys {
				continue
			}
		default:
			m.Index = nsys + i
			if i < 0 {
				m.Index = len(req.Messages) + i
			}
			if m.Index < nsys || m.Index >= len(req.Messages) {
				continue
			}
		}
		out = append(out, m)
	}
	return out
}

// parsePlace reads one place of `cache:`: its part (tools, system or
// messages), its index and whether it has one. A messages place needs an
// index; only it may be negative.
func parsePlace(s string) (part string, index int, indexed bool, err error) {
	part, rest, indexed := strings.Cut(s, "[")
	if part != "tools" && part != "system" && part != "messages" {
		return "", 0, false, fmt.Errorf("want tools, system or messages, with an index in brackets or none")
	}
	if !indexed {
		if part == "messages" {
			return "", 0, false, fmt.Errorf("want an index for messages: messages[-1] is the last")
		}
		return part, 0, false, nil
	}
	num, ok := strings.CutSuffix(rest, "]")
	index, convErr := strconv.Atoi(num)
	if !ok || convErr != nil || (index < 0 && part != "messages") {
		return "", 0, false, fmt.Errorf("want an index in brackets (from 0; messages may count back from -1)")
	}
	return part, index, true, nil
}
