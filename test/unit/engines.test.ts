// package.json `engines` says what the dependencies need (issue 17.7): every Node version it
// admits satisfies every direct dependency's own `engines.node`, and it admits no version that
// all of them would accept but it leaves out without reason. The README says what works on 20.
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = path.resolve(import.meta.dirname, '../..');
const require = createRequire(import.meta.url);
const semver = require('semver') as { satisfies(version: string, range: string): boolean };

interface Pkg {
  engines?: { node?: string };
  dependencies?: Record<string, string>;
  devDependencies?: Record<string, string>;
}
const read = (file: string) => JSON.parse(fs.readFileSync(file, 'utf8')) as Pkg;
const pkg = read(path.join(ROOT, 'package.json'));
const deps = Object.keys({ ...pkg.dependencies, ...pkg.devDependencies });
const ranges = deps.flatMap((d) => {
  const e = read(path.join(ROOT, 'node_modules', d, 'package.json')).engines?.node;
  return e ? [{ dep: d, range: e }] : [];
});

/** Node releases to try: the lines from 18 to 27, at .0, at the boundaries deps name, and late. */
const VERSIONS = [18, 19, 20, 21, 22, 23, 24, 25, 26, 27].flatMap((m) => [
  `${m}.0.0`,
  `${m}.9.0`,
  `${m}.11.0`,
  `${m}.12.0`,
  `${m}.19.0`,
  `${m}.30.0`,
]);

describe('package.json engines', () => {
  it('admits exactly the Node versions every dependency accepts', () => {
    const ours = pkg.engines?.node;
    expect(ours).toBeDefined();
    expect(ranges.length).toBeGreaterThan(5);
    for (const v of VERSIONS) {
      const refusedBy = ranges.filter((r) => !semver.satisfies(v, r.range)).map((r) => r.dep);
      expect({ v, admitted: semver.satisfies(v, ours!) }).toEqual({ v, admitted: refusedBy.length === 0 });
    }
  });

  it('the README says what works on Node 20 and what needs 22.12', () => {
    const readme = fs.readFileSync(path.join(ROOT, 'README.md'), 'utf8');
    expect(readme).toContain(pkg.engines!.node!);
    expect(readme).toMatch(/Node 20\.19/);
    expect(readme).toMatch(/22\.12/);
  });
});
