"""Model builders of the development zoo (gen_zoo.py): `vision` (paddle.vision.models) and `nlp`
(paddlenlp.transformers). Each module's MODELS maps a model name to a builder returning a
`Model` (the eval-mode layer, its InputSpecs with -1 dims, the fixed inputs, notes)."""

FAMILIES = ("vision", "nlp")
