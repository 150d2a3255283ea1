/**
 * The working buffers of the library's own stage code: the rank scorers (recency, priority),
 * Deduplicate's hash table, the Sort stage and GreedySlice's density sort.
 *
 * A run over a million candidates needs about 130 MB of such temporaries, each an array buffer
 * that lives for one synchronous call. Array buffers are memory outside the JavaScript heap,
 * and V8 answers every 64 MB or so of new outside memory by starting a full collection, which
 * marks every live object: with a million candidates held by the caller (about 400 MB), that is
 * 100–500 ms, once or more per run — at that size the largest single cost of a run, and the
 * reason time per candidate grew faster than the candidates. Kept between calls, the buffers
 * are allocated once and the collections stop.
 *
 * The rules are those of the placers' buffers (scratch.ts): held weakly, so the collector may
 * take them back between calls; used only inside one synchronous call, so two fibers can never
 * be inside them at once (a fiber can only yield between Effect steps, and no step is taken
 * while a buffer is lent); guarded against re-entry, which gets fresh buffers. Nothing lent
 * outlives the call: what a function returns is copied out or freshly allocated.
 *
 * @internal
 */
import { guarded, reusable, type Scratch } from "./scratch.ts"

/** Runs `f` with the stages' kept buffers (or fresh ones, when they are in use up the stack). */
export const withStageScratch: <A>(f: (scratch: Scratch) => A) => A = guarded(reusable())
