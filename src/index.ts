/**
 * effect-cupel: the context window an LLM sees, built by the Cupel specification on Effect 4.
 *
 * @since 0.1.0
 */

/** @since 0.1.0 */
export * as ChronologicalPlacer from "./placers/ChronologicalPlacer.ts"
/** @since 0.1.0 */
export * as ContextBudget from "./ContextBudget.ts"
/** @since 0.1.0 */
export * as ContextItem from "./ContextItem.ts"
/** @since 0.1.0 */
export * as ContextKind from "./ContextKind.ts"
/** @since 0.1.0 */
export * as ContextSource from "./ContextSource.ts"
/** @since 0.1.0 */
export * as ExcludedItem from "./ExcludedItem.ts"
/** @since 0.1.0 */
export * as ExclusionReason from "./ExclusionReason.ts"
/** @since 0.1.0 */
export * as InvalidItemError from "./InvalidItemError.ts"
/** @since 0.1.0 */
export * as OverflowError from "./OverflowError.ts"
/** @since 0.1.0 */
export * as OverflowEvent from "./OverflowEvent.ts"
/** @since 0.1.0 */
export * as OverflowNotifier from "./OverflowNotifier.ts"
/** @since 0.1.0 */
export * as OverflowStrategy from "./OverflowStrategy.ts"
/** @since 0.1.0 */
export * as Place from "./Place.ts"
/** @since 0.1.0 */
export * as PlaceResult from "./PlaceResult.ts"
/** @since 0.1.0 */
export * as Placer from "./Placer.ts"
/** @since 0.1.0 */
export * as PlacerContractError from "./PlacerContractError.ts"
/** @since 0.1.0 */
export * as PlacerError from "./PlacerError.ts"
/** @since 0.1.0 */
export * as ScoredItem from "./ScoredItem.ts"
/** @since 0.1.0 */
export * as Timestamp from "./Timestamp.ts"
/** @since 0.1.0 */
export * as UShapedPlacer from "./placers/UShapedPlacer.ts"
