# The names of `typing` written in Python (the others are in `modules.rs`): `TypeVar`,
# `Generic`, `Protocol`, `cast`, `final`, `runtime_checkable`, `no_type_check` and
# `TYPE_CHECKING`, enough for classes generic in a type variable (`class
# Box(Generic[T])`, `Box[int](3)`) and protocols as bases. Type parameters are not checked,
# as in CPython. Runs once per session, the first time a cell imports typing, and binds one
# global, `__typing__`.


def __typing_setup__():
    def _type_repr(obj):
        if isinstance(obj, type):
            module = getattr(obj, "__module__", "builtins")
            name = getattr(obj, "__qualname__", obj.__name__)
            if module == "builtins":
                return name
            return module + "." + name
        if obj is ...:
            return "..."
        return repr(obj)

    class TypeVar:
        def __init__(self, name, *constraints, bound=None, covariant=False, contravariant=False):
            if covariant and contravariant:
                raise ValueError("Bivariant types are not supported.")
            self.__name__ = name
            self.__constraints__ = constraints
            self.__bound__ = bound
            self.__covariant__ = covariant
            self.__contravariant__ = contravariant

        def __repr__(self):
            if self.__covariant__:
                prefix = "+"
            elif self.__contravariant__:
                prefix = "-"
            else:
                prefix = "~"
            return prefix + self.__name__

    class _GenericAlias:
        def __init__(self, origin, args):
            self.__origin__ = origin
            self.__args__ = args

        def __call__(self, *args, **kwargs):
            return self.__origin__(*args, **kwargs)

        def __repr__(self):
            args = ", ".join(_type_repr(a) for a in self.__args__)
            return _type_repr(self.__origin__) + "[" + args + "]"

        def __eq__(self, other):
            if not isinstance(other, _GenericAlias):
                return NotImplemented
            return self.__origin__ == other.__origin__ and self.__args__ == other.__args__

        def __hash__(self):
            return hash((self.__origin__, self.__args__))

    class Generic:
        def __class_getitem__(cls, params):
            if not isinstance(params, tuple):
                params = (params,)
            if cls is Generic or cls is Protocol:
                return cls
            return _GenericAlias(cls, params)

    class Protocol(Generic):
        def __new__(cls, *args, **kwargs):
            if Protocol in cls.__bases__:
                raise TypeError("Protocols cannot be instantiated")
            return object.__new__(cls)

    def cast(typ, val):
        return val

    def final(f):
        try:
            f.__final__ = True
        except (AttributeError, TypeError):
            pass
        return f

    def runtime_checkable(cls):
        return cls

    def no_type_check(arg):
        return arg

    class TypingExtras:
        pass

    module = TypingExtras()
    module.TypeVar = TypeVar
    module.Generic = Generic
    module.Protocol = Protocol
    module.cast = cast
    module.final = final
    module.runtime_checkable = runtime_checkable
    module.no_type_check = no_type_check
    module.TYPE_CHECKING = False
    return module


__typing__ = __typing_setup__()
del __typing_setup__
