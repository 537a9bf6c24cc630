"""The lowered module's own class, tuned for the cost of one call.

fx gives every GraphModule a class of its own, so what is set on that class touches no other
module.  Two costs of a plain GraphModule are taken off there, without changing what it
computes or how it behaves as an nn.Module (`.to()`, `state_dict`, `load_state_dict`, setting
or deleting a buffer, copying, pickling):

- fx's call wrapper (`plain_module_calls`);
- nn.Module's attribute lookup for each weight or submodule the forward reads
  (`direct_attribute_reads`).
"""

from __future__ import annotations

import torch
import torch.fx as fx


def plain_module_calls(gm: fx.GraphModule) -> None:
    """Calling the module (and its control-flow submodules) is nn.Module's call.

    fx puts a wrapper in front of every GraphModule's call that, when the forward raises,
    prints the generated code's line to stderr: 1.2 us a call, 7% of a small model's batch-1
    forward (the corpus mlp: 16.8 against 15.6 us through nn.Module's call).  pirc names a
    failing op itself (failures.py: `pirc.run` reruns the call under an fx.Interpreter and says
    which op, where it stands in the input and what it was given), so the wrapper adds
    nothing here.  A later `recompile()` puts fx's wrapper back."""
    for module in _graph_modules(gm):
        type(module).__call__ = torch.nn.Module.__call__


# Where nn.Module keeps what a get_attr may name, in the order its __getattr__ looks.
_STORES = ("_parameters", "_buffers", "_modules")


def direct_attribute_reads(gm: fx.GraphModule) -> None:
    """Each weight or submodule the forward reads (a get_attr or call_module of one of the
    module's own parameters, buffers or submodules: a control-flow branch or body) is a
    property of the module's class that reads nn.Module's dict of it.

    The generated forward reads them as `self.name`; none is in the instance's __dict__, so
    Python falls through to nn.Module.__getattr__, a Python function walking those dicts:
    0.6 us a read, where the property takes 0.06.  BERT's forward reads 46 (its batch-1
    forward lowered on device npu 337 -> 288 us, 2026-12-05).  The property reads the dict
    each time, so a buffer replaced by `.to()`, `load_state_dict` or assignment reads as its
    new tensor; a name the dict no longer holds (deleted, or made a plain attribute) is
    looked up as nn.Module looks it up.  Names the class already defines are left alone (the
    class attribute is what `self.name` finds there today), and a copy or an unpickled
    module is a new GraphModule of a new class: the same numbers through nn.Module's
    lookup."""
    for module in _graph_modules(gm):
        cls = type(module)
        for node in module.graph.nodes:
            if node.op not in ("get_attr", "call_module") or "." in node.target \
                    or hasattr(cls, node.target):
                continue
            store = next((s for s in _STORES if node.target in module.__dict__[s]), None)
            if store is not None:
                setattr(cls, node.target, _read_from(store, node.target))


def _graph_modules(gm: fx.GraphModule):
    """gm and its control-flow submodules: each GraphModule, each of a class of its own."""
    return (m for m in gm.modules() if isinstance(m, fx.GraphModule))


def _read_from(store: str, name: str) -> property:
    """`name` read from nn.Module's dict `store`.  Set and delete only meet the property where
    nn.Module hands them to object (a value that is not a tensor, parameter or module, or a
    name it no longer files): such a value lives in the instance __dict__, as without it."""
    def read(self):
        try:
            return self.__dict__[store][name]
        except KeyError:
            return _looked_up(self, name)

    def set_(self, value):
        self.__dict__[name] = value

    def delete(self):
        if name not in self.__dict__:
            raise AttributeError(name)
        del self.__dict__[name]

    read.__name__ = name
    return property(read, set_, delete,
                    f"`{name}`, read from the module's {store} (module_class.py)")


def _looked_up(module, name):
    """`module.name` as nn.Module finds it where no property stands in the way: the instance
    __dict__ (a plain attribute set after the buffer was deleted), else nn.Module.__getattr__
    (a parameter, a buffer or a submodule of that name; AttributeError if none)."""
    if name in module.__dict__:
        return module.__dict__[name]
    return torch.nn.Module.__getattr__(module, name)
