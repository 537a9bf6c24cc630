"""Versioning: migration patches, version plans, upgrade and downgrade."""
