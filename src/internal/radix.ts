/**
 * A stable LSD radix sort of indices by IEEE-754 double keys: the placers' fast path.
 *
 * A comparator sort makes O(n log n) calls into JavaScript; this makes a few sequential passes
 * over typed arrays. Each double's bit pattern is rewritten so that unsigned integer order is
 * numeric order (complemented for a descending sort), and only the bits that differ between
 * keys are sorted on: scores such as `k / 2^32` share their sign, most of their exponent and
 * their low mantissa bits, timestamps from one decade share all but about 30 bits, and a pass
 * over a digit that is the same in every key would only copy. Whole numbers close together,
 * such as timestamps in milliseconds, skip the bit rewriting: each is its distance from the
 * smallest ({@link sortWholeNumbers}).
 *
 * Buffers come from the caller's {@link Scratch} (fresh on every call, or kept by a placer
 * instance between calls): the keys (8 bytes each, reused in place as `[key, id]` pairs), one
 * more buffer of that size, the output (which may reuse the spare one); keys wider than a word
 * sorted in several low-word passes also need two id buffers. Only the digit counts, a few
 * kilobytes, and the two extreme values' keys are allocated here.
 *
 * NaN must not reach it (Place refuses NaN scores): its bit patterns sort above +Infinity,
 * where a comparison sort would put NaN anywhere, so the two paths could disagree.
 *
 * @internal
 */
import type { Scratch } from "./scratch.ts"

// The two 32-bit halves of a double, as a Uint32Array view over a Float64Array sees them.
const littleEndian = new Uint8Array(new Uint16Array([1]).buffer)[0] === 1
/** Where the low half of double `j` sits in a `Uint32Array` view: at `2j + LO`. */
export const LO = littleEndian ? 0 : 1
/** Where the high half of double `j` sits in a `Uint32Array` view: at `2j + HI`. */
export const HI = 1 - LO

/**
 * Sort keys: key `j` is held in `words[2j]` (low half) and `words[2j+1]` (high half) as an
 * unsigned 64-bit integer whose order is the wanted order of the doubles it was made from.
 */
export interface Keys {
  readonly words: Uint32Array
  /** The bits in which some key differs from key 0. */
  readonly variesLo: number
  readonly variesHi: number
  /** The smallest key. */
  readonly minLo: number
  readonly minHi: number
  /**
   * The largest key minus the smallest. Keys minus the smallest fit in the bits of that span,
   * which may be far fewer than the bits that vary: a week of timestamps may cross a multiple of
   * a large power of two, where a carry flips many high bits.
   */
  readonly spanLo: number
  readonly spanHi: number
}

/**
 * Rewrites the doubles `values[0 … count-1]` in place into keys.
 *
 * Positive doubles order like their bit patterns with the sign bit turned on; negative ones
 * like their complemented bit patterns. `-0` becomes `+0` first, so the two tie as they do as
 * numbers. For a descending sort every key is complemented. ±Infinity order as the extremes
 * they are. NaN must not occur: it has no place in an order (Place refuses it).
 *
 * The chronological placer converts here, in a pass of its own, when its timestamps cannot be
 * sorted as whole numbers ({@link sortWholeNumbers}); the U-shaped placer converts while it
 * reads the scores (see {@link finishKeys}).
 */
export const toKeys = (values: Float64Array, count: number, descending: boolean): Keys => {
  const words = new Uint32Array(values.buffer, values.byteOffset, 2 * count)
  const flip = descending ? -1 : 0
  const firstLo = count === 0 ? 0 : keyLow(words[LO]!, words[HI]!, flip)
  const firstHi = count === 0 ? 0 : keyHigh(words[LO]!, words[HI]!, flip)
  let variesLo = 0
  let variesHi = 0
  let least = count === 0 ? 0 : values[0]!
  let most = least
  for (let j = 0; j < count; j++) {
    const lo = words[2 * j + LO]!
    const hi = words[2 * j + HI]!
    const keyLo = keyLow(lo, hi, flip)
    const keyHi = keyHigh(lo, hi, flip)
    variesLo |= keyLo ^ firstLo
    variesHi |= keyHi ^ firstHi
    const value = values[j]!
    if (value < least) least = value
    if (value > most) most = value
    words[2 * j] = keyLo
    words[2 * j + 1] = keyHi
  }
  return finishKeys(words, variesLo, variesHi, least, most, descending)
}

/**
 * The keys, given the OR of each key half XOR the first key's and the smallest and largest of
 * the doubles they were made from.
 *
 * The extremes are found among the doubles and turned into keys here: comparing 64-bit keys as
 * word pairs in the conversion loop measured up to twice as slow at a million items (5.6
 * against 2.8 ns per key), and never faster. -0 and +0 compare equal as doubles, and their keys
 * are equal too. A descending sort complements every key, so its smallest key is the largest
 * value's.
 *
 * Besides {@link toKeys}, callers that convert while they read the items use it: on inputs
 * larger than the caches the reading waits on memory and the conversion hides in the wait
 * (measured at a million scores: 8.3 against 11.3 ns per item for reading and converting in two
 * passes). Such a caller stores value `j` in `values[j]`, reads its halves back through a word
 * view at `2j + LO` and `2j + HI` (how JavaScript sees a double's bits), and writes the halves
 * of its key, from {@link keyLow} and {@link keyHigh}, to `2j` and `2j + 1`: the same
 * conversion as toKeys'.
 */
export const finishKeys = (
  words: Uint32Array,
  variesLo: number,
  variesHi: number,
  least: number,
  most: number,
  descending: boolean
): Keys => {
  const flip = descending ? -1 : 0
  const extremes = new Uint32Array(new Float64Array(descending ? [most, least] : [least, most]).buffer)
  const minLo = keyLow(extremes[LO]!, extremes[HI]!, flip)
  const minHi = keyHigh(extremes[LO]!, extremes[HI]!, flip)
  const maxLo = keyLow(extremes[2 + LO]!, extremes[2 + HI]!, flip)
  const maxHi = keyHigh(extremes[2 + LO]!, extremes[2 + HI]!, flip)
  const spanLo = (maxLo - minLo) >>> 0
  const spanHi = (maxHi - minHi - borrow(maxLo, minLo, spanLo)) >>> 0
  return { words, variesLo, variesHi, minLo, minHi, spanLo, spanHi }
}

/** `-0` is the sign bit alone; as `+0` it ties with `+0`, as the numbers do. */
const positiveZero = (lo: number, hi: number): number => hi === 0x80000000 && lo === 0 ? 0 : hi

/** The high half of the key of the double whose halves are `lo`, `hi`. */
export const keyHigh = (lo: number, hi: number, flip: number): number => {
  const h = positiveZero(lo, hi)
  return (h ^ (((h | 0) >> 31) | 0x80000000) ^ flip) >>> 0
}

/** The low half of the key of the double whose halves are `lo`, `hi`. */
export const keyLow = (lo: number, hi: number, flip: number): number =>
  (lo ^ ((positiveZero(lo, hi) | 0) >> 31) ^ flip) >>> 0

/** The borrow out of the 32-bit subtraction `a - b = difference`, branch-free. */
const borrow = (a: number, b: number, difference: number): number => ((~a & b) | (~(a ^ b) & difference)) >>> 31

/**
 * Where the sorted ids go.
 *
 * - `uShape`: rank `r` goes to position `r/2` when `r` is even and `count-1-(r-1)/2` when it is
 *   odd (the U-shaped placer's alternation); otherwise to position `r`.
 * - `inverse`: write `out[id] = position` (where each input goes) instead of
 *   `out[position] = id` (what each position holds).
 */
export interface Layout {
  readonly uShape: boolean
  readonly inverse: boolean
}

/**
 * Position of rank `r` among `count`. Branch-free for the U shape, because the parity of the
 * ranks met in a scatter pass is unpredictable.
 */
const position = (r: number, count: number, uShape: boolean): number => {
  if (!uShape) return r
  const half = r >>> 1
  return half ^ ((half ^ (count - 1 - half)) & -(r & 1))
}

/** Index of the lowest set bit of a non-zero 32-bit value. */
const lowestBit = (x: number): number => 31 - Math.clz32(x & -x)

/** Index of the highest set bit of a non-zero 32-bit value. */
const highestBit = (x: number): number => 31 - Math.clz32(x)

/**
 * The widest digit worth a pass for `count` keys. The digit counts are cleared and summed once
 * per pass, so they should stay well below `count`; on large inputs, fewer passes over wider
 * digits win even though their scattered writes spread over more cache lines (measured).
 */
export const maxDigitBits = (count: number): number =>
  count < 1024 ? 8 : count < 32768 ? 11 : count < 262144 ? 13 : 16

/** Splits `bits` bits into the fewest digits of at most `max` bits, as evenly as possible. */
const digitBits = (bits: number, max: number): number => Math.ceil(bits / Math.ceil(bits / max))

/**
 * Sorts the first `count` keys, stably, and writes their ids in sorted order as `layout` says:
 * to `out`, or without `out` to a view of `count` entries over a buffer the sort no longer needs
 * (returned either way). `ids[j]` is the id of key `j` (without `ids`, it is `j`); positions
 * run from 0 to `count-1`. `keys` is consumed, and so may be the first `count` entries of `ids`.
 *
 * Every pass over the keys is a small function of its own: V8 optimises a long-running loop
 * while it runs (on-stack replacement), and code compiled that way for a loop inside a larger
 * function lacks feedback for what follows the loop, deoptimising on every large call.
 */
export const sortKeys = (
  keys: Keys,
  count: number,
  ids: Uint32Array | undefined,
  layout: Layout,
  scratch: Scratch,
  out?: Uint32Array
): Uint32Array => {
  const { variesHi, variesLo, words } = keys
  if (variesLo === 0 && variesHi === 0) {
    // Every key is equal: input order is sorted order.
    const target = out ?? scratch.pairs(count)
    emitInOrder(target, ids, count, layout)
    return target
  }
  const low = variesLo !== 0 ? lowestBit(variesLo) : 32 + lowestBit(variesHi)
  const maxBits = maxDigitBits(count)
  // Keys minus the smallest are multiples of 2^low below span + 1: when that fits a word,
  // sort one-word keys (key - min) >>> low.
  const spanHigh = keys.spanHi !== 0 ? 32 + highestBit(keys.spanHi) : highestBit(keys.spanLo)
  if (spanHigh - low < 32) {
    const digits = new Digits(spanHigh - low + 1, maxBits)
    packOffsets(words, ids, count, keys.minLo, keys.minHi, low, digits)
    return sortPairs(words, scratch.pairs(2 * count), count, digits, layout, out)
  }
  // Keys wider than a word (scores with many significant bits): sort on the varying bits of the
  // low words first, carrying the ids; the last of those passes leaves [hi, id] pairs, which are
  // then sorted on their high words like one-word keys. Stability makes the two one sort.
  const high = variesHi !== 0 ? 32 + highestBit(variesHi) : highestBit(variesLo)
  const bits = digitBits(32 - low, maxBits)
  const mask = (1 << bits) - 1
  const digits = new Digits(high - 31, maxBits)
  let src: Uint32Array = words
  let dst: Uint32Array = scratch.pairs(2 * count)
  let srcIds = ids
  let spareIds: Uint32Array | undefined
  for (let shift = low; shift < 32; shift += bits) {
    const slots = lowDigitSlots(src, count, shift, mask)
    if (shift + bits >= 32) {
      // The last low pass leaves [hi, id] pairs (in place when it would move nothing).
      if (slots === undefined) {
        packHigh(src, srcIds, count, digits)
      } else {
        scatterLowLast(src, srcIds, dst, count, shift, mask, slots, digits)
        const t = src
        src = dst
        dst = t
      }
    } else if (slots !== undefined) {
      // Ids ping-pong between two buffers: `moreIds` and the caller's `ids`, or without those
      // (ids implied by position) the scratch's `ids` buffer from the second pass on.
      const dstIds = spareIds ?? (srcIds === ids ? scratch.moreIds(count) : scratch.ids(count))
      scatterLow(src, srcIds, dst, dstIds, count, shift, mask, slots)
      spareIds = srcIds
      srcIds = dstIds
      const t = src
      src = dst
      dst = t
    }
  }
  return sortPairs(src, dst, count, digits, layout, out)
}

/**
 * Sorts `count` whole numbers ascending, like {@link sortKeys} sorts their keys, when they lie
 * within 2^32 of the smallest: then each is its distance from the smallest, exactly, and needs
 * no key. Returns `undefined`, with `values` untouched, when they do not (a fraction, a number
 * beyond ±2^53, a span of 2^32 or more, an infinity).
 *
 * Timestamps in epoch milliseconds are such numbers when they span less than 49 days. A
 * read-only scan and the packing then replace {@link toKeys} and the packing of
 * {@link sortKeys}, two passes that each rewrite every key (measured 5–8 ns per item faster at
 * 10,000 items).
 */
export const sortWholeNumbers = (
  values: Float64Array,
  count: number,
  ids: Uint32Array | undefined,
  layout: Layout,
  scratch: Scratch,
  out: Uint32Array
): Uint32Array | undefined => {
  let least = count === 0 ? 0 : values[0]!
  let most = least
  let whole = true
  for (let j = 0; j < count; j++) {
    const value = values[j]!
    if (value < least) least = value
    if (value > most) most = value
    // Math.floor(v) === v is false for a fraction; ±Infinity pass here and fail the span test.
    whole = whole && Math.floor(value) === value
  }
  // Integers within ±2^53 subtract exactly, so distinct numbers get distinct offsets, in order.
  const span = most - least
  if (!whole || !(span < 2 ** 32) || least < -Number.MAX_SAFE_INTEGER || most > Number.MAX_SAFE_INTEGER) {
    return undefined
  }
  if (span === 0) {
    emitInOrder(out, ids, count, layout)
    return out
  }
  const digits = new Digits(highestBit(span >>> 0) + 1, maxDigitBits(count))
  const pairs = scratch.pairs(2 * count)
  packDistances(values, ids, count, least, pairs, digits)
  // The values are read: their buffer is the sort's second one.
  return sortPairs(pairs, new Uint32Array(values.buffer, values.byteOffset, 2 * count), count, digits, layout, out)
}

/** Writes `[value - least, id]` pairs, counting the digits of every pass. */
const packDistances = (
  values: Float64Array,
  ids: Uint32Array | undefined,
  count: number,
  least: number,
  pairs: Uint32Array,
  digits: Digits
): void => {
  for (let j = 0; j < count; j++) {
    const key = values[j]! - least
    pairs[2 * j] = key
    pairs[2 * j + 1] = ids === undefined ? j : ids[j]!
    digits.count(key)
  }
}

/** Writes ids in their input order (ranks 0, 1, 2…), as `layout` says. */
const emitInOrder = (out: Uint32Array, ids: Uint32Array | undefined, count: number, layout: Layout): void => {
  for (let r = 0; r < count; r++) emit(out, ids === undefined ? r : ids[r]!, r, count, layout)
}

/** Writes id `id`, of rank `r`, as `layout` says. */
const emit = (out: Uint32Array, id: number, r: number, count: number, layout: Layout): void => {
  if (layout.inverse) out[id] = position(r, count, layout.uShape)
  else out[position(r, count, layout.uShape)] = id
}

/**
 * Turns each `[lo, hi]` key into a `[key, id]` pair in place, where `key` is the key minus the
 * smallest, shifted right by `low` (it fits a word), counting the digits of every pass.
 */
const packOffsets = (
  words: Uint32Array,
  ids: Uint32Array | undefined,
  count: number,
  minLo: number,
  minHi: number,
  low: number,
  digits: Digits
): void => {
  for (let j = 0; j < count; j++) {
    const lo = words[2 * j]!
    const dLo = (lo - minLo) >>> 0
    const dHi = (words[2 * j + 1]! - minHi - borrow(lo, minLo, dLo)) >>> 0
    const key = low === 0 ? dLo : low >= 32 ? dHi >>> (low - 32) : ((dLo >>> low) | (dHi << (32 - low))) >>> 0
    words[2 * j] = key
    words[2 * j + 1] = ids === undefined ? j : ids[j]!
    digits.count(key)
  }
}

/** A low-word pass that moves `[lo, hi]` pairs and their ids. */
const scatterLow = (
  src: Uint32Array,
  srcIds: Uint32Array | undefined,
  dst: Uint32Array,
  dstIds: Uint32Array,
  count: number,
  shift: number,
  mask: number,
  slots: Int32Array
): void => {
  for (let j = 0; j < count; j++) {
    const p = slots[(src[2 * j]! >>> shift) & mask]!++
    dst[2 * p] = src[2 * j]!
    dst[2 * p + 1] = src[2 * j + 1]!
    dstIds[p] = srcIds === undefined ? j : srcIds[j]!
  }
}

/** The last low-word pass: moves each key as a `[hi, id]` pair, counting the high digits. */
const scatterLowLast = (
  src: Uint32Array,
  srcIds: Uint32Array | undefined,
  dst: Uint32Array,
  count: number,
  shift: number,
  mask: number,
  slots: Int32Array,
  digits: Digits
): void => {
  for (let j = 0; j < count; j++) {
    const p = slots[(src[2 * j]! >>> shift) & mask]!++
    const hi = src[2 * j + 1]!
    dst[2 * p] = hi
    dst[2 * p + 1] = srcIds === undefined ? j : srcIds[j]!
    digits.count(hi)
  }
}

/** Turns `[lo, hi]` pairs into `[hi, id]` pairs in place, counting the high digits. */
const packHigh = (pairs: Uint32Array, ids: Uint32Array | undefined, count: number, digits: Digits): void => {
  for (let j = 0; j < count; j++) {
    const hi = pairs[2 * j + 1]!
    pairs[2 * j] = hi
    pairs[2 * j + 1] = ids === undefined ? j : ids[j]!
    digits.count(hi)
  }
}

/**
 * The first output slot of each low-word digit `(pairs[2j] >>> shift) & mask` (the exclusive
 * prefix sums of the digit counts), or `undefined` when every key has the same digit.
 */
const lowDigitSlots = (pairs: Uint32Array, count: number, shift: number, mask: number): Int32Array | undefined =>
  toSlots(countLowDigits(pairs, count, shift, mask), count)

const countLowDigits = (pairs: Uint32Array, count: number, shift: number, mask: number): Int32Array => {
  const counts = new Int32Array(mask + 1)
  for (let j = 0; j < count; j++) counts[(pairs[2 * j]! >>> shift) & mask]!++
  return counts
}

/** Turns digit counts into first slots, in place; `undefined` if one digit holds every key. */
const toSlots = (counts: Int32Array, count: number): Int32Array | undefined => {
  let sum = 0
  for (let d = 0; d < counts.length; d++) {
    const c = counts[d]!
    if (c === count) return undefined
    counts[d] = sum
    sum += c
  }
  return counts
}

/**
 * The digit counts of every pass over one-word keys of `keyBits` bits, gathered while the keys
 * are written (the counts do not depend on the order), so the passes need not read the keys
 * again to count.
 */
class Digits {
  readonly bits: number
  readonly mask: number
  readonly passes: number
  readonly counts: Int32Array

  constructor(keyBits: number, maxBits: number) {
    this.bits = digitBits(keyBits, maxBits)
    this.mask = (1 << this.bits) - 1
    this.passes = Math.ceil(keyBits / this.bits)
    this.counts = new Int32Array(this.passes << this.bits)
  }

  count(key: number): void {
    const { bits, counts, mask, passes } = this
    for (let pass = 0; pass < passes; pass++) counts[(pass << bits) + ((key >>> (pass * bits)) & mask)]!++
  }
}

/**
 * LSD radix sort of `count` `[key, id]` pairs whose digits `digits` has counted, writing the ids
 * as `layout` says to `out`, or to a view over whichever pair buffer the last pass does not read.
 * The bits of the keys above the counted ones are equal in every key. `pairs` and `spare` (same
 * size) are consumed.
 */
const sortPairs = (
  pairs: Uint32Array,
  spare: Uint32Array,
  count: number,
  digits: Digits,
  layout: Layout,
  out: Uint32Array | undefined
): Uint32Array => {
  const { bits, counts, mask, passes } = digits
  const size = mask + 1
  // Passes whose digit is the same in every key are skipped; the last pass that moves anything
  // writes `out` directly, and the passes before it ping-pong between two pair buffers.
  const slots = new Array<Int32Array | undefined>(passes)
  let lastPass = -1
  for (let pass = 0; pass < passes; pass++) {
    slots[pass] = toSlots(counts.subarray(pass * size, (pass + 1) * size), count)
    if (slots[pass] !== undefined) lastPass = pass
  }
  let src = pairs
  let dst = spare
  for (let pass = 0; pass < lastPass; pass++) {
    const first = slots[pass]
    if (first === undefined) continue
    scatterPairs(src, dst, count, pass * bits, mask, first)
    const t = src
    src = dst
    dst = t
  }
  const target = out ?? dst.subarray(0, count)
  const first = lastPass < 0 ? undefined : slots[lastPass]
  if (first === undefined) {
    // No digit varies: input order is sorted order.
    emitPairsInOrder(target, src, count, layout)
  } else if (layout.inverse) {
    lastPassInverse(target, src, count, lastPass * bits, mask, first, layout.uShape)
  } else {
    lastPassInOrder(target, src, count, lastPass * bits, mask, first, layout.uShape)
  }
  return target
}

/** One pass over `[key, id]` pairs. */
const scatterPairs = (
  src: Uint32Array,
  dst: Uint32Array,
  count: number,
  shift: number,
  mask: number,
  slots: Int32Array
): void => {
  for (let j = 0; j < count; j++) {
    const key = src[2 * j]!
    const p = slots[(key >>> shift) & mask]!++
    dst[2 * p] = key
    dst[2 * p + 1] = src[2 * j + 1]!
  }
}

/** The ids of `[key, id]` pairs in their present order, as `layout` says. */
const emitPairsInOrder = (out: Uint32Array, pairs: Uint32Array, count: number, layout: Layout): void => {
  for (let r = 0; r < count; r++) emit(out, pairs[2 * r + 1]!, r, count, layout)
}

/** The last pass, writing `out[id] = position`. */
const lastPassInverse = (
  out: Uint32Array,
  src: Uint32Array,
  count: number,
  shift: number,
  mask: number,
  slots: Int32Array,
  uShape: boolean
): void => {
  for (let j = 0; j < count; j++) {
    const r = slots[(src[2 * j]! >>> shift) & mask]!++
    out[src[2 * j + 1]!] = position(r, count, uShape)
  }
}

/** The last pass, writing `out[position] = id`. */
const lastPassInOrder = (
  out: Uint32Array,
  src: Uint32Array,
  count: number,
  shift: number,
  mask: number,
  slots: Int32Array,
  uShape: boolean
): void => {
  for (let j = 0; j < count; j++) {
    const r = slots[(src[2 * j]! >>> shift) & mask]!++
    out[position(r, count, uShape)] = src[2 * j + 1]!
  }
}
