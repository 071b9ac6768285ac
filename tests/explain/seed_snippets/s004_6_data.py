# seed 004: .data
import torch
x = torch.tensor([1.0, 2.0], requires_grad=True)
print(x.data)
# tensor([1., 2.])
# 安全地进行就地修改
x.data.add_(5.0)
print(x)
# tensor([6., 7.], requires_grad=True)
