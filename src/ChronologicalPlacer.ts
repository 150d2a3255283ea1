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
import type { ContextItem } from "./ContextItem.ts"
import { chronologicalOrder, chronologicalOrderAny, placeChronological } from "./internal/chronological.ts"
import * as Placer from "./Placer.ts"
import type { ScoredItem } from "./ScoredItem.ts"

/**
 * The placer's name, as it appears in spans and errors.
 *
 * @since 0.1.0
 * @category constants
 */
export const name = "chronological"

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
 * Provides the chronological placer as the `Placer` service.
 *
 * @since 0.1.0
 * @category layers
 */
export const layer: Layer.Layer<Placer.Placer> = Placer.fromOrder(name, chronologicalOrderAny)
