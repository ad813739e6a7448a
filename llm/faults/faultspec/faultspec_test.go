package faultspec

import (
	"errors"
	"testing"
	"time"
)

func TestValidate(t *testing.T) {
	for _, tc := range []struct {
		faults []Fault
		want   string
	}{
		{[]Fault{{Call: 0, HTTP: 500}}, "invalid fault: faults[0]: call must be 1 or more, got 0"},
		{[]Fault{{Call: 1}}, "invalid fault: faults[0]: no fault given (want one of http, stream, arguments, latency)"},
		{[]Fault{{Call: 1, HTTP: 500, Latency: time.Second}}, "invalid fault: faults[0]: http and latency in one fault (want exactly one)"},
		{[]Fault{{Call: 1, HTTP: 200}}, "invalid fault: faults[0]: http must be an error status from 400 to 599, got 200"},
		{[]Fault{{Call: 1, Stream: "drop"}}, "invalid fault: faults[0]: unknown stream fault \"drop\" (want cut or error)"},
		{[]Fault{{Call: 1, Stream: StreamError, Type: "teapot"}}, "invalid fault: faults[0]: unknown error type \"teapot\" (want overloaded, rate_limited or server)"},
		{[]Fault{{Call: 1, Stream: StreamError, AfterBytes: 3}}, "invalid fault: faults[0]: after_bytes goes with stream: cut"},
		{[]Fault{{Call: 1, Latency: time.Second, RetryAfter: time.Second}}, "invalid fault: faults[0]: retry_after goes with http"},
		{[]Fault{{Call: 2, HTTP: 500}, {Call: 2, HTTP: 429}}, "invalid fault: faults[1]: call 2 already has faults[0] (one fault a call)"},
		{[]Fault{{Call: 1, Arguments: "drop"}}, "invalid fault: faults[0]: unknown arguments fault \"drop\" (want truncate)"},
	} {
		err := Validate(tc.faults)
		if err == nil || err.Error() != tc.want || !errors.Is(err, ErrFault) {
			t.Errorf("Validate(%v) = %v\nwant %s", tc.faults, err, tc.want)
		}
	}
	if err := Validate([]Fault{{Call: 1, HTTP: 429, RetryAfter: time.Second}, {Call: 2, Stream: StreamCut, AfterBytes: 10}}); err != nil {
		t.Errorf("valid faults: %v", err)
	}
}
