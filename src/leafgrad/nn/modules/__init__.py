"""The layers of ``leafgrad.nn``, one small file per family."""
from .module import Module
from .container import ModuleDict, ModuleList, ParameterDict, ParameterList, Sequential
from .linear import Bilinear, Identity, Linear
from .conv import Conv1d, Conv2d
from .pooling import AdaptiveAvgPool2d, AvgPool2d, MaxPool2d
from .normalization import BatchNorm1d, BatchNorm2d, LayerNorm
from .dropout import Dropout, Dropout1d, Dropout2d
from .sparse import Embedding
from .rnn import GRU, LSTM, RNN, RNNBase
from .rnn_cell import GRUCell, LSTMCell, RNNCell, RNNCellBase
from .activation import (CELU, ELU, GELU, GLU, SELU, Hardshrink, Hardsigmoid, Hardswish, Hardtanh, LeakyReLU,
                         LogSigmoid, LogSoftmax, Mish, ReLU, ReLU6, Sigmoid, SiLU, Softmax, Softmin, Softplus,
                         Softshrink, Softsign, Tanh, Tanhshrink, Threshold)
from .loss import (BCELoss, BCEWithLogitsLoss, CosineEmbeddingLoss, CrossEntropyLoss, HingeEmbeddingLoss, HuberLoss,
                   KLDivLoss, L1Loss, MarginRankingLoss, MSELoss, NLLLoss, SmoothL1Loss, SoftMarginLoss)
from .distance import CosineSimilarity, PairwiseDistance
from .flatten import Flatten, Unflatten
from .attention import MultiheadAttention
from .transformer import (Transformer, TransformerDecoder, TransformerDecoderLayer, TransformerEncoder,
                          TransformerEncoderLayer)
from .conv_transpose import ConvTranspose1d, ConvTranspose2d
from .normalization_extra import GroupNorm, InstanceNorm1d, InstanceNorm2d, InstanceNorm3d, LocalResponseNorm
from .pooling_extra import (AdaptiveAvgPool1d, AdaptiveMaxPool1d, AdaptiveMaxPool2d, AvgPool1d, LPPool1d, LPPool2d,
                            MaxPool1d, MaxUnpool1d, MaxUnpool2d)
from .padding import (CircularPad1d, CircularPad2d, CircularPad3d, ConstantPad1d, ConstantPad2d, ConstantPad3d,
                      ReflectionPad1d, ReflectionPad2d, ReflectionPad3d, ReplicationPad1d, ReplicationPad2d,
                      ReplicationPad3d, ZeroPad1d, ZeroPad2d, ZeroPad3d)
from .upsampling import PixelShuffle, PixelUnshuffle, Upsample, UpsamplingBilinear2d, UpsamplingNearest2d
from .layers3d import (AdaptiveAvgPool3d, AdaptiveMaxPool3d, AvgPool3d, BatchNorm3d, Conv3d,  # (nn3d)
                       ConvTranspose3d, Dropout3d, Fold, LPPool3d, MaxPool3d, MaxUnpool3d, Unfold)
from .fractional import FractionalMaxPool2d, FractionalMaxPool3d  # (nn3d)

__all__ = [
    "Module", "Sequential", "ModuleList", "ModuleDict", "ParameterList", "ParameterDict", "Identity", "Linear",
    "Bilinear", "Conv1d", "Conv2d", "MaxPool2d", "AvgPool2d", "AdaptiveAvgPool2d", "BatchNorm1d", "BatchNorm2d",
    "LayerNorm", "Dropout", "Dropout1d", "Dropout2d", "Embedding", "RNNBase", "RNN", "LSTM", "GRU",
    "RNNCellBase", "RNNCell", "LSTMCell", "GRUCell", "ReLU", "ReLU6",
    "Hardtanh", "LeakyReLU", "GELU", "SiLU", "Tanh", "Sigmoid", "Softmax", "LogSoftmax", "LogSigmoid", "ELU",
    "Softplus", "SELU", "CELU", "Mish", "Softsign", "Hardsigmoid", "Hardswish", "Tanhshrink", "Softshrink",
    "Hardshrink", "Threshold", "GLU", "Softmin", "CosineSimilarity", "PairwiseDistance", "MSELoss", "L1Loss",
    "SmoothL1Loss", "HuberLoss", "CrossEntropyLoss", "NLLLoss", "BCELoss", "BCEWithLogitsLoss", "KLDivLoss",
    "MarginRankingLoss", "HingeEmbeddingLoss", "SoftMarginLoss", "CosineEmbeddingLoss", "Flatten", "Unflatten",
    "MultiheadAttention",
    "Transformer", "TransformerEncoder", "TransformerDecoder", "TransformerEncoderLayer", "TransformerDecoderLayer",
    "ConvTranspose1d", "ConvTranspose2d", "GroupNorm", "InstanceNorm1d", "InstanceNorm2d", "InstanceNorm3d",
    "LocalResponseNorm", "Upsample", "UpsamplingNearest2d", "UpsamplingBilinear2d", "PixelShuffle", "PixelUnshuffle",
    "MaxPool1d", "AvgPool1d", "AdaptiveAvgPool1d", "AdaptiveMaxPool1d", "AdaptiveMaxPool2d", "LPPool1d",
    "LPPool2d", "MaxUnpool1d", "MaxUnpool2d",
    "ReflectionPad1d", "ReflectionPad2d", "ReflectionPad3d", "ReplicationPad1d", "ReplicationPad2d",
    "ReplicationPad3d", "CircularPad1d", "CircularPad2d", "CircularPad3d", "ConstantPad1d", "ConstantPad2d",
    "ConstantPad3d", "ZeroPad1d", "ZeroPad2d", "ZeroPad3d",
]
__all__ += [  # (nn3d: a separate literal list, which type checkers read)
    "Conv3d", "ConvTranspose3d", "MaxPool3d", "AvgPool3d", "AdaptiveAvgPool3d", "AdaptiveMaxPool3d", "LPPool3d",
    "MaxUnpool3d", "BatchNorm3d", "Dropout3d", "Fold", "Unfold", "FractionalMaxPool2d", "FractionalMaxPool3d",
]

# (nnloss branch) more losses, activations and norms, each family in a file of its own
from .loss_more import (CTCLoss, GaussianNLLLoss, MultiLabelMarginLoss, MultiLabelSoftMarginLoss,  # noqa: E402
                        MultiMarginLoss, NLLLoss2d, PoissonNLLLoss, TripletMarginLoss, TripletMarginWithDistanceLoss,
                        LinearCrossEntropyLoss)
from .activation_more import (AlphaDropout, ChannelShuffle, CrossMapLRN2d, FeatureAlphaDropout, PReLU,  # noqa: E402
                              RMSNorm, RReLU, Softmax2d)
from . import loss_more as _loss_more, activation_more as _activation_more  # noqa: E402

__all__ += _loss_more.__all__ + _activation_more.__all__
from . import lazy as _lazy  # noqa: E402
from .lazy import *  # noqa: E402,F401,F403  (LazyLinear, LazyConv1d, ...; the 3-d ones where nn.Conv3d exists)

__all__ += [n for n in _lazy.__all__ if n != "LazyModuleMixin"]
from .misc_more import Container, DataParallel, SyncBatchNorm  # noqa: E402

__all__ += ["Container", "DataParallel", "SyncBatchNorm"]
from .sparse_more import EmbeddingBag  # noqa: E402

__all__ += ["EmbeddingBag"]
from .adaptive import AdaptiveLogSoftmaxWithLoss  # noqa: E402

__all__ += ["AdaptiveLogSoftmaxWithLoss"]
