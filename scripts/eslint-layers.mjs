// The lint rule behind LAYERS (eslint.config.js): every import of a product file is resolved to
// the file it names and allowed only when that file's layer is on the importer's allow-list.
// Resolving (instead of matching the text of the specifier) is what catches `'..'`, `'../index'`
// and a folder reached under another name; static imports, re-exports, `import()` (also in
// types), `require()` and `import x = require()` are all checked, and an `import()` whose
// argument is computed is refused, since nobody can tell where it leads.
import fs from 'node:fs';
import path from 'node:path';

const EXTENSIONS = ['.ts', '.tsx', '.mts', '.mjs', '.js', '.cjs', '.json'];

/** `a/b/c.ts` → `a/b/c`; a folder → its index. Paths are relative to the project, with '/'. */
function moduleId(root, absolute) {
  let rel = path.relative(root, absolute).split(path.sep).join('/');
  const isDir = fs.existsSync(absolute) && fs.statSync(absolute).isDirectory();
  if (isDir) rel = `${rel}/index`;
  const ext = EXTENSIONS.find((e) => rel.endsWith(e));
  return ext ? rel.slice(0, -ext.length) : rel;
}

/** The layer a module belongs to: a file named exactly, else the deepest folder that holds it. */
export function layerOf(layers, id) {
  let best;
  let bestDepth = -1;
  for (const layer of layers) {
    for (const entry of layer.files) {
      if (!entry.endsWith('/')) {
        if (id === entry) return layer;
      } else if (id.startsWith(entry) && entry.length > bestDepth) {
        best = layer;
        bestDepth = entry.length;
      }
    }
  }
  return best;
}

function staticSpecifier(node) {
  if (!node) return undefined;
  if (node.type === 'Literal' && typeof node.value === 'string') return node.value;
  if (node.type === 'TemplateLiteral' && node.expressions.length === 0) return node.quasis[0].value.cooked;
  if (node.type === 'TSLiteralType') return staticSpecifier(node.literal);
  return undefined;
}

const forbidden = (packages, spec) => packages.some((p) => spec === p || spec.startsWith(`${p}/`));

/** The rule: options `{ root, layers }`, the layers as LAYERS declares them. */
export const allowedImports = {
  meta: {
    type: 'problem',
    docs: { description: 'Each layer imports only the layers on its allow-list (LAYERS in eslint.config.js).' },
    schema: [{ type: 'object', additionalProperties: true }],
  },
  create(context) {
    const { root, layers } = context.options[0];
    const byName = new Map(layers.map((l) => [l.name, l]));
    const self = layerOf(layers, moduleId(root, context.filename));

    function check(node, source) {
      const spec = staticSpecifier(source);
      if (spec === undefined) {
        context.report({ node, message: `${self.name}: a computed import() cannot be checked against LAYERS; name the module` });
        return;
      }
      if (!spec.startsWith('.')) {
        if (forbidden(self.packages ?? [], spec)) context.report({ node, message: `${self.name} must not import '${spec}': ${self.packagesWhy}` });
        return;
      }
      const target = layerOf(layers, moduleId(root, path.resolve(path.dirname(context.filename), spec)));
      if (target === self) return;
      if (target && self.may.includes(target.name)) return;
      const where = target ? `in ${target.name}` : 'in no layer';
      const may = self.may.length ? self.may.join(', ') : 'nothing of the app';
      context.report({ node, message: `${self.name} may import only ${may} ('${spec}' is ${where}): ${self.why}` });
    }

    if (!self) {
      return {
        Program(node) {
          context.report({ node, message: 'This file belongs to no layer: declare its folder in LAYERS (eslint.config.js)' });
        },
      };
    }
    for (const name of self.may) {
      if (!byName.has(name)) throw new Error(`LAYERS: ${self.name} may import '${name}', which is no layer`);
    }
    return {
      ImportDeclaration: (node) => check(node, node.source),
      ExportNamedDeclaration: (node) => node.source && check(node, node.source),
      ExportAllDeclaration: (node) => check(node, node.source),
      ImportExpression: (node) => check(node, node.source),
      TSImportType: (node) => check(node, node.argument),
      TSExternalModuleReference: (node) => check(node, node.expression),
      CallExpression(node) {
        if (node.callee.type === 'Identifier' && node.callee.name === 'require') check(node, node.arguments[0]);
      },
    };
  },
};

export default { rules: { 'allowed-imports': allowedImports } };
