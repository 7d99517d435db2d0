"""Home: the pages whose demos need more than NumPy and matplotlib (pretrained weights or a
training corpus), found by reading the demos each page includes."""
import re

from esm import weights
from esm.project import docs, sections, snippets, title, url

# A demo needs the data packages if it imports a loader of esm.weights, or one of the functions of
# esm.tokenizer that read the corpus (corpus, data, and what calls them); its other names are plain numpy.
LOADERS = set(weights.__all__) - {"MissingData", "MINILM_SHA256", "mean_pool"} | {"corpus", "data", "reference_bpe"}


def needs_weights(code):
    for module, names in re.findall(r"^from esm(\.\w+)? import (\([^)]*\)|[^\n]*)", code, re.M):
        if module == ".weights" or LOADERS & set(re.findall(r"\w+", names)):
            return True
    return False


include = re.compile(r'^--8<-- "([^"]+)"', re.M)
heavy = []
for name, pages in sections:
    for p in pages:
        demos_of_page = include.findall((docs / p).read_text(encoding="utf-8"))
        if any(needs_weights((snippets / d).read_text(encoding="utf-8")) for d in demos_of_page):
            heavy.append(f"[{title(p)}]({url(p)})")
print(f"The demos of {len(heavy)} pages also read data that ships as Python packages, pinned in "
      "`data-requirements.txt`: the pretrained GloVe and all-MiniLM-L6-v2 weights, or the corpus the tiny "
      f"model is trained on. They are {', '.join(heavy[:-1])} and {heavy[-1]}. Every other demo, and the theory "
      "notebook, needs NumPy and matplotlib, and SciPy for one function (`erf`, in the exact GELU).")
if needs_weights((docs / "notebook" / "theory.py").read_text(encoding="utf-8")):     # asserted, not shown on Home
    raise ValueError("the theory notebook imports a loader of esm.weights or a corpus of esm.tokenizer")
