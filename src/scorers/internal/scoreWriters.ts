/**
 * Score writers: the synchronous form of a built-in scorer, which writes its scores into a
 * buffer it is given instead of returning a new array.
 *
 * `CompositeScorer` sums its children's scores and drops them. Through `scoreAll`, each child
 * returns a new array (8 MB at a million items) that lives for one loop; through a writer, the
 * children share one kept buffer and a composite of three allocates one array instead of four.
 * That matters beyond the copying: new array buffers are memory outside the JavaScript heap,
 * and enough of it makes V8 collect the whole heap (see stageScratch.ts).
 *
 * The writer is found by the scorer value's identity, never by a property a copy could carry:
 * `{ ...RecencyScorer.make(), scoreAll: mine }` is not the recency scorer, and has no writer.
 * A writer must write exactly what the value's `scoreAll` returns.
 *
 * @internal
 */
import type { ContextItem } from "../../ContextItem.ts"
import type * as Scorer from "../Scorer.ts"

/** Writes the scores of `items` to `out[0 … items.length-1]`, every entry, synchronously. */
export type Writer = (items: ReadonlyArray<ContextItem>, out: Float64Array) => void

const writers = new WeakMap<Scorer.Definition, Writer>()

/** `definition`, registered with its writer. Called once, where a built-in value is made. */
export const withWriter = <D extends Scorer.Definition>(definition: D, write: Writer): D => {
  writers.set(definition, write)
  return definition
}

/** The writer of a built-in scorer value, if it has one. */
export const writerOf = (definition: Scorer.Definition): Writer | undefined => writers.get(definition)
