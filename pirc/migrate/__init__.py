"""pirc-migrate: upgrade, check and optimise a whole folder of saved programs (issue 23).

One module per piece: finding the models (`sources`), the run's options (`options`), the
inputs a check feeds (`inputs`), the differential check (`check`) and one model's migration
(`job`, in process, never raising); the isolation, engine, journal and reports build on them.
"""
