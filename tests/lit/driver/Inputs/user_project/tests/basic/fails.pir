// A check that does not hold fails the suite (this project's suite must report it).
// RUN: pirc-opt %s --from-version=4 | FileCheck %s
{
}
// CHECK: pd_op.no_such_op
