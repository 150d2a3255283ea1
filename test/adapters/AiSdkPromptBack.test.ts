/**
 * A window's messages given back in the caller's format (`AiSdkPrompt.convert*`'s `back`,
 * docs/design.md item 124): each message of the converted prompt is the caller's own object,
 * found by position from the last one found, or in a map of the prompt once the window is not
 * in the prompt's order; a message made anew is converted. Checked against the plain rule (a
 * map of the whole prompt) on windows in any order, of any subset, with messages made anew.
 */
import { assert, describe, it } from "@effect/vitest"
import { Prompt } from "effect/ai"
import * as fc from "fast-check"
import * as AiSdkPrompt from "../../src/adapters/AiSdkPrompt.ts"
import { toModelMessages, toProviderPrompt } from "../support/sessionFormats.ts"
import * as Sessions from "../support/sessions.ts"

const session = Sessions.generate("tool-heavy", 40, 124)

/** A window: which of the prompt's messages, in which order, with made-anew messages among them. */
const windows = (length: number) =>
  fc.record({
    kept: fc.uniqueArray(fc.nat({ max: Math.max(0, length - 1) }), { maxLength: length }),
    sorted: fc.boolean(),
    made: fc.array(fc.nat({ max: length }), { maxLength: 4 })
  })

const madeAnew = (k: number): Prompt.Message => Prompt.userMessage({ content: [Prompt.textPart({ text: `summary ${k}` })] })

describe("back: the caller's objects for a window's messages (docs/design.md item 124)", () => {
  for (const [format, convert] of [
    ["ModelMessage", (steps: number) => {
      const messages = toModelMessages(Sessions.historyAt(session, steps))
      return { messages, converted: AiSdkPrompt.convertModelMessages(messages, AiSdkPrompt.makeMessageMemo()) }
    }],
    ["provider prompt", (steps: number) => {
      const messages = toProviderPrompt(Sessions.historyAt(session, steps))
      return { messages, converted: AiSdkPrompt.convert(messages, AiSdkPrompt.makeMessageMemo()) }
    }]
  ] as const) {
    it(`${format}: every kept message is the caller's object, in any order; a message made anew is converted`, () =>
      fc.assert(
        fc.property(fc.integer({ min: 1, max: 39 }).chain((steps) => fc.tuple(fc.constant(steps), windows(Sessions.historyAt(session, steps).length))), ([steps, w]) => {
          const { converted, messages } = convert(steps)
          const content = converted.prompt.content
          const kept = w.sorted ? [...w.kept].sort((a, b) => a - b) : w.kept
          const window: Array<Prompt.Message> = kept.map((i) => content[i]!)
          for (const [k, at] of w.made.entries()) window.splice(Math.min(at, window.length), 0, madeAnew(k))
          const back: ReadonlyArray<unknown> = converted.back(Prompt.fromMessages(window))
          assert.strictEqual(back.length, window.length)
          window.forEach((message, j) => {
            const i = content.indexOf(message)
            if (i >= 0) assert.strictEqual(back[j], messages[i], `message ${j} of the window is the caller's ${i}`)
            else assert.notInclude(messages, back[j])
          })
          // Twice: a second window of the same call is given back the same way.
          assert.deepStrictEqual(converted.back(Prompt.fromMessages(window)), back)
        }),
        { seed: 124, numRuns: 200 }
      ))
  }
})
