/**
 * Walks the request path from a route handler, reading it as a newcomer would: depth first, each
 * function of api/ once (at its first call, calls in evaluation order: arguments before the call,
 * callbacks passed as arguments after it), and counts "returns to a file already left": the next
 * function read lives in a file read before and left since (A → B → A counts one). Functions
 * outside api/ (core, store, workflows, node_modules) are the floor: not read. A development aid
 * for docs/ARCHITECTURE.md, "Request path"; it reads the sources and runs nothing.
 *
 *   node --import tsx scripts/requestWalk.ts [--verbose] <entry>...   entry = file:functionName | file#line
 *   e.g. api/services/turns/agentTurn.ts:runAgentTurn  api/plugins/webhook.ts:handle  api/plugins/runsIndex.ts#87
 */
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';

const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const verbose = process.argv.includes('--verbose');
const entries = process.argv.slice(2).filter((a) => a !== '--verbose');
const cfg = ts.getParsedCommandLineOfConfigFile(path.join(repo, 'tsconfig.json'), {}, { ...ts.sys, onUnRecoverableConfigFileDiagnostic: () => {} })!;
const program = ts.createProgram(cfg.fileNames, cfg.options);
const checker = program.getTypeChecker();

type Fn = ts.FunctionLikeDeclaration;
const rel = (f: string) => path.relative(repo, f);
const inScope = (f: string) => rel(f).startsWith('api/');

function nameOf(fn: ts.Node): string {
  const n = (fn as { name?: ts.Node }).name;
  if (n && ts.isIdentifier(n)) return n.text;
  const parent = fn.parent;
  if (parent && ts.isVariableDeclaration(parent) && ts.isIdentifier(parent.name)) return parent.name.text;
  if (parent && ts.isPropertyAssignment(parent) && ts.isIdentifier(parent.name)) return parent.name.text;
  return `<anon:${fn.getSourceFile().getLineAndCharacterOfPosition(fn.getStart()).line + 1}>`;
}

function bodyOf(decl: ts.Declaration): Fn | null {
  if (ts.isFunctionDeclaration(decl) || ts.isMethodDeclaration(decl) || ts.isArrowFunction(decl) || ts.isFunctionExpression(decl))
    return decl.body ? decl : null;
  if (ts.isConstructorDeclaration(decl)) return decl.body ? decl : null;
  if (ts.isVariableDeclaration(decl) && decl.initializer && (ts.isArrowFunction(decl.initializer) || ts.isFunctionExpression(decl.initializer)))
    return decl.initializer;
  if (ts.isClassDeclaration(decl)) {
    const ctor = decl.members.find(ts.isConstructorDeclaration);
    return ctor?.body ? ctor : null;
  }
  return null;
}

/** Manual edges the type checker cannot see: a closure stored on an object and called through its interface. */
const manual = new Map<string, string>([['BegunTurn.start', 'api/services/sessions.ts#144']]);

function fnAtLine(file: string, line: number): Fn {
  const sf = program.getSourceFile(path.join(repo, file))!;
  const pos = sf.getPositionOfLineAndCharacter(line - 1, 0);
  let best: Fn | null = null;
  const visit = (n: ts.Node) => {
    if (n.getStart() > pos + 400 || n.getEnd() < pos) return;
    if (ts.isFunctionLike(n) && (n as Fn).body && n.getStart() <= pos + 400 && n.getEnd() >= pos) {
      const lineStart = sf.getLineAndCharacterOfPosition(n.getStart()).line + 1;
      if (lineStart <= line + 0 || !best)
        if (lineStart >= (best ? sf.getLineAndCharacterOfPosition(best.getStart()).line + 1 : 0) && lineStart <= line) best = n as Fn;
    }
    ts.forEachChild(n, visit);
  };
  visit(sf);
  if (!best) throw new Error(`no function at ${file}#${line}`);
  return best;
}

function resolveEntry(spec: string): Fn {
  if (spec.includes('#')) {
    const [file, line] = spec.split('#');
    return fnAtLine(file!, Number(line));
  }
  const [file, name] = spec.split(':');
  const sf = program.getSourceFile(path.join(repo, file!))!;
  let found: Fn | null = null;
  const visit = (n: ts.Node) => {
    if (!found && ts.isFunctionLike(n) && (n as Fn).body && nameOf(n) === name) found = n as Fn;
    ts.forEachChild(n, visit);
  };
  visit(sf);
  if (!found) throw new Error(`no ${name} in ${file}`);
  return found;
}

function target(call: ts.CallExpression | ts.NewExpression): Fn | null {
  let sym = checker.getSymbolAtLocation(ts.isPropertyAccessExpression(call.expression) ? call.expression.name : call.expression);
  if (!sym) return null;
  if (sym.flags & ts.SymbolFlags.Alias) sym = checker.getAliasedSymbol(sym);
  for (const d of sym.declarations ?? []) {
    if (ts.isPropertySignature(d) && ts.isInterfaceDeclaration(d.parent)) {
      const key = `${d.parent.name.text}.${sym.name}`;
      const m = manual.get(key);
      if (m) return resolveEntry(m);
    }
    if (d.getSourceFile().isDeclarationFile) continue;
    const fn = bodyOf(d);
    if (fn) return fn;
  }
  return null;
}

interface Step {
  file: string;
  name: string;
  depth: number;
  ret: boolean;
}

function walk(entry: Fn): Step[] {
  const steps: Step[] = [];
  const seen = new Set<Fn>();
  const filesSeen = new Set<string>();
  const emit = (fn: Fn, depth: number) => {
    const file = rel(fn.getSourceFile().fileName);
    const prev = steps.at(-1)?.file;
    steps.push({ file, name: nameOf(fn), depth, ret: prev !== undefined && prev !== file && filesSeen.has(file) });
    filesSeen.add(file);
  };
  const enter = (fn: Fn, depth: number) => {
    if (seen.has(fn) || !inScope(fn.getSourceFile().fileName)) return;
    seen.add(fn);
    emit(fn, depth);
    if (fn.body) scan(fn.body, depth);
  };
  const scan = (node: ts.Node, depth: number) => {
    const visit = (n: ts.Node): void => {
      // A closure kept in a variable is read where it is called, not where it is declared.
      if (ts.isFunctionLike(n) && n.parent && ts.isVariableDeclaration(n.parent)) return;
      if (ts.isCallExpression(n) || ts.isNewExpression(n)) {
        const later: ts.Node[] = [];
        visit(n.expression);
        // Callbacks in the arguments (also inside object literals) run inside the callee: read after it.
        const pre = (x: ts.Node): void => {
          if (ts.isArrowFunction(x) || ts.isFunctionExpression(x) || ts.isMethodDeclaration(x)) later.push(x);
          else if (ts.isCallExpression(x) || ts.isNewExpression(x)) visit(x);
          else ts.forEachChild(x, pre);
        };
        for (const a of n.arguments ?? []) pre(a);
        const t = target(n);
        if (t) enter(t, depth + 1);
        for (const a of later) visit(a);
        return;
      }
      ts.forEachChild(n, visit);
    };
    visit(node);
  };
  enter(entry, 0);
  return steps;
}

for (const spec of entries) {
  const steps = walk(resolveEntry(spec));
  const files = new Set(steps.map((s) => s.file));
  const returns = steps.filter((s) => s.ret);
  const byFile = new Map<string, number>();
  for (const r of returns) byFile.set(r.file, (byFile.get(r.file) ?? 0) + 1);
  console.log(
    `\n## ${spec}: ${files.size} files, ${returns.length} returns${byFile.size ? ` (${[...byFile].map(([f, n]) => `${path.basename(f)} ×${n}`).join(', ')})` : ''}`,
  );
  if (verbose) for (const s of steps) console.log(`${'  '.repeat(s.depth)}${s.ret ? '↩ ' : ''}${s.file}:${s.name}`);
}
