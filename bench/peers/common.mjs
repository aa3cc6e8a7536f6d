// What both peers share: the tools (as medreact's util pack does them), the
// task, and the measurement (process CPU, every thread, user + system, per run,
// after warm-up runs that are not counted).
export const TASK = "What is 17 * 23, and what time is it?";

export function calculator({ expression }) {
  // The scripted server only ever asks for "17 * 23".
  const m = /^\s*(\d+)\s*\*\s*(\d+)\s*$/.exec(expression);
  return m ? String(Number(m[1]) * Number(m[2])) : "Error: unsupported expression";
}

export function currentTime() {
  return new Date().toISOString();
}

export async function measure(name, runOnce, { warmup = 20, runs = 200 } = {}) {
  for (let i = 0; i < warmup; ++i) await runOnce();
  const before = process.cpuUsage();
  const start = process.hrtime.bigint();
  for (let i = 0; i < runs; ++i) await runOnce();
  const wall = Number(process.hrtime.bigint() - start) / 1e6;
  const cpu = process.cpuUsage(before);
  const usage = process.resourceUsage();
  console.log(JSON.stringify({
    peer: name,
    runs,
    cpu_ms_per_run: +((cpu.user + cpu.system) / 1000 / runs).toFixed(3),
    wall_ms_per_run: +(wall / runs).toFixed(3),
    rss_MiB: +(process.memoryUsage().rss / 1048576).toFixed(1),
    max_rss_MiB: +(usage.maxRSS / 1024).toFixed(1),
  }));
}

export function serverUrl() {
  const url = process.env.MOCK_LLM_URL;
  if (!url) throw new Error("set MOCK_LLM_URL (bench/peers/run.sh does)");
  return url;
}
