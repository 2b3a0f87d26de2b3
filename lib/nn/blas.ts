/**
 * The system BLAS (OpenBLAS) through Deno FFI, for the wasm backend's matrix products.
 *
 * The wasm backend runs single-threaded in Deno, and its transposed and batched products leave XNNPACK's
 * fast path (see ./ops.ts). `cblas_sgemm` from the system OpenBLAS runs every variant at full speed on
 * as many threads as asked, reading and writing the wasm heap in place (./backend.ts hands it views).
 *
 * Where it comes from, in order:
 * - `SWEET_BLAS=off`: nothing is loaded (the stock wasm kernels run).
 * - `SWEET_BLAS=/path/to/libopenblas.so`: that library; one that fails to load is an error naming it.
 * - otherwise the first of {@link blasCandidates} that loads (the Debian package
 *   `libopenblas0-pthread` and the usual other places); none is not an error, only a slower path.
 *
 * Threads: `SWEET_BLAS_THREADS` if set, else `max(1, floor(cores / SWEET_BLAS_PROCESSES))`, where the
 * kit's multi-process launchers (`deno task ablate --jobs`, `deno task test`) set `SWEET_BLAS_PROCESSES`
 * to the number of processes sharing the cores. The library and its thread count are one per process:
 * the data-parallel replicas of ./parallel.ts (Deno workers) share them, which keeps a replica's
 * gradients bit-identical to the same micro-batch in one process.
 *
 * Rounding: a product is deterministic for given shapes and thread count, and agrees with the stock wasm
 * kernel to about 1e-7 relative, but unlike XNNPACK's, OpenBLAS's sums for one row depend on the matrix
 * around it (edge tiles and the split between threads sum in another order). So with the BLAS on, batch
 * composition changes the last bits of a row's results; `SWEET_BLAS=off` gives bit-exact batch invariance.
 *
 * @module
 */

/** Environment variable naming the library to load, or `off`. */
export const BLAS_VARIABLE = "SWEET_BLAS";
/** Environment variable fixing the BLAS thread count. */
export const BLAS_THREADS_VARIABLE = "SWEET_BLAS_THREADS";
/** Environment variable the multi-process launchers set to the number of processes sharing the cores. */
export const BLAS_PROCESSES_VARIABLE = "SWEET_BLAS_PROCESSES";
/** How to get the library on Debian and Ubuntu, for messages. */
export const BLAS_INSTALL = "apt-get install -y libopenblas0-pthread";

const CBLAS_ROW_MAJOR = 101;
const CBLAS_NO_TRANS = 111;
const CBLAS_TRANS = 112;

const SYMBOLS = {
  cblas_sgemm: {
    // order, transA, transB, M, N, K, alpha, A, lda, B, ldb, beta, C, ldc
    parameters: [
      "i32",
      "i32",
      "i32",
      "i32",
      "i32",
      "i32",
      "f32",
      "buffer",
      "i32",
      "buffer",
      "i32",
      "f32",
      "buffer",
      "i32",
    ],
    result: "void",
  },
  cblas_sgemv: {
    // order, trans, M, N, alpha, A, lda, x, incx, beta, y, incy
    parameters: ["i32", "i32", "i32", "i32", "f32", "buffer", "i32", "buffer", "i32", "f32", "buffer", "i32"],
    result: "void",
  },
  // OpenBLAS's own extensions; optional so that another CBLAS named by SWEET_BLAS still loads.
  openblas_set_num_threads: { parameters: ["i32"], result: "void", optional: true },
  openblas_get_num_threads: { parameters: [], result: "i32", optional: true },
  openblas_get_config: { parameters: [], result: "pointer", optional: true },
} as const satisfies Deno.ForeignLibraryInterface;

/** A loaded BLAS. */
export interface Blas {
  /** What was opened: the resolved file when it could be resolved, else the name given to dlopen. */
  readonly path: string;
  /** `openblas_get_config()` (e.g. `OpenBLAS 0.3.21 DYNAMIC_ARCH … Zen MAX_THREADS=64`), or `unknown CBLAS`. */
  readonly version: string;
  /** Threads it currently uses (1 when it cannot say). */
  readonly threads: number;
  /** Sets the number of threads (process-wide: every isolate shares the library); ignored by a non-OpenBLAS. */
  setThreads(n: number): void;
  /**
   * Row-major `c = op(a) · op(b)`, `op(a)` `[m, k]` and `op(b)` `[k, n]`: `a` is stored `[m, k]`, or
   * `[k, m]` when `transA`; `b` is stored `[k, n]`, or `[n, k]` when `transB`; `c` is `[m, n]`.
   */
  sgemm(
    transA: boolean,
    transB: boolean,
    m: number,
    n: number,
    k: number,
    a: Float32Array,
    b: Float32Array,
    c: Float32Array,
  ): void;
}

/**
 * Where a BLAS is looked for when `SWEET_BLAS` is unset: the Debian/Ubuntu multiarch locations first
 * (the alternatives link, then the pthread, OpenMP and serial builds), then other distributions',
 * Homebrew's, and last the bare name for the dynamic loader's own search.
 *
 * @example
 * ```ts
 * import { blasCandidates } from "./blas.ts";
 * console.log(blasCandidates()[0]); // /usr/lib/x86_64-linux-gnu/libopenblas.so.0 on Debian amd64
 * ```
 */
export function blasCandidates(): string[] {
  if (Deno.build.os === "darwin") {
    return [
      "/opt/homebrew/opt/openblas/lib/libopenblas.dylib",
      "/usr/local/opt/openblas/lib/libopenblas.dylib",
      "libopenblas.dylib",
    ];
  }
  const triplet = `${Deno.build.arch}-linux-gnu`;
  const debian = `/usr/lib/${triplet}`;
  return [
    `${debian}/libopenblas.so.0`,
    `${debian}/openblas-pthread/libopenblas.so.0`,
    `${debian}/openblas-openmp/libopenblas.so.0`,
    `${debian}/openblas-serial/libopenblas.so.0`,
    `${debian}/libopenblas.so`,
    "/usr/lib64/libopenblas.so.0",
    "/usr/lib/libopenblas.so.0",
    "/usr/local/lib/libopenblas.so.0",
    "/opt/OpenBLAS/lib/libopenblas.so.0",
    "libopenblas.so.0",
  ];
}

/** A positive integer from an environment variable, or undefined when unset; anything else throws. */
function positiveInteger(variable: string): number | undefined {
  const raw = Deno.env.get(variable);
  if (raw === undefined || raw.trim() === "") return undefined;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < 1) throw new Error(`${variable}=${raw}: expected a positive integer`);
  return n;
}

/**
 * The thread count a BLAS should use here: `SWEET_BLAS_THREADS` if set, else
 * `max(1, floor(navigator.hardwareConcurrency / SWEET_BLAS_PROCESSES))` (processes default 1).
 *
 * @example
 * ```ts
 * import { defaultBlasThreads } from "./blas.ts";
 * console.log(defaultBlasThreads()); // all cores, unless the launcher said it runs several processes
 * ```
 */
export function defaultBlasThreads(): number {
  const fixed = positiveInteger(BLAS_THREADS_VARIABLE);
  if (fixed !== undefined) return fixed;
  const processes = positiveInteger(BLAS_PROCESSES_VARIABLE) ?? 1;
  return Math.max(1, Math.floor(navigator.hardwareConcurrency / processes));
}

/** Libraries opened by this isolate, by the name they were opened with (dlopen once, reuse). */
const opened = new Map<string, Blas>();

/** Opens `name` with dlopen and wraps it; throws what dlopen threw. */
function open(name: string): Blas {
  const known = opened.get(name);
  if (known) return known;
  const lib = Deno.dlopen(name, SYMBOLS).symbols;
  let path = name;
  try {
    path = Deno.realPathSync(name);
  } catch {
    // A bare name resolved by the loader has no path of ours to resolve.
  }
  const config = lib.openblas_get_config?.();
  const version = config ? Deno.UnsafePointerView.getCString(config) : "unknown CBLAS";
  const blas: Blas = {
    path,
    version,
    get threads() {
      return lib.openblas_get_num_threads?.() ?? 1;
    },
    setThreads(n) {
      lib.openblas_set_num_threads?.(n);
    },
    sgemm(transA, transB, m, n, k, a, b, c) {
      // A single row or column is a matrix-vector product; OpenBLAS 0.3.21's sgemm still packs the whole
      // matrix for it (1×128·128×2048: 91 µs, 2.4× the stock wasm kernel). The vector is contiguous
      // either way, transposed or not.
      if (m === 1) {
        // cᵀ = op(b)ᵀ aᵀ: b is [k, n] (transposed for gemv) or, with transB, [n, k].
        const [rows, cols] = transB ? [n, k] : [k, n];
        lib.cblas_sgemv(
          CBLAS_ROW_MAJOR,
          transB ? CBLAS_NO_TRANS : CBLAS_TRANS,
          rows,
          cols,
          1,
          b,
          cols,
          a,
          1,
          0,
          c,
          1,
        );
        return;
      }
      if (n === 1) {
        // c = op(a) b: a is [m, k] or, with transA, [k, m] (transposed for gemv).
        const [rows, cols] = transA ? [k, m] : [m, k];
        lib.cblas_sgemv(
          CBLAS_ROW_MAJOR,
          transA ? CBLAS_TRANS : CBLAS_NO_TRANS,
          rows,
          cols,
          1,
          a,
          cols,
          b,
          1,
          0,
          c,
          1,
        );
        return;
      }
      lib.cblas_sgemm(
        CBLAS_ROW_MAJOR,
        transA ? CBLAS_TRANS : CBLAS_NO_TRANS,
        transB ? CBLAS_TRANS : CBLAS_NO_TRANS,
        m,
        n,
        k,
        1,
        a,
        transA ? m : k,
        b,
        transB ? k : n,
        0,
        c,
        n,
      );
    },
  };
  opened.set(name, blas);
  return blas;
}

/** Why {@link loadBlas} returned nothing. */
export type NoBlas =
  | { reason: "off" }
  | { reason: "absent"; tried: string[] }
  | { reason: "no-ffi-permission" };

/**
 * Opens the BLAS that `SWEET_BLAS` names or the first of {@link blasCandidates} that loads, and sets its
 * threads to {@link defaultBlasThreads} (or `options.threads`). Returns why not instead when there is
 * none, when `SWEET_BLAS=off`, or when FFI is not permitted; an explicit `SWEET_BLAS` path that fails to
 * load throws an error naming it. Calling it again reuses the library already opened.
 *
 * @example
 * ```ts
 * import { loadBlas } from "./blas.ts";
 * const blas = loadBlas();
 * if ("sgemm" in blas) {
 *   const c = new Float32Array(4);
 *   blas.sgemm(false, false, 2, 2, 2, Float32Array.of(1, 2, 3, 4), Float32Array.of(1, 0, 0, 1), c);
 *   console.log(blas.version, blas.threads, c); // c = [1, 2, 3, 4]
 * } else {
 *   console.log(`no BLAS: ${blas.reason}`);
 * }
 * ```
 */
export function loadBlas(options: { threads?: number } = {}): Blas | NoBlas {
  const named = Deno.env.get(BLAS_VARIABLE)?.trim() || undefined;
  if (named === "off") return { reason: "off" };
  const threads = options.threads ?? defaultBlasThreads();
  if (named !== undefined) {
    let blas: Blas;
    try {
      blas = open(named);
    } catch (e) {
      throw new Error(
        `${BLAS_VARIABLE}=${named}: cannot load it as a BLAS (${(e as Error).message.split("\n")[0]}); ` +
          `point it at a libopenblas.so (${BLAS_INSTALL}), or set ${BLAS_VARIABLE}=off`,
      );
    }
    blas.setThreads(threads);
    return blas;
  }
  if (Deno.permissions.querySync({ name: "ffi" }).state !== "granted") return { reason: "no-ffi-permission" };
  const tried = blasCandidates();
  for (const name of tried) {
    let blas: Blas;
    try {
      blas = open(name);
    } catch {
      continue;
    }
    blas.setThreads(threads);
    return blas;
  }
  return { reason: "absent", tried };
}
