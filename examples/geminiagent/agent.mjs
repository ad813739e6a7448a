// A notes agent on the official `@google/genai` npm package, as a team would
// write it: its own loop over contents, its own two tools on the files of its
// working directory. tapeloop runs it as a setup.agent.command: the client
// reads GEMINI_API_KEY and GOOGLE_GEMINI_BASE_URL, which the bridge points at
// the scenario's tape; the scenario's input arrives on stdin as
// {"scenario", "messages"}; the final answer goes to stdout.
//
// NOTES_SYSTEM and NOTES_READ_DESC override the system prompt and the
// read_file description; NOTES_STREAM=1 reads each answer as a stream.
import fs from "node:fs";
import { GoogleGenAI } from "@google/genai";

const input = JSON.parse(fs.readFileSync(0, "utf8"));
const ai = new GoogleGenAI({ apiKey: process.env.GEMINI_API_KEY });
const stream = process.env.NOTES_STREAM === "1";

const config = {
  systemInstruction: process.env.NOTES_SYSTEM ?? "You keep notes in files.",
  tools: [
    {
      functionDeclarations: [
        {
          name: "read_file",
          description: process.env.NOTES_READ_DESC ?? "Read a file in the notes folder.",
          parametersJsonSchema: { type: "object", properties: { path: { type: "string" } }, required: ["path"] },
        },
        {
          name: "write_file",
          description: "Write a file in the notes folder.",
          parametersJsonSchema: {
            type: "object",
            properties: { path: { type: "string" }, content: { type: "string" } },
            required: ["path", "content"],
          },
        },
      ],
    },
  ],
};

function runTool(name, a) {
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

async function turn(contents) {
  const req = { model: "gemini-2.5-flash", contents, config };
  if (!stream) {
    const resp = await ai.models.generateContent(req);
    return resp.candidates[0].content;
  }
  const parts = [];
  for await (const chunk of await ai.models.generateContentStream(req)) {
    parts.push(...(chunk.candidates?.[0]?.content?.parts ?? []));
  }
  return { role: "model", parts };
}

const contents = input.messages
  .filter((m) => m.role === "user")
  .map((m) => ({ role: "user", parts: [{ text: m.content }] }));
for (let step = 0; step < 10; step++) {
  const content = await turn(contents);
  contents.push(content);
  const calls = content.parts.filter((p) => p.functionCall);
  if (calls.length === 0) {
    process.stdout.write(`${content.parts.map((p) => p.text ?? "").join("")}\n`);
    process.exit(0);
  }
  contents.push({
    role: "user",
    parts: calls.map((p) => ({
      functionResponse: { id: p.functionCall.id, name: p.functionCall.name, response: { output: runTool(p.functionCall.name, p.functionCall.args ?? {}) } },
    })),
  });
}
process.stderr.write("too many steps\n");
process.exit(1);
