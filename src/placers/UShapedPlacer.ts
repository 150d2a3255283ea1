/**
 * UShapedPlacer: the most relevant items at both edges of the window, the least in the middle.
 *
 * Models attend most to the start and the end of their context. This placer ranks items by
 * score (descending; ties by input order) and deals the ranks out from both edges: rank 0 to
 * the first position, rank 1 to the last, rank 2 to the second, rank 3 to the second-to-last…
 * Pinned items arrive with score 1.0 and so land at the edges.
 *
 * @since 0.1.0
 */
import * as Layer from "effect/Layer"
import type { ContextItem } from "../ContextItem.ts"
import * as BuiltInPlacer from "./internal/builtInPlacer.ts"
import { placeUShaped, uShapedOrder, uShapedOrderAny } from "./internal/uShaped.ts"
import * as Placer from "./Placer.ts"
import type { ScoredItem } from "../ScoredItem.ts"

/**
 * The placer's name, as it appears in spans and errors.
 *
 * @since 0.1.0
 * @category constants
 */
export const name = "u-shaped"

const builtIn: BuiltInPlacer.BuiltIn = { name, order: uShapedOrder, orderAny: uShapedOrderAny, place: placeUShaped }

const kind = BuiltInPlacer.define(builtIn)

/**
 * The U-shaped order of `items`: `order[position]` is an input index.
 *
 * @since 0.1.0
 * @category placing
 */
export const order: (items: ReadonlyArray<ScoredItem>) => Uint32Array = uShapedOrder

/**
 * Places `items` in a U shape. A pure function; returns the same item objects.
 *
 * @example
 * ```ts
 * import { ContextItem, UShapedPlacer } from "effect-cupel"
 *
 * const item = (content: string) => new ContextItem.ContextItem({ content, tokens: 1 })
 * UShapedPlacer.place([
 *   { item: item("A"), score: 0.9 }, { item: item("B"), score: 0.7 }, { item: item("C"), score: 0.5 }
 * ]).map((i) => i.content) // ["A", "C", "B"]
 * ```
 *
 * @since 0.1.0
 * @category placing
 */
export const place = (items: ReadonlyArray<ScoredItem>): Array<ContextItem> => placeUShaped(items)

/**
 * A U-shaped placer for placing again and again: it reuses the working buffers of its fast path
 * (about 24 bytes per item above 1,024 items) from one call to the next instead of faulting in
 * fresh memory every time, which at a million items costs more than the sort. Every instance,
 * and every build of {@link layer}, shares the one set of buffers of the U-shaped kind, so
 * making instances (or building the layer) on every call costs no memory. The buffers are held
 * weakly, so the garbage collector can take them back whenever it needs to; results are the
 * same as {@link order} and {@link place}, and each call returns new arrays.
 *
 * @example
 * ```ts
 * import { ContextItem, UShapedPlacer } from "effect-cupel"
 *
 * const placer = UShapedPlacer.make()
 * const item = (content: string) => new ContextItem.ContextItem({ content, tokens: 1 })
 * placer.place([
 *   { item: item("A"), score: 0.9 }, { item: item("B"), score: 0.7 }, { item: item("C"), score: 0.5 }
 * ]).map((i) => i.content) // ["A", "C", "B"]
 * ```
 *
 * @since 0.1.0
 * @category constructors
 */
export const make = (): Placer.Functions => kind.make()

/**
 * Provides the U-shaped placer as the `Placer` service. Each build of the layer is a service of
 * its own, on the kind's shared working buffers (see {@link make}): providing the layer on every
 * call keeps memory flat.
 *
 * @since 0.1.0
 * @category layers
 */
export const layer: Layer.Layer<Placer.Placer> = kind.layer
