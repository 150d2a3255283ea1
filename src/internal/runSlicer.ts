/**
 * The slice stage's call of the slicer, shared by `Slice.slice` and the pipeline, which both
 * run it in the span `cupel.stage.slice`: the span is told the slicer and its budget before the
 * slicer runs (so a failed slice names it) and how many items it selected once it answers. The
 * caller annotates `cupel.stage.name` and `item_count_in` first, before anything of the stage
 * can fail (the pipeline sorts before it slices, in the same span).
 *
 * @internal
 */
import { Effect } from "effect"
import type { ScoredItem } from "../ScoredItem.ts"
import * as Slicer from "../slicers/Slicer.ts"

/** The current slicer on `sorted` against `budget`, in the current (slice) span. */
export const runSlicer = (
  sorted: ReadonlyArray<ScoredItem>,
  budget: Slicer.Budget,
  columns: Slicer.Columns | undefined
): Effect.Effect<Slicer.Selection, Slicer.SliceError, Slicer.Slicer> =>
  Slicer.Slicer.use((slicer) =>
    Effect.annotateCurrentSpan({
      "cupel.slicer": slicer.name,
      "cupel.slice.target_tokens": budget.targetTokens,
      "cupel.slice.max_tokens": budget.maxTokens
    }).pipe(
      Effect.andThen(slicer.slice(sorted, budget, columns)),
      Effect.tap((selection) => Effect.annotateCurrentSpan("cupel.stage.item_count_out", selection.selected.length))
    ))

/** The slice span's name and input count, written first. */
export const annotateSliceIn = (countIn: number): Effect.Effect<void> =>
  Effect.annotateCurrentSpan({ "cupel.stage.name": "slice", "cupel.stage.item_count_in": countIn })
