# Compat sides for `pirc-compat check`: key 'old' is stale at minimum torch 2.13, 'new' is not.
from pirc.compat import compat_impl


@compat_impl(key="old", ge=(2, 13))
def old_upstream():
    pass


@compat_impl(key="old", lt=(2, 13))
def old_local():
    pass


@compat_impl(key="new", ge=(2, 15))
def new_upstream():
    pass
