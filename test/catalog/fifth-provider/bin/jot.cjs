// A stand-in for the Jot CLI: `jot --session=<id> [--] <text>` appends the text as the person's
// row (as real tools record a prompt sent from their CLI) and prints a reply.
const fs = require('node:fs');
const path = require('node:path');
const args = process.argv.slice(2);
const id = args.find((a) => a.startsWith('--session=')).slice('--session='.length);
const text = args[args.length - 1];
const file = path.join(process.env.JOT_HOME, `${id}.jsonl`);
fs.appendFileSync(
  file,
  JSON.stringify({ kind: 'say', who: 'person', at: new Date().toISOString(), text }) + '\n',
);
process.stdout.write('On it.\n');
