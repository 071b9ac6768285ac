# seed 004: clone() keeps the graph
import torch
x = torch.tensor([5.0], requires_grad=True)
# 推荐：使用 .clone() 来复制张量，并保持 requires_grad=True (如果原张量是 True)
y = x.clone() * 2 # y.requires_grad 为 True
z = y * 3
z.backward()
# 成功计算梯度
print(x.grad)
# tensor([6.])
