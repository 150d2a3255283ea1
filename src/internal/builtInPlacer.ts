/**
 * The built-in placers' instances and layers, made the same way from their functions.
 *
 * Each instance (and each build of a layer) owns one set of kept working buffers (see
 * scratch.ts); the pure functions of the placer modules use fresh ones.
 *
 * @internal
 */
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import type { ContextItem } from "../ContextItem.ts"
import * as Placer from "../Placer.ts"
import type { ScoredItem } from "../ScoredItem.ts"
import { guarded, reusable, type Scratch } from "./scratch.ts"

/** What a built-in placer is made of: its name and its three functions over a scratch. */
export interface BuiltIn {
  readonly name: string
  /** The order as a typed array, whatever the size (`Placer.Functions.order`). */
  readonly order: (items: ReadonlyArray<ScoredItem>, scratch: Scratch) => Uint32Array
  /** The order as the service answers it: a plain array for small inputs. */
  readonly orderAny: (items: ReadonlyArray<ScoredItem>, scratch: Scratch) => ArrayLike<number>
  readonly place: (items: ReadonlyArray<ScoredItem>, scratch: Scratch) => Array<ContextItem>
}

/** A placer instance with buffers of its own. */
export const instance = (placer: BuiltIn): Placer.Functions => {
  const run = guarded(reusable())
  return {
    name: placer.name,
    order: (items) => run((scratch) => placer.order(items, scratch)),
    place: (items) => run((scratch) => placer.place(items, scratch))
  }
}

/** The placer as a service; every build of the layer has buffers of its own. */
export const layer = (placer: BuiltIn): Layer.Layer<Placer.Placer> =>
  Layer.sync(Placer.Placer, () => {
    const run = guarded(reusable())
    return Placer.Placer.of({
      name: placer.name,
      order: (items) => Effect.sync(() => run((scratch) => placer.orderAny(items, scratch))),
      place: (items) => Effect.sync(() => run((scratch) => placer.place(items, scratch)))
    })
  })
