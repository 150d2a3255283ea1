/**
 * The event loop's longest stall while a call runs (issue 27, item 5): a 5 ms timer beside the
 * call, and the most CPU time (and wall time) between two of its ticks. CPU time, because the
 * machine running the tests is shared: another process's time is not the call's stall.
 */

/** The process's CPU time so far, in milliseconds. */
export const cpu = (): number => {
  const { system, user } = process.cpuUsage()
  return (user + system) / 1000
}

/**
 * Runs `f` with a 5 ms timer beside it: its CPU and wall time, and the longest stall — the
 * most CPU time spent between two ticks of the timer (and from the last tick to the end).
 */
export const measured = async <A>(f: () => Promise<A>): Promise<{ readonly cpu: number; readonly wall: number; readonly stall: number; readonly wallStall: number; readonly value: A }> => {
  let lastCpu = cpu()
  let lastWall = performance.now()
  let stall = 0
  let wallStall = 0
  const timer = setInterval(() => {
    const nowCpu = cpu()
    const nowWall = performance.now()
    stall = Math.max(stall, nowCpu - lastCpu)
    wallStall = Math.max(wallStall, nowWall - lastWall)
    lastCpu = nowCpu
    lastWall = nowWall
  }, 5)
  const startCpu = cpu()
  const startWall = performance.now()
  try {
    const value = await f()
    const endCpu = cpu()
    const endWall = performance.now()
    stall = Math.max(stall, endCpu - lastCpu)
    wallStall = Math.max(wallStall, endWall - lastWall)
    return { cpu: endCpu - startCpu, wall: endWall - startWall, stall, wallStall, value }
  } finally {
    clearInterval(timer)
  }
}
