// Preloaded (`node --import bench/usage-probe.mjs …`) into each measured process: on exit it writes the process's own
// CPU time and peak RSS to the file named by SVC_BENCH_USAGE. Worker threads share the process, so their memory is
// in the peak; the measured commands start no child processes.
import { writeFileSync } from 'node:fs';

const target = process.env.SVC_BENCH_USAGE;
if (target) {
  process.on('exit', () => {
    const usage = process.resourceUsage();
    writeFileSync(target, JSON.stringify({ userCpuUs: usage.userCPUTime, systemCpuUs: usage.systemCPUTime, maxRssKiB: usage.maxRSS }));
  });
}
