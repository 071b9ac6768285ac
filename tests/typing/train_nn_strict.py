"""An annotated nn + optim training script: `mypy --strict` must accept it."""
from __future__ import annotations

import os
import tempfile
from typing import Any

import leafgrad as torch
import leafgrad.nn.functional as F
from leafgrad import Tensor, nn, optim
from leafgrad.optim import lr_scheduler
from leafgrad.utils.data import DataLoader, TensorDataset


class Classifier(nn.Module):
    def __init__(self, n_in: int, n_classes: int) -> None:
        super().__init__()
        self.fc1 = nn.Linear(n_in, 16)
        self.norm = nn.LayerNorm(16)
        self.fc2 = nn.Linear(16, n_classes)

    def forward(self, x: Tensor) -> Tensor:
        h: Tensor = F.relu(self.norm(self.fc1(x)))
        out: Tensor = self.fc2(h)
        return out


def accuracy(model: nn.Module, x: Tensor, labels: Tensor) -> float:
    model.eval()
    with torch.no_grad():
        logits: Tensor = model(x)
        return float((logits.argmax(dim=1) == labels).float().mean().item())


def train(epochs: int) -> tuple[float, list[float]]:
    torch.manual_seed(0)
    x = torch.randn(64, 4)
    labels = (x[:, 0] > 0).long()
    loader: DataLoader[Any] = DataLoader(TensorDataset(x, labels), batch_size=16, shuffle=True)
    model = Classifier(4, 2)
    loss_fn = nn.CrossEntropyLoss()
    opt = optim.Adam(model.parameters(), lr=1e-2)
    sched = lr_scheduler.StepLR(opt, step_size=2, gamma=0.5)
    for _ in range(epochs):
        model.train()
        for xb, yb in loader:
            opt.zero_grad()
            loss: Tensor = loss_fn(model(xb), yb)
            loss.backward()
            opt.step()
        sched.step()
    path = os.path.join(tempfile.mkdtemp(), "model.pt")
    state: dict[str, Any] = {"model": model.state_dict(), "opt": opt.state_dict()}
    torch.save(state, path)
    loaded: dict[str, Any] = torch.load(path)
    model.load_state_dict(loaded["model"])
    n_params: int = sum(p.numel() for p in model.parameters())
    assert n_params > 0
    lrs: list[float] = sched.get_last_lr()
    return accuracy(model, x, labels), lrs


if __name__ == "__main__":
    print(train(2))
