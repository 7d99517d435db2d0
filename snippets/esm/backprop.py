"""The training chapter's model and code by one name: GPT-2's initialisation of P7's tiny GPT and its
arrays by name (`esm.initialise`), the forward pass that keeps what the backward pass needs and the
backward pass (`esm.backward`). All three are the page's code; this module only gathers them.

A module of the esm package that its ``__init__`` does not re-export (demos import it as
``esm.backprop``).
"""
from __future__ import annotations

from .backward import forward, loss_and_grads
from .initialise import init_gpt2, param_arrays

__all__ = ["init_gpt2", "param_arrays", "forward", "loss_and_grads"]
