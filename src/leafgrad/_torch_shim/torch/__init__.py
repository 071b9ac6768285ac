"""Found first on the path of processes that ``leafgrad run`` starts: ``import torch`` becomes leafgrad there.

Importing this package replaces itself in ``sys.modules`` with leafgrad and installs the
``torch.X`` -> ``leafgrad.X`` import hook (leafgrad/_torch_alias.py), so a spawned DataLoader
worker or an MPI rank runs the same library as the process that started it.
"""
from leafgrad._torch_alias import install

install()
