"""What the gate's one-run `--resume` key knows of the training (issue 42, build item 7).

A finished one-run result is reused only when its key matches (gate/one_run.py), so the key must
change whenever the training could: hashing the training function's own source alone missed
two `functools.partial`s of different functions, two instances of one class with different
settings, and an edited helper the training calls. `code_fingerprint` hashes, recursively:

- a `functools.partial`: its function's fingerprint, and its positional and keyword arguments;
- a bound method: its function's fingerprint and the instance's state;
- a function or class: its source (else its bytecode and constants), its defaults and closure
  values (a factory's closures share one source), and the bytes of the source file of the module
  that defines it (an edited helper in that module changes the key);
- any other callable (an instance with `__call__`): its class as above and its state.

State and arguments are hashed through `pickle` (their values, not their identity), else
through `repr`; a `repr` holding a memory address changes on every run, which never reuses a
stale verdict (it only retrains). Helpers in other modules are not followed: their edits are
seen only when they change the training module, its arguments or its state.
"""

from __future__ import annotations

import functools
import hashlib
import inspect
import pickle
from typing import Any

MAX_DEPTH = 8
"""Nesting of partials / methods followed (deeper is hashed by repr)."""


def code_fingerprint(train: object) -> str:
    """A hex digest of everything above for `train` (never '': at least its type is hashed)."""
    h = hashlib.sha256()
    _feed(h, train, depth=0)
    return h.hexdigest()


def _feed(h: Any, obj: object, *, depth: int) -> None:
    if depth > MAX_DEPTH:
        h.update(b"deep:" + _state(obj))
        return
    if isinstance(obj, functools.partial):
        h.update(b"partial:")
        _feed(h, obj.func, depth=depth + 1)
        h.update(_state((obj.args, obj.keywords)))
        return
    if inspect.ismethod(obj):
        h.update(b"method:")
        _feed(h, obj.__func__, depth=depth + 1)
        h.update(_state(obj.__self__))
        return
    defined = inspect.isroutine(obj) or inspect.isclass(obj)
    target = obj if defined else type(obj)
    h.update(_code(target))
    h.update(_module_file(target))
    if inspect.isfunction(obj):
        cells = tuple(c.cell_contents for c in obj.__closure__ or () if _has_contents(c))
        h.update(_state((obj.__defaults__, obj.__kwdefaults__, cells)))
    if not defined:
        h.update(b"state:" + _state(obj))


def _has_contents(cell: Any) -> bool:
    try:
        cell.cell_contents  # noqa: B018  (an empty cell raises)
    except ValueError:
        return False
    return True


def _code(target: object) -> bytes:
    """The source of a function or class, else its bytecode and constants, else its name."""
    try:
        return inspect.getsource(target).encode()  # type: ignore[arg-type]
    except (OSError, TypeError):
        pass
    code = getattr(target, "__code__", None)
    if code is not None:
        return code.co_code + repr(code.co_consts).encode()
    return f"{getattr(target, '__module__', '')}.{getattr(target, '__qualname__', repr(target))}".encode()


def _module_file(target: object) -> bytes:
    """The bytes of the source file of the module defining `target` (b'' when there is none)."""
    module = inspect.getmodule(target)
    if module is None:
        return b""
    try:
        path = inspect.getsourcefile(module)
    except TypeError:  # a built-in module
        return b""
    if not path:
        return b""
    try:
        with open(path, "rb") as fh:
            return b"module:" + hashlib.sha256(fh.read()).digest()
    except OSError:
        return b""


def _state(value: object) -> bytes:
    """The value's bytes by pickle, else its repr (module docstring)."""
    try:
        return pickle.dumps(value, protocol=4)
    except Exception:  # unpicklable state (a lambda, a lock, a device handle): its repr instead
        attrs = getattr(value, "__dict__", None)
        shown = repr(sorted(attrs.items(), key=lambda kv: str(kv[0]))) if isinstance(attrs, dict) else ""
        return (type(value).__qualname__ + repr(value) + shown).encode()
