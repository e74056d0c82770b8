// A stdio proxy that fails to start as mcp-remote 0.15.1 does when its remote server is down: it logs
// its progress, then the error of a real `fetch` to the URL it is given, as `console.error` prints
// it (the message, Node's stack frames, and the error object's properties, a `[cause]` nested in
// it), and exits 1 without a word on stdout.
//
//     node remote_proxy_failing.mjs URL
const url = process.argv[2];
const log = (...args) => console.error(`[${process.pid}]`, ...args);
log("Using automatically selected callback port: 8259");
log(`Connecting to remote server: ${url}`);
log("Using transport strategy: http-first");
try {
  await fetch(url, { method: "POST", body: "{}" });
} catch (error) {
  log("Connection error:", error);
  log("Fatal error:", error);
  process.exit(1);
}
log("the remote server answered; this script is for one that is down");
process.exit(3);
