// Each domain owns its SQL (house rule; issue 27.4): SQL text, `.prepare()` and `.pragma()` stand
// only in the repository modules below, one line a domain, and in db/ (opening, migrating and
// checking the database itself). Services and API handlers hold no SQL. Modules that still hold
// SQL outside their domain's repository are listed as debt, by the folder's owner: the list may
// only shrink, and a listed module that lost its SQL fails until its line goes.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');

/** The repository modules: a folder (ending in '/') or a file, with the domain it serves. */
const OWNERS: Record<string, string> = {
  'electron/gateway/db/': 'the database: open, migrations, integrity, backups',
  'electron/gateway/state/repo.ts': 'state: the signal log, heads and watch cursors',
  'electron/gateway/state/prune.ts': 'state: retention, one transaction of deletes',
  'electron/gateway/state/notice-repository.ts': 'state: the notice history',
  'electron/gateway/sessions/store.ts': 'sessions',
  'electron/gateway/sessions/transcripts.ts': 'sessions: transcripts and their search index',
  'electron/gateway/runtime/runs.ts': 'runs',
  'electron/gateway/runtime/agent-repository.ts': 'agents',
  'electron/gateway/runtime/goal-store.ts': 'goals',
  'electron/gateway/runtime/acp/profile-store.ts': 'ACP agent profiles',
  'electron/gateway/mcp/credential-repository.ts': 'MCP credentials and the endpoint port',
  'electron/gateway/person/repository.ts': 'the person: dismissals, preferences, seen',
  'electron/gateway/ownership/repository.ts': 'ownership: owners, claims, epochs',
  'electron/gateway/ownership/lock.ts': "ownership: a gateway's own lock file (not the state database)",
  'electron/gateway/trust/consent-store.ts': 'consents',
  'electron/gateway/installers/install-store.ts': 'agent installs',
  'electron/gateway/nodes/repository.ts': 'paired nodes',
  'electron/gateway/worktrees/repository.ts': 'worktrees',
  'electron/gateway/catalog/links.ts': 'catalog: upstream links',
  'electron/gateway/catalog/catalog-index.ts': 'catalog: the index of listed transcripts (migration 021)',
  'electron/gateway/catalog/sqlite.ts': "catalog: opens another tool's database read-only",
  'electron/gateway/catalog/opencode/store.ts': "catalog: OpenCode's own database (read-only)",
  'electron/node/sqlite.ts': "a node: opens OpenCode's database read-only",
  'electron/serve/accounts.ts': "serve: the accounts of the serve gateway's own database",
};

/** SQL outside its domain's repository, with the folder's owner: to move, never to grow. */
const DEBT: Record<string, string> = {};

const SQL = /^\s*(SELECT|INSERT|UPDATE|DELETE|REPLACE|CREATE|DROP|ALTER|PRAGMA|WITH|BEGIN|VACUUM|ATTACH)\s/;
const SQL_CALLS = new Set(['prepare', 'pragma']);

function sourceFiles(dir: string): string[] {
  return fs.readdirSync(path.join(ROOT, dir), { recursive: true, withFileTypes: true }).flatMap((e) => {
    const rel = path.relative(ROOT, path.join(e.parentPath, e.name)).split(path.sep).join('/');
    return e.isFile() && /\.tsx?$/.test(e.name) && !e.name.endsWith('.d.ts') ? [rel] : [];
  });
}

/** Where a file holds SQL: the first few places, as `line: text`. */
function sqlIn(file: string, text: string): string[] {
  const sf = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
  const found: string[] = [];
  const at = (n: ts.Node, what: string) =>
    found.push(`${sf.getLineAndCharacterOfPosition(n.getStart()).line + 1}: ${what.trim().slice(0, 40)}`);
  const visit = (n: ts.Node): void => {
    if (
      (ts.isStringLiteral(n) || ts.isNoSubstitutionTemplateLiteral(n) || ts.isTemplateHead(n)) &&
      SQL.test(n.text)
    )
      at(n, n.text);
    else if (
      ts.isCallExpression(n) &&
      ts.isPropertyAccessExpression(n.expression) &&
      SQL_CALLS.has(n.expression.name.text) &&
      // SQL is handed over as text; an agent host's prepare(profile, cwd) is not a statement.
      n.arguments.length === 1 &&
      (ts.isStringLiteralLike(n.arguments[0]!) || ts.isTemplateExpression(n.arguments[0]!))
    )
      at(n, `.${n.expression.name.text}(`);
    ts.forEachChild(n, visit);
  };
  visit(sf);
  return found;
}

const owned = (file: string) =>
  Object.keys(OWNERS).some((o) => (o.endsWith('/') ? file.startsWith(o) : file === o));

describe('each domain owns its SQL', () => {
  const holders = new Map<string, string[]>();
  for (const file of ['electron', 'shared', 'renderer/src'].flatMap(sourceFiles)) {
    const found = sqlIn(file, fs.readFileSync(path.join(ROOT, file), 'utf8'));
    if (found.length) holders.set(file, found);
  }

  it('SQL stands only in repository modules and db/ (or listed debt)', () => {
    const strays = [...holders].filter(([f]) => !owned(f) && !(f in DEBT)).map(([f, w]) => `${f} ${w[0]}`);
    expect(strays, 'move these statements into the domain repository (OWNERS)').toEqual([]);
  });

  it('every listed owner and debt still holds SQL (the lists tell the truth)', () => {
    const listed = [...Object.keys(OWNERS).filter((o) => !o.endsWith('/')), ...Object.keys(DEBT)];
    expect(listed.filter((f) => !holders.has(f))).toEqual([]);
  });

  it('the check sees SQL text, prepared statements and pragmas, not prose', () => {
    const probe = [
      "const a = db.prepare('x');",
      'const b = `SELECT * FROM runs`;',
      "db.pragma('foreign_keys = OFF');",
      'const c = `DELETE FROM t WHERE id = ${1}`;',
      "const prose = 'Select a session'; const re = /x/.exec('y');",
    ].join('\n');
    expect(sqlIn('probe.ts', probe).map((w) => w.split(':')[0])).toEqual(['1', '2', '3', '4']);
  });

  it('api handlers get no database handle', () => {
    for (const file of sourceFiles('electron/gateway/api')) {
      const text = fs.readFileSync(path.join(ROOT, file), 'utf8');
      expect(text, file).not.toMatch(/\bdb\s*[:,)]|\.db\b|from '\.\.\/db\//);
    }
  });
});
