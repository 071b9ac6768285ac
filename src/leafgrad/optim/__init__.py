"""leafgrad.optim: optimizers and learning-rate schedulers with torch.optim's API.

    import leafgrad as torch
    opt = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
    sched = torch.optim.lr_scheduler.StepLR(opt, step_size=10)

Each optimizer is its update rule written out from the mathematics (see its docstring)
on top of :class:`Optimizer`, which keeps the parameter groups, the per-parameter state
and the torch-compatible ``state_dict``. Given the same parameters and gradients, the
results agree with PyTorch's to the last bit or two (torch's kernels fuse multiply-adds).
Every torch.optim optimizer is here but SparseAdam, which needs sparse gradients; LBFGS
overrides ``step`` (it needs a closure), the others write only their per-parameter rule.
``swa_utils`` has weight averaging (SWA, EMA) and its schedule.
"""
from . import lr_scheduler, swa_utils
from .adadelta import Adadelta
from .adafactor import Adafactor
from .adagrad import Adagrad
from .adam import Adam
from .adamax import Adamax
from .adamw import AdamW
from .asgd import ASGD
from .lbfgs import LBFGS
from .muon import Muon
from .nadam import NAdam
from .optimizer import Optimizer, register_optimizer_step_post_hook, register_optimizer_step_pre_hook
from .radam import RAdam
from .rmsprop import RMSprop
from .rprop import Rprop
from .sgd import SGD

__all__ = ["ASGD", "Adadelta", "Adafactor", "Adagrad", "Adam", "AdamW", "Adamax", "LBFGS", "Muon", "NAdam", "Optimizer", "RAdam", "RMSprop",
           "Rprop", "SGD", "lr_scheduler", "swa_utils", "register_optimizer_step_pre_hook", "register_optimizer_step_post_hook"]
