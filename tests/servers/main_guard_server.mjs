#!/usr/bin/env node
// A stdio server that serves only when run as its own file, as responsible-vibe-mcp 0.1.10's
// dist/index.js does (`import.meta.url === file://${process.argv[1]}`): started through a symbolic
// link, as npm's node_modules/.bin/ entries are, argv[1] names the link, so it exits with status 0
// and says nothing. Run as its own file, it answers the legacy handshake and lists one tool.
import { createInterface } from "node:readline";

if (import.meta.url === `file://${process.argv[1]}`) {
  const send = (message) => process.stdout.write(JSON.stringify({ jsonrpc: "2.0", ...message }) + "\n");
  const results = {
    initialize: {
      protocolVersion: "2025-06-18",
      capabilities: { tools: {} },
      serverInfo: { name: "main-guard", version: "1.0.0" },
    },
    "tools/list": {
      tools: [{ name: "echo", description: "Echo the text.", inputSchema: { type: "object", properties: { text: { type: "string" } } } }],
    },
  };
  createInterface({ input: process.stdin }).on("line", (line) => {
    const request = JSON.parse(line);
    if (request.id === undefined) return;
    if (request.method in results) send({ id: request.id, result: results[request.method] });
    else send({ id: request.id, error: { code: -32601, message: "Method not found" } });
  });
}
