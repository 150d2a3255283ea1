import { defineConfig } from "vitest/config"

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    // Property tests over large inputs need more than the default 5 s on a 2-core machine.
    testTimeout: 60_000
  }
})
