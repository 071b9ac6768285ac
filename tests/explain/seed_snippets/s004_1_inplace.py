# seed 004: in-place operations on a leaf (the article expects no error on the first line)
import torch
x = torch.tensor([1.0, 2.0], requires_grad=True)
# 错误：就地修改（In-Place operation），末尾带有下划线 _
x[0] = x[0] + 1.0 # 这是一个赋值操作，通常不会引起 In-Place 错误
x.data.add_(1) # 这是一个**安全的** In-Place 修改（因为操作的是 .data）
x.add_(1) # 错误！对 requires_grad=True 的张量进行 In-Place 操作
loss = x.sum()
