"""ColBench backend scoring inside Pyodide, for worker.ts: the answer's side and the judge's side.

The paper's scorer (sweet_rl code_utils.check_correctness) runs, per test, a fresh exec of the reference
and of the answer, each followed by an eval of the test call; a test passes iff `expected == got and
expected is not None`. Here that work is split so that no answer can reach its own score:

- the *answer* interpreter (restored to a clean snapshot before every answer) execs the answer and evals
  each test, and sends back only plain data: each output encoded as a tree of builtin values
  (`encode`), or, for any other object, its type and repr;
- the *judge* interpreter, which never runs an answer, evaluates the references, decodes both sides and
  compares them with the reference's own `expected == got` (truthiness included).

`paperCompatible` keeps the paper's semantics for outputs that are not plain data (an object with its own
`__eq__`): the answer interpreter, after all its tests, compares them with the decoded expected values
(`compare_objects`); `strict` fails them instead.

Every exec/eval runs as one "phase" announced to the host through `_mark` (kind, unit). The host times
phases and, when one runs over its limit, raises KeyboardInterrupt in here through Pyodide's interrupt
buffer; `_targeted()` tells whether that interrupt was aimed at the phase that caught it.
"""

import builtins
import io
import json
import reprlib
import sys

# Phase kinds; the numbers are shared with control.ts.
IDLE, REFERENCE, ANSWER, CALLS = 0, 1, 2, 3

# Each exec gets its own copy, so an answer that rebinds a builtin cannot affect later tests.
_BUILTINS = dict(builtins.__dict__)


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


_mark = lambda kind, unit: False  # noqa: E731
_targeted = lambda: False  # noqa: E731


def install(mark, targeted, max_output_chars):
    """Called by the worker with its JS callbacks and the output bound (after every snapshot restore)."""
    global _mark, _targeted, _sink
    _mark, _targeted = mark, targeted
    _sink = _Sink(int(max_output_chars))


def healthy():
    """Calls both JS callbacks: raises if an earlier answer broke the interpreter's links to JS."""
    _mark(IDLE, -1)
    _targeted()
    return "ok"


# --- plain data ---------------------------------------------------------------------------------------

MAX_NODES = 100_000
MAX_DEPTH = 100


class NotPlain(Exception):
    pass


def encode(value):
    """A JSON-able tree of `value` if it is built only of builtin values (exact types, no subclasses),
    else raises NotPlain. Tags: n None, b bool, i int (decimal string), f float (repr), c complex, s str,
    y bytes (hex), l list, t tuple, d dict (pairs), S set, F frozenset."""
    count = [0]

    def enc(v, depth):
        count[0] += 1
        if count[0] > MAX_NODES or depth > MAX_DEPTH:
            raise NotPlain("too large")
        t = type(v)
        if v is None:
            return ["n"]
        if t is bool:
            return ["b", v]
        if t is int:
            return ["i", str(v)]
        if t is float:
            return ["f", repr(v)]
        if t is complex:
            return ["c", repr(v.real), repr(v.imag)]
        if t is str:
            return ["s", v]
        if t is bytes:
            return ["y", v.hex()]
        if t is list or t is tuple:
            return ["l" if t is list else "t", [enc(x, depth + 1) for x in v]]
        if t is dict:
            return ["d", [[enc(k, depth + 1), enc(x, depth + 1)] for k, x in v.items()]]
        if t is set or t is frozenset:
            return ["S" if t is set else "F", [enc(x, depth + 1) for x in v]]
        raise NotPlain(t.__name__)

    try:
        return enc(value, 0)
    except RecursionError:
        raise NotPlain("too deep") from None


def decode(tree):
    """The value `encode` gave; raises ValueError on anything else."""
    tag = tree[0]
    if tag == "n":
        return None
    if tag == "b":
        return bool(tree[1])
    if tag == "i":
        return int(tree[1])
    if tag == "f":
        return float(tree[1])
    if tag == "c":
        return complex(float(tree[1]), float(tree[2]))
    if tag == "s":
        return str(tree[1])
    if tag == "y":
        return bytes.fromhex(tree[1])
    if tag == "l":
        return [decode(x) for x in tree[1]]
    if tag == "t":
        return tuple(decode(x) for x in tree[1])
    if tag == "d":
        return {decode(k): decode(v) for k, v in tree[1]}
    if tag == "S":
        return {decode(x) for x in tree[1]}
    if tag == "F":
        return frozenset(decode(x) for x in tree[1])
    raise ValueError(f"not an encoded value: {tag!r}")


# --- running code -------------------------------------------------------------------------------------

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


def _brief(value):
    try:
        return _short.repr(value)
    except BaseException:
        return f"<{type(value).__name__}>"


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


def _output(value):
    """What an interpreter sends back of one output: its encoding, or (not plain data) type and repr."""
    try:
        return {"value": encode(value)}
    except NotPlain:
        return {"object": type(value).__name__, "repr": _brief(value)}


# --- the answer's side --------------------------------------------------------------------------------

_objects = {}


def run_answer(payload):
    """payload: JSON {answer, tests: [str], lenient, skip: [index]}. Runs each test not skipped in its own
    phase; returns JSON [{value} | {object, repr} | {error} | null (skipped)]."""
    job = json.loads(payload)
    skip = set(job["skip"])
    _objects.clear()
    out = []
    for i, test in enumerate(job["tests"]):
        if i in skip:
            out.append(None)
            continue

        def body():
            try:
                got = _call(job["answer"], test, job["lenient"])
            except KeyboardInterrupt:
                raise
            except BaseException as e:
                return {"error": "answer: " + _describe(e)}
            sent = _output(got)
            if "object" in sent:
                _objects[i] = got
            return sent

        try:
            result, err = _run(ANSWER, i, body)
        except KeyboardInterrupt:  # only the watchdog raises it; it landed between phases
            result, err = None, "timeout"
        out.append(result if err is None else {"error": err})
    _mark(IDLE, -1)
    return json.dumps(out)


def compare_objects(payload):
    """payload: JSON {index: encoded expected} for outputs that were not plain data (paperCompatible):
    the paper's `expected == got`, run here because only this interpreter holds `got`. Returns JSON
    {index: [passed, error | null]}."""
    out = {}
    for key, expected in json.loads(payload).items():
        i = int(key)
        got = _objects.get(i)

        def body():
            return bool(decode(expected) == got)

        try:
            passed, err = _run(ANSWER, i, body)
        except KeyboardInterrupt:
            passed, err = False, "timeout"
        out[key] = [bool(passed), None if err is None else "compare: " + err]
    _mark(IDLE, -1)
    return json.dumps(out)


# --- the judge's side ---------------------------------------------------------------------------------


def references(payload):
    """payload: JSON {ground_truth, tests, lenient, only: [index]}. The reference output of each test in
    `only`, as `_output` sends it, or {error}; null for the others."""
    job = json.loads(payload)
    only = set(job["only"])
    out = []
    for i, test in enumerate(job["tests"]):
        if i not in only:
            out.append(None)
            continue
        try:
            value, err = _run(REFERENCE, i, lambda: _output(_call(job["ground_truth"], test, job["lenient"])))
        except KeyboardInterrupt:
            value, err = None, "timeout"
        out.append(value if err is None else {"error": err})
    _mark(IDLE, -1)
    return json.dumps(out)


def judge(payload):
    """payload: JSON [[encoded expected, encoded got], ...]. Returns JSON [[passed, error | null], ...]:
    the reference's `expected == got` on the decoded values, with the paper's truthiness."""
    out = []
    for expected_tree, got_tree in json.loads(payload):
        try:
            expected, got = decode(expected_tree), decode(got_tree)
        except Exception as e:  # noqa: BLE001 - malformed data from a broken worker fails the test
            out.append([False, "compare: " + _describe(e)])
            continue
        try:
            if expected == got:
                out.append([True, None])
            else:
                out.append([False, f"wrong output: expected {_brief(expected)}, got {_brief(got)}"])
        except BaseException as e:
            out.append([False, "compare: " + _describe(e)])
    return json.dumps(out)


def evaluate_calls(payload):
    """For the task generator: payload JSON {codes, calls, lenient, failed}. Returns JSON [[repr|null per
    call] per code]."""
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
