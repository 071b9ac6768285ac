"""Seeded fuzzing of leafgrad.load: a few hundred damaged checkpoints (zip, legacy and
safetensors; damaged bytes, truncations, insertions, and damaged pickles inside intact
zips) must each either load or fail with one of the loader's clear exception classes,
exactly, and never use more than a small multiple of the file's size in memory."""
from __future__ import annotations

import io
import pickle
import tracemalloc
import warnings
import zipfile
from collections import OrderedDict

import numpy as np
import pytest

import leafgrad as lg

# the classes a damaged file may raise, as torch raises them: RuntimeError for the container
# (zip, safetensors, storage sizes), UnpicklingError for the pickle, EOFError for an empty file
ALLOWED = (RuntimeError, pickle.UnpicklingError, EOFError)
_SEED = 20261201


def _sample_object():
    x = lg.arange(12.0)
    return {"w": lg.randn(4, 4), "b": lg.arange(4), "view": x[3:7], "x": x, "flag": lg.tensor([True, False]),
            "opt": {"state": {0: {"step": lg.tensor(3.0), "exp_avg": lg.zeros(4)}},
                    "param_groups": [{"lr": 0.1, "betas": (0.9, 0.999), "params": [0]}]},
            "meta": OrderedDict(epoch=3, name="run", blob=b"\x00\x01")}


def _bases() -> dict[str, bytes]:
    out = {}
    for name, kw in (("zip", {}), ("legacy", {"_use_new_zipfile_serialization": False})):
        buf = io.BytesIO()
        lg.save(_sample_object(), buf, **kw)
        out[name] = buf.getvalue()
    buf = io.BytesIO()
    lg.serialization.save_safetensors({"w": lg.randn(3, 3), "i": lg.arange(5), "h": lg.ones(2, dtype=lg.float16)},
                                      buf)
    out["safetensors"] = buf.getvalue()
    try:
        import torch
    except ImportError:
        return out
    buf = io.BytesIO()
    torch.manual_seed(0)
    torch.save({"sd": torch.nn.Linear(3, 2).state_dict(), "bf": torch.ones(3, dtype=torch.bfloat16),
                "u16": torch.arange(4).to(torch.uint16), "step": torch.tensor(2.0)}, buf)
    out["torch_zip"] = buf.getvalue()
    return out


def _mutate(raw: bytes, rng: np.random.Generator) -> bytes:
    b = bytearray(raw)
    kind = rng.integers(6)
    if kind == 0:  # flip a few bytes
        for _ in range(int(rng.integers(1, 9))):
            b[int(rng.integers(len(b)))] = int(rng.integers(256))
    elif kind == 1:  # truncate
        del b[int(rng.integers(len(b))):]
    elif kind == 2:  # insert junk
        pos = int(rng.integers(len(b) + 1))
        b[pos:pos] = rng.integers(0, 256, int(rng.integers(1, 40)), dtype=np.uint8).tobytes()
    elif kind == 3:  # delete a range
        pos = int(rng.integers(len(b)))
        del b[pos:pos + int(rng.integers(1, 60))]
    elif kind == 4:  # duplicate a range
        pos = int(rng.integers(len(b)))
        b[pos:pos] = b[pos:pos + int(rng.integers(1, 60))]
    else:  # overwrite a run with a large little-endian number (lengths, counts, offsets)
        pos = int(rng.integers(max(len(b) - 8, 1)))
        b[pos:pos + 8] = int(rng.integers(1, 2 ** 62)).to_bytes(8, "little")
    return bytes(b)


def _mutate_inner_pickle(raw: bytes, rng: np.random.Generator) -> bytes:
    """Damage data.pkl but keep the zip itself valid, so the damage reaches the unpickler."""
    src = zipfile.ZipFile(io.BytesIO(raw))
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_STORED) as dst:
        for info in src.infolist():
            data = src.read(info)
            if info.filename.endswith("/data.pkl"):
                data = _mutate(data, rng)
            dst.writestr(info.filename, data)
    return out.getvalue()


def _mutate_safetensors_header(raw: bytes, rng: np.random.Generator) -> bytes:
    """Change numbers and codes inside the JSON header, keeping its length field consistent."""
    n = int.from_bytes(raw[:8], "little")
    text = raw[8:8 + n].decode()
    choices = [str(int(rng.integers(-3, 10 ** 6))), "1e309", "-1", "[]", "null", '"BF16"', '"F8_E4M3"', '"U64"',
               "true", "18446744073709551616"]
    tokens = [i for i, c in enumerate(text) if c.isdigit() and (i == 0 or not text[i - 1].isdigit())]
    for _ in range(int(rng.integers(1, 4))):
        if tokens:
            i = tokens[int(rng.integers(len(tokens)))]
            j = i
            while j < len(text) and text[j].isdigit():
                j += 1
            text = text[:i] + choices[int(rng.integers(len(choices)))] + text[j:]
            tokens = [k for k, c in enumerate(text) if c.isdigit() and (k == 0 or not text[k - 1].isdigit())]
    body = text.encode()
    return len(body).to_bytes(8, "little") + body + raw[8 + n:]


def _cases():
    rng = np.random.default_rng(_SEED)
    bases = _bases()
    cases = []
    for name, raw in bases.items():
        for i in range(60):
            cases.append((f"{name}-bytes-{i}", _mutate(raw, rng)))
        if name in ("zip", "torch_zip"):
            for i in range(60):
                cases.append((f"{name}-pickle-{i}", _mutate_inner_pickle(raw, rng)))
    for i in range(60):
        cases.append((f"safetensors-header-{i}", _mutate_safetensors_header(bases["safetensors"], rng)))
    cases.append(("empty", b""))
    cases += [(f"junk-{i}", rng.integers(0, 256, int(rng.integers(1, 300)), dtype=np.uint8).tobytes())
              for i in range(20)]
    return cases


def _expected(label: str) -> tuple:
    """One class per kind of damage (exactly that class, not a subclass)."""
    if label == "empty":
        return (EOFError,)
    if label.startswith("safetensors"):
        return (RuntimeError,)
    return (RuntimeError, pickle.UnpicklingError)


def test_damaged_checkpoints_fail_cleanly_in_bounded_memory():
    cases = _cases()
    assert len(cases) >= 300
    outcomes = {"loaded": 0, **{cls.__name__: 0 for cls in ALLOWED}}
    # bfloat16's NumPy dtype (ml_dtypes) is imported on first use: do it before measuring, so that a
    # damaged file naming bfloat16 is not charged with a one-time module import (whichever test runs first)
    lg.bfloat16.np
    tracemalloc.start()
    try:
        for label, raw in cases:
            tracemalloc.reset_peak()
            base = tracemalloc.get_traced_memory()[0]
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                try:
                    lg.load(io.BytesIO(raw))
                    outcomes["loaded"] += 1
                except ALLOWED as exc:
                    assert type(exc) in _expected(label), f"{label}: {type(exc).__name__}: {exc}"
                    assert str(exc), f"{label}: {type(exc).__name__} without a message"
                    outcomes[type(exc).__name__] += 1
                except Exception as exc:  # anything else is a bug in the loader
                    pytest.fail(f"{label}: raised {type(exc).__name__}: {exc}")
            peak = tracemalloc.get_traced_memory()[1] - base
            assert peak <= 64 * len(raw) + (2 << 20), f"{label}: peak {peak} bytes for a {len(raw)}-byte file"
    finally:
        tracemalloc.stop()
    # the fuzz reaches every layer: some files still load, each failure class occurs
    assert outcomes["loaded"] and outcomes["RuntimeError"] and outcomes["UnpicklingError"], outcomes
