"""SummaryWriter writes the event files torch's writes, read back with tensorboard's own readers."""
from __future__ import annotations

import glob
import os

import numpy as np
import pytest

import leafgrad as lg
from apihelp import same_outcome

torch = pytest.importorskip("torch")
pytest.importorskip("tensorboard")
from tensorboard.backend.event_processing.event_accumulator import EventAccumulator  # noqa: E402
from tensorboard.backend.event_processing.event_file_loader import RawEventFileLoader  # noqa: E402
from tensorboard.compat.proto.event_pb2 import Event  # noqa: E402
from tensorboard.plugins.hparams.plugin_data_pb2 import HParamsPluginData  # noqa: E402


def _log(m, log_dir):
    from importlib import import_module
    SummaryWriter = import_module(f"{m.__name__}.utils.tensorboard").SummaryWriter
    with SummaryWriter(log_dir, flush_secs=1) as w:
        x = m.tensor([0.5, -1.25, 2.0, 2.0, 3.5, -0.125, 7.0, 1e-3], requires_grad=True)
        for step in range(3):
            loss = (x * x).sum() / (step + 1)
            w.add_scalar("loss/train", loss, step)  # a tensor that requires grad: logged detached
            w.add_scalar("lr", 0.1 * 0.5 ** step, global_step=step, walltime=1000.0 + step)
            w.add_scalar("acc", np.float32(0.25 * step), step, new_style=True)
            w.add_scalar("acc64", 0.25 * step, step, new_style=True, double_precision=True)
            w.add_scalars("run/losses", {"train": float(loss), "val": 2.0 * step}, step)
            w.add_histogram("weights", x * (step + 1), step)
            w.add_histogram("ints", np.arange(50) % 7, step, bins=5)
            w.add_histogram("coarse", x, step, max_bins=10)
        w.add_scalar("nostep", 3)
        w.add_text("notes", "hello **world**", 1)
        w.add_hparams({"lr": 0.1, "bs": 32, "opt": "sgd", "flag": True, "mom": m.tensor([0.9]), "skip": None},
                      {"hparam/acc": 0.75, "hparam/loss": m.tensor(0.5)}, run_name="hp", global_step=2)
        w.add_hparams({"opt": "adam", "lr": 0.01}, {"m": 1.0}, hparam_domain_discrete={"opt": ["sgd", "adam"],
                                                                                     "lr": [0.1, 0.01]},
                      run_name="hp2")
        w.flush()
    return log_dir


def _events(log_dir):
    """{run directory: [event without wall time (unless logged explicitly), ...]} as protos' text."""
    runs = {}
    for path in sorted(glob.glob(os.path.join(log_dir, "**", "events.out.tfevents.*"), recursive=True)):
        run = os.path.relpath(os.path.dirname(path), log_dir)
        out = []
        for raw in RawEventFileLoader(path).Load():
            ev = Event.FromString(raw)
            if ev.wall_time < 1e6:  # the walltime the test gave; other times are the clock's
                out.append(f"walltime={ev.wall_time}")
            ev.ClearField("wall_time")
            for v in ev.summary.value:
                if v.metadata.plugin_data.plugin_name == "hparams":  # (maps: compare parsed, not bytes)
                    data = HParamsPluginData.FromString(v.metadata.plugin_data.content)
                    v.metadata.plugin_data.ClearField("content")
                    out.append(str(data))
            out.append(str(ev))
        runs[run] = out
    return runs


def test_event_files_match_torchs(tmp_path):
    t = _events(_log(torch, str(tmp_path / "torch")))
    m = _events(_log(lg, str(tmp_path / "leafgrad")))
    assert sorted(m) == sorted(t) == [".", "hp", "hp2", "run_losses_train", "run_losses_val"]
    for run in t:
        assert len(m[run]) == len(t[run]), run
        for a, b in zip(m[run], t[run]):
            assert a == b, run


def test_tensorboard_reads_the_scalars(tmp_path):
    log_dir = _log(lg, str(tmp_path / "leafgrad"))
    acc = EventAccumulator(log_dir, size_guidance={"histograms": 0, "scalars": 0})  # (0: keep every event)
    acc.Reload()
    tags = acc.Tags()
    assert {"loss/train", "lr", "nostep"} <= set(tags["scalars"]) and {"weights", "ints"} <= set(tags["histograms"])
    lr = acc.Scalars("lr")
    assert [e.step for e in lr] == [0, 1, 2] and [e.value for e in lr] == pytest.approx([0.1, 0.05, 0.025])
    assert [e.wall_time for e in lr] == [1000.0, 1001.0, 1002.0]
    x = np.array([0.5, -1.25, 2.0, 2.0, 3.5, -0.125, 7.0, 1e-3], dtype=np.float32)
    assert [e.value for e in acc.Scalars("loss/train")] == pytest.approx([float((x * x).sum()) / k for k in (1, 2, 3)])
    assert [e.step for e in acc.Histograms("weights")] == [0, 1, 2]
    h = acc.Histograms("weights")[0].histogram_value
    assert h.num == 8 and h.min == pytest.approx(-1.25) and h.max == pytest.approx(7.0)
    assert sum(h.bucket) == 8
    series = EventAccumulator(os.path.join(log_dir, "run_losses_val"))
    series.Reload()
    assert [e.value for e in series.Scalars("run/losses")] == [0.0, 2.0, 4.0]


def test_writer_refusals():
    pytest.importorskip("torch.utils.tensorboard")
    import tempfile

    from torch.utils.tensorboard import SummaryWriter as TW

    from leafgrad.utils.tensorboard import SummaryWriter as LW
    with tempfile.TemporaryDirectory() as d:
        tw, lw = TW(os.path.join(d, "t")), LW(os.path.join(d, "l"))
        cases = [
            lambda w, m: w.add_scalar("s", "x", 1), lambda w, m: w.add_scalar("s", "2.5", 1),
            lambda w, m: w.add_scalar("s", m.ones(2), 1), lambda w, m: w.add_scalar("s", m.ones(1, 1), 1),
            lambda w, m: w.add_scalar("s", np.ones(3), 1), lambda w, m: w.add_histogram("h", np.array([]), 1),
            lambda w, m: w.add_histogram("h", m.tensor([float("nan"), 1.0]), 1),
            lambda w, m: w.add_hparams([], {}), lambda w, m: w.add_hparams({"a": [1]}, {"m": 1.0}),
            lambda w, m: w.add_hparams({"a": 1}, {"m": 1.0}, hparam_domain_discrete={"a": "x"}),
            lambda w, m: w.add_hparams({"a": 1}, {"m": 1.0}, hparam_domain_discrete={"b": [1]}),
            lambda w, m: w.add_text("t", 5, 1),
        ]
        for case in cases:
            same_outcome(lambda: case(tw, torch), lambda: case(lw, lg), compare_message=True)
        tw.close()
        lw.close()
        lw.add_scalar("after_close", 1.0, 0)  # a closed writer reopens its run, as torch's does
        lw.close()
        assert len(glob.glob(os.path.join(d, "l", "events.out.tfevents.*"))) == 2


def test_default_log_dir_and_purge_step(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    with lg.utils.tensorboard.SummaryWriter(comment="_exp") as w:
        assert w.get_logdir().startswith("runs" + os.sep) and w.get_logdir().endswith("_exp")
        w.add_scalar("a", 1.0, 5)
    for m in (torch, lg):
        from importlib import import_module
        SW = import_module(f"{m.__name__}.utils.tensorboard").SummaryWriter
        with SW(str(tmp_path / m.__name__), purge_step=3) as w:
            w.add_scalar("a", 2.0, 3)
    assert _events(str(tmp_path / "torch")) == _events(str(tmp_path / "leafgrad"))


def test_import_without_tensorboard_fails_as_torchs():
    import subprocess
    import sys
    code = ("import sys\n"
            "class Block:\n"
            "    def find_spec(self, name, path=None, target=None):\n"
            "        if name.split('.')[0] == 'tensorboard':\n"
            "            raise ModuleNotFoundError(f\"No module named '{name}'\", name=name)\n"
            "sys.meta_path.insert(0, Block())\n"
            "try:\n    import {m}.utils.tensorboard\nexcept ImportError as e:\n"
            "    print(type(e).__name__, str(e)[:29])\n")
    outs = [subprocess.run([sys.executable, "-c", code.replace("{m}", m)], capture_output=True, text=True).stdout
            for m in ("torch", "leafgrad")]
    assert outs[0] == outs[1] == "ModuleNotFoundError No module named 'tensorboard'\n"
