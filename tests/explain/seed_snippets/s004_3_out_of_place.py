# seed 004: the out-of-place fix
import torch
# 推荐方法：非就地操作
x = torch.tensor([1.0, 2.0], requires_grad=True)
# 使用新的张量接收结果
y = x + 1.0
loss = y.sum()
loss.backward()
# 成功计算梯度
print(x.grad)
# tensor([1., 1.])
