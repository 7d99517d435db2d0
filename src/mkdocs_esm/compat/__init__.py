"""Where the plugin reaches into another package's internals: one module per package, each
checking, before the first use, that the installed version is one the code was written for.

A version outside the range fails the build with the package, the range and what to do,
instead of an AttributeError far from its cause when an internal is renamed. Widen a range
only after reading the package's changes to the internals the module names.
"""

from __future__ import annotations

import importlib.metadata

from mkdocs.exceptions import PluginError
from packaging.specifiers import SpecifierSet
from packaging.version import Version


class IncompatibleVersion(PluginError):
    """An installed package is outside the range a compat module was written for."""


def require(distribution: str, spec: str, uses: str) -> str:
    """The installed version of ``distribution``; IncompatibleVersion if it is not in ``spec``
    (or the package is missing). ``uses`` names the internals relied on, for the message."""
    try:
        found = importlib.metadata.version(distribution)
    except importlib.metadata.PackageNotFoundError:
        found = None
    if found is None or Version(found) not in SpecifierSet(spec):
        raise IncompatibleVersion(
            f"the esm plugin uses internals of {distribution} ({uses}) and was written for "
            f"{distribution}{spec}; installed: {found or 'none'}. Install the locked versions "
            f"(make deps), or check those internals and widen the range in mkdocs_esm/compat/.")
    return found
