// Build-time math renderer for katex.py: one process per build.
// Reads one JSON request per line: {"id": n, "items": [{"tex": "...", "display": bool, "engine": "..."}, ...]}
// Writes one JSON reply per line:  {"id": n, "html": ["...", ...]} or
//                                  {"id": n, "error": "...", "index": k}
// engine "katex" (the default): KaTeX's "htmlAndMathml", the HTML is what readers see, the
// MathML what screen readers read; "katex-mathml": KaTeX's MathML alone; "temml": Temml's
// MathML Core. throwOnError and strict "error" make bad TeX an error, never red text.
"use strict";
const readline = require("readline");
// temml and katex are the project's node packages: resolved from the working directory (the
// project's folder, where katex.py starts this process), not from this file's folder, which
// is outside the project when the plugin is installed with `pip install .` (not editable).
const project = require("module").createRequire(require("path").join(process.cwd(), "package.json"));
let katex = null;
let temml = null;

function render(item) {
  const engine = item.engine || "katex";
  if (engine === "temml") {
    temml = temml || project("temml");
    return temml.renderToString(item.tex, {
      displayMode: item.display, annotate: false, throwOnError: true, strict: true, trust: false,
    });
  }
  katex = katex || project("katex");
  return katex.renderToString(item.tex, {
    displayMode: item.display,
    output: engine === "katex-mathml" ? "mathml" : "htmlAndMathml",
    throwOnError: true,
    strict: "error",
    trust: false,
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
