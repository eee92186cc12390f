// The agent seen from Sightline's side of the pipe: runs the real agent (argv) with its stdin and
// stderr passed through, and writes each line of its stdout on to Sightline — first noting, for
// every latency marker «n» in the line, the moment the line left (epoch ms, sub-millisecond) in
// the file named by SIGHTLINE_BENCH_MARKS. What happens after that moment is Sightline's.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import { performance } from 'node:perf_hooks';
import process from 'node:process';

const [command, ...args] = process.argv.slice(2);
const marks = fs.openSync(process.env.SIGHTLINE_BENCH_MARKS, 'a');
const agent = spawn(command, args, { stdio: ['pipe', 'pipe', 'inherit'] });
process.stdin.pipe(agent.stdin);
let rest = '';
agent.stdout.setEncoding('utf8');
agent.stdout.on('data', (data) => {
  const lines = (rest + data).split('\n');
  rest = lines.pop();
  for (const line of lines) {
    const found = line.match(/«\d+»/g);
    if (found) {
      const at = performance.timeOrigin + performance.now();
      fs.writeSync(marks, found.map((m) => `${m.slice(1, -1)} ${at}\n`).join(''));
    }
    process.stdout.write(`${line}\n`);
  }
});
agent.on('exit', (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
