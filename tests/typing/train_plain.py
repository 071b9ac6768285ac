# An ordinary, unannotated training script, as a PyTorch user writes it: plain `mypy` must accept it.
import leafgrad as torch
from leafgrad import nn
import leafgrad.nn.functional as F

torch.manual_seed(0)
x = torch.randn(64, 3)
y = (x.sum(dim=1, keepdim=True) * 2 + 1).detach()
model = nn.Sequential(nn.Linear(3, 16), nn.ReLU(), nn.Linear(16, 1))
opt = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)
for step in range(5):
    opt.zero_grad()
    out = model(x)
    loss = F.mse_loss(out, y)
    loss.backward()
    opt.step()
w = torch.zeros(3, requires_grad=True)
z = (x @ w).relu().mean() + w.pow(2).sum() * 0.1
z.backward()
with torch.no_grad():
    w -= 0.1 * w.grad
    w.add_(1.0, alpha=0.5)
print(loss.item(), w.shape, w.T, -w, abs(w), w[0], x.float().exp().log1p().max())
