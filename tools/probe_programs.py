"""Run public PyTorch programs unchanged on leafgrad (and on real torch) and print a table.

    PYTHONPATH=src python tools/probe_programs.py /work/probe [--only NAME ...] [--torch] [--markdown OUT]

Why: issue 14 asks for a measured list of the public programs we tried and, for each that still
fails, the first error and its cause. The programs themselves are never copied into this repository:
they are extracted (``git show HEAD:<file>``) from mirrors of github:pytorch/examples,
karpathy/minGPT, karpathy/makemore and karpathy/nanoGPT into an extract directory with this layout::

    <extract>/examples/<program>/...   (pytorch/examples)
    <extract>/minGPT/...  <extract>/makemore/...  <extract>/nanoGPT/...

Each program runs in a fresh copy of its directory with tiny synthetic data written by its adapter
below (no network), shrunk only through the program's own command-line flags. Programs that import
torchvision or matplotlib get the small stand-ins written by ``write_shims`` (synthetic MNIST /
FakeData, the transforms they use, ``save_image`` writing .npy, a no-op pyplot); those are the only
things placed beside the program, and the same stand-ins serve both torch and leafgrad runs.
"""
from __future__ import annotations

import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, List, Optional

ROOT = Path(__file__).resolve().parents[1]

# --------------------------------------------------------------------------- stand-in packages

_TORCHVISION_INIT = '''"""Stand-in torchvision for offline probes: synthetic data, no downloads."""
from . import datasets, transforms, utils  # noqa: F401
'''

_TORCHVISION_DATASETS = '''"""Synthetic MNIST / FakeData in torchvision's item format (uint8 images, int targets)."""
import numpy as np


class MNIST:
    """Tiny deterministic digit-like set: class k lights up a band of rows that depends on k."""
    sizes = {True: 256, False: 128}

    def __init__(self, root, train=True, transform=None, target_transform=None, download=False):
        import torch
        rng = np.random.default_rng(0 if train else 1)
        n = self.sizes[bool(train)]
        targets = rng.integers(0, 10, size=n)
        data = rng.integers(0, 60, size=(n, 28, 28)).astype(np.uint8)
        for i, k in enumerate(targets):
            data[i, 2 + 2 * k: 6 + 2 * k, 4:24] = 250
        self.data = torch.from_numpy(data)
        self.targets = torch.from_numpy(targets.astype(np.int64))
        self._np, self._t = data, targets
        self.transform, self.target_transform = transform, target_transform
        self.train = train

    def __len__(self):
        return len(self._t)

    def __getitem__(self, i):
        img, target = self._np[i], int(self._t[i])
        if self.transform is not None:
            img = self.transform(img)
        if self.target_transform is not None:
            target = self.target_transform(target)
        return img, target


class FakeData:
    def __init__(self, size=1000, image_size=(3, 224, 224), num_classes=10, transform=None,
                 target_transform=None, random_offset=0):
        self.size, self.image_size, self.num_classes = min(size, 64), tuple(image_size), num_classes
        self.transform, self.target_transform = transform, target_transform

    def __len__(self):
        return self.size

    def __getitem__(self, i):
        rng = np.random.default_rng(i)
        c, h, w = self.image_size
        img = rng.integers(0, 256, size=(h, w, c)).astype(np.uint8)
        target = int(rng.integers(0, self.num_classes))
        if self.transform is not None:
            img = self.transform(img)
        return img, target
'''

_TORCHVISION_TRANSFORMS = '''"""The transforms the probed programs use, on NumPy uint8 images (H, W[, C])."""
import numpy as np


class Compose:
    def __init__(self, transforms):
        self.transforms = list(transforms)

    def __call__(self, x):
        for t in self.transforms:
            x = t(x)
        return x


class ToTensor:
    def __call__(self, img):
        import torch
        a = np.asarray(img)
        if a.ndim == 2:
            a = a[:, :, None]
        return torch.from_numpy(np.ascontiguousarray(a.transpose(2, 0, 1)).astype(np.float32) / 255.0)


class Normalize:
    def __init__(self, mean, std):
        self.mean, self.std = mean, std

    def __call__(self, t):
        import torch
        mean = torch.tensor(self.mean, dtype=t.dtype).view(-1, 1, 1)
        std = torch.tensor(self.std, dtype=t.dtype).view(-1, 1, 1)
        return (t - mean) / std


class Lambda:
    def __init__(self, fn):
        self.fn = fn

    def __call__(self, x):
        return self.fn(x)


class Resize:
    """Nearest-neighbour resize of the short side (enough for synthetic images)."""
    def __init__(self, size):
        self.size = size

    def __call__(self, img):
        a = np.asarray(img)
        h, w = a.shape[:2]
        s = self.size if isinstance(self.size, int) else min(self.size)
        if min(h, w) == s:
            return a
        f = s / min(h, w)
        rows = (np.arange(int(round(h * f))) / f).astype(int)
        cols = (np.arange(int(round(w * f))) / f).astype(int)
        return a[rows][:, cols]


class CenterCrop:
    def __init__(self, size):
        self.size = (size, size) if isinstance(size, int) else tuple(size)

    def __call__(self, img):
        a = np.asarray(img)
        h, w = a.shape[:2]
        th, tw = self.size
        top, left = (h - th) // 2, (w - tw) // 2
        return a[top:top + th, left:left + tw]
'''

_TORCHVISION_UTILS = '''"""save_image writes the tensor's values as .npy next to the requested name."""
import numpy as np


def save_image(tensor, fp, nrow=8, normalize=False, **kwargs):
    np.save(str(fp) + ".npy", tensor.detach().cpu().numpy())
'''

_MATPLOTLIB_INIT = '''"""Stand-in matplotlib: plotting calls are accepted and draw nothing."""


def use(*args, **kwargs):
    pass
'''

_MATPLOTLIB_PYPLOT = '''"""No-op pyplot for offline probes."""


def _noop(*args, **kwargs):
    return None


def __getattr__(name):
    return _noop
'''


def write_shims(where: Path) -> Path:
    """Write the stand-in packages under ``where`` and return it (put it on PYTHONPATH)."""
    files = {
        "torchvision/__init__.py": _TORCHVISION_INIT,
        "torchvision/datasets.py": _TORCHVISION_DATASETS,
        "torchvision/transforms.py": _TORCHVISION_TRANSFORMS,
        "torchvision/utils.py": _TORCHVISION_UTILS,
        "matplotlib/__init__.py": _MATPLOTLIB_INIT,
        "matplotlib/pyplot.py": _MATPLOTLIB_PYPLOT,
    }
    for rel, text in files.items():
        p = where / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(text)
    return where


# --------------------------------------------------------------------------- synthetic data

_TEXT = ("O God, O God!\nFirst Citizen:\nBefore we proceed any further, hear me speak.\n\nAll:\nSpeak, speak.\n\n"
         "First Citizen:\nYou are all resolved rather to die than to famish?\n\nAll:\nResolved. resolved.\n")


def _text_file(name: str, repeat: int = 20) -> Callable[[Path], None]:
    def setup(d: Path) -> None:
        (d / name).write_text(_TEXT * repeat)
    return setup


def _names_file(d: Path) -> None:
    names = ["emma", "olivia", "ava", "isabella", "sophia", "mia", "charlotte", "amelia", "evelyn",
             "abigail", "harper", "emily", "elizabeth", "avery", "sofia", "ella", "madison", "scarlett"]
    (d / "names.txt").write_text("\n".join(names * 4) + "\n")


def _wikitext(d: Path) -> None:
    root = d / "data" / "tiny"
    root.mkdir(parents=True, exist_ok=True)
    words = _TEXT.replace("\n", " \n ").split(" ")
    for split, rep in (("train", 12), ("valid", 3), ("test", 3)):
        (root / f"{split}.txt").write_text(" ".join(words * rep))


def _shakespeare_char(d: Path) -> None:
    import pickle
    import numpy as np
    root = d / "data" / "shakespeare_char"
    root.mkdir(parents=True, exist_ok=True)
    text = _TEXT * 40
    chars = sorted(set(text))
    stoi = {c: i for i, c in enumerate(chars)}
    ids = np.array([stoi[c] for c in text], dtype=np.uint16)
    n = int(0.9 * len(ids))
    ids[:n].tofile(root / "train.bin")
    ids[n:].tofile(root / "val.bin")
    with open(root / "meta.pkl", "wb") as f:
        pickle.dump({"vocab_size": len(chars), "itos": dict(enumerate(chars)), "stoi": stoi}, f)


_SINE_SCRIPT = '''import numpy as np, torch
np.random.seed(2)
T, L, N = 20, 60, 8
x = np.empty((N, L), 'int64')
x[:] = np.array(range(L)) + np.random.randint(-4 * T, 4 * T, N).reshape(N, 1)
data = np.sin(x / 1.0 / T).astype('float64')
torch.save(data, open('traindata.pt', 'wb'))
'''


# --------------------------------------------------------------------------- the program list

@dataclass
class Program:
    name: str
    src: str                       # directory under the extract dir that is copied
    script: str                    # path inside that directory
    args: List[str] = field(default_factory=list)
    setup: Optional[Callable[[Path], None]] = None
    pre_script: Optional[str] = None   # python run with the same backend before the program
    pythonpath: List[str] = field(default_factory=list)   # extra dirs inside the copy
    timeout: float = 240.0
    note: str = ""
    deterministic: bool = False    # same numbers expected on torch: compare the last output lines
    env: dict = field(default_factory=dict)   # extra environment variables (torch's own switches only)


def _makemore_small(kind: str) -> List[str]:
    """makemore's arguments for a small, short run of one of its recurrent or bag-of-words models."""
    return ["--type", kind, "--input-file", "names.txt", "--max-steps", "12", "--num-workers", "0",
            "--n-embd", "16", "--n-embd2", "16", "--batch-size", "8", "--work-dir", "out"]


PROGRAMS: List[Program] = [
    Program("examples/regression", "examples/regression", "main.py"),
    Program("examples/mnist", "examples/mnist", "main.py",
            ["--epochs", "1", "--batch-size", "32", "--test-batch-size", "64", "--log-interval", "2"]),
    Program("examples/mnist_rnn", "examples/mnist_rnn", "main.py",
            ["--epochs", "1", "--batch-size", "32", "--test-batch-size", "64", "--log-interval", "2"]),
    Program("examples/mnist_forward_forward", "examples/mnist_forward_forward", "main.py",
            ["--epochs", "3", "--train_size", "256", "--test_size", "128", "--log-interval", "1"]),
    Program("examples/vae", "examples/vae", "main.py",
            ["--epochs", "1", "--batch-size", "32", "--log-interval", "2"],
            setup=lambda d: (d / "results").mkdir(exist_ok=True)),
    Program("examples/dcgan (fake data)", "examples/dcgan", "main.py",
            ["--dataset", "fake", "--batchSize", "8", "--niter", "1", "--workers", "0", "--dry-run",
             "--outf", "out"],
            setup=lambda d: (d / "out").mkdir(exist_ok=True)),
    Program("examples/time_sequence_prediction", "examples/time_sequence_prediction", "train.py",
            ["--steps", "2"], pre_script=_SINE_SCRIPT, note="data: 8 waves of length 60 (not 100x1000)"),
    Program("examples/time_sequence_prediction (TORCH_FORCE_NO_WEIGHTS_ONLY_LOAD=1)",
            "examples/time_sequence_prediction", "train.py", ["--steps", "2"], pre_script=_SINE_SCRIPT,
            env={"TORCH_FORCE_NO_WEIGHTS_ONLY_LOAD": "1"}),
    Program("examples/word_language_model LSTM", "examples/word_language_model", "main.py",
            ["--data", "data/tiny", "--epochs", "1", "--emsize", "16", "--nhid", "16", "--bptt", "8",
             "--batch_size", "4", "--log-interval", "5", "--save", "model.pt"], setup=_wikitext),
    Program("examples/word_language_model Transformer", "examples/word_language_model", "main.py",
            ["--data", "data/tiny", "--model", "Transformer", "--epochs", "1", "--emsize", "16",
             "--nhid", "16", "--nhead", "2", "--bptt", "8", "--batch_size", "4", "--log-interval", "5",
             "--save", "model.pt"], setup=_wikitext),
    Program("minGPT projects/chargpt", "minGPT", "projects/chargpt/chargpt.py",
            ["--trainer.max_iters=11", "--model.model_type=gpt-nano", "--data.block_size=16",
             "--trainer.batch_size=8", "--trainer.num_workers=0", "--system.work_dir=out"],
            setup=_text_file("input.txt"), pythonpath=["."]),
    Program("minGPT projects/adder", "minGPT", "projects/adder/adder.py",
            ["--trainer.max_iters=11", "--model.model_type=gpt-nano", "--data.ndigit=2",
             "--trainer.batch_size=16", "--trainer.num_workers=0", "--system.work_dir=out"],
            pythonpath=["."]),
    Program("makemore transformer", "makemore", "makemore.py",
            ["--input-file", "names.txt", "--max-steps", "12", "--num-workers", "0", "--n-layer", "2",
             "--n-embd", "32", "--n-embd2", "32", "--batch-size", "8", "--work-dir", "out"],
            setup=_names_file),
    Program("makemore rnn", "makemore", "makemore.py", _makemore_small("rnn"), setup=_names_file),
    Program("makemore gru", "makemore", "makemore.py", _makemore_small("gru"), setup=_names_file),
    Program("makemore mlp/bow/bigram", "makemore", "makemore.py", _makemore_small("bow"), setup=_names_file),
    Program("nanoGPT train.py (shakespeare_char)", "nanoGPT", "train.py",
            ["config/train_shakespeare_char.py", "--device=cpu", "--compile=False", "--max_iters=6",
             "--eval_iters=2", "--eval_interval=5", "--log_interval=1", "--n_layer=2", "--n_head=2",
             "--n_embd=32", "--block_size=32", "--batch_size=4", "--dtype=float32", "--out_dir=out",
             "--always_save_checkpoint=True"],
            setup=_shakespeare_char),
    # pytorch/tutorials beginner_source (too large to mirror whole; these files were read from the index)
    Program("tutorials polynomial_custom_function", "tutorials/beginner_source", "polynomial_custom_function.py",
            deterministic=True),
    Program("tutorials polynomial_nn", "tutorials/beginner_source", "polynomial_nn.py"),
]


# --------------------------------------------------------------------------- running

@dataclass
class Result:
    name: str
    backend: str
    status: str
    seconds: float
    first_error: str
    last_line: str


_ERR = re.compile(r"^([A-Za-z_][\w.]*(Error|Exception|Warning|Exit|Interrupt)|AssertionError)\b.*")


def first_error(stderr: str) -> str:
    """The exception line of the first traceback (the one that killed the program)."""
    lines = stderr.splitlines()
    for i, line in enumerate(lines):
        if line.startswith("Traceback"):
            for later in lines[i + 1:]:
                if _ERR.match(later):
                    return later.strip()[:200]
    for line in reversed(lines):
        if _ERR.match(line.strip()):
            return line.strip()[:200]
    return (lines[-1].strip()[:200] if lines else "")


def run_one(prog: Program, extract: Path, shims: Path, backend: str, keep: bool = False) -> Result:
    work = Path(tempfile.mkdtemp(prefix="probe-"))
    dest = work / Path(prog.src).name
    shutil.copytree(extract / prog.src, dest)
    if prog.setup:
        prog.setup(dest)
    env = dict(os.environ)
    paths = [str(shims)] + [str(dest / p) for p in prog.pythonpath]
    if backend == "leafgrad":
        paths.insert(0, str(ROOT / "src"))
        launcher = [sys.executable, "-m", "leafgrad", "run"]
    else:
        env.pop("PYTHONPATH", None)
        launcher = [sys.executable]
    env["PYTHONPATH"] = os.pathsep.join(paths)
    env.update(prog.env)
    env.setdefault("OMP_NUM_THREADS", "1")
    start = time.perf_counter()
    try:
        if prog.pre_script:
            (dest / "_probe_pre.py").write_text(prog.pre_script)
            subprocess.run(launcher + ["_probe_pre.py"], cwd=dest, env=env, check=True,
                           capture_output=True, text=True, timeout=prog.timeout)
        proc = subprocess.run(launcher + [prog.script] + prog.args, cwd=dest, env=env,
                              capture_output=True, text=True, timeout=prog.timeout)
        secs = time.perf_counter() - start
        out_lines = [l for l in proc.stdout.splitlines() if any(ch.isdigit() for ch in l)]
        last = out_lines[-1].strip()[:120] if out_lines else ""
        if proc.returncode == 0:
            return Result(prog.name, backend, "ok", secs, "", last)
        return Result(prog.name, backend, "FAIL", secs, first_error(proc.stderr), last)
    except subprocess.CalledProcessError as e:
        return Result(prog.name, backend, "FAIL (data step)", time.perf_counter() - start,
                      first_error(e.stderr or ""), "")
    except subprocess.TimeoutExpired:
        return Result(prog.name, backend, "TIMEOUT", time.perf_counter() - start,
                      f"no exit within {prog.timeout:.0f}s", "")
    finally:
        if not keep:
            shutil.rmtree(work, ignore_errors=True)


_NUM = re.compile(r"-?\d+\.\d+(?:e[-+]?\d+)?")


def same_numbers(a: str, b: str, rtol: float = 1e-3, atol: float = 1e-6) -> bool:
    """Do two output lines carry the same numbers? float32 sums in another order differ in the last
    digits, and a weight that should be exactly 0 comes out as +-1e-9 noise: hence rtol and atol."""
    xs, ys = [float(v) for v in _NUM.findall(a)], [float(v) for v in _NUM.findall(b)]
    return bool(xs) and len(xs) == len(ys) and all(abs(x - y) <= rtol * max(abs(x), abs(y)) + atol
                                                   for x, y in zip(xs, ys))


def table(results: List[Result]) -> str:
    rows = ["| program | backend | status | seconds | first error / last output line |",
            "|---|---|---|---|---|"]
    for r in results:
        msg = r.first_error or r.last_line
        rows.append(f"| {r.name} | {r.backend} | {r.status} | {r.seconds:.1f} | "
                    f"`{msg.replace('|', '/')}` |" if msg else
                    f"| {r.name} | {r.backend} | {r.status} | {r.seconds:.1f} | |")
    return "\n".join(rows)


def main(argv: Optional[List[str]] = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("extract", type=Path, help="directory the programs were extracted into")
    ap.add_argument("--only", nargs="*", default=None, help="substrings of program names to run")
    ap.add_argument("--torch", action="store_true", help="also run each program on real torch")
    ap.add_argument("--keep", action="store_true", help="keep the temporary run directories")
    ap.add_argument("--markdown", type=Path, default=None, help="write the table here too")
    a = ap.parse_args(argv)
    shims = write_shims(a.extract / "_shims")
    chosen = [p for p in PROGRAMS if not a.only or any(s in p.name for s in a.only)]
    results = []
    for prog in chosen:
        if not (a.extract / prog.src / prog.script).exists():
            results.append(Result(prog.name, "-", "not extracted", 0.0, "", ""))
            continue
        pair = []
        for backend in (["leafgrad", "torch"] if a.torch else ["leafgrad"]):
            r = run_one(prog, a.extract, shims, backend, a.keep)
            pair.append(r)
            if prog.deterministic and len(pair) == 2 and pair[0].status == r.status == "ok":
                pair[0].status = "ok, same as torch" if same_numbers(pair[0].last_line, r.last_line) \
                    else "ok, DIFFERS from torch"
            print(f"{r.name:45s} {r.backend:8s} {r.status:8s} {r.seconds:6.1f}s  {r.first_error or r.last_line}",
                  flush=True)
            results.append(r)
    text = table(results)
    print(text)
    if a.markdown:
        a.markdown.write_text(text + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
