/**
 * Verbosity: how much a pipeline run tells its trace (spec `integrations/opentelemetry.md`,
 * "Verbosity Tiers").
 *
 * - `"StageOnly"` (the default, production-safe) — the `cupel.pipeline` span and one
 *   `cupel.stage.<name>` span per stage with its item counts; no per-item events.
 * - `"StageAndExclusions"` — also, on each stage span, `cupel.exclusion.count` and one
 *   `cupel.exclusion` event per item the stage excluded (`cupel.exclusion.reason`,
 *   `cupel.exclusion.item_kind`, `cupel.exclusion.item_tokens`).
 * - `"Full"` — also, on the `cupel.stage.place` span, one `cupel.item.included` event per item
 *   in the window (`cupel.item.kind`, `cupel.item.tokens`, `cupel.item.score`).
 *
 * @since 0.3.0
 */
import { Schema } from "effect"

/**
 * The three tiers, by the chapter's names.
 *
 * @since 0.3.0
 * @category models
 */
export const Verbosity = Schema.Literals(["StageOnly", "StageAndExclusions", "Full"])

/**
 * @since 0.3.0
 * @category models
 */
export type Verbosity = typeof Verbosity.Type

/**
 * The tier when none is chosen.
 *
 * @since 0.3.0
 * @category constants
 */
export const defaultVerbosity: Verbosity = "StageOnly"
