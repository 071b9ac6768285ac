"""Train a multi-layer perceptron on scikit-learn's 8x8 digits -- ordinary PyTorch code, run by leafgrad.

    PYTHONPATH=src python examples/train_mlp_digits.py

Swap the first two imports for ``import torch`` / ``import torch.nn as nn`` and the same
script runs on PyTorch. Expect about 99% test accuracy in a few seconds.
"""
import numpy as np
from sklearn.datasets import load_digits
from tqdm import tqdm

import leafgrad as torch
import leafgrad.nn as nn
from leafgrad.utils.data import DataLoader, TensorDataset, random_split

torch.manual_seed(0)

# --- data: 1797 images of 8x8 pixels (values 0..16), labels 0..9
digits = load_digits()
x = torch.tensor(digits.data.astype(np.float32) / 16.0)
y = torch.tensor(digits.target)
train_set, test_set = random_split(TensorDataset(x, y), [0.8, 0.2], generator=torch.Generator().manual_seed(0))
train_loader = DataLoader(train_set, batch_size=32, shuffle=True, generator=torch.Generator().manual_seed(0))
test_loader = DataLoader(test_set, batch_size=256)

# --- model, loss, optimizer, schedule
model = nn.Sequential(
    nn.Linear(64, 256), nn.ReLU(), nn.Dropout(0.2),
    nn.Linear(256, 128), nn.ReLU(), nn.Dropout(0.2),
    nn.Linear(128, 10),
)
criterion = nn.CrossEntropyLoss(label_smoothing=0.05)
optimizer = torch.optim.AdamW(model.parameters(), lr=3e-3, weight_decay=1e-4)
epochs = 40
scheduler = torch.optim.lr_scheduler.OneCycleLR(optimizer, max_lr=3e-3, epochs=epochs,
                                                steps_per_epoch=len(train_loader))


def accuracy(loader):
    model.eval()
    correct = 0
    with torch.no_grad():
        for xb, yb in loader:
            correct += (model(xb).argmax(dim=1) == yb).sum().item()
    return correct / len(loader.dataset)


# --- training loop
bar = tqdm(range(epochs), desc="MLP", unit="epoch")
for epoch in bar:
    model.train()
    total, running = 0, 0.0
    for xb, yb in train_loader:
        optimizer.zero_grad()
        loss = criterion(model(xb), yb)
        loss.backward()
        optimizer.step()
        scheduler.step()
        total += len(yb)
        running += loss.item() * len(yb)
    bar.set_postfix(loss=f"{running / total:.3f}", test_acc=f"{accuracy(test_loader):.3f}")

print(f"test accuracy: {accuracy(test_loader):.2%}")

# --- checkpoint: a safetensors file PyTorch can read with safetensors.torch.load_file
# (reload with model.load_state_dict(torch.load("mlp_digits.safetensors")))
torch.save(model.state_dict(), "mlp_digits.safetensors")
print("saved mlp_digits.safetensors")
