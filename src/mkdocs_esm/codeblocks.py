"""Lighter code blocks: the same colours with fewer elements.

Pygments wraps every name (``<span class="n">``) and every run of whitespace
(``<span class="w">``) in its own element. Material colours names with
``--md-code-hl-name-color``, which is the code's own colour in both schemes, and
whitespace has no colour: the spans change nothing on screen but make up about a third
of a lesson page's elements. They are unwrapped inside code blocks.
"""

from __future__ import annotations

import re

_BLOCK = re.compile(r'(<div class="(?:language-\w+ )?highlight"><pre>)(.*?)(</pre>)', re.S)
_PLAIN = re.compile(r'<span class="[nw]">([^<]*)</span>')


def unwrap(html: str) -> str:
    """``html`` with the name and whitespace spans of its code blocks unwrapped."""
    return _BLOCK.sub(lambda m: m[1] + _PLAIN.sub(r"\1", m[2]) + m[3], html)
