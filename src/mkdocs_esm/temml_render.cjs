// Build-time math renderer for mathml.py: one process per build.
// Reads one JSON request per line: {"id": n, "items": [{"tex": "...", "display": bool}, ...]}
// Writes one JSON reply per line:  {"id": n, "html": ["...", ...]} or
//                                  {"id": n, "error": "...", "index": k}
// Temml's MathML Core; throwOnError and strict make bad TeX an error, never red text.
"use strict";
const readline = require("readline");
// temml is one of the project's node packages: resolved from the working directory (the
// project's folder, where mathml.py starts this process), not from this file's folder, which
// is outside the project when the plugin is installed with `pip install .` (not editable).
const project = require("module").createRequire(require("path").join(process.cwd(), "package.json"));
let temml = null;

function render(item) {
  temml = temml || project("temml");
  return temml.renderToString(item.tex, {
    displayMode: item.display, annotate: false, throwOnError: true, strict: true, trust: false,
  });
}

const rl = readline.createInterface({ input: process.stdin, crlfDelay: Infinity });
rl.on("line", (line) => {
  if (!line.trim()) return;
  const request = JSON.parse(line);
  const html = [];
  for (let k = 0; k < request.items.length; k++) {
    try {
      html.push(render(request.items[k]));
    } catch (err) {
      process.stdout.write(JSON.stringify({ id: request.id, error: String(err.message || err), index: k }) + "\n");
      return;
    }
  }
  process.stdout.write(JSON.stringify({ id: request.id, html }) + "\n");
});
