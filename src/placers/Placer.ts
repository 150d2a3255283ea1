/**
 * Placer: the service that decides the final order of the window.
 *
 * The specification's placer is a function `Place(items: ScoredItem[]) -> ContextItem[]` that
 * must return exactly its input items, reordered. effect-cupel models it as a service so a
 * program names the need (`Placer`) and a layer picks the strategy (`UShapedPlacer.layer`,
 * `ChronologicalPlacer.layer`, or your own).
 *
 * A placer service answers two ways: with the placed items (`place`, what `Place` uses) and
 * with an *order* (`order`: `order[k]` is the index, in the input, of the item that goes to
 * position `k`). Every constructor here holds a custom placer to the contract: {@link fromOrder}
 * checks that its order is a permutation of `0 … n-1` while it builds the output, in a pass or
 * two over arrays; {@link make} and {@link makeEffect}, for placers written in the
 * specification's shape (returning items), check the returned items by identity. The built-in
 * placers (`UShapedPlacer.layer`, `ChronologicalPlacer.layer`) build their output directly, and
 * their property tests against the specification's pseudocode are what holds them to it.
 *
 * @since 0.1.0
 */
import { Context, Effect, Layer } from "effect"
import type { ContextItem } from "../ContextItem.ts"
import { describeThrown } from "../internal/describeThrown.ts"
import { PlacerContractError } from "./PlacerContractError.ts"
import { PlacerError } from "./PlacerError.ts"
import type { ScoredItem } from "../ScoredItem.ts"

/**
 * A placement order: `order[k]` is the input index of the item placed at position `k`.
 * A `Uint32Array` or a plain array of indices.
 *
 * @since 0.1.0
 * @category models
 */
export type Order = ArrayLike<number>

/**
 * The placer service.
 *
 * @since 0.1.0
 * @category services
 */
export class Placer extends Context.Service<Placer, {
  /** A name for spans, logs and error messages. */
  readonly name: string
  /** The order in which to place `items`: a permutation of their indices, in a new array. */
  readonly order: (items: ReadonlyArray<ScoredItem>) => Effect.Effect<Order, PlacerError | PlacerContractError>
  /**
   * The items in placed order: exactly the input's item objects, reordered, in a new array.
   * `Place` trusts it: a service built by hand (rather than with this module's constructors,
   * which check custom placers) must keep the contract itself.
   */
  readonly place: (
    items: ReadonlyArray<ScoredItem>
  ) => Effect.Effect<Array<ContextItem>, PlacerError | PlacerContractError>
}>()("effect-cupel/Placer") {}

/**
 * A placer as plain synchronous functions, outside Effect: what `UShapedPlacer.make()` and
 * `ChronologicalPlacer.make()` return.
 *
 * @since 0.1.0
 * @category models
 */
export interface Functions {
  /** The placer's name, as in spans and errors. */
  readonly name: string
  /** The order of `items`: `order[position]` is an input index. A new array on every call. */
  readonly order: (items: ReadonlyArray<ScoredItem>) => Uint32Array
  /** The items in placed order: the same item objects, in a new array. */
  readonly place: (items: ReadonlyArray<ScoredItem>) => Array<ContextItem>
}

/**
 * Makes a placer layer from an order function: given the items, return the input indices in
 * the order to place them. The fastest way to write a custom placer.
 *
 * If the function throws, the placement fails with a `PlacerError` naming the placer, with the
 * thrown message in its `reason` and the thrown value as its `cause`.
 *
 * @example
 * ```ts
 * import { Placer } from "effect-cupel"
 *
 * // Shortest items first, ties in input order.
 * const ShortestFirst = Placer.fromOrder("shortest-first", (items) =>
 *   items.map((_, i) => i).sort((a, b) => items[a]!.item.tokens - items[b]!.item.tokens || a - b)
 * )
 * ```
 *
 * @since 0.1.0
 * @category constructors
 */
export const fromOrder = (
  name: string,
  order: (items: ReadonlyArray<ScoredItem>) => Order
): Layer.Layer<Placer> =>
  Layer.succeed(
    Placer,
    Placer.of({
      name,
      order: (items) => guarded(name, order, items, Effect.succeed),
      place: (items) => guarded(name, order, items, (indices) => applyOrder(name, items, indices))
    })
  )

/**
 * Makes a placer layer from a function in the specification's shape: given the scored items,
 * return the same item objects in their new order.
 *
 * If the function throws, the placement fails with a `PlacerError` naming the placer, with the
 * thrown message in its `reason` and the thrown value as its `cause`.
 *
 * @example
 * ```ts
 * import { Placer } from "effect-cupel"
 *
 * // The input order, reversed: the most recently sliced item first.
 * const Reversed = Placer.make("reversed", (items) => items.map((s) => s.item).reverse())
 * ```
 *
 * @since 0.1.0
 * @category constructors
 */
export const make = (
  name: string,
  place: (items: ReadonlyArray<ScoredItem>) => ReadonlyArray<ContextItem>
): Layer.Layer<Placer> =>
  Layer.succeed(
    Placer,
    Placer.of({
      name,
      order: (items) => guarded(name, place, items, (placed) => orderOfItems(name, items, placed)),
      place: (items) => guarded(name, place, items, (placed) => checkedItems(name, items, placed))
    })
  )

/**
 * Makes a placer layer from an effectful function in the specification's shape. The function
 * may use services (`R`), which the layer takes from its context when it is built, and may fail
 * with a `PlacerError`. If the function throws instead of returning an effect, the placement
 * fails with a `PlacerError` as for {@link make}; a defect inside the returned effect stays a
 * defect, as anywhere in Effect.
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import { Placer } from "effect-cupel"
 *
 * const Logged = Placer.makeEffect("logged", (items) =>
 *   Effect.log(`placing ${items.length} items`).pipe(Effect.as(items.map((s) => s.item)))
 * )
 * ```
 *
 * @since 0.1.0
 * @category constructors
 */
export const makeEffect = <R = never>(
  name: string,
  place: (items: ReadonlyArray<ScoredItem>) => Effect.Effect<ReadonlyArray<ContextItem>, PlacerError, R>
): Layer.Layer<Placer, never, R> =>
  Layer.effect(
    Placer,
    Effect.map(Effect.context<R>(), (context) =>
      Placer.of({
        name,
        order: (items) =>
          guarded(name, place, items, (effect) =>
            effect.pipe(
              Effect.provideContext(context),
              Effect.flatMap((placed) => orderOfItems(name, items, placed))
            )),
        place: (items) =>
          guarded(name, place, items, (effect) =>
            effect.pipe(
              Effect.provideContext(context),
              Effect.flatMap((placed) => checkedItems(name, items, placed))
            ))
      }))
  )

/**
 * Places `items` with the current placer: the same item objects, reordered, in a new array.
 *
 * @since 0.1.0
 * @category accessors
 */
export const place = (
  items: ReadonlyArray<ScoredItem>
): Effect.Effect<Array<ContextItem>, PlacerError | PlacerContractError, Placer> =>
  Placer.use((placer) => placer.place(items))

/**
 * Checks that `order` is a permutation of the indices of `items` and builds the placed list.
 * One pass (two for large inputs) over plain or typed arrays: cheap enough to run on every
 * placement.
 *
 * @since 0.1.0
 * @category utils
 */
export const applyOrder = (
  name: string,
  items: ReadonlyArray<ScoredItem>,
  order: Order
): Effect.Effect<Array<ContextItem>, PlacerContractError> => {
  const n = items.length
  if (order.length !== n) return wrongLength(name, n, order.length)
  return n < scatterThreshold ? gatherInOrder(name, items, order) : scatterFromInverse(name, items, order)
}

/**
 * From this many items up, {@link applyOrder} builds the placed list by reading the items in
 * input order and writing each to its position. Reading them in output order instead jumps
 * between objects scattered over the heap, and once they outgrow the caches each jump is a
 * cache miss (about 3× slower at a million items, measured).
 */
const scatterThreshold = 16384

const wrongLength = (name: string, expectedLength: number, actualLength: number) =>
  Effect.fail(new PlacerContractError({ placer: name, violation: "WrongLength", expectedLength, actualLength }))

const badIndex = (name: string, n: number, position: number, violation: "UnknownItem" | "RepeatedItem") =>
  Effect.fail(
    new PlacerContractError({ placer: name, violation, expectedLength: n, actualLength: n, position })
  )

/**
 * The check and the gather in one pass, marking each index seen. The marks are a plain array:
 * at these sizes allocating it in the JavaScript heap costs a fraction of a typed array, whose
 * memory the engine obtains outside the heap.
 */
const gatherInOrder = (
  name: string,
  items: ReadonlyArray<ScoredItem>,
  order: Order
): Effect.Effect<Array<ContextItem>, PlacerContractError> => {
  const n = items.length
  const seen = new Array<boolean>(n)
  const placed = new Array<ContextItem>(n)
  for (let k = 0; k < n; k++) {
    const index = order[k]!
    // `index >>> 0 === index` admits exactly the integers 0 … 2^32-1; the bound does the rest.
    if (index >>> 0 !== index || index >= n) return badIndex(name, n, k, "UnknownItem")
    if (seen[index] === true) return badIndex(name, n, k, "RepeatedItem")
    seen[index] = true
    placed[k] = items[index]!.item
  }
  return Effect.succeed(placed)
}

/**
 * The check builds the inverse permutation (`positions[index] = position + 1`, 0 while unseen),
 * which then places the items in input order. Violations are reported at the same positions as
 * by {@link gatherInOrder}: the check still walks the order from the front. Each loop is a
 * function of its own, so that V8 can optimise it alone while a large call runs.
 */
const scatterFromInverse = (
  name: string,
  items: ReadonlyArray<ScoredItem>,
  order: Order
): Effect.Effect<Array<ContextItem>, PlacerContractError> => {
  const n = items.length
  const positions = new Uint32Array(n)
  const bad = invert(order, positions)
  if (bad >= 0) {
    const index = order[bad]!
    return badIndex(name, n, bad, index >>> 0 !== index || index >= n ? "UnknownItem" : "RepeatedItem")
  }
  return Effect.succeed(scatter(items, positions))
}

/** Fills `positions` (one per item, zeroed) from `order`; the first bad position, or -1. */
const invert = (order: Order, positions: Uint32Array): number => {
  const n = positions.length
  for (let k = 0; k < n; k++) {
    const index = order[k]!
    // `index >>> 0 === index` admits exactly the integers 0 … 2^32-1; the bound does the rest.
    if (index >>> 0 !== index || index >= n || positions[index] !== 0) return k
    positions[index] = k + 1
  }
  return -1
}

const scatter = (items: ReadonlyArray<ScoredItem>, positions: Uint32Array): Array<ContextItem> => {
  const n = items.length
  const placed = new Array<ContextItem>(n)
  for (let i = 0; i < n; i++) placed[positions[i]! - 1] = items[i]!.item
  return placed
}

/**
 * Turns a placer's item list back into an order, matching items by identity. An item that
 * occurs several times in the input may occur as many times in the output.
 */
const orderOfItems = (
  name: string,
  items: ReadonlyArray<ScoredItem>,
  placed: ReadonlyArray<ContextItem>
): Effect.Effect<Order, PlacerContractError> => {
  const n = items.length
  if (placed.length !== n) return wrongLength(name, n, placed.length)
  // For each item, the input indices not yet used, in ascending order.
  const positions = new Map<ContextItem, Array<number>>()
  for (let i = n - 1; i >= 0; i--) {
    const item = items[i]!.item
    const list = positions.get(item)
    if (list === undefined) positions.set(item, [i])
    else list.push(i)
  }
  const order = new Array<number>(n)
  for (let k = 0; k < n; k++) {
    const list = positions.get(placed[k]!)
    if (list === undefined) return badIndex(name, n, k, "UnknownItem")
    const index = list.pop()
    if (index === undefined) return badIndex(name, n, k, "RepeatedItem")
    order[k] = index
  }
  return Effect.succeed(order)
}

/**
 * The items a placer in the specification's shape returned, checked against its input by
 * identity (see {@link orderOfItems}), in a new array.
 */
const checkedItems = (
  name: string,
  items: ReadonlyArray<ScoredItem>,
  placed: ReadonlyArray<ContextItem>
): Effect.Effect<Array<ContextItem>, PlacerContractError> =>
  Effect.map(orderOfItems(name, items, placed), () => Array.from(placed))

/**
 * Calls a custom placer's function on `items` and continues with `then`. A throw is the custom
 * code's failure, not the library's: it becomes a `PlacerError` naming the placer, so the
 * caller can catch it by tag instead of the fiber dying. A plain `try` rather than
 * `Effect.try`: no extra effect per placement.
 */
const guarded = <A, B, E>(
  name: string,
  f: (items: ReadonlyArray<ScoredItem>) => A,
  items: ReadonlyArray<ScoredItem>,
  then: (out: A) => Effect.Effect<B, E>
): Effect.Effect<B, E | PlacerError> =>
  Effect.suspend((): Effect.Effect<B, E | PlacerError> => {
    let out: A
    try {
      out = f(items)
    } catch (cause) {
      return Effect.fail(fail(name, `threw ${describeThrown(cause)}`, cause))
    }
    return then(out)
  })

/**
 * Wraps an unexpected failure of a custom placer as a `PlacerError`.
 *
 * @since 0.1.0
 * @category constructors
 */
export const fail = (placer: string, reason: string, cause?: unknown): PlacerError =>
  cause === undefined ? new PlacerError({ placer, reason }) : new PlacerError({ placer, reason, cause })
