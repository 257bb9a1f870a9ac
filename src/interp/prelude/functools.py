# The names of `functools` written in Python (the others are in `stdlib/functools.rs`):
# `cached_property`, as CPython 3.11 defines it (without its lock). Runs once per session,
# the first time a cell imports functools, and binds one global, `__functools__`.


def __functools_setup__():
    class cached_property:
        def __init__(self, func):
            self.func = func
            self.attrname = None
            self.__doc__ = func.__doc__

        def __set_name__(self, owner, name):
            if self.attrname is None:
                self.attrname = name
            elif name != self.attrname:
                raise TypeError(
                    "Cannot assign the same cached_property to two different names "
                    f"({self.attrname!r} and {name!r})."
                )

        def __get__(self, instance, owner=None):
            if instance is None:
                return self
            if self.attrname is None:
                raise TypeError(
                    "Cannot use cached_property instance without calling __set_name__ on it."
                )
            cache = instance.__dict__
            if self.attrname in cache:
                return cache[self.attrname]
            val = self.func(instance)
            setattr(instance, self.attrname, val)
            return val

    class FunctoolsExtras:
        pass

    module = FunctoolsExtras()
    module.cached_property = cached_property
    return module


__functools__ = __functools_setup__()
del __functools_setup__
