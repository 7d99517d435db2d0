"""`make pdf`: the whole book in one PDF with an outline and page numbers, math and figures
rendered. Builds with mkdocs-pdf.yml and prints with Debian's Chromium (slow: one build)."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from screenshot import find_chromium

pytestmark = pytest.mark.build

ROOT = Path(__file__).resolve().parents[1]
CHAPTERS = ["1 Intuition", "2 Formal Definitions", "3 Similarity Geometry", "4 Geometry of Meaning",
            "5 Training Embeddings", "6 Positional Information", "7 Attention Bridge",
            "8 Scale and Diagnostics", "9 Common Mistakes", "Token embeddings", "Positional encoding",
            "Self-attention", "Softmax and attention scores", "Multi-head attention", "The transformer block",
            "References"]


@pytest.fixture(scope="module")
def book(tmp_path_factory, site):
    """The book as `make pdf` makes it, built with the execution cache the session's strict
    build filled: every block, the notebook and every formula are reused (they ran and were
    checked in that build), so this build adds only the print page and Chromium's printing."""
    # `make test` installs both (Makefile, `browser`): a missing one fails, never skips unseen.
    missing = [tool for tool, there in (("chromium", find_chromium()),
                                        ("poppler-utils", shutil.which("pdftoppm") and shutil.which("pdftotext")))
               if not there]
    assert not missing, f"the PDF tests need Debian's {' and '.join(missing)}: run `make browser` (as root)"
    out = tmp_path_factory.mktemp("pdf") / "book.pdf"
    env = {k: v for k, v in os.environ.items() if k != "ESM_CACHE"}
    env["ESM_CACHE_DIR"] = str(site.cache)
    done = subprocess.run([sys.executable, str(ROOT / "tools" / "pdf.py"), "-o", str(out)],
                          capture_output=True, text=True, timeout=3600, env=env)
    assert done.returncode == 0, done.stderr[-3000:]
    from pypdf import PdfReader
    return out, PdfReader(str(out))


@pytest.fixture(scope="module")
def page_texts(book) -> list[str]:
    """The printed text of every page, extracted once for the tests that read it, by poppler's
    pdftotext (the package that gives pdftoppm): 0.4 s of CPU where pypdf's extract_text took
    10 s for the whole book, and it reads the same characters (a raw \\( or ][sec- too)."""
    path, reader = book
    done = subprocess.run(["pdftotext", "-enc", "UTF-8", str(path), "-"], capture_output=True, text=True,
                          check=True)
    texts = done.stdout.split("\f")
    assert texts[-1].strip() == "" and len(texts) - 1 == len(reader.pages), "pdftotext and pypdf count other pages"
    return texts[:-1]


def _titles(outline, depth=0):
    for item in outline:
        if isinstance(item, list):
            yield from _titles(item, depth + 1)
        else:
            yield depth, item.title


def test_the_outline_has_every_chapter(book):
    _, reader = book
    titles = [t.strip() for _, t in _titles(reader.outline)]
    missing = [c for c in CHAPTERS if c not in titles]
    assert not missing, f"chapters missing from the outline: {missing}"
    assert "Theory notebook" in " ".join(titles) or any("notebook" in t.lower() for t in titles)


def test_pages_are_numbered(book, page_texts):
    _, reader = book
    n = len(reader.pages)
    assert n > 100, f"only {n} pages"
    assert re.search(rf"\b5 / {n}\b", page_texts[4])


def test_no_raw_tex_or_unresolved_reference_is_printed(page_texts):
    text = "\n".join(page_texts)
    assert "\\(" not in text and "\\)" not in text   # arithmatex delimiters: unrendered math
    assert not re.search(r"\]\[(sec|eq|ex|mistake|chapter|ref)-", text)


def test_a_page_shows_a_formula_and_a_figure(book, page_texts, tmp_path):
    """The page of section 1.1 holds formula (1.1) and the first figure: render it and look."""
    path, _ = book
    k = next(i for i, text in enumerate(page_texts) if "From token ids to vectors" in text and "(1.1)" in text)
    subprocess.run(["pdftoppm", "-r", "60", "-png", "-f", str(k + 1), "-l", str(k + 1), str(path),
                    str(tmp_path / "page")], check=True)
    from PIL import Image
    png = next(tmp_path.glob("page*.png"))
    image = Image.open(png).convert("L")
    dark = sum(image.histogram()[:128]) / (image.width * image.height)     # grey levels 0..127
    assert dark > 0.01, f"page {k + 1} is nearly blank ({dark:.3%} dark pixels)"


def test_the_pdf_config_runs_the_sites_plugins():
    """mkdocs-pdf.yml lists the plugins itself (INHERIT replaces lists): every plugin of the
    site, in order and with the same options, the esm plugin told to feed print-site
    (print_site: true), then print-site, last as it requires; a plugin or an option of the site
    missing here would leave its work undone in the book (e.g. raw {{name}} values)."""
    from mkdocs.config.defaults import MkDocsConfig
    from mkdocs.utils.yaml import get_yaml_loader, yaml_load

    def plugins(name):
        with open(ROOT / name, encoding="utf-8") as f:
            data = yaml_load(f, loader=get_yaml_loader(config=MkDocsConfig(config_file_path=str(ROOT / name))))
        return [(p, {}) if isinstance(p, str) else next(iter(p.items())) for p in data["plugins"]]

    site, pdf = plugins("mkdocs.yml"), plugins("mkdocs-pdf.yml")
    assert [n for n, _ in pdf] == [n for n, _ in site] + ["print-site"]
    assert site[-1][0] == "esm"
    for (name, options), (_, theirs) in zip(site[:-1], pdf):
        assert {k: v for k, v in theirs.items() if k in options} == options, name
    assert dict(pdf[-2][1], print_site=False) == dict(site[-1][1], print_site=False) and pdf[-2][1]["print_site"]
