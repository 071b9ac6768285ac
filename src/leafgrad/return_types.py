"""torch.return_types: the named results of ops that return several tensors (``max(values, indices)``).

torch's are C "structseq" types, not ``collections.namedtuple``: a ``tuple`` subclass built from
*one* sequence (``torch.return_types.max((v, i))``), with read-only fields, ``n_fields``, no
``_fields``/``_asdict``, pickled as ``(cls, (tuple, {}))``, and shown as
``torch.return_types.max(\\nvalues=...,\\nindices=...)``. These classes are the same in all of
that, so code that unpacks, indexes, names fields or pickles the results runs unchanged.
The table lists torch 2.13's types, whether or not leafgrad has the op yet, so an op added later
returns the right type by name.
"""
from __future__ import annotations

import builtins

__all__ = ["all_return_types"]

_FIELDS = {
    "aminmax": ("min", "max"), "cummax": ("values", "indices"), "cummin": ("values", "indices"),
    "frexp": ("mantissa", "exponent"), "geqrf": ("a", "tau"), "histogram": ("hist", "bin_edges"),
    "histogramdd": ("hist", "bin_edges"), "kthvalue": ("values", "indices"), "linalg_cholesky_ex": ("L", "info"),
    "linalg_eig": ("eigenvalues", "eigenvectors"), "linalg_eigh": ("eigenvalues", "eigenvectors"),
    "linalg_inv_ex": ("inverse", "info"), "linalg_ldl_factor": ("LD", "pivots"),
    "linalg_ldl_factor_ex": ("LD", "pivots", "info"),
    "linalg_lstsq": ("solution", "residuals", "rank", "singular_values"), "linalg_lu": ("P", "L", "U"),
    "linalg_lu_factor": ("LU", "pivots"), "linalg_lu_factor_ex": ("LU", "pivots", "info"),
    "linalg_qr": ("Q", "R"), "linalg_slogdet": ("sign", "logabsdet"), "linalg_solve_ex": ("result", "info"),
    "linalg_svd": ("U", "S", "Vh"), "lu_unpack": ("P", "L", "U"), "max": ("values", "indices"),
    "median": ("values", "indices"), "min": ("values", "indices"), "mode": ("values", "indices"),
    "nanmedian": ("values", "indices"), "qr": ("Q", "R"), "slogdet": ("sign", "logabsdet"),
    "sort": ("values", "indices"), "svd": ("U", "S", "V"), "topk": ("values", "indices"),
    "triangular_solve": ("solution", "cloned_coefficient"),
}


class _StructSeq(tuple):
    """The shared behaviour of every return type (see the module docstring)."""

    __slots__ = ()
    n_fields = n_sequence_fields = 0
    n_unnamed_fields = 0
    _names: tuple = ()

    def __new__(cls, sequence=None, dict=None, **fields):
        if sequence is None:  # (torch's types take no field names as keywords either)
            raise TypeError("structseq() missing required argument 'sequence' (pos 1)")
        if fields:
            raise TypeError(f"structseq() got an unexpected keyword argument '{next(iter(fields))}'")
        try:
            items = tuple(sequence)
        except TypeError:
            raise TypeError("constructor requires a sequence") from None
        if dict is not None and not isinstance(dict, builtins.dict):
            raise TypeError(f"torch.return_types.{cls.__name__}() takes a dict as second arg, if any")
        if len(items) != cls.n_fields:
            raise TypeError(f"torch.return_types.{cls.__name__}() takes a {cls.n_fields}-sequence "
                            f"({len(items)}-sequence given)")
        return super().__new__(cls, items)

    def __repr__(self) -> str:
        body = ",\n".join(f"{n}={v!r}" for n, v in zip(self._names, self))
        return f"torch.return_types.{type(self).__name__}(\n{body})"

    __str__ = __repr__

    def __reduce__(self):
        return (type(self), (tuple(self), {}))


def _field(i: int, name: str) -> property:
    return property(lambda self: tuple.__getitem__(self, i), doc=f"field {i} ({name})")


def _make(name: str, fields: tuple) -> type:
    ns = {n: _field(i, n) for i, n in enumerate(fields)}
    ns.update(__slots__=(), n_fields=len(fields), n_sequence_fields=len(fields), _names=fields,
              __match_args__=fields, __module__=__name__, __qualname__=name)
    return type(name, (_StructSeq,), ns)


def __getattr__(name: str):
    # each type is made on first use (34 classes at import would cost `import leafgrad` a few percent)
    if name == "all_return_types":
        value = [__getattr__(n) for n in _FIELDS]
    elif name in _FIELDS:
        value = _make(name, _FIELDS[name])
    else:
        raise AttributeError(f"module 'leafgrad.return_types' has no attribute '{name}'")
    globals()[name] = value
    return value


__all__ += list(_FIELDS)
