# The `analysis` module the kernel provides to cells (`from analysis import Domain, Analysis`).
# It runs once per session, the first time a cell imports it, and binds one global,
# `__analysis__`, the module object.  Everything else is a closure of `__analysis_setup__`.


def __analysis_setup__():
    registry = {"domain": {}, "analysis": {}}

    class Domain:
        """An abstract domain of ints.  Subclass it and define at least `bottom`, `top`,
        `leq`, `join` and `abstract`; the other methods have sound defaults.

        Elements are any Python values that compare with `==` (strings, tuples, ints, None).
        The engine never passes `bottom` to the operators: an operand `bottom` gives `bottom`.
        """

        name = None
        description = ""
        bottom = None
        top = None

        def leq(self, a, b):
            raise NotImplementedError("leq(a, b): is a below or equal to b?")

        def join(self, a, b):
            raise NotImplementedError("join(a, b): the least upper bound of a and b")

        def abstract(self, n):
            raise NotImplementedError("abstract(n): the most precise element holding int n")

        def meet(self, a, b):
            if self.leq(a, b):
                return a
            if self.leq(b, a):
                return b
            return a

        def widen(self, a, b):
            return self.join(a, b)

        def narrow(self, a, b):
            return self.meet(a, b)

        def contains(self, a, n):
            return self.leq(self.abstract(n), a)

        def elements(self):
            return None

        def show(self, a):
            return str(a)

        def add(self, a, b):
            return self.top

        def sub(self, a, b):
            return self.top

        def mul(self, a, b):
            return self.top

        def floordiv(self, a, b):
            return self.top

        def mod(self, a, b):
            return self.top

        def neg(self, a):
            return self.sub(self.abstract(0), a)

        def refine(self, op, a, b):
            if op == "==" and type(self).meet is not Domain.meet:
                return self.meet(a, b)
            return a

        def refine_mod(self, a, b, r):
            return a

    class Analysis:
        """A dataflow analysis over the nodes of a function's CFG.  Subclass it, set
        `direction` ("forward" or "backward") and `may` (True: facts join by union; False:
        by intersection), and define `gen(stmt)` and `kill(stmt, facts)`, or
        `transfer(stmt, facts)` for anything else.  Facts are strs; `stmt` is a dict with
        "node", "kind", "text", "line", "targets", "uses", "deletes", "branch_targets",
        "locals" (the function's local variables, a tuple; None for top-level code) and
        "exprs" (the non-trivial expressions the node evaluates, as available and very busy
        expressions see them: a list of {"text": "a + b", "names": ["a", "b"]}).

        A must-analysis (may = False) starts unvisited nodes from "every fact"; to name them,
        define `universe(function)`, called once per function before the analysis runs with
        {"exprs": every expression of the function (as above), "locals": ...}, returning the
        set of all facts (or None).

        Edges: `edge(stmt, kind, facts)` is the effect of an edge out of `stmt` (forward the
        facts flow along it, backward against it), `kind` one of "normal", "true", "false", "exception",
        "return", "break", "continue"; it returns the new facts, or None to leave them.  By
        default a `for` target (a `case` pattern's names), `stmt["branch_targets"]`, is bound
        on the "true" edge, as the built-ins do: `transfer(binding(stmt), facts)`."""

        name = None
        title = ""
        legend = ""
        direction = "forward"
        may = True

        def gen(self, stmt):
            return set()

        def kill(self, stmt, facts):
            return set()

        def transfer(self, stmt, facts):
            return (facts - self.kill(stmt, facts)) | self.gen(stmt)

        def boundary(self):
            return set()

        def universe(self, function):
            return None

        def binding(self, stmt):
            return {
                "node": stmt["node"],
                "kind": "binding",
                "text": stmt["text"],
                "line": stmt["line"],
                "targets": list(stmt["branch_targets"]),
                "uses": [],
                "deletes": [],
                "branch_targets": [],
                "locals": stmt["locals"],
                "exprs": [],
            }

        def edge(self, stmt, kind, facts):
            if kind == "true" and stmt["branch_targets"]:
                return self.transfer(self.binding(stmt), facts)
            return None

    def overrides(obj, method):
        base = Domain if isinstance(obj, Domain) else Analysis
        return getattr(type(obj), method) is not getattr(base, method)

    def register(kind, name, cls):
        base = Domain if kind == "domain" else Analysis
        if not isinstance(cls, type) or not issubclass(cls, base):
            raise TypeError(
                f"{kind} {name!r} must be a subclass of analysis.{base.__name__}, not {cls!r}"
            )
        if not isinstance(name, str) or not name.isidentifier():
            raise ValueError(f"a {kind} name is a word, not {name!r}")
        registry[kind][name] = cls
        return cls

    def decorator(kind):
        def register_as(name_or_class=None):
            if isinstance(name_or_class, type):
                cls = name_or_class
                return register(kind, cls.name or cls.__name__.lower(), cls)

            def wrap(cls):
                return register(kind, name_or_class or cls.name or cls.__name__.lower(), cls)

            return wrap

        return register_as

    class AnalysisModule:
        def __repr__(self):
            return "<module 'analysis' (built-in)>"

    module = AnalysisModule()
    module.Domain = Domain
    module.Analysis = Analysis
    module.domain = decorator("domain")
    module.analysis = decorator("analysis")
    module.register = register
    module.overrides = overrides
    module.registry = registry
    return module


__analysis__ = __analysis_setup__()
del __analysis_setup__
