"""paddlenlp.transformers (2.8.1) base models in small configs: hidden 64, 2 layers, 4 heads,
vocab 100, intermediate 128; input_ids int64 [-1, -1] (batch and sequence dims dynamic), fed
[2, 8] ids in [1, 100).

paddlenlp is installed with --no-deps (tools/paddle_oracle/README.md, "Zoo"); its top-level
__init__ imports every subsystem (datasets, taskflow, trainer, server) and their heavy
dependencies, so `paddlenlp` is registered here as a bare package (its own __path__, a
__version__) and only paddlenlp.data and paddlenlp.transformers are imported. aistudio_sdk,
which paddlenlp uses only to download and upload, is a stub that raises."""
from __future__ import annotations

import importlib
import importlib.util
import os
import sys
import types

import paddle
from paddle import nn

from .common import Model, token_ids

VOCAB, HIDDEN, LAYERS, HEADS, INTERMEDIATE = 100, 64, 2, 4, 128
BATCH, SEQ = 2, 8


def _no_downloads(*args, **kwargs):
    raise RuntimeError("aistudio_sdk is a stub in the zoo generator: no downloads")


def _import_paddlenlp():
    if "paddlenlp.transformers" in sys.modules:
        return sys.modules["paddlenlp.transformers"]
    spec = importlib.util.find_spec("paddlenlp")
    if spec is None:
        raise ImportError("paddlenlp is not installed")
    package = types.ModuleType("paddlenlp")
    package.__path__ = [os.path.dirname(spec.origin)]
    package.__version__ = importlib.metadata.version("paddlenlp")
    sys.modules["paddlenlp"] = package
    sdk, hub = types.ModuleType("aistudio_sdk"), types.ModuleType("aistudio_sdk.hub")
    hub.download = hub.create_repo = hub.upload = _no_downloads
    sdk.hub = hub
    sys.modules.setdefault("aistudio_sdk", sdk)
    sys.modules.setdefault("aistudio_sdk.hub", hub)
    importlib.import_module("paddlenlp.data")  # before transformers, as paddlenlp/__init__ does
    return importlib.import_module("paddlenlp.transformers")


import importlib.metadata  # noqa: E402

T = _import_paddlenlp()


class Outputs(nn.Layer):
    """The model called on input_ids alone; its tensor outputs as a tuple (no None, no caches)."""

    def __init__(self, model, **call):
        super().__init__()
        self.model = model
        self.call = call

    def forward(self, input_ids):
        out = self.model(input_ids, **self.call)
        if not isinstance(out, (tuple, list)) and not hasattr(out, "to_tuple"):
            return out  # one tensor (a pir.Value while to_static traces)
        if hasattr(out, "to_tuple"):
            out = out.to_tuple()
        return tuple(t for t in out if t is not None and not isinstance(t, (tuple, list)))


def _nlp_model(name, model, notes=None, static_dims=(), **call):
    """static_dims: the input dims ("batch", "sequence") fixed at BATCH / SEQ instead of -1,
    where the modelling code compares shapes in Python, which to_static cannot trace with -1."""
    dims = [BATCH if "batch" in static_dims else -1, SEQ if "sequence" in static_dims else -1]
    spec = paddle.static.InputSpec(dims, "int64", "input_ids")
    if static_dims:
        notes = {**(notes or {}), "static_dims": f"{'/'.join(static_dims)} fixed: the modelling "
                                                 "code checks shapes in Python"}
    ids = token_ids(name, [BATCH, SEQ], VOCAB)
    return Model(Outputs(model, **call), [spec], {"input_ids": ids}, notes or {})


def _bert_like(config_cls, model_cls, **extra):
    config = config_cls(vocab_size=VOCAB, hidden_size=HIDDEN, num_hidden_layers=LAYERS,
                        num_attention_heads=HEADS, intermediate_size=INTERMEDIATE,
                        max_position_embeddings=64, **extra)
    return model_cls(config)


def bert(name):
    return _nlp_model(name, _bert_like(T.BertConfig, T.BertModel), return_dict=False)


def ernie(name):
    return _nlp_model(name, _bert_like(T.ErnieConfig, T.ErnieModel), return_dict=False)


def roberta(name):
    return _nlp_model(name, _bert_like(T.RobertaConfig, T.RobertaModel), return_dict=False)


def electra(name):
    return _nlp_model(name, _bert_like(T.ElectraConfig, T.ElectraModel, embedding_size=32),
                      return_dict=False)


def albert(name):
    return _nlp_model(name, _bert_like(T.AlbertConfig, T.AlbertModel, embedding_size=32),
                      return_dict=False)


def gpt(name):
    return _nlp_model(name, _bert_like(T.GPTConfig, T.GPTModel), use_cache=False, return_dict=False)


def _decoder(config_cls, model_cls, **extra):
    config = config_cls(vocab_size=VOCAB, hidden_size=HIDDEN, num_hidden_layers=LAYERS,
                        num_attention_heads=HEADS, intermediate_size=INTERMEDIATE,
                        max_position_embeddings=64, **extra)
    return model_cls(config)


def llama(name):
    return _nlp_model(name, _decoder(T.LlamaConfig, T.LlamaModel, num_key_value_heads=HEADS), static_dims=("batch", "sequence"),
                      use_cache=False, return_dict=False)


def llama_gqa(name):
    """LLaMA with grouped-query attention (2 key/value heads for 4 query heads)."""
    return _nlp_model(name, _decoder(T.LlamaConfig, T.LlamaModel, num_key_value_heads=2), static_dims=("batch", "sequence"),
                      use_cache=False, return_dict=False)


def qwen(name):
    config = T.QWenConfig(vocab_size=VOCAB, hidden_size=HIDDEN, num_hidden_layers=LAYERS,
                          num_attention_heads=HEADS, kv_channels=HIDDEN // HEADS,
                          intermediate_size=INTERMEDIATE * 2,  # QWen's MLP halves it
                          seq_length=64, max_position_embeddings=64)
    return _nlp_model(name, T.QWenModel(config), static_dims=("batch", "sequence"), use_cache=False,
                      return_dict=False)


def mixtral(name):
    config = T.MixtralConfig(vocab_size=VOCAB, hidden_size=HIDDEN, num_hidden_layers=LAYERS,
                             num_attention_heads=HEADS, num_key_value_heads=2,
                             intermediate_size=INTERMEDIATE, max_position_embeddings=64,
                             num_local_experts=4, num_experts_per_tok=2)
    return _nlp_model(name, T.MixtralModel(config), use_cache=False, return_dict=False)


def t5_encoder(name):
    config = T.T5Config(vocab_size=VOCAB, d_model=HIDDEN, d_kv=HIDDEN // HEADS, d_ff=INTERMEDIATE,
                        num_layers=LAYERS, num_heads=HEADS, relative_attention_num_buckets=8)
    return _nlp_model(name, T.T5EncoderModel(config), return_dict=False)


def opt(name):
    config = T.OPTConfig(vocab_size=VOCAB, hidden_size=HIDDEN, num_hidden_layers=LAYERS,
                         num_attention_heads=HEADS, intermediate_size=INTERMEDIATE,
                         word_embed_proj_dim=HIDDEN, max_position_embeddings=64)
    return _nlp_model(name, T.OPTModel(config), static_dims=("batch", "sequence"), use_cache=False,
                      return_dict=False)


def bloom(name):
    config = T.BloomConfig(vocab_size=VOCAB, hidden_size=HIDDEN, n_layer=LAYERS, n_head=HEADS)
    return _nlp_model(name, T.BloomModel(config), static_dims=("batch", "sequence"), use_cache=False,
                      return_dict=False)


MODELS = {f.__name__: f for f in (bert, ernie, roberta, electra, albert, gpt, llama, llama_gqa, qwen,
                                  t5_encoder, bloom)}

# Tried, not saved (the builders stay for a later paddlenlp or Paddle): what Paddle 3.3.1 raised.
NOT_EXPORTED = {
    "opt": (opt, "to_static: OPTModel._prepare_decoder_attention_mask -> paddle.full gets an "
                 "UndefinedVar ('full(): argument (position 2) must be double, but got UndefinedVar'), "
                 "with -1 or fixed input dims"),
    "mixtral": (mixtral, "the sparse MoE block routes tokens with paddle.where / .item() and "
                         "index_add_ on data-dependent shapes: 'Broadcast dimension mismatch ... X = [4, 64] "
                         "and Y = [4]' already in dygraph at these sizes; not traceable by to_static"),
}
