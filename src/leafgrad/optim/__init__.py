"""leafgrad.optim: optimizers and learning-rate schedulers with torch.optim's API.

    import leafgrad as torch
    opt = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
    sched = torch.optim.lr_scheduler.StepLR(opt, step_size=10)

Each optimizer is its update rule written out from the mathematics (see its docstring)
on top of :class:`Optimizer`, which keeps the parameter groups, the per-parameter state
and the torch-compatible ``state_dict``. Given the same parameters and gradients, the
results agree with PyTorch's to float32 rounding.
"""
from . import lr_scheduler
from .adagrad import Adagrad
from .adam import Adam
from .adamw import AdamW
from .optimizer import Optimizer, register_optimizer_step_post_hook, register_optimizer_step_pre_hook
from .rmsprop import RMSprop
from .sgd import SGD

__all__ = ["Adagrad", "Adam", "AdamW", "Optimizer", "RMSprop", "SGD", "lr_scheduler",
           "register_optimizer_step_pre_hook", "register_optimizer_step_post_hook"]
