/**
 * ChronologicalPlacer: the window in the order things happened.
 *
 * Items with a timestamp come first, oldest first, compared as instants (offsets do not
 * matter); ties keep their input order. Items without a timestamp follow, in input order.
 * Scores never influence this order.
 *
 * @since 0.1.0
 */
import * as Layer from "effect/Layer"
import type { ContextItem } from "../ContextItem.ts"
import * as BuiltInPlacer from "./internal/builtInPlacer.ts"
import { chronologicalOrder, chronologicalOrderAny, placeChronological } from "./internal/chronological.ts"
import * as Placer from "./Placer.ts"
import type { ScoredItem } from "../ScoredItem.ts"

/**
 * The placer's name, as it appears in spans and errors.
 *
 * @since 0.1.0
 * @category constants
 */
export const name = "chronological"

const builtIn: BuiltInPlacer.BuiltIn = { name, order: chronologicalOrder, orderAny: chronologicalOrderAny, place: placeChronological }

const kind = BuiltInPlacer.define(builtIn)

/**
 * The chronological order of `items`: `order[position]` is an input index.
 *
 * @since 0.1.0
 * @category placing
 */
export const order: (items: ReadonlyArray<ScoredItem>) => Uint32Array = chronologicalOrder

/**
 * Places `items` oldest first, untimed last. A pure function; returns the same item objects.
 *
 * @since 0.1.0
 * @category placing
 */
export const place = (items: ReadonlyArray<ScoredItem>): Array<ContextItem> => placeChronological(items)

/**
 * A chronological placer for placing again and again: it reuses the working buffers of its fast
 * path (about 32 bytes per item above 1,024 items) from one call to the next, held weakly and
 * shared by every instance and every build of {@link layer}; see `UShapedPlacer.make`. Results
 * are the same as {@link order} and {@link place}.
 *
 * @since 0.1.0
 * @category constructors
 */
export const make = (): Placer.Functions => kind.make()

/**
 * Provides the chronological placer as the `Placer` service. Each build of the layer is a
 * service of its own, on the kind's shared working buffers (see {@link make}): providing the
 * layer on every call keeps memory flat.
 *
 * @since 0.1.0
 * @category layers
 */
export const layer: Layer.Layer<Placer.Placer> = kind.layer
