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
    """The model called on input_ids alone; its tensor outputs as a tuple."""

    def __init__(self, model, **call):
        super().__init__()
        self.model = model
        self.call = call

    def forward(self, input_ids):
        out = self.model(input_ids, **self.call)
        if isinstance(out, paddle.Tensor):
            return out
        if hasattr(out, "to_tuple"):
            out = out.to_tuple()
        return tuple(t for t in out if isinstance(t, paddle.Tensor))


def _nlp_model(name, model, notes=None, **call):
    spec = paddle.static.InputSpec([-1, -1], "int64", "input_ids")
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
    return _nlp_model(name, _decoder(T.LlamaConfig, T.LlamaModel, num_key_value_heads=HEADS),
                      use_cache=False, return_dict=False)


def llama_gqa(name):
    """LLaMA with grouped-query attention (2 key/value heads for 4 query heads)."""
    return _nlp_model(name, _decoder(T.LlamaConfig, T.LlamaModel, num_key_value_heads=2),
                      use_cache=False, return_dict=False)


def qwen(name):
    config = T.QWenConfig(vocab_size=VOCAB, hidden_size=HIDDEN, num_hidden_layers=LAYERS,
                          num_attention_heads=HEADS, intermediate_size=INTERMEDIATE * 2,
                          seq_length=64, max_position_embeddings=64)
    return _nlp_model(name, T.QWenModel(config), use_cache=False, return_dict=False)


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
    return _nlp_model(name, T.OPTModel(config), use_cache=False, return_dict=False)


def bloom(name):
    config = T.BloomConfig(vocab_size=VOCAB, hidden_size=HIDDEN, n_layer=LAYERS, n_head=HEADS)
    return _nlp_model(name, T.BloomModel(config), use_cache=False, return_dict=False)


MODELS = {f.__name__: f for f in (bert, ernie, roberta, electra, albert, gpt, llama, llama_gqa, qwen,
                                  mixtral, t5_encoder, opt, bloom)}
