# seed 004: a tensor made under no_grad cannot be differentiated (the article's commented line, enabled)
import torch
x = torch.tensor([5.0], requires_grad=True)
# 在不跟踪梯度的上下文中创建 y
with torch.no_grad():
    y = x * 2 # y.requires_grad 为 False
z = y * 3 # z.requires_grad 也是 False
print(y.requires_grad, z.requires_grad)
z.backward() # 错误！z 不能计算梯度，因为它是从一个 no_grad 张量 y 派生出来的。
