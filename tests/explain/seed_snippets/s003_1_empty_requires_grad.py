# seed 003: filling torch.empty(2, requires_grad=True) fails at the assignment in PyTorch 2
import torch

x = torch.tensor([1.0, 2.0], requires_grad=True)
out1 = x[0] * 2
out2 = x[1] ** 2
outi = torch.empty(2, requires_grad=True)
print(outi.is_leaf, outi.grad_fn, outi.requires_grad)
outi[0] = out1
outi[1] = out2
outi.backward(torch.tensor([0.,1.]))
