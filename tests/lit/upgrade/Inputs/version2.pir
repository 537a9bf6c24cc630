pir.version 2
{
    (%0) = "test.op" () {} : () -> f32
}
