# seed 003: with torch.empty(2) the assignments are recorded (CopySlices)
import torch

x = torch.tensor([1.0, 2.0], requires_grad=True)
out1 = x[0] * 2
out2 = x[1] ** 2
outi = torch.empty(2)
outi[0] = out1
outi[1] = out2
print(outi.is_leaf, outi.grad_fn, outi.requires_grad)
outi.backward(torch.tensor([0.,1.]))
print(x.grad)
print(outi.grad)
