"""ColBench backend scoring, run inside Pyodide by worker.ts.

Reproduces the paper's reference scorer (sweet_rl code_utils.check_correctness): blocklist on the raw
answer, fence stripping, then per test a fresh exec of the reference and of the answer, each followed by
an eval of the test call; a test passes iff `expected == got and expected is not None`.

Every exec/eval runs as one "phase" announced to the host through `_mark` (kind, unit). The host times
phases and, when one runs over its limit, raises KeyboardInterrupt in here through Pyodide's interrupt
buffer; `_targeted()` tells whether that interrupt was aimed at the phase that caught it.
"""

import builtins
import io
import json
import reprlib
import sys

BLOCKLIST = ("import os", "from os", "import sys", "from sys", "sudo", "transformers", "exit(", "quit(", "argparse")

# Phase kinds; the numbers are shared with harness.ts.
IDLE, REFERENCE, ANSWER, CALLS = 0, 1, 2, 3

# Pyodide's bridges to JavaScript: CPython (the paper's environment) has none of them, and through them
# an answer could reach the worker's JS globals.
_HIDDEN_MODULES = frozenset(("js", "pyodide", "pyodide_js", "_pyodide", "_pyodide_core"))
_real_import = builtins.__import__


def _guarded_import(name, globals=None, locals=None, fromlist=(), level=0):
    if level == 0 and name.partition(".")[0] in _HIDDEN_MODULES:
        raise ModuleNotFoundError(f"No module named {name!r}", name=name)
    return _real_import(name, globals, locals, fromlist, level)


# Each exec gets its own copy, so an answer that rebinds a builtin cannot affect later tests.
_BUILTINS = dict(builtins.__dict__)
_BUILTINS["__import__"] = _guarded_import


class _Sink:
    """Bounded stand-in for stdout/stderr: keeps the first `limit` characters, drops the rest."""

    encoding = "utf-8"
    errors = "strict"

    def __init__(self, limit):
        self.limit = limit
        self.parts = []
        self.room = limit

    def reset(self):
        self.parts.clear()
        self.room = self.limit

    def write(self, s):
        if not isinstance(s, str):
            raise TypeError(f"write() argument must be str, not {type(s).__name__}")
        if self.room > 0:
            kept = s[: self.room]
            self.parts.append(kept)
            self.room -= len(kept)
        return len(s)

    def writelines(self, lines):
        for line in lines:
            self.write(line)

    def flush(self):
        pass

    def isatty(self):
        return False

    def writable(self):
        return True


_sink = _Sink(10_000)
_stdin = io.StringIO("")  # always at EOF: input() raises EOFError instead of blocking


class Abandoned(BaseException):
    """The host gave up on this worker (it was terminated but its thread regained control): stop."""


def _no_mark(kind, unit):
    return False


_mark = _no_mark
_targeted = lambda: False  # noqa: E731


def install(mark, targeted, max_output_chars):
    """Called once by the worker with its JS callbacks and the output bound."""
    global _mark, _targeted, _sink
    _mark, _targeted = mark, targeted
    _sink = _Sink(int(max_output_chars))


def blocked_by(answer):
    return next((s for s in BLOCKLIST if s in answer), None)


def strip_fences(answer):
    if "```python" in answer:
        answer = answer.split("```python")[1].split("```")[0]
    if "```" in answer:
        answer = answer.split("```")[1]
    return answer


# Compiling once per distinct source is what makes thousands of tests per second possible; exec of a
# code object behaves exactly like exec of its source.
_compiled_cache = {}


def _compiled(source, mode):
    key = (source, mode)
    hit = _compiled_cache.get(key)
    if hit is None:
        if len(_compiled_cache) >= 1024:
            _compiled_cache.clear()
        try:
            hit = compile(source, "<string>", mode, dont_inherit=True)
        except Exception as e:  # SyntaxError, ValueError (NUL bytes), RecursionError, MemoryError
            hit = e
        _compiled_cache[key] = hit
    if isinstance(hit, Exception):
        raise hit.with_traceback(None)
    return hit


def _call(code, test, lenient):
    """exec(code) then eval(test) in fresh namespaces. paperCompatible uses separate globals and locals,
    as the reference's exec inside a function does, so top-level names are invisible to functions."""
    g = {"__builtins__": _BUILTINS.copy()}
    loc = g if lenient else {}
    exec(_compiled(code, "exec"), g, loc)
    return eval(_compiled(test, "eval"), g, loc)


def _describe(e):
    try:
        text = f"{type(e).__name__}: {e}"
    except BaseException:
        text = type(e).__name__
    return text if len(text) <= 300 else text[:297] + "..."


_short = reprlib.Repr()
_short.maxstring = 60
_short.maxother = 60


def _run(kind, unit, fn):
    """Runs fn() as one timed phase. Returns (value, error); error is "timeout" when the host interrupted
    this phase. An interrupt aimed at an earlier phase can land here once (a race with the host's
    watchdog); the phase is then simply run again."""
    for attempt in (0, 1):
        if _mark(kind, unit):
            raise Abandoned()
        _sink.reset()
        sys.stdout = sys.stderr = _sink
        sys.stdin = _stdin
        try:
            return fn(), None
        except KeyboardInterrupt:
            if _targeted():
                return None, "timeout"
            if attempt:
                return None, "KeyboardInterrupt"
        except BaseException as e:
            return None, _describe(e)
    raise AssertionError("unreachable")


def _score_test(i, ground_truth, answer, test, lenient):
    expected, err = _run(REFERENCE, i, lambda: _call(ground_truth, test, lenient))
    if err is not None:
        return False, "reference: " + err
    if expected is None:
        return False, "reference returned None"

    def check():
        got, answer_error = None, None
        try:
            got = _call(answer, test, lenient)
        except KeyboardInterrupt:
            raise
        except BaseException as e:
            answer_error = "answer: " + _describe(e)
        try:
            if expected == got:  # the reference's comparison, truthiness included
                return True, None
        except KeyboardInterrupt:
            raise
        except BaseException as e:
            return False, answer_error or "compare: " + _describe(e)
        if answer_error is not None:
            return False, answer_error
        try:
            return False, f"wrong output: expected {_short.repr(expected)}, got {_short.repr(got)}"
        except KeyboardInterrupt:
            raise
        except BaseException:
            return False, "wrong output"

    verdict, err = _run(ANSWER, i, check)
    return verdict if err is None else (False, err)


def score_job(payload):
    """payload: JSON {ground_truth, answer, tests: [str], lenient, failed: {index: error}} (failed tests
    are reported as given, not run). Returns JSON {passed: [bool], errors: [str|null], blocked}."""
    job = json.loads(payload)
    tests, failed = job["tests"], job["failed"]
    blocked = blocked_by(job["answer"])
    if blocked is not None:
        return json.dumps({"passed": [False] * len(tests), "errors": [f"blocked: {blocked}"] * len(tests),
                           "blocked": blocked})
    answer = strip_fences(job["answer"])
    passed, errors = [], []
    for i, test in enumerate(tests):
        if str(i) in failed:
            ok, err = False, failed[str(i)]
        else:
            try:
                ok, err = _score_test(i, job["ground_truth"], answer, test, job["lenient"])
            except KeyboardInterrupt:  # only the watchdog raises it; it landed between phases
                ok, err = False, "timeout"
        passed.append(ok)
        errors.append(err)
    _mark(IDLE, -1)
    return json.dumps({"passed": passed, "errors": errors, "blocked": None})


def evaluate_calls(payload):
    """payload: JSON {codes, calls, lenient, failed}. Returns JSON [[repr|null per call] per code]."""
    job = json.loads(payload)
    calls, failed, lenient = job["calls"], job["failed"], job["lenient"]
    table = []
    for ci, code in enumerate(job["codes"]):
        row = [None] * len(calls)
        if str(ci) not in failed:
            def body():
                g = {"__builtins__": _BUILTINS.copy()}
                loc = g if lenient else {}
                exec(_compiled(code, "exec"), g, loc)
                for k, call in enumerate(calls):
                    try:
                        row[k] = repr(eval(_compiled(call, "eval"), g, loc))
                    except KeyboardInterrupt:
                        raise
                    except BaseException:
                        row[k] = None

            try:
                _run(CALLS, ci, body)
            except KeyboardInterrupt:
                pass  # a timeout that landed between phases: the rest of this row stays null
        table.append(row)
    _mark(IDLE, -1)
    return json.dumps(table)
