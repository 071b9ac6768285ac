"""uint16 / uint32 / uint64 against torch 2.13's CPU: its "shell" dtypes (storage, casts, a few kernels).

Each case runs on torch and on leafgrad (``differential.same``): values, dtypes, and for what torch
refuses, the exact exception class and the opening of its message.
"""
import io

import numpy as np
import pytest
from differential import raises_exactly, same

import leafgrad as lg

torch = pytest.importorskip("torch")
safetensors_torch = pytest.importorskip("safetensors.torch")

UNSIGNED = ["uint16", "uint32", "uint64"]
OTHERS = ["bool", "uint8", "int8", "int16", "int32", "int64", "float16", "bfloat16", "float32", "float64",
          "complex64", "complex128", "uint16", "uint32", "uint64"]


def _x(m, name, values=(1, 2, 3)):
    return m.tensor(list(values), dtype=getattr(m, name))


@pytest.mark.parametrize("a", UNSIGNED)
@pytest.mark.parametrize("b", OTHERS)
def test_promote_types_matches_torch(a, b):
    same(torch, lambda m: repr(m.promote_types(getattr(m, a), getattr(m, b))))
    same(torch, lambda m: repr(m.promote_types(getattr(m, b), getattr(m, a))))


@pytest.mark.parametrize("name", UNSIGNED)
def test_dtype_attributes(name):
    t, l = getattr(torch, name), getattr(lg, name)
    assert repr(l) == repr(t) and str(l) == str(t)
    assert (l.is_signed, l.is_floating_point, l.is_complex, l.itemsize) == \
           (t.is_signed, t.is_floating_point, t.is_complex, t.itemsize)
    assert (lg.iinfo(l).min, lg.iinfo(l).max, lg.iinfo(l).bits) == \
           (torch.iinfo(t).min, torch.iinfo(t).max, torch.iinfo(t).bits)
    for other in ("int64", "float32", "bool"):
        assert lg.can_cast(l, getattr(lg, other)) == torch.can_cast(t, getattr(torch, other))
        assert lg.can_cast(getattr(lg, other), l) == torch.can_cast(getattr(torch, other), t)


SUPPORTED = {
    "repr": lambda m, n: repr(_x(m, n)),
    "zeros": lambda m, n: m.zeros(2, 3, dtype=getattr(m, n)),
    "ones": lambda m, n: m.ones(2, dtype=getattr(m, n)),
    "full": lambda m, n: m.full((2,), 5, dtype=getattr(m, n)),
    "empty_shape": lambda m, n: (m.empty(2, 3, dtype=getattr(m, n)).shape, m.empty(2, dtype=getattr(m, n)).dtype),
    "zeros_like": lambda m, n: m.zeros_like(_x(m, n)),
    "wraps_negative": lambda m, n: _x(m, n, (-1, 0)).tolist(),
    "float_truncates": lambda m, n: m.tensor([1.7, 2.2], dtype=getattr(m, n)),
    "item": lambda m, n: _x(m, n)[1].item(),
    "index": lambda m, n: _x(m, n)[1],
    "slice": lambda m, n: _x(m, n)[1:],
    "tolist": lambda m, n: _x(m, n).tolist(),
    "numpy_dtype": lambda m, n: str(_x(m, n).numpy().dtype),
    "element_size": lambda m, n: _x(m, n).element_size(),
    "is_signed": lambda m, n: _x(m, n).is_signed(),
    "type": lambda m, n: _x(m, n).type(),
    "to_int64": lambda m, n: _x(m, n).to(m.int64),
    "float": lambda m, n: _x(m, n).float(),
    "bool": lambda m, n: _x(m, n, (0, 2)).bool(),
    "from_float": lambda m, n: m.tensor([1.0, 2.0]).to(getattr(m, n)),
    "from_grad_float": lambda m, n: m.tensor([1.0, 2.0], requires_grad=True).to(getattr(m, n)),
    "view_int": lambda m, n: _x(m, n).view(getattr(m, n.replace("u", ""))),
    "eq": lambda m, n: _x(m, n) == _x(m, n, (1, 0, 3)),
    "eq_scalar": lambda m, n: _x(m, n).eq(1),
    "ne": lambda m, n: _x(m, n).ne(_x(m, n)),
    "equal": lambda m, n: m.equal(_x(m, n), _x(m, n)),
    "mul": lambda m, n: _x(m, n) * _x(m, n),
    "mul_scalar": lambda m, n: _x(m, n).mul(2),
    "mul_bool": lambda m, n: _x(m, n) * True,
    "mul_0dim_long": lambda m, n: _x(m, n) * m.tensor(2),
    "add_float": lambda m, n: _x(m, n) + 1.5,
    "div": lambda m, n: _x(m, n) / _x(m, n),
    "exp": lambda m, n: _x(m, n).exp(),
    "bitwise_and": lambda m, n: _x(m, n) & _x(m, n, (3, 3, 3)),
    "bitwise_or_xor": lambda m, n: (_x(m, n) | _x(m, n, (4, 4, 4)), _x(m, n) ^ _x(m, n)),
    "floordiv_float": lambda m, n: _x(m, n) // 2.5,
    "remainder_float": lambda m, n: _x(m, n) % 1.5,
    "sum": lambda m, n: _x(m, n).sum(),
    "prod": lambda m, n: _x(m, n).prod(),
    "prod_dim": lambda m, n: _x(m, n).reshape(1, 3).prod(1),
    "cumsum": lambda m, n: _x(m, n).cumsum(0),
    "all_any": lambda m, n: (_x(m, n).all(), _x(m, n, (0, 0)).any()),
    "cat": lambda m, n: m.cat([_x(m, n), _x(m, n)]),
    "stack": lambda m, n: m.stack([_x(m, n), _x(m, n)]),
    "reshape_t": lambda m, n: _x(m, n).reshape(3, 1).t(),
    "clone": lambda m, n: _x(m, n).clone(),
    "fill_": lambda m, n: _x(m, n).fill_(7),
    "sort": lambda m, n: tuple(_x(m, n, (3, 1, 2)).sort()),
    "unique": lambda m, n: _x(m, n, (3, 1, 3)).unique(),
    "prod_uint8": lambda m, n: _x(m, "uint8").prod(),
}


@pytest.mark.parametrize("name", UNSIGNED)
@pytest.mark.parametrize("case", sorted(SUPPORTED))
def test_what_torch_supports_matches(case, name):
    same(torch, lambda m: SUPPORTED[case](m, name))


REFUSED = {
    "add_long": lambda m, n: _x(m, n) + m.tensor([1]),
    "long_add": lambda m, n: m.tensor([1]).long() + _x(m, n),
    "mul_int32": lambda m, n: _x(m, n) * m.tensor([1], dtype=m.int32),
    "max": lambda m, n: _x(m, n).max(),
    "min": lambda m, n: _x(m, n).min(),
    "max_dim": lambda m, n: _x(m, n).max(0),
    "min_dim": lambda m, n: _x(m, n).min(0),
    "amax": lambda m, n: _x(m, n).amax(),
    "amin": lambda m, n: _x(m, n).amin(),
    "argmax": lambda m, n: _x(m, n).argmax(),
    "argmin_dim": lambda m, n: _x(m, n).argmin(0),
    "arange": lambda m, n: m.arange(3, dtype=getattr(m, n)),
    "mean": lambda m, n: _x(m, n).mean(),
}


@pytest.mark.parametrize("name", UNSIGNED)
@pytest.mark.parametrize("case", sorted(REFUSED))
def test_what_torch_refuses_is_refused_alike(case, name):
    out = same(torch, lambda m: REFUSED[case](m, name))
    assert out[0] == "raise"


def test_uint64_holds_its_whole_range():
    big = [2 ** 64 - 1, 2 ** 63, 0]
    t, l = torch.tensor(big, dtype=torch.uint64), lg.tensor(big, dtype=lg.uint64)
    assert l.tolist() == t.tolist() == big and l[0].item() == t[0].item()
    assert repr(l) == repr(t)


@pytest.mark.parametrize("name", UNSIGNED)
def test_from_numpy_keeps_the_unsigned_dtype_and_shares(name):
    arr = np.array([1, 2, 3], dtype=name)
    l = lg.from_numpy(arr)
    assert repr(l.dtype) == repr(torch.from_numpy(arr).dtype)
    arr[0] = 9
    assert l[0].item() == 9  # shared, as torch.from_numpy


# ----------------------------------------------------------------------------- checkpoints
def _big(name):
    hi = np.iinfo(name).max
    return [0, 1, hi, hi - 1]


@pytest.mark.parametrize("name", UNSIGNED)
@pytest.mark.parametrize("zipped", [True, False], ids=["zip", "legacy"])
def test_torch_checkpoint_loads_as_unsigned(tmp_path, name, zipped):
    t = torch.tensor(_big(name), dtype=getattr(torch, name))
    torch.save({"t": t, "v": t[1:3]}, tmp_path / "t.pt", _use_new_zipfile_serialization=zipped)
    back = lg.load(tmp_path / "t.pt")
    assert back["t"].dtype is getattr(lg, name) and back["t"].tolist() == t.tolist()
    assert back["v"].tolist() == t[1:3].tolist()


@pytest.mark.parametrize("name", UNSIGNED)
def test_leafgrad_checkpoint_loads_in_torch(tmp_path, name):
    l = lg.tensor(_big(name), dtype=getattr(lg, name))
    lg.save({"t": l, "v": l[1:3]}, tmp_path / "l.pt")
    back = torch.load(tmp_path / "l.pt", weights_only=True)
    assert back["t"].dtype == getattr(torch, name) and back["t"].tolist() == l.tolist()
    assert back["v"].tolist() == l[1:3].tolist()
    assert lg.load(tmp_path / "l.pt")["t"].tolist() == l.tolist()


@pytest.mark.parametrize("name", UNSIGNED)
def test_legacy_pickle_bytes_match_torch(name):
    """torch's legacy (non-zip) writer stores these dtypes in an untyped storage counted in bytes;
    leafgrad writes the same records (torch cannot read such a file back, leafgrad can)."""
    t = torch.tensor([1, 2], dtype=getattr(torch, name))
    tb, lb = io.BytesIO(), io.BytesIO()
    torch.save(t, tb, _use_new_zipfile_serialization=False)
    lg.save(lg.tensor([1, 2], dtype=getattr(lg, name)), lb, _use_new_zipfile_serialization=False)
    for raw in (tb.getvalue(), lb.getvalue()):
        assert b"UntypedStorage" in raw and b"_rebuild_tensor_v3" in raw and name.encode() in raw
    lb.seek(0)
    assert lg.load(lb).tolist() == [1, 2]


@pytest.mark.parametrize("name", UNSIGNED)
def test_safetensors_round_trip_with_torch(tmp_path, name):
    t = torch.tensor(_big(name), dtype=getattr(torch, name))
    safetensors_torch.save_file({"t": t}, str(tmp_path / "t.safetensors"))
    back = lg.load(tmp_path / "t.safetensors")["t"]
    assert back.dtype is getattr(lg, name) and back.tolist() == t.tolist()
    lg.serialization.save_safetensors({"t": back}, str(tmp_path / "l.safetensors"))
    again = safetensors_torch.load_file(str(tmp_path / "l.safetensors"))["t"]
    assert again.dtype == t.dtype and again.tolist() == t.tolist()


def test_promotion_refusal_leaves_no_state_changed():
    x = lg.tensor([1, 2], dtype=lg.uint32)
    with raises_exactly(RuntimeError, match="Promotion for uint16, uint32, uint64 types is not supported"):
        x.add_(lg.tensor([1, 1]))
    assert x.tolist() == [1, 2] and x.dtype is lg.uint32


MORE_REFUSED = {
    "flip": lambda m, n: _x(m, n).flip(0),
    "clamp": lambda m, n: _x(m, n).clamp(0, 2),
    "clamp_min": lambda m, n: _x(m, n).clamp(min=1),
    "clamp_max": lambda m, n: _x(m, n).clamp(max=2),
    "floordiv": lambda m, n: _x(m, n) // 2,
    "floordiv_tensor": lambda m, n: _x(m, n) // _x(m, n),
    "div_trunc": lambda m, n: _x(m, n).div(_x(m, n), rounding_mode="trunc"),
    "remainder": lambda m, n: _x(m, n) % 2,
    "remainder_tensor": lambda m, n: m.remainder(_x(m, n), _x(m, n)),
    "fmod": lambda m, n: _x(m, n).fmod(2),
    "rshift": lambda m, n: _x(m, n) >> 1,
    "lshift": lambda m, n: _x(m, n).bitwise_left_shift(_x(m, n)),
    "uint64_negative": lambda m, n: m.tensor([-1], dtype=m.uint64),
    "uint64_float": lambda m, n: m.tensor(1.5, dtype=m.uint64),
    "uint64_too_big": lambda m, n: m.tensor([[1], [2 ** 64]], dtype=m.uint64),
}


@pytest.mark.parametrize("name", UNSIGNED)
@pytest.mark.parametrize("case", sorted(MORE_REFUSED))
def test_more_refusals(case, name):
    assert same(torch, lambda m: MORE_REFUSED[case](m, name))[0] == "raise"


@pytest.mark.parametrize("name", UNSIGNED)
def test_clamp_to_a_float_bound_computes_in_float(name):
    same(torch, lambda m: _x(m, name).clamp(0, 1.5))
