// Drives `bioagent serve`'s /mcp endpoint (MCP over Streamable HTTP) with the
// official MCP TypeScript SDK client: initialize with a session id, tools/list,
// a tool call, a tool error as isError, the bearer token, session end.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { spawn } from 'node:child_process';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';

const bin = process.env.BIOAGENT_BIN;
assert.ok(bin, 'BIOAGENT_BIN must be set (ctest sets it)');
const token = 'test-token-' + process.pid;
let server;
let base;

before(async () => {
  const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'bioagent-mcp-http-'));
  const portFile = path.join(scratch, 'port');
  server = spawn(bin, ['--offline', 'serve', '--port', '0', '--port-file', portFile, '--token', token,
    '--state-dir', path.join(scratch, 'state')], { stdio: ['ignore', 'ignore', 'inherit'] });
  for (let i = 0; i < 300 && !fs.existsSync(portFile); i++) await new Promise((r) => setTimeout(r, 100));
  base = `http://127.0.0.1:${fs.readFileSync(portFile, 'utf8').trim()}`;
});

after(() => server?.kill('SIGTERM'));

function connect(tok) {
  const transport = new StreamableHTTPClientTransport(new URL(base + '/mcp'), {
    requestInit: { headers: tok ? { Authorization: `Bearer ${tok}` } : {} },
  });
  const client = new Client({ name: 'bioagent-http-test', version: '1.0.0' });
  return { client, transport };
}

test('the SDK client lists and calls tools over Streamable HTTP', async () => {
  const { client, transport } = connect(token);
  await client.connect(transport);
  assert.ok(transport.sessionId, 'the server gave an Mcp-Session-Id');
  const tools = await client.listTools();
  const names = tools.tools.map((t) => t.name);
  assert.ok(names.includes('calculate_expr'));
  const r = await client.callTool({ name: 'calculate_expr', arguments: { expr: '2 ** 10 + 1' } });
  assert.notEqual(r.isError, true);
  assert.match(JSON.stringify(r.structuredContent ?? r.content), /1025/);
  const bad = await client.callTool({ name: 'calculate_expr', arguments: { expr: '__import__("os")' } });
  assert.equal(bad.isError, true, 'code in a calculator expression is a tool error');
  await transport.terminateSession();
  await client.close();
});

test('without the bearer token the endpoint refuses', async () => {
  const { client, transport } = connect('');
  await assert.rejects(client.connect(transport));
  const json = { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' };
  const res = await fetch(base + '/mcp', { method: 'POST', body: '{}', headers: json });
  assert.equal(res.status, 400, 'a message without a session id (not initialize) is refused');
  const plain = await fetch(base + '/mcp', { method: 'POST', body: '{}', headers: { Authorization: `Bearer ${token}` } });
  assert.equal(plain.status, 415, 'a body sent as text/plain (what a cross-site form can send) is refused');
  const foreign = await fetch(base + '/mcp', { method: 'POST', body: '{}', headers: { ...json, Origin: 'http://evil.example' } });
  assert.equal(foreign.status, 403, 'a foreign Origin is refused (the MCP transport requires the check)');
});
