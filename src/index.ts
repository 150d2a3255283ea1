/**
 * effect-cupel: the context window an LLM sees, built by the Cupel specification on Effect 4.
 *
 * @since 0.1.0
 */

/** @since 0.2.0 */
export * as BudgetAnalysis from "./BudgetAnalysis.ts"
/** @since 0.3.0 */
export * as CacheBreakpoints from "./ai/CacheBreakpoints.ts"
/** @since 0.3.0 */
export * as CacheModel from "./ai/CacheModel.ts"
/** @since 0.3.0 */
export * as CacheMiss from "./ai/CacheMiss.ts"
/** @since 0.3.0 */
export * as CallReportLog from "./ai/CallReportLog.ts"
/** @since 0.1.0 */
export * as ChronologicalPlacer from "./placers/ChronologicalPlacer.ts"
/** @since 0.2.0 */
export * as Classify from "./stages/Classify.ts"
/** @since 0.2.0 */
export * as CompositeScorer from "./scorers/CompositeScorer.ts"
/** @since 0.1.0 */
export * as ContextBudget from "./ContextBudget.ts"
/** @since 0.1.0 */
export * as ContextItem from "./ContextItem.ts"
/** @since 0.1.0 */
export * as ContextKind from "./ContextKind.ts"
/** @since 0.1.0 */
export * as ContextSource from "./ContextSource.ts"
/** @since 0.3.0 */
export * as ConversationKey from "./ai/ConversationKey.ts"
/** @since 0.2.0 */
export * as CountConstrainedKnapsackSlice from "./slicers/CountConstrainedKnapsackSlice.ts"
/** @since 0.2.0 */
export * as CountQuotaSlice from "./slicers/CountQuotaSlice.ts"
/** @since 0.2.0 */
export * as CountRequirementError from "./CountRequirementError.ts"
/** @since 0.2.0 */
export * as CountRequirementShortfall from "./CountRequirementShortfall.ts"
/** @since 0.3.0 */
export * as Counting from "./Counting.ts"
/** @since 0.3.0 */
export * as CurrentTurn from "./ai/CurrentTurn.ts"
/** @since 0.2.0 */
export * as DecayScorer from "./scorers/DecayScorer.ts"
/** @since 0.2.0 */
export * as Deduplicate from "./stages/Deduplicate.ts"
/** @since 0.1.0 */
export * as ExcludedItem from "./ExcludedItem.ts"
/** @since 0.1.0 */
export * as ExclusionReason from "./ExclusionReason.ts"
/** @since 0.3.0 */
export * as FirstFitSlice from "./slicers/FirstFitSlice.ts"
/** @since 0.2.0 */
export * as FrequencyScorer from "./scorers/FrequencyScorer.ts"
/** @since 0.2.0 */
export * as GreedySlice from "./slicers/GreedySlice.ts"
/** @since 0.2.0 */
export * as IncludedItem from "./IncludedItem.ts"
/** @since 0.2.0 */
export * as InclusionReason from "./InclusionReason.ts"
/** @since 0.2.0 */
export * as InvalidConfigError from "./InvalidConfigError.ts"
/** @since 0.1.0 */
export * as InvalidItemError from "./InvalidItemError.ts"
/** @since 0.2.0 */
export * as KindScorer from "./scorers/KindScorer.ts"
/** @since 0.2.0 */
export * as KnapsackSlice from "./slicers/KnapsackSlice.ts"
/** @since 0.3.0 */
export * as MediaTokens from "./ai/MediaTokens.ts"
/** @since 0.3.0 */
export * as MemoryStore from "./ai/MemoryStore.ts"
/** @since 0.2.0 */
export * as MetadataKeyScorer from "./scorers/MetadataKeyScorer.ts"
/** @since 0.2.0 */
export * as MetadataTrustScorer from "./scorers/MetadataTrustScorer.ts"
/** @since 0.1.0 */
export * as OverflowError from "./OverflowError.ts"
/** @since 0.1.0 */
export * as OverflowEvent from "./OverflowEvent.ts"
/** @since 0.1.0 */
export * as OverflowNotifier from "./OverflowNotifier.ts"
/** @since 0.1.0 */
export * as OverflowStrategy from "./OverflowStrategy.ts"
/** @since 0.2.0 */
export * as PinnedBudgetError from "./PinnedBudgetError.ts"
/** @since 0.2.0 */
export * as Pipeline from "./Pipeline.ts"
/** @since 0.2.0 */
export * as PipelineResult from "./PipelineResult.ts"
/** @since 0.1.0 */
export * as Place from "./stages/Place.ts"
/** @since 0.1.0 */
export * as PlaceResult from "./PlaceResult.ts"
/** @since 0.1.0 */
export * as Placer from "./placers/Placer.ts"
/** @since 0.3.0 */
export * as PlacerConfig from "./placers/PlacerConfig.ts"
/** @since 0.1.0 */
export * as PlacerContractError from "./placers/PlacerContractError.ts"
/** @since 0.1.0 */
export * as PlacerError from "./placers/PlacerError.ts"
/** @since 0.2.0 */
export * as Policy from "./Policy.ts"
/** @since 0.2.0 */
export * as Presets from "./Presets.ts"
/** @since 0.2.0 */
export * as PriorityScorer from "./scorers/PriorityScorer.ts"
/** @since 0.2.0 */
export * as PromptWindow from "./ai/PromptWindow.ts"
/** @since 0.2.0 */
export * as QuotaSlice from "./slicers/QuotaSlice.ts"
/** @since 0.2.0 */
export * as RecencyScorer from "./scorers/RecencyScorer.ts"
/** @since 0.3.0 */
export * as RedisStore from "./ai/RedisStore.ts"
/** @since 0.2.0 */
export * as ReflexiveScorer from "./scorers/ReflexiveScorer.ts"
/** @since 0.2.0 */
export * as ReportMetrics from "./ReportMetrics.ts"
/** @since 0.2.0 */
export * as ScaledScorer from "./scorers/ScaledScorer.ts"
/** @since 0.2.0 */
export * as Score from "./stages/Score.ts"
/** @since 0.1.0 */
export * as ScoredItem from "./ScoredItem.ts"
/** @since 0.2.0 */
export * as Scorer from "./scorers/Scorer.ts"
/** @since 0.3.0 */
export * as ScorerConfig from "./scorers/ScorerConfig.ts"
/** @since 0.2.0 */
export * as ScorerError from "./scorers/ScorerError.ts"
/** @since 0.2.0 */
export * as SectionedPlacer from "./placers/SectionedPlacer.ts"
/** @since 0.2.0 */
export * as SelectionReport from "./SelectionReport.ts"
/** @since 0.3.0 */
export * as Shorten from "./ai/Shorten.ts"
/** @since 0.2.0 */
export * as Slice from "./stages/Slice.ts"
/** @since 0.2.0 */
export * as Slicer from "./slicers/Slicer.ts"
/** @since 0.3.0 */
export * as SlicerConfig from "./slicers/SlicerConfig.ts"
/** @since 0.2.0 */
export * as SlicerContractError from "./slicers/SlicerContractError.ts"
/** @since 0.2.0 */
export * as SlicerError from "./slicers/SlicerError.ts"
/** @since 0.2.0 */
export * as Sort from "./stages/Sort.ts"
/** @since 0.3.0 */
export * as StableWindow from "./ai/StableWindow.ts"
/** @since 0.3.0 */
export * as Summarizer from "./ai/Summarizer.ts"
/** @since 0.2.0 */
export * as TagScorer from "./scorers/TagScorer.ts"
/** @since 0.1.0 */
export * as Timestamp from "./Timestamp.ts"
/** @since 0.2.0 */
export * as TokenCounter from "./ai/TokenCounter.ts"
/** @since 0.3.0 */
export * as TokenizerLoadError from "./TokenizerLoadError.ts"
/** @since 0.2.0 */
export * as TokenTotalError from "./TokenTotalError.ts"
/** @since 0.2.0 */
export * as TraceEvent from "./TraceEvent.ts"
/** @since 0.3.0 */
export * as TurnBudgetError from "./ai/TurnBudgetError.ts"
/** @since 0.1.0 */
export * as UShapedPlacer from "./placers/UShapedPlacer.ts"
/** @since 0.3.0 */
export * as Verbosity from "./Verbosity.ts"
/** @since 0.3.0 */
export * as WindowState from "./ai/WindowState.ts"
/** @since 0.3.0 */
export * as WindowStore from "./ai/WindowStore.ts"
/** @since 0.3.0 */
export * as WindowSummary from "./ai/WindowSummary.ts"
export * as SummaryLedger from "./ai/SummaryLedger.ts"
/** @since 0.2.0 */
export * as WindowedLanguageModel from "./ai/WindowedLanguageModel.ts"
