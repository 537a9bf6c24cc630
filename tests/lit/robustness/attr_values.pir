// Attribute literals: a value outside its kind's range, an unknown tag or a malformed complex
// value is refused at the attribute; untagged values take the spec's kind where it can hold
// them (docs/TEXT-FORMATS.md, "Op names and value ranges").
// RUN: pirc-opt %s --split-input-file --verify-diagnostics

pir.version 4
{
// expected-error@+1 {{attribute 'a': 18446744073709551615 is outside the int64 range [-9223372036854775808, 9223372036854775807]}}
    () = "test.op" () {a:(Int64)18446744073709551615} : () -> 
}

// -----

pir.version 4
{
// expected-error@+1 {{attribute 'a': 2147483648 is outside the int32 range}}
    () = "test.op" () {a:(Int32)2147483648} : () -> 
}

// -----

pir.version 4
{
// expected-error@+1 {{attribute 'a': -9223372036854775809 is outside the index range}}
    () = "test.op" () {a:(Index)-9223372036854775809} : () -> 
}

// -----

pir.version 4
{
// expected-error@+1 {{attribute 'a': 1e+39 is outside the Float (f32) range}}
    () = "test.op" () {a:(Float)1e39} : () -> 
}

// -----

pir.version 4
{
// expected-error@+1 {{attribute 'a': 1e400 is outside the Double range (write inf or -inf for an infinity)}}
    () = "test.op" () {a:(Double)1e400} : () -> 
}

// -----

pir.version 4
{
// expected-error@+1 {{attribute 'a': 9223372036854775808 is outside the int64 (an IntArray element) range}}
    () = "test.op" () {a:(pd_op.IntArray)[9223372036854775808]} : () -> 
}

// -----

// An untagged integer no integer kind holds (the fuzz seed text/07: k of kthvalue).
pir.version 4
{
    (%0) = "pd_op.data" () {dtype:(pd_op.DataType)float32,name:"x",place:Place(cpu),shape:(pd_op.IntArray)[3],stop_gradient:[true]} : () -> tensor<3xf32>
// expected-error@+1 {{attribute 'k': 29223372036854775807 is outside the int64 range}}
    (%1, %2) = "pd_op.kthvalue" (%0) {axis:(Int32)-1,k:29223372036854775807,keepdim:false} : (tensor<3xf32>) -> tensor<f32>, tensor<i64>
}

// -----

// text/04: an unknown (pd_op.X) tag.
pir.version 4
{
// expected-error@+1 {{attribute 's': unknown attribute tag (pd_op.e); the tags are (Bool) (Float)}}
    () = "test.op" () {s:[(pd_op.e)3]} : () -> 
}

// -----

// text/13: a complex value is [REAL,IMAG].
pir.version 4
{
// expected-error@+1 {{attribute 'e': expected complex128 as [REAL,IMAG] (two numbers), got [true]}}
    () = "test.op" () {e:(Complex128)[true]} : () -> 
}

// -----

pir.version 4
{
// expected-error@+1 {{attribute 'e': expected complex64 as [REAL,IMAG] (two numbers), got [the number 1]}}
    () = "test.op" () {e:(Complex64)[1]} : () -> 
}

// -----

pir.version 4
{
// expected-error@+1 {{input exceeds the integer literal limit of 400 digits (401 digits)}}
    () = "test.op" () {a:11111111111111111111111111111111111111111111111111111111111111111111111111111111111111111111111111111111111111111111111111111111111111111111111111111111111111111111111111111111111111111111111111111111111111111111111111111111111111111111111111111111111111111111111111111111111111111111111111111111111111111111111111111111111111111111111111111111111111111111111111111111111111111111111111111111111111111} : () -> 
}

// -----

// An operand annotated with another type than its value's (mlir-opt's "use of value ...
// expects different type"), reported at the annotation.
pir.version 4
{
    (%0) = "test.a" () {} : () -> tensor<2xf32>
    (%1) = "test.a" () {} : () -> tensor<3xf32>
// expected-error@+1 {{use of value '%1' expects different type than its definition: annotated 'tensor<4xf32>', defined as 'tensor<3xf32>'}}
    () = "test.b" (%0, %1) {} : (tensor<2xf32>, tensor<4xf32>) -> 
}
