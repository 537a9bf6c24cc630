"""Patch actions, one small declarative class each (pirc.versioning.actions.registry).

Every module here is imported when an action is first looked up; a module defines its
actions by decorating them with `@action`.  Adding an action is one class in one module
(docs/PATCHES.md, "Writing a new action").
"""
