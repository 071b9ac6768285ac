"""leafgrad.optim: torch.optim's optimizers and learning-rate schedulers.

    import leafgrad as torch
    opt = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
    sched = torch.optim.lr_scheduler.StepLR(opt, step_size=10)

Every optimizer follows torch 2.13's single-tensor update formulas, so the same
parameters and gradients give the same result as PyTorch (to float32 rounding).
"""
from . import lr_scheduler
from .adagrad import Adagrad
from .adam import Adam, AdamW
from .optimizer import Optimizer, register_optimizer_step_post_hook, register_optimizer_step_pre_hook
from .rmsprop import RMSprop
from .sgd import SGD

__all__ = ["Adagrad", "Adam", "AdamW", "Optimizer", "RMSprop", "SGD", "lr_scheduler",
           "register_optimizer_step_pre_hook", "register_optimizer_step_post_hook"]
