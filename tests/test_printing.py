"""Check leafgrad's tensor printing against real PyTorch, which is the oracle.

Every test builds the same data once as a NumPy array (fed to ``format_tensor``) and
once as a torch tensor (printed with ``str``/``repr``); the two strings must match
character for character.
"""

from __future__ import annotations

import contextlib
import importlib
import importlib.util
import math
import sys
from pathlib import Path
from types import ModuleType
from typing import Iterator

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

torch = pytest.importorskip("torch")


def _load_printing() -> ModuleType:
    """Import ``leafgrad._printing``; fall back to its file if the package is broken.

    The package ``__init__`` is written by others and may not import yet; the
    printing module itself only needs NumPy, so it can be loaded on its own.
    """
    try:
        return importlib.import_module("leafgrad._printing")
    except Exception:
        path = Path(__file__).resolve().parents[1] / "src" / "leafgrad" / "_printing.py"
        spec = importlib.util.spec_from_file_location("_leafgrad_printing_file", path)
        assert spec is not None and spec.loader is not None
        module = importlib.util.module_from_spec(spec)
        sys.modules[spec.name] = module  # dataclasses look the module up by name
        spec.loader.exec_module(module)
        return module


printing = _load_printing()
format_tensor = printing.format_tensor
default_hides_dtype = printing.default_hides_dtype

NUMERIC_DTYPES = [
    np.float16,
    np.float32,
    np.float64,
    np.int8,
    np.int16,
    np.int32,
    np.int64,
    np.uint8,
    np.bool_,
    np.complex64,
    np.complex128,
]
GRAD_DTYPES = (np.float16, np.float32, np.float64, np.complex64, np.complex128)


# ----------------------------------------------------------------------- helpers


@contextlib.contextmanager
def both_printoptions(**options) -> Iterator[None]:
    """Apply the same print options to torch and leafgrad, then restore defaults."""
    torch.set_printoptions(**options)
    printing.set_printoptions(**options)
    try:
        yield
    finally:
        torch.set_printoptions(profile="default")
        printing.set_printoptions(profile="default")


def to_torch(array: np.ndarray) -> "torch.Tensor":
    """A torch tensor with the same data (from_numpy needs a C-contiguous copy)."""
    return torch.from_numpy(np.array(array, order="C", copy=True))


def leafgrad_str(array: np.ndarray, extras: list[str] = (), prefix: str = "tensor(") -> str:
    """``format_tensor`` called the way leafgrad's Tensor.__repr__ is meant to call it."""
    name = str(to_torch(array).dtype)
    return format_tensor(
        array,
        dtype_name=name,
        show_dtype=not default_hides_dtype(name),
        extras=list(extras),
        prefix=prefix,
    )


def torch_str(array: np.ndarray, autograd: str | None = None) -> tuple[str, np.ndarray, list[str]]:
    """PyTorch's text, the data it shows, and the extras leafgrad must pass to match.

    ``autograd`` is None (plain tensor), "leaf" (requires_grad=True) or "op"
    (result of a multiplication, so it carries a grad_fn).  The data is returned
    because the multiplication may change it (``-0.0 * 1`` in complex is ``+0.0``).
    """
    tensor = to_torch(array)
    if autograd is None:
        return str(tensor), array, []
    tensor.requires_grad_(True)
    if autograd == "leaf":
        return str(tensor), array, ["requires_grad=True"]
    result = tensor * 1
    return str(result), result.detach().numpy(), ["grad_fn=<MulBackward0>"]


def assert_same(array: np.ndarray, autograd: str | None = None) -> None:
    """The core check: leafgrad prints exactly what torch prints."""
    expected, shown, extras = torch_str(array, autograd)
    assert leafgrad_str(shown, extras) == expected


# ------------------------------------------------------------ hand-picked cases

nan, inf = math.nan, math.inf

TRICKY_FLOATS = [
    [0.1 + 0.2],
    [1e-5],
    [1e-5, 1.0],
    [123456789.0],
    [1e10],
    [1e8],
    [1e8 + 0.5],
    [1e8, 1.0],
    [1.0, 1000.0],  # ratio exactly 1000: still fixed
    [1.0, 1000.5],
    [1.0, 1001.0],  # integral, ratio > 1000: scientific
    [0.001, 1.0],
    [1e-4, 0.5],  # float32 1e-4 is just below 1e-4 -> scientific; float64 stays fixed
    [9.99999e-5, 0.5],
    [2.5e-4, 0.12345],
    [0.5, 1.5, 2.5, 3.5],
    [0.00005, 0.00015, 1.0],
    [0.0, -0.0],
    [-0.0, 1.0],
    [-0.0, 1.5],
    [nan],
    [nan, 1.0],
    [nan, 100.5],
    [inf, -inf, nan, 0.0],
    [inf, 2.0],
    [-inf, 1e-7],
    [1e300, 1e-300],
    [-1.0, -2.0, -3.0],
    [1.0, -100.0, 12345.0],
    [3.14159265, -2.71828, 1e3],
    [65504.0, -65504.0],
    [1 / 3, 2 / 3, 1.0],
    [1e-310, 1.0],
]


@pytest.mark.parametrize("values", TRICKY_FLOATS, ids=repr)
@pytest.mark.parametrize("dtype", [np.float16, np.float32, np.float64])
def test_tricky_floats(values: list[float], dtype: type) -> None:
    with np.errstate(over="ignore", under="ignore"):
        array = np.array(values, dtype=np.float64).astype(dtype)
    assert_same(array)
    assert_same(array.reshape(len(values), 1))
    assert_same(array[0].copy())  # 0-dim


@pytest.mark.parametrize(
    "array",
    [
        np.array(8.0, dtype=np.float32),
        np.array(-0.0),
        np.array(nan, dtype=np.float32),
        np.array(True),
        np.array(-5, dtype=np.int8),
        np.array(255, dtype=np.uint8),
        np.array(3 + 4j, dtype=np.complex64),
        np.array([True, False]),
        np.array([1, 2, -300]),
        np.array([1, 2], dtype=np.uint8),
        np.array([-128, 127], dtype=np.int8),
        np.array([2**63 - 1, -(2**63)], dtype=np.int64),
        np.array([1 + 2j, -3.5 - 1e-3j, complex(nan, nan), complex(0, -0.0)], dtype=np.complex64),
        np.array([1e5 + 2j, -3 - 1j] * 10, dtype=np.complex128),
        np.array([complex(inf, -inf), 1j, 0j]),
        np.arange(30.0, dtype=np.float32),
        np.arange(30.0).reshape(3, 10),
        np.arange(60.0, dtype=np.float32).reshape(2, 3, 10),
        np.arange(120.0).reshape(2, 3, 4, 5) / 7,
        np.arange(2000.0, dtype=np.float32),
        np.arange(2000.0).reshape(40, 50),
        np.arange(2400.0, dtype=np.float32).reshape(4, 20, 30),
        np.arange(3000, dtype=np.int16).reshape(3, 10, 100),
        np.array([[True, False] * 600]),
        (np.arange(1200) * (0.5 + 0.25j)).astype(np.complex64),
        np.linspace(-1, 1, 1001, dtype=np.float32),
        np.zeros(0, dtype=np.float32),
        np.zeros(0),
        np.zeros(0, dtype=np.int64),
        np.zeros(0, dtype=np.bool_),
        np.zeros(0, dtype=np.complex64),
        np.zeros((0, 3), dtype=np.float32),
        np.zeros((2, 0)),
        np.zeros((2, 0, 4), dtype=np.int32),
    ],
    ids=lambda a: f"{a.dtype}{a.shape}",
)
def test_hand_picked(array: np.ndarray) -> None:
    assert_same(array)
    if array.dtype.type in GRAD_DTYPES:
        assert_same(array, "leaf")
        assert_same(array, "op")


@pytest.mark.parametrize("n", range(1, 70))
def test_suffix_wrapping_boundaries(n: int) -> None:
    """Walk the data line length across linewidth so every suffix wrap point is hit."""
    assert_same(np.arange(float(n)), "leaf")
    assert_same(np.arange(float(n), dtype=np.float32), "op")
    assert_same(np.arange(n, dtype=np.int32))
    assert_same(np.arange(float(n)).reshape(1, n), "op")


@pytest.mark.parametrize(
    "options",
    [
        {"sci_mode": True},
        {"sci_mode": False},
        {"precision": 0},
        {"precision": 10, "linewidth": 200},
        {"profile": "short"},
        {"profile": "full"},
        {"edgeitems": 0},
        {"edgeitems": 1},
        {"linewidth": 10},
        {"threshold": 5},
        {"threshold": 0},
        {"threshold": 5, "edgeitems": 0},
    ],
    ids=repr,
)
def test_print_options(options: dict) -> None:
    arrays = [
        np.array(8.0, dtype=np.float32),
        np.array([0.0, 0.0]),
        np.array([nan, inf]),
        np.array([1.0, 2.0]),
        np.array([1e-8, 1e10]),
        np.array([1.5, 1e10], dtype=np.float32),
        np.array([1.5, 2.25, -0.0]),
        np.array([1 + 2j, -3.5 - 1e-3j], dtype=np.complex64),
        np.arange(20.0),
        np.arange(1010),
        np.arange(2000.0, dtype=np.float32).reshape(40, 50),
        np.arange(24).reshape(2, 3, 4) % 5 == 0,
        np.zeros(0),
        np.zeros((0, 3), dtype=np.int64),
    ]
    with both_printoptions(**options):
        for array in arrays:
            assert_same(array)
            if array.dtype.kind in "fc":
                assert_same(array, "leaf")


def test_parameter_prefix() -> None:
    """``Parameter containing:\\ntensor(`` indents like plain ``tensor(``."""
    array = np.arange(40.0, dtype=np.float32).reshape(2, 20) / 3
    expected = repr(torch.nn.Parameter(to_torch(array)))
    prefix = "Parameter containing:\ntensor("
    assert leafgrad_str(array, ["requires_grad=True"], prefix=prefix) == expected
    plain = leafgrad_str(array, ["requires_grad=True"])
    assert expected == "Parameter containing:\n" + plain


@pytest.mark.parametrize("dtype", NUMERIC_DTYPES, ids=lambda d: np.dtype(d).name)
def test_default_hides_dtype_matches_torch(dtype: type) -> None:
    tensor = to_torch(np.ones(2, dtype=dtype))
    assert default_hides_dtype(str(tensor.dtype)) == ("dtype=" not in str(tensor))


def test_set_and_get_printoptions_follow_torch() -> None:
    """The same sequence of calls leaves both option sets identical after every step."""
    calls = [
        {"precision": 7},
        {"linewidth": 100},
        {"profile": "short", "precision": 6},
        {"sci_mode": True},
        {"precision": 3},  # also resets sci_mode to None
        {"profile": "full"},
        {"profile": "no-such-profile"},  # ignored
        {"threshold": 10, "edgeitems": 1},
        {"profile": "default"},
    ]
    try:
        for call in calls:
            torch.set_printoptions(**call)
            printing.set_printoptions(**call)
            assert printing.get_printoptions() == torch._tensor_str.get_printoptions()
    finally:
        torch.set_printoptions(profile="default")
        printing.set_printoptions(profile="default")
    assert printing.get_printoptions() == {
        "precision": 4,
        "threshold": 1000,
        "edgeitems": 3,
        "linewidth": 80,
        "sci_mode": None,
    }


def test_printoptions_context_manager_restores() -> None:
    before = printing.get_printoptions()
    with printing.printoptions(precision=2, sci_mode=True):
        assert printing.get_printoptions()["precision"] == 2
        assert format_tensor(np.array([1.0]), dtype_name="torch.float32", show_dtype=False) == (
            "tensor([1.00e+00])"
        )
    assert printing.get_printoptions() == before


# ------------------------------------------------------------ generated cases

SPECIAL_FLOATS = [0.0, -0.0, nan, inf, -inf, 1.0, -1.0, 0.5, 1e-4, 1e8, 1000.0]


def _float_elements(kind: str) -> st.SearchStrategy[float]:
    """Element values of one "flavour", so whole tensors often share a format mode."""
    if kind == "integral":
        base = st.integers(-3000, 3000).map(float)
    elif kind == "small-range":
        base = st.floats(-1000, 1000, allow_subnormal=False)
    elif kind == "decimal":
        base = st.builds(lambda m, e: m * 10.0**e, st.integers(-9999, 9999), st.integers(-12, 12))
    elif kind == "binary":
        base = st.builds(lambda m, e: m * 2.0**e, st.integers(-64, 64), st.integers(-20, 30))
    else:
        base = st.floats(allow_nan=True, allow_infinity=True)
    specials = st.sampled_from(SPECIAL_FLOATS)
    return st.one_of(base, base, base, base, specials)


@st.composite
def arrays(draw: st.DrawFn, max_side: int = 6) -> np.ndarray:
    """NumPy arrays of any supported dtype, rank 0-4 and varied magnitudes."""
    dtype = np.dtype(draw(st.sampled_from(NUMERIC_DTYPES)))
    shape = tuple(draw(st.lists(st.integers(0, max_side), max_size=4)))
    size = math.prod(shape)
    if dtype.kind == "b":
        values = draw(st.lists(st.booleans(), min_size=size, max_size=size))
        return np.array(values, dtype=dtype).reshape(shape)
    if dtype.kind in "iu":
        info = np.iinfo(dtype)
        bound = draw(st.sampled_from([9, 1000, int(info.max)]))
        ints = st.integers(max(int(info.min), -bound), min(int(info.max), bound))
        values = draw(st.lists(ints, min_size=size, max_size=size))
        return np.array(values, dtype=dtype).reshape(shape)
    kinds = ["integral", "small-range", "decimal", "binary", "anything"]
    parts = 2 if dtype.kind == "c" else 1
    columns = []
    for _ in range(parts):
        elements = _float_elements(draw(st.sampled_from(kinds)))
        columns.append(np.array(draw(st.lists(elements, min_size=size, max_size=size))))
    if parts == 1:
        data = columns[0]
    else:  # assign parts separately: re + 1j * im would smear nan/inf across them
        data = np.empty(size, dtype=np.complex128)
        data.real, data.imag = columns
    with np.errstate(over="ignore", under="ignore", invalid="ignore"):
        return data.astype(dtype).reshape(shape)


OPTIONS = st.one_of(
    st.just({}),
    st.fixed_dictionaries(
        {},
        optional={
            "precision": st.integers(0, 8),
            "threshold": st.sampled_from([0, 3, 10, 30, 1000]),
            "edgeitems": st.integers(0, 4),
            "linewidth": st.integers(10, 140),
            "sci_mode": st.sampled_from([None, True, False]),
            "profile": st.sampled_from(["default", "short", "full"]),
        },
    ),
)

GENERATED = settings(
    max_examples=400,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)


@GENERATED
@given(array=arrays())
def test_generated_default_options(array: np.ndarray) -> None:
    assert_same(array)


@GENERATED
@given(array=arrays(max_side=9), options=OPTIONS, autograd=st.sampled_from([None, "leaf", "op"]))
def test_generated_with_options_and_autograd(
    array: np.ndarray, options: dict, autograd: str | None
) -> None:
    if array.dtype.type not in GRAD_DTYPES:
        autograd = None
    with both_printoptions(**options):
        assert_same(array, autograd)


@settings(max_examples=60, deadline=None)
@given(
    size=st.integers(1001, 3000),
    scale=st.sampled_from([1.0, 1e-6, 1e9, 0.37]),
    dtype=st.sampled_from([np.float32, np.float64, np.int64, np.complex64]),
    split=st.sampled_from([None, 2, 10]),
)
def test_generated_summarised(size: int, scale: float, dtype: type, split: int | None) -> None:
    """Default threshold: large tensors are summarised from their edge items only."""
    array = (np.arange(size) - size // 3) * scale
    if split is not None:
        array = array[: size - size % split].reshape(split, -1)
    assert_same(array.astype(dtype))
