/**
 * Picks and initialises the tfjs backend, replaces the wasm kernels that copy slowly (slices, gather,
 * concat: in place, by the exact copies of ./kernels.ts once loaded), and hands the wasm backend's matrix
 * products to the system BLAS when there is one (./blas.ts), with ./kernels.ts's fused kernels beside it.
 *
 * `wasm` (XNNPACK + SIMD, single thread in Deno) is the default: measured 21–25 GFLOP/s for a plain 2-D
 * matMul versus 0.5–0.7 GFLOP/s on the `cpu` backend. `cpu` is only ever used when asked for by name.
 * With OpenBLAS loaded (`apt-get install -y libopenblas0-pthread`; `SWEET_BLAS=off` turns it off) every
 * float32 wasm `BatchMatMul` runs in `cblas_sgemm` instead, transposed and batched ones included (which
 * XNNPACK runs at 1–2 GFLOP/s), on as many threads as ./blas.ts allots.
 * `tensorflow` (libtensorflow through tfjs-node, CUDA with tfjs-node-gpu) is loaded at run time so that
 * machines without it still type-check and run everything else. `webgpu` (a declared dependency, imported
 * only when asked for) runs on whatever adapter Deno's `navigator.gpu` finds, a software one (Mesa's
 * llvmpipe, here through its EGL packages) included; its synchronous reads need OffscreenCanvas, which Deno
 * lacks, so the kit reads tensors asynchronously on every training and sampling path.
 *
 * @module
 */
import * as tf from "@tensorflow/tfjs";
import { z } from "zod";
import "@tensorflow/tfjs-backend-wasm";
import { type Blas, BLAS_INSTALL, BLAS_VARIABLE, loadBlas } from "./blas.ts";
import { copyKernels, fusedKernels, KERNELS_VARIABLE, loadKernels, type WasmHeap } from "./kernels.ts";

/** The backends the kit can run on. */
export type BackendName = "wasm" | "cpu" | "tensorflow" | "webgpu";

/** What was selected; record it next to every result so numbers can be compared fairly. */
export interface BackendInfo {
  /** Backend actually active after selection. */
  backend: BackendName;
  /** tfjs version. */
  version: string;
  /** wasm only: whether the SIMD build is running. */
  simd?: boolean;
  /** wasm only: worker threads (1 in Deno, which cannot run the threaded build). */
  threads?: number;
  /** wasm only: the native BLAS its matrix products run in, when one is loaded. */
  blas?: BlasInfo;
  /** wasm with a BLAS only: whether the fused numeric kernels of ./kernels.ts are on. */
  fusedKernels?: boolean;
  /** webgpu only: the adapter it runs on (a software one such as llvmpipe reports its name here). */
  adapter?: AdapterInfo;
}

/** A WebGPU adapter as `GPUAdapter.info` describes it. */
export interface AdapterInfo {
  /** e.g. `65541` for Mesa's software rasteriser, a PCI vendor id or name for hardware. */
  vendor: string;
  /** e.g. `turing`; often empty. */
  architecture: string;
  /** e.g. `llvmpipe (LLVM 15.0.6, 256 bits)`. */
  description: string;
}

/** The native BLAS behind the wasm backend's matrix products. */
export interface BlasInfo {
  /** Library file loaded. */
  library: string;
  /** Its build string, e.g. `OpenBLAS 0.3.21 NO_LAPACKE DYNAMIC_ARCH NO_AFFINITY Zen MAX_THREADS=64`. */
  version: string;
  /** Threads it runs on. */
  threads: number;
}

const NAMES: readonly BackendName[] = ["wasm", "cpu", "tensorflow", "webgpu"];

/**
 * The `--backend` flag of the CLI tasks that train or sample: it sets `TFJS_BACKEND` for this process and
 * every process it starts (see {@link useBackendFlag}).
 *
 * @example
 * ```ts
 * import { z } from "zod";
 * import { BackendFlag } from "./backend.ts";
 * const Flags = z.object({ backend: BackendFlag });
 * Flags.parse({ backend: "webgpu" });
 * ```
 */
export const BackendFlag = z.enum(["wasm", "cpu", "tensorflow", "webgpu"]).optional().describe(
  "tfjs backend: wasm (default), cpu, webgpu (a GPU, or Mesa's software adapter), tensorflow (tfjs-node); " +
    "else TFJS_BACKEND",
);

/**
 * Makes `--backend` the backend of every later {@link selectBackend} without a name, in this process and in
 * the processes and workers it starts (through `TFJS_BACKEND`); nothing when the flag was not given.
 *
 * @example
 * ```ts
 * import { useBackendFlag } from "./backend.ts";
 * useBackendFlag(undefined); // TFJS_BACKEND, or wasm, as before
 * ```
 */
export function useBackendFlag(name: BackendName | undefined): void {
  if (name) Deno.env.set("TFJS_BACKEND", name);
}

/**
 * Copies `size` elements starting at `begin` out of `x` reading the wasm heap in place. The stock wasm
 * Slice kernel first copies the *whole* input out of the heap (`readSync`), so one [768, 768] slice of a
 * [32, 768, 768] tensor took 220 ms here and unstacking it 8 s; reading the heap in place makes it 0.3 ms.
 */
function sliceInPlace(backend: WasmHeap, x: tf.TensorInfo, begin: number[], size: number[]): tf.TensorInfo {
  const out = backend.makeOutput(size, x.dtype);
  const total = tf.util.sizeFromShape(size);
  if (total === 0) return out;
  // Views are taken after makeOutput: its malloc may grow (and so detach) the heap buffer.
  const xs = backend.typedArrayFromHeap(x);
  const os = backend.typedArrayFromHeap(out);
  const strides = tf.util.computeStrides(x.shape);
  if (tf.slice_util.isSliceContinous(x.shape, begin, size)) {
    const offset = tf.slice_util.computeFlatOffset(begin, strides);
    os.set(xs.subarray(offset, offset + total));
    return out;
  }
  const rank = size.length;
  const inner = size[rank - 1];
  const copies = copyKernels();
  if (copies && rank >= 2) {
    // One wasm call per [size[rank-2], inner] block: its rows are evenly strided in x.
    const bytes = xs.BYTES_PER_ELEMENT;
    const rows = size[rank - 2];
    const blocks = total / (rows * inner);
    const index = new Array<number>(Math.max(rank - 2, 0)).fill(0);
    for (let block = 0; block < blocks; block++) {
      let offset = begin[rank - 1] + begin[rank - 2] * strides[rank - 2];
      for (let d = 0; d < rank - 2; d++) offset += (begin[d] + index[d]) * strides[d];
      copies.copyRows(
        xs.byteOffset + offset * bytes,
        strides[rank - 2] * bytes,
        os.byteOffset + block * rows * inner * bytes,
        inner * bytes,
        rows,
        inner * bytes,
      );
      for (let d = rank - 3; d >= 0; d--) {
        if (++index[d] < size[d]) break;
        index[d] = 0;
      }
    }
    return out;
  }
  const rows = total / inner;
  const index = new Array<number>(rank - 1).fill(0);
  for (let row = 0; row < rows; row++) {
    let offset = begin[rank - 1];
    for (let d = 0; d < rank - 1; d++) offset += (begin[d] + index[d]) * strides[d];
    os.set(xs.subarray(offset, offset + inner), row * inner);
    for (let d = rank - 2; d >= 0; d--) {
      if (++index[d] < size[d]) break;
      index[d] = 0;
    }
  }
  return out;
}

/**
 * `GatherV2` by rows copied in place (exactly what the stock kernel computes, which copies element by
 * element: an embedding lookup of 4,096 rows of 128 took 26 ms there); undefined for the stock kernel to
 * handle (batch dimensions, or before the copy kernels are loaded). Indices outside the axis are an error,
 * as on the cpu backend.
 */
function gatherInPlace(
  backend: WasmHeap,
  x: tf.TensorInfo,
  indices: tf.TensorInfo,
  axisAttr: number,
  batchDims: number,
): tf.TensorInfo | undefined {
  const copies = copyKernels();
  if (!copies || batchDims !== 0 || indices.dtype !== "int32") return undefined;
  const axis = tf.util.parseAxisParam(axisAttr, x.shape)[0];
  const axisLength = x.shape[axis];
  const outer = tf.util.sizeFromShape(x.shape.slice(0, axis));
  const inner = tf.util.sizeFromShape(x.shape.slice(axis + 1));
  const count = tf.util.sizeFromShape(indices.shape);
  const out = backend.makeOutput(
    [...x.shape.slice(0, axis), ...indices.shape, ...x.shape.slice(axis + 1)],
    x.dtype,
  );
  if (outer * inner * count === 0) return out;
  const ids = backend.typedArrayFromHeap(indices) as Int32Array;
  for (let i = 0; i < count; i++) {
    if (ids[i] < 0 || ids[i] >= axisLength) {
      throw new Error(`GatherV2: the index value ${ids[i]} is not in [0, ${axisLength - 1}]`);
    }
  }
  const xs = backend.typedArrayFromHeap(x);
  const os = backend.typedArrayFromHeap(out);
  const row = inner * xs.BYTES_PER_ELEMENT;
  for (let o = 0; o < outer; o++) {
    copies.gatherRows(
      xs.byteOffset + o * axisLength * row,
      ids.byteOffset,
      os.byteOffset + o * count * row,
      count,
      row,
    );
  }
  return out;
}

/** `Concat` by rows copied in place (exact); undefined for the stock kernel before the copies are loaded. */
function concatInPlace(
  backend: WasmHeap,
  inputs: tf.TensorInfo[],
  axisAttr: number,
): tf.TensorInfo | undefined {
  const copies = copyKernels();
  if (!copies || inputs.length === 0) return undefined;
  const axis = tf.util.parseAxisParam(axisAttr, inputs[0].shape)[0];
  const shape = tf.backend_util.computeOutShape(inputs.map((t) => t.shape), axis);
  const out = backend.makeOutput(shape, inputs[0].dtype);
  const outer = tf.util.sizeFromShape(shape.slice(0, axis));
  const outBlock = tf.util.sizeFromShape(shape.slice(axis));
  if (outer * outBlock === 0) return out;
  const os = backend.typedArrayFromHeap(out);
  const bytes = os.BYTES_PER_ELEMENT;
  let offset = 0;
  for (const t of inputs) {
    const block = tf.util.sizeFromShape(t.shape.slice(axis));
    if (block > 0) {
      const xs = backend.typedArrayFromHeap(t);
      copies.copyRows(
        xs.byteOffset,
        block * bytes,
        os.byteOffset + offset * bytes,
        outBlock * bytes,
        outer,
        block * bytes,
      );
    }
    offset += block;
  }
  return out;
}

/** The BLAS the wasm BatchMatMul kernel calls; set by {@link selectBackend}, undefined for the stock kernel. */
let activeBlas: Blas | undefined;

/**
 * Whether matrix products run in the native BLAS now (the wasm backend with a BLAS loaded): then
 * transposed and batched products are as fast as plain ones, and ./ops.ts drops its wasm workarounds.
 *
 * @example
 * ```ts
 * import { nativeMatMul } from "./backend.ts";
 * console.log(nativeMatMul() ? "matMul in OpenBLAS" : "stock kernels");
 * ```
 */
export function nativeMatMul(): boolean {
  return activeBlas !== undefined && tf.getBackend() === "wasm";
}

/**
 * `BatchMatMul` through {@link activeBlas}: one `cblas_sgemm` per batch on views of the wasm heap (no
 * copies), or one for the whole batch when `b` is shared and `a` is not transposed. Returns undefined
 * where the stock kernel should run instead: no BLAS, not float32, an empty product, or a broadcast
 * other than of a single shared matrix (the stock kernel flattens batch dims, as tfjs's kernels do).
 *
 * Small products go to the BLAS too: even at 4×4×4 the FFI call (about 3 µs a product, measured on a
 * busy 2-core machine) beat the stock kernel (about 4 µs), so there is no size threshold.
 */
function blasBatchMatMul(
  backend: WasmHeap,
  a: tf.TensorInfo,
  b: tf.TensorInfo,
  transA: boolean,
  transB: boolean,
): tf.TensorInfo | undefined {
  const blas = activeBlas;
  if (!blas || a.dtype !== "float32" || b.dtype !== "float32") return undefined;
  const ra = a.shape.length, rb = b.shape.length;
  if (ra < 2 || rb < 2) return undefined;
  const m = transA ? a.shape[ra - 1] : a.shape[ra - 2];
  const k = transA ? a.shape[ra - 2] : a.shape[ra - 1];
  const n = transB ? b.shape[rb - 2] : b.shape[rb - 1];
  if (k !== (transB ? b.shape[rb - 1] : b.shape[rb - 2])) return undefined; // the stock kernel says why
  if (m * n * k === 0) return undefined; // sgemm refuses a leading dimension of 0
  const outer = tf.broadcast_util.assertAndGetBroadcastShape(a.shape.slice(0, -2), b.shape.slice(0, -2));
  const batch = tf.util.sizeFromShape(outer);
  const batchA = tf.util.sizeFromShape(a.shape.slice(0, -2));
  const batchB = tf.util.sizeFromShape(b.shape.slice(0, -2));
  if (batch === 0 || (batchA !== 1 && batchA !== batch) || (batchB !== 1 && batchB !== batch)) {
    return undefined;
  }
  const out = backend.makeOutput([...outer, m, n], "float32");
  // Views are taken after makeOutput: its malloc may grow (and so detach) the heap buffer.
  const av = backend.typedArrayFromHeap(a) as Float32Array;
  const bv = backend.typedArrayFromHeap(b) as Float32Array;
  const cv = backend.typedArrayFromHeap(out) as Float32Array;
  if (batchB === 1 && !transA) {
    // a's batches stacked are one [batch·m, k] matrix (batchA is batch here: both 1 would make batch 1).
    blas.sgemm(false, transB, batch * m, n, k, av, bv, cv);
    return out;
  }
  const sa = batchA === 1 ? 0 : m * k, sb = batchB === 1 ? 0 : k * n;
  for (let i = 0; i < batch; i++) {
    blas.sgemm(
      transA,
      transB,
      m,
      n,
      k,
      av.subarray(i * sa, i * sa + m * k),
      bv.subarray(i * sb, i * sb + k * n),
      cv.subarray(i * m * n, (i + 1) * m * n),
    );
  }
  return out;
}

let wasmPatched = false;

/** Reference-counting view used by `incRef`; present on every tfjs backend. */
interface RefCounted {
  incRef(dataId: tf.DataId): void;
}

/**
 * Replaces the wasm Slice, SplitV and Unpack kernels (SplitV and Unpack call the stock Slice directly,
 * and autodiff uses them for the gradients of concat and stack) with {@link sliceInPlace}, makes
 * Identity share its input instead of copying it, copies GatherV2 and Concat rows in place (once
 * ./kernels.ts is loaded; the stock kernels before), and routes BatchMatMul through the native BLAS that
 * {@link selectBackend} loads (the stock kernel whenever there is none).
 *
 * @example
 * ```ts
 * import { patchWasmSlicing } from "./backend.ts";
 * patchWasmSlicing(); // idempotent; selectBackend("wasm") already calls it
 * ```
 */
export function patchWasmSlicing(): void {
  if (wasmPatched) return;
  wasmPatched = true;
  const replace = (kernelName: string, kernelFunc: tf.KernelFunc, setupFunc?: tf.KernelSetupFunc) => {
    if (tf.getKernel(kernelName, "wasm") !== undefined) tf.unregisterKernel(kernelName, "wasm");
    tf.registerKernel({ kernelName, backendName: "wasm", kernelFunc, setupFunc });
  };
  // The stock kernel stays the fallback, and keeps its setup (binding the wasm function) on init.
  const stockMatMul = tf.getKernel("BatchMatMul", "wasm")!;
  replace("BatchMatMul", (args) => {
    const { a, b } = args.inputs as { a: tf.TensorInfo; b: tf.TensorInfo };
    const { transposeA, transposeB } = args.attrs as { transposeA: boolean; transposeB: boolean };
    return blasBatchMatMul(args.backend as unknown as WasmHeap, a, b, transposeA, transposeB) ??
      stockMatMul.kernelFunc(args);
  }, stockMatMul.setupFunc);
  const stockGather = tf.getKernel("GatherV2", "wasm")!;
  replace("GatherV2", (args) => {
    const { x, indices } = args.inputs as { x: tf.TensorInfo; indices: tf.TensorInfo };
    const { axis, batchDims } = args.attrs as { axis: number; batchDims: number };
    return gatherInPlace(args.backend as unknown as WasmHeap, x, indices, axis, batchDims ?? 0) ??
      stockGather.kernelFunc(args);
  }, stockGather.setupFunc);
  const stockConcat = tf.getKernel("Concat", "wasm")!;
  replace("Concat", (args) => {
    const inputs = args.inputs as unknown as tf.TensorInfo[];
    return concatInPlace(
      args.backend as unknown as WasmHeap,
      inputs,
      (args.attrs as { axis: number }).axis,
    ) ??
      stockConcat.kernelFunc(args);
  }, stockConcat.setupFunc);
  replace("Slice", ({ inputs, attrs, backend }) => {
    const x = inputs.x as tf.TensorInfo;
    const [begin, size] = tf.slice_util.parseSliceParams(
      x as tf.Tensor,
      attrs!.begin as number[],
      attrs!.size as number[],
    );
    return sliceInPlace(backend as unknown as WasmHeap, x, begin, size);
  });
  replace("SplitV", ({ inputs, attrs, backend }) => {
    const x = inputs.x as tf.TensorInfo;
    const axis = tf.util.parseAxisParam(attrs!.axis as number, x.shape)[0];
    const sizes = tf.backend_util.prepareSplitSize(
      x as tf.Tensor,
      attrs!.numOrSizeSplits as number[] | number,
      axis,
    );
    const begin = new Array<number>(x.shape.length).fill(0);
    return sizes.map((s) => {
      const size = x.shape.slice();
      size[axis] = s;
      const part = sliceInPlace(backend as unknown as WasmHeap, x, begin, size);
      begin[axis] += s;
      return part;
    });
  });
  // Identity (tf.clone, and every tensor customGrad saves for backward) copied the data on wasm; share
  // it by reference count instead, as the cpu backend does: no wasm kernel writes into its inputs.
  replace("Identity", ({ inputs, backend }) => {
    const x = inputs.x as tf.TensorInfo;
    (backend as unknown as RefCounted).incRef(x.dataId);
    return { dataId: x.dataId, shape: x.shape, dtype: x.dtype };
  });
  replace("Unpack", ({ inputs, attrs, backend }) => {
    const x = inputs.value as tf.TensorInfo;
    const rank = x.shape.length;
    const axis = ((attrs!.axis as number) + rank) % rank;
    const outShape = x.shape.filter((_, i) => i !== axis);
    const begin = new Array<number>(rank).fill(0);
    const size = x.shape.slice();
    size[axis] = 1;
    return Array.from({ length: x.shape[axis] }, (_, i) => {
      begin[axis] = i;
      const part = sliceInPlace(backend as unknown as WasmHeap, x, begin, size);
      return { dataId: part.dataId, dtype: part.dtype, shape: outShape };
    });
  });
}

async function importOptional(specifiers: string[], hint: string): Promise<void> {
  const errors: string[] = [];
  for (const specifier of specifiers) {
    try {
      await import(specifier);
      return;
    } catch (e) {
      errors.push(`${specifier}: ${(e as Error).message.split("\n")[0]}`);
    }
  }
  throw new Error(`${hint}\n  ${errors.join("\n  ")}`);
}

const TENSORFLOW_HINT = "backend `tensorflow` is not available. It needs libtensorflow through tfjs-node: " +
  "on a CUDA machine run `deno add npm:@tensorflow/tfjs-node-gpu@4.22.0 && deno approve-scripts` (or " +
  "npm:@tensorflow/tfjs-node@4.22.0 for CPU); its install script downloads libtensorflow from " +
  "storage.googleapis.com, so that host must be reachable. Import errors:";
const WEBGPU_HINT = "backend `webgpu` is not available: it needs a WebGPU adapter behind Deno's " +
  "navigator.gpu (a GPU driver, or Mesa's software one: `apt-get install -y --no-install-recommends libegl1 " +
  "libegl-mesa0 libgl1-mesa-dri`)";

/** The adapter of the webgpu backend while it is selected (engineName names it). */
let activeAdapter: AdapterInfo | undefined;

/**
 * The adapter `navigator.gpu` gives (the one tfjs-backend-webgpu asks for, with the same default
 * options), or undefined when there is none.
 */
async function webgpuAdapter(): Promise<AdapterInfo | undefined> {
  const gpu = (navigator as { gpu?: { requestAdapter(): Promise<{ info: AdapterInfo } | null> } }).gpu;
  const adapter = await gpu?.requestAdapter().catch(() => null);
  if (!adapter) return undefined;
  const { vendor, architecture, description } = adapter.info;
  return { vendor, architecture, description };
}

/**
 * Activates a backend and returns what is running. The name defaults to the `TFJS_BACKEND` environment
 * variable, else `wasm`. A backend that cannot load throws: there is no silent fallback to `cpu`.
 *
 * @example
 * ```ts
 * import { selectBackend } from "./backend.ts";
 * const info = await selectBackend(); // prints "tfjs backend: wasm (simd)"
 * console.log(info.backend, info.version);
 * ```
 */
export async function selectBackend(
  name?: BackendName,
  options: { quiet?: boolean } = {},
): Promise<BackendInfo> {
  const requested = name ?? (Deno.env.get("TFJS_BACKEND") as BackendName | undefined) ?? "wasm";
  if (!NAMES.includes(requested)) {
    throw new Error(`unknown backend "${requested}" (TFJS_BACKEND?); expected one of ${NAMES.join(", ")}`);
  }
  if (requested === "tensorflow") {
    // Specifiers are built at run time so the type checker and `deno cache` never try to fetch them.
    const pkg = (suffix: string) => ["npm:@tensorflow/tfjs-node", suffix].join("");
    await importOptional([pkg("-gpu@4.22.0"), pkg("@4.22.0")], TENSORFLOW_HINT);
  }
  let adapter: AdapterInfo | undefined;
  if (requested === "webgpu") {
    adapter = await webgpuAdapter();
    if (!adapter) throw new Error(`${WEBGPU_HINT}; navigator.gpu.requestAdapter() found none`);
    // Registers the backend (once); only runs that ask for webgpu load it.
    await import("@tensorflow/tfjs-backend-webgpu");
  }
  activeAdapter = undefined;
  let blas: ReturnType<typeof loadBlas> | undefined;
  if (requested === "wasm") {
    patchWasmSlicing();
    blas = loadBlas();
  }
  activeBlas = blas && "sgemm" in blas ? blas : undefined;
  const ok = await tf.setBackend(requested);
  if (!ok || tf.getBackend() !== requested) {
    throw new Error(`tf.setBackend("${requested}") failed; the active backend is still "${tf.getBackend()}"`);
  }
  await tf.ready();
  if (requested === "wasm") {
    await loadKernels(activeBlas !== undefined && Deno.env.get(KERNELS_VARIABLE) !== "off");
  }
  if (requested === "cpu") {
    // Its first write prints a banner recommending tfjs-node; the line below already says what runs.
    (tf.backend() as unknown as { firstUse?: boolean }).firstUse = false;
  }
  const info: BackendInfo = { backend: requested, version: tf.version.tfjs };
  if (adapter) {
    info.adapter = adapter;
    activeAdapter = adapter;
  }
  if (requested === "wasm") {
    info.simd = tf.env().getBool("WASM_HAS_SIMD_SUPPORT");
    info.threads = tf.env().getBool("WASM_HAS_MULTITHREAD_SUPPORT") ? navigator.hardwareConcurrency : 1;
    if (activeBlas) {
      info.blas = { library: activeBlas.path, version: activeBlas.version, threads: activeBlas.threads };
      info.fusedKernels = fusedKernels();
    }
  }
  if (!options.quiet) {
    const fused = info.fusedKernels ? ", fused kernels" : "";
    const native = info.blas ? `, matMul in ${blasName(info.blas)}${fused}` : "";
    const on = info.adapter ? ` on ${adapterName(info.adapter)}` : "";
    console.error(`tfjs backend: ${requested}${info.simd ? " (simd)" : ""}${native}${on}`);
    if (blas && !("sgemm" in blas) && blas.reason !== "off" && !toldNoBlas) {
      toldNoBlas = true;
      console.error(
        blas.reason === "absent"
          ? `native matMul off: no OpenBLAS found; install it (${BLAS_INSTALL}) or set ` +
            `${BLAS_VARIABLE}=/path/to/libopenblas.so`
          : `native matMul off: no FFI permission; run with --allow-ffi (or -A) to use the system OpenBLAS`,
      );
    }
  }
  return info;
}

/**
 * The engine computing now, as results record it: the backend, and the BLAS behind its matMul when one
 * is loaded, e.g. `wasm (simd)` or `wasm (simd) + OpenBLAS 0.3.21 (2 threads)`, or the WebGPU adapter,
 * e.g. `webgpu on llvmpipe (LLVM 15.0.6, 256 bits)`. The two wasm engines
 * agree to about 1e-7 relative per product, not bit for bit, so numbers are compared within one engine.
 *
 * @example
 * ```ts
 * import { engineName, selectBackend } from "./backend.ts";
 * await selectBackend("wasm", { quiet: true });
 * console.log(engineName());
 * ```
 */
export function engineName(): string {
  const name = tf.getBackend();
  if (name === "webgpu" && activeAdapter) return `webgpu on ${adapterName(activeAdapter)}`;
  if (name !== "wasm") return name;
  const simd = tf.env().getBool("WASM_HAS_SIMD_SUPPORT") ? " (simd)" : "";
  if (!activeBlas) return `wasm${simd}`;
  return `wasm${simd} + ${blasName(activeBlas)}${fusedKernels() ? " + fused kernels" : ""}`;
}

/** A BLAS as the backend line and results name it: `OpenBLAS 0.3.21 (2 threads)`. */
function blasName({ version, threads }: { version: string; threads: number }): string {
  return `${version.split(" ").slice(0, 2).join(" ")} (${threads} thread${threads === 1 ? "" : "s"})`;
}

/** An adapter as the backend line and results name it: its description, else vendor and architecture. */
function adapterName({ vendor, architecture, description }: AdapterInfo): string {
  return description || [vendor, architecture].filter(Boolean).join(" ") || "an unnamed adapter";
}

/** Whether this isolate already said that the native matMul is off. */
let toldNoBlas = false;
