"""``leafgrad run``: N ranks through mpiexec with torchrun's variables; ``import torch`` is leafgrad in every
process it starts (ranks, spawned DataLoader workers), and never the real torch for a missing submodule."""
from __future__ import annotations

import os
import subprocess
import sys
import textwrap

import pytest

from mpi_ranks import LIMIT_S, rank_env

RANK_SCRIPT = """
import torch, torch.distributed as dist
from torch.nn.parallel import DistributedDataParallel
import leafgrad
env = {k: os.environ.get(k, "") for k in ("RANK", "WORLD_SIZE", "LOCAL_RANK", "LOCAL_WORLD_SIZE", "MASTER_ADDR",
                                          "MASTER_PORT")}
dist.init_process_group("gloo")              # env:// as torchrun's scripts write it
t = torch.ones(2) * (dist.get_rank() + 1)
dist.all_reduce(t)
try:
    import torch.fx
    missing = "imported"
except ModuleNotFoundError as e:
    missing = type(e).__name__ + ": " + str(e)
save(torch_is_leafgrad=np.array(torch is leafgrad and dist is leafgrad.distributed), total=t.numpy(),
     argv=np.array(sys.argv[1:]), missing=np.array(missing), **{k: np.array(v) for k, v in env.items()})
"""


def test_nproc_per_node_runs_ranks_with_torchruns_environment(run_ranks):
    ranks = run_ranks(RANK_SCRIPT, argv=[sys.executable, "-m", "leafgrad", "run", "--nproc-per-node", "2",
                                         "--master-port", "29611"])
    for r, res in enumerate(ranks):
        assert bool(res["torch_is_leafgrad"]) and res["total"].tolist() == [3.0, 3.0]
        assert (str(res["RANK"]), str(res["WORLD_SIZE"]), str(res["LOCAL_RANK"]), str(res["LOCAL_WORLD_SIZE"])) == \
            (str(r), "2", str(r), "2")
        assert (str(res["MASTER_ADDR"]), str(res["MASTER_PORT"])) == ("127.0.0.1", "29611")
        assert str(res["missing"]).startswith("ModuleNotFoundError: No module named 'torch.fx'")


def test_leafgrad_run_inside_mpiexec(run_ranks):
    from leafgrad.distributed._launch import find_mpiexec
    ranks = run_ranks(RANK_SCRIPT, argv=[find_mpiexec(), "-n", "2", sys.executable, "-m", "leafgrad", "run"])
    assert [str(r["RANK"]) for r in ranks] == ["0", "1"] and all(bool(r["torch_is_leafgrad"]) for r in ranks)


SPAWN_SCRIPT = """
import sys
import torch
from torch.utils.data import DataLoader, Dataset, get_worker_info

class Probe(Dataset):
    def __len__(self):
        return 4
    def __getitem__(self, i):
        t = sys.modules["torch"]
        return [i, get_worker_info().id, t.__name__, type(t.ones(1)).__module__]

def keep(samples):
    return samples

def which_torch(_):
    import torch
    return torch.__name__

if __name__ == "__main__":
    import multiprocessing
    with multiprocessing.get_context("spawn").Pool(1) as pool:   # a plain spawned child, not only our workers
        print(pool.map(which_torch, [0]))
    loader = DataLoader(Probe(), batch_size=2, num_workers=2, multiprocessing_context="spawn", collate_fn=keep)
    for batch in loader:
        print(batch)
"""


def test_spawned_workers_import_leafgrad_as_torch(tmp_path):
    pytest.importorskip("torch")  # the point: the real torch is installed, and the children must not take it
    script = tmp_path / "spawn_loader.py"
    script.write_text(textwrap.dedent(SPAWN_SCRIPT))
    res = subprocess.run([sys.executable, "-m", "leafgrad", "run", str(script)], capture_output=True, text=True,
                         env=rank_env(), timeout=LIMIT_S, cwd=str(tmp_path))
    assert res.returncode == 0, res.stderr
    assert res.stdout.splitlines() == [
        "['leafgrad']",
        "[[0, 0, 'leafgrad', 'leafgrad._tensor'], [1, 0, 'leafgrad', 'leafgrad._tensor']]",
        "[[2, 1, 'leafgrad', 'leafgrad._tensor'], [3, 1, 'leafgrad', 'leafgrad._tensor']]"]


def test_missing_script_and_bad_nproc(tmp_path):
    env = rank_env()
    res = subprocess.run([sys.executable, "-m", "leafgrad", "run", "--nproc-per-node", "2", "nope.py"],
                         capture_output=True, text=True, env=env, timeout=60, cwd=str(tmp_path))
    assert res.returncode == 2 and "can't open file 'nope.py'" in res.stderr
    (tmp_path / "ok.py").write_text("print('hi')\n")
    res = subprocess.run([sys.executable, "-m", "leafgrad", "run", "--nproc-per-node", "0", "ok.py"],
                         capture_output=True, text=True, env=env, timeout=60, cwd=str(tmp_path))
    assert res.returncode == 2 and "--nproc-per-node must be at least 1" in res.stderr


def test_torch_alias_refuses_real_torch_submodules_in_process():
    from leafgrad import cli
    with cli.torch_alias():
        with pytest.raises(ModuleNotFoundError, match="No module named 'torch.fx'"):
            import torch.fx  # noqa: F401
        import torch.distributed as d
        import leafgrad.distributed
        assert d is leafgrad.distributed


def test_readme_ddp_example_runs_on_two_ranks(tmp_path):
    from mpi_ranks import ROOT, _mpiexec
    _mpiexec()
    readme = open(os.path.join(ROOT, "README.md"), encoding="utf-8").read()
    blocks = [b.split("```", 1)[0] for b in readme.split("```python\n")[1:]]
    example = next(b for b in blocks if "DistributedDataParallel" in b)
    assert len(example.strip().splitlines()) <= 10  # the README promises a 10-line example
    # run it as written, then let each rank also leave its result in a file (the ranks' prints may interleave)
    (tmp_path / "train.py").write_text(example + "open(f'rank{dist.get_rank()}.txt', 'w').write("
                                       "repr(model.module[0].weight.sum().item()))\n")
    res = subprocess.run([sys.executable, "-m", "leafgrad", "run", "--nproc-per-node", "2", "train.py"],
                         capture_output=True, text=True, env=rank_env(), timeout=LIMIT_S, cwd=str(tmp_path))
    assert res.returncode == 0, res.stderr
    weights = [(tmp_path / f"rank{r}.txt").read_text() for r in range(2)]
    assert weights[0] == weights[1] and float(weights[0]) != 0.0  # both ranks ended with the same weights
