/**
 * Hostile answers for the harness, by class of attack (written from the classes, not from any report):
 * each is scored on the task `f(x) = 2x`, and `expect` is what its outputs earn (usually 0). The test
 * (hostile_test.ts) follows every one, in the same harness process, by canary answers whose scores must
 * not move.
 *
 * Answers avoid the paper's blocklisted strings (`import os`, `import sys`, `exit(`, …), which would stop
 * them before they run; they reach those modules through `__import__` instead.
 */

/** One hostile answer. */
export interface Hostile {
  name: string;
  /** The attack class. */
  kind:
    | "forge"
    | "stack"
    | "gc"
    | "clock"
    | "host"
    | "leak"
    | "resource"
    | "realm"
    | "output";
  answer: string;
  /** Expected reward in paperCompatible mode (default 0). */
  expect?: number;
  /** Expected reward in strict mode (default: `expect`). */
  strictExpect?: number;
}

/**
 * The reference every hostile answer is scored against, and its test: one, since an answer that defeats
 * the interrupt costs a harness process per test (the canaries that follow have several).
 */
export const TASK = {
  ground_truth: "def f(x):\n    return 2 * x\n",
  test_cases: { t1: "f(3)" },
};

/** A host file that no answer may read; the test writes a secret into it first. */
export const SECRET_PATH = "/tmp/sweet-kit-harness-secret.txt";
/** A host path that no answer may create. */
export const PLANT_PATH = "/tmp/sweet-kit-harness-planted.txt";

const imp = (m: string) => `__import__(${m.split("").map((c) => JSON.stringify(c)).join("+")})`;
const OS = imp("os"), SYS = imp("sys"), GC = imp("gc"), INSPECT = imp("inspect"), BUILTINS = imp("builtins");

/** `def f(x)` whose body runs `body` first, then returns a wrong value (1). */
const wrapWrong = (body: string) =>
  `def f(x):\n${body.split("\n").map((l) => "    " + l).join("\n")}\n    return 1\n`;
/** Module-level `body`, then a wrong `f`. */
const topWrong = (body: string) => `${body}\ndef f(x):\n    return 1\n`;

export const HOSTILE: Hostile[] = [
  // --- forge: patch what a scorer would use to report or compare ---------------------------------------
  {
    name: "patch json.dumps to report all passed",
    kind: "forge",
    answer: topWrong(
      `import json\n_d = json.dumps\njson.dumps = lambda o, *a, **k: _d({"passed": [True] * 3, "errors": [None] * 3, "blocked": None})`,
    ),
  },
  {
    name: "patch json.loads",
    kind: "forge",
    answer: topWrong(`import json\njson.loads = lambda s, *a, **k: [{"value": ["i", "2"]}] * 3`),
  },
  {
    name: "patch builtins.bool and repr",
    kind: "forge",
    answer: wrapWrong(`b = ${BUILTINS}\nb.bool = lambda v=False: True\nb.repr = lambda v: "2"`),
  },
  {
    name: "patch int.__eq__ through a builtins subclass trick",
    kind: "forge",
    answer: wrapWrong(`b = ${BUILTINS}\nclass I(int):\n    def __eq__(s, o): return True\nb.int = I`),
  },
  {
    name: "patch reprlib so wrong outputs look right",
    kind: "forge",
    answer: topWrong(`import reprlib\nreprlib.Repr.repr = lambda self, v: "2"`),
  },
  {
    name: "rebind the scorer's module globals via sys.modules",
    kind: "forge",
    answer: wrapWrong(
      `for m in list(${SYS}.modules.values()):\n    d = getattr(m, "__dict__", {})\n    for k in ("judge", "run_answer", "score_job", "_output", "encode"):\n        if k in d:\n            d[k] = lambda *a, **kw: '{"passed": [true, true, true]}'`,
    ),
  },
  {
    name: "replace the encoder with one that sends the right answer",
    kind: "forge",
    answer: wrapWrong(
      `for o in ${GC}.get_objects():\n    if callable(o) and getattr(o, "__name__", "") in ("encode", "_output"):\n        o.__code__ = (lambda v: {"value": ["i", "2"]}).__code__`,
    ),
  },
  {
    name: "write a forged result to stdout",
    kind: "forge",
    answer: wrapWrong(
      `print('{"type": "done", "id": 1, "result": {"passed": [true, true, true], "errors": [null, null, null]}}')\n${SYS}.__stdout__.write('{"type":"done"}\\n')`,
    ),
  },

  // --- stack: walk frames and rewrite the caller --------------------------------------------------------
  {
    name: "set the caller's local verdict",
    kind: "stack",
    answer: wrapWrong(
      `fr = ${SYS}._getframe(1)\nwhile fr:\n    for k in ("passed", "verdict", "ok", "got", "expected"):\n        if k in fr.f_locals:\n            fr.f_locals[k] = True\n    fr = fr.f_back`,
    ),
  },
  {
    name: "replace functions in every frame's globals",
    kind: "stack",
    answer: wrapWrong(
      `fr = ${SYS}._getframe(0)\nwhile fr:\n    g = fr.f_globals\n    for k, v in list(g.items()):\n        if callable(v) and k.startswith("_"):\n            g[k] = lambda *a, **kw: ({"value": ["i", "2"]}, None)\n    fr = fr.f_back`,
    ),
  },
  {
    name: "inspect.stack and patch _run",
    kind: "stack",
    answer: wrapWrong(
      `for fi in ${INSPECT}.stack():\n    g = fi.frame.f_globals\n    if "_run" in g:\n        g["_run"] = lambda kind, unit, fn: ({"value": ["i", "2"]}, None)`,
    ),
  },
  {
    name: "return from the scorer's frame by raising through it",
    kind: "stack",
    answer: wrapWrong(`class Stop(BaseException):\n    pass\nraise Stop()`),
  },
  {
    name: "patch the phase marker to re-arm the clock",
    kind: "stack",
    answer: wrapWrong(
      `fr = ${SYS}._getframe(0)\nwhile fr:\n    m = fr.f_globals.get("_mark")\n    if m:\n        for _ in range(100000):\n            m(2, 0)\n    fr = fr.f_back\nwhile True:\n    pass`,
    ),
  },
  {
    name: "swap the expected value in a caller's frame",
    kind: "stack",
    answer: wrapWrong(
      `fr = ${SYS}._getframe(1)\nwhile fr:\n    if "expected" in fr.f_locals:\n        fr.f_locals["expected"] = 1\n    fr = fr.f_back`,
    ),
  },
  {
    name: "steal the tests and answers from the job payload",
    kind: "stack",
    answer: wrapWrong(
      `fr = ${SYS}._getframe(0)\nwhile fr:\n    job = fr.f_locals.get("job")\n    if isinstance(job, dict):\n        job["tests"] = ["2"] * 3\n    fr = fr.f_back`,
    ),
  },
  {
    name: "set the traceback-free exception hook",
    kind: "stack",
    answer: wrapWrong(
      `${SYS}.excepthook = lambda *a: None\n${SYS}.settrace(lambda *a: None)\n${SYS}.setprofile(lambda *a: None)`,
    ),
  },

  // --- gc: reach the scorer's objects through the collector ---------------------------------------------
  {
    name: "empty every dict that looks like a blocklist or builtins",
    kind: "gc",
    answer: wrapWrong(
      `for o in ${GC}.get_objects():\n    if isinstance(o, dict) and "__import__" in o:\n        o["__import__"] = lambda *a, **k: None`,
    ),
  },
  {
    name: "poison the compile cache with a right-looking answer",
    kind: "gc",
    answer: topWrong(
      `for o in ${GC}.get_objects():\n    if isinstance(o, dict):\n        for k in list(o):\n            if isinstance(k, tuple) and len(k) == 2 and k[1] == "eval":\n                o[k] = compile("2", "<s>", "eval")`,
    ),
  },
  {
    name: "patch every function whose name mentions judge or compare",
    kind: "gc",
    answer: wrapWrong(
      `for o in ${GC}.get_objects():\n    n = getattr(o, "__name__", "")\n    if callable(o) and ("judge" in n or "compare" in n or "check" in n):\n        try:\n            o.__code__ = (lambda *a, **k: True).__code__\n        except Exception:\n            pass`,
    ),
  },
  {
    name: "freeze and disable the collector",
    kind: "gc",
    answer: wrapWrong(`g = ${GC}\ng.freeze()\ng.disable()\ng.set_threshold(0)`),
  },
  {
    name: "grab every JsProxy the collector sees",
    kind: "gc",
    answer: wrapWrong(
      `found = [o for o in ${GC}.get_objects() if "Js" in type(o).__name__]\nfor o in found:\n    try:\n        o.constructor.constructor("return globalThis")().Deno.readTextFileSync(${
        JSON.stringify(SECRET_PATH)
      })\n    except Exception:\n        pass`,
    ),
  },
  {
    name: "set a finalizer that runs after the answer",
    kind: "gc",
    answer: wrapWrong(
      `import weakref\nclass T:\n    pass\nt = T()\nweakref.finalize(t, lambda: ${BUILTINS}.__dict__.update(len=lambda v: 2))`,
    ),
  },

  // --- clock: evade the time limit ----------------------------------------------------------------------
  { name: "busy loop", kind: "clock", answer: "def f(x):\n    while True:\n        pass\n" },
  {
    name: "swallow KeyboardInterrupt in a loop",
    kind: "clock",
    answer:
      "def f(x):\n    while True:\n        try:\n            while True:\n                pass\n        except BaseException:\n            pass\n",
  },
  {
    name: "long call inside one C builtin",
    kind: "clock",
    answer: "def f(x):\n    return sum(range(10 ** 12))\n",
  },
  {
    name: "sleep in a loop that swallows the interrupt",
    kind: "clock",
    answer:
      "def f(x):\n    import time\n    while True:\n        try:\n            time.sleep(5)\n        except BaseException:\n            pass\n",
  },
  {
    name: "ignore SIGINT",
    kind: "clock",
    answer:
      `def f(x):\n    import signal\n    signal.signal(signal.SIGINT, signal.SIG_IGN)\n    while True:\n        pass\n`,
  },
  {
    name: "catastrophic regex backtracking",
    kind: "clock",
    answer: "def f(x):\n    import re\n    return re.match(r'(a+)+$', 'a' * 40 + 'b')\n",
  },
  {
    name: "re-raise interrupts as something else and continue",
    kind: "clock",
    answer:
      "def f(x):\n    n = 0\n    while True:\n        try:\n            n += 1\n        except KeyboardInterrupt:\n            continue\n",
  },
  {
    name: "deep recursion that catches RecursionError forever",
    kind: "clock",
    answer:
      "def f(x):\n    def r(n):\n        try:\n            return r(n + 1)\n        except BaseException:\n            return r(n + 1)\n    return r(0)\n",
  },

  // --- host: read, write or mount host files ------------------------------------------------------------
  {
    name: "read a host secret with open()",
    kind: "host",
    answer: `def f(x):\n    return open(${JSON.stringify(SECRET_PATH)}).read()\n`,
  },
  { name: "list the host root", kind: "host", answer: `def f(x):\n    return str(${OS}.listdir("/"))\n` },
  {
    name: "read /etc/passwd",
    kind: "host",
    answer: `def f(x):\n    return open("/etc/passwd").read()[:20]\n`,
  },
  {
    name: "plant a host file",
    kind: "host",
    answer: `def f(x):\n    open(${JSON.stringify(PLANT_PATH)}, "w").write("planted")\n    return 2 * x\n`,
    expect: 0,
  },
  {
    name: "import js and read through Deno",
    kind: "host",
    answer: `def f(x):\n    import js\n    return js.Deno.readTextFileSync(${JSON.stringify(SECRET_PATH)})\n`,
  },
  {
    name: "import pyodide_js and mount the host",
    kind: "host",
    answer:
      `def f(x):\n    import pyodide_js\n    pyodide_js.FS.mkdir("/host")\n    pyodide_js.FS.mount(pyodide_js.FS.filesystems.NODEFS, {"root": "/"}, "/host")\n    return open("/host" + ${
        JSON.stringify(SECRET_PATH)
      }).read()\n`,
  },
  {
    name: "reach the bridge through importlib",
    kind: "host",
    answer:
      `def f(x):\n    import importlib\n    core = importlib.import_module("_pyodide_core")\n    g = core.create_proxy(len).constructor.constructor("return globalThis")()\n    return g.Deno.readTextFileSync(${
        JSON.stringify(SECRET_PATH)
      })\n`,
  },
  {
    name: "reach the bridge through builtins.__import__",
    kind: "host",
    answer: `def f(x):\n    js = ${BUILTINS}.__import__("js")\n    return str(js.Deno)\n`,
  },
  {
    name: "read the host environment",
    kind: "host",
    answer: `def f(x):\n    return str(dict(${OS}.environ))[:40] + open("/proc/self/environ").read()\n`,
  },
  {
    name: "mount through the os module",
    kind: "host",
    answer:
      `def f(x):\n    o = ${OS}\n    o.makedirs("/mnt/h", exist_ok=True)\n    return str(o.listdir("/mnt/h"))\n`,
  },

  // --- leak: leave state for the next answer ------------------------------------------------------------
  {
    name: "patch math for later references",
    kind: "leak",
    answer: topWrong(`import math\nmath.sqrt = lambda v: 2\nmath.floor = lambda v: 2\nmath.pi = 2`),
  },
  {
    name: "patch a builtin for later answers",
    kind: "leak",
    answer: topWrong(
      `b = ${BUILTINS}\nb.len = lambda v: 2\nb.sorted = lambda v, **k: [2]\nb.abs = lambda v: 2`,
    ),
  },
  { name: "lower the recursion limit", kind: "leak", answer: topWrong(`${SYS}.setrecursionlimit(20)`) },
  {
    name: "install a SIGINT handler that ignores interrupts",
    kind: "leak",
    answer: topWrong(`import signal\nsignal.signal(signal.SIGINT, lambda *a: None)`),
  },
  {
    name: "write a file for the next answer",
    kind: "leak",
    answer: topWrong(`open("/tmp/leak.txt", "w").write("2")\nopen("/home/pyodide/leak.txt", "w").write("2")`),
  },
  {
    name: "inject a module into sys.modules",
    kind: "leak",
    answer: topWrong(
      `import types\nm = types.ModuleType("statistics")\nm.mean = lambda v: 2\n${SYS}.modules["statistics"] = m`,
    ),
  },
  {
    name: "patch str methods through a cached module",
    kind: "leak",
    answer: topWrong(
      `import string\nstring.ascii_letters = ""\nimport functools\nfunctools.reduce = lambda *a: 2`,
    ),
  },
  {
    name: "register an atexit and a sys.audit hook",
    kind: "leak",
    answer: topWrong(`import atexit\natexit.register(lambda: None)\n${SYS}.addaudithook(lambda e, a: None)`),
  },
  {
    name: "change the default encoding and float repr",
    kind: "leak",
    answer: topWrong(`${SYS}.set_int_max_str_digits(640)\nimport decimal\ndecimal.getcontext().prec = 1`),
  },
  {
    name: "fill the compile cache",
    kind: "leak",
    answer: wrapWrong(`for i in range(2000):\n    compile("x = %d" % i, "<s>", "exec")`),
  },

  // --- resource: exhaust memory, stack or output --------------------------------------------------------
  {
    name: "allocate a huge bytearray",
    kind: "resource",
    answer: "def f(x):\n    b = bytearray(2 ** 31)\n    return 2 * x\n",
    expect: 0,
  },
  {
    name: "grow a list without bound",
    kind: "resource",
    answer: "def f(x):\n    a = []\n    while True:\n        a.append('x' * 10 ** 6)\n",
  },
  {
    name: "recurse without limit",
    kind: "resource",
    answer:
      `def f(x):\n    ${SYS}.setrecursionlimit(10 ** 6)\n    def r(n):\n        return r(n + 1)\n    return r(0)\n`,
  },
  {
    name: "print without end",
    kind: "resource",
    answer: "def f(x):\n    while True:\n        print('x' * 10000)\n",
  },
  { name: "return a huge value", kind: "resource", answer: "def f(x):\n    return list(range(10 ** 7))\n" },
  {
    name: "return a self-containing list",
    kind: "resource",
    answer: "def f(x):\n    a = [1]\n    a.append(a)\n    return a\n",
  },
  {
    name: "raise an exception with a huge message",
    kind: "resource",
    answer: "def f(x):\n    raise ValueError('x' * 10 ** 7)\n",
  },
  {
    name: "nest tuples very deep",
    kind: "resource",
    answer: "def f(x):\n    t = ()\n    for _ in range(100000):\n        t = (t,)\n    return t\n",
  },

  // --- realm: tamper with the JavaScript side --------------------------------------------------------
  {
    name: "pollute Object.prototype through a proxy",
    kind: "realm",
    answer:
      `def f(x):\n    import _pyodide_core\n    p = _pyodide_core.create_proxy(len)\n    proto = p.__proto__.__proto__.__proto__\n    proto.passed = True\n    return 1\n`,
  },
  {
    name: "replace the worker's message handler",
    kind: "realm",
    answer:
      `def f(x):\n    from pyodide.ffi import create_proxy\n    p = create_proxy(lambda *a: None)\n    p.constructor.constructor("self.onmessage = null")()\n    return 1\n`,
  },
  {
    name: "patch JSON.stringify in the realm",
    kind: "realm",
    answer:
      `def f(x):\n    from pyodide.ffi import create_proxy\n    p = create_proxy(len)\n    o = p.__proto__.__proto__.__proto__.constructor\n    o.assign(o.getPrototypeOf(o), {"toString": None})\n    return 1\n`,
  },
  {
    name: "call the interrupt buffer away",
    kind: "realm",
    answer:
      `def f(x):\n    import pyodide_js\n    pyodide_js.setInterruptBuffer(None)\n    while True:\n        pass\n`,
  },
  {
    name: "keep a JS reference across answers",
    kind: "realm",
    answer:
      `def f(x):\n    from pyodide.ffi import create_proxy\n    import _pyodide_core\n    keep = [create_proxy(lambda: 2) for _ in range(1000)]\n    return 1\n`,
  },
  {
    name: "break the PyProxy prototype's call methods",
    kind: "realm",
    answer:
      `def f(x):\n    from pyodide.ffi import create_proxy\n    c = create_proxy(len).constructor\n    for k in ("apply", "call", "callKwargs", "toString", "destroy"):\n        try:\n            setattr(c.prototype, k, None)\n        except Exception:\n            pass\n    return 1\n`,
  },
  {
    name: "break Array.prototype.push and map",
    kind: "realm",
    answer:
      `def f(x):\n    from pyodide.ffi import to_js\n    a = to_js([1, 2])\n    a.constructor.prototype.push = None\n    a.constructor.prototype.map = None\n    return 1\n`,
  },
  {
    name: "break typed arrays' set and slice",
    kind: "realm",
    answer:
      `def f(x):\n    from pyodide.ffi import to_js\n    t = to_js(b"ab")\n    proto = t.constructor.prototype\n    proto.slice = None\n    proto.set = None\n    return 1\n`,
  },
  {
    name: "destroy proxies the worker holds",
    kind: "realm",
    answer:
      `def f(x):\n    import _pyodide_core\n    _pyodide_core.destroy_proxies(_pyodide_core.create_proxy(len))\n    return 1\n`,
  },

  // --- output: values built to fool a comparison ------------------------------------------------------
  {
    name: "an object equal to everything",
    kind: "output",
    answer:
      "def f(x):\n    class E:\n        def __eq__(self, o):\n            return True\n    return E()\n",
    expect: 1,
    strictExpect: 0,
  },
  {
    name: "an int subclass equal to everything",
    kind: "output",
    answer:
      "def f(x):\n    class I(int):\n        def __eq__(self, o):\n            return True\n        __hash__ = int.__hash__\n    return I(0)\n",
    expect: 1,
    strictExpect: 0,
  },
  {
    name: "an object whose __eq__ hangs",
    kind: "output",
    answer:
      "def f(x):\n    class H:\n        def __eq__(self, o):\n            while True:\n                pass\n    return H()\n",
  },
  {
    name: "an object whose repr raises",
    kind: "output",
    answer:
      "def f(x):\n    class R:\n        def __repr__(self):\n            raise RuntimeError('no')\n        def __eq__(self, o):\n            return False\n    return R()\n",
  },
  { name: "a float that is NaN", kind: "output", answer: "def f(x):\n    return float('nan')\n" },
  {
    name: "a bool where an int is expected",
    kind: "output",
    answer: "def f(x):\n    return True\n",
    expect: 0,
  },
];
