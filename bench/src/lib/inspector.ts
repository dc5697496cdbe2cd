/**
 * Asks a server started with `--inspect` (see stack.ts) for a full garbage collection and its
 * memory use afterwards, over the DevTools protocol (Node's global WebSocket, behind
 * --experimental-websocket on Node 20). MEM uses it to measure what a process retains, not how much
 * garbage V8 chose to let pile up before collecting.
 */
interface Memory {
  rss: number;
  heapUsed: number;
  heapTotal: number;
  external: number;
}

/** Runs a full GC in the process behind inspector `port` and returns process.memoryUsage() after it. */
export async function memoryAfterGc(port: number): Promise<Memory> {
  const targets = (await (await fetch(`http://127.0.0.1:${port}/json/list`)).json()) as {
    webSocketDebuggerUrl: string;
  }[];
  const url = targets[0]?.webSocketDebuggerUrl;
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
    return JSON.parse((r.result as { value: string }).value) as Memory;
  } finally {
    ws.close();
  }
}
