# The `abc` module for cells: `ABC` and `abstractmethod`, with CPython 3.11's check that a
# class with abstract methods left cannot be instantiated (there `ABCMeta` computes
# `__abstractmethods__` when the class is made; here `ABC.__new__` finds them when an
# instance is made, with the same result and message). `class C(metaclass=ABCMeta)` gets
# the hidden base `ABCMeta.__metaclass_base__` (read by the class statement) doing the same
# check; `__bases__` and `__mro__` leave it out, as CPython has no such base. `type(C)` is
# `ABCMeta` (named by `__abc_meta__`) and `isinstance(C, ABCMeta)` holds. `register` and the
# abstract property helpers are not provided. Runs once per session, the first time a cell
# imports abc, and binds one global, `__abc__`, the module object.


def __abc_setup__():
    def abstractmethod(funcobj):
        funcobj.__isabstractmethod__ = True
        return funcobj

    def _is_abstract(value):
        if getattr(value, "__isabstractmethod__", False) is True:
            return True
        # a property's getter, a staticmethod's or classmethod's function
        for part in ("fget", "__func__"):
            inner = getattr(value, part, None)
            if inner is not None and _is_abstract(inner):
                return True
        return False

    def _abstract_names(cls):
        names = []
        seen = set()
        for klass in cls.__mro__[:-1]:
            for name, value in klass.__dict__.items():
                if name in seen:
                    continue
                seen.add(name)
                if _is_abstract(value):
                    names.append(name)
        return sorted(names)

    def _abc_new(cls, *args, **kwargs):
        names = _abstract_names(cls)
        if names:
            s = "" if len(names) == 1 else "s"
            raise TypeError(
                "Can't instantiate abstract class "
                + cls.__name__
                + " with abstract method"
                + s
                + " "
                + ", ".join(names)
            )
        return object.__new__(cls)

    class ABC:
        __new__ = _abc_new

    class ABCMetaBase:
        __hidden_base__ = True
        __new__ = _abc_new

    class ABCMeta:
        __metaclass_base__ = ABCMetaBase

    # what `type()` of a class deriving from them gives
    ABC.__abc_meta__ = ABCMeta
    ABCMetaBase.__abc_meta__ = ABCMeta

    class AbcModule:
        def __repr__(self):
            return "<module 'abc' (built-in)>"

    module = AbcModule()
    module.ABC = ABC
    module.ABCMeta = ABCMeta
    module.abstractmethod = abstractmethod
    return module


__abc__ = __abc_setup__()
del __abc_setup__
