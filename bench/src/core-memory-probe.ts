// Run as a script on the servers' core: a fixed, memory-bound piece of work (a 512 KiB array, the size of a core's
// L2 cache, written in order and read in a scattered one), whose CPU time is printed in milliseconds. What the
// servers do is memory-bound too, so when the host slows that core's caches and memory (its other tenants, as far
// as a guest can tell), this takes longer; an ALU-only loop does not, so it is not the core's clock. A server that
// is slow while this is not is slow of its own accord.
const WORDS = 1 << 16;
const PASSES = 3_000;

const words = new Float64Array(WORDS);
let sum = 0;
const before = process.cpuUsage();
for (let pass = 0; pass < PASSES; pass++) {
  for (let i = 0; i < WORDS; i++) {
    words[i] = words[i]! * 1.0001 + i;
    sum += words[(i * 7919) & (WORDS - 1)]!;
  }
}
const used = process.cpuUsage(before);
// The sum is printed so the loop cannot be optimised away.
process.stdout.write(`${JSON.stringify({ cpuMs: (used.user + used.system) / 1000, sum: Number.isFinite(sum) })}\n`);
