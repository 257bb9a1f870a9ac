# The `contextlib` module for cells: contextmanager, suppress, closing, nullcontext and
# ExitStack, as CPython 3.11's contextlib.py defines them (without the async variants,
# ContextDecorator use as a decorator and redirect_stdout/stderr, which are not provided).
# It runs once per session, the first time a cell imports contextlib, and binds one global,
# `__contextlib__`, the module object.


def __contextlib_setup__():
    import functools

    class _GeneratorContextManager:
        def __init__(self, func, args, kwds):
            self.gen = func(*args, **kwds)

        def __enter__(self):
            try:
                return next(self.gen)
            except StopIteration:
                raise RuntimeError("generator didn't yield") from None

        def __exit__(self, typ, value, traceback):
            if typ is None:
                try:
                    next(self.gen)
                except StopIteration:
                    return False
                else:
                    raise RuntimeError("generator didn't stop")
            if value is None:
                value = typ()
            try:
                self.gen.throw(value)
            except StopIteration as exc:
                return exc is not value
            except RuntimeError as exc:
                if exc is value:
                    return False
                if isinstance(value, StopIteration) and exc.__cause__ is value:
                    return False
                raise
            except BaseException as exc:
                if exc is not value:
                    raise
                return False
            raise RuntimeError("generator didn't stop after throw()")

    def contextmanager(func):
        @functools.wraps(func)
        def helper(*args, **kwds):
            return _GeneratorContextManager(func, args, kwds)

        return helper

    class suppress:
        def __init__(self, *exceptions):
            self._exceptions = exceptions

        def __enter__(self):
            pass

        def __exit__(self, exctype, excinst, exctb):
            if exctype is None:
                return False
            return issubclass(exctype, self._exceptions)

    class closing:
        def __init__(self, thing):
            self.thing = thing

        def __enter__(self):
            return self.thing

        def __exit__(self, *exc_info):
            self.thing.close()

    class nullcontext:
        def __init__(self, enter_result=None):
            self.enter_result = enter_result

        def __enter__(self):
            return self.enter_result

        def __exit__(self, *excinfo):
            pass

    class ExitStack:
        def __init__(self):
            self._exit_callbacks = []

        def __enter__(self):
            return self

        def pop_all(self):
            new_stack = ExitStack()
            new_stack._exit_callbacks = self._exit_callbacks
            self._exit_callbacks = []
            return new_stack

        def push(self, exit):
            cb_type = type(exit)
            if hasattr(cb_type, "__exit__"):
                exit_method = cb_type.__exit__
                self._exit_callbacks.append(lambda *details: exit_method(exit, *details))
            else:
                self._exit_callbacks.append(exit)
            return exit

        def enter_context(self, cm):
            cls = type(cm)
            if not hasattr(cls, "__enter__") or not hasattr(cls, "__exit__"):
                raise TypeError(
                    f"'{cls.__module__}.{cls.__qualname__}' object does "
                    f"not support the context manager protocol"
                )
            exit_method = cls.__exit__
            result = cls.__enter__(cm)
            self._exit_callbacks.append(lambda *details: exit_method(cm, *details))
            return result

        def callback(self, callback, *args, **kwds):
            def _exit_wrapper(exc_type, exc, tb):
                callback(*args, **kwds)

            self._exit_callbacks.append(_exit_wrapper)
            return callback

        def close(self):
            self.__exit__(None, None, None)

        def __exit__(self, *exc_details):
            received_exc = exc_details[0] is not None
            suppressed_exc = False
            pending_raise = False
            while self._exit_callbacks:
                cb = self._exit_callbacks.pop()
                try:
                    if cb(*exc_details):
                        suppressed_exc = True
                        pending_raise = False
                        exc_details = (None, None, None)
                except BaseException as new_exc:
                    exc_details = (type(new_exc), new_exc, None)
                    pending_raise = True
            if pending_raise:
                raise exc_details[1]
            return received_exc and suppressed_exc

    class ContextlibModule:
        def __repr__(self):
            return "<module 'contextlib' (built-in)>"

    module = ContextlibModule()
    module.contextmanager = contextmanager
    module.suppress = suppress
    module.closing = closing
    module.nullcontext = nullcontext
    module.ExitStack = ExitStack
    return module


__contextlib__ = __contextlib_setup__()
del __contextlib_setup__
