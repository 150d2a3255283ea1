/**
 * InvalidConfigError: a scorer, slicer or pipeline configured against the specification's rules.
 *
 * @since 0.2.0
 */
import { Schema } from "effect"

/**
 * Raised when a component is built with options that break a rule of its chapter: a negative
 * weight, a zero boost, a bucket size of 0, a half-life that is not positive… `component` names
 * what was being built (`"MetadataKeyScorer"`), `path` the option (`"boost"`,
 * `"scorers[1].weight"`), and `rule` says what the option must be, with the value given.
 *
 * @since 0.2.0
 * @category errors
 */
export class InvalidConfigError extends Schema.TaggedError<InvalidConfigError>()("InvalidConfigError", {
  component: Schema.String,
  path: Schema.String,
  rule: Schema.String
}) {
  override get message(): string {
    return `${this.component}: ${this.path} ${this.rule}`
  }
}
