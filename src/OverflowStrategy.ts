/**
 * OverflowStrategy: what Place does when the merged items exceed `targetTokens`.
 *
 * @since 0.1.0
 */
import { Schema } from "effect"

/**
 * - `"Throw"` (the default) — fail with a typed `OverflowError`.
 * - `"Truncate"` — keep every pinned item, then the other items from the front of the merged
 *   list while they fit; report each dropped item with its reason.
 * - `"Proceed"` — keep everything and tell the `OverflowNotifier`.
 *
 * @since 0.1.0
 * @category schemas
 */
export const OverflowStrategy = Schema.Literals(["Throw", "Truncate", "Proceed"]).annotate({
  identifier: "OverflowStrategy"
})

/**
 * @since 0.1.0
 * @category models
 */
export type OverflowStrategy = typeof OverflowStrategy.Type

/**
 * The specification's default strategy.
 *
 * @since 0.1.0
 * @category constants
 */
export const defaultStrategy: OverflowStrategy = "Throw"
