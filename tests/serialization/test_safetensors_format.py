"""safetensors checkpoints (``.safetensors`` paths): round trips, interop with PyTorch both ways,
optimizer state dicts with plain metadata, and clear errors for corrupt and truncated files."""
from __future__ import annotations

import io
import json
import struct
from collections import Counter, OrderedDict

import numpy as np
import pytest
from differential import raises_exactly

import leafgrad as lg


def _np(t):
    return t.detach().numpy() if str(t.dtype) != "torch.bfloat16" else t.detach().float().numpy()


# ----------------------------------------------------------------------------- round trips
@pytest.mark.parametrize("make", [
    lambda: lg.randn(3, 4),
    lambda: lg.tensor(2.5),
    lambda: lg.arange(6).reshape(2, 3),
    lambda: lg.tensor([True, False, True]),
    lambda: lg.randn(2, 2, dtype=lg.float64),
    lambda: lg.tensor([1 + 2j, 3 - 1j], dtype=lg.complex64),
    lambda: lg.zeros(0, 3),
    lambda: lg.randn(3, 5).t(),  # not contiguous
    lambda: lg.tensor([1, 2], dtype=lg.int8),
    lambda: lg.tensor([0.5, 1.5], dtype=lg.float16),
], ids=["randn", "0-d", "int64", "bool", "float64", "complex64", "empty", "transposed", "int8", "float16"])
def test_tensor_round_trip(tmp_path, make):
    t = make()
    path = tmp_path / "t.safetensors"
    lg.save(t, path)
    back = lg.load(path)
    assert isinstance(back, lg.Tensor)
    assert back.dtype == t.dtype and back.shape == t.shape
    np.testing.assert_array_equal(_np(back), _np(t))
    back.add_(1) if back.dtype != lg.bool else None  # loaded tensors are writable


def test_requires_grad_is_kept(tmp_path):
    t = lg.ones(3, requires_grad=True)
    lg.save({"w": t, "b": lg.zeros(2)}, tmp_path / "x.safetensors")
    back = lg.load(tmp_path / "x.safetensors")
    assert back["w"].requires_grad and not back["b"].requires_grad and back["w"].is_leaf


def test_state_dict_round_trip_keeps_type_and_order(tmp_path):
    sd = OrderedDict([("z.weight", lg.randn(2, 3)), ("a.bias", lg.randn(2)), ("m.count", lg.tensor(3))])
    lg.save(sd, tmp_path / "sd.safetensors")
    back = lg.load(tmp_path / "sd.safetensors")
    assert type(back) is OrderedDict and list(back) == list(sd)
    for k in sd:
        np.testing.assert_array_equal(_np(back[k]), _np(sd[k]))
    plain = {"b": lg.ones(1), "a": lg.zeros(1)}
    lg.save(plain, tmp_path / "plain.safetensors")
    assert type(lg.load(tmp_path / "plain.safetensors")) is dict


def test_nested_metadata_round_trips_exactly(tmp_path):
    obj = {"epoch": 7, "best": 0.987, "name": "mlp", "none": None, "flag": True, "inf": float("inf"),
           "betas": (0.9, 0.999), "milestones": Counter({3: 1, 10: 2}), "history": [1.5, 2.5, [3, (4, 5)]],
           "int_keys": {0: {"step": lg.tensor(3.0)}, 1: {}}, "np_scalar": np.float32(0.5),
           "dtype": lg.float64, "array": np.arange(4, dtype=np.int32),
           "weights": OrderedDict(w=lg.randn(2, 2))}
    lg.save(obj, tmp_path / "ckpt.safetensors")
    back = lg.load(tmp_path / "ckpt.safetensors")
    assert back["epoch"] == 7 and back["best"] == 0.987 and back["name"] == "mlp" and back["none"] is None
    assert back["flag"] is True and back["inf"] == float("inf")
    assert back["betas"] == (0.9, 0.999) and isinstance(back["betas"], tuple)
    assert back["milestones"] == Counter({3: 1, 10: 2}) and isinstance(back["milestones"], Counter)
    assert back["history"] == [1.5, 2.5, [3, (4, 5)]]
    assert list(back["int_keys"]) == [0, 1] and back["int_keys"][0]["step"].item() == 3.0
    assert back["int_keys"][0]["step"].shape == ()
    assert back["np_scalar"] == 0.5 and back["dtype"] is lg.float64
    assert isinstance(back["array"], np.ndarray) and back["array"].tolist() == [0, 1, 2, 3]
    assert type(back["weights"]) is OrderedDict
    np.testing.assert_array_equal(_np(back["weights"]["w"]), _np(obj["weights"]["w"]))


def test_shared_tensor_is_stored_once_and_stays_shared(tmp_path):
    w = lg.randn(3)
    lg.save({"enc": w, "dec": w}, tmp_path / "tied.safetensors")
    back = lg.load(tmp_path / "tied.safetensors")
    assert back["enc"] is back["dec"]


def test_file_objects_and_explicit_functions(tmp_path):
    buf = io.BytesIO()
    lg.serialization.save_safetensors({"a": lg.arange(3)}, buf)
    buf.seek(0)
    assert lg.serialization.load_safetensors(buf)["a"].tolist() == [0, 1, 2]
    buf.seek(0)
    assert lg.load(buf)["a"].tolist() == [0, 1, 2]  # recognised by its first bytes too
    with open(tmp_path / "f.safetensors", "wb") as fh:
        lg.serialization.save_safetensors(lg.ones(2), fh)
    assert lg.load(tmp_path / "f.safetensors", map_location="cpu", weights_only=True).tolist() == [1.0, 1.0]
    assert lg.load(tmp_path / "f.safetensors", mmap=True).tolist() == [1.0, 1.0]
    with raises_exactly(RuntimeError, match="dict or callable map_location"):
        lg.load(tmp_path / "f.safetensors", map_location={"cpu": "cpu"})
    with raises_exactly(RuntimeError, match="CUDA device"):
        lg.load(tmp_path / "f.safetensors", map_location="cuda")


def test_unsupported_objects_are_refused(tmp_path):
    with raises_exactly(TypeError, match="cannot store an object of type function .at 'fn'.*state_dict"):
        lg.save({"fn": lambda x: x}, tmp_path / "bad.safetensors")
    with raises_exactly(TypeError, match="dict keys must be"):
        lg.save({object(): 1}, tmp_path / "bad.safetensors")
    assert not (tmp_path / "bad.safetensors").exists()  # nothing is written when saving fails
    import leafgrad.nn as nn  # our own module: a broken import must fail, not skip
    with raises_exactly(TypeError, match="of type leafgrad.nn.*Linear.*Save a state_dict"):
        lg.save(nn.Linear(2, 2), tmp_path / "module.safetensors")


# ----------------------------------------------------------------------------- optimizer state dicts
@pytest.mark.parametrize("name,kw", [("SGD", dict(lr=0.1, momentum=0.9)), ("Adam", dict(lr=0.01, amsgrad=True)),
                                     ("RMSprop", dict(lr=0.01, centered=True)), ("Adagrad", dict(lr=0.1))])
def test_optimizer_state_dict_round_trip_resumes_training(tmp_path, name, kw):
    rng = np.random.default_rng(0)
    w0, x = rng.standard_normal((4, 2)).astype(np.float32), rng.standard_normal((8, 4)).astype(np.float32)

    def make():
        w = lg.tensor(w0, requires_grad=True)
        return w, getattr(lg.optim, name)([w], **kw)

    def step(w, opt):
        opt.zero_grad()
        (lg.tensor(x) @ w).tanh().pow(2).mean().backward()
        opt.step()

    w, opt = make()
    sched = lg.optim.lr_scheduler.MultiStepLR(opt, milestones=[2, 4], gamma=0.5)
    for _ in range(3):
        step(w, opt)
        sched.step()
    lg.save({"model": {"w": w}, "optimizer": opt.state_dict(), "scheduler": sched.state_dict(), "epoch": 3},
            tmp_path / "ckpt.safetensors")

    ckpt = lg.load(tmp_path / "ckpt.safetensors")
    sd = opt.state_dict()
    assert ckpt["optimizer"]["param_groups"] == sd["param_groups"]
    assert list(ckpt["optimizer"]["state"]) == [0]
    for k, v in sd["state"][0].items():
        assert ckpt["optimizer"]["state"][0][k].shape == v.shape
        np.testing.assert_array_equal(_np(ckpt["optimizer"]["state"][0][k]), _np(v))
    assert ckpt["scheduler"] == {k: v for k, v in sched.state_dict().items()}

    w2, opt2 = make()
    with lg.no_grad():
        w2.copy_(ckpt["model"]["w"])
    sched2 = lg.optim.lr_scheduler.MultiStepLR(opt2, milestones=[2, 4], gamma=0.5)
    opt2.load_state_dict(ckpt["optimizer"])
    sched2.load_state_dict(ckpt["scheduler"])
    for _ in range(3):
        step(w, opt), step(w2, opt2)
        sched.step(), sched2.step()
    np.testing.assert_array_equal(_np(w2), _np(w))
    assert sched2.get_last_lr() == sched.get_last_lr()


# ----------------------------------------------------------------------------- PyTorch interop
def test_torch_safetensors_file_loads_into_leafgrad(tmp_path):
    torch = pytest.importorskip("torch")
    st = pytest.importorskip("safetensors.torch")
    torch.manual_seed(0)
    tmodel = torch.nn.Sequential(torch.nn.Conv2d(1, 4, 3), torch.nn.ReLU(), torch.nn.Flatten(),
                                 torch.nn.Linear(4 * 6 * 6, 10), torch.nn.BatchNorm1d(10))
    path = tmp_path / "torch_model.safetensors"
    st.save_file(tmodel.state_dict(), str(path))

    sd = lg.load(path)
    assert set(sd) == set(tmodel.state_dict())
    for k, v in tmodel.state_dict().items():
        assert str(sd[k].dtype) == str(v.dtype) and tuple(sd[k].shape) == tuple(v.shape)
        np.testing.assert_array_equal(_np(sd[k]), v.detach().numpy())

    import leafgrad.nn as nn  # our own module: a broken import must fail, not skip
    lmodel = nn.Sequential(nn.Conv2d(1, 4, 3), nn.ReLU(), nn.Flatten(), nn.Linear(4 * 6 * 6, 10),
                           nn.BatchNorm1d(10))
    lmodel.load_state_dict(sd)
    tmodel.eval(), lmodel.eval()
    x = np.random.default_rng(0).standard_normal((5, 1, 8, 8)).astype(np.float32)
    with torch.no_grad(), lg.no_grad():
        np.testing.assert_allclose(_np(lmodel(lg.tensor(x))), tmodel(torch.tensor(x)).numpy(), atol=1e-5)


def test_leafgrad_file_loads_into_torch(tmp_path):
    torch = pytest.importorskip("torch")
    st = pytest.importorskip("safetensors.torch")
    import leafgrad.nn as nn  # our own module: a broken import must fail, not skip
    lg.manual_seed(0)
    lmodel = nn.Sequential(nn.Linear(8, 16), nn.ReLU(), nn.Linear(16, 3))
    path = tmp_path / "lg_model.safetensors"
    lg.save(lmodel.state_dict(), path)

    tsd = st.load_file(str(path))
    assert list(tsd) and set(tsd) == set(lmodel.state_dict())
    tmodel = torch.nn.Sequential(torch.nn.Linear(8, 16), torch.nn.ReLU(), torch.nn.Linear(16, 3))
    tmodel.load_state_dict(tsd)
    x = np.random.default_rng(1).standard_normal((4, 8)).astype(np.float32)
    with torch.no_grad(), lg.no_grad():
        np.testing.assert_allclose(tmodel(torch.tensor(x)).numpy(), _np(lmodel(lg.tensor(x))), atol=1e-6)


def test_plain_dict_of_tensors_is_readable_by_safetensors_torch(tmp_path):
    torch = pytest.importorskip("torch")
    st = pytest.importorskip("safetensors.torch")
    sd = {"a": lg.arange(4).reshape(2, 2), "b": lg.tensor(1.5), "c": lg.tensor([True])}
    lg.save(sd, tmp_path / "x.safetensors")
    tsd = st.load_file(str(tmp_path / "x.safetensors"))
    assert tsd["a"].dtype == torch.int64 and tsd["a"].tolist() == [[0, 1], [2, 3]]
    assert tsd["b"].shape == () and tsd["b"].item() == 1.5 and tsd["c"].dtype == torch.bool


def test_bfloat16_from_torch_loads_as_bfloat16(tmp_path):
    torch = pytest.importorskip("torch")
    st = pytest.importorskip("safetensors.torch")
    st.save_file({"w": torch.tensor([1.5, -2.25, 3.0], dtype=torch.bfloat16)}, str(tmp_path / "bf.safetensors"))
    w = lg.load(tmp_path / "bf.safetensors")["w"]
    assert w.dtype == lg.bfloat16 and w.tolist() == [1.5, -2.25, 3.0]


@pytest.mark.parametrize("tdtype", ["bfloat16", "float8_e4m3fn", "float8_e5m2", "uint16", "uint32", "uint64",
                                    "float16", "int8", "uint8", "int16", "int32", "int64", "bool", "float64",
                                    "complex64"])
def test_every_safetensors_dtype_from_torch_loads_bit_exact(tmp_path, tdtype):
    torch = pytest.importorskip("torch")
    st = pytest.importorskip("safetensors.torch")
    dt = getattr(torch, tdtype)
    if tdtype.startswith("float8"):
        t = torch.arange(256, dtype=torch.uint8).view(dt)  # every bit pattern
        expected = t.float().numpy()
    elif dt.is_floating_point or dt.is_complex:
        t = (torch.randn(5, 3, generator=torch.Generator().manual_seed(0)) * 100).to(dt)
        expected = t.to(torch.complex64 if dt.is_complex else torch.float64).numpy()
    elif dt == torch.bool:
        t = torch.tensor([[True, False, True]])
        expected = t.numpy()
    else:
        info = torch.iinfo(dt)
        hi = min(info.max, 2 ** 63 - 1)
        t = torch.tensor([info.min, 0, 1, hi], dtype=torch.int64 if dt != torch.uint64 else torch.uint64).to(dt) \
            if dt != torch.uint64 else torch.tensor([0, 1, 2 ** 63 - 1], dtype=torch.uint64)
        expected = np.array([int(v) for v in t.tolist()])
    st.save_file({"t": t, "shifted": t.flatten()[1:].clone()}, str(tmp_path / "x.safetensors"))
    back = lg.load(tmp_path / "x.safetensors")
    got = _np(back["t"])
    assert got.shape == tuple(t.shape)
    if got.dtype.kind == "f":
        np.testing.assert_array_equal(got.astype(np.float64), expected.astype(np.float64))
    else:
        np.testing.assert_array_equal(got, expected)
    assert str(back["t"].dtype) == ("torch.float32" if "float8" in tdtype else str(t.dtype))


def test_uint64_beyond_int64_loads_as_uint64(tmp_path):
    torch = pytest.importorskip("torch")
    st = pytest.importorskip("safetensors.torch")
    st.save_file({"t": torch.tensor([2 ** 64 - 1, 0], dtype=torch.uint64)}, str(tmp_path / "u.safetensors"))
    back = lg.load(tmp_path / "u.safetensors")["t"]
    assert back.dtype is lg.uint64 and back.tolist() == [2 ** 64 - 1, 0]


# ----------------------------------------------------------------------------- bad files
def _good_file(tmp_path):
    path = tmp_path / "good.safetensors"
    lg.save({"weight": lg.randn(4, 4), "bias": lg.randn(4)}, path)
    return path.read_bytes()


def _load_error(tmp_path, raw, name="bad.safetensors"):
    path = tmp_path / name
    path.write_bytes(raw)
    with raises_exactly(RuntimeError) as info:
        lg.load(path)
    msg = str(info.value)
    assert str(path) in msg  # the message names the file
    return msg


@pytest.mark.parametrize("cut", [5, 8, 20, -1, -17])
def test_truncated_files_raise_a_clear_runtime_error(tmp_path, cut):
    raw = _good_file(tmp_path)
    msg = _load_error(tmp_path, raw[:cut])
    assert "truncated" in msg


def test_corrupt_header_and_offsets(tmp_path):
    raw = _good_file(tmp_path)
    (n,) = struct.unpack("<Q", raw[:8])
    header = raw[8:8 + n]
    broken = raw[:8] + header.replace(b'"dtype"', b'"dtypX"', 1) + raw[8 + n:]
    assert "lacks dtype" in _load_error(tmp_path, broken)
    garbled = raw[:8] + b"{" + b"\xff" * (n - 1) + raw[8 + n:]
    assert "not valid JSON" in _load_error(tmp_path, garbled)
    hdr = json.loads(header)
    key = next(k for k in hdr if k != "__metadata__")
    hdr[key]["data_offsets"][1] += 4
    text = json.dumps(hdr).encode()
    assert "needs" in _load_error(tmp_path, struct.pack("<Q", len(text)) + text + raw[8 + n:])
    hdr = json.loads(header)
    hdr["__metadata__"]["leafgrad"] = "{not json"
    text = json.dumps(hdr).encode()
    assert "corrupt leafgrad metadata" in _load_error(tmp_path, struct.pack("<Q", len(text)) + text + raw[8 + n:])


def test_random_bytes_are_not_safetensors(tmp_path):
    msg = _load_error(tmp_path, b"\xff" * 8 + b"this is not a checkpoint at all\n" * 3)
    assert "not a safetensors file" in msg


def _header_file(entries: dict, data: bytes) -> bytes:
    text = json.dumps(entries).encode()
    return struct.pack("<Q", len(text)) + text + data


def test_overlapping_ranges_are_refused_on_every_dtype_path(tmp_path):
    # a 4 KiB data section referenced by many entries must not become many copies of it
    for code, item in (("F32", 4), ("BF16", 2), ("F8_E4M3", 1), ("U16", 2)):
        n = 4096 // item
        entries = {f"t{i}": {"dtype": code, "shape": [n], "data_offsets": [0, 4096]} for i in range(50)}
        assert "overlap" in _load_error(tmp_path, _header_file(entries, bytes(4096)))


def test_offsets_are_validated_for_bfloat16_and_float8(tmp_path):
    for code in ("BF16", "F8_E5M2"):
        entries = {"w": {"dtype": code, "shape": [1000], "data_offsets": [0, 2000]}}
        assert "needs" in _load_error(tmp_path, _header_file(entries, bytes(16)))
        entries = {"w": {"dtype": code, "shape": [4], "data_offsets": [0, 8 if code == "BF16" else 4]}}
        assert "truncated" in _load_error(tmp_path, _header_file(entries, bytes(2)))


def test_misaligned_offsets_load_the_right_values(tmp_path):
    vals = np.array([1.5, -2.0, 3.25], dtype="<f4")
    entries = {"a": {"dtype": "U8", "shape": [1], "data_offsets": [0, 1]},
               "b": {"dtype": "F32", "shape": [3], "data_offsets": [1, 13]}}
    path = tmp_path / "mis.safetensors"
    path.write_bytes(_header_file(entries, b"\x07" + vals.tobytes()))
    back = lg.load(path)
    assert back["a"].tolist() == [7] and back["b"].tolist() == vals.tolist()


@pytest.mark.parametrize("header", [
    b"[]", b'{"a": 1}', b'{"a": {"dtype": "F32", "shape": [-1], "data_offsets": [0, 0]}}',
    b'{"a": {"dtype": "F32", "shape": [true], "data_offsets": [0, 4]}}',
    b'{"a": {"dtype": "F32", "shape": [1], "data_offsets": [0]}}',
    b'{"a": {"dtype": "F32", "shape": [1], "data_offsets": [0, 4.0]}}',
    b'{"a": {"dtype": "X9", "shape": [1], "data_offsets": [0, 4]}}',
    b'{"a": {"dtype": ["F32"], "shape": [1], "data_offsets": [0, 4]}}',
    b'{"a": {"dtype": "F32", "shape": [1], "data_offsets": [0, 4]}, "a": {}}',
    b'{"__metadata__": {"x": 1}}', b'{"__metadata__": {"leafgrad": "[[[[[[[[[["}}',
    b'{"a": {"dtype": "F32", "shape": [' + b"1," * 70 + b'1], "data_offsets": [0, 4]}}',
    b'{"a": {"dtype": "F32", "shape": [4294967296, 4294967296, 4294967296], "data_offsets": [0, 4]}}',
    b"[" * 100_000 + b"]" * 100_000,
], ids=lambda h: h[:30].decode(errors="replace"))
def test_malformed_headers_raise_runtime_error(tmp_path, header):
    _load_error(tmp_path, struct.pack("<Q", len(header)) + header + bytes(4))


def test_huge_header_is_fast_and_bounded(tmp_path):
    import time
    import tracemalloc
    entries = {f"t{i}": {"dtype": "F32", "shape": [1], "data_offsets": [4 * i, 4 * i + 4]} for i in range(5_000)}
    raw = _header_file(entries, bytes(20_000))
    path = tmp_path / "many.safetensors"
    path.write_bytes(raw)
    tracemalloc.start()
    start = time.perf_counter()
    back = lg.load(path)
    elapsed = time.perf_counter() - start
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    assert len(back) == 5_000
    assert peak < 30 * len(raw), (peak, len(raw))  # a small multiple of the file (5k tensor objects)
    assert elapsed < 30  # a loose guard against quadratic behaviour, not a speed target


def test_old_leafgrad_safetensors_named_pt_still_loads(tmp_path):
    path = tmp_path / "old.pt"
    lg.serialization.save_safetensors({"w": lg.ones(2)}, path)
    assert lg.load(path)["w"].tolist() == [1.0, 1.0]


def test_missing_file_is_file_not_found(tmp_path):
    with pytest.raises(FileNotFoundError):
        lg.load(tmp_path / "nope.safetensors")
