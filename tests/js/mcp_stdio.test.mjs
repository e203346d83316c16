// Drives `bioagent mcp` over stdio with the official MCP TypeScript SDK client:
// version negotiation, paginated tools/list, tools/call for each tool, tool
// errors as isError results, protocol errors as thrown McpErrors.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { LATEST_PROTOCOL_VERSION } from '@modelcontextprotocol/sdk/types.js';

const bin = process.env.BIOAGENT_BIN;
const src = process.env.BIOAGENT_SOURCE_DIR;
const fixtures = path.join(src, '..', 'shared', 'fixtures', 'notebooks');
assert.ok(bin && src, 'BIOAGENT_BIN and BIOAGENT_SOURCE_DIR must be set (ctest sets them)');

let client;
let transport;
let negotiated;

before(async () => {
  const args = ['--root', src];
  if (fs.existsSync(fixtures)) args.push('--root', fixtures);
  args.push('mcp', '--page-size', '1');  // one tool per page: pagination is exercised
  transport = new StdioClientTransport({ command: bin, args, cwd: src, stderr: 'inherit' });
  const setVersion = transport.setProtocolVersion?.bind(transport);
  transport.setProtocolVersion = (v) => {
    negotiated = v;
    setVersion?.(v);
  };
  client = new Client({ name: 'bioagent-test', version: '1.0.0' });
  await client.connect(transport);
});

after(async () => {
  await client.close();
});

test('initialize negotiated the latest protocol and the server introduced itself', () => {
  assert.equal(client.getServerVersion().name, 'bioagent');
  assert.ok(client.getServerCapabilities().tools, 'tools capability');
  assert.equal(negotiated, LATEST_PROTOCOL_VERSION, 'the server speaks the SDK\'s latest version');
});

async function allTools() {
  const tools = [];
  let cursor;
  let pages = 0;
  do {
    const page = await client.listTools(cursor ? { cursor } : {});
    tools.push(...page.tools);
    cursor = page.nextCursor;
    pages += 1;
  } while (cursor && pages < 100);
  return { tools, pages };
}

test('tools/list pages through every tool with strict schemas', async () => {
  const { tools, pages } = await allTools();
  const names = tools.map((t) => t.name);
  assert.ok(names.includes('calculate_expr'));
  assert.ok(names.includes('read_executed_notebook'));
  assert.equal(pages, tools.length, 'page size 1 means one page per tool');
  for (const t of tools) {
    assert.equal(t.inputSchema.type, 'object');
    assert.equal(t.inputSchema.additionalProperties, false);
    assert.ok(Array.isArray(t.inputSchema.required ?? []));
    assert.ok(t.description.length > 20);
  }
});

test('calculate_expr answers with text and structured content', async () => {
  const r = await client.callTool({ name: 'calculate_expr', arguments: { expr: '2 + 3 * 4' } });
  assert.equal(r.isError, false);
  assert.equal(r.structuredContent.result, 14);
  assert.equal(r.structuredContent.text, '14');
  assert.equal(JSON.parse(r.content[0].text).result, 14);
  const py = await client.callTool({ name: 'CalculateExpr', arguments: { expr: '7 // -2 + 2 ** -1' } });
  assert.equal(py.structuredContent.result, -3.5);
});

test('read_executed_notebook reads the bundled notebook and searches it', async () => {
  const r = await client.callTool({
    name: 'read_executed_notebook',
    arguments: { data_folder: 'examples/notebooks', search: 'pvalue,keyerror', include_source: false },
  });
  assert.equal(r.isError, false);
  const d = r.structuredContent;
  assert.equal(d.total_cells, 9);
  assert.deepEqual(d.matching_cells.map((c) => c.idx), [4, 7]);
  assert.ok(d.cells.every((c) => !('source' in c)));
  assert.match(d.cells[7].output, /^KeyError: 'padj'/);
});

test('read_executed_notebook reads real executed notebooks from the fixtures', async (t) => {
  if (!fs.existsSync(fixtures)) {
    t.skip(`fixtures absent: ${fixtures}`);
    return;
  }
  const r = await client.callTool({
    name: 'read_executed_notebook',
    arguments: { notebook_path: path.join(fixtures, 'pyeuropepmc', '04-analytics-demo.ipynb'), max_output_chars: 2000 },
  });
  assert.equal(r.isError, false, r.content?.[0]?.text);
  assert.ok(r.structuredContent.total_cells > 5);
  assert.ok(r.structuredContent.cells.some((c) => c.output.includes('[image/png]')));
});

test('bad arguments come back as isError results naming the field', async () => {
  const missing = await client.callTool({ name: 'calculate_expr', arguments: {} });
  assert.equal(missing.isError, true);
  assert.match(missing.content[0].text, /args\.expr/);
  const typed = await client.callTool({ name: 'read_executed_notebook', arguments: { data_folder: 'examples', max_output_chars: 'ten' } });
  assert.equal(typed.isError, true);
  assert.match(typed.content[0].text, /max_output_chars/);
  const hostile = await client.callTool({ name: 'calculate_expr', arguments: { expr: "__import__('os').system('id')" } });
  assert.equal(hostile.isError, true);
  assert.match(hostile.content[0].text, /unknown function '__import__'/);
  const escape = await client.callTool({ name: 'read_executed_notebook', arguments: { notebook_path: '/etc/passwd' } });
  assert.equal(escape.isError, true);
  assert.match(escape.content[0].text, /outside the workspace/);
});

test('an unknown tool is a protocol error', async () => {
  await assert.rejects(client.callTool({ name: 'no_such_tool', arguments: {} }), /Unknown tool/);
});

test('ping answers', async () => {
  assert.deepEqual(await client.ping(), {});
});
