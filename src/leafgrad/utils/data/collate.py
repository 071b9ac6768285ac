"""How a list of samples becomes one batch (``default_collate``), and how one sample becomes tensors
(``default_convert``, used when ``batch_size=None``). The rules are torch's:

* tensors are stacked along a new first dim; NumPy arrays and NumPy scalars become tensors first;
* Python floats become a float64 tensor, ints an int64 tensor, bools a bool tensor;
* strings and bytes are left as a list;
* containers are handled field by field, so a batch has the shape of one sample: a dict of
  batches for dict samples, a namedtuple of batches for namedtuples, and a *list* of
  batches for tuple samples (torch returns a list there, and so do we).

Which function handles which leaf type is the table ``default_collate_fn_map``; pass your
own table to :func:`collate` to batch other types.
"""
from __future__ import annotations

import copy
from collections.abc import Mapping, MutableMapping, MutableSequence, Sequence
from typing import Callable

import numpy as np

from ... import Tensor, as_tensor, float64, stack, tensor

__all__ = ["collate", "default_collate", "default_convert", "default_collate_fn_map"]

_UNBATCHABLE = "default_collate: batch must contain tensors, numpy arrays, numbers, dicts or lists; found {}"


def _is_text_or_object_array(array: np.ndarray) -> bool:
    # strings (S, a, U) and Python objects (O) have no tensor dtype
    return array.dtype.kind in "SaUO"


def _like_mapping(template: Mapping, items: dict):
    """``items`` in a mapping of ``template``'s type (a shallow copy keeps a subclass's extra attributes)."""
    try:
        if isinstance(template, MutableMapping):
            clone = copy.copy(template)
            clone.update(items)
            return clone
        return type(template)(items)
    except TypeError:  # a type that cannot be built from a dict
        return items


def _like_sequence(template: Sequence, items: list):
    """``items`` in a sequence of ``template``'s type; a plain list if that type cannot be built."""
    try:
        if isinstance(template, MutableSequence):
            clone = copy.copy(template)
            for i, item in enumerate(items):
                clone[i] = item
            return clone
        return type(template)(items)
    except TypeError:
        return items


def _is_namedtuple(obj) -> bool:
    return isinstance(obj, tuple) and hasattr(obj, "_fields")


def default_convert(data):
    """NumPy arrays and scalars (also inside dicts, lists, tuples) as tensors, without adding a batch dim."""
    if isinstance(data, Tensor):
        return data
    if type(data).__module__ == "numpy" and not isinstance(data, np.str_):
        if isinstance(data, np.ndarray) and _is_text_or_object_array(data):
            return data
        return as_tensor(data)
    if isinstance(data, Mapping):
        return _like_mapping(data, {key: default_convert(value) for key, value in data.items()})
    if _is_namedtuple(data):
        return type(data)(*map(default_convert, data))
    if isinstance(data, tuple):
        return [default_convert(d) for d in data]  # a list, as torch's
    if isinstance(data, Sequence) and not isinstance(data, (str, bytes)):
        return _like_sequence(data, [default_convert(d) for d in data])
    return data


def _handler(elem, collate_fn_map: dict | None):
    """The function ``collate_fn_map`` names for ``elem``'s type: the exact type first, then any base class."""
    if not collate_fn_map:
        return None
    if type(elem) in collate_fn_map:
        return collate_fn_map[type(elem)]
    return next((fn for kind, fn in collate_fn_map.items() if isinstance(elem, kind)), None)


def collate(batch, *, collate_fn_map: dict | None = None):
    """Batch ``batch`` (a list of samples of one structure): leaves by ``collate_fn_map``, containers field by field."""
    elem = batch[0]
    handler = _handler(elem, collate_fn_map)
    if handler is not None:
        return handler(batch, collate_fn_map=collate_fn_map)

    def recurse(samples):
        return collate(samples, collate_fn_map=collate_fn_map)

    if isinstance(elem, Mapping):
        return _like_mapping(elem, {key: recurse([sample[key] for sample in batch]) for key in elem})
    if _is_namedtuple(elem):
        return type(elem)(*map(recurse, zip(*batch)))
    if isinstance(elem, Sequence):
        if len({len(sample) for sample in batch}) > 1:
            raise RuntimeError("each element in list of batch should be of equal size (got lengths "
                               f"{[len(sample) for sample in batch]}); pad the samples or pass a collate_fn")
        fields = [recurse(field) for field in zip(*batch)]
        return fields if isinstance(elem, tuple) else _like_sequence(elem, fields)
    raise TypeError(_UNBATCHABLE.format(type(elem)) + "; give the DataLoader a collate_fn that batches it")


# ----------------------------------------------------------------------------- the leaf handlers
def collate_tensor_fn(batch, *, collate_fn_map: dict | None = None):
    return stack(batch, 0)


def collate_numpy_array_fn(batch, *, collate_fn_map: dict | None = None):
    if _is_text_or_object_array(batch[0]):
        raise TypeError(_UNBATCHABLE.format(batch[0].dtype))
    return collate([as_tensor(array) for array in batch], collate_fn_map=collate_fn_map)


def collate_numpy_scalar_fn(batch, *, collate_fn_map: dict | None = None):
    return as_tensor(np.asarray(batch))


def collate_float_fn(batch, *, collate_fn_map: dict | None = None):
    return tensor(batch, dtype=float64)


def collate_int_fn(batch, *, collate_fn_map: dict | None = None):
    return tensor(batch)


def collate_str_fn(batch, *, collate_fn_map: dict | None = None):
    return batch


default_collate_fn_map: dict[type | tuple[type, ...], Callable] = {
    Tensor: collate_tensor_fn,
    np.ndarray: collate_numpy_array_fn,
    (np.bool_, np.number, np.object_): collate_numpy_scalar_fn,
    float: collate_float_fn,
    int: collate_int_fn,
    str: collate_str_fn,
    bytes: collate_str_fn,
}


def default_collate(batch):
    """The DataLoader's default ``collate_fn``: stack a list of samples into one batch (rules in the module doc)."""
    return collate(batch, collate_fn_map=default_collate_fn_map)
