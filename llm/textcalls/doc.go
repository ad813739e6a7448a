// Package textcalls extracts tool calls that a model wrote as text instead of as
// structured calls: the fallback an agent loop uses when a response carries no
// structured calls.
//
//	res := textcalls.Extract(resp.Message.Content, req.Tools, nil)
//	for _, c := range res.Calls {
//		fmt.Println(c.Name, c.Arguments) // get_time {"city":"Paris"}
//	}
//	fmt.Println(res.Envelope, res.Content) // hermes Let me check.
//
// The envelope is detected from the text itself; Options.Family is only a hint that
// tries one family first. The first envelope (in a fixed priority order) that yields
// at least one call naming an offered tool wins, and only its calls are returned, in
// the order written. Arguments are repaired with repair.Repair and returned as
// canonical JSON object text; where an envelope carries untyped values (XML
// parameters), top-level and nested values are coerced to the tool's JSON Schema:
// "3" becomes 3 for integer or number, "true" becomes true for boolean, "null"
// becomes null for a type that is not string, JSON text
// becomes an object or array; strings stay strings when the schema says string or
// when there is no schema.
//
// # Envelopes
//
// The names reported in Result.Envelope:
//
//	hermes            <tool_call>{"name": ..., "arguments": {...}}</tool_call> (also unclosed at the end,
//	                  the tag repeated, the name on its own line before the JSON arguments,
//	                  or the tag spelt <user>...</user>; a <user> wrapper around any
//	                  envelope is cut with it)
//	qwen3_coder_xml   <function=name><parameter=k>v</parameter></function>, optionally in <tool_call>
//	seed_oss          the same inside <seed:tool_call>
//	glm               <tool_call>name<arg_key>k</arg_key><arg_value>v</arg_value></tool_call> (GLM-4.5/4.6 one
//	                  tag a line, GLM-4.7 and Poolside Laguna without space; a call without arguments
//	                  is the bare name; a call left without its </tool_call> is no call)
//	hunyuan           Hunyuan Hy3's <tool_calls><tool_call>name<tool_sep><arg_key>k</arg_key><arg_value>v</arg_value>
//	                  </tool_call>...</tool_calls>, and Hy4's without <tool_sep>, every tag suffixed alike
//	                  (<tool_call:opensource>); the dense Hunyuan models' name\n```json {...}```
//	                  entries; an entry counts only inside such a block
//	inkling           <|message_model|>name<|content_invoke_tool_json|>{"name": "name", "args": {...}}<|end_message|>
//	                  (the header may be glued to text or empty; one that names another tool, or a
//	                  payload without an "args" object, is no call)
//	minimax           <minimax:tool_call><invoke name="x"><parameter name="k">v</parameter></invoke>
//	                  </minimax:tool_call>, block and invoke both closed; an <invoke> outside
//	                  such a block is no call
//	minicpm           <function name="x"><param name="k">v</param></function> (CDATA allowed, the names also
//	                  in single quotes; strict: a param without a name, a key given twice or a
//	                  required argument missing is no call)
//	mistral           [TOOL_CALLS][...], [TOOL_CALLS]name{...}, [TOOL_CALLS]name[CALL_ID]id[ARGS]{...}
//	llama_python_tag  <|python_tag|>{"name": ..., "parameters": ...} or tool.call(k="v"), to <|eom_id|>
//	                  or, without it, to the end of the call (text after it stays content)
//	bare_json         the whole message is {"name": ..., "parameters"|"arguments": ...} (or a list of them,
//	                  also left unclosed after a complete call), or such a call on lines of its own in prose
//	deepseek          <｜tool▁calls▁begin｜><｜tool▁call▁begin｜>function<｜tool▁sep｜>name ```json {...}``` ... and the V3.1 form name<｜tool▁sep｜>{...}
//	                  (also the old V3 spelling <|tool▁call▁begin|> with ASCII bars)
//	atem              to=name<|message|><atem:function_calls><atem:invoke name="x"><atem:parameter name="k">v</atem:parameter>...
//	                  (values JSON-typed, strings verbatim; several messages; the recipient optional)
//	deepseek_dsml     DeepSeek V3.2 <｜DSML｜invoke name="x"><｜DSML｜parameter name="k" string="true">v</｜DSML｜parameter>
//	step3             Step-3's <｜tool_call_begin｜>function<｜tool_sep｜><steptml:invoke name="x"><steptml:parameter name="k">v</steptml:parameter>
//	                  </steptml:invoke><｜tool_call_end｜> in <｜tool_calls_begin｜>...<｜tool_calls_end｜>
//	kimi_k2           <|tool_call_begin|>functions.name:0<|tool_call_argument_begin|>{...}<|tool_call_end|>
//	functionary       <function=name>{...}</function> and >>>name\n{...} (v3.2 also without >>> at the start)
//	granite           <|tool_call|>[...] (text after the list stays content, as after firefunction and gigachat)
//	gemma             <|tool_call>call:name{k:<|"|>v<|"|>}<tool_call|>, <start_function_call>call:name{k:<escape>v<escape>}<end_function_call>
//	pythonic          [f(a=1, b="x")] as the whole message or inside <|tool_call_start|>...<|tool_call_end|>
//	                  (LFM2; there also a JSON list of calls when LFM2 is asked for JSON)
//	                  or Llama 4's <|python_start|>...<|python_end|> (the end optional)
//	olmo3             <function_calls> f(a='x', b=None, c=true) one a line </function_calls>
//	gpt_oss           harmony messages addressed to=functions.name
//	command_r         <|START_ACTION|>[{"tool_name": ..., "parameters": ...}]<|END_ACTION|>
//	nemotron          <TOOLCALL>[...]</TOOLCALL>
//	apriel            <tool_calls>[...]</tool_calls>, closed (also Hunyuan-A13B and Jamba; MiniMax-M1 writes
//	                  one call a line); a list left open is no call, nor read by a later envelope
//	internlm          <|action_start|><|plugin|>{"name": ..., "parameters": ...}<|action_end|>
//	longcat           <longcat_tool_call>{...}</longcat_tool_call>
//	granite_fc        Granite 20B function calling: <function_call> {...} before each call, no closing token
//	apertus           <|tools_prefix|>[{"name": {...}}]<|tools_suffix|>
//	firefunction      functools[...] (FireFunction v2 after a space; Phi-4-mini at the start of the message)
//	gigachat          <|function_call|>{...}, function call<|role_sep|>{...} and function call{...}, and
//	                  GigaChat 3.5's <｜GCML｜invoke name="x"><｜GCML｜parameter name="k" string="true">v</｜GCML｜parameter>
//	                  only inside <｜GCML｜tool_calls>
//	tool_calls_json   {"tool_calls": [...]} as the whole message
//	fenced_json       ```json {...} ``` blocks holding name and arguments
//	forge             <tool>{"server_name": ..., "tool_name": ..., "arguments": {...}}</tool> and the XML-children form
//
// # Declared families
//
// A family this package does not know is declared in Options.Families with
// its opening token, its closing token (optional) and its argument encoding:
//
//	json      a JSON call {"name": ..., "arguments"|"parameters": {...}} or a list of them
//	pythonic  [f(a=1, b="x"), g()] or one call f(a=1) without the brackets
//	xml       one call: the tool's name, then one tag a value, <k>v</k>,
//	          <parameter=k>v</parameter>, <param name="k">v</param> or
//	          <arg_key>k</arg_key><arg_value>v</arg_value> (CDATA allowed); the name
//	          may instead wrap the values: <function=name>…</function>,
//	          <invoke name="name">…</invoke>. Values are typed by the tool's schema.
//	          Text between the values, a value left open or a key given twice
//	          make the body no call. Without an end token the call ends with the
//	          line its last value closes on; the lines after it stay text.
//
// Declared families are tried first, and the rules below apply to them as to
// the known ones. Family.Check reports a bad declaration field by field;
// Extract skips one that fails it. Options.Formats, when set, lists the only
// envelopes tried, known or declared: a call in a format it leaves out is
// text.
//
// # What is not extracted
//
// False positives are worse than misses, so a call is taken only from a
// format's own envelope, where the format's chat template puts it, and a
// candidate is dropped when:
//   - its envelope is not among Options.Formats, when that is set;
//   - it names a tool that was not offered; with no tools offered nothing is
//     extracted (every negative of the llama.cpp corpus that offers no tools expects
//     no call);
//   - it lies in reasoning: <think>...</think> (also <thinking>, <seed:think>,
//     [THINK], <|START_THINKING|>, Gemma's thought channel, gpt-oss analysis
//     messages, Inkling's <|content_thinking|> messages), or before a lone
//     closing </think> (or [BEGIN FINAL RESPONSE]); an
//     unclosed <think> runs to the first special-token envelope (a Kimi or DeepSeek
//     call section) or call tag (<tool_call>, <function=, <function_calls>,
//     [TOOL_CALLS], <|python_start|>, <|tool_call_start|>: a call the model wrote
//     without closing its reasoning) or to the end;
//   - it is an example: inside a fenced code block whose language is not json (or
//     inside inline `code`), or on a line (or right after a line ending in ':')
//     whose prose before it says "example", "e.g.", "for instance", "such as",
//     "format" or "syntax" as a whole word ("information" and "formatted" do not
//     count, nor does a word inside an earlier call's tags, brackets or quotes);
//   - it is a mention, not where a chat template puts a call: quoted ("…",
//     '…' or “…” right around it), on a blockquote line (> …), inside a
//     sentence (a space and a lower-case word right after it on its line,
//     or punctuation glued after it: "<call> is what I would send",
//     "The request reads <call>."), explained on the next line ("That is
//     the syntax…", "This shows the shape…": a line starting with this,
//     that or the above that holds an example marker, "shows" or "shape"),
//     or in HTML <pre> or <code>; a call glued to the text before it
//     ("Checking.<tool_call>") or ending its line is the model's. Kimi
//     K2's call section is still taken in those places: a model writes its
//     special tokens only to call. The example markers also include "sample", "like this", "looks like",
//     "would look", "here's how", "would use", "would send", "would call",
//     "would write", "could use", "you can use", "for reference" and "the
//     call was"; a line holding only an envelope's own tags before the call
//     counts as blank, and prose followed by the envelope's opening tag on
//     its line introduces the call as a line ending in ':' does;
//   - it is the second of two JSON values in a row whose first is no call;
//   - its arguments cannot be repaired into a JSON object, or only by
//     inventing what the model did not write (the repair fixes missing_value,
//     close_string, close_literal, multiple_values, missing_braces, ellipsis,
//     function_call); syntax slips (a trailing comma, single quotes, a missing
//     closing brace before the closing tag, …) are repaired;
//   - its arguments are followed by more text inside a body that holds only
//     arguments (DeepSeek, Kimi K2), or an arg_key has no arg_value (GLM);
//   - an envelope found it and dropped it: no later envelope reads a call
//     from the same text (a cut hermes call is not taken as bare JSON);
//   - it was cut off with the response: a JSON value or parameter left open with
//     nothing after it but space or part of a closing tag. The repair cascade
//     could close it, but the arguments would be invented. (A value left open
//     before a closing tag is a slip, and is repaired.) A call whose envelope
//     was cut off (no closing tag) is dropped too when it lacks an argument
//     that the tool's schema requires;
//
// Content is the text with the matched envelopes cut out and surrounding blank space
// trimmed; reasoning text is kept, as it is the model's text and separating it is
// not this package's concern.
//
// # Too many calls
//
// An envelope holding more than MaxCallsPerMessage (1000) calls, counting those
// that name a tool not offered, refuses the whole text: Result.Err is set
// (matching llm.ErrTooManyCalls), no call is returned and Content is the text
// unchanged. Extractor.ExtractCalls returns that error, and the agent loop ends
// the run with model_error. No more than MaxCallsPerMessage+1 candidates are
// kept while a text is read, whatever its size.
//
// Extract never panics and does bounded, linear-ish work: envelopes are found by
// scanning for literal tokens and balanced brackets, never by regular expressions
// over nested content.
package textcalls
