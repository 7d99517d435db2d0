"""Home: the map of the course, read from mkdocs.yml's navigation and the pages themselves, so that
no count or title on the home page can go stale."""
import re

from esm import glue, table
from esm.project import docs, sections, title, url

NUMBER_WORDS = "zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen".split()


def words(n):
    return NUMBER_WORDS[n] if n < len(NUMBER_WORDS) else f"{n:,}"


# What a reader computes in each section of the navigation (the only hand-written column).
WHAT = {
    "Part 1": "logits, softmax and cross-entropy, lookups, one-hot products, table sizes, dot products, cosines, "
              "distances, nearest neighbours",
    "Part 2": "analogies, probes, anisotropy, whitening, loss gradients, skip-gram, GloVe, sinusoids, RoPE, ALiBi",
    "Part 3": "queries, keys and values, attention as a soft lookup, PCA, retrieval, parameter counts, int8, "
              "dashboards, migrations",
    "Transformer primer": "the whole model assembled from the ideas of Parts 1 to 3: the block, GPT-2 small's count, "
                          "the loss, decoding, one training run, the modern block",
}
rows, n_pages = [], 0
for name, pages in sections:
    what = [text for key, text in WHAT.items() if name.startswith(key)]
    assert what, f"the navigation has a section '{name}' that the home page's map does not describe (WHAT)"
    links = ", ".join(f"[{title(p)}]({url(p)})" for p in pages)
    rows.append((f"**{name}**", links, what[0]))
    n_pages += len(pages)
chapters = [p for p in dict(sections)["Transformer primer"] if re.search(r"^eq_prefix:", (docs / p).read_text(), re.M)]
parts = [name for name, _ in sections if name.startswith("Part")]

# The theory notebook: its demos are its numbered headings; "Exploration" marks the free ones.
notebook = (docs / "notebook" / "theory.py").read_text(encoding="utf-8")
demos = re.findall(r"^# ## (\d+)\. (.*)$", notebook, re.M)
explorations = [t for _, t in demos if t.startswith("Exploration")]
rows.append((f"**[Theory notebook]({url('notebook/theory.py')})**",
             f"{len(demos)} demos in one notebook, downloadable as `.ipynb`: {len(demos) - len(explorations)} "
             f"that recompute results of Parts 1 to 3 and {len(explorations)} explorations",
             "run and change the code yourself"))
print(table(("", "pages", "what you compute"), rows))

print(glue("n_parts", words(len(parts))), glue("n_chapters", words(len(chapters))))
# The map's own consistency, asserted rather than printed: a broken navigation fails the build here,
# and the home page shows a newcomer no check boxes (tests/test_front_pages.py tests the same facts).
if [title(p).split()[0] for p in chapters] != [f"P{k}" for k in range(1, len(chapters) + 1)]:
    raise ValueError("the primer's chapters are not numbered P1, P2, ... in navigation order (their eq_prefix)")
if [int(n) for n, _ in demos] != list(range(1, len(demos) + 1)):
    raise ValueError("the notebook's demos are not numbered 1, 2, ... without a gap")
on_disk = sorted(p.relative_to(docs).as_posix() for folder in ("part1", "part2", "part3", "primer")
                 for p in (docs / folder).glob("*.md"))
linked = sorted(p for _, pages in sections for p in pages if p.startswith(("part", "primer")))
if linked != on_disk:
    raise ValueError(f"the map does not link every page file of docs/part1-3 and docs/primer once: "
                     f"{sorted(set(linked) ^ set(on_disk))}")
