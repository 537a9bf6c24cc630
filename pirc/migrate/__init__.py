"""pirc-migrate: upgrade (and optionally optimise) a whole zoo of saved programs, check each
upgrade numerically, and report what happened to every model (docs/MIGRATE.md)."""
