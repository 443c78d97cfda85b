// `record` is transparent: what a client sends reaches the target byte for byte — a missing or
// foreign Host, conflicting Content-Length values, a malformed request line, pipelined requests —
// and what the target answers reaches the client byte for byte, the recorder never answering for
// it. Only a Host naming the recorder's own address becomes the target's. Each exchange is still
// recorded, a request that was not ordinary HTTP/1.1 marked so and left unjudged.
import assert from 'node:assert/strict';
import { once } from 'node:events';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { connect, createServer, type AddressInfo, type Server, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { RecordedExchange } from '../recording-format.ts';
import { startRecorder, type RunningRecorder } from '../recorder.ts';
import { Digester } from '../secret-digest.ts';

const dir = mkdtempSync(join(tmpdir(), 'token-conformance-relay-'));
let target: Server;
let targetHost: string;
/** What the target received on each connection, and how it answers what it has received so far. */
const received: Buffer[][] = [];
let answer: (socket: Socket, receivedSoFar: string) => void = () => {};

void before(async () => {
  target = createServer({ allowHalfOpen: true }, (socket) => {
    const chunks: Buffer[] = [];
    received.push(chunks);
    socket.on('data', (c: Buffer) => {
      chunks.push(c);
      answer(socket, Buffer.concat(chunks).toString('latin1'));
    });
    socket.on('error', () => {});
  });
  await new Promise<void>((r) => target.listen(0, '127.0.0.1', r));
  targetHost = `127.0.0.1:${(target.address() as AddressInfo).port}`;
});
void after(async () => {
  await new Promise<void>((r) => target.close(() => r()));
  rmSync(dir, { recursive: true, force: true });
});

let file = 0;
async function recorder(): Promise<{ rec: RunningRecorder; out: string; port: number }> {
  const out = join(dir, `r${file++}.jsonl`);
  const origin = `http://${targetHost}`;
  const rec = await startRecorder({
    upstreams: { authUrlUs: origin, authUrlEu: origin, baseUrl: origin },
    out,
    digester: Digester.fromEnv('K', { K: 'relay-test-key-0123456789abcdef' })!,
  });
  return { rec, out, port: Number(new URL(rec.urls.baseUrl).port) };
}

/** Sends `bytes` on one connection to the recorder; resolves with everything the client received once the connection ends. */
async function exchange(port: number, bytes: string, endAfterSend = false): Promise<string> {
  const socket = connect({ host: '127.0.0.1', port });
  await once(socket, 'connect');
  const got: Buffer[] = [];
  socket.on('data', (c: Buffer) => got.push(c));
  socket.write(Buffer.from(bytes, 'latin1'));
  if (endAfterSend) socket.end();
  await once(socket, 'close');
  return Buffer.concat(got).toString('latin1');
}

const records = (out: string): RecordedExchange[] =>
  readFileSync(out, 'utf8')
    .split('\n')
    .filter(Boolean)
    .slice(1)
    .map((l) => JSON.parse(l) as RecordedExchange);

const closingAnswer = (status: string, body: string) =>
  `HTTP/1.1 ${status}\r\nContent-Type: text/plain\r\nContent-Length: ${body.length}\r\nConnection: close\r\n\r\n${body}`;

void describe('record relays byte for byte', () => {
  void test("a Host naming the recorder becomes the target's; a missing or foreign Host passes untouched", async () => {
    const { rec, out, port } = await recorder();
    answer = (socket, so) => {
      if (so.endsWith('\r\n\r\n')) socket.end(closingAnswer('200 OK', 'ok'));
    };
    const cases = [
      [
        `GET /v1/a HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nX-A: 1\r\n\r\n`,
        `GET /v1/a HTTP/1.1\r\nHost: ${targetHost}\r\nX-A: 1\r\n\r\n`,
      ],
      ['GET /v1/b HTTP/1.1\r\nX-A: 1\r\n\r\n', 'GET /v1/b HTTP/1.1\r\nX-A: 1\r\n\r\n'],
      [
        'GET /v1/c HTTP/1.1\r\nHOST:   other.example  \r\n\r\n',
        'GET /v1/c HTTP/1.1\r\nHOST:   other.example  \r\n\r\n',
      ],
      [
        `GET http://127.0.0.1:${port}/v1/d HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\n\r\n`,
        `GET http://${targetHost}/v1/d HTTP/1.1\r\nHost: ${targetHost}\r\n\r\n`,
      ],
    ] as const;
    for (const [sent, expected] of cases) {
      const before = received.length;
      const got = await exchange(port, sent);
      assert.equal(Buffer.concat(received[before]!).toString('latin1'), expected);
      assert.equal(got, closingAnswer('200 OK', 'ok'), 'the client gets the target answer as it was sent');
    }
    await rec.close();
    const recorded = records(out);
    assert.deepEqual(
      recorded.map((r) => [r.request.url, r.response?.status]),
      ['a', 'b', 'c', 'd'].map((x) => [`http://${targetHost}/v1/${x}`, 200]),
    );
    assert.deepEqual(recorded[1]!.request.headers, [['X-A', '1']], 'no Host recorded where none was sent');
  });

  void test('conflicting Content-Length and a malformed request line reach the target as sent, and its answer the client', async () => {
    const { rec, out, port } = await recorder();
    answer = (socket, so) => {
      if (so.includes('\r\n\r\n')) socket.end(closingAnswer('400 Bad Request', '000-1000'));
    };
    const conflicting = `POST /v1/people HTTP/1.1\r\nHost: ${targetHost}\r\nContent-Length: 3\r\nContent-Length: 5\r\n\r\nabcde`;
    const malformedLine = `GET /v1/a b HTTP/1.1\r\nHost: ${targetHost}\r\n\r\n`;
    for (const sent of [conflicting, malformedLine]) {
      const before = received.length;
      const got = await exchange(port, sent);
      assert.equal(Buffer.concat(received[before]!).toString('latin1'), sent);
      assert.equal(got, closingAnswer('400 Bad Request', '000-1000'));
    }
    await rec.close();
    const recorded = records(out);
    assert.equal(recorded.length, 2);
    assert.match(recorded[0]!.request.malformed ?? '', /conflicting Content-Length values \(3, 5\)/);
    assert.match(recorded[1]!.request.malformed ?? '', /request line/);
    assert.deepEqual(
      recorded.map((r) => r.response?.status),
      [400, 400],
    );
  });

  void test('pipelined requests, a chunked answer, a HEAD and a 100 Continue are cut into their exchanges', async () => {
    const { rec, out, port } = await recorder();
    const answers =
      'HTTP/1.1 100 Continue\r\n\r\n' +
      'HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n4\r\n{"a"\r\n3\r\n:1}\r\n0\r\n\r\n' +
      'HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 99\r\n\r\n' +
      'HTTP/1.1 201 Created\r\nContent-Type: text/plain\r\nContent-Length: 2\r\nConnection: close\r\n\r\nok';
    answer = (socket, so) => {
      if ((so.match(/HTTP\/1\.1\r\n/g) ?? []).length === 3 && so.endsWith('xyz\r\n0\r\n\r\n')) socket.end(answers);
    };
    const sent =
      `POST /v1/one HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nContent-Type: application/x-www-form-urlencoded\r\nContent-Length: 3\r\nExpect: 100-continue\r\n\r\na=b` +
      `HEAD /v1/two HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\n\r\n` +
      `POST /v1/three HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nxyz\r\n0\r\n\r\n`;
    const got = await exchange(port, sent);
    assert.equal(got, answers);
    await rec.close();
    const recorded = records(out);
    assert.deepEqual(
      recorded.map((r) => [
        r.request.method,
        new URL(r.request.url).pathname,
        r.response?.status,
        r.response?.body.text,
      ]),
      [
        ['POST', '/v1/one', 200, '{"a":1}'],
        ['HEAD', '/v1/two', 200, undefined],
        ['POST', '/v1/three', 201, 'ok'],
      ],
    );
  });

  void test('a target that closes without answering: the client sees the close, not an answer of the recorder', async () => {
    const { rec, out, port } = await recorder();
    answer = (socket, so) => {
      if (so.endsWith('\r\n\r\n')) socket.destroy();
    };
    const got = await exchange(port, `GET /v1/a HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\n\r\n`);
    assert.equal(got, '');
    await rec.close();
    const recorded = records(out);
    assert.equal(recorded.length, 1);
    assert.equal(recorded[0]!.response, undefined);
  });

  void test("a target that closes an idle keep-alive connection: the client's stays open, and its next request reaches the target on a new one", async () => {
    const { rec, out, port } = await recorder();
    const before = received.length;
    // Answers every request with a persistent answer, then closes the connection as an idle timeout would.
    let firstClosed: Promise<unknown> | undefined;
    answer = (socket, so) => {
      if (!so.endsWith('\r\n\r\n')) return;
      socket.write('HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok');
      socket.end();
      firstClosed ??= once(socket, 'close');
    };
    const socket = connect({ host: '127.0.0.1', port });
    await once(socket, 'connect');
    const got: Buffer[] = [];
    let answers = 0;
    const nextAnswer = () =>
      new Promise<void>((resolve, reject) => {
        const onData = (c: Buffer) => {
          got.push(c);
          const seen = Buffer.concat(got).toString('latin1').split('\r\n\r\nok').length - 1;
          if (seen > answers) {
            answers = seen;
            socket.off('data', onData);
            resolve();
          }
        };
        socket.on('data', onData);
        socket.once('close', () => reject(new Error(`the client's connection closed after ${answers} answer(s)`)));
      });
    const request = (path: string) => `GET ${path} HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\n\r\n`;
    socket.write(request('/v1/first'));
    await nextAnswer();
    // The first connection is closed on both sides (the recorder ended its side on the target's close),
    // and the client's connection is not: its next request is answered.
    await firstClosed;
    socket.write(request('/v1/second'));
    await nextAnswer();
    socket.end();
    await once(socket, 'close');
    await rec.close();
    assert.equal(received.length - before, 2, 'the second request went on a connection of its own');
    assert.deepEqual(
      records(out).map((r) => [new URL(r.request.url).pathname, r.response?.status]),
      [
        ['/v1/first', 200],
        ['/v1/second', 200],
      ],
    );
  });

  void test('an answer delimited by the close, or one that says Connection: close: the client sees the close', async () => {
    const { rec, port } = await recorder();
    answer = (socket, so) => {
      if (!so.endsWith('\r\n\r\n')) return;
      socket.end('HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\n\r\nuntil the close');
    };
    const untilClose = await exchange(port, `GET /v1/a HTTP/1.1\r\nHost: x\r\n\r\n`);
    assert.match(untilClose, /until the close$/);
    answer = (socket, so) => {
      if (!so.endsWith('\r\n\r\n')) return;
      socket.end(closingAnswer('200 OK', 'closed'));
    };
    const closing = await exchange(port, `GET /v1/b HTTP/1.1\r\nHost: x\r\n\r\n`);
    assert.match(closing, /closed$/);
    await rec.close();
  });

  void test("near the target's stated keep-alive time, the next request goes on a new connection (it never meets the close)", async () => {
    const { rec, out, port } = await recorder();
    const before = received.length;
    // A target that keeps idle connections 2 s by its Keep-Alive header: within the recorder's margin at once.
    answer = (socket, so) => {
      const requests = so.split('\r\n\r\n').length - 1;
      const answered = (socket as Socket & { answered?: number }).answered ?? 0;
      if (requests > answered) {
        // A server's way with a connection the other side ended: ends its own.
        if (answered === 0) socket.once('end', () => socket.end());
        (socket as Socket & { answered?: number }).answered = requests;
        socket.write('HTTP/1.1 200 OK\r\nKeep-Alive: timeout=2\r\nContent-Length: 2\r\n\r\nok');
      }
    };
    const socket = connect({ host: '127.0.0.1', port });
    await once(socket, 'connect');
    let got = '';
    const answersReach = (n: number) =>
      new Promise<void>((resolve) => {
        const onData = (c: Buffer) => {
          got += c.toString('latin1');
          if (got.split('\r\n\r\nok').length - 1 >= n) {
            socket.off('data', onData);
            resolve();
          }
        };
        socket.on('data', onData);
      });
    socket.write(`GET /v1/one HTTP/1.1\r\nHost: x\r\n\r\n`);
    await answersReach(1);
    socket.write(`GET /v1/two HTTP/1.1\r\nHost: x\r\n\r\n`);
    await answersReach(2);
    socket.end();
    await once(socket, 'close');
    await rec.close();
    assert.equal(received.length - before, 2);
    assert.equal(records(out).length, 2);
  });
});
