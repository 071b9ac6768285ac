"""Containers: modules that hold other modules, or parameters, in a list or a dict.

A container is an ordinary Module whose members have generated names. Sequential and
ModuleList name their children "0", "1", ... so a state_dict key such as ``"2.weight"``
says where a layer sits; after a deletion or an insertion the names are rebuilt so they
keep saying it. ParameterList / ParameterDict file their entries as parameters, so
``model.parameters()`` (and so the optimiser) finds them.
"""
from __future__ import annotations

import operator
from collections import OrderedDict
from collections.abc import Iterable, Mapping
from itertools import groupby

from ..._tensor import Tensor
from ..parameter import Parameter
from .module import Module, _indent, _typename

__all__ = ["Sequential", "ModuleList", "ModuleDict", "ParameterList", "ParameterDict"]


def _position(container, idx) -> int:
    """``idx`` (possibly negative) as a position in ``container``, or an IndexError naming the valid range."""
    n = len(container)
    idx = operator.index(idx)
    if not -n <= idx < n:
        valid = f"valid: {-n} to {n - 1}" if n else "it is empty"
        raise IndexError(f"index {idx} is out of range for {type(container).__name__} of length {n} ({valid})")
    return idx % n


def _pairs(kind: str, entries):
    """The (key, value) pairs of a mapping, or of an iterable of 2-item entries (the forms ``update`` accepts)."""
    if not isinstance(entries, Iterable):
        raise TypeError(f"{kind}.update should be called with an iterable of key/value pairs, but got "
                        f"{type(entries).__name__}")
    if isinstance(entries, (Mapping, ModuleDict, ParameterDict)):
        return list(entries.items())
    pairs = []
    for j, entry in enumerate(entries):
        if not isinstance(entry, Iterable):
            raise TypeError(f"{kind} update sequence element #{j} should be Iterable; is {type(entry).__name__}")
        entry = tuple(entry)
        if len(entry) != 2:
            raise ValueError(f"{kind} update sequence element #{j} has length {len(entry)}; 2 is required "
                             "(a (key, value) pair)")
        pairs.append(entry)
    return pairs


class _NumberedModules(Module):
    """What Sequential and ModuleList share: children addressed by position."""

    def _name_at(self, idx) -> str:
        return list(self._modules)[_position(self, idx)]

    def _renumber(self, modules) -> None:
        self._modules = {str(i): m for i, m in enumerate(modules)}

    def __len__(self) -> int:
        return len(self._modules)

    def __iter__(self):
        return iter(self._modules.values())

    def __dir__(self):
        return [name for name in super().__dir__() if not name.isdigit()]

    def __getitem__(self, idx):
        if isinstance(idx, slice):
            return self._slice(idx)
        return self._modules[self._name_at(idx)]

    def __setitem__(self, idx: int, module: Module) -> None:
        setattr(self, self._name_at(idx), module)

    def __delitem__(self, idx) -> None:
        names = list(self._modules)[idx] if isinstance(idx, slice) else [self._name_at(idx)]
        for name in names:
            delattr(self, name)
        self._renumber(self._modules.values())

    def pop(self, key):
        """Remove the module at index ``key`` and return it; the rest are renumbered from 0."""
        module = self[key]
        del self[key]
        return module

    def append(self, module: Module):
        """Add ``module`` at the end (named by its index); returns ``self``."""
        self.add_module(str(len(self)), module)
        return self

    def extend(self, modules):
        """Append every module of the iterable ``modules`` (TypeError if it is not iterable); returns ``self``."""
        if not isinstance(modules, Iterable):
            raise TypeError(f"{type(self).__name__}.extend should be called with an iterable, but got "
                            f"{type(modules).__name__}")
        for module in list(modules):  # list(): extending a container by itself must terminate
            self.append(module)
        return self

    def insert(self, index: int, module: Module):
        """Insert ``module`` before position ``index`` and renumber; returns ``self``."""
        if not isinstance(module, Module):
            raise AssertionError(f"module should be of type: {Module}, got {type(module).__name__}")
        n = len(self)
        if not -n <= index <= n:
            raise IndexError(f"Index out of range: {index} (insert accepts {-n} to {n})")
        modules = list(self._modules.values())
        modules.insert(index, module)
        self._renumber(modules)
        return self


class Sequential(_NumberedModules):
    """Layers applied one after another: ``Sequential(a, b)(x) == b(a(x))``.

    ``Sequential(OrderedDict(name=layer, ...))`` names the layers instead of numbering them.
    """

    def __init__(self, *args) -> None:
        super().__init__()
        named = len(args) == 1 and isinstance(args[0], OrderedDict)
        for name, module in (args[0].items() if named else ((str(i), m) for i, m in enumerate(args))):
            self.add_module(name, module)

    def _slice(self, idx: slice) -> "Sequential":
        return type(self)(OrderedDict(list(self._modules.items())[idx]))  # keeps the original names

    def forward(self, input: Tensor) -> Tensor:
        """Feed ``input`` through each module in order and return the last one's output.

        Shapes are whatever the chain of modules makes of them. Sequential records nothing of its own: the
        output's grad_fn is the last module's (e.g. ``ReluBackward0`` after a ReLU), with the earlier modules'
        nodes beneath it.
        """
        for module in self._modules.values():
            input = module(input)
        return input

    def _require_sequential(self, other) -> None:
        if not isinstance(other, Sequential):
            raise ValueError(f"add operator supports only objects of Sequential class, but {type(other)} is given. "
                             "Wrap the layers first: Sequential(*layers).")

    def __add__(self, other) -> "Sequential":
        self._require_sequential(other)
        return Sequential(*self, *other)

    def __iadd__(self, other) -> "Sequential":
        self._require_sequential(other)
        return self.extend(other)

    def __mul__(self, other: int) -> "Sequential":
        if not isinstance(other, int):
            raise TypeError(f"unsupported operand type(s) for *: {type(self)} and {type(other)}")
        if other <= 0:
            raise ValueError(f"Non-positive multiplication factor {other} for {type(self)}: repeat a Sequential "
                             "a positive number of times")
        return Sequential(*(list(self) * other))  # the same layer objects, repeated (shared weights)

    __rmul__ = __mul__


class ModuleList(_NumberedModules):
    """A Python list of modules that the parent module can see (so their parameters are registered)."""

    def __init__(self, modules=None) -> None:
        super().__init__()
        if modules is not None:
            self.extend(modules)

    def _slice(self, idx: slice) -> "ModuleList":
        return type(self)(list(self._modules.values())[idx])

    def __iadd__(self, modules) -> "ModuleList":
        return self.extend(modules)

    def __add__(self, other) -> "ModuleList":
        return ModuleList([*self, *other])

    def __repr__(self) -> str:
        """Runs of equal-looking children print once: ``(0-2): 3 x Linear(...)``, as torch prints them."""
        if not len(self):
            return f"{self._get_name()}()"
        lines, start = [], 0
        for text, run in groupby(repr(m) for m in self):
            count = len(list(run))
            end = start + count - 1
            line = f"({start}): {text}" if count == 1 else f"({start}-{end}): {count} x {text}"
            lines.append(_indent(line, 2))
            start = end + 1
        return f"{self._get_name()}(\n  " + "\n  ".join(lines) + "\n)"


class ModuleDict(Module):
    """A dict of modules that the parent module can see; keys keep their insertion order."""

    def __init__(self, modules=None) -> None:
        super().__init__()
        if modules is not None:
            self.update(modules)

    def __getitem__(self, key: str) -> Module:
        return self._modules[key]

    def __setitem__(self, key: str, module: Module) -> None:
        self.add_module(key, module)

    def __delitem__(self, key: str) -> None:
        del self._modules[key]

    def __len__(self) -> int:
        return len(self._modules)

    def __iter__(self):
        return iter(self._modules)

    def __contains__(self, key: str) -> bool:
        return key in self._modules

    def keys(self):
        """The names of the modules, in insertion order."""
        return self._modules.keys()

    def items(self):
        """``(name, module)`` pairs, in insertion order."""
        return self._modules.items()

    def values(self):
        """The modules, in insertion order."""
        return self._modules.values()

    def clear(self) -> None:
        """Remove every module."""
        self._modules.clear()

    def pop(self, key: str) -> Module:
        """Remove the module called ``key`` and return it (KeyError if absent)."""
        return self._modules.pop(key)

    def update(self, modules) -> None:
        """Add or replace modules from a mapping or an iterable of ``(name, module)`` pairs."""
        for key, module in _pairs("ModuleDict", modules):
            self[key] = module


def _entry_line(key, value, tensor_type) -> str:
    """One line of a ParameterList / ParameterDict repr."""
    if not isinstance(value, Tensor):
        return f"  ({key}): Object of type: {type(value).__name__}"
    kind = "Parameter" if isinstance(value, Parameter) else "Tensor"
    size = "x".join(str(s) for s in value.shape)
    return f"  ({key}): {kind} containing: [{tensor_type(value)} of size {size}]"


def _as_parameter(value):
    # plain tensors become Parameters so that they are registered (and trained)
    return Parameter(value) if isinstance(value, Tensor) and not isinstance(value, Parameter) else value


class ParameterList(Module):
    """A list of parameters; plain tensors put in are wrapped as Parameters. It holds values, it computes nothing."""

    def __init__(self, values=None) -> None:
        super().__init__()
        self._size = 0
        if values is not None:
            self.extend(values)

    def __len__(self) -> int:
        return self._size

    def __iter__(self):
        return (self[i] for i in range(len(self)))

    def __dir__(self):
        return [name for name in super().__dir__() if not name.isdigit()]

    def __getitem__(self, idx):
        if isinstance(idx, slice):
            return type(self)([self[i] for i in range(len(self))[idx]])
        return getattr(self, str(_position(self, idx)))

    def __setitem__(self, idx: int, param) -> None:
        setattr(self, str(_position(self, idx)), _as_parameter(param))

    def __iadd__(self, parameters) -> "ParameterList":
        return self.extend(parameters)

    def append(self, value) -> "ParameterList":
        """Add ``value`` at the end (a tensor that is not a Parameter is wrapped in one); returns ``self``."""
        self._size += 1
        self[self._size - 1] = value
        return self

    def extend(self, values) -> "ParameterList":
        """Append every value of the iterable ``values``; returns ``self``."""
        if not isinstance(values, Iterable) or isinstance(values, Tensor):
            raise TypeError(f"ParameterList.extend should be called with an iterable, but got "
                            f"{type(values).__name__} (to add one tensor, use append)")
        for value in values:
            self.append(value)
        return self

    def extra_repr(self) -> str:
        return "\n".join(_entry_line(i, p, lambda t: repr(t.dtype)) for i, p in enumerate(self))

    def __call__(self, *args, **kwargs):
        raise RuntimeError("ParameterList should not be called. It only stores parameters: index it, or iterate "
                           "over it, inside your own forward().")


class ParameterDict(Module):
    """A dict of parameters (string keys); plain tensors put in are wrapped as Parameters."""

    def __init__(self, parameters=None) -> None:
        super().__init__()
        self._keys: dict = {}  # the keys in order (the values live in the module's tables)
        if parameters is not None:
            self.update(parameters)

    @staticmethod
    def _checked(key) -> str:
        if not isinstance(key, str):
            raise TypeError("Index given to ParameterDict cannot be used as a key as it is not a string (type is "
                            f"'{type(key).__name__}'): the keys become attribute names, so they must be strings.")
        return key

    def __getitem__(self, key: str):
        return getattr(self, self._checked(key))

    def __setitem__(self, key: str, value) -> None:
        self._keys[key] = None
        setattr(self, self._checked(key), _as_parameter(value))

    def __delitem__(self, key: str) -> None:
        del self._keys[key]
        delattr(self, self._checked(key))

    def __len__(self) -> int:
        return len(self._keys)

    def __iter__(self):
        return iter(self._keys)

    def __reversed__(self):
        return reversed(self._keys)

    def __contains__(self, key: str) -> bool:
        return key in self._keys

    def keys(self):
        """The parameter names, in insertion order."""
        return self._keys.keys()

    def items(self):
        """``(name, parameter)`` pairs, in insertion order."""
        return ((k, self[k]) for k in self._keys)

    def values(self):
        """The parameters, in insertion order."""
        return (self[k] for k in self._keys)

    def get(self, key: str, default=None):
        """The parameter called ``key``, or ``default`` if there is none."""
        return self[key] if key in self else default

    def setdefault(self, key: str, default=None):
        """The parameter called ``key``; if absent, first store ``default`` under that name."""
        if key not in self:
            self[key] = default
        return self[key]

    def pop(self, key: str):
        """Remove the parameter called ``key`` and return it (KeyError if absent)."""
        value = self[key]
        del self[key]
        return value

    def popitem(self):
        """Remove and return the last inserted ``(name, parameter)`` pair."""
        key = next(reversed(self._keys))
        return key, self.pop(key)

    def clear(self) -> None:
        """Remove every parameter."""
        for key in list(self._keys):
            del self[key]

    def copy(self) -> "ParameterDict":
        """A new ParameterDict holding the same parameter objects (not copies of their values)."""
        return ParameterDict(OrderedDict(self.items()))

    def fromkeys(self, keys, default=None) -> "ParameterDict":
        """A new ParameterDict with each of ``keys`` mapped to ``default``."""
        return ParameterDict((k, default) for k in keys)

    def update(self, parameters) -> None:
        """Add or replace entries from a mapping or an iterable of ``(name, value)`` pairs."""
        pairs = _pairs("ParameterDict", parameters)
        if isinstance(parameters, Mapping) and not isinstance(parameters, OrderedDict):
            pairs.sort(key=lambda kv: kv[0])  # a plain dict is taken in key order, as torch does
        for key, value in pairs:
            self[key] = value

    def extra_repr(self) -> str:
        return "\n".join(_entry_line(k, p, _typename) for k, p in self.items())

    def __call__(self, input):
        raise RuntimeError("ParameterDict should not be called. It only stores parameters: look them up by key "
                           "inside your own forward().")

    def __or__(self, other: "ParameterDict") -> "ParameterDict":
        merged = self.copy()
        merged.update(other)
        return merged

    def __ror__(self, other: "ParameterDict") -> "ParameterDict":
        merged = other.copy()
        merged.update(self)
        return merged

    def __ior__(self, other: "ParameterDict") -> "ParameterDict":
        self.update(other)
        return self
