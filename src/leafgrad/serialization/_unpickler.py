"""The weights-only unpickler: a pickle interpreter that can only build data.

Python's own unpickler imports and calls whatever a file names, which is how a checkpoint
can run code. This one reads the opcodes itself: every ``GLOBAL`` is looked up in an
explicit table (the built-in list in ``_torch_names`` plus the user's
``add_safe_globals``), and a name not in it stops the load before anything is called.
Objects can only be created by those entries, filled only when they are plain
containers (or user-allowed classes), and persistent ids only name storages.

Work is bounded by the input: every length is checked against the bytes that remain
before anything is read, and hashing of dict/set keys built from shared sub-tuples (which
could cost exponential time) is metered against a budget proportional to the file.
"""
from __future__ import annotations

import _compat_pickle
import pickle
import struct
import warnings
from typing import Any, Callable

from . import _safe_globals, _torch_names as TN
from .._tensor import Tensor

UnpicklingError = pickle.UnpicklingError

_MAX_LINE = 1 << 16
_MAX_KEY_DEPTH = 100
_DEFAULT_DESCRIPTION = ("a weights file may only use tensors and storages, dtypes, torch.Size, torch.device, "
                        "OrderedDict/Counter/set and plain numbers, strings, bytes, lists, tuples and dicts")


def unsupported_global_message(full_path: str) -> str:
    short = full_path.rsplit(".", 1)[-1]
    return (f"Unsupported global: GLOBAL {full_path} was not an allowed global by default ({_DEFAULT_DESCRIPTION}). "
            "Nothing from the file was run. If you trust where the file came from, either load it with "
            f"weights_only=False (which unpickles it fully and can run arbitrary code), or allow just this name "
            f"with leafgrad.serialization.add_safe_globals([{short}]) or the "
            f"leafgrad.serialization.safe_globals([{short}]) context manager.")


class WeightsUnpickler:
    """Unpickle one pickle from ``data`` starting at ``pos``; ``persistent_load(pid)`` resolves storages."""

    def __init__(self, data: bytes, pos: int = 0, persistent_load: Callable | None = None,
                 encoding: str = "utf-8") -> None:
        self.data, self.pos, self.end = data, pos, len(data)
        self.persistent_load = persistent_load
        self.encoding = encoding
        self.memo: dict[int, Any] = {}
        self.stack: list[Any] = []
        self.metastack: list[list[Any]] = []
        self.proto = 0
        self.user = _safe_globals.user_globals()
        self.user_ids = {id(v) for v in self.user.values()}
        self.key_budget = 4 * len(data) + 100_000

    # ------------------------------------------------------------------ reading
    def read(self, n: int) -> bytes:
        if n < 0 or n > self.end - self.pos:
            raise UnpicklingError(f"pickle data was truncated: an opcode at byte {self.pos} needs {n} more bytes, "
                                  f"but only {self.end - self.pos} remain")
        out = self.data[self.pos:self.pos + n]
        self.pos += n
        return out

    def readline(self) -> bytes:
        stop = self.data.find(b"\n", self.pos, min(self.end, self.pos + _MAX_LINE))
        if stop < 0:
            raise UnpicklingError(f"pickle data was truncated (or a text field is too long) at byte {self.pos}")
        out = self.data[self.pos:stop]
        self.pos = stop + 1
        return out

    def _u(self, fmt: str, n: int) -> int:
        return struct.unpack(fmt, self.read(n))[0]

    def pop_mark(self) -> list:
        if not self.metastack:
            raise UnpicklingError("malformed pickle: an opcode needs a MARK that was never set")
        items = self.stack
        self.stack = self.metastack.pop()
        return items

    # ------------------------------------------------------------------ checks
    def check_key(self, key: Any) -> None:
        """Refuse keys whose hash would cost more than the remaining budget, or nest too deeply."""
        if type(key) not in (tuple, frozenset):
            return
        todo = [(key, 0)]
        while todo:
            obj, depth = todo.pop()
            self.key_budget -= 1
            if self.key_budget < 0 or depth > _MAX_KEY_DEPTH:
                raise UnpicklingError("malformed pickle: a dict key or set element is a tuple nested too deeply "
                                      "or built from too many shared parts to hash safely")
            if type(obj) in (tuple, frozenset):
                todo.extend((o, depth + 1) for o in obj)

    def check_items(self, args: tuple) -> None:
        for a in args:
            if type(a) in (list, tuple, set, frozenset):
                for item in a:
                    self.check_key(item)
                    if type(item) is tuple and item:
                        self.check_key(item[0])

    def allowed_callable(self, func: Any) -> bool:
        return id(func) in TN.CALLABLE_IDS or (id(func) in self.user_ids and callable(func))

    # ------------------------------------------------------------------ the loop
    def load(self) -> Any:
        try:
            return self._run()
        except UnpicklingError:
            raise
        except RecursionError as exc:
            raise UnpicklingError(f"malformed pickle data ({exc})") from None
        except RuntimeError as exc:  # a clear message about the data (an impossible tensor, an unplaceable storage)
            if type(exc) is RuntimeError:
                raise
            raise RuntimeError(str(exc)) from None  # one class for a bad file, not leafgrad's subclasses
        except Exception as exc:  # IndexError on an empty stack, KeyError on a missing memo entry, ...
            raise UnpicklingError(f"malformed pickle data near byte {self.pos}: {type(exc).__name__}: "
                                  f"{str(exc)[:200]}") from None

    def _run(self) -> Any:
        if self.pos >= self.end:
            raise UnpicklingError("Ran out of input: the pickle data is empty")
        ops = _OPS
        while True:
            if self.pos >= self.end:
                raise UnpicklingError("pickle data was truncated: it ends before its STOP opcode")
            code = self.data[self.pos]
            self.pos += 1
            if code == 0x2E:  # STOP
                return self.stack.pop()
            op = ops.get(code)
            if op is None:
                raise UnpicklingError(f"Unsupported operand {code} ({bytes([code])!r}) at byte {self.pos - 1}: the "
                                      "weights-only loader does not run that pickle instruction")
            op(self)

    # ------------------------------------------------------------------ globals and calls
    def find_global(self, module: str, name: str) -> Any:
        if self.proto < 3:
            if (module, name) in _compat_pickle.NAME_MAPPING:
                module, name = _compat_pickle.NAME_MAPPING[(module, name)]
            elif module in _compat_pickle.IMPORT_MAPPING:
                module = _compat_pickle.IMPORT_MAPPING[module]
        full = f"{module}.{name}"
        if full in TN.DEFAULT_GLOBALS:
            return TN.DEFAULT_GLOBALS[full]
        if full in self.user:
            return self.user[full]
        raise UnpicklingError(unsupported_global_message(full))

    def reduce(self) -> None:
        args = self.stack.pop()
        func = self.stack[-1]
        if not self.allowed_callable(func):
            raise UnpicklingError(f"Trying to call reduce for unrecognized function {_name(func)}: only the allowed "
                                  "globals may be called")
        if type(args) is not tuple:
            raise UnpicklingError("malformed pickle: REDUCE arguments must be a tuple")
        if func in TN.CLASSES:
            self.check_items(args)
        self.stack[-1] = func(*args)

    def newobj(self) -> None:
        args = self.stack.pop()
        cls = self.stack.pop()
        if type(args) is not tuple:
            raise UnpicklingError("malformed pickle: NEWOBJ arguments must be a tuple")
        if cls is TN.PARAMETER:
            self.stack.append(TN.NEW_PARAMETER(*args))
        elif isinstance(cls, type) and (cls in TN.CLASSES or id(cls) in self.user_ids):
            self.stack.append(cls.__new__(cls, *args))
        else:
            raise UnpicklingError(f"Can only create new objects of nn.Parameter or of classes allowed with "
                                  f"add_safe_globals, but got {_name(cls)}")

    def build(self) -> None:
        state = self.stack.pop()
        inst = self.stack[-1]
        kind = type(inst)
        if kind in (TN.OrderedDict, TN.Counter) or isinstance(inst, Tensor):
            if not isinstance(state, dict) or not all(type(k) is str for k in state):
                raise UnpicklingError(f"malformed pickle: the state of a {kind.__name__} must be a dict of "
                                      "attributes")
            if isinstance(inst, Tensor):
                TN.set_state(inst, state)
            else:
                inst.__dict__.update(state)
        elif id(kind) in self.user_ids:
            setstate = getattr(inst, "__setstate__", None)
            if setstate is not None:
                setstate(state)
                return
            slotstate = None
            if isinstance(state, tuple) and len(state) == 2:
                state, slotstate = state
            if state:
                inst.__dict__.update(state)
            if slotstate:
                for k, v in slotstate.items():
                    setattr(inst, k, v)
        else:
            raise UnpicklingError(f"Can only build Tensor, Parameter, OrderedDict or types allowed with "
                                  f"add_safe_globals, but got {_name(kind)}")

    def persid(self, pid: Any) -> None:
        ok = type(pid) is tuple and pid and (pid[0] == "storage" or pid[0] == b"storage")
        if not ok or self.persistent_load is None:
            raise UnpicklingError("malformed pickle: a persistent id may only name a storage")
        self.stack.append(self.persistent_load(pid))

    def setitems(self, target: Any, items: list) -> None:
        if type(target) not in (dict, TN.OrderedDict, TN.Counter):
            raise UnpicklingError(f"Can only SETITEMS for dict, collections.OrderedDict, collections.Counter, but "
                                  f"got {_name(type(target))}")
        if len(items) % 2:
            raise UnpicklingError("malformed pickle: SETITEMS with an odd number of items")
        for i in range(0, len(items), 2):
            self.check_key(items[i])
            target[items[i]] = items[i + 1]


def _name(obj: Any) -> str:
    if isinstance(obj, type) or callable(obj):
        return f"{getattr(obj, '__module__', '?')}.{getattr(obj, '__qualname__', type(obj).__name__)}"
    return f"an object of type {type(obj).__name__}"


# ----------------------------------------------------------------------------- opcodes
def _op_table() -> dict[int, Callable[[WeightsUnpickler], None]]:
    P = pickle
    t: dict[bytes, Callable[[WeightsUnpickler], None]] = {}

    def push(u, v):
        u.stack.append(v)

    def proto(u):
        u.proto = u.read(1)[0]
        if u.proto > pickle.HIGHEST_PROTOCOL:
            raise UnpicklingError(f"unsupported pickle protocol: {u.proto}")
        if u.proto != 2:
            warnings.warn(f"Detected pickle protocol {u.proto} in the checkpoint; torch.save writes protocol 2 "
                          "and the weights-only loader is built around it. The load continues with the "
                          "instructions it supports.", UserWarning, stacklevel=6)

    def frame(u):
        n = u._u("<Q", 8)
        if n > u.end - u.pos:
            raise UnpicklingError("pickle data was truncated: a FRAME is longer than the data left")

    def text_int(u):
        line = u.readline()
        push(u, True if line == b"01" else False if line == b"00" else int(line))

    def text_long(u):
        line = u.readline()
        push(u, int(line[:-1] if line.endswith(b"L") else line))

    def memo_put(u, idx):
        if idx < 0:
            raise UnpicklingError("negative memo index")
        u.memo[idx] = u.stack[-1]

    def memo_get(u, idx):
        if idx not in u.memo:
            raise UnpicklingError(f"malformed pickle: memo entry {idx} was never stored")
        push(u, u.memo[idx])

    def text_string(u):
        line = u.readline().rstrip(b"\r")
        if len(line) < 2 or line[:1] != line[-1:] or line[:1] not in (b"'", b'"'):
            raise UnpicklingError("malformed pickle: a STRING opcode argument must be quoted")
        import codecs
        push(u, _py2_str(u, codecs.escape_decode(line[1:-1])[0]))

    def append(u):
        item = u.stack.pop()
        if type(u.stack[-1]) is not list:
            raise UnpicklingError(f"Can only append to lists, but got {_name(type(u.stack[-1]))}")
        u.stack[-1].append(item)

    def appends(u):
        items = u.pop_mark()
        if type(u.stack[-1]) is not list:
            raise UnpicklingError(f"Can only extend lists, but got {_name(type(u.stack[-1]))}")
        u.stack[-1].extend(items)

    def additems(u):
        items = u.pop_mark()
        if type(u.stack[-1]) is not set:
            raise UnpicklingError("Can only add items to sets")
        for item in items:
            u.check_key(item)
        u.stack[-1].update(items)

    def frozen(u):
        items = u.pop_mark()
        for item in items:
            u.check_key(item)
        push(u, frozenset(items))

    def mark(u):
        u.metastack.append(u.stack)
        u.stack = []

    def setitem(u):
        v, k = u.stack.pop(), u.stack.pop()
        u.setitems(u.stack[-1], [k, v])

    def setitems(u):
        items = u.pop_mark()
        u.setitems(u.stack[-1], items)

    def dict_from_mark(u):
        items = u.pop_mark()
        d: dict = {}
        u.setitems(d, items)
        push(u, d)

    def global_(u):
        module = u.readline().decode("utf-8")
        name = u.readline().decode("utf-8")
        push(u, u.find_global(module, name))

    def stack_global(u):
        name, module = u.stack.pop(), u.stack.pop()
        if type(name) is not str or type(module) is not str:
            raise UnpicklingError("malformed pickle: STACK_GLOBAL needs two strings")
        push(u, u.find_global(module, name))

    def dup(u):
        push(u, u.stack[-1])

    def pop(u):
        if u.stack:
            u.stack.pop()
        else:
            u.pop_mark()

    def tuple_n(n):
        def op(u):
            if n > len(u.stack):
                raise UnpicklingError("malformed pickle: too few items on the stack for a tuple")
            items = tuple(u.stack[len(u.stack) - n:]) if n else ()
            del u.stack[len(u.stack) - n:]
            push(u, items)
        return op

    def long_n(size_fmt, size_len):
        def op(u):
            n = u._u(size_fmt, size_len)
            push(u, int.from_bytes(u.read(n), "little", signed=True))
        return op

    def unicode_n(size_fmt, size_len):
        def op(u):
            push(u, str(u.read(u._u(size_fmt, size_len)), "utf-8", "surrogatepass"))
        return op

    def bytes_n(size_fmt, size_len, kind=bytes):
        def op(u):
            push(u, kind(u.read(u._u(size_fmt, size_len))))
        return op

    def binstring_n(size_fmt, size_len):
        def op(u):
            push(u, _py2_str(u, u.read(u._u(size_fmt, size_len))))
        return op

    t.update({
        P.PROTO: proto, P.FRAME: frame, P.MARK: mark, P.POP: pop, P.POP_MARK: lambda u: u.pop_mark(), P.DUP: dup,
        P.NONE: lambda u: push(u, None), P.NEWTRUE: lambda u: push(u, True), P.NEWFALSE: lambda u: push(u, False),
        P.INT: text_int, P.LONG: text_long, P.FLOAT: lambda u: push(u, float(u.readline())),
        P.BININT: lambda u: push(u, u._u("<i", 4)), P.BININT1: lambda u: push(u, u.read(1)[0]),
        P.BININT2: lambda u: push(u, u._u("<H", 2)), P.BINFLOAT: lambda u: push(u, u._u(">d", 8)),
        P.LONG1: long_n("<B", 1), P.LONG4: long_n("<i", 4),
        P.STRING: text_string, P.BINSTRING: binstring_n("<i", 4), P.SHORT_BINSTRING: binstring_n("<B", 1),
        P.UNICODE: lambda u: push(u, str(u.readline(), "raw-unicode-escape")),
        P.BINUNICODE: unicode_n("<I", 4), P.SHORT_BINUNICODE: unicode_n("<B", 1), P.BINUNICODE8: unicode_n("<Q", 8),
        P.BINBYTES: bytes_n("<I", 4), P.SHORT_BINBYTES: bytes_n("<B", 1), P.BINBYTES8: bytes_n("<Q", 8),
        P.BYTEARRAY8: bytes_n("<Q", 8, bytearray),
        P.EMPTY_TUPLE: tuple_n(0), P.TUPLE1: tuple_n(1), P.TUPLE2: tuple_n(2), P.TUPLE3: tuple_n(3),
        P.TUPLE: lambda u: push(u, tuple(u.pop_mark())),
        P.EMPTY_LIST: lambda u: push(u, []), P.LIST: lambda u: push(u, u.pop_mark()),
        P.APPEND: append, P.APPENDS: appends,
        P.EMPTY_DICT: lambda u: push(u, {}), P.DICT: dict_from_mark, P.SETITEM: setitem, P.SETITEMS: setitems,
        P.EMPTY_SET: lambda u: push(u, set()), P.ADDITEMS: additems, P.FROZENSET: frozen,
        P.GLOBAL: global_, P.STACK_GLOBAL: stack_global,
        P.REDUCE: lambda u: u.reduce(), P.NEWOBJ: lambda u: u.newobj(), P.BUILD: lambda u: u.build(),
        P.PUT: lambda u: memo_put(u, int(u.readline())), P.BINPUT: lambda u: memo_put(u, u.read(1)[0]),
        P.LONG_BINPUT: lambda u: memo_put(u, u._u("<I", 4)), P.MEMOIZE: lambda u: memo_put(u, len(u.memo)),
        P.GET: lambda u: memo_get(u, int(u.readline())), P.BINGET: lambda u: memo_get(u, u.read(1)[0]),
        P.LONG_BINGET: lambda u: memo_get(u, u._u("<I", 4)),
        P.BINPERSID: lambda u: u.persid(u.stack.pop()),
    })
    return {k[0]: v for k, v in t.items()}


def _py2_str(u: WeightsUnpickler, raw: bytes) -> Any:
    return raw if u.encoding == "bytes" else raw.decode(u.encoding)


_OPS = _op_table()


def weights_only_load(data: bytes, pos: int = 0, persistent_load: Callable | None = None) -> tuple[Any, int]:
    """Unpickle one object from ``data[pos:]`` with the weights-only rules; returns (object, end position)."""
    u = WeightsUnpickler(data, pos, persistent_load)
    obj = u.load()
    return obj, u.pos
