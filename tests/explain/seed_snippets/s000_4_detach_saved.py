# seed 000 (README): modifying a detached copy of a saved tensor breaks backward
import torch

A = torch.tensor([1.0, 2.0], requires_grad=True)
B = A.exp()
B_detached = B.detach()
B_detached[0] = 99.0
print(B)
B.sum().backward()
print(A.grad)
