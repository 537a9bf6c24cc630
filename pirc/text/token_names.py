"""Human names for the grammar's terminals, for 'expected ...' messages."""

from __future__ import annotations

TOKEN_NAMES = {
    "OP_HEAD": "an op like (%0) = \"pd_op.relu\" (%1)",
    "WHILE_HEAD": "a while op",
    "ATTR_DICT": "an attribute dictionary {...}",
    "SIGNATURE": "a type signature ': (TYPES) -> TYPES'",
    "RESULT_TYPES": "'-> TYPES'",
    "BLOCK_ARGS": "a block-argument line '^%arg_0 ...'",
    "OP_NAME": "an op name like \"pd_op.relu\"",
    "OP_ID": "[id:N]",
    "VALUE": "a value like %0",
    "KEY": "an attribute name",
    "IDENT": "an identifier",
    "PLACE": "a place like Place(cpu)",
    "VALUE_TAG": "a type tag like (Float)",
    "TYPE_TAG": "(Type)",
    "NUMBER": "a number",
    "STRING": "a string",
    "ESCAPED_STRING": "a string",
    "TENSOR": "a tensor type like tensor<2x3xf32>",
    "OTHER_TYPE": "a type",
    "ELEMENT": "an element type like f32",
    "INT": "an integer",
    "LBRACE": "'{'",
    "RBRACE": "'}'",
    "LPAR": "'('",
    "RPAR": "')'",
    "LSQB": "'['",
    "RSQB": "']'",
    "COMMA": "','",
    "COLON": "':'",
    "EQUAL": "'='",
    "CIRCUMFLEX": "'^'",
    "MORETHAN": "'>'",
    "$END": "end of input",
}


def expected_text(expected) -> str:
    names = []
    for t in sorted(expected or ()):
        name = TOKEN_NAMES.get(t)
        if name is None:
            name = t.lower().replace("_", " ") if t.isupper() else repr(t)
            if t.startswith("__ANON"):
                continue
        if name not in names:
            names.append(name)
    if not names:
        return "something else"
    if len(names) == 1:
        return names[0]
    return ", ".join(names[:-1]) + " or " + names[-1]
