"""uint16 / uint32 / uint64: every op torch 2.13's CPU has no kernel for refuses alike, and what it
supports still computes (``_unsigned_array.py``: these dtypes' data is a ``UIntArray``).

The sweeps run each case on torch and on leafgrad (``differential.same``): the same values and
dtypes, or exactly torch's exception class with its message's opening (``"add_stub" not
implemented for 'UInt32'``). The Tensor-method sweep calls every method that takes no argument, a
tensor, or a number on a 2-d tensor of each dtype, as a survey of what torch refuses.
"""
import copy
import io
import pickle

import numpy as np
import pytest
from differential import raises_exactly, same

import leafgrad as lg
from leafgrad._unsigned_array import SHELL_NP, UIntArray

torch = pytest.importorskip("torch")

UNSIGNED = ["uint16", "uint32", "uint64"]


def _u(m, name):
    return m.tensor([[3, 1, 2], [5, 0, 4]], dtype=getattr(m, name))


def _v(m, name):
    return m.tensor([1, 2, 3], dtype=getattr(m, name))


def _i(m, *values):
    return m.tensor(list(values))


# ----------------------------------------------------------------------------- the method sweep
# Tensor methods by how they are called: ``()``, ``(tensor of the same dtype)``, ``(2)``, ``(0)``.
NO_ARG = """abs abs_ absolute absolute_ acos acosh aminmax amax amin angle any all argmax argmin argsort argwhere
asin asinh atan atanh bitwise_not bitwise_not_ bool byte ceil char clone conj contiguous cos cosh count_nonzero
deg2rad detach diag diff digamma double erf erfc erfinv exp exp2 expm1 fix flatten fliplr flipud float
floor frac half int isfinite isinf isnan isneginf isposinf isreal i0 lgamma log log10 log1p log2 logical_not
logical_not_ long max mean median min mode msort nanmean nanmedian nansum neg neg_ negative negative_
nonzero norm numel positive prod rad2deg ravel reciprocal relu relu_ round rot90 rsqrt sgn sgn_ short sigmoid sign
sign_ signbit sin sinc sinh sort sqrt square square_ squeeze std sum t tan tanh tolist trace tril tril_ triu triu_
trunc unique var zero_""".split()
WITH_TENSOR = """add add_ sub sub_ subtract mul mul_ div true_divide eq ne lt le gt ge lt_ ge_ less greater_equal
maximum minimum fmax fmin pow pow_ logical_and logical_or logical_xor logical_and_ bitwise_and bitwise_or
bitwise_xor gcd gcd_ lcm heaviside clamp clamp_ clamp_min clamp_max clip atan2 hypot xlogy copysign nextafter
remainder fmod floor_divide equal allclose isclose cross dot""".split()
WITH_NUMBER = """add add_ sub sub_ rsub mul div eq ne lt le gt ge ne_ le_ pow pow_ clamp_min clamp_max clamp_
clamp_min_ fill_ remainder fmod floor_divide float_power bitwise_and bitwise_or bitwise_xor bitwise_left_shift
bitwise_right_shift argmax argmin amax amin max min cumsum cumprod cumsum_ cumprod_ cummax kthvalue topk flip roll
squeeze unsqueeze sum prod mean std logsumexp softmax narrow_copy tril triu count_nonzero median mode
new_zeros new_ones repeat tile""".split()

PATTERNS = {
    "()": (NO_ARG, lambda m, name, meth: getattr(_u(m, name), meth)()),
    "(tensor)": (WITH_TENSOR, lambda m, name, meth: getattr(_u(m, name), meth)(_u(m, name))),
    "(2)": (WITH_NUMBER, lambda m, name, meth: getattr(_u(m, name), meth)(2)),
    "(0)": (WITH_NUMBER, lambda m, name, meth: getattr(_u(m, name), meth)(0)),
}
METHOD_CASES = [(p, meth) for p, (names, _) in PATTERNS.items() for meth in names]


@pytest.mark.parametrize("name", UNSIGNED)
@pytest.mark.parametrize("pattern,meth", METHOD_CASES, ids=[f"{m}{p}" for p, m in METHOD_CASES])
def test_method_sweep_matches_torch(pattern, meth, name):
    call = PATTERNS[pattern][1]
    same(torch, lambda m: call(m, name, meth))


# ----------------------------------------------------------------------------- the function sweep
FUNCTIONS = {
    "mm": lambda m, n: _v(m, n).reshape(3, 1).mm(_v(m, n).reshape(1, 3)),
    "mv": lambda m, n: _u(m, n).mv(_v(m, n)),
    "matmul_1d": lambda m, n: _v(m, n) @ _v(m, n),
    "matmul_bmm": lambda m, n: _u(m, n).reshape(1, 2, 3) @ _u(m, n).reshape(1, 3, 2),
    "outer": lambda m, n: m.outer(_v(m, n), _v(m, n)),
    "inner_1d": lambda m, n: m.inner(_v(m, n), _v(m, n)),
    "inner_2d": lambda m, n: m.inner(_u(m, n), _u(m, n)),
    "einsum_dot": lambda m, n: m.einsum("i,i->", _v(m, n), _v(m, n)),
    "einsum_mm": lambda m, n: m.einsum("ij,kj->ik", _u(m, n), _u(m, n)),
    "einsum_no_contraction": lambda m, n: (m.einsum("i,j->ij", _v(m, n), _v(m, n)),
                                           m.einsum("i,i->i", _v(m, n), _v(m, n))),
    "einsum_one_operand": lambda m, n: (m.einsum("ij->ji", _u(m, n)), m.einsum("ij->", _u(m, n))),
    "sum_dtype": lambda m, n: _v(m, n).sum(dtype=getattr(m, n)),
    "sum_dtype_from_long": lambda m, n: _v(m, "int64").sum(dtype=getattr(m, n)),
    "sum_int64": lambda m, n: _v(m, n).sum(dtype=m.int64),
    "prod_dtype": lambda m, n: _v(m, n).prod(dtype=getattr(m, n)),
    "cumsum_dtype": lambda m, n: _v(m, n).cumsum(0, dtype=getattr(m, n)),
    "where": lambda m, n: m.where(_v(m, n) == 1, _v(m, n), _v(m, n)),
    "masked_fill": lambda m, n: _v(m, n).masked_fill(_v(m, n) == 1, 0),
    "masked_select": lambda m, n: _v(m, n).masked_select(_v(m, n) == 1),
    "masked_scatter": lambda m, n: _v(m, n).masked_scatter(_v(m, n) == 1, _v(m, n)),
    "index_put_": lambda m, n: _v(m, n).index_put_((_i(m, 0),), m.tensor([5], dtype=getattr(m, n))),
    "setitem": lambda m, n: (_v(m, n).__setitem__(0, 5), _v(m, n).__setitem__(slice(1, None), 5),
                             _v(m, n).__setitem__(Ellipsis, 5), _v(m, n).__setitem__(True, 5)),
    "setitem_mask": lambda m, n: _v(m, n).__setitem__(_v(m, n) == 1, 5),
    "setitem_mask_tensor": lambda m, n: _v(m, n).__setitem__(_v(m, n) == 1, m.tensor(5, dtype=getattr(m, n))),
    "setitem_index": lambda m, n: _v(m, n).__setitem__(_i(m, 0), 5),
    "setitem_list": lambda m, n: _v(m, n).__setitem__([0, 1], 5),
    "getitem_index": lambda m, n: _v(m, n)[_i(m, 0, 2)],
    "index_with_these_dtypes": lambda m, n: m.zeros(4)[_i(m, 1, 0).to(getattr(m, n))],
    "index_with_a_0dim_one": lambda m, n: m.zeros(4)[m.tensor(1, dtype=getattr(m, n))],
    "getitem_mask": lambda m, n: _v(m, n)[_v(m, n) == 2],
    "index_add_": lambda m, n: _v(m, n).index_add_(0, _i(m, 0), _v(m, n)[:1]),
    "index_copy": lambda m, n: _v(m, n).index_copy(0, _i(m, 0), _v(m, n)[:1]),
    "index_fill": lambda m, n: _v(m, n).index_fill(0, _i(m, 0), 7),
    "index_select": lambda m, n: _v(m, n).index_select(0, _i(m, 0, 2)),
    "gather": lambda m, n: _v(m, n).gather(0, _i(m, 0, 2)),
    "scatter_": lambda m, n: _v(m, n).scatter_(0, _i(m, 0), _v(m, n)[:1]),
    "scatter_add": lambda m, n: _v(m, n).scatter_add(0, _i(m, 0), _v(m, n)[:1]),
    "take": lambda m, n: _v(m, n).take(_i(m, 0)),
    "put_": lambda m, n: _v(m, n).put_(_i(m, 0), _v(m, n)[:1]),
    "searchsorted": lambda m, n: m.searchsorted(_v(m, n), _v(m, n)),
    "bucketize": lambda m, n: m.bucketize(_v(m, n), _v(m, n)),
    "isin": lambda m, n: m.isin(_v(m, n), _v(m, n)),
    "float_result_in_place": lambda m, n: (_v(m, n).sigmoid_(), _v(m, n).logit_()),
    "float_result_in_place_exp": lambda m, n: _v(m, n).exp_(),
    "dist": lambda m, n: _v(m, n).dist(_v(m, n)),
    "dist_float": lambda m, n: _v(m, n).dist(m.tensor([1.0, 1.0, 1.0])),
    "lerp": lambda m, n: _v(m, n).lerp(_v(m, n), 0.5),
    "addcmul": lambda m, n: _v(m, n).addcmul(_v(m, n), _v(m, n)),
    "rsub": lambda m, n: 1 - _v(m, n),
    "rpow": lambda m, n: 2 ** _v(m, n),
    "pow_0": lambda m, n: _v(m, n) ** 0,
    "pow_1": lambda m, n: _v(m, n) ** 1,
    "pow_true": lambda m, n: _v(m, n) ** True,
    "pow_half": lambda m, n: _v(m, n) ** 0.5,
    "pow_0dim_tensor": lambda m, n: _v(m, n) ** m.tensor(0, dtype=getattr(m, n)),
    "maximum_0dim": lambda m, n: m.maximum(_v(m, n), m.tensor(2, dtype=getattr(m, n))),
    "le_0dim": lambda m, n: _v(m, n) <= m.tensor(2, dtype=getattr(m, n)),
    "iadd": lambda m, n: _v(m, n).__iadd__(1),
    "isub": lambda m, n: _v(m, n).__isub__(_v(m, n)),
    "imul": lambda m, n: _v(m, n).__imul__(2),
    "relu": lambda m, n: m.nn.functional.relu(_v(m, n)),
    "clamp_tensor_": lambda m, n: _v(m, n).clamp_(_v(m, n)),
    "clamp_scalars": lambda m, n: _v(m, n).clamp(0, 1),
    "heaviside": lambda m, n: _v(m, n).heaviside(_v(m, n)),
    "histc": lambda m, n: _v(m, n).histc(),
    "bincount": lambda m, n: _v(m, n).bincount(),
    "bernoulli": lambda m, n: _v(m, n).bernoulli(),
    "bernoulli_p": lambda m, n: _v(m, n).bernoulli(0.5),
    "bernoulli_": lambda m, n: _v(m, n).bernoulli_(),
    "bernoulli_tensor_": lambda m, n: _v(m, n).bernoulli_(m.tensor([0.5])),
    "normal_": lambda m, n: _v(m, n).normal_(),
    "uniform_": lambda m, n: _v(m, n).uniform_(),
    "random_": lambda m, n: _v(m, n).random_(),
    "random_to": lambda m, n: _v(m, n).random_(1).tolist(),
    "cumsum_": lambda m, n: _v(m, n).cumsum_(0),
    "cumprod": lambda m, n: _v(m, n).cumprod(0),
    "count_nonzero_dim": lambda m, n: _v(m, n).count_nonzero(0),
    "kthvalue": lambda m, n: _v(m, n).kthvalue(1),
    "topk": lambda m, n: _v(m, n).topk(1),
    "sort_descending": lambda m, n: _v(m, n).sort(descending=True),
    "unique_counts": lambda m, n: _v(m, n).unique(return_counts=True),
    "unique_consecutive": lambda m, n: _v(m, n).unique_consecutive(),
    "roll": lambda m, n: _v(m, n).roll(1),
    "repeat_interleave": lambda m, n: _v(m, n).repeat_interleave(2),
    "cat_stack": lambda m, n: (m.cat([_v(m, n), _v(m, n)]), m.hstack([_v(m, n), _v(m, n)])),
    "broadcast_tensors": lambda m, n: m.broadcast_tensors(_v(m, n), _v(m, n).reshape(3, 1)),
    "meshgrid": lambda m, n: m.meshgrid(_v(m, n), _v(m, n), indexing="ij"),
    "pad": lambda m, n: m.nn.functional.pad(_v(m, n), (1, 1)),
    "unfold": lambda m, n: _v(m, n).unfold(0, 2, 1),
    "as_strided": lambda m, n: _v(m, n).as_strided((2,), (1,)),
    "copy_into": lambda m, n: _v(m, n).copy_(m.tensor([4, 5, 6])),
    "copy_from": lambda m, n: m.zeros(3).copy_(_v(m, n)),
    "fill_diagonal_": lambda m, n: m.zeros(2, 2, dtype=getattr(m, n)).fill_diagonal_(1),
    "diag_embed": lambda m, n: _v(m, n).diag_embed(),
    "linspace": lambda m, n: m.linspace(0, 3, 4, dtype=getattr(m, n)),
    "eye": lambda m, n: m.eye(2, dtype=getattr(m, n)),
    "new_full": lambda m, n: _v(m, n).new_full((2,), 3),
    "new_tensor": lambda m, n: _v(m, n).new_tensor([1]),
    "full_like": lambda m, n: m.full_like(_v(m, n), 2),
    "casts": lambda m, n: (_v(m, n).int(), _v(m, n).half(), _v(m, n).double(), _v(m, n).to(m.complex64),
                           _v(m, n).bfloat16().float(), _v(m, n).type(m.int64)),
    "from_float": lambda m, n: m.tensor([1.5, 7.0]).to(getattr(m, n)),
    "mul_out": lambda m, n: m.mul(_v(m, n), _v(m, n), out=m.empty(3, dtype=getattr(m, n))),
    "isclose": lambda m, n: (m.isclose(_v(m, n), _v(m, n)), m.allclose(_v(m, n), _v(m, n))),
    "sum_of_sums": lambda m, n: _v(m, n).sum() + _v(m, n).sum(),
    "mixed_float": lambda m, n: (_v(m, n) * 1.5, _v(m, n) + m.tensor([0.5]), _v(m, n) / 2),
    "rot90_k": lambda m, n: [_u(m, n).rot90(k).tolist() if k % 2 == 0 else None for k in (0, 4)],
    "rot90_1": lambda m, n: _u(m, n).rot90(1),
    "rot90_3": lambda m, n: _u(m, n).rot90(3),
    "flip_outer": lambda m, n: m.zeros(2, 3, 4, dtype=getattr(m, n)).flip(0, 1),
    "flip_inner": lambda m, n: m.zeros(2, 3, 4, dtype=getattr(m, n)).flip(0, 2),
    "flip_transposed_outer": lambda m, n: m.zeros(2, 3, 4, dtype=getattr(m, n)).transpose(0, 2).flip(2),
    "flip_transposed_inner": lambda m, n: m.zeros(2, 3, 4, dtype=getattr(m, n)).transpose(0, 2).flip(0),
    "flip_strided_column": lambda m, n: m.zeros(4, 3, dtype=getattr(m, n))[:, ::2].flip(0),
    "flip_strided_row": lambda m, n: m.zeros(4, 3, dtype=getattr(m, n))[::2].flip(0),
    "flip_size_one_inner": lambda m, n: m.zeros(3, 4, 1, dtype=getattr(m, n)).flip(1),
    "flip_expanded": lambda m, n: m.zeros(1, 3, dtype=getattr(m, n)).expand(4, 3).flip(0),
    "remainder_by_zero": lambda m, n: (_v(m, n) % 0),
    "remainder_by_zero_tensor": lambda m, n: _v(m, n) % m.tensor([0, 1, 1], dtype=getattr(m, n)),
    "fmod_by_zero": lambda m, n: _v(m, n).fmod(0),
    "floordiv_by_zero": lambda m, n: _v(m, n) // 0,
    "div_trunc_by_zero": lambda m, n: _v(m, n).div(0, rounding_mode="trunc"),
    "expand_too_few_sizes": lambda m, n: _u(m, n).expand(3),
    "gather_index_dtype": lambda m, n: m.zeros(3).gather(0, _i(m, 0).to(getattr(m, n))),
    "bernoulli_bad_p": lambda m, n: _v(m, n).bernoulli(2.0),
    "masked_select_bad_mask": lambda m, n: _v(m, n).masked_select(_v(m, n)),
    "flip_1d_and_empty": lambda m, n: (m.zeros(1, dtype=getattr(m, n)).flip(0),
                                       m.zeros(0, dtype=getattr(m, n)).flip(0)),
}

@pytest.mark.parametrize("name", UNSIGNED)
@pytest.mark.parametrize("case", sorted(FUNCTIONS))
def test_function_sweep_matches_torch(case, name):
    same(torch, lambda m: FUNCTIONS[case](m, name))


# ----------------------------------------------------------------------------- the array type
def _tensors(x):
    if isinstance(x, lg.Tensor):
        yield x
    elif isinstance(x, (list, tuple)):
        for v in x:
            yield from _tensors(v)


@pytest.mark.parametrize("name", UNSIGNED)
@pytest.mark.parametrize("case", sorted(FUNCTIONS))
def test_results_hold_the_array_type_exactly_for_these_dtypes(case, name):
    """A result of one of these dtypes holds a UIntArray (or its later ops would compute what torch
    refuses); every other result a plain ndarray (the float paths never see the class)."""
    try:
        out = FUNCTIONS[case](lg, name)
    except (NotImplementedError, RuntimeError, TypeError, OverflowError, IndexError):
        return
    for t in _tensors(out):
        assert (t._data.dtype in SHELL_NP) == (t._data.__class__ is UIntArray), (t.dtype, type(t._data))


@pytest.mark.parametrize("name", UNSIGNED)
def test_creation_casts_and_loading_give_the_array_type(tmp_path, name):
    dt = getattr(lg, name)
    made = [lg.zeros(2, dtype=dt), lg.ones(2, dtype=dt), lg.full((2,), 3, dtype=dt), lg.empty(2, dtype=dt),
            lg.tensor([1, 2], dtype=dt), lg.zeros_like(lg.ones(2), dtype=dt), lg.tensor([1.0]).to(dt),
            lg.tensor([1, 2], dtype=getattr(lg, name.replace("u", ""))).view(dt), lg.from_numpy(np.ones(2, name)),
            lg.as_tensor(np.ones(2, name))]
    lg.save({"t": made[0]}, tmp_path / "l.pt")
    torch.save({"t": torch.ones(2, dtype=getattr(torch, name))}, tmp_path / "t.pt")
    made += [lg.load(tmp_path / "l.pt")["t"], lg.load(tmp_path / "t.pt")["t"]]
    buf = io.BytesIO()
    lg.save(made[0], buf, _use_new_zipfile_serialization=False)
    buf.seek(0)
    made.append(lg.load(buf))
    made += [pickle.loads(pickle.dumps(made[4])), copy.deepcopy(made[4]), made[4].clone().share_memory_(),
             lg.empty_like(made[4]), made[4].new_empty(2), made[4].t() if made[4].ndim == 2 else made[4][None].t()]
    for t in made:
        assert t.dtype is dt and t._data.__class__ is UIntArray
    # and the other way: a view or cast to another dtype is a plain array
    for t in (made[4].view(getattr(lg, name.replace("u", ""))), made[4].float(), made[4].long(), made[4] == 1):
        assert t._data.__class__ is np.ndarray


@pytest.mark.parametrize("name", UNSIGNED)
def test_numpy_and_from_numpy_share_memory_as_plain_arrays(name):
    arr = np.array([1, 2, 3], dtype=name)
    t = lg.from_numpy(arr)
    arr[0] = 9
    assert t[0].item() == 9 and t._data.__class__ is UIntArray
    back = t.numpy()
    assert back.__class__ is np.ndarray and back.dtype == np.dtype(name) and np.shares_memory(back, arr)
    assert np.asarray(t).__class__ is np.ndarray
    assert (back + back).tolist() == [18, 4, 6]  # (NumPy's own arithmetic on the user's array is NumPy's)


# ----------------------------------------------------------------------------- refused in place: nothing changes
IN_PLACE = {
    "add_": lambda t: t.add_(1),
    "add_tensor": lambda t: t.add_(t),
    "iadd": lambda t: t.__iadd__(1),
    "sub_": lambda t: t.sub_(1),
    "neg_": lambda t: t.neg_(),
    "abs_": lambda t: t.abs_(),
    "pow_": lambda t: t.pow_(2),
    "square_": lambda t: t.square_(),
    "clamp_": lambda t: t.clamp_(0, 1),
    "clamp_min_": lambda t: t.clamp_min_(1),
    "relu_": lambda t: t.relu_(),
    "lt_": lambda t: t.lt_(2),
    "logical_not_": lambda t: t.logical_not_(),
    "tril_": lambda t: t.reshape(1, 3).tril_(),
    "index_put_": lambda t: t.index_put_((lg.tensor([0]),), t[:1]),
    "masked_fill_": lambda t: t.masked_fill_(t == 1, 0),
    "setitem_mask": lambda t: t.__setitem__(t == 1, 0),
    "setitem_index": lambda t: t.__setitem__([0, 2], 0),
    "index_add_": lambda t: t.index_add_(0, lg.tensor([0]), t[:1]),
    "cumsum_": lambda t: t.cumsum_(0),
    "remainder_": lambda t: t.remainder_(0),
    "heaviside_": lambda t: t.heaviside_(t),
    "bernoulli_": lambda t: t.bernoulli_(),
    "uniform_": lambda t: t.uniform_(),
    "normal_": lambda t: t.normal_(),
    "random_": lambda t: t.random_(),
}


@pytest.mark.parametrize("name", UNSIGNED)
@pytest.mark.parametrize("case", sorted(IN_PLACE))
def test_refused_in_place_op_changes_nothing(case, name):
    t = lg.tensor([1, 2, 3], dtype=getattr(lg, name))
    view = t[1:]
    version = t._version
    with raises_exactly(NotImplementedError, match=f"not implemented for 'UInt{name[4:]}'"):
        IN_PLACE[case](t)
    assert t.tolist() == [1, 2, 3] and view.tolist() == [2, 3]
    assert t._version == version and t.dtype is getattr(lg, name) and t._data.__class__ is UIntArray
    assert t.grad_fn is None


@pytest.mark.parametrize("name", UNSIGNED)
def test_message_names_the_dtype_and_the_fix(name):
    with raises_exactly(NotImplementedError) as info:
        lg.tensor([1, 2], dtype=getattr(lg, name)) + 1
    msg = str(info.value)
    assert msg.startswith(f"\"add_stub\" not implemented for 'UInt{name[4:]}'")
    assert f"torch.{name}" in msg and "x.to(torch.int64)" in msg


# ----------------------------------------------------------------------------- float ops with these dtypes as operands
MIXED = {
    "mul": lambda m, f, u: f * u, "div": lambda m, f, u: f / u, "rdiv": lambda m, f, u: u / f,
    "pow": lambda m, f, u: f ** u, "rpow": lambda m, f, u: u ** f, "add": lambda m, f, u: f + u,
    "sub": lambda m, f, u: f - u, "rsub": lambda m, f, u: u - f, "maximum": lambda m, f, u: m.maximum(f, u),
    "minimum": lambda m, f, u: m.minimum(f, u), "atan2": lambda m, f, u: m.atan2(f, u),
    "hypot": lambda m, f, u: m.hypot(f, u), "where": lambda m, f, u: m.where(f > 1, f, u),
    "fmod": lambda m, f, u: m.fmod(f, u), "remainder": lambda m, f, u: f % u, "xlogy": lambda m, f, u: m.xlogy(f, u),
    "copysign": lambda m, f, u: m.copysign(f, u), "compare": lambda m, f, u: (f < u).float() * f,
    "dist": lambda m, f, u: f.dist(u),
}


@pytest.mark.parametrize("name", UNSIGNED)
@pytest.mark.parametrize("case", sorted(MIXED))
def test_float_ops_with_these_operands_compute_and_differentiate(case, name):
    """torch promotes a uint16/32/64 operand of a float op to the float (the array type lets those
    through): values, first and second gradients as torch's."""
    def run(m):
        f = m.tensor([0.5, 1.5, 2.5], requires_grad=True)
        u = m.tensor([1, 2, 3], dtype=getattr(m, name))
        y = MIXED[case](m, f, u)
        (g,) = m.autograd.grad(y.sum(), f, create_graph=True)
        (gg,) = m.autograd.grad(g.sum(), f, allow_unused=True) if g.requires_grad else (None,)
        return y, g, gg
    same(torch, run)
