// Unused rules out of the third-party stylesheets, for stylesheets.py (PurgeCSS).
// Reads one JSON request on stdin:
//   {"css": "...", "used": {"tags": [], "classes": [], "ids": [],
//    "attributes": {"names": [], "values": []}, "undetermined": []},
//    "variables": ["--name", ...]}
// and writes {"css": "..."} on stdout. "used" is what the built pages and scripts hold (read by
// stylesheets.py, names that scripts complete at run time included). PurgeCSS keeps a selector when
// every class, id, tag and attribute in it is used; what stands inside :not() or :has() does
// not count. A rule stays while one of its selectors does; custom
// properties that nothing kept reads go, except "variables" (read by the site's own sheets,
// which are not purged, its pages or its scripts). @font-face and @keyframes stay. The sheets
// come as one text: PurgeCSS decides which custom properties are read one sheet at a time, and
// Material's palette sheet sets those its main sheet reads. An error exits non-zero, on stderr.
"use strict";
// PurgeCSS is the project's node package: resolved from the working directory (the project's
// folder, where stylesheets.py starts this process), not from this file's folder, which is
// outside the project when the plugin is installed with `pip install .` (not editable).
const project = require("module").createRequire(require("path").join(process.cwd(), "package.json"));
const { PurgeCSS } = project("purgecss");

let input = "";
process.stdin.setEncoding("utf8");
process.stdin.on("data", (chunk) => (input += chunk));
process.stdin.on("end", async () => {
  try {
    const request = JSON.parse(input);
    const [result] = await new PurgeCSS().purge({
      content: [{ raw: JSON.stringify(request.used), extension: "esm-used" }],
      extractors: [{ extensions: ["esm-used"], extractor: (raw) => JSON.parse(raw) }],
      css: [{ raw: request.css }],
      safelist: { variables: request.variables },
      variables: true,
      fontFace: false,
      keyframes: false,
    });
    process.stdout.write(JSON.stringify({ css: result.css }));
  } catch (err) {
    process.stderr.write(String((err && err.stack) || err) + "\n");
    process.exit(1);
  }
});
