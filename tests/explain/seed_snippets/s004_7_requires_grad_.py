# seed 004: requires_grad_()
import torch
x = torch.tensor([1.0, 2.0]) # 默认 requires_grad=False
print(x.requires_grad) # False
# 启用梯度跟踪
x.requires_grad_(True)
print(x.requires_grad) # True
# 再次禁用梯度跟踪
x.requires_grad_(False)
print(x.requires_grad) # False
