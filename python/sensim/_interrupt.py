"""Ctrl+C during world.tick(): a KeyboardInterrupt that stops the script, never one lost inside
a ctypes callback ("Exception ignored on calling ctypes callback").

While a step runs on the main thread, SIGINT goes to a handler of ours. Inside a listener's own
code it raises KeyboardInterrupt there (the listener's wrapper hands it to tick(), which raises
it); anywhere else (inside the engine, in the wrapper's glue) it only notes the signal, and
tick() raises KeyboardInterrupt when the step returns. A handler the program installed itself is
left alone."""
from __future__ import annotations

import signal
import threading

try:  # the C functions under signal.signal/getsignal: the same handlers without their enum
    # wrapping, which raised and caught three exceptions a guard (most of a step's Python)
    from _signal import getsignal as _getsignal, signal as _setsignal
except ImportError:  # pragma: no cover - not CPython
    _getsignal, _setsignal = signal.getsignal, signal.signal

_SIGINT = int(signal.SIGINT)
_tls = threading.local()


def in_listener() -> bool:
    return getattr(_tls, "in_listener", False)


class listener_scope:
    """Marks the user's callback code on this thread (where raising is safe)."""

    def __enter__(self):
        self.prev = in_listener()
        _tls.in_listener = True

    def __exit__(self, *exc):
        _tls.in_listener = self.prev
        return False


class sigint_guard:
    """Around one step: our SIGINT handler on the main thread, KeyboardInterrupt at the end."""

    def __init__(self):
        self.old = None
        self.hit = False

    def _handler(self, signum, frame):
        self.hit = True
        if in_listener():
            raise KeyboardInterrupt

    def __enter__(self):
        if threading.current_thread() is threading.main_thread():
            try:
                if _getsignal(_SIGINT) is signal.default_int_handler:
                    self.old = _setsignal(_SIGINT, self._handler)
            except ValueError:  # not the main interpreter's main thread
                self.old = None
        return self

    def __exit__(self, et, ev, tb):
        if self.old is not None:
            _setsignal(_SIGINT, self.old)
        if self.hit and et is None:
            raise KeyboardInterrupt
        return False
