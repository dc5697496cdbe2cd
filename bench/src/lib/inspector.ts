/**
 * A server's RSS after a full GC over the DevTools protocol (MEM-AS, MEM-API). The servers start
 * with the inspector closed: it is opened by SIGUSR1 for the measurement and closed again.
 */
import { pollUntil } from '#test-support/processes.js';
import { rssBytes } from './proc.js';

/** The Node flag that names a server's inspector address without opening it. */
export const inspectPortFlag = (port: number) => `--inspect-port=127.0.0.1:${port}`;

async function targetsAt(port: number): Promise<{ webSocketDebuggerUrl: string }[] | undefined> {
  try {
    return (await (await fetch(`http://127.0.0.1:${port}/json/list`)).json()) as {
      webSocketDebuggerUrl: string;
    }[];
  } catch {
    return undefined; // not listening
  }
}

/** The RSS of `pid` after a full GC, in MB, and the line's text (heap used, the RSS before it). */
export async function memoryAfterGc(pid: number, port: number): Promise<{ mb: number; text: string }> {
  const before = rssBytes(pid) / 2 ** 20;
  let targets = await targetsAt(port);
  if (!targets) {
    process.kill(pid, 'SIGUSR1');
    const listening = async () => Boolean((targets = await targetsAt(port)));
    await pollUntil(listening, `the inspector of ${pid}`, 10_000);
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
    new Promise<{ result?: { value?: string } }>((resolve, reject) => {
      const id = ++next;
      const onMessage = (ev: MessageEvent) => {
        const msg = JSON.parse(String(ev.data)) as { id?: number; result?: object; error?: unknown };
        if (msg.id !== id) return;
        ws.removeEventListener('message', onMessage);
        if (msg.error) reject(new Error(`${method}: ${JSON.stringify(msg.error)}`));
        else resolve(msg.result ?? {});
      };
      ws.addEventListener('message', onMessage);
      ws.send(JSON.stringify({ id, method, params }));
    });
  const evaluate = (expression: string) => call('Runtime.evaluate', { expression, returnByValue: true });
  try {
    await call('HeapProfiler.collectGarbage');
    const r = await evaluate('JSON.stringify(process.memoryUsage())');
    const memory = JSON.parse(r.result?.value ?? '{}') as { rss: number; heapUsed: number };
    // Closing the inspector ends this session too: deferred, so that the call gets its answer first.
    await evaluate("setImmediate(() => process.getBuiltinModule('node:inspector').close()), 'closing'");
    await pollUntil(async () => !(await targetsAt(port)), `the inspector of ${pid} to close`, 10_000);
    const mb = memory.rss / 2 ** 20;
    const heap = (memory.heapUsed / 2 ** 20).toFixed(0);
    return {
      mb,
      text: `rss ${mb.toFixed(0)} MB (heap used ${heap} MB) after a full GC; ${before.toFixed(0)} MB before it`,
    };
  } finally {
    ws.close();
  }
}
