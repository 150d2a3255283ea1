/**
 * InvalidInput: what `effect-cupel/plain/Trim` rejects a malformed call with — a message that
 * is not in the chat format, or an option out of range.
 *
 * @since 0.3.0
 */
import { Schema } from "effect"

/**
 * A malformed message or option. `index` is the message's index in the array (absent for an
 * option); `field` the path to the offending value inside it (`content[0].text`,
 * `tool_calls[1].function.arguments`, or the option's name); `problem` what is wrong with it.
 *
 * @since 0.3.0
 * @category errors
 */
export class InvalidInput extends Schema.TaggedError<InvalidInput>()("InvalidInput", {
  index: Schema.optionalKey(Schema.Int),
  field: Schema.String,
  problem: Schema.String
}) {
  override get message(): string {
    return this.index === undefined
      ? `option ${this.field}: ${this.problem}`
      : `message ${this.index}: ${this.field === "" ? "" : `${this.field} `}${this.problem}`
  }
}
