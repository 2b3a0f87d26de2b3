/**
 * Progress lines with rate and ETA for long work: redrawn in place on a terminal and in a notebook (whose
 * stream output honours carriage returns), printed at most every few seconds otherwise (logs, CI), always
 * on stderr so stdout stays clean for results.
 *
 * @module
 */
import { jupyter } from "./jupyter.ts";

function clock(seconds: number): string {
  if (!Number.isFinite(seconds)) return "?";
  const s = Math.round(seconds);
  const h = Math.floor(s / 3600);
  const m = Math.floor((s % 3600) / 60);
  const pad = (x: number) => String(x).padStart(2, "0");
  return h > 0 ? `${h}:${pad(m)}:${pad(s % 60)}` : `${m}:${pad(s % 60)}`;
}

/**
 * A progress reporter.
 *
 * @example
 * ```ts
 * import { Progress } from "./progress.ts";
 * const progress = new Progress("episodes", 100);
 * for (let i = 1; i <= 100; i++) progress.update(i);
 * progress.done();
 * ```
 */
export class Progress {
  readonly #start = performance.now();
  #lastPrint = -Infinity;
  #current = 0;
  #printed = -1;
  readonly #tty = Deno.stderr.isTerminal();
  readonly #inPlace = this.#tty || jupyter() !== undefined;
  readonly #encoder = new TextEncoder();

  /** @param intervalMs minimum time between lines when not on a terminal. */
  constructor(readonly label: string, readonly total: number, readonly intervalMs = 5000) {}

  /** The text of the current line. */
  line(): string {
    const elapsed = (performance.now() - this.#start) / 1000;
    const rate = this.#current / Math.max(elapsed, 1e-9);
    const eta = (this.total - this.#current) / rate;
    return `${this.label} ${this.#current}/${this.total} (${rate.toFixed(1)}/s, ${
      clock(elapsed)
    } elapsed, ETA ${clock(eta)})`;
  }

  /** Records progress and redraws when due. */
  update(current: number): void {
    this.#current = current;
    const now = performance.now();
    if (now - this.#lastPrint < (this.#tty ? 100 : this.#inPlace ? 1000 : this.intervalMs)) return;
    this.#lastPrint = now;
    this.#printed = current;
    this.#write(this.#inPlace ? `\r${this.line()}${this.#tty ? "\x1b[K" : ""}` : `${this.line()}\n`);
  }

  /** Prints the final line. */
  done(): void {
    if (!this.#inPlace && this.#printed === this.#current) return;
    this.#write(this.#inPlace ? `\r${this.line()}${this.#tty ? "\x1b[K" : ""}\n` : `${this.line()}\n`);
  }

  #write(text: string): void {
    Deno.stderr.writeSync(this.#encoder.encode(text));
  }
}
