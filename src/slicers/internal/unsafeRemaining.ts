/**
 * The error of a slicer whose remaining budget left the exact integers after a negative token
 * count (one that the pipeline's Classify stage excludes, so only a slicer called on its own can
 * meet it): GreedySlice's and FirstFitSlice's fills, which take items while they fit.
 *
 * @internal
 */
import { SlicerError } from "../SlicerError.ts"

export const unsafeRemaining = (slicer: string, index: number): SlicerError =>
  new SlicerError({
    slicer,
    reason: `after item ${index}, whose token count is negative, the remaining budget is no longer an exact integer; ` +
      `negative token counts are excluded by the pipeline's Classify stage and should not reach a slicer`
  })
