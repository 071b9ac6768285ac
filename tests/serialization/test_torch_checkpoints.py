"""torch's pickle checkpoints (zip and legacy) both ways against real torch 2.13: state_dicts,
optimizer states, nested containers, shared storages and strides, every dtype, file objects,
mmap and map_location, and whole modules with weights_only=False."""
from __future__ import annotations

import io
import pathlib
import pickle
import zipfile
from collections import OrderedDict

import numpy as np
import pytest
from differential import raises_exactly

import leafgrad as lg
from leafgrad.serialization import _pickler, _zip

torch = pytest.importorskip("torch")
import leafgrad.nn as nn  # noqa: E402  (our own module: a broken import must fail, not skip)

FORMATS = pytest.mark.parametrize("zipped", [True, False], ids=["zip", "legacy"])


def _np(t):
    return t.detach().numpy() if str(t.dtype) != "torch.bfloat16" else t.detach().float().numpy()


def _bits(a: np.ndarray) -> bytes:
    return np.ascontiguousarray(a).tobytes()


def _torch_to_lg(obj, tmp_path, zipped=True, name="t.pt"):
    path = tmp_path / name
    torch.save(obj, path, _use_new_zipfile_serialization=zipped)
    return lg.load(path)


def _lg_to_torch(obj, tmp_path, zipped=True, name="l.pt"):
    path = tmp_path / name
    lg.save(obj, path, _use_new_zipfile_serialization=zipped)
    return torch.load(path, weights_only=True)


def _same(lt, tt):
    """A leafgrad and a torch tensor hold the same dtype, shape, strides and bits."""
    assert str(lt.dtype) == str(tt.dtype), (lt.dtype, tt.dtype)
    assert tuple(lt.shape) == tuple(tt.shape) and tuple(lt.stride()) == tuple(tt.stride())
    assert lt.requires_grad == tt.requires_grad
    assert _bits(_np(lt)) == _bits(_np(tt))


# ----------------------------------------------------------------------------- state dicts
def _torch_model():
    torch.manual_seed(0)
    return torch.nn.Sequential(torch.nn.Conv2d(1, 4, 3), torch.nn.ReLU(), torch.nn.Flatten(),
                               torch.nn.Linear(4 * 6 * 6, 10), torch.nn.BatchNorm1d(10))


def _lg_model():
    return nn.Sequential(nn.Conv2d(1, 4, 3), nn.ReLU(), nn.Flatten(), nn.Linear(4 * 6 * 6, 10), nn.BatchNorm1d(10))


@FORMATS
def test_torch_state_dict_loads_bit_for_bit_and_predicts_the_same(tmp_path, zipped):
    tmodel = _torch_model()
    tmodel.train()(torch.randn(6, 1, 8, 8))  # move the batch-norm statistics off their defaults
    sd = _torch_to_lg(tmodel.state_dict(), tmp_path, zipped)
    assert type(sd) is OrderedDict and list(sd) == list(tmodel.state_dict())
    assert sd._metadata == tmodel.state_dict()._metadata
    for k, v in tmodel.state_dict().items():
        _same(sd[k], v)
    lmodel = _lg_model()
    lmodel.load_state_dict(sd)
    tmodel.eval(), lmodel.eval()
    x = np.random.default_rng(0).standard_normal((5, 1, 8, 8)).astype(np.float32)
    with torch.no_grad(), lg.no_grad():
        np.testing.assert_allclose(_np(lmodel(lg.tensor(x))), tmodel(torch.tensor(x)).numpy(), atol=1e-5)


@FORMATS
def test_leafgrad_state_dict_loads_in_torch_weights_only(tmp_path, zipped):
    lg.manual_seed(0)
    lmodel = _lg_model()
    tsd = _lg_to_torch(lmodel.state_dict(), tmp_path, zipped)
    assert type(tsd) is OrderedDict and list(tsd) == list(lmodel.state_dict())
    for k, v in lmodel.state_dict().items():
        _same(v, tsd[k])
    tmodel = _torch_model()
    tmodel.load_state_dict(tsd)
    tmodel.eval(), lmodel.eval()
    x = np.random.default_rng(1).standard_normal((4, 1, 8, 8)).astype(np.float32)
    with torch.no_grad(), lg.no_grad():
        np.testing.assert_allclose(tmodel(torch.tensor(x)).numpy(), _np(lmodel(lg.tensor(x))), atol=1e-5)


def test_file_written_by_leafgrad_has_torchs_layout(tmp_path):
    path = tmp_path / "model.pt"
    lg.save({"w": lg.ones(3)}, path)
    with zipfile.ZipFile(path) as zf:
        names = zf.namelist()
        assert {"model/data.pkl", "model/byteorder", "model/version", "model/data/0"} <= set(names)
        assert all(i.compress_type == zipfile.ZIP_STORED for i in zf.infolist())
        info = zf.getinfo("model/data/0")
    raw = path.read_bytes()
    n, m = np.frombuffer(raw[info.header_offset + 26:info.header_offset + 30], dtype="<u2")
    assert (info.header_offset + 30 + n + m) % 64 == 0  # records are 64-byte aligned, as torch writes them
    buf = io.BytesIO()
    lg.save({"w": lg.ones(3)}, buf)
    assert zipfile.ZipFile(io.BytesIO(buf.getvalue())).namelist()[0].startswith("archive/")


# ----------------------------------------------------------------------------- storages, views, strides
@FORMATS
@pytest.mark.parametrize("direction", ["torch_to_leafgrad", "leafgrad_to_torch"])
def test_views_keep_sharing_storage(tmp_path, zipped, direction):
    src = torch if direction == "torch_to_leafgrad" else lg
    x = src.arange(12.0)
    obj = {"x": x, "tail": x[5:9], "t": x.view(3, 4).t(), "step": x[::3], "other": src.ones(2)}
    if src is torch:
        back = _torch_to_lg(obj, tmp_path, zipped)
        for k in obj:
            _same(back[k], obj[k])
        assert np.shares_memory(back["x"]._data, back["tail"]._data)
        assert np.shares_memory(back["x"]._data, back["t"]._data)
        assert not np.shares_memory(back["x"]._data, back["other"]._data)
        back["x"].add_(100)  # writable, and the views see it as torch's would
        assert back["tail"].tolist() == [105.0, 106.0, 107.0, 108.0] and back["step"][1].item() == 103.0
        return
    back = _lg_to_torch(obj, tmp_path, zipped)
    for k in obj:
        _same(obj[k], back[k])
    ptr = back["x"].untyped_storage().data_ptr()
    assert back["tail"].untyped_storage().data_ptr() == ptr and back["tail"].storage_offset() == 5
    assert back["t"].untyped_storage().data_ptr() == ptr and back["step"].untyped_storage().data_ptr() == ptr
    assert back["other"].untyped_storage().data_ptr() != ptr


def test_same_tensor_twice_stays_one_object(tmp_path):
    w = lg.randn(3)
    back = lg.load(_save_lg({"enc": w, "dec": w, "list": [w]}, tmp_path))
    assert back["enc"] is back["dec"] is back["list"][0]
    t = torch.randn(3)
    back = _torch_to_lg({"enc": t, "dec": t}, tmp_path)
    assert back["enc"] is back["dec"]


def _save_lg(obj, tmp_path, name="x.pt", **kw):
    path = tmp_path / name
    lg.save(obj, path, **kw)
    return path


def test_empty_zero_dim_and_expanded_tensors(tmp_path):
    objs = {"empty": torch.zeros(0, 3), "scalar": torch.tensor(2.5), "expanded": torch.ones(1, 3).expand(4, 3),
            "empty_int": torch.zeros(2, 0, dtype=torch.int64)}
    back = _torch_to_lg(objs, tmp_path)
    for k in objs:
        _same(back[k], objs[k])
    lobjs = {"empty": lg.zeros(0, 3), "scalar": lg.tensor(2.5), "expanded": lg.ones(1, 3).expand(4, 3)}
    tback = _lg_to_torch(lobjs, tmp_path)
    for k in lobjs:
        assert tback[k].tolist() == lobjs[k].tolist() and tuple(tback[k].shape) == tuple(lobjs[k].shape)


# ----------------------------------------------------------------------------- every dtype
_TORCH_DTYPES = ["float32", "float64", "float16", "bfloat16", "complex32", "complex64", "complex128", "uint8", "int8",
                 "int16", "int32", "int64", "bool", "uint16", "uint32", "uint64", "float8_e4m3fn", "float8_e5m2",
                 "float8_e4m3fnuz", "float8_e5m2fnuz", "float8_e8m0fnu"]
# what leafgrad holds each as: its own dtype when it has one, else the smallest dtype that holds every value
_ARRIVES_AS = {"complex32": "complex64"}


def _sample(name: str):
    dt = getattr(torch, name)
    if name.startswith("float8"):
        return torch.arange(256, dtype=torch.uint8).view(dt).reshape(16, 16)  # every bit pattern
    if dt == torch.bool:
        return torch.tensor([[True, False], [False, True]])
    if dt.is_floating_point or dt.is_complex:
        g = torch.Generator().manual_seed(0)
        base = torch.randn(4, 3, generator=g) * 50
        return torch.complex(base, -base).to(dt) if dt.is_complex else base.to(dt)
    info = torch.iinfo(dt)
    return torch.tensor([info.min, 0, 1, min(info.max, 2 ** 63 - 1)], dtype=torch.int64).to(dt) \
        if dt != torch.uint64 else torch.tensor([0, 1, 2 ** 63 - 1], dtype=torch.uint64)


def _reference(t) -> np.ndarray:
    if t.dtype.is_complex:
        return t.to(torch.complex128).numpy()
    if t.dtype.is_floating_point:
        return t.to(torch.float64).numpy()
    if t.dtype == torch.bool:
        return t.numpy()
    return np.array(t.to(torch.int64).tolist() if t.dtype != torch.uint64 else [int(v) for v in t.tolist()])


@FORMATS
@pytest.mark.filterwarnings("ignore:ComplexHalf support is experimental")
@pytest.mark.parametrize("name", _TORCH_DTYPES)
def test_every_torch_dtype_loads_with_exact_values(tmp_path, zipped, name):
    t = _sample(name)
    obj = {"t": t, "view": t.flatten()[1:3], "p": torch.nn.Parameter(t.clone(), requires_grad=False)}
    back = _torch_to_lg(obj, tmp_path, zipped)
    got = _np(back["t"])
    arrives = _ARRIVES_AS.get(name, "float32" if "float8" in name else name)
    assert str(back["t"].dtype) == "torch." + arrives
    assert got.shape == tuple(t.shape)
    ref = _reference(t)
    np.testing.assert_array_equal(got.astype(ref.dtype), ref)
    np.testing.assert_array_equal(_np(back["view"]).astype(ref.dtype), ref.reshape(-1)[1:3])
    assert type(back["p"]) is nn.Parameter and not back["p"].requires_grad
    if arrives == name:  # leafgrad has this dtype: the bits are the file's bits
        assert _bits(got) == _bits(_np(t))


@FORMATS
@pytest.mark.parametrize("name", ["float32", "float64", "float16", "bfloat16", "complex64", "complex128", "uint8", "int8",
                                  "int16", "int32", "int64", "bool", "uint16", "uint32", "uint64"])
def test_every_leafgrad_dtype_loads_in_torch_bit_for_bit(tmp_path, zipped, name):
    ldt = getattr(lg, name)
    base = lg.arange(-6, 6).reshape(3, 4) * 7 + 1
    t = (base > 0) if name == "bool" else (base.to(ldt) if not name.startswith("uint") else base.abs().to(ldt))
    if ldt.is_complex:
        t = t * (1 - 2j)
    obj = {"t": t, "t_t": t.t(), "grad": lg.ones(2, requires_grad=True) if name == "float32" else t}
    if name.startswith("uint") and name != "uint8" and not zipped:
        # torch writes these legacy files the same way (an untyped storage) but cannot read them back
        # itself; leafgrad can, and matches the bytes torch writes (see test_unsigned_dtypes_vs_torch.py)
        path = tmp_path / "l.pt"
        lg.save(obj, path, _use_new_zipfile_serialization=False)
        with raises_exactly(AttributeError):
            torch.load(path, weights_only=False)
        back = lg.load(path)
        assert back["t"].dtype is ldt and back["t"].tolist() == t.tolist() and back["t_t"].tolist() == t.t().tolist()
        return
    back = _lg_to_torch(obj, tmp_path, zipped)
    for k in obj:
        _same(obj[k], back[k])


# ----------------------------------------------------------------------------- nested containers and optimizers
def _nested(mod):
    return {"epoch": 7, "best": 0.987, "name": "mlp", "none": None, "flag": True, "inf": float("inf"),
            "betas": (0.9, 0.999), "history": [1.5, 2.5, [3, (4, 5)]],
            "int_keys": {0: {"step": mod.tensor(3.0)}, 1: {}},
            "weights": OrderedDict(w=mod.ones(2, 2)), "blob": b"\x00\xffab", "set": {1, 2}, "z": 1 - 2j,
            "big": 2 ** 70, "neg": -(2 ** 40), "dtype": mod.float16, "size": mod.Size([2, 3]),
            "device": mod.device("cpu")}


def _plain(obj):
    """Containers compared by value, tensors by their values, across libraries."""
    if hasattr(obj, "tolist") and not isinstance(obj, (bytes, bytearray)):
        return ("tensor", obj.tolist())
    if isinstance(obj, dict):
        return (type(obj).__name__, [(k, _plain(v)) for k, v in obj.items()])
    if isinstance(obj, (list, tuple)) and type(obj).__name__ != "Size":
        return (type(obj).__name__, [_plain(v) for v in obj])
    return (type(obj).__name__ if not isinstance(obj, tuple) else "Size", str(obj).replace("leafgrad", "torch"))


@FORMATS
def test_nested_containers_both_ways(tmp_path, zipped):
    assert _plain(_torch_to_lg(_nested(torch), tmp_path, zipped)) == _plain(_nested(torch))
    assert _plain(_lg_to_torch(_nested(lg), tmp_path, zipped)) == _plain(_nested(lg))
    back = lg.load(_save_lg(_nested(lg), tmp_path))
    assert back["dtype"] is lg.float16 and back["size"] == lg.Size([2, 3]) and back["device"] == lg.device("cpu")
    assert type(back["betas"]) is tuple and type(back["weights"]) is OrderedDict
    assert back["int_keys"][0]["step"].shape == ()


@pytest.mark.parametrize("name,kw", [("SGD", dict(lr=0.1, momentum=0.9)), ("Adam", dict(lr=0.01, amsgrad=True)),
                                     ("AdamW", dict(lr=0.01)), ("RMSprop", dict(lr=0.01, centered=True))])
def test_optimizer_state_resumes_across_libraries(tmp_path, name, kw):
    rng = np.random.default_rng(0)
    w0, x = rng.standard_normal((4, 2)).astype(np.float32), rng.standard_normal((8, 4)).astype(np.float32)

    def loss(mod, w):
        return (mod.tensor(x) @ w).tanh().pow(2).mean()

    # train 3 steps in leafgrad, checkpoint, resume in torch; and the other way round
    lw = lg.tensor(w0, requires_grad=True)
    lopt = getattr(lg.optim, name)([lw], **kw)
    for _ in range(3):
        lopt.zero_grad(), loss(lg, lw).backward(), lopt.step()
    path = _save_lg({"w": lw, "optimizer": lopt.state_dict()}, tmp_path, "ckpt.pt")
    ck = torch.load(path, weights_only=True)
    assert list(ck["optimizer"]["state"]) == [0] and ck["optimizer"]["param_groups"][0]["params"] == [0]
    tw = torch.nn.Parameter(ck["w"].detach().clone())
    topt = getattr(torch.optim, name)([tw], **kw)
    topt.load_state_dict(ck["optimizer"])
    for _ in range(2):
        lopt.zero_grad(), loss(lg, lw).backward(), lopt.step()
        topt.zero_grad(), loss(torch, tw).backward(), topt.step()
    np.testing.assert_allclose(tw.detach().numpy(), _np(lw), rtol=1e-5, atol=1e-6)

    tpath = tmp_path / "torch_ckpt.pt"
    torch.save({"w": tw.detach(), "optimizer": topt.state_dict()}, tpath)
    ck2 = lg.load(tpath)
    state = ck2["optimizer"]["state"][0]
    for k, v in topt.state_dict()["state"][0].items():
        if hasattr(v, "shape"):
            _same(state[k], v)
    lw2 = lg.tensor(_np(ck2["w"]), requires_grad=True)
    lopt2 = getattr(lg.optim, name)([lw2], **kw)
    lopt2.load_state_dict(ck2["optimizer"])
    lopt2.zero_grad(), loss(lg, lw2).backward(), lopt2.step()
    topt.zero_grad(), loss(torch, tw).backward(), topt.step()
    np.testing.assert_allclose(_np(lw2), tw.detach().numpy(), rtol=1e-5, atol=1e-6)


# ----------------------------------------------------------------------------- files, mmap, map_location
def test_paths_file_objects_and_buffers(tmp_path):
    t = lg.arange(5)
    for target in (tmp_path / "p.pt", str(tmp_path / "s.pt")):
        lg.save(t, target)
        assert lg.load(target).tolist() == [0, 1, 2, 3, 4]
        assert lg.load(pathlib.Path(target)).tolist() == torch.load(target).tolist()
    buf = io.BytesIO()
    lg.save(t, buf)
    assert lg.load(io.BytesIO(buf.getvalue())).tolist() == [0, 1, 2, 3, 4]
    assert torch.load(io.BytesIO(buf.getvalue())).tolist() == [0, 1, 2, 3, 4]
    with open(tmp_path / "fh.pt", "wb") as fh:
        lg.save(t, fh)
    with open(tmp_path / "fh.pt", "rb") as fh:
        assert lg.load(fh).tolist() == [0, 1, 2, 3, 4]
    tbuf = io.BytesIO()
    torch.save(torch.arange(3), tbuf)
    tbuf.seek(0)
    assert lg.load(tbuf).tolist() == [0, 1, 2]
    with raises_exactly(AttributeError, match="'write' attribute"):
        lg.save(t, 42)


def test_mmap_maps_storages_copy_on_write(tmp_path):
    path = tmp_path / "m.pt"
    x = torch.arange(8.0)
    torch.save({"w": x, "v": x[2:4]}, path)
    before = path.read_bytes()
    back = lg.load(path, mmap=True)
    assert back["w"].tolist() == list(range(8)) and back["v"].tolist() == [2.0, 3.0]
    back["w"].add_(1)
    assert back["v"].tolist() == [3.0, 4.0] and path.read_bytes() == before  # the file is never written
    with raises_exactly(ValueError, match="file path"):
        lg.load(io.BytesIO(before), mmap=True)
    legacy = tmp_path / "legacy.pt"
    torch.save({"w": torch.ones(2)}, legacy, _use_new_zipfile_serialization=False)
    with raises_exactly(RuntimeError, match="mmap can only be used"):
        lg.load(legacy, mmap=True)


class _CudaPickler(_pickler.Pickler):
    def persistent_id(self, obj):
        pid = super().persistent_id(obj)
        return pid if pid is None else pid[:3] + ("cuda:0",) + pid[4:]


def _cuda_checkpoint(tmp_path):
    """A checkpoint whose storages say they were saved on cuda:0 (as a GPU machine writes them)."""
    buf = io.BytesIO()
    p = _CudaPickler(buf, 2)
    p.dump({"w": lg.arange(3.0)})
    path = tmp_path / "gpu.pt"
    with open(path, "wb") as fh:
        _zip.write(fh, "gpu", buf.getvalue(), p.storages)
    return path


def test_map_location(tmp_path):
    path = _cuda_checkpoint(tmp_path)
    assert torch.load(path, map_location="cpu")["w"].tolist() == [0.0, 1.0, 2.0]  # torch agrees on the layout
    with raises_exactly(RuntimeError, match="Attempting to deserialize object on a CUDA device.*map_location"):
        lg.load(path)
    for ml in ("cpu", lg.device("cpu"), {"cuda:0": "cpu"}, lambda storage, loc: storage,
               lambda storage, loc: storage.cpu(), lambda storage, loc: None if False else storage):
        assert lg.load(path, map_location=ml)["w"].tolist() == [0.0, 1.0, 2.0]
    with raises_exactly(RuntimeError, match="CUDA device"):
        lg.load(_save_lg(lg.ones(1), tmp_path), map_location="cuda:0")


# ----------------------------------------------------------------------------- parameters and whole modules
def test_parameters_and_requires_grad(tmp_path):
    p = nn.Parameter(lg.randn(2, 3))
    frozen = nn.Parameter(lg.randn(2), requires_grad=False)
    back = _lg_to_torch({"p": p, "frozen": frozen, "leaf": lg.ones(2, requires_grad=True)}, tmp_path)
    assert type(back["p"]) is torch.nn.Parameter and back["p"].requires_grad and not back["frozen"].requires_grad
    assert back["leaf"].requires_grad and type(back["leaf"]) is torch.Tensor
    tback = _torch_to_lg({"p": torch.nn.Parameter(torch.ones(2)), "leaf": torch.ones(2, requires_grad=True)}, tmp_path)
    assert type(tback["p"]) is nn.Parameter and tback["p"].requires_grad and tback["p"].is_leaf
    assert type(tback["leaf"]) is lg.Tensor and tback["leaf"].requires_grad


@FORMATS
def test_torch_lazy_conj_and_neg_views_load_with_their_values(tmp_path, zipped):
    c = torch.tensor([1 + 2j, 3 - 4j]).conj()
    n = torch.tensor([1 + 1j, 2j])._neg_view()
    back = _torch_to_lg({"c": c, "n": n}, tmp_path, zipped)
    assert back["c"].tolist() == c.resolve_conj().tolist() and back["n"].tolist() == n.resolve_neg().tolist()


def test_tensor_attributes_survive(tmp_path):
    t = torch.ones(2)
    t.note = "kept"
    back = _torch_to_lg({"t": t}, tmp_path)
    assert back["t"].note == "kept" and back["t"].tolist() == [1.0, 1.0]
    lt = lg.ones(2)
    lt.note = "kept"
    assert _lg_to_torch({"t": lt}, tmp_path)["t"].note == "kept"


def test_whole_module_needs_weights_only_false(tmp_path):
    lg.manual_seed(0)
    model = nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 2))
    path = _save_lg(model, tmp_path, "model.pt")
    with pytest.raises(pickle.UnpicklingError, match="^Weights only load failed.*leafgrad.nn.*weights_only=False"):
        lg.load(path)
    back = lg.load(path, weights_only=False)
    assert type(back) is nn.Sequential
    x = lg.randn(3, 4)
    with lg.no_grad():
        np.testing.assert_array_equal(_np(back(x)), _np(model(x)))
    back.train()  # a working module: it trains
    back(x).sum().backward()
    assert back[0].weight.grad is not None


@pytest.mark.filterwarnings("ignore:.*not the default pickle protocol")
def test_pickle_protocols(tmp_path):
    for protocol in (1, 2, 3, 4, 5):  # (protocol 0 writes storage ids as text, which torch cannot read back)
        path = _save_lg({"w": lg.arange(3), "t": (1, "a")}, tmp_path, f"p{protocol}.pt", pickle_protocol=protocol)
        # torch's own weights-only unpickler reads protocols 2 and 3 only (no FRAME)
        assert torch.load(path, weights_only=protocol in (2, 3))["w"].tolist() == [0, 1, 2]
        if protocol <= 2:  # (protocol 1 has no PROTO opcode to warn about)
            back = lg.load(path)
        else:
            with pytest.warns(UserWarning, match=f"pickle protocol {protocol}"):
                back = lg.load(path)
        assert back["w"].tolist() == [0, 1, 2] and back["t"] == (1, "a")
