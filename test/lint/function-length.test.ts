// No product function over 80 lines (house rule; issue 27.2), except composition roots that say
// why. The functions that were longer when the rule got its test are listed below as debt: the
// list may only shrink. A new long function fails here; a listed one that got short (or moved)
// fails too, until its line is removed, so the list always tells the truth.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const MAX = 80;

/** Long on purpose: the file says why within a few lines above the function. */
const COMPOSITION_ROOTS = [
  'electron/gateway/index.ts#createGateway',
  'electron/gateway/catalog/index.ts#createCatalog',
];

/** Longer than 80 lines when this test was written: to be split, never to grow in number. */
const DEBT: string[] = [];

interface Long {
  id: string;
  lines: number;
  /** The four lines above it. */
  lead: string;
}

function sourceFiles(dir: string): string[] {
  return fs.readdirSync(path.join(ROOT, dir), { recursive: true, withFileTypes: true }).flatMap((e) => {
    const rel = path.relative(ROOT, path.join(e.parentPath, e.name)).split(path.sep).join('/');
    return e.isFile() && /\.tsx?$/.test(e.name) && !e.name.endsWith('.d.ts') ? [rel] : [];
  });
}

/** The name a person would search for: the function's own, else the variable or key holding it. */
function nameOf(node: ts.Node): string {
  for (let n: ts.Node | undefined = node; n; n = n.parent) {
    const named = n as ts.Node & { name?: ts.Node };
    if (
      (ts.isFunctionDeclaration(n) ||
        ts.isMethodDeclaration(n) ||
        ts.isVariableDeclaration(n) ||
        ts.isPropertyAssignment(n)) &&
      named.name
    )
      return named.name.getText();
  }
  return '(anonymous)';
}

function longFunctions(): Long[] {
  const found: Long[] = [];
  for (const file of ['electron', 'shared', 'renderer/src'].flatMap(sourceFiles)) {
    const text = fs.readFileSync(path.join(ROOT, file), 'utf8');
    const sf = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
    const visit = (n: ts.Node): void => {
      if (ts.isFunctionLike(n) && 'body' in n && n.body) {
        const first = sf.getLineAndCharacterOfPosition(n.getStart()).line;
        const lines = sf.getLineAndCharacterOfPosition(n.end).line - first + 1;
        if (lines > MAX) {
          const lead = text
            .split('\n')
            .slice(Math.max(0, first - 4), first + 1)
            .join('\n');
          found.push({ id: `${file}#${nameOf(n)}`, lines, lead });
        }
      }
      ts.forEachChild(n, visit);
    };
    visit(sf);
  }
  return found;
}

describe(`no product function over ${MAX} lines`, () => {
  const found = longFunctions();
  const ids = new Set(found.map((f) => f.id));

  it('every longer one is a composition root that says why, or listed debt', () => {
    const unlisted = found.filter((f) => !COMPOSITION_ROOTS.includes(f.id) && !DEBT.includes(f.id));
    expect(
      unlisted.map((f) => `${f.id} (${f.lines} lines)`),
      `split these below ${MAX} lines`,
    ).toEqual([]);
  });

  it('the composition roots say why they are long', () => {
    for (const id of COMPOSITION_ROOTS) {
      const [file] = id.split('#');
      const head = fs.readFileSync(path.join(ROOT, file!), 'utf8').split('\n').slice(0, 6).join('\n');
      const lead = found.find((f) => f.id === id)?.lead ?? '';
      expect(`${head}\n${lead}`, id).toMatch(/composition root/i);
      expect(`${head}\n${lead}`, id).toMatch(/on purpose|because|why/i);
    }
  });

  it('the debt list only shrinks: a listed function that is short now leaves the list', () => {
    expect(
      DEBT.filter((id) => !ids.has(id)),
      `remove these from DEBT in test/lint/function-length.test.ts`,
    ).toEqual([]);
  });
});
