/**
 * Asks a server for a full garbage collection and its memory use afterwards, over the DevTools
 * protocol (Node's global WebSocket), so MEM-AS and MEM-API measure what a process retains, not the
 * garbage V8 let pile up. The servers run without `--inspect`: {@link inspectPortFlag} only says where
 * the inspector will listen; it is opened here by SIGUSR1 and closed again before returning.
 */
import { pollUntil } from '#test-support/processes.js';

interface Memory {
  rss: number;
  heapUsed: number;
  heapTotal: number;
  external: number;
}

/** The Node flag that names a server's inspector address without opening it. */
export function inspectPortFlag(port: number): string {
  return `--inspect-port=127.0.0.1:${port}`;
}

/** The inspector's targets at `port`, or undefined while it is not listening. */
async function targetsAt(port: number): Promise<{ webSocketDebuggerUrl: string }[] | undefined> {
  try {
    return (await (await fetch(`http://127.0.0.1:${port}/json/list`)).json()) as {
      webSocketDebuggerUrl: string;
    }[];
  } catch {
    return undefined;
  }
}

/**
 * Opens the inspector of process `pid` (started with {@link inspectPortFlag}(`port`)), runs a full
 * GC, reads process.memoryUsage() after it, and closes the inspector again.
 */
export async function memoryAfterGc(pid: number, port: number): Promise<Memory> {
  let targets = await targetsAt(port);
  if (!targets) {
    process.kill(pid, 'SIGUSR1');
    await pollUntil(
      async () => Boolean((targets = await targetsAt(port))),
      `the inspector of process ${pid} on port ${port}`,
      10_000,
    );
  }
  const url = targets?.[0]?.webSocketDebuggerUrl;
  if (!url) throw new Error(`no inspector target on port ${port}`);
  const ws = new WebSocket(url);
  await new Promise((resolve, reject) => {
    ws.addEventListener('open', resolve, { once: true });
    ws.addEventListener('error', reject, { once: true });
  });
  let next = 0;
  const call = (method: string, params: Record<string, unknown> = {}) =>
    new Promise<Record<string, unknown>>((resolve, reject) => {
      const id = ++next;
      const onMessage = (ev: MessageEvent) => {
        const msg = JSON.parse(String(ev.data)) as {
          id?: number;
          result?: Record<string, unknown>;
          error?: unknown;
        };
        if (msg.id !== id) return;
        ws.removeEventListener('message', onMessage);
        if (msg.error) reject(new Error(`${method}: ${JSON.stringify(msg.error)}`));
        else resolve(msg.result ?? {});
      };
      ws.addEventListener('message', onMessage);
      ws.send(JSON.stringify({ id, method, params }));
    });
  try {
    await call('HeapProfiler.collectGarbage');
    const r = await call('Runtime.evaluate', {
      expression: 'JSON.stringify(process.memoryUsage())',
      returnByValue: true,
    });
    const memory = JSON.parse((r.result as { value: string }).value) as Memory;
    // Closing the inspector ends this session too: deferred, so that the call gets its answer first.
    await call('Runtime.evaluate', {
      expression: "setImmediate(() => process.getBuiltinModule('node:inspector').close()), 'closing'",
      returnByValue: true,
    });
    await pollUntil(async () => !(await targetsAt(port)), `the inspector of process ${pid} to close`, 10_000);
    return memory;
  } finally {
    ws.close();
  }
}
