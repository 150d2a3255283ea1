/**
 * The built-in placers' instances and layers, made the same way from their functions.
 *
 * Each kind of built-in placer (U-shaped, chronological) has one set of kept working buffers
 * (see scratch.ts), shared by every instance `make()` returns and every build of its layer. A
 * layer provided on every call (`Effect.provide(UShapedPlacer.layer)` in a loop, the README's
 * pattern) then reuses the same buffers call after call instead of leaving one set per build for
 * the collector — which, while a loop stays in microtasks, it cannot take (see docs/design.md,
 * "The built-in placers keep their working buffers"). The pure functions of the placer modules
 * use fresh buffers.
 *
 * @internal
 */
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import type { ContextItem } from "../../ContextItem.ts"
import * as Placer from "../Placer.ts"
import type { ScoredItem } from "../../ScoredItem.ts"
import { guarded, reusable, type Scratch } from "../../internal/scratch.ts"

/** What a built-in placer is made of: its name and its three functions over a scratch. */
export interface BuiltIn {
  readonly name: string
  /** The order as a typed array, whatever the size (`Placer.Functions.order`). */
  readonly order: (items: ReadonlyArray<ScoredItem>, scratch: Scratch) => Uint32Array
  /** The order as the service answers it: a plain array for small inputs. */
  readonly orderAny: (items: ReadonlyArray<ScoredItem>, scratch: Scratch) => ArrayLike<number>
  readonly place: (items: ReadonlyArray<ScoredItem>, scratch: Scratch) => Array<ContextItem>
}

/** A kind of built-in placer: its instances and its layer, all on the kind's one set of buffers. */
export interface Kind {
  /** A new instance (`Placer.Functions`) on the kind's buffers. */
  readonly make: () => Placer.Functions
  /** The placer as a service; every build is a new service value on the kind's buffers. */
  readonly layer: Layer.Layer<Placer.Placer>
}

/**
 * Defines a kind. This is the only state a kind keeps, and the smallest form of it: buffers
 * held weakly (the collector may take them whenever it collects), cleared of item references
 * before every call returns, and guarded against re-entry (a placement started from inside
 * another, by an item getter, gets fresh buffers). Placement is synchronous, so two calls can
 * never be inside the buffers at once; nothing about a call's result depends on the buffers'
 * past, which only saves the cost of faulting in fresh memory.
 */
export const define = (placer: BuiltIn): Kind => {
  const run = guarded(reusable())
  return {
    make: () => ({
      name: placer.name,
      order: (items) => run((scratch) => placer.order(items, scratch)),
      place: (items) => run((scratch) => placer.place(items, scratch))
    }),
    layer: Layer.sync(Placer.Placer, () =>
      Placer.Placer.of({
        name: placer.name,
        order: (items) => Effect.sync(() => run((scratch) => placer.orderAny(items, scratch))),
        place: (items) => Effect.sync(() => run((scratch) => placer.place(items, scratch)))
      }))
  }
}
