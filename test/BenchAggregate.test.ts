import { assert, describe, it } from "@effect/vitest"
import { aggregate, verdictsOf } from "../bench/aggregate.ts"

describe("npm run bench -- --json: one document, whatever became of each bench", () => {
  const decodeMissed = JSON.stringify({ rows: [], target: { usPerItem: 3.27, limit: 3, met: false } })
  const placeMet = JSON.stringify({
    rows: [],
    targets: [
      { target: "N=1,000,000: placer 20× faster", measured: "31×", met: true, comparisonOnly: false },
      { target: "pure function, for comparison", measured: "2×", met: false, comparisonOnly: true }
    ]
  })

  it("a bench that misses its own target and exits 1 still has its JSON in the document, with the verdict inside", () => {
    const { document, exitCode } = aggregate([
      { name: "place", status: 0, stdout: placeMet },
      { name: "decode", status: 1, stdout: decodeMissed }
    ])
    assert.strictEqual(exitCode, 1)
    assert.isFalse(document.ok)
    assert.deepStrictEqual(Object.keys(document.benches), ["place", "decode"])
    const decode = document.benches["decode"]
    assert.deepInclude(decode, { exitCode: 1, rows: [] })
    assert.deepStrictEqual(document.verdicts.map((v) => [v.bench, v.met]), [["place", true], ["decode", false]])
    assert.include(document.verdicts[1]!.measured, "3.27")
    // The document is JSON: it survives a round trip unchanged.
    assert.deepStrictEqual(JSON.parse(JSON.stringify(document)), document)
  })

  it("a bench that wrote no JSON is an entry with its exit code and its output, and a verdict not met", () => {
    const { document, exitCode } = aggregate([
      { name: "pipeline", status: 1, stdout: "difference at item 3\n" },
      { name: "place", status: 0, stdout: placeMet }
    ])
    assert.strictEqual(exitCode, 1)
    assert.deepStrictEqual(document.benches["pipeline"], { exitCode: 1, output: "difference at item 3\n" })
    assert.deepInclude(document.verdicts[0]!, { bench: "pipeline", met: false })
  })

  it("every bench ran and met its targets: ok, exit code 0; comparison-only figures are no verdicts", () => {
    const { document, exitCode } = aggregate([{ name: "place", status: 0, stdout: placeMet }])
    assert.strictEqual(exitCode, 0)
    assert.isTrue(document.ok)
    assert.deepStrictEqual(document.benches["place"], JSON.parse(placeMet))
    assert.strictEqual(document.verdicts.length, 1)
  })

  it("the agent bench's door targets are read as verdicts", () => {
    const agent = { targets: [{ target: "trim at 1,000 messages ≤ 1 ms", measured: "0.8 ms", met: true }] }
    assert.deepStrictEqual(verdictsOf("agent", agent), [
      { bench: "agent", target: "trim at 1,000 messages ≤ 1 ms", measured: "0.8 ms", met: true }
    ])
    assert.deepStrictEqual(verdictsOf("verbosity", [{ n: 10 }]), [])
  })
})
