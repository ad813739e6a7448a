// Package tape is tapeloop's recording format as data: a Tape of Entry
// values, the offered block, request summaries and judge verdicts, and
// their strict decoder and canonical encoder. It runs nothing: serving,
// recording and rebasing a tape are package replay's, as go-vcr's
// recorder is apart from its cassette.
//
// A Tape is a recorded transcript: one Entry per model call, in order, each
// holding the Response the model gave (or the provider error it failed with)
// and, optionally, a summary of the Request that produced it. Tapes are YAML,
// either the `tape:` section of a scenario file (see DecodeEntries and
// EncodeEntries) or a standalone file:
//
//	format: tapeloop/v1
//	name: weather
//	offered:
//	  system: You report the weather.
//	  tools:
//	    - name: fetch_weather
//	      description: The weather in a city now.
//	      parameters:
//	        type: object
//	        properties:
//	          city: {type: string}
//	tape:
//	  - response:
//	      tool_calls:
//	        - id: call_1
//	          name: fetch_weather
//	          arguments: '{"city": "Oslo"}'
//	      finish_reason: tool_calls
//	    request:
//	      new:
//	        - role: user
//	          content: What is the weather in Oslo?
//	  - response:
//	      content: Sunny, 21C.
//	      finish_reason: stop
//	  - error: 429 Too Many Requests
//	  - user: And in Bergen?
//
// A `user:` entry (text, or {content, name}) is the user's next message: a
// conversation goes on with it after a final text answer (replay.Model.NextUser
// serves it).
//
// The `offered:` block records what the first request showed the model
// besides the conversation (its system prompts, and each tool's name,
// description and parameter schema); an entry's `request:` records the
// messages its request added (`new`), what it offered when that changed
// mid-run (`offered`), and, in tapes written by hand or with
// replay.RecorderOptions.RecordMessages, `tools`, `last_message` and `messages`.
//
// A recorded response keeps the model's reasoning (`reasoning:`, blocks of
// text, signature and redacted data) and each call's `signature`, so that
// replay serves back what a vendor wants returned byte for byte (signed
// thinking, a Responses reasoning item, Gemini's thoughtSignature); a
// request must carry the signed and redacted blocks and the signatures back
// unchanged, while reasoning text without a signature is not compared (see
// docs/scenario-format.md, "Reasoning and signatures").
//
// Decoding is strict: an unknown key, a value of the wrong type, a missing
// required field, an invalid role or an unknown format version is an error
// wrapping ErrFormat that names the file, the line and the key, for example
//
//	tapes/x.yaml:12: tape[1].response: unknown key "tool_call" (want reasoning, content, tool_calls, finish_reason, usage)
//
// Encoding is canonical: fixed key order, literal blocks for multi-line text,
// empty fields omitted, no timestamps, so that loading a canonical tape and
// saving it again gives the same bytes.
package tape
