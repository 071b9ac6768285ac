"""Matrix products: mm, bmm, mv, dot, addmm (what nn.Linear records), and matmul's folding
into them, which follows torch so the recorded grad_fn names match."""
from __future__ import annotations

import math

import numpy as np

from .. import _dtype as D
from .._tensor import Tensor
from .registry import apply, apply_simple, composite_result, defop, forward_xp, records
from .shape import EXPAND
from .unsigned import refuse_unsigned
from .._autocast_ops import CPU as _AUTOCAST_CPU, lower_precision

# (every formula conjugates the saved operands it multiplies g by: torch's rule for complex
# tensors, a no-op returning the same object for real ones)
# The products inside mm's backward, g @ mat2^T and mat1^T @ g. On arrays each is one BLAS call with
# the transpose folded in (no transposed view built per backward); on Tensors (a double backward)
# they are torch's own spelling, mm with a .t(), so the graph shows the TBackward0 nodes torch's does.
_MM_NT = defop("MmBackward0", lambda xp, a, b: xp.matmul(a, b.T), n_in=2)
_MM_TN = defop("MmBackward0", lambda xp, a, b: xp.matmul(a.T, b), n_in=2)


def mm_nt(xp, a, b):
    """``a @ b^T`` for a formula (see above)."""
    return xp.apply(MM, a, xp.swap_last(b)) if xp.tensors else xp.apply(_MM_NT, a, b)


def mm_tn(xp, a, b):
    """``a^T @ b`` for a formula (see above)."""
    return xp.apply(MM, xp.swap_last(a), b) if xp.tensors else xp.apply(_MM_TN, a, b)


def _mat2_grad(xp, g, mat1, mat2):
    """The gradient of ``mat1 @ mat2`` in ``mat2``, laid out as ``mat2`` is (torch's rule): for a
    transposed ``mat2`` (``nn.Linear``'s ``weight.t()``) it is ``(g^T mat1)^T``, so after
    TBackward0 the weight's gradient is a contiguous buffer ``.grad`` can adopt, not one to copy."""
    m2 = xp.data(mat2)
    if m2.ndim == 2 and m2.strides[0] == m2.itemsize and m2.strides[1] == m2.itemsize * m2.shape[0]:
        return xp.swap_last(mm_tn(xp, g, xp.conj(mat1)))
    return mm_tn(xp, xp.conj(mat1), g)


MM = defop("MmBackward0", lambda xp, a, b: xp.matmul(a, b),
           (lambda xp, g, self, mat2: mm_nt(xp, g, xp.conj(mat2)),
            lambda xp, g, self, mat2: _mat2_grad(xp, g, self, mat2)),
           saved=("self", "input1"), n_in=2)
MM.node_cls._saved_names = ("self", "mat2")
BMM = defop("BmmBackward0", lambda xp, a, b: xp.matmul(a, b),
            (lambda xp, g, self, mat2: xp.apply(BMM, g, xp.conj(xp.swapaxes(mat2, 1, 2))),
             lambda xp, g, self, mat2: xp.apply(BMM, xp.conj(xp.swapaxes(self, 1, 2)), g)),
            saved=("self", "input1"), n_in=2)
BMM.node_cls._saved_names = ("self", "mat2")
MV = defop("MvBackward0", lambda xp, a, v: xp.matmul(a, v),
           (lambda xp, g, self, vec: xp.expand_dims(g, 1) * xp.expand_dims(xp.conj(vec), 0),
            lambda xp, g, self, vec: xp.apply(MV, xp.conj(xp.swap_last(self)), g)),
           saved=("self", "input1"), n_in=2)
MV.node_cls._saved_names = ("self", "vec")
DOT = defop("DotBackward0", lambda xp, a, b: xp.dot(a, b),
            (lambda xp, g, self, tensor: g * xp.conj(tensor), lambda xp, g, self, tensor: g * xp.conj(self)),
            saved=("self", "input1"),
            n_in=2)
DOT.node_cls._saved_names = ("self", "tensor")
VDOT = defop("VdotBackward0", lambda xp, a, b: xp.vdot(a, b),
             (lambda xp, g, self, other: xp.conj(g) * other, lambda xp, g, self, other: g * self),
             saved=("self", "input1"), n_in=2)
VDOT.node_cls._saved_names = ("self", "other")


def _addmm_fwd(xp, bias, a, b, beta, alpha):
    out = xp.matmul(a, b)
    if alpha != 1:
        out *= alpha
    out += bias if beta == 1 else beta * bias
    return out


ADDMM = defop("AddmmBackward0", _addmm_fwd,
              (lambda xp, g, mat1, mat2, beta, alpha: _scaled(xp, g, beta),
               lambda xp, g, mat1, mat2, beta, alpha: _scaled(xp, mm_nt(xp, g, xp.conj(mat2)), alpha),
               lambda xp, g, mat1, mat2, beta, alpha: _scaled(xp, _mat2_grad(xp, g, mat1, mat2), alpha)),
              saved=("input1", "input2", "beta", "alpha"), n_in=3)
ADDMM.node_cls._saved_names = ("mat1", "mat2", "beta", "alpha")


def _scaled(xp, t, s):
    """``t * s`` for a number ``s`` (addmm's beta, alpha); on Tensors recorded as torch's C++
    formula multiplies by a number, a MulBackward1."""
    if s == 1:
        return t
    if xp.tensors:
        from .nn_ops import MUL_SCALAR
        return xp.apply(MUL_SCALAR, t, params=(s,))
    return t * s


def _same_dtype(a: Tensor, b: Tensor, name: str) -> None:
    if a._data.dtype != b._data.dtype:
        raise RuntimeError(f"expected m1 and m2 to have the same dtype, but got: {a.dtype.name.capitalize()} != "
                           f"{b.dtype.name.capitalize()} (in {name}). Convert one with .to(other.dtype).")


def mm(input: Tensor, mat2: Tensor) -> Tensor:
    if _AUTOCAST_CPU[0] is not None:  # (a CPU autocast region: _autocast_ops.py)
        return lower_precision(mm, input, mat2)
    if input._data.ndim != 2 or mat2._data.ndim != 2:
        raise RuntimeError(f"{'self' if input._data.ndim != 2 else 'mat2'} must be a matrix")
    _check_mm_shapes(input, mat2)
    _same_dtype(input, mat2, "mm")
    return apply(MM, (input, mat2))


def _check_mm_shapes(input: Tensor, mat2: Tensor) -> None:
    if input._data.shape[1] != mat2._data.shape[0]:
        raise RuntimeError(
            f"mat1 and mat2 shapes cannot be multiplied ({input._data.shape[0]}x{input._data.shape[1]} and "
            f"{mat2._data.shape[0]}x{mat2._data.shape[1]})")


def bmm(input: Tensor, mat2: Tensor) -> Tensor:
    if _AUTOCAST_CPU[0] is not None:
        return lower_precision(bmm, input, mat2)
    if input._data.ndim != 3 or mat2._data.ndim != 3:
        raise RuntimeError(f"batch1 must be a 3D tensor")
    if input._data.shape[0] != mat2._data.shape[0] or input._data.shape[2] != mat2._data.shape[1]:
        raise RuntimeError(
            f"Expected size for first two dimensions of batch2 tensor to be: [{input._data.shape[0]}, "
            f"{input._data.shape[2]}] but got: [{mat2._data.shape[0]}, {mat2._data.shape[1]}].")
    _same_dtype(input, mat2, "bmm")
    return apply(BMM, (input, mat2))


def mv(input: Tensor, vec: Tensor) -> Tensor:
    if input._data.ndim != 2 or vec._data.ndim != 1 or input._data.shape[1] != vec._data.shape[0]:
        raise RuntimeError(f"size mismatch, got input ({input._data.shape[0]}), mat "
                           f"({'x'.join(map(str, input._data.shape))}), vec ({vec._data.shape[0]})")
    _same_dtype(input, vec, "mv")
    return apply(MV, (input, vec))


def _check_vectors(input: Tensor, tensor: Tensor) -> None:
    """dot's and vdot's argument checks, in torch's words."""
    if input._data.ndim != 1 or tensor._data.ndim != 1:
        raise RuntimeError(f"1D tensors expected, but got {input._data.ndim}D and {tensor._data.ndim}D tensors")
    if input._data.shape != tensor._data.shape:
        raise RuntimeError(f"inconsistent tensor size, expected tensor [{input._data.shape[0]}] and src "
                           f"[{tensor._data.shape[0]}] to have the same number of elements, but got "
                           f"{input._data.shape[0]} and {tensor._data.shape[0]} elements respectively")
    if input._data.dtype != tensor._data.dtype:
        raise RuntimeError(f"dot : expected both vectors to have same dtype, but found "
                           f"{D.scalar_type_name(input.dtype)} and {D.scalar_type_name(tensor.dtype)}. Convert one "
                           "with .to(other.dtype).")


def dot(input: Tensor, tensor: Tensor) -> Tensor:
    _check_vectors(input, tensor)
    return apply(DOT, (input, tensor))


def vdot(input: Tensor, other: Tensor) -> Tensor:
    """The dot product with ``input`` conjugated (the same as dot for real tensors, its own node)."""
    _check_vectors(input, other)
    return apply(VDOT, (input, other))


def inner(input: Tensor, other: Tensor) -> Tensor:
    """Sum over the last dims: ``input.shape[:-1] + other.shape[:-1]``, as torch's tensordot-based inner."""
    if input._data.ndim == 0 or other._data.ndim == 0:
        return input * other
    sa, sb = input._data.shape, other._data.shape
    if sa[-1] != sb[-1]:
        raise RuntimeError(f"inner() the last dimension must match on both input tensors but got shapes {list(sa)} "
                           f"and {list(sb)}: inner sums over the last dim of each.")
    if input._data.dtype != other._data.dtype:
        raise RuntimeError(f"both inputs should have same dtype, but got {input.dtype} and {other.dtype}. Convert "
                           "one with .to(other.dtype).")
    if len(sa) == len(sb) == 1:
        refuse_unsigned(input.dtype, "dot")  # (uint16/32/64: torch's inner of vectors is a dot; see unsigned.py)
    k = sa[-1]
    out = mm(input.reshape(-1, k), other.reshape(-1, k).t())  # (one BLAS call, as torch's tensordot)
    return out.view(sa[:-1] + sb[:-1])


def addmm(input: Tensor, mat1: Tensor, mat2: Tensor, *, beta=1, alpha=1) -> Tensor:
    if _AUTOCAST_CPU[0] is not None:
        return lower_precision(addmm, input, mat1, mat2, beta=beta, alpha=alpha)
    if mat1._data.shape[1] != mat2._data.shape[0]:
        raise RuntimeError(
            f"mat1 and mat2 shapes cannot be multiplied ({mat1._data.shape[0]}x{mat1._data.shape[1]} and "
            f"{mat2._data.shape[0]}x{mat2._data.shape[1]})")
    _same_dtype(mat1, mat2, "addmm")
    return apply(ADDMM, (input, mat1, mat2), (beta, alpha))


def outer(input: Tensor, vec2: Tensor) -> Tensor:
    for name, t in (("self", input), ("vec2", vec2)):
        if t._data.ndim != 1:
            raise RuntimeError(f"outer: Expected 1-D argument {name}, but got {t._data.ndim}-D")
    return input.reshape(-1, 1) * vec2


ger = outer


def matmul(input: Tensor, other: Tensor) -> Tensor:
    """torch.matmul, folded into dot/mv/mm/bmm exactly where torch folds it."""
    if _AUTOCAST_CPU[0] is not None:
        return lower_precision(matmul, input, other)
    if not isinstance(input, Tensor) or not isinstance(other, Tensor):
        raise TypeError(f"matmul(): argument 'other' must be Tensor, not {type(other).__name__}")
    da, db = input._data.ndim, other._data.ndim
    if da == 0 or db == 0:
        raise RuntimeError(f"both arguments to matmul need to be at least 1D, but they are {da}D and {db}D")
    if input._data.dtype != other._data.dtype:
        raise RuntimeError(f"expected m1 and m2 to have the same dtype, but got: {input.dtype.name.capitalize()} != "
                           f"{other.dtype.name.capitalize()}")
    if da == 1 and db == 1:
        return dot(input, other)
    if da == 2 and db == 1:
        return mv(input, other)
    if da == 1 and db == 2:
        from .shape import SQUEEZE_MATMUL
        return apply(SQUEEZE_MATMUL, (mm(input.unsqueeze(0), other),), ((0,),))
    if da == 2 and db == 2:  # mm, whose rank and dtype checks were just made
        if input._data.shape[1] != other._data.shape[0]:
            _check_mm_shapes(input, other)  # (raises)
        return apply_simple(MM, input, other)
    if da >= 3 and db <= 2:
        # fold the batch into the rows: one BLAS call
        lead = input._data.shape[:-1]
        k = input._data.shape[-1]
        if db == 1:
            out = mv(input.reshape(-1, k), other)
            return _unsafe_view(out, lead)
        _check_inner(input, other)
        # (no graph recorded: the steps below at once, on the arrays)
        if input._data.size and not records(input, other) and _plain(input._data) and _plain(other._data):
            return _folded_untracked(input, other, lead)
        out = mm(input.reshape(-1, k), other)
        return _unsafe_view(out, lead + (other._data.shape[-1],))
    # general batched case: broadcast batch dims, run one bmm
    a = input.unsqueeze(0) if da == 1 else input
    b = other.unsqueeze(-1) if db == 1 else other
    _check_inner(a, b)
    batch = a._data.shape[:-2]
    if b._data.shape[:-2] != batch:  # (NumPy's broadcast_shapes is a Python function: ~10 us)
        batch = np.broadcast_shapes(batch, b._data.shape[:-2])
    n, k = a._data.shape[-2:]
    m = b._data.shape[-1]
    nb = math.prod(batch)
    # (no graph recorded: the steps below at once, on the arrays)
    if da >= 2 and db >= 2 and not records(input, other) and _plain(input._data) and _plain(other._data):
        x, y = input._data, other._data
        xp = forward_xp(x)
        if x.shape[:-2] != batch:
            x = EXPAND.forward(xp, x, batch + (n, k))
        if y.shape[:-2] != batch:
            y = EXPAND.forward(xp, y, batch + (k, m))
        out = BMM.forward(xp, x.reshape(nb, n, k), y.reshape(nb, k, m))  # (reshape: a view, else a copy)
        return composite_result(out.reshape(batch + (n, m)), BMM, (input, other), (_EXPANDED, _EXPANDED))
    a3 = a.expand(batch + (n, k)).reshape(nb, n, k)
    b3 = b.expand(batch + (k, m)).reshape(nb, k, m)
    out = _unsafe_view(bmm(a3, b3), batch + (n, m))
    if da == 1:
        out = out.squeeze(-2)
    if db == 1:
        out = out.squeeze(-1)
    return out


_EXPANDED = "ExpandBackward0"  # (the step each operand of a batched matmul passes through first)


def _reshaped_as(x, shape: tuple) -> tuple:
    """``Tensor.reshape``'s two steps on an array: (the array, the step's name): a view where one
    can be made, else a copy (clone, then a reshape of the copy)."""
    try:
        return x.reshape(shape, copy=False), "ViewBackward0"
    except ValueError:
        return x.reshape(shape), "CloneBackward0"


def _folded_untracked(input: Tensor, other: Tensor, lead: tuple) -> Tensor:
    """``matmul``'s batch-folded case (``input.reshape(-1, k)``, ``mm``, ``_unsafe_view``) when it
    records nothing: the same forwards on the arrays (see ``registry.records``)."""
    x = input._data
    xp = forward_xp(x)
    x2, step = _reshaped_as(x, (x.size // x.shape[-1], x.shape[-1]))
    out = MM.forward(xp, x2, other._data)
    return composite_result(out.reshape(lead + (other._data.shape[-1],)), MM, (input, other), (step, None))


_T_STEP = "TBackward0"  # (linear's weight.t())


def _plain(x) -> bool:
    """An array whose forwards are NumPy's own: float32/64 or complex (16-bit floats round each
    step their own way, see _lowp.py, and keep the steps)."""
    return x.__class__ is np.ndarray and x.dtype.kind in "fc" and x.dtype.itemsize >= 4


def linear_untracked(input: Tensor, weight: Tensor, bias: Tensor | None):
    """``F.linear``'s steps (``addmm(bias, input, weight.t())``, with ``view`` around it for a batch
    of vectors, or ``matmul(input, weight.t())`` without a bias) on the arrays at once, for a call
    the caller has found records nothing (``registry.records``): an evaluation forward's every
    layer. None where one of the steps would refuse its input (so that it raises as it does)."""
    x, w = input._data, weight._data
    nd = x.ndim
    if (w.ndim != 2 or nd < 1 or not x.size or x.shape[-1] != w.shape[1] or not _plain(x) or not _plain(w)
            or w.dtype != x.dtype):
        return None
    if bias is not None:
        b = bias._data
        if (b.shape != (w.shape[0],) or b.dtype != x.dtype or b.__class__ is not np.ndarray
                or not (nd == 2 or x.flags.c_contiguous)):
            return None
        if nd == 2:
            out = ADDMM.forward(forward_xp(b), b, x, w.T, 1, 1)
            return composite_result(out, ADDMM, (bias, input, weight), (None, None, _T_STEP))
        out = ADDMM.forward(forward_xp(b), b, x.reshape((x.size // x.shape[-1], x.shape[-1]), copy=False), w.T, 1, 1)
        return composite_result(out.reshape(x.shape[:-1] + (w.shape[0],), copy=False), ADDMM,
                                (bias, input, weight), (None, "ViewBackward0", _T_STEP), view_of=out)
    if nd < 2:
        return None
    if nd == 2:
        out = MM.forward(forward_xp(x), x, w.T)
        return composite_result(out, MM, (input, weight), (None, _T_STEP))
    x2, step = _reshaped_as(x, (x.size // x.shape[-1], x.shape[-1]))
    out = MM.forward(forward_xp(x), x2, w.T)
    return composite_result(out.reshape(x.shape[:-1] + (w.shape[0],)), MM, (input, weight), (step, _T_STEP))


def _check_inner(a: Tensor, b: Tensor) -> None:
    ka = a._data.shape[-1]
    kb = b._data.shape[-2] if b._data.ndim >= 2 else b._data.shape[0]
    if ka != kb:
        sa = "x".join(map(str, a._data.shape[-2:] if a._data.ndim >= 2 else a._data.shape))
        raise RuntimeError(f"mat1 and mat2 shapes cannot be multiplied ({int(np.prod(a._data.shape[:-1]))}x{ka} and "
                           f"{kb}x{b._data.shape[-1]})" if sa else "shape mismatch")


def _unsafe_view(t: Tensor, shape) -> Tensor:
    from .shape import UNSAFE_VIEW
    return apply(UNSAFE_VIEW, (t,), (tuple(shape),))


def _take_diagonals(t: Tensor, term: str, k: int) -> tuple:
    """A letter repeated within one operand ('ii', 'iij') indexes its diagonal: take it, once per repeat.
    ``diagonal`` drops the two dims and appends the diagonal last, so the letter moves to the end."""
    while len(set(term)) != len(term):
        c = next(ch for ch in term if term.count(ch) > 1)
        p = term.index(c)
        q = term.index(c, p + 1)
        if t._data.shape[p] != t._data.shape[q]:
            raise RuntimeError(f"einsum(): subscript {c} is repeated for operand {k} but the sizes don't match, "
                               f"{t._data.shape[p]} != {t._data.shape[q]}. A repeated subscript takes a diagonal, "
                               "so both dims need the same size.")
        t = t.diagonal(0, p, q)
        term = term[:p] + term[p + 1:q] + term[q + 1:] + c
    return t, term


def einsum(equation: str, *operands) -> Tensor:
    """Two-operand einsum through matmul-free broadcasting (differentiable via mul + sum)."""
    if len(operands) == 1 and isinstance(operands[0], (list, tuple)):
        operands = tuple(operands[0])
    lhs, _, rhs = equation.replace(" ", "").partition("->")
    terms = lhs.split(",")
    if len(terms) != len(operands):
        raise RuntimeError("einsum(): more operands were provided than specified in the equation")
    seen: dict = {}
    pos = 0
    for k, term in enumerate(terms):  # torch's checks: letters only, one size per letter
        for c in term:
            if not c.isascii() or not c.isalpha():
                raise RuntimeError(f"einsum(): invalid subscript given at index {pos} in the equation string, "
                                   "subscripts must be in [a-zA-Z]")
            pos += 1
        pos += 1  # (the comma)
        t = operands[k]
        if len(term) == t._data.ndim:
            mine = dict(zip(term, t._data.shape))  # (a letter repeated within one operand: a diagonal, checked later)
            for c, n in mine.items():
                if c in seen and n != seen[c] and n != 1 and seen[c] != 1:
                    raise RuntimeError(f"einsum(): subscript {c} has size {n} for operand {k} which does not "
                                       f"broadcast with previously seen size {seen[c]}")
            for c, n in mine.items():
                if c not in seen or seen[c] == 1:
                    seen[c] = n
    letters = sorted(set("".join(terms)))
    if not _:
        rhs = "".join(c for c in letters if lhs.count(c) == 1)
    out_letters = list(rhs)
    if any(t.dtype in D._UNSIGNED_WIDE for t in operands) and any(
            c not in out_letters and sum(c in term for term in terms) > 1 for c in letters):
        # (uint16/32/64: torch contracts a letter shared by two operands with bmm, which has no kernel for them)
        refuse_unsigned(next(t.dtype for t in operands if t.dtype in D._UNSIGNED_WIDE), "bmm")
    all_letters = out_letters + [c for c in letters if c not in out_letters]
    prod = None
    for k, (term, t) in enumerate(zip(terms, operands)):
        t, term = _take_diagonals(t, term, k)
        perm = sorted(range(len(term)), key=lambda i: all_letters.index(term[i]))
        x = t.permute(perm) if perm != list(range(len(term))) else t
        present = [term[i] for i in perm]
        shape = []
        j = 0
        for c in all_letters:
            if j < len(present) and present[j] == c:
                shape.append(x._data.shape[j])
                j += 1
            else:
                shape.append(1)
        x = x.reshape(shape)
        prod = x if prod is None else prod * x
    red = tuple(range(len(out_letters), len(all_letters)))
    return prod.sum(red) if red else prod
