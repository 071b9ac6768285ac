"""torch.onnx: importable (scripts import it at the top); ``export`` refuses, since leafgrad has no exporter."""
from __future__ import annotations

__all__ = ["export", "is_in_onnx_export"]


def is_in_onnx_export() -> bool:
    return False


def export(model, args=(), f=None, *pargs, **kwargs):
    raise RuntimeError(
        "torch.onnx.export: leafgrad cannot export to ONNX (it records no graph an exporter could translate). "
        "Export with PyTorch itself: torch.save(model.state_dict(), path) here, then load those weights into "
        "the same model under PyTorch and call torch.onnx.export there.")
