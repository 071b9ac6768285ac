"""An annotated training script: `mypy --strict` must accept it."""
import leafgrad as torch
from leafgrad import Tensor, nn


class Net(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.fc1 = nn.Linear(3, 8)
        self.fc2 = nn.Linear(8, 1)

    def forward(self, x: Tensor) -> Tensor:
        h: Tensor = self.fc1(x)
        out: Tensor = self.fc2(h.relu())
        return out


def mse(pred: Tensor, target: Tensor) -> Tensor:
    return ((pred - target) ** 2).mean()


def train(steps: int) -> float:
    x: Tensor = torch.randn(32, 3)
    y: Tensor = x.sum(dim=1, keepdim=True) * 2 + 1
    net = Net()
    opt = torch.optim.Adam(net.parameters(), lr=0.01)
    last = 0.0
    for _ in range(steps):
        opt.zero_grad()
        loss = mse(net(x), y)
        loss.backward()
        opt.step()
        last = float(loss)
    return last


def scale(t: Tensor, k: float) -> Tensor:
    return t * k + t / 2 - 1


if __name__ == "__main__":
    print(train(3), scale(torch.ones(2), 3.0).tolist())
