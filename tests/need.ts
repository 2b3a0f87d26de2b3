/**
 * Tests that need something outside the kit (a Jupyter client, the system OpenBLAS, …). On a machine
 * that lacks it such a test is skipped, never failed: its name says what it needs and the one-line
 * install command, and it is recorded for the test command's closing summary (`tasks/test.ts`). With
 * `SWEET_REQUIRE_ALL=1` (set by `.ci/run`) a missing need fails the test instead, so CI always runs
 * everything.
 */

import { BLAS_INSTALL, BLAS_VARIABLE, loadBlas } from "../lib/nn/blas.ts";

/** Something a test needs that the kit does not install. */
export interface Need {
  /** What it is, e.g. `a Jupyter client (jupyter nbconvert)`. */
  what: string;
  /** The one-line install command. */
  install: string;
  /** Whether this machine has it. */
  present(): boolean;
}

/** Whether `command` is an executable file on `PATH`. */
function onPath(command: string): boolean {
  return (Deno.env.get("PATH") ?? "").split(":").some((dir) => {
    try {
      const stat = Deno.statSync(`${dir || "."}/${command}`);
      return stat.isFile && ((stat.mode ?? 0o111) & 0o111) !== 0;
    } catch {
      return false;
    }
  });
}

/** Jupyter's own client, which executes the notebooks on the Deno kernel. */
export const JUPYTER: Need = {
  what: "a Jupyter client (jupyter nbconvert)",
  install:
    "apt-get install -y --no-install-recommends jupyter-nbconvert jupyter-core  # or: pip install nbconvert",
  present: () => onPath("jupyter") && onPath("jupyter-nbconvert"),
};

/** The system OpenBLAS, which the wasm backend's native matMul calls through FFI (lib/nn/blas.ts). */
export const BLAS: Need = {
  what: "the system OpenBLAS (libopenblas.so.0)",
  install: `${BLAS_INSTALL}  # or: SWEET_BLAS=/path/to/libopenblas.so`,
  present: () => {
    // Whether one can be loaded, even when this run turned it off (the tests turn it on and off).
    const named = Deno.env.get(BLAS_VARIABLE);
    if (named?.trim() === "off") Deno.env.delete(BLAS_VARIABLE);
    try {
      return "sgemm" in loadBlas();
    } catch {
      return false;
    } finally {
      if (named !== undefined) Deno.env.set(BLAS_VARIABLE, named);
    }
  },
};

/**
 * The Debian packages that give Deno's `navigator.gpu` Mesa's software adapter (llvmpipe through EGL,
 * which is what the parity tests were verified on); a machine with a GPU driver needs nothing.
 */
export const WEBGPU_INSTALL =
  "apt-get install -y --no-install-recommends libegl1 libegl-mesa0 libgl1-mesa-dri  # or mesa-vulkan-drivers";

/** Whether `navigator.gpu` gave an adapter; set by {@link probeWebGpu}. */
let webgpuAdapter: string | undefined | null;

/**
 * Asks `navigator.gpu` for an adapter once (it is asynchronous, so {@link WEBGPU}'s `present` cannot) and
 * returns {@link WEBGPU}: `testNeeding(await probeWebGpu(), …)`.
 */
export async function probeWebGpu(): Promise<Need> {
  if (webgpuAdapter === undefined) {
    const gpu =
      (navigator as { gpu?: { requestAdapter(): Promise<{ info: { description: string } } | null> } })
        .gpu;
    const adapter = await gpu?.requestAdapter().catch(() => null);
    webgpuAdapter = adapter ? adapter.info.description || "an unnamed adapter" : null;
  }
  return WEBGPU;
}

/** The adapter {@link probeWebGpu} found (its description), or undefined. */
export function webgpuAdapterName(): string | undefined {
  return webgpuAdapter ?? undefined;
}

/** A WebGPU adapter behind Deno's `navigator.gpu` (a GPU, or Mesa's software one), for the webgpu backend. */
export const WEBGPU: Need = {
  what: "a WebGPU adapter (navigator.gpu)",
  install: WEBGPU_INSTALL,
  present: () => {
    if (webgpuAdapter === undefined) throw new Error("WEBGPU.present(): await probeWebGpu() first");
    return webgpuAdapter !== null;
  },
};

/** A skipped test as the summary lists it. */
export interface Skip {
  test: string;
  what: string;
  install: string;
}

/** Where `tasks/test.ts` collects skips (one JSON line each), when it runs the tests. */
export const SKIPS_FILE_VARIABLE = "SWEET_TEST_SKIPS";

/**
 * `Deno.test(definition)` when `need` is present; otherwise a skipped test (or, under
 * `SWEET_REQUIRE_ALL=1`, a failing one) that names the need and its install command.
 */
export function testNeeding(need: Need, definition: Deno.TestDefinition): void {
  if (need.present()) return Deno.test(definition);
  const why = `needs ${need.what}; install: ${need.install}`;
  if (Deno.env.get("SWEET_REQUIRE_ALL") === "1") {
    return Deno.test({
      ...definition,
      fn: () => {
        throw new Error(`SWEET_REQUIRE_ALL=1 and this machine lacks what the test ${why}`);
      },
    });
  }
  const file = Deno.env.get(SKIPS_FILE_VARIABLE);
  if (file) {
    const skip: Skip = { test: definition.name, what: need.what, install: need.install };
    Deno.writeTextFileSync(file, JSON.stringify(skip) + "\n", { append: true });
  }
  Deno.test({ ...definition, name: `${definition.name} [skipped: ${why}]`, ignore: true });
}
