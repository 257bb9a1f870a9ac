# The names of `collections` written in Python (the others are in `stdlib/collections.rs`):
# `ChainMap`, as CPython 3.11 defines it (the methods `MutableMapping` would add are
# written out). Runs once per session, the first time a cell imports collections, and binds
# one global, `__collections__`.


def __collections_setup__():
    class ChainMap:
        def __init__(self, *maps):
            self.maps = list(maps) or [{}]

        def __missing__(self, key):
            raise KeyError(key)

        def __getitem__(self, key):
            for mapping in self.maps:
                if key in mapping:
                    return mapping[key]
            return self.__missing__(key)

        def get(self, key, default=None):
            return self[key] if key in self else default

        def __len__(self):
            return len(set().union(*self.maps))

        def __iter__(self):
            d = {}
            for mapping in reversed(self.maps):
                d.update(dict.fromkeys(mapping))
            return iter(d)

        def __contains__(self, key):
            return any(key in m for m in self.maps)

        def __bool__(self):
            return any(self.maps)

        def __repr__(self):
            return f'{self.__class__.__name__}({", ".join(map(repr, self.maps))})'

        def __eq__(self, other):
            if isinstance(other, ChainMap):
                other = dict(other.items())
            if not isinstance(other, dict):
                return NotImplemented
            return dict(self.items()) == other

        __hash__ = None

        def keys(self):
            return list(self)

        def items(self):
            return [(k, self[k]) for k in self]

        def values(self):
            return [self[k] for k in self]

        def copy(self):
            return self.__class__(self.maps[0].copy(), *self.maps[1:])

        __copy__ = copy

        def new_child(self, m=None, **kwargs):
            if m is None:
                m = kwargs
            elif kwargs:
                m.update(kwargs)
            return self.__class__(m, *self.maps)

        @property
        def parents(self):
            return self.__class__(*self.maps[1:])

        def __setitem__(self, key, value):
            self.maps[0][key] = value

        def __delitem__(self, key):
            try:
                del self.maps[0][key]
            except KeyError:
                raise KeyError(f"Key not found in the first mapping: {key!r}")

        def popitem(self):
            try:
                return self.maps[0].popitem()
            except KeyError:
                raise KeyError("No keys found in the first mapping.")

        def pop(self, key, *args):
            try:
                return self.maps[0].pop(key, *args)
            except KeyError:
                raise KeyError(f"Key not found in the first mapping: {key!r}")

        def clear(self):
            self.maps[0].clear()

        def setdefault(self, key, default=None):
            if key not in self:
                self[key] = default
            return self[key]

        def update(self, *args, **kwargs):
            self.maps[0].update(*args, **kwargs)

        def __or__(self, other):
            if not isinstance(other, dict):
                return NotImplemented
            m = self.copy()
            m.maps[0].update(other)
            return m

    class CollectionsExtras:
        pass

    module = CollectionsExtras()
    module.ChainMap = ChainMap
    return module


__collections__ = __collections_setup__()
del __collections_setup__
