# seed 000, example 2: the article expects an error; PyTorch 2.13 records CopySlices instead
import torch

A = torch.tensor([1.0, 2.0], requires_grad=True)
B = A * 2 # B 是非叶子节点

try:
    # 尝试原地修改 (In-place operation) 比如使用索引赋值或 .add_()
    B[0] = 99.0
except RuntimeError as e:
    print("\n--- 触发 RuntimeError ---")
    print(f"Error: {e}")
    print("-------------------------")

print(B)
B.sum().backward()
print(A.grad)
