package cost

import (
	"sync"

	"github.com/tapeloop/tapeloop/agent"
)

// Collector gathers a run's calls from the loop's events (agent.Observer):
// each model request, paired with the response that answered it. Its zero
// value is ready; it is safe for concurrent events.
type Collector struct {
	mu    sync.Mutex
	calls []Call
	// byNumber maps an event's ModelCall to its request's index in calls.
	byNumber map[int]int
	// open holds, oldest first, the indices of the requests not yet
	// answered nor failed.
	open []int
}

// Observe records e when it is a model request, response or error; it
// ignores every other event. An answer or error pairs with the request of
// the same agent.Event.ModelCall; when the events are not numbered, with
// the oldest request still open.
func (c *Collector) Observe(e agent.Event) {
	c.mu.Lock()
	defer c.mu.Unlock()
	switch {
	case e.Kind == agent.EventModelRequest && e.Request != nil:
		i := len(c.calls)
		c.calls = append(c.calls, Call{Request: *e.Request})
		c.open = append(c.open, i)
		if e.ModelCall != 0 {
			if c.byNumber == nil {
				c.byNumber = map[int]int{}
			}
			c.byNumber[e.ModelCall] = i
		}
	case e.Kind == agent.EventModelResponse && e.Response != nil:
		if i, ok := c.close(e.ModelCall); ok {
			c.calls[i].Usage, c.calls[i].Answer = e.Response.Usage, e.Response.Message
		}
	case e.Kind == agent.EventModelError:
		c.close(e.ModelCall)
	}
}

// close takes the request call n answers (the oldest open one when n is
// 0) off the open ones, and returns its index; false when there is none.
func (c *Collector) close(n int) (int, bool) {
	at := -1
	if n == 0 {
		if len(c.open) > 0 {
			at = 0
		}
	} else if i, ok := c.byNumber[n]; ok {
		for k, j := range c.open {
			if j == i {
				at = k
				break
			}
		}
	}
	if at < 0 {
		return 0, false
	}
	i := c.open[at]
	c.open = append(c.open[:at], c.open[at+1:]...)
	return i, true
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

// Calls returns the requests seen, in the order sent, each with the usage
// and message of the response that answered it; a request that failed or
// is not answered yet has neither.
func (c *Collector) Calls() []Call {
	c.mu.Lock()
	defer c.mu.Unlock()
	out := make([]Call, len(c.calls))
	copy(out, c.calls)
	return out
}
