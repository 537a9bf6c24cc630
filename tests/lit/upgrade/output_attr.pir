// add_output_attr / modify_output_attr / delete_output_attr act on result attributes;
// a Bool written onto the per-result stop_gradient array sets every entry (Paddle's own
// test patch writes `modify_output_attr stop_gradient type: pir::BoolAttribute`).
// RUN: pirc-opt %s --upgrade --patch-dir=%S/Inputs/actions | filecheck %s

pir.version 1
{
    (%0) = "test.output_attr" () {old_flag:[true],stop_gradient:[true]} : () -> f32
}

// CHECK: (%0) = "test.output_attr" () {persistable:[true],stop_gradient:[false]} : () -> f32
