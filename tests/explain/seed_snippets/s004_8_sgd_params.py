# seed 004: torch.optim.SGD([model.parameters()]) is a TypeError; the fix, and zero_grad
import torch
model = torch.nn.Linear(2, 1)
try:
    optimizer = torch.optim.SGD([model.parameters()], lr=0.01)
except TypeError as e:
    print("TypeError:", e)
optimizer = torch.optim.SGD(model.parameters(), lr=0.01)
out = model(torch.ones(3, 2)).sum()
out.backward()
optimizer.step()
optimizer.zero_grad()
print(model.weight.grad)
