"""rnn_core: a vanilla recurrent neural network, the LSTM (``rnn_core.lstm``) and the GRU
(``rnn_core.gru``), in plain numpy.

The package behind the rnn-from-scratch notebooks: each notebook derives a piece
of it and the next one imports it. Conventions and shapes, stacked layers and dropout:
see ``rnn_core.rnn``; the cells' shared interface, and the registry of cells by name:
``rnn_core.cells``. One sequence into another, the encoder-decoder with attention on the same
cells: ``rnn_core.seq2seq``, and its task, dates written out turned into ISO form: ``rnn_core.dates``.
The vanilla RNN's functions are also here at the top level (``rnn_core.forward`` is
``rnn_core.rnn.forward``), as notebooks 03-07 use them. The exercises the reader writes
are checked by ``rnn_core.practice``, which is imported when first used (``from rnn_core import
practice``, or ``rnn_core.practice``), not by ``import rnn_core``.
"""

import importlib

from . import attention, dates, gru, lstm, seq2seq
from .attention import attention_backward, attention_forward
from .cells import CELLS, dropout_masks, num_layers
from .checkpoint import Checkpoint, CheckpointError, load_checkpoint, save_checkpoint
from .data import StreamBatcher, load_text, split_train_val, strip_gutenberg
from .functions import (
    cross_entropy,
    cross_entropy_grad,
    dropout,
    dropout_backward,
    log_softmax,
    logsumexp,
    one_hot,
    sigmoid,
    softmax,
    softmax_jacobian,
)
from .generate import BPC_WINDOW, bits_per_char, next_char_probs, perplexity, sample
from .gradcheck import GRADCHECK_TOL, check_gradients, numerical_gradient, rel_error
from .optim import (
    OPTIMIZERS,
    adagrad_init,
    adagrad_update,
    adam_init,
    adam_update,
    clip_elementwise,
    clip_global_norm,
    global_norm,
    momentum_init,
    momentum_update,
    sgd_init,
    sgd_update,
)
from .progress import progress_bar  # the series' progress bar (tqdm.auto's, kept at its end in a stored notebook)
from .rnn import (
    PARAM_NAMES,
    check_params,
    count_params,
    forward,
    init_params,
    loss_and_grads,
    output_logits,
    param_names,
    param_shapes,
    sequence_loss,
    step_backward,
    step_forward,
)
from .trainer import History, TrainConfig, TrainResult, TrainState, best_checkpoint_path, learning_rate_at, train
from .vocab import Vocabulary

__version__ = "0.1.0"

_LAZY = ("practice",)  # the exercise checker: loaded on first use, so that `import rnn_core` stays light


def __getattr__(name):
    """``rnn_core.practice``, imported the first time it is asked for."""
    if name in _LAZY:
        return importlib.import_module(f"{__name__}.{name}")
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
