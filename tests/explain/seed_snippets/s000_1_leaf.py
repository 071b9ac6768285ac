# seed 000, example 1: leaf and non-leaf tensors
import torch

# 1. 用户创建的张量 A：叶子节点
A = torch.tensor([1.0, 2.0], requires_grad=True)
print(f"A.requires_grad: {A.requires_grad}, A.is_leaf: {A.is_leaf}")

# 2. 运算结果张量 B：非叶子节点
B = A * 2
print(f"B.requires_grad: {B.requires_grad}, B.is_leaf: {B.is_leaf}")

# 3. 运算结果张量 C：非叶子节点
C = B.sum()
print(f"C.requires_grad: {C.requires_grad}, C.is_leaf: {C.is_leaf}")
