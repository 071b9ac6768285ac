# seed 000, example 3: detach() shares memory
import torch

A = torch.tensor([1.0, 2.0], requires_grad=True)
B = A * 2 # 非叶子节点

# 使用 detach() 创建一个安全的可修改副本
B_detached = B.detach()

# 对 B_detached 进行原地修改是安全的
B_detached[0] = 99.0

print(f"B (原始非叶子): {B}")
print(f"B_detached (已修改): {B_detached}")
