"""Old import paths of the prepare-script API, kept working for benchmarks written against them.

Prepare scripts outside gym imported `gym.prepare_context`, `gym.converters`, `gym.multilingual`,
`gym.errors` and `gym.io` before these modules moved into layer packages; each old name now resolves to
the module itself (one module object, so classes and exceptions compare equal).
"""

from __future__ import annotations

import importlib
import importlib.abc
import importlib.machinery
import sys

MOVED = {
    "gym.prepare_context": "gym.data.prepare_context",
    "gym.converters": "gym.data.converters",
    "gym.multilingual": "gym.data.multilingual",
    "gym.errors": "gym.core.errors",
    "gym.io": "gym.core.io",
}


class _Alias(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    def find_spec(self, name, path=None, target=None):
        return importlib.machinery.ModuleSpec(name, self) if name in MOVED else None

    def create_module(self, spec):
        module = importlib.import_module(MOVED[spec.name])  # the real module; its own name stays
        spec.loader_state = module.__spec__  # the import system stamps the alias spec on it next
        return module

    def exec_module(self, module):
        module.__spec__ = module.__spec__.loader_state


def install() -> None:
    if not any(isinstance(finder, _Alias) for finder in sys.meta_path):
        sys.meta_path.append(_Alias())
