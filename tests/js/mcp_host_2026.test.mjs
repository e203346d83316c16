// A real 2026-07-28 host against `bioagent serve`'s /mcp: the TypeScript SDK v2 client
// (@modelcontextprotocol/client) pinned to 2026-07-28, with sampling, elicitation and
// roots handlers, the way a host that answers the server's questions is built. Its
// calls to tools that ask the client come back input_required and are fulfilled by the
// SDK through those handlers, round after round, until the result. The same client in
// 'auto' mode picks 2026-07-28 from server/discover; in 'legacy' mode it opens a
// 2025-11-25 session and the same handlers answer the server's requests on the stream.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { spawn } from 'node:child_process';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';

const bin = process.env.BIOAGENT_BIN;
assert.ok(bin, 'BIOAGENT_BIN must be set (ctest sets it)');

let server;
let url;
const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'bioagent-mcp-2026-'));

before(async () => {
  const portFile = path.join(scratch, 'port');
  server = spawn(bin, ['--offline', 'serve', '--port', '0', '--port-file', portFile, '--mcp-conformance-fixtures',
    '--state-dir', path.join(scratch, 'state')], { stdio: ['ignore', 'ignore', 'inherit'] });
  for (let i = 0; i < 600 && !(fs.existsSync(portFile) && fs.readFileSync(portFile, 'utf8').trim()); i++)
    await new Promise((r) => setTimeout(r, 100));
  url = `http://localhost:${fs.readFileSync(portFile, 'utf8').trim()}/mcp`;
});

after(() => server?.kill('SIGTERM'));

// A host whose user and model answer as a test would: names, colours, a sampled sentence.
async function host(mode) {
  const asked = [];
  const client = new Client({ name: 'bioagent-test-host', version: '1.0.0' }, {
    capabilities: { sampling: {}, elicitation: { form: {} }, roots: {} },
    versionNegotiation: { mode },
  });
  client.setRequestHandler('sampling/createMessage', async (req) => {
    asked.push(req.params);
    return { model: 'host-model', role: 'assistant', content: { type: 'text', text: 'Paris, of course.' } };
  });
  client.setRequestHandler('elicitation/create', async (req) => {
    asked.push(req.params);
    const props = Object.keys(req.params.requestedSchema?.properties ?? {});
    const content = {};
    for (const p of props) content[p] = p === 'color' ? 'blue' : p === 'ok' || p === 'confirm' ? true : 'Alice';
    return { action: 'accept', content };
  });
  client.setRequestHandler('roots/list', async () => ({ roots: [{ uri: 'file:///data/genomes', name: 'genomes' }] }));
  await client.connect(new StreamableHTTPClientTransport(new URL(url)));
  return { client, asked };
}

const text = (r) => r.content.find((c) => c.type === 'text')?.text;

test('a 2026-07-28 host: discover, then calls that ask the client, fulfilled round after round', async () => {
  const { client, asked } = await host({ pin: '2026-07-28' });
  try {
    assert.equal(client.getProtocolEra(), 'modern');
    assert.ok(client.getDiscoverResult().supportedVersions.includes('2026-07-28'));
    const { tools } = await client.listTools();
    assert.ok(tools.some((t) => t.name === 'test_input_required_result_multi_round'));
    const multi = await client.callTool({ name: 'test_input_required_result_multi_round', arguments: {} });
    assert.equal(text(multi), 'Multi-round complete for Alice who likes blue');
    const sampled = await client.callTool({ name: 'test_sampling', arguments: { prompt: 'Capital of France?' } });
    assert.equal(text(sampled), 'LLM response: Paris, of course.');
    const several = await client.callTool({ name: 'test_input_required_result_multiple_inputs', arguments: {} });
    assert.match(text(several), /Name: Alice; greeting: Paris, of course\.; roots: 1/);
    assert.ok(asked.some((p) => p.message === 'Step 2: What is your favorite color?'));
    const prompt = await client.getPrompt({ name: 'test_input_required_result_prompt', arguments: {} });
    assert.equal(prompt.messages[0].content.text, 'Prompt with context: Alice');
  } finally {
    await client.close();
  }
});

test("'auto' negotiation picks 2026-07-28 from server/discover", async () => {
  const { client } = await host('auto');
  try {
    assert.equal(client.getProtocolEra(), 'modern');
    const r = await client.callTool({ name: 'test_simple_text', arguments: {} });
    assert.equal(text(r), 'This is a simple text response for testing.');
  } finally {
    await client.close();
  }
});

test('the same host on a 2025-11-25 session answers the server\'s requests on the stream', async () => {
  const { client, asked } = await host('legacy');
  try {
    assert.equal(client.getProtocolEra(), 'legacy');
    const r = await client.callTool({ name: 'test_elicitation', arguments: { message: 'Your details?' } });
    assert.match(text(r), /^User response: action=accept, content=\{"username":"Alice","email":"Alice"\}$/);
    assert.ok(asked.some((p) => p.message === 'Your details?'));
  } finally {
    await client.close();
  }
});
