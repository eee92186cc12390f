// Gemini CLI (@google/gemini-cli) in its ACP mode (`gemini --acp`), pinned in test/tools/install.ts,
// against the Gemini stand-in: GOOGLE_GEMINI_BASE_URL and GEMINI_API_KEY, its documented way to
// use another endpoint. Fails, never skips, when it cannot be installed.
//
// Gemini CLI uses MCP servers, the ones an ACP client offers included, only in a folder it trusts
// (its folder-trust rules): in any other folder the model is never offered Sightline's tools, and
// Gemini never connects to them. Trusting a folder is the person's decision (it also lets the
// folder's own .gemini settings run), so Sightline does not make it: the profile says
// `--skip-trust` ("trust the current workspace for this session") when the person chose to.
import fs from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startGeminiStandIn } from '../helpers/standin';
import { ACP_AGENTS, ensureTool } from '../tools/install';
import { MAIN, openHarness, SIGHTLINE_TOOLS, type AgentUnderTest, type Harness } from './harness';
import { wholeTurnSuite } from './suite';

const spec = ACP_AGENTS.find((a) => a.id === 'gemini')!;
let bin = '';
beforeAll(async () => {
  bin = fs.realpathSync(await ensureTool(spec, spec.pinned));
}, 600_000);

const gemini = (trust: boolean): AgentUnderTest => ({
  id: trust ? spec.id : `${spec.id}-untrusted`,
  startModel: () => startGeminiStandIn(),
  launch: (model, home) => ({
    command: process.execPath,
    args: [bin, '--acp', ...(trust ? ['--skip-trust'] : [])],
    env: { HOME: home, GOOGLE_GEMINI_BASE_URL: model.url, GEMINI_API_KEY: 'standin-key' },
  }),
  asks: true,
  client: 'gemini-cli-mcp-client',
  // Gemini CLI answers with the turn's tokens in `_meta.quota.token_count`; no cost, no context.
  reports: { tokens: 'turn', cost: false },
});

wholeTurnSuite(gemini(true));

describe('gemini in a folder it does not trust', { timeout: 240_000 }, () => {
  let h: Harness;
  afterAll(() => h?.close());

  it('is offered no Sightline tool and never connects to them', async () => {
    h = await openHarness(gemini(false));
    h.model.script([{ text: 'Nothing to check with.' }]);
    const { key } = await h.t.gw.sessions.start({
      acpProfileId: h.profile('untrusted'),
      cwd: h.cwd(),
      message: 'Check on your coordinator.',
      parentKey: MAIN,
    });
    await h.settle(key, 1, 'the first turn');
    const offered = h.model.turns[0]!.tools;
    expect(offered.length).toBeGreaterThan(0);
    for (const tool of SIGHTLINE_TOOLS) expect(offered.some((n) => n.endsWith(tool))).toBe(false);
    expect(h.t.gw.mcp.list(key)).toEqual([expect.objectContaining({ sessionKey: key, kind: 'acp' })]);
    expect(h.t.gw.mcp.list(key)[0]?.client).toBeUndefined();
    expect(h.lastReply(key)).toBe('Nothing to check with.');
  });
});
