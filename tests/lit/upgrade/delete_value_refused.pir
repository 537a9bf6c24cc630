// delete_value would leave another user of the value without one: the step is refused,
// naming the op, the action with its patch line, and the user; nothing is written.
// RUN: rm -f %t.pir
// RUN: not pirc-opt %s --upgrade --patch-dir=%S/Inputs/actions -o %t.pir 2>&1 | filecheck %s
// RUN: %python -c "import os, sys; sys.exit(1 if os.path.exists(r'%t.pir') else 0)"

pir.version 1
{
    (%0, %1) = "test.split_producer" () {} : () -> f32, i32
    () = "test.split_consumer" (%1, %0) {} : (i32, f32) -> 
    () = "test.other" (%1) {} : (i32) -> 
}

// CHECK:      delete_value_refused.pir: error: patch 2.yaml (version 1 -> 2) cannot be applied: 1 op blocks it
// CHECK-NEXT:   ops[0] test.split_producer (line 9): delete_value [1, 0] on (test.split_producer, test.split_consumer) ({{.*}}2.yaml:78): result 1 is also used by test.other (operand 0); removing it would leave them without a value
