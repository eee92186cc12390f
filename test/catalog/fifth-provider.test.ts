// A fifth tool touches its own folder and one registration line. "Jot" (test/catalog/fifth-provider:
// the provider module, its fixtures and a stand-in CLI) is registered next to the four real
// providers and then goes through everything the catalog does: listing, adoption with its
// transcript, the monitor (human rows, tool rows, self-echo, deletion) and "continue".
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { PROVIDER_MODULES } from '../../electron/gateway/catalog';
import { humanTurns, line, makeHarness, tmpDir, type Harness } from './helpers';
import { jotProvider } from './fifth-provider/jot';

const HERE = path.join(__dirname, 'fifth-provider');
const KEY = 'agent:main:adopted:jot:jot-0001';

let h: Harness | undefined;
let root = '';
afterEach(() => {
  h?.cleanup();
  h = undefined;
  fs.rmSync(root, { recursive: true, force: true });
});

function setup(): Harness {
  root = tmpDir('sightline-jot-');
  fs.cpSync(path.join(HERE, 'fixtures', 'sessions'), root, { recursive: true });
  const PATH = [path.join(HERE, 'bin'), path.dirname(process.execPath)].join(path.delimiter);
  h = makeHarness({
    providers: [...PROVIDER_MODULES, jotProvider], // the one registration line
    roots: { jot: root },
    env: { PATH, JOT_HOME: root },
  });
  return h;
}

const say = (who: string, text: string) => line({ kind: 'say', who, at: '2026-03-02T10:00:00.000Z', text });

describe('a fifth catalog provider', () => {
  it('its folder uses only the provider seam and the kit, nothing else of the gateway', () => {
    const src = fs.readFileSync(path.join(HERE, 'jot.ts'), 'utf8');
    const imports = [...src.matchAll(/from '([^']+)'/g)].map((m) => m[1]!);
    expect(imports.filter((i) => i.startsWith('.'))).toEqual([
      '../../../electron/gateway/types',
      '../../../electron/gateway/catalog/provider',
      '../../../electron/gateway/catalog/kit/jsonl-source',
      '../../../electron/gateway/catalog/kit/rules',
      '../../../electron/gateway/catalog/kit/windows',
    ]);
  });

  it('lists, adopts with its transcript, and the monitor counts only the person', async () => {
    const harness = setup();
    const entry = harness.catalog.list().find((e) => (e.provider as string) === 'jot');
    expect(entry).toMatchObject({
      threadId: 'jot-0001',
      title: 'Tidy the invoice tests',
      cwd: '/home/ana/src/ledger-api',
    });
    const info = harness.catalog.adopt({ provider: 'jot', threadId: 'jot-0001' });
    expect(info.key).toBe(KEY);
    expect(harness.events.find((e) => e.kind === 'adopted')).toMatchObject({
      summary: 'adopted from jot',
      payload: { catalogId: 'jot', hostId: 'test-host' },
    });
    expect(harness.imported.get(KEY)).toEqual([
      { role: 'user', text: 'The invoice tests are slow. Find out why.' },
      { role: 'assistant', text: 'Looking at the fixtures.' },
      { role: 'assistant', text: '', toolCalls: [{ name: 'grep' }] },
    ]);

    const file = path.join(root, 'jot-0001.jsonl');
    fs.appendFileSync(
      file,
      say('bot', 'Found it.') + say('person', 'Make it faster') + say('person', 'and keep'),
    );
    await harness.catalog.tick();
    expect(humanTurns(harness.events, KEY)).toEqual({ events: 1, turns: 2 });
    expect(harness.events.filter((e) => e.kind === 'human_direct_message')[0]).toMatchObject({
      summary: 'human message via jot',
    });
    await harness.catalog.tick();
    expect(humanTurns(harness.events, KEY)).toEqual({ events: 1, turns: 2 });
  });

  it('continues through its own CLI; the echo of that text is not human activity', async () => {
    const harness = setup();
    // "continue" runs only in the folder recorded at adoption, and only if it exists (issue 14.5).
    const file = path.join(root, 'jot-0001.jsonl');
    fs.writeFileSync(
      file,
      fs.readFileSync(file, 'utf8').replace('"/home/ana/src/ledger-api"', JSON.stringify(root)),
    );
    harness.catalog.adopt({ provider: 'jot', threadId: 'jot-0001' });
    await harness.catalog.continue(KEY, '-run the tests');
    expect(fs.readFileSync(path.join(root, 'jot-0001.jsonl'), 'utf8')).toContain('"text":"-run the tests"');
    expect(harness.imported.get(KEY)!.slice(-2)).toEqual([
      { role: 'user', text: '-run the tests' },
      { role: 'assistant', text: 'On it.' },
    ]);
    await harness.catalog.tick();
    expect(humanTurns(harness.events, KEY).turns).toBe(0);
  });

  it('a removed transcript is upstream_missing after three checks, once', async () => {
    const harness = setup();
    harness.catalog.adopt({ provider: 'jot', threadId: 'jot-0001' });
    fs.rmSync(path.join(root, 'jot-0001.jsonl'));
    for (let i = 0; i < 5; i++) await harness.catalog.tick();
    expect(harness.events.filter((e) => e.kind === 'upstream_missing')).toEqual([
      expect.objectContaining({ sessionKey: KEY, summary: 'upstream missing via jot' }),
    ]);
  });
});
