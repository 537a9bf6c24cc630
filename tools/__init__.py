"""Developer tools of the pirc checkout (benchmarks, generators, the fuzzer); not installed."""
