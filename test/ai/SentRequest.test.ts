/**
 * A request in hashes (src/ai/SentRequest.ts) and the change of its tool definitions, each case
 * named as the report names it (issue 26 item 4).
 */
import { assert, describe, it } from "@effect/vitest"
import { Prompt } from "effect/ai"
import * as fc from "fast-check"
import * as CallReport from "../../src/ai/CallReport.ts"
import * as Calibration from "../../src/ai/Calibration.ts"
import * as SentRequest from "../../src/ai/SentRequest.ts"

const tool = (name: string, fields: Record<string, unknown> = { description: `${name} tool`, inputSchema: { type: "object" } }) =>
  SentRequest.toolOf({ name, fields })

describe("SentRequest.toolsChange", () => {
  const before = [tool("grep"), tool("read")]
  it("the same definitions: no change", () => assert.isUndefined(SentRequest.toolsChange(before, [tool("grep"), tool("read")])))
  it("a tool added is named, field 'added'", () =>
    assert.deepStrictEqual(SentRequest.toolsChange(before, [...before, tool("edit")]), { name: "edit", field: "added" }))
  it("a tool removed is named, field 'removed'", () =>
    assert.deepStrictEqual(SentRequest.toolsChange(before, [tool("grep")]), { name: "read", field: "removed" }))
  it("the same tools reordered: the first out of place, field 'order'", () =>
    assert.deepStrictEqual(SentRequest.toolsChange(before, [tool("read"), tool("grep")]), { name: "read", field: "order" }))
  it("a flag added (eager_input_streaming) names the tool and the flag", () =>
    assert.deepStrictEqual(
      SentRequest.toolsChange(before, [tool("grep", { description: "grep tool", inputSchema: { type: "object" }, eager_input_streaming: true }), tool("read")]),
      { name: "grep", field: "eager_input_streaming" }
    ))
  it("a description edited names the field", () =>
    assert.deepStrictEqual(
      SentRequest.toolsChange(before, [tool("grep"), tool("read", { description: "reads", inputSchema: { type: "object" } })]),
      { name: "read", field: "description" }
    ))
})

describe("CallReport.reportedOf: odd usage is said, never thrown, and does not calibrate", () => {
  it("a negative figure is left out and said", () => {
    const r = CallReport.reportedOf({ total: 100, cacheRead: -5 }, undefined)
    assert.strictEqual(r?.cacheRead, undefined)
    assert.match(r?.odd?.[0] ?? "", /cacheRead is not a number of tokens \(-5\)/)
  })
  it("NaN is left out and said", () => {
    const r = CallReport.reportedOf({ total: Number.NaN, cacheRead: 3 }, undefined)
    assert.strictEqual(r?.total, undefined)
    assert.match(r?.odd?.[0] ?? "", /total is not a number of tokens \(NaN\)/)
  })
  it("cache reads above the total are said, and the report does not calibrate", () => {
    const r = CallReport.reportedOf({ total: 100, cacheRead: 150, cacheWrite: 0 }, undefined)
    assert.strictEqual(r?.total, 100)
    assert.match(r?.odd?.[0] ?? "", /exceed total \(100\)/)
    assert.isFalse(Calibration.calibrates(r, 90))
  })
  it("a usage with nothing odd has no odd field and calibrates", () => {
    const r = CallReport.reportedOf({ total: 100, cacheRead: 80, cacheWrite: 10 }, "m")
    assert.isUndefined(r?.odd)
    assert.isTrue(Calibration.calibrates(r, 90))
  })
})

describe("SentRequest.make with the previous request (docs/design.md item 124)", () => {
  const message = (k: number): Prompt.Message =>
    k % 3 === 0
      ? Prompt.userMessage({ content: [Prompt.textPart({ text: `question ${k}` })] })
      : Prompt.assistantMessage({ content: [Prompt.textPart({ text: `answer ${k}` })] })
  it("gives every message the hash it gets alone, whichever messages the previous request shares by position", () =>
    fc.assert(
      fc.property(
        fc.array(fc.nat({ max: 40 }), { maxLength: 30 }),
        fc.array(fc.nat({ max: 40 }), { maxLength: 30 }),
        (before, after) => {
          // A pool of message objects: the same number is the same object; a request may also
          // hold a fresh object of the same text at any position.
          const pool = Array.from({ length: 41 }, (_, k) => message(k))
          const pick = (k: number) => (k % 7 === 6 ? message(k) : pool[k]!)
          const first = Prompt.fromMessages(before.map(pick))
          const second = Prompt.fromMessages(after.map(pick))
          const memo = new WeakMap<Prompt.Message, string>()
          const previous = SentRequest.make(first, [], 0, memo)
          const lent = SentRequest.make(second, [], 1, memo, { content: first.content, messages: previous.messages })
          const alone = SentRequest.make(second, [], 1, new WeakMap())
          assert.deepStrictEqual(lent, alone)
        }
      ),
      { seed: 124, numRuns: 300 }
    ))
})
