import { assert, describe, it } from "@effect/vitest"
import { Effect, Schema } from "effect"
import { Tool, Toolkit } from "effect/ai"
import * as ToolDefinitions from "../../src/ai/ToolDefinitions.ts"

const Lookup = Tool.make("Lookup", {
  description: "Looks a query up in the archive.",
  parameters: Schema.Struct({ query: Schema.String, limit: Schema.optional(Schema.Number) }),
  success: Schema.String
})
const Clock = Tool.make("Clock", { success: Schema.String })
const tools = Toolkit.make(Lookup, Clock)

describe("ToolDefinitions", () => {
  it("a tool's text is its name, description and parameters' JSON Schema, as JSON", () => {
    const text: unknown = JSON.parse(ToolDefinitions.text(Lookup))
    assert.deepInclude(text, { name: "Lookup", description: "Looks a query up in the archive." })
    assert.deepStrictEqual(
      text,
      { name: "Lookup", description: "Looks a query up in the archive.", parameters: Tool.getJsonSchema(Lookup) }
    )
    assert.include(ToolDefinitions.text(Lookup), "\"query\"")
    // No description: no key for it.
    assert.notInclude(ToolDefinitions.text(Clock), "description")
  })

  it("the message counted is a system message of that text", () => {
    const message = ToolDefinitions.message(Lookup)
    assert.strictEqual(message.role, "system")
    assert.strictEqual(message.content, ToolDefinitions.text(Lookup))
  })

  it.effect("a Toolkit and the toolkit with handlers give the same tools; anything else gives none", () =>
    Effect.gen(function*() {
      assert.deepStrictEqual(ToolDefinitions.toolsOf(tools), [Lookup, Clock])
      const withHandlers = yield* tools
      assert.deepStrictEqual(ToolDefinitions.toolsOf(withHandlers), [Lookup, Clock])
      for (const other of [undefined, null, 42, "tools", {}, { tools: null }, { tools: { a: 1 } }, Effect.succeed(withHandlers)]) {
        assert.deepStrictEqual(ToolDefinitions.toolsOf(other), [])
      }
    }).pipe(Effect.provide(tools.toLayer({ Lookup: () => Effect.succeed(""), Clock: () => Effect.succeed("") }))))
})
