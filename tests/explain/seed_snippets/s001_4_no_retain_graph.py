# seed 001, appendix without retain_graph=True: the second backward fails
import torch

x = torch.tensor(2.0, requires_grad=True)
y = x**2
z = y**2
y.retain_grad()
z.backward()
print("方法一：", y.grad)
z.backward()
