"""page.exec_blocks: the one reading of a page's executed fences, shared by the build's
look-ahead (planned_blocks) and the page notebooks (pagenotebook.page_demos)."""

from __future__ import annotations

import pytest

from mkdocs_esm import execution
from mkdocs_esm import page as pagemodel
from mkdocs_esm import pagenotebook as pn

PAGE = ('# T\n\n```python exec="on"\nprint(1)\n```\n\n```python\nnot run\n```\n\n'
        '```python exec="on" session="s"\nx = 2\n```\n\n'
        '    ```python exec="on" id="own"\n    --8<-- "part/demo.py"\n    ```\n')


@pytest.fixture
def snippets(tmp_path):
    (tmp_path / "part").mkdir()
    (tmp_path / "part" / "demo.py").write_text("for i in range(2):\n    print(i)\n", encoding="utf-8")
    return tmp_path


def test_blocks_in_order_with_ids_sessions_and_includes(snippets):
    blocks = pagemodel.exec_blocks(PAGE, "p/t.md", snippets)
    assert [(b.line, b.code, b.block_id, b.session) for b in blocks] == [
        (2, "print(1)\n", "p-t-b1", False),
        (10, "x = 2\n", "p-t-b2", True),              # numbered like the others
        (14, "for i in range(2):\n    print(i)\n", "own", False),   # pasted, the fence's indent removed
    ]
    # the look-ahead leaves sessions to the process; the notebook keeps every block
    assert execution.planned_blocks(PAGE, "p/t.md", snippets) == [(blocks[0].code, "p-t-b1"), (blocks[2].code, "own")]
    assert [(d.line, d.code, d.block_id) for d in pn.page_demos(PAGE, "p/t.md", snippets)] == \
        [(b.line, b.code, b.block_id) for b in blocks]


def test_a_missing_include_is_left_to_the_build(snippets):
    (snippets / "part" / "demo.py").unlink()
    blocks = pagemodel.exec_blocks(PAGE, "p/t.md", snippets)
    assert blocks[2].missing == snippets / "part" / "demo.py"
    assert [block_id for _, block_id in execution.planned_blocks(PAGE, "p/t.md", snippets)] == ["p-t-b1"]
    with pytest.raises(FileNotFoundError):
        pn.page_demos(PAGE, "p/t.md", snippets)
