"""The Summary protos behind SummaryWriter's calls, built as torch's writer builds them.

Each function returns one ``Summary`` proto (tensorboard's own classes), so the event files hold
what torch's would: old-style ``simple_value`` scalars (or the "scalars" plugin's tensor with
``new_style``), TensorFlow-style histograms, the "text" plugin's string tensor, and the
"hparams" plugin's experiment / session-start / session-end records.
"""
from __future__ import annotations

import numpy as np
from tensorboard.compat.proto.summary_pb2 import HistogramProto, Summary, SummaryMetadata
from tensorboard.compat.proto.tensor_pb2 import TensorProto
from tensorboard.compat.proto.tensor_shape_pb2 import TensorShapeProto

__all__ = ["to_numpy", "scalar", "histogram", "text", "hparams", "tensorflow_bins"]


def to_numpy(x) -> np.ndarray:
    """A tensor (detached: logging never touches the graph), an array, or a Python number, as an ndarray."""
    from ..._tensor import Tensor
    if isinstance(x, Tensor):
        return x.detach().numpy()
    if isinstance(x, np.ndarray):
        return x
    if hasattr(x, "detach") and hasattr(x, "numpy"):  # (a torch tensor, logged from mixed code)
        return x.detach().cpu().numpy()
    return np.asarray(x)


def _one_number(value) -> float:
    arr = to_numpy(value)
    if arr.dtype.kind in "US":
        return float(arr.item())  # a numeric string converts; anything else raises torch's ValueError
    if arr.size != 1:
        raise AssertionError(f"Tensor should contain one element (0 dimensions). Was given size: {arr.size} and "
                             f"{arr.ndim} dimensions: log one number per add_scalar call (e.g. loss.item()), or a "
                             "histogram with add_histogram")
    return float(arr.reshape(()))


def scalar(name: str, value, new_style: bool = False, double_precision: bool = False) -> Summary:
    number = _one_number(value)
    if not new_style:
        return Summary(value=[Summary.Value(tag=name, simple_value=number)])
    tensor = (TensorProto(double_val=[number], dtype="DT_DOUBLE") if double_precision
              else TensorProto(float_val=[number], dtype="DT_FLOAT"))
    meta = SummaryMetadata(plugin_data=SummaryMetadata.PluginData(plugin_name="scalars"))
    return Summary(value=[Summary.Value(tag=name, tensor=tensor, metadata=meta)])


def tensorflow_bins() -> list:
    """TensorFlow's default histogram edges: ±1e-12 growing by 10% up to 1e20 in magnitude, and 0."""
    edges = []
    v = 1e-12
    while v < 1e20:
        edges.append(v)
        v *= 1.1
    return [-e for e in reversed(edges)] + [0] + edges


def _coarsen(counts: np.ndarray, edges: np.ndarray, max_bins: int):
    """Merge runs of ``len(counts) // max_bins`` neighbouring buckets (the last run padded with empty ones)."""
    group = len(counts) // max_bins
    short = len(counts) % group
    if short:
        counts = np.concatenate([counts, np.zeros(group - short, dtype=counts.dtype)])
    merged = counts.reshape(-1, group).sum(axis=-1)
    return merged, np.concatenate([edges[:-1:group], edges[-1:]])


def histogram(name: str, values, bins, max_bins: int | None = None) -> Summary:
    values = to_numpy(values).astype(float).reshape(-1)
    if values.size == 0:
        raise ValueError("The input has no element.")
    counts, edges = np.histogram(values, bins=bins)
    if max_bins is not None and len(counts) > max_bins:
        counts, edges = _coarsen(counts, edges, max_bins)
    filled = np.flatnonzero(counts)
    if filled.size == 0:
        raise ValueError("The histogram is empty, please file a bug report.")
    first, last = int(filled[0]), int(filled[-1])
    # TensorBoard's buckets are right edges: keep the filled span plus one empty bucket ending at its left edge
    bucket = [0.0] + counts[first:last + 1].astype(float).tolist()
    limits = edges[first:last + 2].tolist()
    proto = HistogramProto(min=values.min(), max=values.max(), num=len(values), sum=values.sum(),
                           sum_squares=values.dot(values), bucket_limit=limits, bucket=bucket)
    return Summary(value=[Summary.Value(tag=name, histo=proto)])


def text(tag: str, text_string: str) -> Summary:
    from tensorboard.plugins.text.plugin_data_pb2 import TextPluginData
    meta = SummaryMetadata(plugin_data=SummaryMetadata.PluginData(
        plugin_name="text", content=TextPluginData(version=0).SerializeToString()))
    tensor = TensorProto(dtype="DT_STRING", string_val=[text_string.encode("utf_8")],
                         tensor_shape=TensorShapeProto(dim=[TensorShapeProto.Dim(size=1)]))
    return Summary(value=[Summary.Value(tag=tag + "/text_summary", metadata=meta, tensor=tensor)])


def _plugin_summary(tag: str, **content) -> Summary:
    from tensorboard.plugins.hparams import metadata
    from tensorboard.plugins.hparams.plugin_data_pb2 import HParamsPluginData
    data = HParamsPluginData(version=metadata.PLUGIN_DATA_VERSION, **content)
    meta = SummaryMetadata(plugin_data=SummaryMetadata.PluginData(plugin_name=metadata.PLUGIN_NAME,
                                                                  content=data.SerializeToString()))
    return Summary(value=[Summary.Value(tag=tag, metadata=meta)])


def hparams(hparam_dict: dict, metric_dict: dict, hparam_domain_discrete: dict | None = None):
    """The experiment, session-start and session-end summaries of one hyperparameter run."""
    from google.protobuf import struct_pb2
    from tensorboard.plugins.hparams import metadata
    from tensorboard.plugins.hparams.api_pb2 import DataType, Experiment, HParamInfo, MetricInfo, MetricName, Status
    from tensorboard.plugins.hparams.plugin_data_pb2 import SessionEndInfo, SessionStartInfo

    from ..._tensor import Tensor
    if not isinstance(hparam_dict, dict):
        raise TypeError("parameter: hparam_dict should be a dictionary, nothing logged.")
    if not isinstance(metric_dict, dict):
        raise TypeError("parameter: metric_dict should be a dictionary, nothing logged.")
    domains = hparam_domain_discrete or {}
    if not isinstance(domains, dict):
        raise TypeError("parameter: hparam_domain_discrete should be a dictionary, nothing logged.")
    for k, v in domains.items():
        if k not in hparam_dict or not isinstance(v, list) or not all(isinstance(d, type(hparam_dict[k])) for d in v):
            raise TypeError(f"parameter: hparam_domain_discrete[{k}] should be a list of same type as "
                            f"hparam_dict[{k}].")
    infos = []
    start = SessionStartInfo()
    for k, v in hparam_dict.items():
        if v is None:
            continue
        if isinstance(v, Tensor):  # one number (torch reads it as the first element)
            v = float(to_numpy(v).reshape(-1)[0])
        if isinstance(v, (int, float)):  # (bool is an int: logged as 0/1, as torch does)
            start.hparams[k].number_value = v
            kind, values = "DATA_TYPE_FLOAT64", [struct_pb2.Value(number_value=d) for d in domains.get(k, ())]
        elif isinstance(v, str):
            start.hparams[k].string_value = v
            kind, values = "DATA_TYPE_STRING", [struct_pb2.Value(string_value=d) for d in domains.get(k, ())]
        else:
            raise ValueError("value should be one of int, float, str, bool, or torch.Tensor")
        infos.append(HParamInfo(name=k, type=DataType.Value(kind),
                                domain_discrete=struct_pb2.ListValue(values=values) if k in domains else None))
    metrics = [MetricInfo(name=MetricName(tag=k)) for k in metric_dict]
    exp = _plugin_summary(metadata.EXPERIMENT_TAG, experiment=Experiment(hparam_infos=infos, metric_infos=metrics))
    ssi = _plugin_summary(metadata.SESSION_START_INFO_TAG, session_start_info=start)
    sei = _plugin_summary(metadata.SESSION_END_INFO_TAG,
                          session_end_info=SessionEndInfo(status=Status.Value("STATUS_SUCCESS")))
    return exp, ssi, sei
