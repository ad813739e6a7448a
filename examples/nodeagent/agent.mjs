// A notes agent on the official `openai` npm package, as a team would write
// it: its own loop, its own two tools on the files of its working directory.
// tapeloop runs it as a setup.agent.command: the client reads OPENAI_BASE_URL
// and OPENAI_API_KEY, which the bridge points at the scenario's tape; the
// scenario's input arrives on stdin as {"scenario", "messages"}; the final
// answer goes to stdout.
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
    function: {
      name: "read_file",
      description: process.env.NOTES_READ_DESC ?? "Read a file in the notes folder.",
      parameters: { type: "object", properties: { path: { type: "string" } }, required: ["path"] },
    },
  },
  {
    type: "function",
    function: {
      name: "write_file",
      description: "Write a file in the notes folder.",
      parameters: {
        type: "object",
        properties: { path: { type: "string" }, content: { type: "string" } },
        required: ["path", "content"],
      },
    },
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

async function complete(messages) {
  const req = { model: "gpt-test", messages, tools };
  if (!stream) {
    const resp = await client.chat.completions.create(req);
    return resp.choices[0].message;
  }
  const s = client.chat.completions.stream(req);
  const resp = await s.finalChatCompletion();
  return resp.choices[0].message;
}

const messages = [
  { role: "system", content: process.env.NOTES_SYSTEM ?? "You keep notes in files." },
  ...input.messages,
];
for (let step = 0; step < 10; step++) {
  const m = await complete(messages);
  messages.push(m);
  if (!m.tool_calls || m.tool_calls.length === 0) {
    process.stdout.write(`${m.content ?? ""}\n`);
    process.exit(0);
  }
  for (const c of m.tool_calls) {
    messages.push({ role: "tool", tool_call_id: c.id, content: runTool(c.function.name, c.function.arguments) });
  }
}
console.error("too many steps");
process.exit(1);
