// Preloaded into the server by bench/upload.ts (`node --require`): reports the event loop's delay
// histogram over IPC when asked, then resets it. Not part of the server.
const { monitorEventLoopDelay } = require('node:perf_hooks');
const histogram = monitorEventLoopDelay({ resolution: 5 });
histogram.enable();
process.on('message', (m) => {
  if (m !== 'loop-delay') return;
  process.send({ maxMs: histogram.max / 1e6, p99Ms: histogram.percentile(99) / 1e6 });
  histogram.reset();
});
process.channel?.unref();
