# The names of `string` written in Python (the constants are in `stdlib/mod.rs`):
# `Template` and `capwords`, as CPython 3.11 defines them. `Template` scans for its
# `delimiter` by hand instead of compiling `pattern`: a subclass may change `delimiter`
# (as in CPython), while changing `idpattern`, `braceidpattern`, `flags` or `pattern` has
# no effect here. Runs once per session, the first time a cell imports string, and binds
# one global, `__string__`.


def __string_setup__():
    _ID_START = "_abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
    _ID_REST = _ID_START + "0123456789"

    def _ident_end(s, i):
        # where the identifier starting at i ends (i when there is none)
        if i < len(s) and s[i] in _ID_START:
            i += 1
            while i < len(s) and s[i] in _ID_REST:
                i += 1
        return i

    def _placeholders(template, delim):
        # (kind, start, end, name) of every match of CPython's pattern, left to right:
        # kind is "escaped", "named", "braced" or "invalid"
        out = []
        pos = 0
        n = len(delim)
        while n:
            i = template.find(delim, pos)
            if i < 0:
                break
            j = i + n
            if template.startswith(delim, j):
                out.append(("escaped", i, j + n, None))
                pos = j + n
                continue
            k = _ident_end(template, j)
            if k > j:
                out.append(("named", i, k, template[j:k]))
                pos = k
                continue
            if template.startswith("{", j):
                k = _ident_end(template, j + 1)
                if k > j + 1 and template.startswith("}", k):
                    out.append(("braced", i, k + 1, template[j + 1 : k]))
                    pos = k + 1
                    continue
            out.append(("invalid", i, j, None))
            pos = j
        return out

    _sentinel_dict = {}

    def _get(mapping, kws, key):
        if mapping is _sentinel_dict:
            return kws[key]
        if key in kws:
            return kws[key]
        return mapping[key]

    class Template:
        delimiter = "$"
        idpattern = r"(?a:[_a-z][_a-z0-9]*)"
        braceidpattern = None

        def __init__(self, template):
            self.template = template

        def _invalid(self, i):
            lines = self.template[:i].splitlines(keepends=True)
            if not lines:
                colno = 1
                lineno = 1
            else:
                colno = i - len("".join(lines[:-1]))
                lineno = len(lines)
            raise ValueError(
                "Invalid placeholder in string: line %d, col %d" % (lineno, colno)
            )

        def _replace(self, mapping, kws, safe):
            template = self.template
            parts = []
            pos = 0
            for kind, start, end, name in _placeholders(template, self.delimiter):
                parts.append(template[pos:start])
                pos = end
                if kind == "escaped":
                    parts.append(self.delimiter)
                elif kind == "invalid":
                    if not safe:
                        self._invalid(end)
                    parts.append(template[start:end])
                elif safe:
                    try:
                        parts.append(str(_get(mapping, kws, name)))
                    except KeyError:
                        parts.append(template[start:end])
                else:
                    parts.append(str(_get(mapping, kws, name)))
            parts.append(template[pos:])
            return "".join(parts)

        def substitute(self, mapping=_sentinel_dict, /, **kws):
            return self._replace(mapping, kws, False)

        def safe_substitute(self, mapping=_sentinel_dict, /, **kws):
            return self._replace(mapping, kws, True)

        def is_valid(self):
            for kind, _, _, _ in _placeholders(self.template, self.delimiter):
                if kind == "invalid":
                    return False
            return True

        def get_identifiers(self):
            ids = []
            for kind, _, _, name in _placeholders(self.template, self.delimiter):
                if name is not None and name not in ids:
                    ids.append(name)
            return ids

    def capwords(s, sep=None):
        return (sep or " ").join([w.capitalize() for w in s.split(sep)])

    class StringModule:
        def __repr__(self):
            return "<module 'string' from 'string.py'>"

    module = StringModule()
    module.Template = Template
    module.capwords = capwords
    return module


__string__ = __string_setup__()
del __string_setup__
