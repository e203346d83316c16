// The specification's tasks (MCP 2025-11-25) over stdio with the official MCP
// TypeScript SDK client: `bioagent mcp` opens the assistant's task store (the
// state folder `serve` uses); genefamily_run declares execution.taskSupport;
// called as a task it answers at once with the task, which the client follows
// (tasks/get) and whose result (tasks/result) links the report and the figures,
// each SVG figure also as a PNG that decodes. The task is listed, cannot be
// cancelled once completed, and is still there after the process restarts.
// The tool set for hosts without tasks works over stdio too.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import zlib from 'node:zlib';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { CallToolResultSchema, CreateTaskResultSchema, ErrorCode, McpError } from '@modelcontextprotocol/sdk/types.js';

const bin = process.env.BIOAGENT_BIN;
assert.ok(bin, 'BIOAGENT_BIN must be set (ctest sets it)');
const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'bioagent-mcp-spec-tasks-'));
const state = path.join(scratch, 'state');
let first;

async function connect(extra = []) {
  // The stages that make the members, the report and a figure (the chromosome map) keep the run short.
  const args = ['--offline', 'mcp', '--state-dir', state, '--stages', 'check,identify,chromosome', '--cpus', '2',
    '--confirm-timeout', '2', ...extra];
  const transport = new StdioClientTransport({ command: bin, args, stderr: 'inherit',
    env: { ...process.env, BIOAGENT_HOME: path.join(scratch, 'home') } });
  const client = new Client({ name: 'bioagent-spec-tasks-test', version: '1.0.0' },
    { capabilities: { tasks: { list: {}, cancel: {} } } });
  await client.connect(transport);
  return client;
}

before(async () => {
  first = await connect();
});

after(async () => {
  await first?.close();
  fs.rmSync(scratch, { recursive: true, force: true });
});

// Inflates a PNG's IDAT stream and checks its size against the header: the image decodes.
function decodePng(bytes) {
  assert.deepEqual([...bytes.subarray(0, 8)], [137, 80, 78, 71, 13, 10, 26, 10], 'the PNG signature');
  let width = 0, height = 0, depth = 0, colour = 0;
  const idat = [];
  for (let at = 8; at < bytes.length;) {
    const length = bytes.readUInt32BE(at);
    const type = bytes.toString('latin1', at + 4, at + 8);
    const data = bytes.subarray(at + 8, at + 8 + length);
    if (type === 'IHDR') [width, height, depth, colour] = [data.readUInt32BE(0), data.readUInt32BE(4), data[8], data[9]];
    if (type === 'IDAT') idat.push(data);
    at += 12 + length;
  }
  const channels = { 0: 1, 2: 3, 4: 2, 6: 4 }[colour];
  assert.equal(depth, 8, 'eight bits a channel');
  const raw = zlib.inflateSync(Buffer.concat(idat));
  assert.equal(raw.length, height * (1 + width * channels), 'every row of pixels is there');
  return { width, height, raw };
}

test('a gene-family run as a task: created at once, followed, its result and a PNG figure fetched', async () => {
  const caps = first.getServerCapabilities();
  assert.ok(caps.tasks?.requests?.tools?.call, 'task-augmented tools/call is offered');
  assert.ok(caps.tasks.list && caps.tasks.cancel, 'tasks/list and tasks/cancel are offered');
  const tools = (await first.listTools()).tools;
  const run = tools.find((t) => t.name === 'genefamily_run');
  assert.equal(run?.execution?.taskSupport, 'optional');
  assert.equal(tools.find((t) => t.name === 'genefamily_task_start')?.execution, undefined, 'the tool set needs no task');

  const t0 = Date.now();
  const seen = [];
  let result;
  for await (const message of first.experimental.tasks.callToolStream(
    { name: 'genefamily_run', arguments: { species: 'Exam', family: 'GLOBIN' } }, undefined, { timeout: 300000 })) {
    seen.push(message.type === 'taskCreated' || message.type === 'taskStatus' ? message.task.status : message.type);
    if (message.type === 'taskCreated') assert.ok(Date.now() - t0 < 10000, 'the task is created at once');
    if (message.type === 'error') assert.fail(String(message.error));
    if (message.type === 'result') result = message.result;
  }
  console.log(`# genefamily_run as a task: ${seen.join(' -> ')} in ${((Date.now() - t0) / 1000).toFixed(1)} s`);
  assert.equal(seen[0], 'working', 'a task starts working');
  assert.ok(seen.includes('completed'), seen.join(','));
  assert.notEqual(result.isError, true, JSON.stringify(result.content).slice(0, 1000));
  const taskId = result._meta['io.modelcontextprotocol/related-task'].taskId;
  assert.match(taskId, /^t_/, 'the task id is the assistant task id');
  assert.equal(result.structuredContent.state, 'done');

  const links = result.content.filter((c) => c.type === 'resource_link');
  const svg = links.find((l) => l.mimeType === 'image/svg+xml');
  assert.ok(svg, 'a figure is linked: ' + links.map((l) => l.uri).join(', '));
  const pngLink = links.find((l) => l.uri === svg.uri + '.png');
  assert.equal(pngLink?.mimeType, 'image/png', 'each SVG figure is offered as PNG too');
  const png = (await first.readResource({ uri: pngLink.uri })).contents[0];
  assert.equal(png.mimeType, 'image/png');
  const image = decodePng(Buffer.from(png.blob, 'base64'));
  console.log(`# ${path.basename(svg.uri)} as PNG: ${image.width} x ${image.height}`);
  assert.ok(image.width >= 200 && image.width <= 4096 && image.height >= 100 && image.height <= 4096,
    `${image.width} x ${image.height}`);
  assert.ok(image.raw.some((b) => b !== 0 && b !== 255), 'the figure is drawn (not one flat colour)');
  await assert.rejects(first.readResource({ uri: svg.uri.replace(/[^/]+$/, 'none.svg.png') }));

  const got = await first.experimental.tasks.getTask(taskId);
  assert.equal(got.status, 'completed');
  assert.ok(got.createdAt.endsWith('Z') && got.ttl === null && got.pollInterval > 0, JSON.stringify(got));
  const listed = (await first.experimental.tasks.listTasks()).tasks.map((t) => t.taskId);
  assert.ok(listed.includes(taskId), 'the task is listed');
  await assert.rejects(first.experimental.tasks.cancelTask(taskId),
    (e) => e instanceof McpError && e.code === ErrorCode.InvalidParams, 'a completed task cannot be cancelled');
  await assert.rejects(first.experimental.tasks.getTask('t_none'),
    (e) => e instanceof McpError && e.code === ErrorCode.InvalidParams);

  // Other tools may not be called as tasks.
  await assert.rejects(first.request({ method: 'tools/call',
    params: { name: 'calculate_expr', arguments: { expr: '1+1' }, task: {} } }, CreateTaskResultSchema),
  (e) => e instanceof McpError && e.code === ErrorCode.MethodNotFound);

  // The tool set for hosts without tasks, over stdio.
  const start = await first.callTool({ name: 'genefamily_task_start', arguments: { species: 'Exam', family: 'GLOBIN' } });
  assert.notEqual(start.isError, true, JSON.stringify(start.content));
  const done = await first.callTool({ name: 'genefamily_task_result',
    arguments: { task_id: start.structuredContent.task_id, wait_seconds: 300 } }, undefined, { timeout: 320000 });
  assert.equal(done.structuredContent.state, 'done');

  // Called plainly, genefamily_run waits for the run, with progress notifications.
  const progress = [];
  const plain = await first.callTool({ name: 'genefamily_run', arguments: { species: 'Exam', family: 'GLOBIN' } },
    undefined, { onprogress: (p) => progress.push(p), timeout: 300000 });
  assert.equal(plain.structuredContent.state, 'done', JSON.stringify(plain.structuredContent).slice(0, 500));
  assert.ok(plain.content.some((c) => c.type === 'resource_link' && c.mimeType === 'image/png'));

  // After a restart of the process the same session's task is still there, with its result.
  const sid = start.structuredContent.session_id;
  await first.close();
  first = null;
  const again = await connect(['--session', sid]);
  try {
    assert.equal((await again.experimental.tasks.getTask(taskId)).status, 'completed');
    const payload = await again.experimental.tasks.getTaskResult(taskId, CallToolResultSchema);
    assert.equal(payload.structuredContent.state, 'done');
    assert.ok(payload.content.some((c) => c.type === 'resource_link' && c.uri === pngLink.uri));
  } finally {
    await again.close();
  }
});
