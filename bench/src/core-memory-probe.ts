// Run as a script on the servers' core: a fixed, memory-bound piece of work (a 512 KiB array read and written
// in a scattered order, the size of a core's L2 cache), whose CPU time is printed in milliseconds. What the
// servers do is memory-bound too, so when the host's other tenants crowd that core's caches, this takes
// longer (an ALU-only loop does not: what slows is the core's caches and memory, not its clock); a server that is
// slow while this is not is slow of its own accord.
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
