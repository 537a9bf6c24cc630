// modify_name renames the op; operands, results and attributes stay.
// RUN: pirc-opt %s --upgrade --patch-dir=%S/Inputs/actions | filecheck %s

pir.version 1
{
    (%0) = "test.modify_name" () {a:(Int32)1} : () -> f32
}

// CHECK: (%0) = "test.renamed" () {a:(Int32)1} : () -> f32
