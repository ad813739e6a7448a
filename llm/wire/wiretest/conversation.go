package wiretest

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/tapeloop/tapeloop/llm"
)

// UserStop is what the scripted user models write when they are done.
const UserStop = "###STOP###"

// converse answers the conversation models, which talk rather than solve
// the task: ok is false for every other model.
//
//	echo       an agent: answers the last user message with
//	           "You said: TEXT" and no tool call
//	user-N     a simulated user (it sees the conversation with roles
//	           flipped: its own messages are role assistant, the first
//	           being the conversation's opening): writes "message K" for
//	           its K-th message after the opening while K <= N, then
//	           UserStop
//	user-fail  a simulated user whose every call is refused (HTTP 400)
//
// The error answer is returned as fail.
func converse(model string, req *llm.Request) (msg llm.Message, fail, ok bool) {
	switch {
	case model == "echo":
		last := ""
		for _, m := range req.Messages {
			if m.Role == llm.RoleUser {
				last = m.Content
			}
		}
		return llm.AssistantMessage("You said: " + last), false, true
	case model == "user-fail":
		return llm.Message{}, true, true
	}
	n, isUser := strings.CutPrefix(model, "user-")
	if !isUser {
		return llm.Message{}, false, false
	}
	limit, err := strconv.Atoi(n)
	if err != nil {
		return llm.Message{}, true, true
	}
	written := -1 // the opening is not its own
	for _, m := range req.Messages {
		if m.Role == llm.RoleAssistant {
			written++
		}
	}
	if written >= limit {
		return llm.AssistantMessage(UserStop), false, true
	}
	return llm.AssistantMessage(fmt.Sprintf("message %d", written+1)), false, true
}
