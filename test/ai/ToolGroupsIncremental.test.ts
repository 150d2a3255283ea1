/**
 * The groups of a history that continues the last one (docs/design.md item 124): kept from the
 * last call for the messages it read — unless this call joins one of their groups into another
 * — and found for the new messages only. Checked against the groups found afresh, on generated
 * histories whose tool calls, results and approvals link any message to any other (a new
 * message may join two old groups, or give an old singleton a partner), grown a few messages a
 * call, sometimes replaced by another history.
 */
import { assert, describe, it } from "@effect/vitest"
import { Prompt } from "effect/ai"
import * as fc from "fast-check"
import * as ItemCache from "../../src/ai/ItemCache.ts"
import * as ToolGroups from "../../src/ai/ToolGroups.ts"

/** A message linking the ids it is given: tool calls in an assistant message, results in a tool message. */
const messageOf = (kind: number, ids: ReadonlyArray<number>): Prompt.Message => {
  if (ids.length === 0) return Prompt.userMessage({ content: [Prompt.textPart({ text: `text ${kind}` })] })
  if (kind % 3 === 0) {
    return Prompt.toolMessage({
      content: ids.map((id) => Prompt.toolResultPart({ id: `c${id}`, name: "f", isFailure: false, result: id, providerExecuted: false }))
    })
  }
  if (kind % 3 === 1) {
    return Prompt.assistantMessage({
      content: ids.map((id) => Prompt.toolCallPart({ id: `c${id}`, name: "f", params: {}, providerExecuted: false }))
    })
  }
  return Prompt.assistantMessage({
    content: ids.map((id) => Prompt.makePart("tool-approval-request", { approvalId: `a${id}`, toolCallId: `c${id}` }))
  })
}

const histories = fc.array(
  fc.record({ kind: fc.nat({ max: 8 }), ids: fc.uniqueArray(fc.nat({ max: 12 }), { maxLength: 3 }) }),
  { minLength: 1, maxLength: 40 }
)

describe("ToolGroups.groups continued from the last call (design item 124)", () => {
  it("gives at every call the groups found afresh: new messages joining old groups, merging them, or pairing an old singleton", () =>
    fc.assert(
      fc.property(histories, histories, fc.array(fc.integer({ min: 1, max: 4 }), { minLength: 1, maxLength: 20 }), fc.nat({ max: 5 }), (a, b, steps, switchAt) => {
        const first = a.map(({ ids, kind }) => messageOf(kind, ids))
        const other = b.map(({ ids, kind }) => messageOf(kind, ids))
        const cache = ItemCache.makeItemCache()
        let length = 0
        steps.forEach((step, k) => {
          length = Math.min(first.length, length + step)
          // Now and then another conversation through the same cache: the state is not continued.
          const history = k === switchAt ? other : first.slice(0, length)
          assert.deepStrictEqual(ToolGroups.groups(history, "message-", cache), ToolGroups.groups(history, "message-"))
        })
      }),
      { seed: 124, numRuns: 400 }
    ))

  it("the array given is the caller's: changing it changes no later call's groups", () => {
    const messages = [messageOf(1, [1]), messageOf(0, [1]), messageOf(1, [2])]
    const cache = ItemCache.makeItemCache()
    const given = ToolGroups.groups(messages, "message-", cache)
    given[0] = "changed"
    const more = [...messages, messageOf(0, [2])]
    assert.deepStrictEqual(ToolGroups.groups(more, "message-", cache), ToolGroups.groups(more, "message-"))
  })
})
