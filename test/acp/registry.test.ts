// ACP agents from the registry: the list (live, cached, bundled), and installing a binary
// distribution from a local HTTP server: download, checks, SHA-256, the profile, and every way it
// can fail without leaving anything behind.
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createApiHandlers } from '../../electron/gateway/api/handlers';
import type { ConsentQuestion } from '../../electron/gateway';
import type { Envelope } from '../../shared/ipc';
import { FakeClock, openTestGateway, tempDir, waitFor, type TestGateway } from '../helpers/gateway';
import { currentPlatform } from '../../electron/gateway/installers/format';
import { tarGz, zip } from '../helpers/archives';
import {
  FIXTURE_ICON,
  fixtureArchive,
  fixtureIndex,
  launcher,
  serveFixtureRegistry,
  startRegistryServer,
  type RegistryServer,
} from '../helpers/registry-server';

let t: TestGateway | undefined;
let server: RegistryServer | undefined;
afterEach(async () => {
  t?.cleanup();
  t = undefined;
  await server?.close();
  server = undefined;
});

async function setup(opts: { maxBytes?: number; clock?: FakeClock } = {}) {
  server = await startRegistryServer();
  serveFixtureRegistry(server);
  t = openTestGateway({
    acpRegistryUrl: server.indexUrl,
    acpRegistryAllowLoopbackHttp: true,
    ...(opts.maxBytes ? { acpMaxDownloadBytes: opts.maxBytes } : {}),
    ...(opts.clock ? { now: opts.clock.now } : {}),
  });
  return { gw: t.gw, server };
}

const agentsDir = () => path.join(t!.dataDir, 'acp-agents');
const leftovers = () =>
  fs.existsSync(path.join(agentsDir(), 'fixture-agent'))
    ? fs.readdirSync(path.join(agentsDir(), 'fixture-agent'))
    : [];

describe('the registry list', () => {
  it('lists the live index with icons, then serves it from the cache for an hour', async () => {
    const clock = new FakeClock(1_000_000);
    const { gw, server } = await setup({ clock });
    const listing = await gw.acp.registry.listing();
    expect(listing.source).toBe('live');
    expect(listing.fetchedAt).toBe(1_000_000);
    expect(listing.agents).toHaveLength(13);
    const fixture = listing.agents[0]!;
    expect(fixture).toMatchObject({
      id: 'fixture-agent',
      name: 'Fixture Agent',
      version: '1.0.0',
      description: 'The ACP agent of the Sightline tests',
      distributions: ['binary'],
      icon: `data:image/svg+xml;base64,${Buffer.from(FIXTURE_ICON).toString('base64')}`,
    });
    expect(listing.agents.find((a) => a.id === 'gemini')?.distributions).toEqual(['npx']);
    // The contract's list(): the same agents.
    expect((await gw.acp.registry.list()).map((a) => a.id)).toEqual(listing.agents.map((a) => a.id));

    const fetches = () => server.hits.filter((h) => h.endsWith('registry.json')).length;
    expect(fetches()).toBe(1);
    clock.tick(59 * 60_000);
    expect((await gw.acp.registry.listing()).source).toBe('live');
    expect(fetches()).toBe(1);
    // A restart within the hour reads the cache file; its age shows.
    const gw2 = t!.restart();
    const cached = await gw2.acp.registry.listing();
    expect(cached).toMatchObject({ source: 'cache', fetchedAt: 1_000_000 });
    expect(fetches()).toBe(1);
    // Past the hour the live index is asked again.
    clock.tick(2 * 60_000);
    expect(await t!.gw.acp.registry.listing()).toMatchObject({ source: 'live', fetchedAt: clock.now() });
    expect(fetches()).toBe(2);
  });

  it('falls back to the cache, then to the bundled copy, when the live index is unreachable', async () => {
    const clock = new FakeClock(5_000_000);
    const { gw, server } = await setup({ clock });
    await gw.acp.registry.listing();
    server.routes.set('/registry/v1/latest/registry.json', (_q, res) => res.writeHead(503).end());
    const cached = await gw.acp.registry.listing({ refresh: true });
    expect(cached).toMatchObject({ source: 'cache', fetchedAt: 5_000_000 });
    expect(cached.error).toBe(`download of ${server.indexUrl} failed: HTTP 503`);
    expect(cached.agents).toHaveLength(13);

    // A fresh data folder, the server gone: the bundled snapshot, with its icons.
    await server.close();
    t!.cleanup();
    t = openTestGateway({ acpRegistryUrl: server.indexUrl, acpRegistryAllowLoopbackHttp: true });
    const bundled = await t.gw.acp.registry.listing();
    expect(bundled.source).toBe('bundled');
    expect(bundled.fetchedAt).toBeUndefined();
    // ECONNREFUSED, or the pooled connection the closed server dropped.
    expect(bundled.error).toMatch(/^could not reach 127\.0\.0\.1:\d+: (ECONNREFUSED|other side closed)$/);
    expect(bundled.agents.map((a) => a.id)).toEqual([
      'auggie',
      'claude-acp',
      'claude-code-acp',
      'codex-acp',
      'factory-droid',
      'gemini',
      'github-copilot',
      'kimi',
      'mistral-vibe',
      'opencode',
      'qoder',
      'qwen-code',
    ]);
    expect(bundled.agents.every((a) => a.icon?.startsWith('data:image/svg+xml;base64,'))).toBe(true);
  });

  it('refuses a non-HTTPS index that is not loopback, and ignores invalid entries', async () => {
    t = openTestGateway({
      acpRegistryUrl: 'http://registry.example/registry.json',
      acpRegistryAllowLoopbackHttp: true,
    });
    const listing = await t.gw.acp.registry.listing();
    expect(listing.source).toBe('bundled');
    expect(listing.error).toBe(
      'refused: http://registry.example is not HTTPS (only HTTPS downloads are allowed)',
    );
    t.cleanup();

    server = await startRegistryServer();
    const index = JSON.parse(fixtureIndex(server)) as { agents: Record<string, unknown>[] };
    index.agents.push(
      {
        id: 'Bad Id',
        name: 'x',
        version: '1.0.0',
        description: 'x',
        distribution: { npx: { package: 'x' } },
      },
      {
        id: 'flag',
        name: 'x',
        version: '1.0.0',
        description: 'x',
        distribution: { npx: { package: '--eval=evil' } },
      },
    );
    server.routes.set('/registry/v1/latest/registry.json', JSON.stringify(index));
    t = openTestGateway({ acpRegistryUrl: server.indexUrl, acpRegistryAllowLoopbackHttp: true });
    const ids = (await t.gw.acp.registry.list()).map((a) => a.id);
    expect(ids).toHaveLength(13);
    expect(ids).not.toContain('flag');
  });
});

describe('installing a binary distribution', () => {
  it('downloads, unpacks, records the SHA-256 and makes a profile that runs', async () => {
    const { gw, server } = await setup();
    const archive = server.routes.get('/download/fixture-agent-1.0.0.tar.gz') as Buffer;
    const plan = await gw.acp.registry.plan('fixture-agent');
    const folder = path.join(agentsDir(), 'fixture-agent', '1.0.0');
    expect(plan).toEqual({
      agentId: 'fixture-agent',
      name: 'Fixture Agent',
      version: '1.0.0',
      distribution: 'binary',
      profileId: 'fixture-agent',
      needs: {},
      command: path.join(folder, 'fixture-agent-1.0.0', 'fixture-agent'),
      args: ['--acp'],
      env: { FIXTURE_MODE: 'registry' },
      download: {
        url: `${server.url}/download/fixture-agent-1.0.0.tar.gz`,
        platform: plan.download!.platform,
        folder,
        maxBytes: 512 * 1024 * 1024,
      },
    });
    expect(server.hits.filter((h) => h.startsWith('/download/'))).toEqual([]); // a plan downloads nothing

    const profile = await gw.acp.registry.install('fixture-agent');
    expect(profile).toEqual({
      id: 'fixture-agent',
      name: 'Fixture Agent',
      command: plan.command,
      args: ['--acp'],
      env: { FIXTURE_MODE: 'registry' },
      // Only the person starts it, and its terminal commands are not asked one by one (issue 14).
      allowAgents: false,
      askTerminal: false,
      reach: 'agent',
    });
    expect(gw.acp.registry.installs.get('fixture-agent')).toEqual({
      profileId: 'fixture-agent',
      registryId: 'fixture-agent',
      version: '1.0.0',
      distribution: 'binary',
      source: plan.download!.url,
      sha256: createHash('sha256').update(archive).digest('hex'),
      size: archive.length,
      installDir: folder,
      installedAt: expect.any(Number),
    });
    expect(fs.readdirSync(path.join(agentsDir(), 'fixture-agent'))).toEqual(['1.0.0']);
    expect((await gw.acp.registry.listing()).agents[0]).toMatchObject({
      installedProfileId: 'fixture-agent',
      installedVersion: '1.0.0',
    });

    const cwd = fs.realpathSync(tempDir());
    const info = await gw.sessions.start({
      acpProfileId: 'fixture-agent',
      cwd,
      message: 'hello from the registry',
    });
    await waitFor(() => gw.runtime.sessionStatus(info.key) === 'idle', 8000, 'run');
    expect(gw.transcripts.all(info.key).at(-1)!.text).toBe('You said: hello from the registry');
    fs.rmSync(cwd, { recursive: true, force: true });

    // Removing the profile removes the record and the downloaded folder.
    expect(gw.acp.profiles.remove('fixture-agent')).toBe(true);
    expect(gw.acp.registry.installs.get('fixture-agent')).toBeUndefined();
    expect(fs.existsSync(folder)).toBe(false);
  });

  it('installs from a zip and keeps a hand-written profile of the same id', async () => {
    const { gw, server } = await setup();
    gw.acp.profiles.save({ id: 'fixture-agent', name: 'Mine', command: '/bin/true', args: [], env: {} });
    server.routes.set(
      '/registry/v1/latest/registry.json',
      fixtureIndex(server, '/download/fixture.zip', './bin/fixture-agent'),
    );
    server.routes.set(
      '/download/fixture.zip',
      zip([{ name: 'bin/fixture-agent', body: launcher(), mode: 0o755 }]),
    );
    const profile = await gw.acp.registry.install('fixture-agent');
    expect(profile.id).toBe('fixture-agent-2');
    expect(gw.acp.profiles.get('fixture-agent')?.name).toBe('Mine');
    expect(fs.statSync(profile.command).mode & 0o111).not.toBe(0);
  });

  const refused = async (
    archive: Buffer,
    pathName = '/download/fixture-agent-1.0.0.tar.gz',
    cmd?: string,
  ) => {
    const { gw, server } = await setup();
    if (cmd || pathName.endsWith('.zip'))
      server.routes.set('/registry/v1/latest/registry.json', fixtureIndex(server, pathName, cmd));
    server.routes.set(pathName, archive);
    const err = await gw.acp.registry.install('fixture-agent').then(
      () => undefined,
      (e: unknown) => e as Error,
    );
    expect(gw.acp.profiles.list()).toEqual([]);
    expect(gw.acp.registry.installs.list()).toEqual([]);
    expect(leftovers()).toEqual([]);
    return err?.message;
  };

  it('refuses a damaged archive (integrity) and leaves nothing', async () => {
    const good = fixtureArchive();
    expect(await refused(good.subarray(0, good.length - 40))).toMatch(
      /^Fixture Agent was not installed: the archive is damaged: /,
    );
    await server!.close();
    t!.cleanup();
    const body = zip([{ name: 'fixture-agent-1.0.0/fixture-agent', body: launcher(), mode: 0o755 }], {
      corruptCrcOf: 'fixture-agent-1.0.0/fixture-agent',
    });
    expect(await refused(body, '/download/f.zip')).toBe(
      'Fixture Agent was not installed: the archive is damaged: CRC mismatch in "fixture-agent-1.0.0/fixture-agent"',
    );
  });

  it.each([
    [
      'a ../ path (zip-slip)',
      [{ name: '../../escaped.txt', body: 'x' }],
      'entry "../../escaped.txt" points outside the folder',
    ],
    [
      'an absolute path',
      [{ name: '/tmp/escaped.txt', body: 'x' }],
      'entry "/tmp/escaped.txt" has an absolute path',
    ],
    [
      'a link out of the folder',
      [{ name: 'out', type: 'symlink' as const, link: '/etc' }],
      'link "out" points outside the folder',
    ],
    [
      'a relative link out',
      [{ name: 'a/out', type: 'symlink' as const, link: '../../..' }],
      'link "a/out" points outside the folder',
    ],
    [
      'a link under a link',
      [
        { name: 'here', type: 'symlink' as const, link: '.' },
        { name: 'here/up', type: 'symlink' as const, link: '..' },
      ],
      'link "here/up" lies under another link (not allowed)',
    ],
    [
      'a chain of links that leads out (issue 29.4: L2 → ., L1 → L2/..)',
      [
        { name: 'L2', type: 'symlink' as const, link: '.' },
        { name: 'L1', type: 'symlink' as const, link: 'L2/..' },
      ],
      'link "L1" points outside the folder',
    ],
    [
      'a hard link',
      [{ name: 'hard', type: 'hardlink' as const, link: '/etc/passwd' }],
      'entry "hard" is a hard link (not allowed)',
    ],
    [
      'a FIFO',
      [{ name: 'pipe', type: 'fifo' as const }],
      'entry "pipe" has unsupported type "6" (devices and FIFOs are not allowed)',
    ],
  ])('refuses a tar.gz with %s', async (_what, evil, message) => {
    const outside = path.join(path.dirname(tempDir()), 'escaped.txt');
    fs.rmSync(outside, { force: true });
    expect(await refused(fixtureArchive({}, evil))).toBe(`Fixture Agent was not installed: ${message}`);
    expect(fs.existsSync(outside)).toBe(false);
  });

  it('refuses a zip bomb by its ratio, streaming (issue 29.4)', async () => {
    // 48 MiB of zeros deflate to about 50 KB: a ratio of ~1000, far over the limit of 100.
    const body = zip([
      { name: 'fixture-agent-1.0.0/fixture-agent', body: launcher(), mode: 0o755 },
      { name: 'fixture-agent-1.0.0/zeros', body: Buffer.alloc(48 * 1024 * 1024) },
    ]);
    expect(body.length).toBeLessThan(1024 * 1024);
    expect(await refused(body, '/download/f.zip')).toBe(
      `Fixture Agent was not installed: the archive unpacks to more than 100 times its size (${body.length} bytes): refused as a bomb`,
    );
  });

  it('takes only strict semver versions: a version with a path never names a folder (issue 29.4)', async () => {
    server = await startRegistryServer();
    const victim = path.join(tempDir(), 'victim');
    fs.mkdirSync(victim);
    fs.writeFileSync(path.join(victim, 'keep.txt'), 'mine');
    const index = JSON.parse(fixtureIndex(server)) as { agents: Record<string, unknown>[] };
    const versions = ['1.0.0/../../../../../../../../..' + victim, '1.0.0-..', '01.0.0', '1.0.0 ', '1.0'];
    for (const version of versions) index.agents[0] = { ...index.agents[0], version };
    server.routes.set('/registry/v1/latest/registry.json', JSON.stringify(index));
    server.routes.set('/download/fixture-agent-1.0.0.tar.gz', fixtureArchive());
    t = openTestGateway({ acpRegistryUrl: server.indexUrl, acpRegistryAllowLoopbackHttp: true });
    for (const version of versions) {
      index.agents[0] = { ...index.agents[0], version };
      server.routes.set('/registry/v1/latest/registry.json', JSON.stringify(index));
      t.cleanup();
      t = openTestGateway({ acpRegistryUrl: server.indexUrl, acpRegistryAllowLoopbackHttp: true });
      expect((await t.gw.acp.registry.list()).map((a) => a.id)).not.toContain('fixture-agent');
      await expect(t.gw.acp.registry.install('fixture-agent')).rejects.toThrow(
        'Unknown registry agent: fixture-agent',
      );
    }
    expect(fs.readFileSync(path.join(victim, 'keep.txt'), 'utf8')).toBe('mine');
    // A pre-release and build metadata are semver.
    index.agents[0] = { ...index.agents[0], version: '1.0.0-beta.2+build.7' };
    server.routes.set('/registry/v1/latest/registry.json', JSON.stringify(index));
    t.cleanup();
    t = openTestGateway({ acpRegistryUrl: server.indexUrl, acpRegistryAllowLoopbackHttp: true });
    expect((await t.gw.acp.registry.list()).find((a) => a.id === 'fixture-agent')?.version).toBe(
      '1.0.0-beta.2+build.7',
    );
  });

  it('refuses a zip-slip zip', async () => {
    const body = zip([
      { name: 'fixture-agent-1.0.0/fixture-agent', body: launcher(), mode: 0o755 },
      { name: 'fixture-agent-1.0.0/../../../evil.sh', body: 'echo pwned' },
    ]);
    expect(await refused(body, '/download/f.zip')).toBe(
      'Fixture Agent was not installed: entry "fixture-agent-1.0.0/../../../evil.sh" points outside the folder',
    );
  });

  it('refuses an archive without the cmd, or with a cmd that is not executable', async () => {
    expect(await refused(tarGz([{ name: 'other', body: 'x' }]))).toBe(
      `Fixture Agent was not installed: the archive does not contain the registry's cmd "./fixture-agent-1.0.0/fixture-agent"`,
    );
    await server!.close();
    t!.cleanup();
    expect(
      await refused(tarGz([{ name: 'fixture-agent-1.0.0/fixture-agent', body: launcher(), mode: 0o644 }])),
    ).toBe(
      `Fixture Agent was not installed: the registry's cmd "./fixture-agent-1.0.0/fixture-agent" is not executable in the archive`,
    );
  });

  it('refuses more than the size limit, before and while reading', async () => {
    const archive = fixtureArchive();
    const { gw, server } = await setup({ maxBytes: 100 });
    await expect(gw.acp.registry.install('fixture-agent')).rejects.toThrow(
      `Fixture Agent was not installed: ${server.url}/download/fixture-agent-1.0.0.tar.gz is ${archive.length} bytes, more than the limit of 100 bytes; nothing was saved`,
    );
    // No Content-Length: the limit holds while the body streams.
    server.routes.set('/download/fixture-agent-1.0.0.tar.gz', (_q, res) => {
      res.writeHead(200);
      res.end(archive);
    });
    await expect(gw.acp.registry.install('fixture-agent')).rejects.toThrow(
      `Fixture Agent was not installed: ${server.url}/download/fixture-agent-1.0.0.tar.gz is larger than the limit of 100 bytes; nothing was saved`,
    );
    expect(leftovers()).toEqual([]);
  });

  it('refuses plain http without the loopback test switch, and a redirect to http', async () => {
    server = await startRegistryServer();
    serveFixtureRegistry(server);
    t = openTestGateway({ acpRegistryUrl: server.indexUrl });
    // The index itself is refused, so the bundled copy is listed: the fixture is not in it.
    await expect(t.gw.acp.registry.install('fixture-agent')).rejects.toThrow(
      'Unknown registry agent: fixture-agent',
    );
    t.cleanup();
    t = openTestGateway({ acpRegistryUrl: server.indexUrl, acpRegistryAllowLoopbackHttp: true });
    server.routes.set('/download/fixture-agent-1.0.0.tar.gz', (_q, res) =>
      res.writeHead(302, { location: 'http://downloads.example/agent.tar.gz' }).end(),
    );
    await expect(t.gw.acp.registry.install('fixture-agent')).rejects.toThrow(
      'Fixture Agent was not installed: refused: http://downloads.example is not HTTPS (only HTTPS downloads are allowed)',
    );
    expect(leftovers()).toEqual([]);
  });

  it('an agent that exits at start is not installed, and says why', async () => {
    const { gw, server } = await setup();
    server.routes.set('/download/fixture-agent-1.0.0.tar.gz', fixtureArchive({ ACP_FIXTURE_START: 'exit' }));
    await expect(gw.acp.registry.install('fixture-agent')).rejects.toThrow(
      'Fixture Agent was not installed: it could not start: agent process exited with code 4 (stderr: fixture: missing configuration, exiting)',
    );
    expect(gw.acp.profiles.list()).toEqual([]);
    expect(leftovers()).toEqual([]);
    server.routes.set(
      '/download/fixture-agent-1.0.0.tar.gz',
      fixtureArchive({ ACP_FIXTURE_START: 'auth-session' }),
    );
    await expect(gw.acp.registry.install('fixture-agent')).rejects.toThrow(
      'Fixture Agent was not installed: it could not start: agent returned a protocol error: Authentication required: log in with `fixture login` first (code -32000)',
    );
    expect(gw.acp.profiles.list()).toEqual([]);
  });
});

describe('installing from the app', () => {
  it('asks the person first (what is downloaded from where, the exact command); a no downloads nothing', async () => {
    const { gw, server } = await setup();
    const api = createApiHandlers(gw, {
      app: { name: 'Sightline', version: '0', mode: 'web', dataDir: t!.dataDir },
    });
    const asked: ConsentQuestion[] = [];
    let answer = false;
    gw.consent.plug(async (q) => {
      asked.push(q);
      return answer;
    });
    const install = () =>
      api.dispatch('acp:registry:install', { agentId: 'fixture-agent' }) as Promise<Envelope<{ id: string }>>;
    const folder = path.join(agentsDir(), 'fixture-agent', '1.0.0');
    const program = path.join(folder, 'fixture-agent-1.0.0', 'fixture-agent');

    expect(await install()).toEqual({
      ok: false,
      error: { code: 'forbidden', message: 'declined by the person' },
    });
    expect(asked).toHaveLength(1);
    expect(asked[0]).toMatchObject({
      kind: 'acp-profile',
      title: `Download Fixture Agent 1.0.0 from ${new URL(server.url).host} into ${folder} and run it`,
      command: { program, args: ['--acp'], env: { FIXTURE_MODE: 'registry' } },
    });
    expect(server.hits.filter((h) => h.startsWith('/download/'))).toEqual([]);
    expect(gw.acp.profiles.list()).toEqual([]);
    expect(gw.acp.registry.installs.list()).toEqual([]);
    expect(leftovers()).toEqual([]);

    answer = true;
    expect(await install()).toMatchObject({ ok: true, value: { id: 'fixture-agent' } });
    expect(asked).toHaveLength(2);
    // Allowed once: starting it later asks nothing more.
    const info = await gw.sessions.start({ acpProfileId: 'fixture-agent', cwd: tempDir(), message: 'hello' });
    await waitFor(() => gw.runs.list(info.key)[0]?.status === 'idle', 15_000, 'first run');
    expect(asked).toHaveLength(2);
  });
});

describe('npx and uvx distributions', () => {
  it('plans them as commands through the tools, and says when the tool is missing', async () => {
    const { gw } = await setup();
    const gemini = await gw.acp.registry.plan('gemini');
    expect(gemini).toMatchObject({
      distribution: 'npx',
      profileId: 'gemini',
      command: 'npx',
      args: ['--yes', '@google/gemini-cli@0.61.0', '--acp'],
      env: {},
    });
    expect(gemini.problem).toBeUndefined();
    const path0 = process.env.PATH;
    process.env.PATH = fs.realpathSync(tempDir());
    try {
      const plan = await gw.acp.registry.plan('qwen-code');
      expect(plan.problem).toBe(
        'npx is not installed or not on PATH (npx comes with Node.js (https://nodejs.org)); it is needed to run Qwen Code',
      );
      await expect(gw.acp.registry.install('qwen-code')).rejects.toThrow(plan.problem!);
      expect(gw.acp.profiles.list()).toEqual([]);
    } finally {
      process.env.PATH = path0;
    }
    await expect(gw.acp.registry.plan('gemini', 'binary')).rejects.toThrow(
      `Gemini CLI has no binary distribution for ${currentPlatform()}`,
    );
  });
});
