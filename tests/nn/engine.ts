/**
 * Runs test code on the wasm backend with the native BLAS matMul (lib/nn/blas.ts) on or off, for tests
 * that compare the two engines or hold each to its own guarantee.
 *
 * @module
 */
import { type BackendInfo, selectBackend } from "../../lib/nn/backend.ts";
import { BLAS_VARIABLE } from "../../lib/nn/blas.ts";

/** The engines a wasm test can run on: the stock kernels, and the native BLAS when this machine has one. */
export async function wasmEngines(): Promise<boolean[]> {
  return (await onWasm(true, (info) => info.blas !== undefined).catch(() => false)) ? [false, true] : [false];
}

/**
 * `f` on the wasm backend with the native BLAS on (`SWEET_BLAS` unset; throws if none loads) or off
 * (`SWEET_BLAS=off`); `SWEET_BLAS` and the engine the test file selected are restored afterwards.
 */
export async function onWasm<T>(blas: boolean, f: (info: BackendInfo) => T | Promise<T>): Promise<T> {
  const before = Deno.env.get(BLAS_VARIABLE);
  if (blas) Deno.env.delete(BLAS_VARIABLE);
  else Deno.env.set(BLAS_VARIABLE, "off");
  try {
    const info = await selectBackend("wasm", { quiet: true });
    if ((info.blas !== undefined) !== blas) {
      throw new Error(`the native BLAS did not turn ${blas ? "on" : "off"}`);
    }
    return await f(info);
  } finally {
    if (before === undefined) Deno.env.delete(BLAS_VARIABLE);
    else Deno.env.set(BLAS_VARIABLE, before);
    await selectBackend("wasm", { quiet: true });
  }
}
