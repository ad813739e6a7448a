package cost

import (
	"sync"

	"github.com/tapeloop/tapeloop/agent"
	"github.com/tapeloop/tapeloop/llm"
)

// Collector gathers a run's calls from the loop's events (agent.Observer):
// each model request, paired in order with the response that answered it.
// Its zero value is ready; it is safe for concurrent events.
type Collector struct {
	mu    sync.Mutex
	reqs  []llm.Request
	resps []llm.Response
}

// Observe records e when it is a model request or response; it ignores
// every other event.
func (c *Collector) Observe(e agent.Event) {
	c.mu.Lock()
	defer c.mu.Unlock()
	switch {
	case e.Kind == agent.EventModelRequest && e.Request != nil:
		c.reqs = append(c.reqs, *e.Request)
	case e.Kind == agent.EventModelResponse && e.Response != nil:
		c.resps = append(c.resps, *e.Response)
	}
}

// Observer returns an agent.Observer that records each event (Observe),
// then passes it on to next (nil: none).
func (c *Collector) Observer(next agent.Observer) agent.Observer {
	return func(e agent.Event) {
		c.Observe(e)
		if next != nil {
			next(e)
		}
	}
}

// Calls returns the requests seen, in order, the n-th with the n-th
// response's usage and message; a request without a response has neither.
// Concurrent requests (a bridged agent's) pair in arrival order.
func (c *Collector) Calls() []Call {
	c.mu.Lock()
	defer c.mu.Unlock()
	out := make([]Call, len(c.reqs))
	for i, r := range c.reqs {
		out[i].Request = r
		if i < len(c.resps) {
			out[i].Usage, out[i].Answer = c.resps[i].Usage, c.resps[i].Message
		}
	}
	return out
}
