"""pirc's fuzzer: mutated and generated inputs for the text, JSON and patch-YAML front ends.

    python -m tools.fuzz run --front text --seed 1 --count 100000 --jobs 2 --time-budget 1800
    python -m tools.fuzz replay fuzz-out/text/<class>/input.pir

Each input is checked in process for four properties (checks.py): no exception but pirc's
own errors, no hang over the time limit, every write reads back to the same program, and an
upgrade's output verifies.  Inputs are a pure function of (front end, seed, index), so a run
is reproducible whatever the number of workers.  docs/ROBUSTNESS.md ("Fuzzing") says how to
run it and read what it finds.
"""
