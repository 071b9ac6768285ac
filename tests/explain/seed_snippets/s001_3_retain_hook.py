# seed 001, appendix: printing the gradient of a non-leaf
import torch

x = torch.tensor(2.0, requires_grad=True)
y = x**2
z = y**2

# 方法一：使用 retain_grad() 显式保留梯度
y.retain_grad()

z.backward(retain_graph=True)
print("方法一：", y.grad)  # 输出: 16.0

# 方法二：使用钩子 hook 捕捉梯度
gradient_list = []
def save_gradient(grad):
    gradient_list.append(grad)

hook = y.register_hook(save_gradient)
z.backward()
hook.remove()  # 重点：即时移除钩子，防止不必要的内存占用

print("方法二：", gradient_list[0])  # 输出: 16.0
