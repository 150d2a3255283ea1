/**
 * TokenizerLoadError: `gpt-tokenizer`, an optional peer dependency, could not be loaded.
 *
 * Raised wherever effect-cupel counts tokens itself — `Counting`, `effect-cupel/ai/GptTokenizer`,
 * `effect-cupel/plain/Trim`, the CLI's `--count-tokens` — and only there: nothing else loads it.
 *
 * @since 0.3.0
 */
import { Schema } from "effect"
import { describeThrown } from "./internal/describeThrown.ts"

/**
 * The encoding could not be loaded: `gpt-tokenizer` is not installed (or its module failed to
 * load). Install it with `npm install gpt-tokenizer`, or count with a function of your own.
 *
 * @since 0.2.0
 * @category errors
 */
export class TokenizerLoadError extends Schema.TaggedError<TokenizerLoadError>()("TokenizerLoadError", {
  encoding: Schema.String,
  cause: Schema.Defect(),
  /** What else the caller can do, added to the message (`effect-cupel/plain/Trim`: pass `count`). */
  hint: Schema.optionalKey(Schema.String)
}) {
  override get message(): string {
    return `could not load gpt-tokenizer's ${this.encoding} encoding (is the optional peer dependency gpt-tokenizer installed? npm install gpt-tokenizer${
      this.hint === undefined ? "" : `; ${this.hint}`
    }): ${describeThrown(this.cause)}`
  }
}
