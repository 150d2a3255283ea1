/**
 * `trimModelMessages` (src/plain/Trim.ts, src/plain/ModelMessages.ts): the plain trim for the AI
 * SDK's `ModelMessage`s.
 */
import { assert, describe, it } from "@effect/vitest"
import type { ModelMessage } from "ai"
import { Effect } from "effect"
import { spawnSync } from "node:child_process"
import { fileURLToPath } from "node:url"
import { trim, trimModelMessages } from "../../src/plain/Trim.ts"

const root = fileURLToPath(new URL("../..", import.meta.url))

/** A system message, then `turns` turns of a user question, a tool call, its result and an answer. */
const history = (turns: number): Array<ModelMessage> => {
  const out: Array<ModelMessage> = [{ role: "system", content: "You are terse." }]
  for (let t = 0; t < turns; t++) {
    out.push({ role: "user", content: `question ${t}: what does the log say?` })
    out.push({
      role: "assistant",
      content: [{ type: "text", text: "Looking." }, { type: "tool-call", toolCallId: `call-${t}`, toolName: "readLog", input: { turn: t } }]
    })
    out.push({
      role: "tool",
      content: [{ type: "tool-result", toolCallId: `call-${t}`, toolName: "readLog", output: { type: "text", value: `log line ${t} `.repeat(20) } }]
    })
    out.push({ role: "assistant", content: `The log of turn ${t} is fine.` })
  }
  return out
}

/** The invariants of a trimmed history: system first, calls with their results, the caller's objects in order. */
const checkWindow = (input: ReadonlyArray<ModelMessage>, output: ReadonlyArray<ModelMessage>) => {
  assert.strictEqual(output[0], input[0], "the system message first")
  const positions = output.map((m) => input.indexOf(m))
  assert.isTrue(positions.every((p) => p >= 0), "every message is one of the caller's objects")
  assert.deepStrictEqual(positions, positions.slice().sort((a, b) => a - b), "in the input's order")
  const calls = new Set<string>()
  const results = new Set<string>()
  for (const m of output) {
    if (m.role === "assistant" && typeof m.content !== "string") {
      for (const part of m.content) if (part.type === "tool-call") calls.add(part.toolCallId)
    }
    if (m.role === "tool") for (const part of m.content) if (part.type === "tool-result") results.add(part.toolCallId)
  }
  assert.deepStrictEqual([...results].sort(), [...calls].sort(), "every call with its result")
  assert.include(output, input.findLast((m) => m.role === "user"), "the newest user message")
  assert.strictEqual(output.find((m) => m.role !== "system")?.role, "user", "opens on a user message")
}

const rejected = (p: Promise<unknown>) => Effect.promise(() => p.then(() => undefined, (e: unknown) => e))

describe("plain/Trim: trimModelMessages", () => {
  it.live("1,000 ModelMessages with tool calls, counted by o200k: within the window, whole tool exchanges, the caller's objects", () =>
    Effect.gen(function*() {
      const input = history(250)
      const { messages, report } = yield* Effect.promise(() =>
        trimModelMessages(input, { contextWindow: 4_000, outputReserve: 500 })
      )
      checkWindow(input, messages)
      assert.isBelow(messages.length, input.length)
      assert.strictEqual(report.requestOverhead, 3)
      assert.isAtMost(report.tokens, report.targetTokens)
      assert.strictEqual(report.targetTokens, 4_000 - 500 - 3)
      assert.deepStrictEqual(report.kept.map((i) => input[i]), messages)
      assert.strictEqual(report.kept.length + report.dropped.length, input.length)
    }))

  it.live("a count function is called with the caller's ModelMessage objects and their indices", () =>
    Effect.gen(function*() {
      const input = history(10)
      const seen: Array<readonly [ModelMessage, number]> = []
      const { messages, report } = yield* Effect.promise(() =>
        trimModelMessages(input, {
          contextWindow: 100,
          count: (message, index) => {
            seen.push([message, index])
            return 5
          }
        })
      )
      assert.deepStrictEqual(seen.map(([m, i]) => input[i] === m), input.map(() => true))
      assert.strictEqual(report.requestOverhead, 0)
      assert.strictEqual(report.tokens, messages.length * 5)
      assert.isAtMost(report.tokens, 100)
      checkWindow(input, messages)
    }))

  it.live("a tool result larger than the room is sent as a shortened copy of its message (K6), its other fields kept", () =>
    Effect.gen(function*() {
      const big: ModelMessage = {
        role: "tool",
        providerOptions: { openai: { note: "kept" } },
        content: [{ type: "tool-result", toolCallId: "c", toolName: "run", output: { type: "text", value: "line of output\n".repeat(3_000) } }]
      }
      const input: Array<ModelMessage> = [
        { role: "system", content: "sys" },
        { role: "user", content: "run it" },
        { role: "assistant", content: [{ type: "tool-call", toolCallId: "c", toolName: "run", input: {} }] },
        big
      ]
      const { messages, report } = yield* Effect.promise(() => trimModelMessages(input, { contextWindow: 2_000 }))
      assert.strictEqual(messages.length, 4)
      assert.deepStrictEqual(messages.slice(0, 3), input.slice(0, 3))
      for (let i = 0; i < 3; i++) assert.strictEqual(messages[i], input[i])
      const copy = messages[3]!
      assert.notStrictEqual(copy, big)
      assert(copy.role === "tool")
      assert.deepStrictEqual(copy.providerOptions, { openai: { note: "kept" } })
      const part = copy.content[0]
      assert(part?.type === "tool-result")
      assert.strictEqual(part.toolCallId, "c")
      assert(part.output.type === "text")
      assert.include(part.output.value, "tokens left out")
      assert.deepStrictEqual(report.shortened.map((s) => s.index), [3])
      assert.isAtMost(report.tokens + report.requestOverhead, 2_000)
    }))

  it.live("a message that is not a ModelMessage rejects with InvalidInput: its index and field", () =>
    Effect.gen(function*() {
      const fields = (e: unknown) => ({
        _tag: Reflect.get(Object(e), "_tag"),
        index: Reflect.get(Object(e), "index"),
        field: Reflect.get(Object(e), "field")
      })
      const call = (messages: ReadonlyArray<unknown>) =>
        rejected(Reflect.apply(trimModelMessages, undefined, [messages, { contextWindow: 100, count: () => 1 }]))
      assert.deepStrictEqual(fields(yield* call([{ role: "user", content: "a" }, { role: "robot", content: "b" }])), {
        _tag: "InvalidInput",
        index: 1,
        field: "role"
      })
      // OpenAI's format is not this one: its tool message has a string content.
      assert.deepStrictEqual(fields(yield* call([{ role: "tool", tool_call_id: "c", content: "out" }])), {
        _tag: "InvalidInput",
        index: 0,
        field: "content"
      })
      assert.deepStrictEqual(fields(yield* call([{ role: "user", content: [{ type: "image_url", image_url: { url: "x" } }] }])), {
        _tag: "InvalidInput",
        index: 0,
        field: "content[0].type"
      })
      assert.deepStrictEqual(
        fields(yield* call([{ role: "assistant", content: [{ type: "tool-call", toolCallId: 5, toolName: "f", input: {} }] }])),
        { _tag: "InvalidInput", index: 0, field: "content[0].toolCallId" }
      )
      assert.deepStrictEqual(fields(yield* call([{ role: "system", content: [{ type: "text", text: "s" }] }])), {
        _tag: "InvalidInput",
        index: 0,
        field: "content"
      })
      assert.deepStrictEqual(fields(yield* rejected(Reflect.apply(trimModelMessages, undefined, ["no", { contextWindow: 5 }]))), {
        _tag: "InvalidInput",
        index: undefined,
        field: "messages"
      })
      assert.deepStrictEqual(fields(yield* rejected(trimModelMessages([], { contextWindow: 0 }))), {
        _tag: "InvalidInput",
        index: undefined,
        field: "contextWindow"
      })
    }))

  it.live("a plain user/system history gives the same window as trim's OpenAI format", () =>
    Effect.gen(function*() {
      const input = [{ role: "system" as const, content: "sys" }, ...Array.from({ length: 40 }, (_, i) => ({
        role: i % 2 === 0 ? "user" as const : "assistant" as const,
        content: `message number ${i} `.repeat(i % 7 + 1)
      }))]
      const options = { contextWindow: 300, outputReserve: 20 }
      const model = yield* Effect.promise(() => trimModelMessages(input, options))
      const openAI = yield* Effect.promise(() => trim(input, options))
      assert.deepStrictEqual(model.report, openAI.report)
      assert.deepStrictEqual(model.messages, openAI.messages)
    }))

  it("loads nothing of ai: with every import of ai refused, it runs; importing ai itself fails", () => {
    const hooks = `data:text/javascript,${encodeURIComponent(
      `import { registerHooks } from "node:module";
       registerHooks({ resolve(specifier, context, next) {
         if (specifier === "ai" || specifier.startsWith("ai/")) throw new Error("loaded ai");
         return next(specifier, context) } })`
    )}`
    const script = `const { trimModelMessages } = await import("./src/plain/Trim.ts");
      const { report } = await trimModelMessages([{ role: "system", content: "s" }, { role: "user", content: "hi" }], { contextWindow: 100, count: () => 1 });
      console.log(JSON.stringify(report.kept));
      await import("ai").then(() => console.log("ai loaded"), (e) => console.log(e.message));`
    const run = spawnSync(`${root}node_modules/.bin/node`, ["--import", hooks, "--input-type=module", "-e", script], {
      cwd: root,
      encoding: "utf8"
    })
    assert.strictEqual(run.status, 0, run.stderr)
    assert.strictEqual(run.stdout, "[0,1]\nloaded ai\n")
  })
})
