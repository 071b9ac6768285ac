# seed 004: x.add_(1) on a leaf that requires grad
import torch
x = torch.tensor([1.0, 2.0], requires_grad=True)
x.data.add_(1) # 这是一个**安全的** In-Place 修改（因为操作的是 .data）
print(x)
x.add_(1) # 错误！对 requires_grad=True 的张量进行 In-Place 操作
