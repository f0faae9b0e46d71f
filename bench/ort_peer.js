// bench/ort_peer.js - onnxruntime (CPU, npm onnxruntime-node) as a peer of
// bench_exec, driven over stdin/stdout one command a line:
//   load ID MODEL.onnx INPUT.f32 D0,D1,..  -> "ok NAME" (a session, one
//        thread: intraOpNumThreads = interOpNumThreads = 1, sequential)
//   out ID                                 -> the first output, one line of
//        space-separated values
//   time ID N                              -> "ns CPU WALL": N awaited
//        session.run calls: the process's CPU time per call (user + system,
//        process.cpuUsage) and the median wall time of one (process.hrtime)
//   quit
// argv[2]: the directory holding node_modules/onnxruntime-node.
'use strict';
const path = require('path');
const fs = require('fs');
const readline = require('readline');

let ort;
try {
  ort = require(path.join(path.resolve(process.argv[2] || '.'), 'node_modules', 'onnxruntime-node'));
} catch (e) {
  process.stdout.write('error cannot load onnxruntime-node: ' + String(e.message).split('\n')[0] + '\n');
  process.exit(1);
}
let version = '?';
try {
  version = JSON.parse(fs.readFileSync(path.join(path.resolve(process.argv[2] || '.'), 'node_modules',
                                                  'onnxruntime-node', 'package.json'), 'utf8')).version;
} catch (e) { /* keep '?' */ }

const models = new Map();

async function handle(words) {
  const cmd = words[0];
  if (cmd === 'load') {
    const [id, file, input, dimsText] = words.slice(1);
    const dims = dimsText.split(',').map(Number);
    const raw = fs.readFileSync(input);
    const data = new Float32Array(raw.buffer.slice(raw.byteOffset, raw.byteOffset + raw.length));
    const session = await ort.InferenceSession.create(file, {
      intraOpNumThreads: 1, interOpNumThreads: 1, executionMode: 'sequential', graphOptimizationLevel: 'all',
    });
    const feeds = {};
    feeds[session.inputNames[0]] = new ort.Tensor('float32', data, dims);
    models.set(id, { session, feeds });
    return 'ok ' + session.inputNames[0];
  }
  if (cmd === 'out') {
    const m = models.get(words[1]);
    const r = await m.session.run(m.feeds);
    return Array.from(r[m.session.outputNames[0]].data).join(' ');
  }
  if (cmd === 'time') {
    const m = models.get(words[1]);
    const n = Number(words[2]);
    const t = new Array(n);
    const c0 = process.cpuUsage();
    for (let i = 0; i < n; i++) {
      const t0 = process.hrtime.bigint();
      await m.session.run(m.feeds);
      t[i] = Number(process.hrtime.bigint() - t0);
    }
    const c = process.cpuUsage(c0);
    t.sort((a, b) => a - b);
    return 'ns ' + ((c.user + c.system) * 1000 / n) + ' ' + t[n >> 1];
  }
  throw new Error('unknown command ' + cmd);
}

async function main() {
  process.stdout.write('ready ' + version + '\n');
  const rl = readline.createInterface({ input: process.stdin, crlfDelay: Infinity });
  for await (const line of rl) {
    const words = line.trim().split(/\s+/);
    if (!words[0]) continue;
    if (words[0] === 'quit') break;
    try {
      process.stdout.write(await handle(words) + '\n');
    } catch (e) {
      process.stdout.write('error ' + String(e.message).split('\n')[0] + '\n');
    }
  }
  process.exit(0);
}
main();
