"""``leafgrad.nn.utils``: gradient clipping, parameter/vector conversion, sequence packing (``rnn``)."""
from .clip_grad import clip_grad_norm, clip_grad_norm_, clip_grad_value_, get_total_norm, clip_grads_with_norm_
from .convert_parameters import parameters_to_vector, vector_to_parameters
from . import parametrizations, parametrize, rnn  # noqa: F401
from .weight_norm import remove_weight_norm, weight_norm
from .spectral_norm import remove_spectral_norm, spectral_norm

__all__ = ["clip_grad_norm_", "clip_grad_norm", "clip_grad_value_", "get_total_norm", "clip_grads_with_norm_",
           "parameters_to_vector", "vector_to_parameters", "rnn", "parametrize", "parametrizations", "weight_norm",
           "remove_weight_norm", "spectral_norm", "remove_spectral_norm"]
