"""The helpers of Embedding Space Math's demos, one module per audience:

* ``checks``: each check compares a value with an independent route and returns its
  ``PASS [label] claim: detail`` line; a failing one raises `CheckFailed` (every demo);
* ``prose``: ``glue(name, value, fmt)`` publishes a value that the page's prose quotes as
  ``{{name}}``; ``share_of_seeds`` (every page with computed prose, the exercises);
* ``tables``: ``shape_table``, the objects a subsection uses with their real shapes, verified
  against the symbolic ones, and ``table``;
* ``figures``: matplotlib to inline SVG, byte-identical from build to build, in ``currentColor``;
* ``math``: the math more than one lesson needs (similarity, softmax and loss, positions,
  attention, transformer pieces, finite differences, table diagnostics), each function saying
  which lesson introduces it;
* ``model``: a whole GPT-style model in numpy (the primer from the transformer block on);
* ``weights``: real pretrained weights (GloVe, all-MiniLM-L6-v2) read with numpy.

Demos import from the package (``from esm import check_close, glue``) and print what the
helpers return; what they print is plain text wherever it runs (a build, a notebook, a
terminal). The build turns the check lines and the value lines into the page's markup.
The modules are listed below in the order the build writes them into a notebook's setup cells.
"""

from . import checks as _checks
from . import prose as _prose
from . import tables as _tables
from . import figures as _figures
from . import math as _math
from . import model as _model
from . import weights as _weights
from .checks import *  # noqa: F403
from .prose import *  # noqa: F403
from .tables import *  # noqa: F403
from .figures import *  # noqa: F403
from .math import *  # noqa: F403
from .model import *  # noqa: F403
from .weights import *  # noqa: F403

__all__ = [*_checks.__all__, *_prose.__all__, *_tables.__all__, *_figures.__all__, *_math.__all__,
           *_model.__all__, *_weights.__all__]
