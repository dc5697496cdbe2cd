/**
 * The code's layout stays as docs/architecture.md draws it: no import runs back up and no circle of
 * imports. dependency-cruiser reads and resolves every import of the three packages' sources (tests
 * left out); this file then looks at the graph at three scales: files (no circle), the folders and
 * top-level files under each package's `src/` (no circle: a folder that imports another folder that
 * imports it back is an import running back up a layer), and the packages (shared imports neither
 * service, and the services import each other nowhere).
 */
import { resolve } from 'node:path';
import { describe, expect, it } from '@jest/globals';
import { cruise } from 'dependency-cruiser';

const ROOT = resolve(import.meta.dirname, '../../..');
const PACKAGES = ['auth-server', 'resource-api', 'shared'] as const;

type Graph = Map<string, Set<string>>;

/** Every source module of the packages and the modules of the packages it imports. */
async function moduleGraph(): Promise<Graph> {
  const cwd = process.cwd();
  process.chdir(ROOT);
  try {
    const result = await cruise(
      PACKAGES.map((p) => `packages/${p}/src`),
      {
        exclude: { path: '\\.test\\.ts$|/dist/|\\.d\\.ts$' },
        doNotFollow: { path: 'node_modules' },
        tsPreCompilationDeps: true,
      },
    );
    const output = result.output as {
      modules: { source: string; dependencies: { module: string; resolved: string }[] }[];
    };
    const graph: Graph = new Map();
    for (const m of output.modules) {
      if (!m.source.startsWith('packages/')) continue;
      graph.set(m.source, new Set(m.dependencies.map(sourceOf).filter((d) => d.startsWith('packages/'))));
    }
    return graph;
  } finally {
    process.chdir(cwd);
  }
}

/** The source an import names: `@school/shared` is the shared package's entry, its sources' index. */
const sourceOf = (d: { module: string; resolved: string }) =>
  d.module === '@school/shared' ? 'packages/shared/src/index.ts' : d.resolved;

/** The room of a module: its package's top-level folder under src/, or the top-level file itself. */
function roomOf(path: string): string {
  const m = /^packages\/([^/]+)\/src\/([^/]+)(\/)?/.exec(path);
  return m ? `${m[1]}/${m[2]}${m[3] ? '/' : ''}` : path;
}

const packageOf = (path: string) => /^packages\/([^/]+)\//.exec(path)?.[1] ?? path;

/** The graph with every node renamed by `name`, arrows inside one new node dropped. */
function coarsen(graph: Graph, name: (node: string) => string): Graph {
  const out: Graph = new Map();
  for (const [from, tos] of graph) {
    const a = name(from);
    if (!out.has(a)) out.set(a, new Set());
    for (const to of tos) if (name(to) !== a) out.get(a)!.add(name(to));
  }
  return out;
}

/** The circles of `graph`: its strongly connected components of more than one node (Tarjan). */
export function circles(graph: Graph): string[][] {
  let next = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  const visit = (v: string) => {
    index.set(v, next);
    low.set(v, next++);
    stack.push(v);
    onStack.add(v);
    for (const w of graph.get(v) ?? []) {
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, index.get(w)!));
    }
    if (low.get(v) === index.get(v)) {
      const component: string[] = [];
      let w: string;
      do {
        w = stack.pop()!;
        onStack.delete(w);
        component.push(w);
      } while (w !== v);
      if (component.length > 1) found.push(component.sort());
    }
  };
  for (const v of graph.keys()) if (!index.has(v)) visit(v);
  return found;
}

describe('the circle finder', () => {
  it('finds a circle of three and nothing in a chain', () => {
    const g = (edges: [string, string][]): Graph => {
      const graph: Graph = new Map();
      for (const [a, b] of edges) {
        if (!graph.has(a)) graph.set(a, new Set());
        if (!graph.has(b)) graph.set(b, new Set());
        graph.get(a)!.add(b);
      }
      return graph;
    };
    expect(
      circles(
        g([
          ['a', 'b'],
          ['b', 'c'],
          ['c', 'a'],
          ['c', 'd'],
        ]),
      ),
    ).toEqual([['a', 'b', 'c']]);
    expect(
      circles(
        g([
          ['a', 'b'],
          ['b', 'c'],
          ['a', 'c'],
        ]),
      ),
    ).toEqual([]);
  });
});

describe('the import layout', () => {
  let graph: Graph;
  it('reads every source module', async () => {
    graph = await moduleGraph();
    for (const p of PACKAGES)
      expect([...graph.keys()].filter((m) => m.startsWith(`packages/${p}/src/`)).length).toBeGreaterThan(20);
    // An import the reader resolved: the auth server's app imports its config.
    expect(graph.get('packages/auth-server/src/app.ts')).toContain('packages/auth-server/src/config.ts');
  });

  it('has no circle of files', () => {
    expect(circles(graph)).toEqual([]);
  });

  it('has no import running back up: no circle of folders within a package', () => {
    expect(circles(coarsen(graph, roomOf))).toEqual([]);
  });

  it('keeps the packages apart: shared imports no service, the services import each other nowhere', () => {
    const packages = coarsen(graph, packageOf);
    expect([...packages.get('shared')!]).toEqual([]);
    expect([...packages.get('auth-server')!]).toEqual(['shared']);
    expect([...packages.get('resource-api')!]).toEqual(['shared']);
  });
});
