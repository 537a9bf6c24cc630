"""pirc's migration patches (YAML), shipped as package data `pirc.patches`.

See patches/README.md and docs/PATCHES.md; pirc.versioning.policy finds this folder.
"""
