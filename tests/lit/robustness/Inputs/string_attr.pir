pir.version 4
{
    () = "test.op" () {s:"0123456789abcdefghij"} : () -> 
}
