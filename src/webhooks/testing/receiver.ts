// A real local webhook receiver for tests and the benchmark: node:http on
// 127.0.0.1 (port 0), recording every request; `respond` decides each answer.
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface ReceivedRequest {
  readonly path: string;
  readonly headers: Readonly<Record<string, string>>;
  readonly body: string;
  readonly at: number;
}

/** A status code, 'hang' (never answer) or 'drop' (close the connection without answering). */
export type Answer = number | 'hang' | 'drop' | { status: number; headers: Record<string, string> };

export interface Receiver {
  readonly port: number;
  url(path?: string): string;
  /** Every request, in arrival order. */
  readonly requests: ReceivedRequest[];
  /** Requests answered with a 2xx, in order. */
  readonly acknowledged: ReceivedRequest[];
  respond: (req: ReceivedRequest, index: number) => Answer;
  /** Stops listening: connections are refused until restart(). */
  stop(): Promise<void>;
  /** Listens again on the same port. */
  restart(): Promise<void>;
  waitFor(condition: () => boolean, timeoutMs?: number): Promise<void>;
  close(): Promise<void>;
}

function flatHeaders(headers: http.IncomingHttpHeaders): Record<string, string> {
  return Object.fromEntries(Object.entries(headers).map(([k, v]) => [k, Array.isArray(v) ? v.join(', ') : String(v)]));
}

export async function startReceiver(respond: Receiver['respond'] = () => 204): Promise<Receiver> {
  const requests: ReceivedRequest[] = [];
  const acknowledged: ReceivedRequest[] = [];
  let server: http.Server | null = null;
  let port = 0;

  const handler: http.RequestListener = (req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const received = { path: req.url ?? '/', headers: flatHeaders(req.headers), body: Buffer.concat(chunks).toString('utf8'), at: Date.now() };
      const index = requests.push(received) - 1;
      const answer = receiver.respond(received, index);
      if (answer === 'hang') return;
      if (answer === 'drop') return void req.socket.destroy();
      const { status, headers } = typeof answer === 'number' ? { status: answer, headers: {} } : answer;
      if (status >= 200 && status < 300) acknowledged.push(received);
      res.writeHead(status, headers).end();
    });
  };

  async function listen(on: number): Promise<void> {
    server = http.createServer(handler);
    await new Promise<void>((resolve, reject) => {
      server!.once('error', reject);
      server!.listen(on, '127.0.0.1', () => resolve());
    });
    port = (server.address() as AddressInfo).port;
  }

  async function stop(): Promise<void> {
    const current = server;
    server = null;
    if (!current) return;
    current.closeAllConnections();
    await new Promise<void>((resolve) => current.close(() => resolve()));
  }

  await listen(0);
  const receiver: Receiver = {
    get port() { return port; },
    url: (path = '/hook') => `http://127.0.0.1:${port}${path}`,
    requests,
    acknowledged,
    respond,
    stop,
    restart: () => listen(port),
    async waitFor(condition, timeoutMs = 10_000) {
      const deadline = Date.now() + timeoutMs;
      while (!condition()) {
        if (Date.now() > deadline) throw new Error(`receiver: condition not met within ${timeoutMs} ms (${requests.length} requests, ${acknowledged.length} acknowledged)`);
        await new Promise((r) => setTimeout(r, 10));
      }
    },
    close: stop,
  };
  return receiver;
}
