// The notes agent of agent.mjs on the `openai` npm package's Responses API
// (client.responses): the same two tools, flat function tools as the
// Responses API takes them, the system prompt as instructions, and its
// conversation sent whole each call (store: false), the output items sent
// back as they came. tapeloop runs it as a setup.agent.command, as agent.mjs.
//
// NOTES_SYSTEM and NOTES_READ_DESC override the system prompt and the
// read_file description; NOTES_STREAM=1 reads each answer as a stream.
import fs from "node:fs";
import OpenAI from "openai";

const input = JSON.parse(fs.readFileSync(0, "utf8"));
const client = new OpenAI({ maxRetries: 0 });
const stream = process.env.NOTES_STREAM === "1";

const tools = [
  {
    type: "function",
    name: "read_file",
    description: process.env.NOTES_READ_DESC ?? "Read a file in the notes folder.",
    parameters: { type: "object", properties: { path: { type: "string" } }, required: ["path"] },
    strict: false,
  },
  {
    type: "function",
    name: "write_file",
    description: "Write a file in the notes folder.",
    parameters: {
      type: "object",
      properties: { path: { type: "string" }, content: { type: "string" } },
      required: ["path", "content"],
    },
    strict: false,
  },
];

function runTool(name, args) {
  let a;
  try {
    a = JSON.parse(args);
  } catch (e) {
    return `error: ${e.message}`;
  }
  if (name === "read_file") {
    try {
      return fs.readFileSync(a.path, "utf8");
    } catch {
      return "error: no such file";
    }
  }
  if (name === "write_file") {
    fs.writeFileSync(a.path, a.content);
    return `wrote ${Buffer.byteLength(a.content)} bytes`;
  }
  return `error: unknown tool ${name}`;
}

async function respond(items) {
  const req = {
    model: "gpt-test",
    instructions: process.env.NOTES_SYSTEM ?? "You keep notes in files.",
    input: items,
    tools,
    store: false,
  };
  if (!stream) {
    return client.responses.create(req);
  }
  return client.responses.stream(req).finalResponse();
}

const items = input.messages.map((m) => ({ role: m.role, content: m.content }));
for (let step = 0; step < 10; step++) {
  const resp = await respond(items);
  items.push(...resp.output);
  const calls = resp.output.filter((it) => it.type === "function_call");
  if (calls.length === 0) {
    // The text of the output messages (a stream's final response has no
    // output_text convenience field).
    const text = resp.output
      .filter((it) => it.type === "message")
      .flatMap((m) => m.content)
      .filter((c) => c.type === "output_text")
      .map((c) => c.text)
      .join("");
    process.stdout.write(`${text}\n`);
    process.exit(0);
  }
  for (const c of calls) {
    items.push({ type: "function_call_output", call_id: c.call_id, output: runTool(c.name, c.arguments) });
  }
}
console.error("too many steps");
process.exit(1);
