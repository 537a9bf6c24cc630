"""The short codes of Paddle's saved-program JSON, and what they mean in pirc.

Paddle's serializer (paddle/fluid/pir/serialize_deserialize, schema.h and
serialize_utils.h) abbreviates every key, dialect, type and attribute kind.
These tables are the whole vocabulary the reader accepts and the writer
emits; the reader and writer hold no spellings of their own.
"""

from __future__ import annotations

# -- keys (schema.h) --------------------------------------------------------

ID = "#"
VALUE_ID = "%"
REGIONS = "regions"
BLOCKS = "blocks"
BLOCK_ARGS = "args"
KEYWORD_BLOCK_ARGS = "kwargs"
OPS = "ops"
OPERANDS = "I"
RESULTS = "O"
ATTRS = "A"
RESULT_ATTRS = "OA"
DIST_ATTRS = "DA"
QUANT_ATTRS = "QA"
TYPE = "TT"
NAME = "N"
ATTR = "AT"
DATA = "D"
VOID_DATA = "VD"  # holds a non-finite float instead of D
NULL = "NULL"  # `{"#":"NULL"}`: the null type or the null attribute

BASE_CODE = "base_code"
PROGRAM = "program"
MAGIC = "magic"
MAGIC_VALUE = "pir"
VERSION = "version"
TRAINABLE = "trainable"

# pirc's own metadata lives in one extra base_code key: Paddle 3.0.0 and 3.3.1
# both load files with extra base_code keys (docs/PADDLE-JSON.md: Paddle's
# reader ignores keys it does not know).  Inside it: {"graph_tags": [[name, version, rollout,
# fingerprint before, fingerprint after], ...], "manifest": {...}} (the fingerprints are
# optional: tags written before they existed have three fields).
PIRC_KEY = "pirc"
GRAPH_TAGS = "graph_tags"
MANIFEST = "manifest"
MANIFEST_FIELDS = ("pirc_version", "pir_version", "op_versions", "pipeline", "pipeline_version")

# -- dialects (DialectIdMap, schema.cc) -------------------------------------

DIALECT_IDS: dict[str, str] = {
    "builtin": "0",
    "pd_op": "1",
    "cf": "2",
    "custom_op": "3",
    "dist": "4",
}
DIALECT_BY_ID: dict[str, str] = {v: k for k, v in DIALECT_IDS.items()}

# builtin.parameter is written in a compact form of its own (`"#":"p"`).
PARAMETER_CODE = "p"
PARAMETER_OP = "builtin.parameter"
# Compact A: three 0/1 flags then the name; compact OA: three 0/1 flags.  In
# the IR each flag is an array<bool> of one element, as Paddle prints them.
# Defaults are what Paddle's writer uses when the attribute is absent.
PARAMETER_A_FLAGS: tuple[tuple[str, bool], ...] = (
    ("is_distributed", False),
    ("is_parameter", True),
    ("need_clip", False),
)
PARAMETER_NAME = "parameter_name"
PARAMETER_OA_FLAGS: tuple[tuple[str, bool], ...] = (
    ("persistable", True),
    ("stop_gradient", True),
    ("trainable", True),
)

# -- types (serialize_utils.h) ----------------------------------------------

# Element types: JSON code -> key of pirc.ir.types.ELEMENT_TYPES.  Paddle's
# writer has no case for f8 and undefined, but its reader knows the codes.
ELEMENT_TYPE_CODES: dict[str, str] = {
    "0.t_f16": "f16",
    "0.t_bf16": "bf16",
    "0.t_f32": "f32",
    "0.t_f64": "f64",
    "0.t_bool": "b",
    "0.t_i8": "i8",
    "0.t_ui8": "u8",
    "0.t_i16": "i16",
    "0.t_i32": "i32",
    "0.t_i64": "i64",
    "0.t_index": "index",
    "0.t_c64": "c64",
    "0.t_c128": "c128",
    "0.t_f8e4m3fn": "f8e4m3fn",
    "0.t_f8e5m2": "f8e5m2",
    "0.t_undefined": "undefined",
}
ELEMENT_TYPE_CODE_BY_NAME: dict[str, str] = {v: k for k, v in ELEMENT_TYPE_CODES.items()}

T_VECTOR = "0.t_vec"  # D = [type, ...]
T_DENSE_TENSOR = "0.t_dtensor"  # D = [element, dims, layout, lod, offset]
T_SELECTED_ROWS = "1.t_selected_rows"  # D = same five fields
T_DENSE_TENSOR_ARRAY = "1.t_dense_tensor_array"  # D = [element, dims, layout]
# D = [element, dims, non-zero dims, layout, indices type, values type]
T_SPARSE_COO = "1.t_sparse_coo_tensor"

CONTAINER_TYPE_CODES = (T_VECTOR, T_DENSE_TENSOR, T_SELECTED_ROWS, T_DENSE_TENSOR_ARRAY, T_SPARSE_COO)
TYPE_CODES = tuple(ELEMENT_TYPE_CODES) + CONTAINER_TYPE_CODES + (NULL,)

# Kinds Paddle can write that pirc has no IR for yet: refused with a message
# naming them (dist kinds are every `4.*` code).
UNSUPPORTED_TYPE_CODES: dict[str, str] = {
    "1.t_sparse_csr_tensor": "sparse CSR tensors",
    "2.t_stack": "cf stack types",
    "2.t_inlet": "cf stack types",
    "2.t_outlet": "cf stack types",
}

# -- attributes (serialize_utils.h) -----------------------------------------

# JSON code -> pirc attribute kind (pirc.ir.attrs.attr_kind).
ATTR_KIND_BY_CODE: dict[str, str] = {
    "0.a_bool": "bool",
    "0.a_i32": "int32",
    "0.a_i64": "int64",
    "0.a_index": "index",
    "0.a_f32": "float",
    "0.a_f64": "double",
    "0.a_str": "str",
    "0.a_tensorname": "tensor_name",
    "0.a_c64": "complex64",
    "0.a_c128": "complex128",
    "0.a_array": "array",
    "0.a_type": "type",
    "1.a_intarray": "int_array",
    "1.a_dtype": "dtype",
    "1.a_place": "place",
    "1.a_layout": "layout",
    "1.a_scalar": "scalar",
    NULL: "null",
}
ATTR_CODE_BY_KIND: dict[str, str] = {v: k for k, v in ATTR_KIND_BY_CODE.items()}

UNSUPPORTED_ATTR_CODES: dict[str, str] = {
    "0.a_pointer": "pointer attributes (Paddle cannot save them either)",
}
DIST_PREFIX = "4."  # process meshes, dist attributes and dist tensor types

# -- non-finite floats --------------------------------------------------------

# Paddle writes `{"#":"0.a_f64","VD":"INF"}` for inf and "-INF" for -inf, and
# reads both back.  For NaN it writes "NaN", which its own reader then fails
# on (FORMAT-NOTES 4.5).  pirc writes the spelling below; which spelling real
# Paddle loads is being established by experiment, and this is the one place
# to change once it is known.
NAN_SPELLING = "NAN"
INF_SPELLING = "INF"
NEG_INF_SPELLING = "-INF"
NAN_SPELLINGS_READ = ("NaN", "NAN", "nan")

# -- pd_op data types -----------------------------------------------------------

# DataTypeToString (phi/common/data_type.h): the JSON spelling.  The text
# printer spells them the same except UNDEFINED, which prints as `Undefined`;
# pirc's DataTypeAttr holds the printed name.
DTYPE_NAMES_JSON = (
    "Undefined(ALL_DTYPE)", "bool", "int8", "uint8", "int16", "uint16", "int32",
    "uint32", "int64", "uint64", "float8_e4m3fn", "float8_e5m2", "bfloat16",
    "float16", "float32", "float64", "complex64", "complex128", "pstring",
)
DTYPE_PRINTED_BY_JSON: dict[str, str] = {n: n for n in DTYPE_NAMES_JSON}
DTYPE_PRINTED_BY_JSON["Undefined(ALL_DTYPE)"] = "Undefined"
DTYPE_JSON_BY_PRINTED: dict[str, str] = {v: k for k, v in DTYPE_PRINTED_BY_JSON.items()}

# -- op properties pirc uses to carry JSON-only details -------------------------

# Dist and quant attribute lists ("DA", "QA").  Paddle reads them only on
# builtin.parameter and writes them ([] when empty) only there; pirc keeps
# them verbatim on any op so a file round-trips.  The property holds an
# ArrayAttr of [StringAttr(name), attribute] pairs when the key was present,
# or NullAttr when a builtin.parameter lacked the key (older writers).
DA_PROPERTY = "pir.json_da"
QA_PROPERTY = "pir.json_qa"
