/**
 * Kernels written in WebAssembly SIMD that run on the tfjs-wasm heap in place, where tfjs's own are slow.
 *
 * With the matrix products in OpenBLAS, a training step of the small policy (16 × 256 tokens) spent about as
 * long again in tfjs's other kernels as in the products: 716 ms a step, 300 of it in the products. Most of
 * the rest was chains of separate passes, each with its own allocation, over the largest tensors, and copies
 * done element by element. Two kinds of kernel replace them:
 * - **Copies** (exact, on every wasm engine, through ./backend.ts): `GatherV2`, `Concat` and the slices by
 *   `memory.copy` per row. The stock gather took 26 ms for an embedding lookup of 4,096 rows.
 * - **Fused numerics** (the native engine only: wasm with a BLAS), forward and backward one pass each:
 *   - the target log-probability, `x_t − x_max + log p_max` from tfjs's softmax (`p_max ≥ 1/V`, so its log is
 *     finite), and its gradient `dy · (onehot − p)` from the kept softmax; the vocabulary is exponentiated once
 *     per step instead of twice;
 *   - the softmax gradient `p ⊙ (dy − Σ p ⊙ dy)` of attention (its forward stays XNNPACK's softmax, which was
 *     faster than a fused one written here: 7.9 against 9.9 ms on `[16, 4, 256, 256]`);
 *   - RMSNorm, SwiGLU, RoPE and one Adam(W) update;
 *   - a decoding step's attention, one call per layer instead of one BLAS call per slice and product
 *     (`decodeAttention`), and the key and value gradients of attention by causal blocks (`addPrefixes`).
 *
 * The step's gradient pass went from 716 to about 370 ms (`tf.profile`); `deno task bench model` times whole
 * steps beside the PyTorch twin. The text below is assembled at start-up by wabt and instantiated on the tfjs-wasm module's own memory. Lanes are summed in a
 * fixed order, so results are deterministic; the fused ones differ from tfjs's in the last bits (within 1e-5,
 * tested), so they belong to the native engine, whose name says so, and the stock engine keeps its numbers.
 * `SWEET_KERNELS=off` leaves them out of the native engine too, for comparisons.
 *
 * @module
 */
import * as tf from "@tensorflow/tfjs";
import wabtInit from "wabt";

/** `SWEET_KERNELS=off` keeps tfjs's own kernels on the native engine. */
export const KERNELS_VARIABLE = "SWEET_KERNELS";

/** A v128 of four equal f32 lanes. */
const splat = (v: number) => `(v128.const f32x4 ${v} ${v} ${v} ${v})`;

/** How a loop body reads and writes: four lanes at a time, or one (lane 0, the others zero). */
interface Lanes {
  load(address: string): string;
  store(address: string, value: string): string;
}
const VECTOR: Lanes = {
  load: (a) => `(v128.load ${a})`,
  store: (a, v) => `(v128.store ${a} ${v})`,
};
const SCALAR: Lanes = {
  load: (a) => `(f32x4.replace_lane 0 (v128.const i32x4 0 0 0 0) (f32.load ${a}))`,
  store: (a, v) => `(f32.store ${a} (f32x4.extract_lane 0 ${v}))`,
};

/** Element `$i` (+ `offset` elements) of the f32 array at local `base`, as a byte address. */
const elt = (base: string, offset = "") =>
  `(i32.add (local.get ${base}) (i32.shl ${
    offset ? `(i32.add (local.get $i) ${offset})` : "(local.get $i)"
  } (i32.const 2)))`;

/**
 * `$i` from 0 over `n` elements: four lanes at a time, then the rest one by one, with the same body (which
 * must keep lanes 1–3 out of any sum: in the one-by-one part they load as zeros).
 */
const lanes = (n: string, body: (l: Lanes) => string) =>
  `(local.set $i (i32.const 0))
    (block $vd (loop $vb
      (br_if $vd (i32.gt_s (i32.add (local.get $i) (i32.const 4)) ${n}))
      ${body(VECTOR)}
      (local.set $i (i32.add (local.get $i) (i32.const 4)))
      (br $vb)))
    (block $sd (loop $sb
      (br_if $sd (i32.ge_s (local.get $i) ${n}))
      ${body(SCALAR)}
      (local.set $i (i32.add (local.get $i) (i32.const 1)))
      (br $sb)))`;

/** Rows `$row` from 0 to `$rows`, advancing each pointer local by its byte stride after each row. */
const rows = (body: string, advance: [string, string][]) =>
  `(local.set $row (i32.const 0))
    (block $rd (loop $rb
      (br_if $rd (i32.ge_s (local.get $row) (local.get $rows)))
      ${body}
      ${advance.map(([p, stride]) => `(local.set ${p} (i32.add (local.get ${p}) ${stride}))`).join(" ")}
      (local.set $row (i32.add (local.get $row) (i32.const 1)))
      (br $rb)))`;

/** The constants of {@link exp}, held in locals (V8 rebuilds a `v128.const` on every use inside a loop). */
const EXP_CONSTANTS: [string, string][] = [
  ["$elo", splat(-87.33)],
  ["$ehi", splat(88)],
  ["$elog2e", splat(1.4426950408889634)],
  ["$eround", splat(12582912)],
  ["$eln2hi", splat(0.693145751953125)],
  ["$eln2lo", splat(1.428606765330187e-6)],
  // 2^k as bits: (k + 1.5·2^23 as float bits) − 0x4b400000 + 127, shifted into the exponent.
  ["$ebias", "(v128.const i32x4 0x4b3fff81 0x4b3fff81 0x4b3fff81 0x4b3fff81)"],
  ...[1 / 5040, 1 / 720, 1 / 120, 1 / 24, 1 / 6, 0.5, 1].map((
    c,
    i,
  ): [string, string] => [`$ec${i}`, splat(c)]),
];
/** The locals {@link exp} uses. */
const EXP_LOCALS =
  "(local $ev v128) (local $ek v128) (local $er v128) (local $ep v128) (local $ekeep v128) " +
  EXP_CONSTANTS.map(([name]) => `(local ${name} v128)`).join(" ");
/** Sets {@link exp}'s constants; once, before the loop. */
const EXP_INIT = EXP_CONSTANTS.map(([name, value]) => `(local.set ${name} ${value})`).join("\n    ");
/**
 * e^v of four lanes, as a value (the function declares {@link EXP_LOCALS} and runs {@link EXP_INIT} first):
 * v = k·ln2 + r with k rounded by adding 1.5·2^23, e^r by a degree-7 Taylor polynomial (|r| ≤ ln2/2), 2^k
 * through the exponent bits; below -87.33 (under float32's smallest normal) the result is 0.
 */
const exp = (v: string) =>
  `(block (result v128)
      (local.set $ev ${v})
      (local.set $ekeep (f32x4.gt (local.get $ev) (local.get $elo)))
      (local.set $ev (f32x4.pmin (f32x4.pmax (local.get $ev) (local.get $elo)) (local.get $ehi)))
      (local.set $ek (f32x4.add (f32x4.mul (local.get $ev) (local.get $elog2e)) (local.get $eround)))
      (local.set $ep (f32x4.sub (local.get $ek) (local.get $eround)))
      (local.set $er (f32x4.sub (f32x4.sub (local.get $ev) (f32x4.mul (local.get $ep) (local.get $eln2hi)))
        (f32x4.mul (local.get $ep) (local.get $eln2lo))))
      (local.set $ek (i32x4.shl (i32x4.sub (local.get $ek) (local.get $ebias)) (i32.const 23)))
      (local.set $ep (f32x4.add (local.get $ec1) (f32x4.mul (local.get $er) (local.get $ec0))))
      ${
    [2, 3, 4, 5, 6, 6].map((i) =>
      `(local.set $ep (f32x4.add (local.get $ec${i}) (f32x4.mul (local.get $er) (local.get $ep))))`
    )
      .join("\n      ")
  }
      (v128.and (local.get $ekeep) (f32x4.mul (local.get $ep) (local.get $ek))))`;
/** The sum of a v128's lanes, ((l0 + l1) + (l2 + l3)). */
const sum4 = (v: string) => `(call $sum4 ${v})`;

/** The kernels' source: pointers are byte offsets into the tfjs heap, counts are elements. */
const WAT = `(module
  (import "env" "memory" (memory 0))
  ;; ((l0 + l1) + (l2 + l3))
  (func $sum4 (param $v v128) (result f32)
    (f32.add (f32.add (f32x4.extract_lane 0 (local.get $v)) (f32x4.extract_lane 1 (local.get $v)))
      (f32.add (f32x4.extract_lane 2 (local.get $v)) (f32x4.extract_lane 3 (local.get $v)))))
  ;; Largest x[i] over n elements.
  (func $rowMax (param $x i32) (param $n i32) (result f32) (local $i i32) (local $v v128) (local $m f32)
    (local.set $v (v128.const f32x4 -inf -inf -inf -inf))
    (block $done (loop $body
      (br_if $done (i32.gt_s (i32.add (local.get $i) (i32.const 4)) (local.get $n)))
      (local.set $v (f32x4.pmax (local.get $v) (v128.load (i32.add (local.get $x) (i32.shl (local.get $i) (i32.const 2))))))
      (local.set $i (i32.add (local.get $i) (i32.const 4)))
      (br $body)))
    (local.set $m (f32.max (f32.max (f32x4.extract_lane 0 (local.get $v)) (f32x4.extract_lane 1 (local.get $v)))
      (f32.max (f32x4.extract_lane 2 (local.get $v)) (f32x4.extract_lane 3 (local.get $v)))))
    (block $done (loop $tail
      (br_if $done (i32.ge_s (local.get $i) (local.get $n)))
      (local.set $m (f32.max (local.get $m) (f32.load (i32.add (local.get $x) (i32.shl (local.get $i) (i32.const 2))))))
      (local.set $i (i32.add (local.get $i) (i32.const 1)))
      (br $tail)))
    (local.get $m))
  ;; The first i with x[i] = m (m from rowMax), scanning from 0.
  (func $firstAt (param $x i32) (param $n i32) (param $m f32) (result i32) (local $i i32)
    (block $done (loop $scan
      (br_if $done (i32.ge_s (local.get $i) (local.get $n)))
      (br_if $done (f32.eq (f32.load (i32.add (local.get $x) (i32.shl (local.get $i) (i32.const 2)))) (local.get $m)))
      (local.set $i (i32.add (local.get $i) (i32.const 1)))
      (br $scan)))
    (local.get $i))
  ;; out[i] = x[i] · s (out may be x).
  (func (export "scale") (param $x i32) (param $out i32) (param $n i32) (param $s f32)
    (local $i i32) (local $o i32) (local $sv v128)
    (local.set $sv (f32x4.splat (local.get $s)))
    (block $done (loop $body
      (br_if $done (i32.gt_s (i32.add (local.get $i) (i32.const 4)) (local.get $n)))
      (local.set $o (i32.shl (local.get $i) (i32.const 2)))
      (v128.store (i32.add (local.get $out) (local.get $o))
        (f32x4.mul (v128.load (i32.add (local.get $x) (local.get $o))) (local.get $sv)))
      (local.set $i (i32.add (local.get $i) (i32.const 4)))
      (br $body)))
    (block $done (loop $tail
      (br_if $done (i32.ge_s (local.get $i) (local.get $n)))
      (local.set $o (i32.shl (local.get $i) (i32.const 2)))
      (f32.store (i32.add (local.get $out) (local.get $o))
        (f32.mul (f32.load (i32.add (local.get $x) (local.get $o))) (local.get $s)))
      (local.set $i (i32.add (local.get $i) (i32.const 1)))
      (br $tail))))
  ;; out[r] = the index of the first largest entry of row r of x, as i32.
  (func (export "argMaxRows") (param $x i32) (param $out i32) (param $rows i32) (param $n i32)
    (local $r i32) (local $row i32)
    (block $done (loop $each
      (br_if $done (i32.ge_s (local.get $r) (local.get $rows)))
      (local.set $row (i32.add (local.get $x) (i32.shl (i32.mul (local.get $r) (local.get $n)) (i32.const 2))))
      (i32.store (i32.add (local.get $out) (i32.shl (local.get $r) (i32.const 2)))
        (call $firstAt (local.get $row) (local.get $n) (call $rowMax (local.get $row) (local.get $n))))
      (local.set $r (i32.add (local.get $r) (i32.const 1)))
      (br $each))))
  ;; rows runs of bytes bytes from src to dst, each side advancing by its own stride.
  (func (export "copyRows") (param $src i32) (param $srcStride i32) (param $dst i32) (param $dstStride i32)
    (param $rows i32) (param $bytes i32) (local $r i32)
    (block $done (loop $each
      (br_if $done (i32.ge_s (local.get $r) (local.get $rows)))
      (memory.copy (local.get $dst) (local.get $src) (local.get $bytes))
      (local.set $src (i32.add (local.get $src) (local.get $srcStride)))
      (local.set $dst (i32.add (local.get $dst) (local.get $dstStride)))
      (local.set $r (i32.add (local.get $r) (i32.const 1)))
      (br $each))))
  ;; dst row i = src row idx[i] (rows of bytes bytes; idx holds count i32 row numbers).
  (func (export "gatherRows") (param $src i32) (param $idx i32) (param $dst i32) (param $count i32) (param $bytes i32)
    (local $i i32)
    (block $done (loop $each
      (br_if $done (i32.ge_s (local.get $i) (local.get $count)))
      (memory.copy (i32.add (local.get $dst) (i32.mul (local.get $i) (local.get $bytes)))
        (i32.add (local.get $src) (i32.mul (i32.load (i32.add (local.get $idx) (i32.shl (local.get $i) (i32.const 2))))
          (local.get $bytes)))
        (local.get $bytes))
      (local.set $i (i32.add (local.get $i) (i32.const 1)))
      (br $each))))
  ;; RMSNorm of rows of d: out = (x · r) · g with r = 1/√(mean(x²) + eps), r kept in rinv.
  (func (export "rmsNorm") (param $x i32) (param $g i32) (param $out i32) (param $rinv i32) (param $rows i32)
    (param $d i32) (param $eps f32) (local $row i32) (local $i i32) (local $acc v128) (local $rv v128) (local $s f32)
    ${
  rows(
    `(local.set $acc (v128.const i32x4 0 0 0 0))
      ${
      lanes(
        "(local.get $d)",
        (l) =>
          `(local.set $acc (f32x4.add (local.get $acc) (f32x4.mul ${l.load(elt("$x"))} ${
            l.load(elt("$x"))
          })))`,
      )
    }
      (local.set $s (f32.div (f32.const 1) (f32.sqrt (f32.add (f32.div ${
      sum4("(local.get $acc)")
    } (f32.convert_i32_s (local.get $d)))
        (local.get $eps)))))
      (f32.store (i32.add (local.get $rinv) (i32.shl (local.get $row) (i32.const 2))) (local.get $s))
      (local.set $rv (f32x4.splat (local.get $s)))
      ${
      lanes("(local.get $d)", (l) =>
        l.store(
          elt("$out"),
          `(f32x4.mul (f32x4.mul ${l.load(elt("$x"))} (local.get $rv)) ${l.load(elt("$g"))})`,
        ))
    }`,
    [["$x", "(i32.shl (local.get $d) (i32.const 2))"], ["$out", "(i32.shl (local.get $d) (i32.const 2))"]],
  )
})
  ;; Its gradient: dx = r·(dy·g − x·r²·Σ(dy·g·x)/d), dg = Σ over rows of dy·x·r.
  (func (export "rmsNormGrad") (param $x i32) (param $g i32) (param $rinv i32) (param $dy i32) (param $dx i32)
    (param $dg i32) (param $rows i32) (param $d i32)
    (local $row i32) (local $i i32) (local $acc v128) (local $rv v128) (local $cv v128) (local $s f32)
    ${lanes("(local.get $d)", (l) => l.store(elt("$dg"), "(v128.const i32x4 0 0 0 0)"))}
    ${
  rows(
    `(local.set $s (f32.load (i32.add (local.get $rinv) (i32.shl (local.get $row) (i32.const 2)))))
      (local.set $acc (v128.const i32x4 0 0 0 0))
      ${
      lanes("(local.get $d)", (l) =>
        `(local.set $acc (f32x4.add (local.get $acc)
        (f32x4.mul (f32x4.mul ${l.load(elt("$dy"))} ${l.load(elt("$g"))}) ${l.load(elt("$x"))})))`)
    }
      (local.set $rv (f32x4.splat (local.get $s)))
      (local.set $cv (f32x4.splat (f32.div (f32.mul (f32.mul (local.get $s) (local.get $s)) ${
      sum4("(local.get $acc)")
    })
        (f32.convert_i32_s (local.get $d)))))
      ${
      lanes("(local.get $d)", (l) =>
        `${
          l.store(
            elt("$dx"),
            `(f32x4.mul (local.get $rv) (f32x4.sub
          (f32x4.mul ${l.load(elt("$dy"))} ${l.load(elt("$g"))}) (f32x4.mul ${
              l.load(elt("$x"))
            } (local.get $cv))))`,
          )
        }
        ${
          l.store(
            elt("$dg"),
            `(f32x4.add ${l.load(elt("$dg"))} (f32x4.mul (f32x4.mul ${l.load(elt("$dy"))} ${
              l.load(elt("$x"))
            }) (local.get $rv)))`,
          )
        }`)
    }`,
    [["$x", "(i32.shl (local.get $d) (i32.const 2))"], ["$dy", "(i32.shl (local.get $d) (i32.const 2))"], [
      "$dx",
      "(i32.shl (local.get $d) (i32.const 2))",
    ]],
  )
})
  ;; SwiGLU of rows [gate | up] of 2f: out = (gate · s) · up with s = sigmoid(gate), s kept in sig.
  (func (export "swiglu") (param $gu i32) (param $out i32) (param $sig i32) (param $rows i32) (param $f i32)
    (local $row i32) (local $i i32) (local $v v128) (local $s v128) (local $one v128) ${EXP_LOCALS}
    ${EXP_INIT}
    (local.set $one ${splat(1)})
    ${
  rows(
    lanes("(local.get $f)", (l) =>
      `(local.set $v ${l.load(elt("$gu"))})
        (local.set $s (f32x4.div (local.get $one) (f32x4.add (local.get $one) ${
        exp("(f32x4.neg (local.get $v))")
      })))
        ${l.store(elt("$sig"), "(local.get $s)")}
        ${
        l.store(
          elt("$out"),
          `(f32x4.mul (f32x4.mul (local.get $v) (local.get $s)) ${l.load(elt("$gu", "(local.get $f)"))})`,
        )
      }`),
    [["$gu", "(i32.shl (local.get $f) (i32.const 3))"], ["$out", "(i32.shl (local.get $f) (i32.const 2))"], [
      "$sig",
      "(i32.shl (local.get $f) (i32.const 2))",
    ]],
  )
})
  ;; Its gradient: d gate = dy·up·s·(1 + gate·(1 − s)), d up = dy·gate·s.
  (func (export "swigluGrad") (param $gu i32) (param $sig i32) (param $dy i32) (param $dgu i32) (param $rows i32)
    (param $f i32) (local $row i32) (local $i i32) (local $v v128) (local $s v128) (local $d v128)
    ${
  rows(
    lanes("(local.get $f)", (l) =>
      `(local.set $v ${l.load(elt("$gu"))})
        (local.set $s ${l.load(elt("$sig"))})
        (local.set $d ${l.load(elt("$dy"))})
        ${
        l.store(
          elt("$dgu"),
          `(f32x4.mul (f32x4.mul (f32x4.mul (local.get $d) ${
            l.load(elt("$gu", "(local.get $f)"))
          }) (local.get $s))
          (f32x4.add ${splat(1)} (f32x4.mul (local.get $v) (f32x4.sub ${splat(1)} (local.get $s)))))`,
        )
      }
        ${
        l.store(
          elt("$dgu", "(local.get $f)"),
          "(f32x4.mul (f32x4.mul (local.get $d) (local.get $v)) (local.get $s))",
        )
      }`),
    [["$gu", "(i32.shl (local.get $f) (i32.const 3))"], ["$dgu", "(i32.shl (local.get $f) (i32.const 3))"], [
      "$sig",
      "(i32.shl (local.get $f) (i32.const 2))",
    ], ["$dy", "(i32.shl (local.get $f) (i32.const 2))"]],
  )
})
  ;; RoPE ("rotate half") of n tokens × heads × dh: y = x·cos + rotate(x)·sin, rotate(x) = [−x₂, x₁];
  ;; cos and sin hold one dh row per token. With back = 1, the gradient: dx = dy·cos + rotateᵀ(dy·sin).
  (func (export "rope") (param $x i32) (param $cos i32) (param $sin i32) (param $y i32) (param $rows i32)
    (param $heads i32) (param $half i32) (param $back i32)
    (local $row i32) (local $h i32) (local $i i32) (local $a v128) (local $b v128)
    ${
  rows(
    `(local.set $h (i32.const 0))
      (block $hd (loop $hb
        (br_if $hd (i32.ge_s (local.get $h) (local.get $heads)))
        ${
      lanes("(local.get $half)", (l) =>
        `(local.set $a ${l.load(elt("$x"))})
          (local.set $b ${l.load(elt("$x", "(local.get $half)"))})
          (if (local.get $back) (then
            ${
          l.store(
            elt("$y"),
            `(f32x4.add (f32x4.mul (local.get $a) ${l.load(elt("$cos"))})
              (f32x4.mul (local.get $b) ${l.load(elt("$sin", "(local.get $half)"))}))`,
          )
        }
            ${
          l.store(
            elt("$y", "(local.get $half)"),
            `(f32x4.sub (f32x4.mul (local.get $b) ${l.load(elt("$cos", "(local.get $half)"))})
              (f32x4.mul (local.get $a) ${l.load(elt("$sin"))}))`,
          )
        })
          (else
            ${
          l.store(
            elt("$y"),
            `(f32x4.sub (f32x4.mul (local.get $a) ${l.load(elt("$cos"))})
              (f32x4.mul (local.get $b) ${l.load(elt("$sin"))}))`,
          )
        }
            ${
          l.store(
            elt("$y", "(local.get $half)"),
            `(f32x4.add (f32x4.mul (local.get $b) ${l.load(elt("$cos", "(local.get $half)"))})
              (f32x4.mul (local.get $a) ${l.load(elt("$sin", "(local.get $half)"))}))`,
          )
        }))`)
    }
        (local.set $x (i32.add (local.get $x) (i32.shl (local.get $half) (i32.const 3))))
        (local.set $y (i32.add (local.get $y) (i32.shl (local.get $half) (i32.const 3))))
        (local.set $h (i32.add (local.get $h) (i32.const 1)))
        (br $hb)))`,
    [["$cos", "(i32.shl (local.get $half) (i32.const 3))"], [
      "$sin",
      "(i32.shl (local.get $half) (i32.const 3))",
    ]],
  )
})
  ;; One Adam(W) update of n parameters: m' = β₁m + (1−β₁)g, v' = β₂v + (1−β₂)g², and
  ;; p' = p·decay − lr·(m'/c₁)/(√(v'/c₂) + eps), in tfjs's order of operations.
  (func (export "adam") (param $p i32) (param $g i32) (param $m i32) (param $v i32) (param $po i32) (param $mo i32)
    (param $vo i32) (param $n i32) (param $b1 f32) (param $b2 f32) (param $c1 f32) (param $c2 f32) (param $eps f32)
    (param $lr f32) (param $decay f32)
    (local $i i32) (local $gv v128) (local $mv v128) (local $vv v128)
    ${
  lanes("(local.get $n)", (l) =>
    `(local.set $gv ${l.load(elt("$g"))})
      (local.set $mv (f32x4.add (f32x4.mul ${l.load(elt("$m"))} (f32x4.splat (local.get $b1)))
        (f32x4.mul (local.get $gv) (f32x4.splat (f32.sub (f32.const 1) (local.get $b1))))))
      (local.set $vv (f32x4.add (f32x4.mul ${l.load(elt("$v"))} (f32x4.splat (local.get $b2)))
        (f32x4.mul (f32x4.mul (local.get $gv) (local.get $gv)) (f32x4.splat (f32.sub (f32.const 1) (local.get $b2))))))
      ${l.store(elt("$mo"), "(local.get $mv)")}
      ${l.store(elt("$vo"), "(local.get $vv)")}
      ${
      l.store(
        elt("$po"),
        `(f32x4.sub (f32x4.mul ${l.load(elt("$p"))} (f32x4.splat (local.get $decay)))
        (f32x4.mul (f32x4.div (f32x4.div (local.get $mv) (f32x4.splat (local.get $c1)))
          (f32x4.add (f32x4.sqrt (f32x4.div (local.get $vv) (f32x4.splat (local.get $c2)))) (f32x4.splat (local.get $eps))))
          (f32x4.splat (local.get $lr))))`,
      )
    }`)
})
  ;; Softmax gradient of rows: out = p ⊙ (dy - Σ p ⊙ dy).
  ;; The dot products of q with rows k, k + dh, k + 2dh, k + 3dh (dh floats each, a multiple of 4), as
  ;; one vector: four running sums, then a 4 × 4 transpose by shuffles adds each row's lanes.
  (func $dot4 (param $q i32) (param $k i32) (param $dh i32) (result v128)
    (local $d i32) (local $o i32) (local $b i32) (local $qv v128)
    (local $a0 v128) (local $a1 v128) (local $a2 v128) (local $a3 v128)
    (local.set $b (i32.shl (local.get $dh) (i32.const 2)))
    (block $dd (loop $db
      (br_if $dd (i32.ge_s (local.get $d) (local.get $dh)))
      (local.set $o (i32.add (local.get $k) (i32.shl (local.get $d) (i32.const 2))))
      (local.set $qv (v128.load (i32.add (local.get $q) (i32.shl (local.get $d) (i32.const 2)))))
      (local.set $a0 (f32x4.add (local.get $a0) (f32x4.mul (local.get $qv) (v128.load (local.get $o)))))
      (local.set $o (i32.add (local.get $o) (local.get $b)))
      (local.set $a1 (f32x4.add (local.get $a1) (f32x4.mul (local.get $qv) (v128.load (local.get $o)))))
      (local.set $o (i32.add (local.get $o) (local.get $b)))
      (local.set $a2 (f32x4.add (local.get $a2) (f32x4.mul (local.get $qv) (v128.load (local.get $o)))))
      (local.set $o (i32.add (local.get $o) (local.get $b)))
      (local.set $a3 (f32x4.add (local.get $a3) (f32x4.mul (local.get $qv) (v128.load (local.get $o)))))
      (local.set $d (i32.add (local.get $d) (i32.const 4)))
      (br $db)))
    ;; [a0₀+a0₂, a1₀+a1₂, a0₁+a0₃, a1₁+a1₃] and the same of a2, a3; then lanes (0 + 2, 1 + 3) of each.
    (local.set $a0 (f32x4.add
      (i8x16.shuffle 0 1 2 3 16 17 18 19 4 5 6 7 20 21 22 23 (local.get $a0) (local.get $a1))
      (i8x16.shuffle 8 9 10 11 24 25 26 27 12 13 14 15 28 29 30 31 (local.get $a0) (local.get $a1))))
    (local.set $a2 (f32x4.add
      (i8x16.shuffle 0 1 2 3 16 17 18 19 4 5 6 7 20 21 22 23 (local.get $a2) (local.get $a3))
      (i8x16.shuffle 8 9 10 11 24 25 26 27 12 13 14 15 28 29 30 31 (local.get $a2) (local.get $a3))))
    (f32x4.add
      (i8x16.shuffle 0 1 2 3 4 5 6 7 16 17 18 19 20 21 22 23 (local.get $a0) (local.get $a2))
      (i8x16.shuffle 8 9 10 11 12 13 14 15 24 25 26 27 28 29 30 31 (local.get $a0) (local.get $a2))))
  ;; s[t] = q · k[t] + bias[t] for t < n; k holds n rows of dh floats (dh a multiple of 4). Four rows at a
  ;; time, then the rest one by one.
  (func $dotRows (param $q i32) (param $k i32) (param $bias i32) (param $s i32) (param $n i32) (param $dh i32)
    (local $t i32) (local $d i32) (local $acc v128)
    (block $done (loop $each
      (br_if $done (i32.gt_s (i32.add (local.get $t) (i32.const 4)) (local.get $n)))
      (v128.store (local.get $s) (f32x4.add (call $dot4 (local.get $q) (local.get $k) (local.get $dh))
        (v128.load (local.get $bias))))
      (local.set $k (i32.add (local.get $k) (i32.shl (local.get $dh) (i32.const 4))))
      (local.set $s (i32.add (local.get $s) (i32.const 16)))
      (local.set $bias (i32.add (local.get $bias) (i32.const 16)))
      (local.set $t (i32.add (local.get $t) (i32.const 4)))
      (br $each)))
    (block $done (loop $each
      (br_if $done (i32.ge_s (local.get $t) (local.get $n)))
      (local.set $acc (v128.const i32x4 0 0 0 0))
      (local.set $d (i32.const 0))
      (block $dd (loop $db
        (br_if $dd (i32.ge_s (local.get $d) (local.get $dh)))
        (local.set $acc (f32x4.add (local.get $acc) (f32x4.mul
          (v128.load (i32.add (local.get $q) (i32.shl (local.get $d) (i32.const 2))))
          (v128.load (i32.add (local.get $k) (i32.shl (local.get $d) (i32.const 2)))))))
        (local.set $d (i32.add (local.get $d) (i32.const 4)))
        (br $db)))
      (f32.store (local.get $s) (f32.add (call $sum4 (local.get $acc)) (f32.load (local.get $bias))))
      (local.set $k (i32.add (local.get $k) (i32.shl (local.get $dh) (i32.const 2))))
      (local.set $s (i32.add (local.get $s) (i32.const 4)))
      (local.set $bias (i32.add (local.get $bias) (i32.const 4)))
      (local.set $t (i32.add (local.get $t) (i32.const 1)))
      (br $each))))
  ;; out[d] += p[t] · v[t][d] for t < n, d < dh (dh a multiple of 4), t ascending: four rows a pass over out,
  ;; then the rest one by one.
  (func $mixRows (param $p i32) (param $v i32) (param $out i32) (param $n i32) (param $dh i32)
    (local $t i32) (local $d i32) (local $b i32) (local $o i32) (local $x i32) (local $acc v128)
    (local $p0 v128) (local $p1 v128) (local $p2 v128) (local $p3 v128)
    (local.set $b (i32.shl (local.get $dh) (i32.const 2)))
    (block $done (loop $each
      (br_if $done (i32.gt_s (i32.add (local.get $t) (i32.const 4)) (local.get $n)))
      (local.set $p0 (f32x4.splat (f32.load (local.get $p))))
      (local.set $p1 (f32x4.splat (f32.load offset=4 (local.get $p))))
      (local.set $p2 (f32x4.splat (f32.load offset=8 (local.get $p))))
      (local.set $p3 (f32x4.splat (f32.load offset=12 (local.get $p))))
      (local.set $d (i32.const 0))
      (block $dd (loop $db
        (br_if $dd (i32.ge_s (local.get $d) (local.get $dh)))
        (local.set $o (i32.add (local.get $out) (i32.shl (local.get $d) (i32.const 2))))
        (local.set $x (i32.add (local.get $v) (i32.shl (local.get $d) (i32.const 2))))
        (local.set $acc (f32x4.add (v128.load (local.get $o)) (f32x4.mul (local.get $p0) (v128.load (local.get $x)))))
        (local.set $x (i32.add (local.get $x) (local.get $b)))
        (local.set $acc (f32x4.add (local.get $acc) (f32x4.mul (local.get $p1) (v128.load (local.get $x)))))
        (local.set $x (i32.add (local.get $x) (local.get $b)))
        (local.set $acc (f32x4.add (local.get $acc) (f32x4.mul (local.get $p2) (v128.load (local.get $x)))))
        (local.set $x (i32.add (local.get $x) (local.get $b)))
        (v128.store (local.get $o) (f32x4.add (local.get $acc) (f32x4.mul (local.get $p3) (v128.load (local.get $x)))))
        (local.set $d (i32.add (local.get $d) (i32.const 4)))
        (br $db)))
      (local.set $v (i32.add (local.get $v) (i32.shl (local.get $b) (i32.const 2))))
      (local.set $p (i32.add (local.get $p) (i32.const 16)))
      (local.set $t (i32.add (local.get $t) (i32.const 4)))
      (br $each)))
    (block $done (loop $each
      (br_if $done (i32.ge_s (local.get $t) (local.get $n)))
      (local.set $p0 (f32x4.splat (f32.load (local.get $p))))
      (local.set $d (i32.const 0))
      (block $dd (loop $db
        (br_if $dd (i32.ge_s (local.get $d) (local.get $dh)))
        (local.set $o (i32.add (local.get $out) (i32.shl (local.get $d) (i32.const 2))))
        (v128.store (local.get $o) (f32x4.add (v128.load (local.get $o)) (f32x4.mul (local.get $p0)
          (v128.load (i32.add (local.get $v) (i32.shl (local.get $d) (i32.const 2)))))))
        (local.set $d (i32.add (local.get $d) (i32.const 4)))
        (br $db)))
      (local.set $v (i32.add (local.get $v) (local.get $b)))
      (local.set $p (i32.add (local.get $p) (i32.const 4)))
      (local.set $t (i32.add (local.get $t) (i32.const 1)))
      (br $each))))
  ;; One query row per (batch · head) slice g < groups against its keys and values in two blocks (a KV
  ;; cache's bulk of nb keys and its tail of nt): out[g] = softmax(q[g] · kᵀ + bias[row]) · v, bias row
  ;; g / heads of biasRows (1: shared), s a scratch of nb + nt floats. The scores are written once and
  ;; exponentiated in place; keys and values are read once each, but for the bulk's leading masked keys.
  (func (export "decodeAttention") (param $q i32) (param $kb i32) (param $vb i32) (param $nb i32)
    (param $kt i32) (param $vt i32) (param $nt i32) (param $bias i32) (param $biasRows i32) (param $heads i32)
    (param $out i32) (param $s i32) (param $groups i32) (param $dh i32)
    (local $g i32) (local $i i32) (local $n i32) (local $row i32) (local $m f32) (local $mv v128)
    (local $acc v128) (local $tail f32) (local $inv v128) (local $o i32) (local $bytes i32)
    (local $skip i32) (local $most i32) (local $nb2 i32) (local $n2 i32)
    ${EXP_LOCALS}
    ${EXP_INIT}
    (local.set $n (i32.add (local.get $nb) (local.get $nt)))
    (local.set $bytes (i32.shl (local.get $dh) (i32.const 2)))
    (block $gd (loop $gb
      (br_if $gd (i32.ge_s (local.get $g) (local.get $groups)))
      (local.set $row (select (i32.div_u (local.get $g) (local.get $heads)) (i32.const 0)
        (i32.gt_s (local.get $biasRows) (i32.const 1))))
      (local.set $row (i32.add (local.get $bias) (i32.shl (i32.mul (local.get $row) (local.get $n)) (i32.const 2))))
      ;; Leading masked keys of the bulk (a row's left padding) are skipped: they would add exact zeros. One
      ;; key at least is kept.
      (local.set $most (select (local.get $nb) (i32.sub (local.get $nb) (i32.const 1)) (local.get $nt)))
      (local.set $skip (i32.const 0))
      (block $kd (loop $kl
        (br_if $kd (i32.ge_s (local.get $skip) (local.get $most)))
        (br_if $kd (f32.gt (f32.load (i32.add (local.get $row) (i32.shl (local.get $skip) (i32.const 2))))
          (f32.const -1e8)))
        (local.set $skip (i32.add (local.get $skip) (i32.const 1)))
        (br $kl)))
      (local.set $nb2 (i32.sub (local.get $nb) (local.get $skip)))
      (local.set $n2 (i32.sub (local.get $n) (local.get $skip)))
      (call $dotRows (local.get $q) (i32.add (local.get $kb) (i32.mul (local.get $skip) (local.get $bytes)))
        (i32.add (local.get $row) (i32.shl (local.get $skip) (i32.const 2))) (local.get $s) (local.get $nb2)
        (local.get $dh))
      (call $dotRows (local.get $q) (local.get $kt) (i32.add (local.get $row) (i32.shl (local.get $nb) (i32.const 2)))
        (i32.add (local.get $s) (i32.shl (local.get $nb2) (i32.const 2))) (local.get $nt) (local.get $dh))
      (local.set $m (call $rowMax (local.get $s) (local.get $n2)))
      (local.set $mv (f32x4.splat (local.get $m)))
      ;; p = exp(s − m) in place, summed four lanes at a time, then the rest one by one.
      (local.set $acc (v128.const i32x4 0 0 0 0))
      (local.set $tail (f32.const 0))
      (local.set $i (i32.const 0))
      (block $ed (loop $eb
        (br_if $ed (i32.gt_s (i32.add (local.get $i) (i32.const 4)) (local.get $n2)))
        (local.set $o ${elt("$s")})
        (v128.store (local.get $o) ${exp("(f32x4.sub (v128.load (local.get $o)) (local.get $mv))")})
        (local.set $acc (f32x4.add (local.get $acc) (v128.load (local.get $o))))
        (local.set $i (i32.add (local.get $i) (i32.const 4)))
        (br $eb)))
      (block $td (loop $tb
        (br_if $td (i32.ge_s (local.get $i) (local.get $n2)))
        (local.set $o ${elt("$s")})
        (f32.store (local.get $o) (f32x4.extract_lane 0
          ${exp("(f32x4.splat (f32.sub (f32.load (local.get $o)) (local.get $m)))")}))
        (local.set $tail (f32.add (local.get $tail) (f32.load (local.get $o))))
        (local.set $i (i32.add (local.get $i) (i32.const 1)))
        (br $tb)))
      (local.set $inv (f32x4.splat (f32.div (f32.const 1) (f32.add (call $sum4 (local.get $acc)) (local.get $tail)))))
      ;; out[g] = (Σ p[t] v[t]) / Σ p.
      (memory.fill (local.get $out) (i32.const 0) (local.get $bytes))
      (call $mixRows (local.get $s) (i32.add (local.get $vb) (i32.mul (local.get $skip) (local.get $bytes)))
        (local.get $out) (local.get $nb2) (local.get $dh))
      (call $mixRows (i32.add (local.get $s) (i32.shl (local.get $nb2) (i32.const 2))) (local.get $vt) (local.get $out)
        (local.get $nt) (local.get $dh))
      (local.set $i (i32.const 0))
      (block $sd (loop $sb
        (br_if $sd (i32.ge_s (local.get $i) (local.get $dh)))
        (local.set $o ${elt("$out")})
        (v128.store (local.get $o) (f32x4.mul (v128.load (local.get $o)) (local.get $inv)))
        (local.set $i (i32.add (local.get $i) (i32.const 4)))
        (br $sb)))
      (local.set $q (i32.add (local.get $q) (local.get $bytes)))
      (local.set $out (i32.add (local.get $out) (local.get $bytes)))
      (local.set $kb (i32.add (local.get $kb) (i32.mul (local.get $nb) (local.get $bytes))))
      (local.set $vb (i32.add (local.get $vb) (i32.mul (local.get $nb) (local.get $bytes))))
      (local.set $kt (i32.add (local.get $kt) (i32.mul (local.get $nt) (local.get $bytes))))
      (local.set $vt (i32.add (local.get $vt) (i32.mul (local.get $nt) (local.get $bytes))))
      (local.set $g (i32.add (local.get $g) (i32.const 1)))
      (br $gb))))
  ;; dst[i] += src[i] over n elements.
  (func (export "addInto") (param $src i32) (param $dst i32) (param $n i32) (local $i i32)
    ${
  lanes("(local.get $n)", (l) =>
    l.store(elt("$dst"), `(f32x4.add ${l.load(elt("$dst"))} ${l.load(elt("$src"))})`))
})
  (func (export "softmaxGrad") (param $p i32) (param $dy i32) (param $out i32) (param $rows i32) (param $n i32)
    (local $r i32) (local $i i32) (local $o i32) (local $acc v128) (local $tail f32) (local $dot f32) (local $dv v128)
    (block $done (loop $row
      (br_if $done (i32.ge_s (local.get $r) (local.get $rows)))
      (local.set $acc (v128.const i32x4 0 0 0 0))
      (local.set $tail (f32.const 0))
      (local.set $i (i32.const 0))
      (block $d1 (loop $body
        (br_if $d1 (i32.gt_s (i32.add (local.get $i) (i32.const 4)) (local.get $n)))
        (local.set $o (i32.shl (local.get $i) (i32.const 2)))
        (local.set $acc (f32x4.add (local.get $acc) (f32x4.mul (v128.load (i32.add (local.get $p) (local.get $o)))
          (v128.load (i32.add (local.get $dy) (local.get $o))))))
        (local.set $i (i32.add (local.get $i) (i32.const 4)))
        (br $body)))
      (block $d2 (loop $t
        (br_if $d2 (i32.ge_s (local.get $i) (local.get $n)))
        (local.set $o (i32.shl (local.get $i) (i32.const 2)))
        (local.set $tail (f32.add (local.get $tail) (f32.mul (f32.load (i32.add (local.get $p) (local.get $o)))
          (f32.load (i32.add (local.get $dy) (local.get $o))))))
        (local.set $i (i32.add (local.get $i) (i32.const 1)))
        (br $t)))
      (local.set $dot (f32.add (call $sum4 (local.get $acc)) (local.get $tail)))
      (local.set $dv (f32x4.splat (local.get $dot)))
      (local.set $i (i32.const 0))
      (block $d3 (loop $body
        (br_if $d3 (i32.gt_s (i32.add (local.get $i) (i32.const 4)) (local.get $n)))
        (local.set $o (i32.shl (local.get $i) (i32.const 2)))
        (v128.store (i32.add (local.get $out) (local.get $o)) (f32x4.mul (v128.load (i32.add (local.get $p) (local.get $o)))
          (f32x4.sub (v128.load (i32.add (local.get $dy) (local.get $o))) (local.get $dv))))
        (local.set $i (i32.add (local.get $i) (i32.const 4)))
        (br $body)))
      (block $d4 (loop $t
        (br_if $d4 (i32.ge_s (local.get $i) (local.get $n)))
        (local.set $o (i32.shl (local.get $i) (i32.const 2)))
        (f32.store (i32.add (local.get $out) (local.get $o)) (f32.mul (f32.load (i32.add (local.get $p) (local.get $o)))
          (f32.sub (f32.load (i32.add (local.get $dy) (local.get $o))) (local.get $dot))))
        (local.set $i (i32.add (local.get $i) (i32.const 1)))
        (br $t)))
      (local.set $p (i32.add (local.get $p) (i32.shl (local.get $n) (i32.const 2))))
      (local.set $dy (i32.add (local.get $dy) (i32.shl (local.get $n) (i32.const 2))))
      (local.set $out (i32.add (local.get $out) (i32.shl (local.get $n) (i32.const 2))))
      (local.set $r (i32.add (local.get $r) (i32.const 1)))
      (br $row))))
)`;

/** The assembled kernels' exports. */
interface Exports {
  rope(
    x: number,
    cos: number,
    sin: number,
    y: number,
    rows: number,
    heads: number,
    half: number,
    back: number,
  ): void;
  adam(
    p: number,
    g: number,
    m: number,
    v: number,
    po: number,
    mo: number,
    vo: number,
    n: number,
    b1: number,
    b2: number,
    c1: number,
    c2: number,
    eps: number,
    lr: number,
    decay: number,
  ): void;
  rmsNorm(x: number, g: number, out: number, rinv: number, rows: number, d: number, eps: number): void;
  rmsNormGrad(
    x: number,
    g: number,
    rinv: number,
    dy: number,
    dx: number,
    dg: number,
    rows: number,
    d: number,
  ): void;
  swiglu(gu: number, out: number, sig: number, rows: number, f: number): void;
  swigluGrad(gu: number, sig: number, dy: number, dgu: number, rows: number, f: number): void;
  copyRows(src: number, srcStride: number, dst: number, dstStride: number, rows: number, bytes: number): void;
  gatherRows(src: number, idx: number, dst: number, count: number, bytes: number): void;
  scale(x: number, out: number, n: number, s: number): void;
  argMaxRows(x: number, out: number, rows: number, n: number): void;
  softmaxGrad(p: number, dy: number, out: number, rows: number, n: number): void;
  addInto(src: number, dst: number, n: number): void;
  decodeAttention(
    q: number,
    kb: number,
    vb: number,
    nb: number,
    kt: number,
    vt: number,
    nt: number,
    bias: number,
    biasRows: number,
    heads: number,
    out: number,
    s: number,
    groups: number,
    dh: number,
  ): void;
}

/** Minimal view of the wasm backend's heap helpers (not part of tfjs's public typings); ./backend.ts's too. */
export interface WasmHeap {
  makeOutput(shape: number[], dtype: tf.DataType): tf.TensorInfo;
  typedArrayFromHeap(t: tf.TensorInfo): Float32Array | Int32Array | Uint8Array;
  disposeData(dataId: tf.DataId): boolean;
  wasm: { asm: { memory: WebAssembly.Memory } };
}

/** The assembled module, and the tfjs-wasm memory it was instantiated on. */
let loaded: { exports: Exports; memory: WebAssembly.Memory } | undefined;
/** Whether the numeric kernels are on (the copies are exact and always on once loaded). */
let fusedOn = false;

/** The kernels, when they are loaded on the active backend's memory. */
function current(): Exports | undefined {
  if (!loaded || tf.getBackend() !== "wasm") return undefined;
  return (tf.backend() as unknown as WasmHeap).wasm.asm.memory === loaded.memory ? loaded.exports : undefined;
}

/**
 * Whether the fused numeric kernels are active: on the native engine (wasm with a BLAS, see
 * `selectBackend`), unless `SWEET_KERNELS=off`.
 *
 * @example
 * ```ts
 * import { fusedKernels } from "./kernels.ts";
 * console.log(fusedKernels()); // false until selectBackend has loaded a BLAS
 * ```
 */
export function fusedKernels(): boolean {
  return fusedOn && current() !== undefined;
}

/**
 * The exact copy kernels (rows copied by `memory.copy`, bit for bit what tfjs's own kernels produce), for
 * the wasm slicing, gather and concat kernels of ./backend.ts; undefined until loaded on the active backend.
 *
 * @example
 * ```ts
 * import { copyKernels } from "./kernels.ts";
 * console.log(copyKernels() === undefined); // true before selectBackend("wasm")
 * ```
 */
export function copyKernels(): Pick<Exports, "copyRows" | "gatherRows"> | undefined {
  return current();
}

/** Byte offset of a tensor in the heap (taken after every makeOutput: a malloc may move the views). */
function at(backend: WasmHeap, t: tf.TensorInfo): number {
  return backend.typedArrayFromHeap(t).byteOffset;
}

/**
 * Assembles the kernels on the active wasm backend's memory (once per backend) and registers them with
 * tfjs; `fused` turns the numeric ones on or off. `selectBackend` calls it for wasm, with `fused` on when a
 * BLAS is loaded.
 *
 * @example
 * ```ts
 * import { fusedKernels, loadKernels } from "./kernels.ts";
 * import { selectBackend } from "./backend.ts";
 * await selectBackend("wasm", { quiet: true });
 * await loadKernels(false);
 * console.log(fusedKernels()); // false
 * ```
 */
export async function loadKernels(fused: boolean): Promise<void> {
  fusedOn = fused;
  if (current() || tf.getBackend() !== "wasm") return;
  const memory = (tf.backend() as unknown as WasmHeap).wasm.asm.memory;
  const wabt = await wabtInit();
  const module = wabt.parseWat("kernels.wat", WAT, { simd: true, bulk_memory: true });
  let binary: Uint8Array<ArrayBuffer>;
  try {
    binary = new Uint8Array(module.toBinary({}).buffer);
  } finally {
    module.destroy();
  }
  const instance = await WebAssembly.instantiate(new WebAssembly.Module(binary), { env: { memory } });
  loaded = { exports: instance.exports as unknown as Exports, memory };
  register();
}

let registered = false;

/** Registers the kernels under their tfjs names (they call whichever instance is current). */
function register(): void {
  if (registered) return;
  registered = true;
  const kernel = (
    kernelName: string,
    kernelFunc: (
      b: WasmHeap,
      inputs: Record<string, tf.TensorInfo>,
      attrs: tf.NamedAttrMap,
    ) => tf.TensorInfo | tf.TensorInfo[],
  ) =>
    tf.registerKernel({
      kernelName,
      backendName: "wasm",
      kernelFunc: ({ inputs, backend, attrs }) =>
        kernelFunc(backend as unknown as WasmHeap, inputs as Record<string, tf.TensorInfo>, attrs ?? {}),
    });
  // [y, rinv]: RMSNorm of the rows of x [N, D] with gain g [D].
  kernel("SweetRmsNorm", (b, { x, g }, attrs) => {
    const [n, d] = x.shape;
    const y = b.makeOutput([n, d], "float32"), rinv = b.makeOutput([n], "float32");
    if (n * d > 0) current()!.rmsNorm(at(b, x), at(b, g), at(b, y), at(b, rinv), n, d, attrs.eps as number);
    return [y, rinv];
  });
  // [dx, dg].
  kernel("SweetRmsNormGrad", (b, { x, g, rinv, dy }) => {
    const [n, d] = x.shape;
    const dx = b.makeOutput([n, d], "float32"), dg = b.makeOutput([d], "float32");
    if (d > 0) current()!.rmsNormGrad(at(b, x), at(b, g), at(b, rinv), at(b, dy), at(b, dx), at(b, dg), n, d);
    return [dx, dg];
  });
  // [out, sig]: silu(gate) · up of rows [gate | up] of gu [N, 2F].
  kernel("SweetSwiglu", (b, { gu }) => {
    const [n, f] = [gu.shape[0], gu.shape[1] / 2];
    const out = b.makeOutput([n, f], "float32"), sig = b.makeOutput([n, f], "float32");
    if (n * f > 0) current()!.swiglu(at(b, gu), at(b, out), at(b, sig), n, f);
    return [out, sig];
  });
  kernel("SweetSwigluGrad", (b, { gu, sig, dy }) => {
    const [n, f] = [gu.shape[0], gu.shape[1] / 2];
    const dgu = b.makeOutput([n, 2 * f], "float32");
    if (n * f > 0) current()!.swigluGrad(at(b, gu), at(b, sig), at(b, dy), at(b, dgu), n, f);
    return dgu;
  });
  // RoPE of x [N, D] (D = heads · dh) with cos, sin [N, 1, dh]; back = 1 for its gradient (x is then dy).
  kernel("SweetRope", (b, { x, cos, sin }, attrs) => {
    const [n, d] = x.shape, dh = cos.shape[2];
    const y = b.makeOutput([n, d], "float32");
    if (n * d > 0) {
      current()!.rope(at(b, x), at(b, cos), at(b, sin), at(b, y), n, d / dh, dh / 2, attrs.back ? 1 : 0);
    }
    return y;
  });
  // [p', m', v'] of one Adam(W) step.
  kernel("SweetAdam", (b, { p, g, m, v }, a) => {
    const outs = [p, m, v].map((t) => b.makeOutput(t.shape, "float32"));
    const n = tf.util.sizeFromShape(p.shape);
    const [po, mo, vo] = outs.map((t) => at(b, t));
    const f = (k: string) => a[k] as number;
    if (n > 0) {
      current()!.adam(
        at(b, p),
        at(b, g),
        at(b, m),
        at(b, v),
        po,
        mo,
        vo,
        n,
        f("b1"),
        f("b2"),
        f("c1"),
        f("c2"),
        f("eps"),
        f("lr"),
        f("decay"),
      );
    }
    return outs;
  });
  // out [G, 1, dh]: one query row per slice against the keys and values of kb/vb [G, nb, dh] then kt/vt.
  kernel("SweetDecodeAttention", (b, { q, kb, vb, kt, vt, bias }, attrs) => {
    const [g, , dh] = q.shape, nb = kb.shape[1], nt = kt ? kt.shape[1] : 0;
    const out = b.makeOutput([g, 1, dh], "float32");
    const scratch = b.makeOutput([nb + nt], "float32");
    current()!.decodeAttention(
      at(b, q),
      at(b, kb),
      at(b, vb),
      nb,
      kt ? at(b, kt) : 0,
      vt ? at(b, vt) : 0,
      nt,
      at(b, bias),
      bias.shape[0],
      attrs.heads as number,
      at(b, out),
      at(b, scratch),
      g,
      dh,
    );
    b.disposeData(scratch.dataId);
    return out;
  });
  // out [G, rows, D] = the sum of the parts x0, x1, … ([G, r_j, D], r_j ≤ rows), each zero-extended past r_j.
  kernel("SweetAddPrefixes", (b, parts, attrs) => {
    const xs = Object.keys(parts).sort((x, y) => Number(x.slice(1)) - Number(y.slice(1))).map((n) =>
      parts[n]
    );
    const [g, , d] = xs[0].shape, rows = attrs.rows as number;
    const out = b.makeOutput([g, rows, d], "float32");
    (b.typedArrayFromHeap(out) as Float32Array).fill(0);
    const k = current()!, o0 = at(b, out);
    for (const x of xs) {
      const r = x.shape[1], x0 = at(b, x);
      for (let i = 0; i < g; i++) k.addInto(x0 + 4 * i * r * d, o0 + 4 * i * rows * d, r * d);
    }
    return out;
  });
  // dx = p ⊙ (dy − rowsum(p ⊙ dy)).
  kernel("SweetSoftmaxGrad", (b, { p, dy }) => {
    const out = b.makeOutput(p.shape, "float32");
    const n = p.shape[p.shape.length - 1];
    const rows = tf.util.sizeFromShape(p.shape) / n;
    if (rows * n > 0) current()!.softmaxGrad(at(b, p), at(b, dy), at(b, out), rows, n);
    return out;
  });
  // value[r] = log p[r, t_r] computed as x[r, t_r] − x[r, max_r] + log p[r, max_r], p = softmax(x).
  kernel("SweetTargetLogProbs", (b, { x, probs, targets }) => {
    const [rows, n] = x.shape;
    const value = b.makeOutput([rows], "float32");
    const argmax = b.makeOutput([rows], "int32");
    if (rows * n > 0) {
      current()!.argMaxRows(at(b, x), at(b, argmax), rows, n);
      const xs = b.typedArrayFromHeap(x) as Float32Array;
      const ps = b.typedArrayFromHeap(probs) as Float32Array;
      const ts = b.typedArrayFromHeap(targets) as Int32Array;
      const ms = b.typedArrayFromHeap(argmax) as Int32Array;
      const vs = b.typedArrayFromHeap(value) as Float32Array;
      for (let r = 0; r < rows; r++) {
        const top = r * n + ms[r];
        vs[r] = xs[r * n + ts[r]] - xs[top] + Math.log(ps[top]);
      }
    }
    b.disposeData(argmax.dataId);
    return value;
  });
  // dx = dy ⊙ (onehot(targets) − probs).
  kernel("SweetTargetLogProbsGrad", (b, { probs, targets, dy }) => {
    const [rows, n] = probs.shape;
    const out = b.makeOutput([rows, n], "float32");
    if (rows * n === 0) return out;
    const p0 = at(b, probs), o0 = at(b, out);
    const ds = b.typedArrayFromHeap(dy) as Float32Array;
    const k = current()!;
    for (let r = 0; r < rows; r++) k.scale(p0 + 4 * r * n, o0 + 4 * r * n, n, -ds[r]);
    const os = b.typedArrayFromHeap(out) as Float32Array;
    const ts = b.typedArrayFromHeap(targets) as Int32Array;
    for (let r = 0; r < rows; r++) os[r * n + ts[r]] += ds[r];
    return out;
  });
}

/**
 * `softmax(x)` over the last axis, whose gradient is one fused pass ({@link fusedKernels} must be true).
 *
 * @example
 * ```ts
 * import * as tf from "@tensorflow/tfjs";
 * import { fusedKernels, softmax } from "./kernels.ts";
 * if (fusedKernels()) softmax(tf.zeros([2, 3]));
 * ```
 */
export function softmax<T extends tf.Tensor>(x: T): T {
  const f = tf.customGrad((...args: (tf.Tensor | tf.GradSaveFunc)[]) => {
    const [xi, save] = args as [tf.Tensor, tf.GradSaveFunc];
    const p = tf.softmax(xi);
    save([p]);
    return {
      value: p,
      gradFunc: (dy: tf.Tensor, [ps]: tf.Tensor[]) =>
        tf.engine().runKernel("SweetSoftmaxGrad", { p: ps, dy }) as tf.Tensor,
    };
  });
  return f(x) as T;
}

/**
 * Attention of one query row per slice (a decoding step): `softmax(q kᵀ + bias) v` for `q` `[G, 1, dh]`
 * (`G = batch × heads`, already scaled), keys and values in one or two blocks (a KV cache's bulk, then its
 * tail) and `bias` `[batch or 1, 1, keys]`, in one call per layer: the batched products made one BLAS call
 * per slice and product (768 a step at 16 rows), and the scores went through bias, join, softmax and split
 * kernels in between. Each slice's scores are written once, and a row's leading masked keys (its left
 * padding) are skipped. No gradient: decoding only ({@link fusedKernels} must be true, `dh` a multiple of 4).
 *
 * @example
 * ```ts
 * import * as tf from "@tensorflow/tfjs";
 * import { decodeAttention, fusedKernels } from "./kernels.ts";
 * const kv = tf.ones([2, 5, 4]) as tf.Tensor3D;
 * if (fusedKernels()) decodeAttention(tf.ones([2, 1, 4]) as tf.Tensor3D, [{ k: kv, v: kv }], tf.zeros([1, 1, 5]) as tf.Tensor3D, 2);
 * ```
 */
export function decodeAttention(
  q: tf.Tensor3D,
  blocks: readonly { k: tf.Tensor3D; v: tf.Tensor3D }[],
  bias: tf.Tensor3D,
  heads: number,
): tf.Tensor3D {
  const [g, rows, dh] = q.shape;
  const keys = blocks.reduce((n, b) => n + b.k.shape[1], 0);
  if (rows !== 1 || dh % 4 !== 0 || blocks.length < 1 || blocks.length > 2) {
    throw new Error(
      `decodeAttention: needs one query row, dh a multiple of 4 and 1–2 blocks (q [${q.shape}])`,
    );
  }
  if (bias.shape[1] !== 1 || bias.shape[2] !== keys || (bias.shape[0] !== 1 && bias.shape[0] * heads !== g)) {
    throw new Error(`decodeAttention: bias [${bias.shape}] does not fit ${g / heads} rows × ${keys} keys`);
  }
  const [first, second] = blocks;
  const inputs: Record<string, tf.Tensor> = { q, kb: first.k, vb: first.v, bias };
  if (second) Object.assign(inputs, { kt: second.k, vt: second.v });
  return tf.engine().runKernel("SweetDecodeAttention", inputs, { heads }) as tf.Tensor3D;
}

/**
 * The sum of `parts` (`[G, r_j, D]` each, `r_j ≤ rows`), each zero-extended to `[G, rows, D]`, in one pass
 * (the gradient of keys that blocks of queries read in leading slices; {@link fusedKernels} must be true).
 * Parts are added in their order, each into zeros where it is the first.
 *
 * @example
 * ```ts
 * import * as tf from "@tensorflow/tfjs";
 * import { addPrefixes, fusedKernels } from "./kernels.ts";
 * if (fusedKernels()) addPrefixes([tf.ones([2, 1, 3]), tf.ones([2, 4, 3])] as tf.Tensor3D[], 4); // [2, 4, 3]
 * ```
 */
export function addPrefixes(parts: readonly tf.Tensor3D[], rows: number): tf.Tensor3D {
  const [g, , d] = parts[0].shape;
  for (const p of parts) {
    if (p.shape[0] !== g || p.shape[2] !== d || p.shape[1] > rows) {
      throw new Error(`addPrefixes: part [${p.shape}] does not fit [${g}, ${rows}, ${d}]`);
    }
  }
  const inputs = Object.fromEntries(parts.map((p, i) => [`x${i}`, p]));
  return tf.engine().runKernel("SweetAddPrefixes", inputs, { rows }) as tf.Tensor3D;
}

/**
 * Log-probabilities of `targets` under `softmax(logits)`, row by row, with the gradient
 * `dy · (onehot − softmax)` from the softmax the forward pass kept ({@link fusedKernels} must be true).
 *
 * @example
 * ```ts
 * import * as tf from "@tensorflow/tfjs";
 * import { fusedKernels, targetLogProbs } from "./kernels.ts";
 * if (fusedKernels()) targetLogProbs(tf.zeros([2, 4]) as tf.Tensor2D, Int32Array.from([1, 3])); // log(1/4)
 * ```
 */
export function targetLogProbs(logits: tf.Tensor2D, targets: Int32Array): tf.Tensor1D {
  const f = tf.customGrad((...args: (tf.Tensor | tf.GradSaveFunc)[]) => {
    const [x, save] = args as [tf.Tensor2D, tf.GradSaveFunc];
    const t = tf.tensor1d(targets, "int32");
    const probs = tf.softmax(x);
    const value = tf.engine().runKernel("SweetTargetLogProbs", { x, probs, targets: t }) as tf.Tensor1D;
    save([probs, t]);
    return {
      value,
      gradFunc: (dy: tf.Tensor, [ps, ts]: tf.Tensor[]) =>
        tf.engine().runKernel("SweetTargetLogProbsGrad", { probs: ps, targets: ts, dy }) as tf.Tensor,
    };
  });
  return f(logits) as tf.Tensor1D;
}

/**
 * RMSNorm of the rows of `x` with gain `gain`, `(x / √(mean(x²) + eps)) · gain`, forward and backward each
 * one pass ({@link fusedKernels} must be true).
 *
 * @example
 * ```ts
 * import * as tf from "@tensorflow/tfjs";
 * import { fusedKernels, rmsNorm } from "./kernels.ts";
 * if (fusedKernels()) rmsNorm(tf.ones([2, 4]) as tf.Tensor2D, tf.ones([4]) as tf.Tensor1D, 1e-5); // ≈ 1
 * ```
 */
export function rmsNorm(x: tf.Tensor2D, gain: tf.Tensor1D, eps: number): tf.Tensor2D {
  const f = tf.customGrad((...args: (tf.Tensor | tf.GradSaveFunc)[]) => {
    const [xi, gi, save] = args as [tf.Tensor2D, tf.Tensor1D, tf.GradSaveFunc];
    const [y, rinv] = tf.engine().runKernel("SweetRmsNorm", { x: xi, g: gi }, { eps }) as tf.Tensor[];
    save([xi, gi, rinv]);
    return {
      value: y as tf.Tensor2D,
      gradFunc: (dy: tf.Tensor, [xs, gs, rs]: tf.Tensor[]) =>
        tf.engine().runKernel("SweetRmsNormGrad", { x: xs, g: gs, rinv: rs, dy }) as tf.Tensor[],
    };
  });
  return f(x, gain) as tf.Tensor2D;
}

/**
 * SiLU-gated linear unit on a fused `[N, 2F]` projection (gate half first), `silu(gate) · up`, forward and
 * backward each one pass ({@link fusedKernels} must be true).
 *
 * @example
 * ```ts
 * import * as tf from "@tensorflow/tfjs";
 * import { fusedKernels, swiglu } from "./kernels.ts";
 * if (fusedKernels()) swiglu(tf.ones([2, 8]) as tf.Tensor2D); // [2, 4]
 * ```
 */
export function swiglu(gateUp: tf.Tensor2D): tf.Tensor2D {
  const f = tf.customGrad((...args: (tf.Tensor | tf.GradSaveFunc)[]) => {
    const [gu, save] = args as [tf.Tensor2D, tf.GradSaveFunc];
    const [out, sig] = tf.engine().runKernel("SweetSwiglu", { gu }) as tf.Tensor[];
    save([gu, sig]);
    return {
      value: out as tf.Tensor2D,
      gradFunc: (dy: tf.Tensor, [gs, ss]: tf.Tensor[]) =>
        tf.engine().runKernel("SweetSwigluGrad", { gu: gs, sig: ss, dy }) as tf.Tensor,
    };
  });
  return f(gateUp) as tf.Tensor2D;
}

/**
 * RoPE ("rotate half") of `[N, heads · dh]` queries or keys, `x·cos + rotate_half(x)·sin` per head, with
 * `cos`, `sin` `[N, 1, dh]`; forward and backward each one pass ({@link fusedKernels} must be true).
 *
 * @example
 * ```ts
 * import * as tf from "@tensorflow/tfjs";
 * import { fusedKernels, rope } from "./kernels.ts";
 * const [cos, sin] = [tf.ones([2, 1, 4]) as tf.Tensor3D, tf.zeros([2, 1, 4]) as tf.Tensor3D];
 * if (fusedKernels()) rope(tf.ones([2, 8]) as tf.Tensor2D, cos, sin); // position 0: unchanged
 * ```
 */
export function rope(x: tf.Tensor2D, cos: tf.Tensor3D, sin: tf.Tensor3D): tf.Tensor2D {
  const f = tf.customGrad((...args: (tf.Tensor | tf.GradSaveFunc)[]) => {
    const [xi, save] = args as [tf.Tensor2D, tf.GradSaveFunc];
    save([cos, sin]); // the forward pass's tensors are freed before the backward one runs
    return {
      value: tf.engine().runKernel("SweetRope", { x: xi, cos, sin }, { back: false }) as tf.Tensor2D,
      gradFunc: (dy: tf.Tensor, [c, s]: tf.Tensor[]) =>
        tf.engine().runKernel("SweetRope", { x: dy, cos: c, sin: s }, { back: true }) as tf.Tensor,
    };
  });
  return f(x) as tf.Tensor2D;
}

/** Settings of one {@link adamStep}. */
export interface AdamStepOptions {
  beta1: number;
  beta2: number;
  /** Bias corrections 1 − β₁ᵗ and 1 − β₂ᵗ. */
  c1: number;
  c2: number;
  eps: number;
  lr: number;
  /** The parameter's factor before the update: 1 − lr · weight decay, or 1. */
  decay: number;
}

/**
 * One Adam(W) update of a parameter in one pass: the new parameter and moments, for the caller to assign
 * ({@link fusedKernels} must be true).
 *
 * @example
 * ```ts
 * import * as tf from "@tensorflow/tfjs";
 * import { adamStep, fusedKernels } from "./kernels.ts";
 * const [p, g, m, v] = [tf.ones([4]), tf.ones([4]), tf.zeros([4]), tf.zeros([4])];
 * const o = { beta1: 0.9, beta2: 0.95, c1: 0.1, c2: 0.05, eps: 1e-8, lr: 0.1, decay: 1 };
 * if (fusedKernels()) adamStep(p, g, m, v, o); // p: 0.9
 * ```
 */
export function adamStep(
  p: tf.Tensor,
  g: tf.Tensor,
  m: tf.Tensor,
  v: tf.Tensor,
  o: AdamStepOptions,
): tf.Tensor[] {
  return tf.engine().runKernel("SweetAdam", { p, g, m, v }, {
    b1: o.beta1,
    b2: o.beta2,
    c1: o.c1,
    c2: o.c2,
    eps: o.eps,
    lr: o.lr,
    decay: o.decay,
  }) as tf.Tensor[];
}
