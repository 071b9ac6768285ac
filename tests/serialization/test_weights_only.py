"""The weights-only loader: payloads are refused before anything runs, the allow-list and
torch's safe-globals API, torch's exception classes and warnings, and hostile pickles that
would cost unbounded time or memory."""
from __future__ import annotations

import builtins
import io
import os
import pickle
import struct

import pytest
from differential import raises_exactly

import leafgrad as lg
from leafgrad.serialization import _pickler, _zip


class Point:
    """A user class: pickled by reference, refused by default, loadable once allowed."""

    def __init__(self, x, y):
        self.x, self.y = x, y

    def __eq__(self, other):
        return type(other) is Point and (self.x, self.y) == (other.x, other.y)


class _Payload:
    """Unpickling this calls ``func(*args)``: what a malicious checkpoint does."""

    def __init__(self, func, *args):
        self.func, self.args = func, args

    def __reduce__(self):
        return self.func, self.args


def _zip_with_pickle(data: bytes, storages=()) -> bytes:
    buf = io.BytesIO()
    _zip.write(buf, "archive", data, list(storages))
    return buf.getvalue()


def _refused(raw: bytes, match: str = "^Weights only load failed"):
    with pytest.raises(pickle.UnpicklingError, match=match) as info:
        lg.load(io.BytesIO(raw))
    assert type(info.value) is pickle.UnpicklingError
    return str(info.value)


# ----------------------------------------------------------------------------- payloads run nothing
@pytest.mark.parametrize("how", ["torch_zip", "torch_legacy", "leafgrad_zip", "leafgrad_legacy", "protocol4"])
def test_payload_is_refused_and_runs_nothing(tmp_path, how):
    marker = tmp_path / "pwned"
    evil = {"weights": lg.ones(2), "x": _Payload(os.system, f"touch {marker}"),
            "y": _Payload(builtins.open, str(marker), "w")}
    path = tmp_path / "evil.pt"
    if how.startswith("torch"):
        torch = pytest.importorskip("torch")
        evil["weights"] = torch.ones(2)
        torch.save(evil, path, _use_new_zipfile_serialization=how == "torch_zip")
    elif how == "protocol4":
        lg.save(evil, path, pickle_protocol=4)
    else:
        lg.save(evil, path, _use_new_zipfile_serialization=how == "leafgrad_zip")
    with pytest.raises(pickle.UnpicklingError, match="^Weights only load failed.*GLOBAL (posix|os).system was not an "
                                                     "allowed global.*Nothing from the file was run") as info:
        if how == "protocol4":
            with pytest.warns(UserWarning, match="protocol 4"):
                lg.load(path)
        else:
            lg.load(path)
    assert type(info.value) is pickle.UnpicklingError
    assert not marker.exists()


def test_torch_refuses_the_same_payload_with_the_same_class(tmp_path):
    torch = pytest.importorskip("torch")
    marker = tmp_path / "pwned"
    path = tmp_path / "evil.pt"
    lg.save({"w": lg.ones(1), "x": _Payload(builtins.open, str(marker), "w")}, path)
    with pytest.raises(pickle.UnpicklingError, match="^Weights only load failed"):
        torch.load(path)
    with pytest.raises(pickle.UnpicklingError, match="^Weights only load failed"):
        lg.load(path)
    assert not marker.exists()


def test_weights_only_false_is_the_explicit_opt_in(tmp_path):
    marker = tmp_path / "ran"
    path = tmp_path / "trusted.pt"
    lg.save({"x": _Payload(builtins.open, str(marker), "w")}, path)
    lg.load(path, weights_only=False)  # the user said the file is trusted: pickle runs what it says
    assert marker.exists()


def _op(*parts: bytes) -> bytes:
    return b"".join(parts)


def _unicode(s: str) -> bytes:
    b = s.encode()
    return pickle.BINUNICODE + struct.pack("<I", len(b)) + b


@pytest.mark.parametrize("data,match", [
    # GLOBAL and STACK_GLOBAL of dangerous names
    (_op(pickle.PROTO, b"\x02", pickle.GLOBAL, b"builtins\neval\n", _unicode("1"), pickle.TUPLE1, pickle.REDUCE,
         pickle.STOP), "GLOBAL builtins.eval was not an allowed global"),
    (_op(pickle.PROTO, b"\x04", _unicode("builtins"), _unicode("getattr"), pickle.STACK_GLOBAL, pickle.STOP),
     "GLOBAL builtins.getattr was not an allowed global"),
    (_op(pickle.GLOBAL, b"__builtin__\n__import__\n", pickle.STOP), "GLOBAL builtins.__import__"),
    # instructions that call or import without a GLOBAL check
    (_op(pickle.MARK, pickle.INST, b"os\nsystem\n", pickle.STOP), "Unsupported operand"),
    (_op(pickle.MARK, pickle.GLOBAL, b"collections\nOrderedDict\n", pickle.OBJ, pickle.STOP), "Unsupported operand"),
    (_op(pickle.PROTO, b"\x02", pickle.EXT1, b"\x01", pickle.STOP), "Unsupported operand"),
    # calling something that did not come from the allow-list
    (_op(pickle.PROTO, b"\x02", _unicode("x"), pickle.EMPTY_TUPLE, pickle.REDUCE, pickle.STOP),
     "unrecognized function"),
    (_op(pickle.PROTO, b"\x02", pickle.EMPTY_LIST, pickle.EMPTY_TUPLE, pickle.NEWOBJ, pickle.STOP),
     "Can only create new objects"),
    (_op(pickle.PROTO, b"\x02", pickle.GLOBAL, b"builtins\nset\n", pickle.EMPTY_TUPLE, pickle.REDUCE,
         pickle.EMPTY_DICT, pickle.BUILD, pickle.STOP), "Can only build"),
    (_op(pickle.PROTO, b"\x02", pickle.EMPTY_TUPLE, _unicode("k"), _unicode("v"), pickle.SETITEM, pickle.STOP),
     "Can only SETITEMS"),
    (_op(pickle.PROTO, b"\x02", pickle.MARK, _unicode("module"), _unicode("os"), pickle.TUPLE, pickle.BINPERSID,
         pickle.STOP), "persistent id may only name a storage"),
    # malformed streams
    (_op(pickle.PROTO, b"\x02", pickle.BINUNICODE8, struct.pack("<Q", 1 << 60), pickle.STOP), "truncated"),
    (_op(pickle.PROTO, b"\x02", pickle.LONG4, struct.pack("<i", 2 ** 31 - 1), b"\x01", pickle.STOP), "truncated"),
    (_op(pickle.PROTO, b"\x02", pickle.BINGET, b"\x07", pickle.STOP), "memo entry 7"),
    (_op(pickle.PROTO, b"\x02", pickle.APPENDS, pickle.STOP), "MARK"),
    (_op(pickle.PROTO, b"\x02", pickle.POP, pickle.STOP), "malformed"),
    (_op(pickle.PROTO, b"\x09", pickle.STOP), "unsupported pickle protocol"),
    (_op(pickle.PROTO, b"\x02", pickle.NONE), "truncated"),
    (_op(pickle.PROTO, b"\x02", pickle.EMPTY_DICT, pickle.EMPTY_LIST, pickle.NONE, pickle.SETITEM, pickle.STOP),
     "unhashable"),
], ids=["eval", "stack_global_getattr", "py2_import", "inst", "obj", "ext1", "reduce_str", "newobj_list",
        "build_set", "setitem_tuple", "persid_module", "huge_unicode", "huge_long", "missing_memo", "no_mark",
        "pop_empty", "protocol_9", "no_stop", "list_key"])
@pytest.mark.filterwarnings("ignore:Detected pickle protocol")
def test_hostile_pickles_are_refused(data, match):
    _refused(_zip_with_pickle(data), match=f"^Weights only load failed.*{match}")


def test_allowed_builtins_cannot_allocate_or_run_codecs():
    for data in (_op(pickle.PROTO, b"\x02", pickle.GLOBAL, b"builtins\nbytearray\n", pickle.BININT,
                     struct.pack("<i", 2 ** 31 - 1), pickle.TUPLE1, pickle.REDUCE, pickle.STOP),
                 _op(pickle.PROTO, b"\x02", pickle.GLOBAL, b"_codecs\nencode\n", _unicode("x"), _unicode("zlib"),
                     pickle.TUPLE2, pickle.REDUCE, pickle.STOP)):
        with raises_exactly(RuntimeError, match="corrupt checkpoint"):
            lg.load(io.BytesIO(_zip_with_pickle(data)))


def _shared_tuple_bomb(levels: int, as_set: bool = False) -> bytes:
    out = [pickle.PROTO, b"\x04" if as_set else b"\x02", pickle.NONE, pickle.TUPLE1]
    for _ in range(levels):  # t = (t, t): 2**levels leaves from 3 bytes a level
        out += [pickle.DUP, pickle.TUPLE2]
    if as_set:
        return b"".join(out[:2] + [pickle.EMPTY_SET, pickle.MARK] + out[2:] + [pickle.ADDITEMS, pickle.STOP])
    return b"".join(out[:2] + [pickle.EMPTY_DICT] + out[2:] + [pickle.NONE, pickle.SETITEM, pickle.STOP])


@pytest.mark.filterwarnings("ignore:Detected pickle protocol")
@pytest.mark.parametrize("as_set", [False, True], ids=["dict_key", "set_item"])
def test_hash_bomb_is_refused_in_bounded_time(as_set):
    _refused(_zip_with_pickle(_shared_tuple_bomb(80, as_set)), match="too many shared parts")
    deep = b"".join([pickle.PROTO, b"\x02", pickle.EMPTY_DICT, pickle.NONE] + [pickle.TUPLE1] * 5000 +
                    [pickle.NONE, pickle.SETITEM, pickle.STOP])
    _refused(_zip_with_pickle(deep), match="nested too deeply")
    small = _shared_tuple_bomb(4)
    assert len(next(iter(lg.load(io.BytesIO(_zip_with_pickle(small)))))) == 2  # an honest tuple key loads


class _LyingPickler(_pickler.Pickler):
    def persistent_id(self, obj):
        pid = super().persistent_id(obj)
        return pid if pid is None else pid[:4] + (10 ** 12,) + pid[5:]


class _IntGradPickler(_pickler.Pickler):
    def _reduce_tensor(self, t):
        func, args = super()._reduce_tensor(t)
        return func, args[:4] + (True,) + args[5:]


def test_impossible_tensors_are_runtime_errors_exactly():
    buf = io.BytesIO()
    p = _IntGradPickler(buf, 2)
    p.dump({"w": lg.arange(3)})
    with raises_exactly(RuntimeError, match="marked requires_grad") as info:
        lg.load(io.BytesIO(_zip_with_pickle(buf.getvalue(), p.storages)))
    assert type(info.value) is RuntimeError


@pytest.mark.parametrize("legacy", [False, True], ids=["zip", "legacy"])
def test_storage_claiming_more_than_the_file_is_refused(legacy):
    buf = io.BytesIO()
    p = _LyingPickler(buf, 2, legacy=legacy)
    p.dump({"w": lg.ones(4)})
    out = io.BytesIO()
    if legacy:
        from leafgrad.serialization import _pt
        _pt.write_legacy(out, buf.getvalue(), p.storages, 2)
    else:
        _zip.write(out, "archive", buf.getvalue(), p.storages)
    with raises_exactly(RuntimeError, match="needs exactly|more bytes than the file holds"):
        lg.load(io.BytesIO(out.getvalue()))


# ----------------------------------------------------------------------------- the safe-globals API
def test_user_classes_need_to_be_allowed(tmp_path):
    path = tmp_path / "points.pt"
    lg.save({"p": Point(1, lg.ones(2)), "w": lg.zeros(1)}, path)
    msg = _refused(path.read_bytes(), match="add_safe_globals\\(\\[Point\\]\\)")
    assert f"GLOBAL {Point.__module__}.Point was not an allowed global" in msg
    ser = lg.serialization
    try:
        ser.add_safe_globals([Point])
        assert ser.get_safe_globals() == [Point]
        back = lg.load(path)
        assert back["p"].x == 1 and back["p"].y.tolist() == [1.0, 1.0]
    finally:
        ser.clear_safe_globals()
    assert ser.get_safe_globals() == []
    _refused(path.read_bytes())
    with ser.safe_globals([(Point, f"{Point.__module__}.Point")]):
        assert ser.get_safe_globals() == [(Point, f"{Point.__module__}.Point")]
        assert lg.load(path)["p"].x == 1
    assert ser.get_safe_globals() == []
    _refused(path.read_bytes())
    with raises_exactly(TypeError):
        ser.add_safe_globals(Point)
    assert lg.serialization is ser and lg.load(path, weights_only=False)["p"].x == 1


def test_torch_safe_globals_equivalent(tmp_path):
    torch = pytest.importorskip("torch")
    path = tmp_path / "points.pt"
    lg.save({"p": Point(2, 3)}, path)
    with pytest.raises(pickle.UnpicklingError, match="not an allowed global"):
        torch.load(path)
    with torch.serialization.safe_globals([Point]):
        assert torch.load(path)["p"] == Point(2, 3)
    with lg.serialization.safe_globals([Point]):
        assert lg.load(path)["p"] == Point(2, 3)


def test_torch_load_arguments(tmp_path):
    path = tmp_path / "w.pt"
    lg.save({"w": lg.ones(1)}, path)
    with raises_exactly(RuntimeError, match="Can not safely load weights when explicit pickle_module is specified"):
        lg.load(path, pickle_module=pickle, weights_only=True)
    assert lg.load(path, pickle_module=pickle)["w"].tolist() == [1.0]  # a pickle_module means weights_only=False
    with pytest.warns(UserWarning, match="pickle_load_args only works if `weights_only=False`"):
        lg.load(path, encoding="latin1")


def test_empty_and_foreign_files(tmp_path):
    empty = tmp_path / "empty.pt"
    empty.write_bytes(b"")
    with raises_exactly(EOFError, match="Ran out of input"):
        lg.load(empty)
    text = tmp_path / "notes.txt"
    text.write_bytes(b"this is a text file, not a checkpoint at all\n")
    with pytest.raises(pickle.UnpicklingError, match="^Weights only load failed.*invalid load key"):
        lg.load(text)
    with pytest.raises(pickle.UnpicklingError, match="invalid load key"):
        lg.load(text, weights_only=False)
    with raises_exactly(RuntimeError, match="PytorchStreamReader failed reading zip archive"):
        lg.load(io.BytesIO(b"PK\x03\x04" + b"\x00" * 40))
    with pytest.raises(FileNotFoundError):
        lg.load(tmp_path / "missing.pt")


def test_import_leafgrad_leaves_the_format_code_unloaded():
    import subprocess
    import sys
    code = ("import sys, leafgrad; assert 'leafgrad.serialization' not in sys.modules; "
            "import leafgrad.serialization as s; "
            "assert not any(m in sys.modules for m in ('leafgrad.serialization._unpickler', "
            "'leafgrad.serialization._zip', 'leafgrad.serialization._pickler')); "
            "assert leafgrad.serialization is s and callable(s.add_safe_globals)")
    subprocess.run([sys.executable, "-c", code], check=True, env={**os.environ})


def test_messages_about_file_contents_are_bounded():
    # a storage type given as a 2**80-leaf shared tuple: showing it in full would never finish
    tup = b"".join([pickle.NONE, pickle.TUPLE1] + [pickle.DUP, pickle.TUPLE2] * 80)
    data = b"".join([pickle.PROTO, b"\x02", pickle.MARK, _unicode("storage"), tup, _unicode("0"), _unicode("cpu"),
                     pickle.BININT1, b"\x01", pickle.TUPLE, pickle.BINPERSID, pickle.STOP])
    _refused(_zip_with_pickle(data), match="is not a storage type")
