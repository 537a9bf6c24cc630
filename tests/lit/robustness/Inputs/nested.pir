pir.version 4
{
() = "test.op" () {} : () -> ({
    () = "test.op" () {} : () -> ({
        () = "test.op" () {x:[[]]} : () -> 
    })
})
}
