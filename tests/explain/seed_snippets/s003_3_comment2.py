# seed 003, comment 2
import torch

a = torch.ones(2,requires_grad=False)
b = 2*a
b.requires_grad=True
print(b.is_leaf) #True
a = torch.ones(2, requires_grad=False)
print(a.is_leaf) # True
