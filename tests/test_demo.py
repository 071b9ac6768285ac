"""The digits demo (leafgrad.demo) in --quick mode, its checkpoints, and its exit status."""
from __future__ import annotations

import dataclasses
import os
import subprocess
import sys

import numpy as np
import pytest

pytest.importorskip("sklearn")
pytest.importorskip("safetensors")
pytest.importorskip("tqdm")

import leafgrad as lg  # noqa: E402

from leafgrad import demo  # noqa: E402  (our own module: a broken import must fail, not skip)


def test_quick_demo_reaches_its_targets_and_saves_checkpoints(tmp_path, capsys):
    # about 3 s of training on an idle machine (the whole test ~5 s)
    status = demo.main(["--quick", "--out", str(tmp_path), "--no-progress"])
    out = capsys.readouterr().out
    assert status == 0, out
    assert "MLP: test accuracy" in out and "CNN: test accuracy" in out and "MISSED" not in out
    assert "total wall time" in out
    for name in ("mlp", "cnn"):
        assert (tmp_path / f"{name}_digits.safetensors").exists()
        state = lg.load(tmp_path / f"{name}_digits_training_state.safetensors")
        assert state["test_acc"] >= demo.RECIPES[name].quick_target
        assert state["epochs"] == demo.RECIPES[name].quick_epochs and state["seed"] == 0
        assert set(state) == {"optimizer", "scheduler", "epochs", "seed", "test_acc"}
        assert state["optimizer"]["param_groups"][0]["betas"][1] == 0.999  # a tuple, cycled by OneCycleLR


def test_checkpoint_loads_into_pytorch_and_predicts_the_same(tmp_path):
    torch = pytest.importorskip("torch")
    st = pytest.importorskip("safetensors.torch")
    assert demo.main(["--quick", "--model", "mlp", "--epochs", "2", "--out", str(tmp_path), "--no-progress"]) in (0, 1)
    weights = st.load_file(str(tmp_path / "mlp_digits.safetensors"))
    tmodel = torch.nn.Sequential(torch.nn.Flatten(), torch.nn.Linear(64, 256), torch.nn.ReLU(), torch.nn.Dropout(0.2),
                                 torch.nn.Linear(256, 128), torch.nn.ReLU(), torch.nn.Dropout(0.2),
                                 torch.nn.Linear(128, 10))
    tmodel.load_state_dict({k.removeprefix("net."): v for k, v in weights.items()})
    lmodel = demo.MLP()
    lmodel.load_state_dict(lg.load(tmp_path / "mlp_digits.safetensors"))
    tmodel.eval(), lmodel.eval()
    x = np.random.default_rng(0).random((16, 64), dtype=np.float32)
    with torch.no_grad(), lg.no_grad():
        np.testing.assert_allclose(tmodel(torch.tensor(x)).numpy(), lmodel(lg.tensor(x)).numpy(), atol=1e-5)


def test_missed_target_exits_non_zero(tmp_path, monkeypatch, capsys):
    strict = dataclasses.replace(demo.RECIPES["mlp"], quick_target=1.01)  # unreachable
    monkeypatch.setitem(demo.RECIPES, "mlp", strict)
    status = demo.main(["--quick", "--model", "mlp", "--epochs", "1", "--out", str(tmp_path), "--no-progress"])
    assert status == 1
    assert "MISSED" in capsys.readouterr().out


def test_command_line_errors_and_module_entry_point(tmp_path):
    with pytest.raises(SystemExit) as info:
        demo.main(["--model", "resnet"])
    assert info.value.code == 2
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(p for p in sys.path if p))
    proc = subprocess.run([sys.executable, "-m", "leafgrad.demo", "--help"], capture_output=True, text=True,
                          env=env, timeout=60)
    assert proc.returncode == 0 and "--quick" in proc.stdout and "--out" in proc.stdout
