/**
 * Working buffers for the placers' fast path, kept between calls for each kind of placer; the
 * library's stage code keeps one more set on the same terms (stageScratch.ts), and composites
 * one for their children's scores.
 *
 * A placement of a million items needs about 24 MB of scratch (the keys, a second buffer for
 * the radix passes, the item references). Memory fresh from the operating system is faulted in
 * a page at a time on first touch, and on the project's machine kind that costs more than the
 * sort itself at that size (measured: about 3.7 ms per 8 MB buffer, against 0.3 ms to write
 * one already mapped). A placer that places repeatedly — an agent places on every model call —
 * can reuse the buffers of its last call instead.
 *
 * Buffers are held through `WeakRef`s: between calls the garbage collector may take them back
 * at any time, and the next call then allocates afresh. A placer never holds memory hostage,
 * and the item references it copies are cleared before it returns.
 *
 * One `Scratch` serves each kind of built-in placer, shared by all its instances and layer
 * builds (builtInPlacer.ts). Not one per instance: V8 keeps a `WeakRef`'s target alive until
 * the current job ends, so a loop that builds a layer on every call and never leaves the
 * microtask queue could not let go of any build's buffers, and memory grew by one call's
 * buffers per build. Placement is synchronous, so fibers cannot interleave inside it;
 * {@link guarded} still guards against re-entry (an item getter that places again), which
 * gets buffers of its own.
 *
 * @internal
 */

import type { ContextItem } from "../ContextItem.ts"

/** Where the placers take their working buffers from. */
export interface Scratch {
  /** `n` doubles: the sort keys. */
  readonly keys: (n: number) => Float64Array
  /** `n` doubles: values read alongside the keys (a sort's input kept intact, token counts). */
  readonly doubles: (n: number) => Float64Array
  /** `n` words: the radix passes' second pair buffer (twice the key count), or their output. */
  readonly pairs: (n: number) => Uint32Array
  /** `n` words: input indices (chronological: timed first, untimed last). */
  readonly ids: (n: number) => Uint32Array
  /** `n` words: a second id buffer for keys sorted in several low-word passes. */
  readonly moreIds: (n: number) => Uint32Array
  /** `n` words: the positions a placement writes and reads once. */
  readonly positions: (n: number) => Uint32Array
  /** Room for `n` item references; `release` must be called once they have been read. */
  readonly refs: (n: number) => Array<ContextItem | undefined>
  /** Clears the references handed out by the last `refs`, so that none outlives the call. */
  readonly release: () => void
}

/** Buffers allocated on every call and dropped after it: for the pure functions. */
export const fresh: Scratch = {
  keys: (n) => new Float64Array(n),
  doubles: (n) => new Float64Array(n),
  pairs: (n) => new Uint32Array(n),
  ids: (n) => new Uint32Array(n),
  moreIds: (n) => new Uint32Array(n),
  positions: (n) => new Uint32Array(n),
  refs: (n) => new Array<ContextItem | undefined>(n),
  release: () => {}
}

/**
 * One reusable buffer: a view of the first `n` elements of the kept one when it is large
 * enough and still alive, else a new one (which is kept instead).
 */
const slot = <T extends Float64Array | Uint32Array>(
  allocate: (n: number) => T,
  view: (buffer: T, n: number) => T
) => {
  let kept: WeakRef<T> | undefined
  return (n: number): T => {
    const buffer = kept?.deref()
    if (buffer !== undefined && buffer.length >= n) return view(buffer, n)
    const made = allocate(n)
    kept = new WeakRef(made)
    return made
  }
}

const float64View = (buffer: Float64Array, n: number) => buffer.subarray(0, n)
const uint32View = (buffer: Uint32Array, n: number) => buffer.subarray(0, n)

/**
 * Buffers kept between calls, held weakly. Typed-array buffers need no clearing: every
 * placement writes before it reads.
 */
export const reusable = (): Scratch => {
  let refs: WeakRef<Array<ContextItem | undefined>> | undefined
  let lent: Array<ContextItem | undefined> | undefined
  let lentCount = 0
  return {
    keys: slot((n) => new Float64Array(n), float64View),
    doubles: slot((n) => new Float64Array(n), float64View),
    pairs: slot((n) => new Uint32Array(n), uint32View),
    ids: slot((n) => new Uint32Array(n), uint32View),
    moreIds: slot((n) => new Uint32Array(n), uint32View),
    positions: slot((n) => new Uint32Array(n), uint32View),
    refs: (n) => {
      let array = refs?.deref()
      if (array === undefined || array.length < n) {
        // Filled, not holey: V8 keeps a packed array's elements in their fastest form.
        array = new Array<ContextItem | undefined>(n).fill(undefined)
        refs = new WeakRef(array)
      }
      lent = array
      lentCount = n
      return array
    },
    release: () => {
      lent?.fill(undefined, 0, lentCount)
      lent = undefined
      lentCount = 0
    }
  }
}

/**
 * Runs `f` with `scratch`, or with {@link fresh} buffers when `scratch` is already in use
 * further up the stack (a re-entrant call), so that two placements never share a buffer.
 */
export const guarded = (scratch: Scratch): <A>(f: (scratch: Scratch) => A) => A => {
  let busy = false
  return (f) => {
    if (busy) return f(fresh)
    busy = true
    try {
      return f(scratch)
    } finally {
      // Normally done already; after a throw (an item getter, say) it drops the references.
      scratch.release()
      busy = false
    }
  }
}

/**
 * The output array, `placed[positions[i]] = refs[i]`, then the references released. The array
 * is allocated last, once the sort is done: a young array is scanned slot by slot by every
 * scavenge it lives through, and a million slots cost the collector a millisecond or two.
 */
export const placeFromRefs = (
  refs: ReadonlyArray<ContextItem | undefined>,
  positions: Uint32Array,
  n: number,
  scratch: Scratch
): Array<ContextItem> => {
  const placed = new Array<ContextItem>(n)
  for (let i = 0; i < n; i++) placed[positions[i]!] = refs[i]!
  scratch.release()
  return placed
}
