// Build-time math renderer for katex.py: one process per build.
// Reads one JSON request per line: {"id": n, "items": [{"tex": "...", "display": bool}, ...]}
// Writes one JSON reply per line:  {"id": n, "html": ["...", ...]} or
//                                  {"id": n, "error": "...", "index": k}
// KaTeX output is "htmlAndMathml": the HTML is what readers see, the MathML is what
// screen readers read. throwOnError and strict "error" make bad TeX an error, never red text.
"use strict";
const katex = require("katex");
const readline = require("readline");

const rl = readline.createInterface({ input: process.stdin, crlfDelay: Infinity });
rl.on("line", (line) => {
  if (!line.trim()) return;
  const request = JSON.parse(line);
  const html = [];
  for (let k = 0; k < request.items.length; k++) {
    const item = request.items[k];
    try {
      html.push(
        katex.renderToString(item.tex, {
          displayMode: item.display,
          output: "htmlAndMathml",
          throwOnError: true,
          strict: "error",
          trust: false,
        })
      );
    } catch (err) {
      process.stdout.write(JSON.stringify({ id: request.id, error: String(err.message || err), index: k }) + "\n");
      return;
    }
  }
  process.stdout.write(JSON.stringify({ id: request.id, html }) + "\n");
});
