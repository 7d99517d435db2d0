"""Running and caching a notebook the site makes (nbmake.py): its code cells run in a fresh kernel
as mkdocs-jupyter runs them (nbconvert's ExecutePreprocessor with the configuration
mkdocs-jupyter makes, reached through compat/mkdocs_jupyter.py), their outputs kept in the
execution cache (execcache.py), and a failing cell described in one line that names the
notebook, the cell and its demo.

The run starts with a cell of the build's own (nbmake.RECORDER, in no notebook the site ships):
each check and published value of esm's helpers comes out as an output of its own, in order
with the printed text; `text_areas` takes them out of a cell's outputs and puts each on the
printed line it stands for (output.py's pairing, as a block's runner does), for the page
(nbpage.py) to take checks and values from them, never from the printed text.

The outputs are reused while the code cells (in order, with their tags: the setup cells, which
hold esm's source, included, and the recorder) and the kernel spec are unchanged, with the same
inputs besides: the mkdocs-jupyter options, the ESM_* environment, the Python version and the
versions of the packages the cells import and of the toolchain (``TOOLCHAIN``). An edit to a
Markdown cell runs no kernel. A failing notebook is never cached. ``ESM_CACHE=0`` turns the
cache off.
"""

from __future__ import annotations

import copy
import logging
import os
import re

from . import execcache, nbmake, nbreader, output, page as pagemodel
from .compat import mkdocs_jupyter

log = logging.getLogger("mkdocs.plugins.esm.notebook")

#: what renders a notebook besides its own code: part of its cache keys (as versions)
TOOLCHAIN = "import mkdocs_jupyter, nbconvert, nbclient, ipykernel, jupyter_client, jupytext, nbformat, pygments"


def env() -> str:
    """The ESM_* environment, which the kernel inherits (execcache's NOT_INPUTS left out)."""
    return repr(sorted((k, v) for k, v in os.environ.items()
                       if k.startswith("ESM_") and k not in execcache.NOT_INPUTS))


def code_cells(nb) -> list:
    return [c for c in nb.cells if c.cell_type == "code"]


def dependencies(cache: execcache.ExecCache, nb) -> dict:
    """What the cells import (local modules, package versions) and the toolchain: the inputs
    of a notebook's cache entries besides their keys."""
    return cache.dependencies([*(c.source for c in code_cells(nb)), TOOLCHAIN])


def run_parts(job) -> list[str]:
    """The executed cells' cache key: the code cells alone (a Markdown cell does not run), in
    order, each with its tags (nbclient skips a ``skip-execution`` cell and lets a
    ``raises-exception`` cell fail), the recorder that runs before them, the kernel spec,
    mkdocs-jupyter's options and the environment."""
    code = [(c.source, c.metadata.get("tags", [])) for c in code_cells(job.nb)]
    return [repr(code), nbmake.RECORDER, repr(job.nb.metadata.get("kernelspec")), job.options, job.env]


def execute(job, *, name: str, kernel_name: str, allow_errors: bool) -> list[dict]:
    """Run the notebook ``job.nb`` (``name`` in the log) in a fresh kernel as mkdocs-jupyter runs
    them (nbconvert's ExecutePreprocessor, with the configuration mkdocs-jupyter gives it: its
    kernel_name and allow_errors options and the user's nbconvert configuration, which is not
    part of the key: `ESM_CACHE=0` after changing it), the recorder first; return each code
    cell's outputs (the records among them: `text_areas`) and execution count, the recorder's
    left out. Reused from ``job.cache`` while the key (``run_parts``), the modules the cells
    import and the package versions are unchanged."""
    import nbformat
    from nbconvert.preprocessors import ExecutePreprocessor

    parts = run_parts(job)
    runs = job.cache.get("notebook-run", parts)
    if runs is not None:
        log.info("%s: cell outputs reused from the execution cache (the code cells are unchanged)", name)
        return runs
    log.info("%s: running its %d code cells in a fresh kernel", name, len(code_cells(job.nb)))
    executed = copy.deepcopy(job.nb)
    executed.cells.insert(0, nbformat.v4.new_code_cell(nbmake.RECORDER, id="esm-recorder"))
    config = mkdocs_jupyter.execute_config(kernel_name=kernel_name, allow_errors=allow_errors)
    if os.name == "posix":
        # The kernel is a local process: it talks to the build over Unix sockets (in Jupyter's
        # runtime folder, removed with the kernel), not over TCP on localhost, for which ipykernel
        # warns that its traffic is unencrypted. (zmq has no such sockets on Windows: TCP there.)
        config.KernelManager.transport = "ipc"
    ExecutePreprocessor(config=config).preprocess(executed, {})
    runs = [{"outputs": c.outputs, "execution_count": c.execution_count}
            for c in code_cells(executed)[1:]]              # the recorder's left out
    job.cache.put("notebook-run", parts, runs, dependencies(job.cache, job.nb))
    return runs


def text_areas(outputs: list) -> tuple[list, list[dict]]:
    """A code cell's outputs without the recorder's, and its text areas: each run of printed text
    between its other outputs (stdout, which the page shows as one output) as ``{"lines": its
    number of line breaks, "records": ...}``, the records (output.record) heard while the cell
    ran, each with the index of the line of its area that it stands on (output.place). A record
    comes out before its line is printed: its line is looked for in what the cell printed after
    it (output.find_line). One printed nowhere whole is the cell's last area's (with line None),
    as a block's is its output's; a cell that prints nothing shows none."""
    kept, heard, starts = [], [], []
    printed, in_text = "", False
    for o in outputs:
        data = o.get("data", {}) if o.get("output_type") == "display_data" else {}
        if nbmake.RECORD_MIME in data:
            r = data[nbmake.RECORD_MIME]
            heard.append((output.record(r["event"], r["args"]), len(printed)))
            continue
        kept.append(o)
        stdout = o.get("output_type") == "stream" and o.get("name") == "stdout"
        if stdout and not in_text:
            starts.append(len(printed))
        if stdout:
            printed += o["text"]
        in_text = stdout
    spans = list(zip(starts, [*starts[1:], len(printed)]))
    taken: set[int] = set()
    at: list[int | None] = []              # where each record's line was printed (None: nowhere whole)
    for r, since in heard:
        found = None
        for start, end in spans:            # within one area, as a block's runner looks within one print
            if end > since:
                found = output.find_line(printed[start:end], r["line"], max(since - start, 0), taken, start)
                if found is not None:
                    taken.add(found)
                    break
        at.append(found)
    areas = []
    for j, (start, end) in enumerate(spans):
        mine = [k for k, a in enumerate(at) if (start <= a < end if a is not None else j == len(spans) - 1)]
        text = printed[start:end]
        records = output.place(text, [heard[k][0] for k in mine],
                               {i: at[k] - start for i, k in enumerate(mine) if at[k] is not None})
        areas.append({"lines": text.count("\n"), "records": records})
    return kept, areas


def reader_outputs(outputs: list) -> list[dict]:
    """A code cell's outputs from the build's run (``outputs``, the records among them) as the
    shipped notebook holds them: what a reader's kernel shows when it runs the cell. The records
    are taken out (`text_areas`); each run of printed text becomes the outputs the setup's
    ``print`` gives for it (nbmake.reader_outputs, one nbreader.Flow for the whole cell), every
    other output (a figure ``show`` displays) stays as it is, and the values the cell published
    end it (nbmake.quoted_output)."""
    kept, areas = text_areas(outputs)
    flow = nbreader.Flow()
    out: list[dict] = []
    text, k = None, 0
    for o in [*kept, None]:
        if o is not None and o.get("output_type") == "stream" and o.get("name") == "stdout":
            text = (text or "") + ("".join(o["text"]) if isinstance(o["text"], list) else o["text"])
            continue
        if text is not None:                       # an area ends: text_areas counts it as here
            out += nbmake.reader_outputs(text, flow, areas[k]["records"])
            text, k = None, k + 1
        if o is not None:
            out.append(dict(o))
    return out + nbmake.quoted_output(flow)


def describe_failure(error: Exception, *, name: str, nb, lines: list[int]) -> str:
    """One line naming the notebook ``name`` (docs-relative source), the cell, its source line,
    its heading and the error. A cell made from the source is counted as in the source (its id
    ``cell-NN``, ``lines`` the source line each source cell starts at); a setup cell is named by
    the esm module it writes."""
    message = str(error)
    m = re.search(r"the following cell:\n-{18}\n(.*?)\n-{18}\n", message, re.S)
    if nb is None or m is None or not hasattr(error, "ename"):
        last = message.strip().splitlines()[-1] if message.strip() else type(error).__name__
        return f"{name}: the notebook could not be executed: {type(error).__name__}: {last}"
    cells = [i for i, c in enumerate(nb.cells) if c.cell_type == "code" and c.source.strip() == m[1].strip()]
    k = cells[0] if cells else None
    where = "a cell"
    if k is not None and nbmake.is_setup(nb.cells[k]):
        first = nb.cells[k].source.split("\n", 1)[0]
        module = first.split(None, 1)[1] if first.startswith("%%esm_module") else None
        where = f"setup cell '{nb.cells[k].id}'" + (f" (esm/{module}, copied from snippets/esm/)" if module else "")
    elif k is not None:
        number = int(nb.cells[k].id.split("-")[-1]) if re.fullmatch(r"cell-\d+", nb.cells[k].id) else k + 1
        line = f", line {lines[number - 1]}" if number - 1 < len(lines) else ""
        heading = next((h for c in reversed(nb.cells[:k]) if c.cell_type == "markdown"
                        for h in [h.text for h in pagemodel.parse(c.source).headings][-1:]), None)
        where = f"cell {number} (docs/{name}{line}" + (f", under '{heading}'" if heading else "") + ")"
    evalue = " ".join(str(error.evalue).split())
    return f"{name}: notebook {where} failed: {error.ename}: {evalue}"
