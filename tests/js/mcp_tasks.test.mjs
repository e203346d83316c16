// A gene-family run driven over MCP (Streamable HTTP) with the official MCP
// TypeScript SDK client: genefamily_task_start on the example genome returns at
// once; status.json is read as a resource while the run goes on;
// genefamily_task_result waits with progress notifications streamed (SSE) and
// returns resource links; a figure (SVG) and the report are read as resources.
// Another run is cancelled and seen cancelled; an aborted wait sends
// notifications/cancelled and the session goes on. The specification's tasks
// over HTTP: the finished run is a completed task whose tasks/result links the
// figures (and their PNG renderings); genefamily_run called as a task returns at
// once, its status and resource updates arrive on the GET stream, tasks/cancel
// cancels it, and the HTTP API shows the same task cancelled; after a restart
// of the server a new MCP session finds the task by naming its session in _meta.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { spawn } from 'node:child_process';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import {
  CallToolResultSchema, CreateTaskResultSchema, ErrorCode, GetTaskResultSchema, McpError, ResourceUpdatedNotificationSchema,
  TaskStatusNotificationSchema,
} from '@modelcontextprotocol/sdk/types.js';

const bin = process.env.BIOAGENT_BIN;
assert.ok(bin, 'BIOAGENT_BIN must be set (ctest sets it)');
const token = 'tasks-token-' + process.pid;
let server;
let base;
let scratch;
let cancelledTask;  // {taskId, sid} of the run cancelled through tasks/cancel

// `serve` on the test's state folder (the same one after a restart).
async function startServer() {
  const portFile = path.join(scratch, 'port');
  fs.rmSync(portFile, { force: true });
  server = spawn(bin, ['--offline', 'serve', '--port', '0', '--port-file', portFile, '--token', token,
    '--state-dir', path.join(scratch, 'state'), '--confirm-timeout', '5', '--cpus', '2',
    '--pipeline-params', '{"phylogeny": {"method": "fasttree"}}'], { stdio: ['ignore', 'ignore', 'inherit'] });
  for (let i = 0; i < 600 && !(fs.existsSync(portFile) && fs.readFileSync(portFile, 'utf8').trim()); i++)
    await new Promise((r) => setTimeout(r, 100));
  base = `http://127.0.0.1:${fs.readFileSync(portFile, 'utf8').trim()}`;
}

before(async () => {
  scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'bioagent-mcp-tasks-'));
  await startServer();
});

after(() => server?.kill('SIGTERM'));

async function connect() {
  const transport = new StreamableHTTPClientTransport(new URL(base + '/mcp'), {
    requestInit: { headers: { Authorization: `Bearer ${token}` } },
  });
  const client = new Client({ name: 'bioagent-tasks-test', version: '1.0.0' },
    { capabilities: { tasks: { list: {}, cancel: {} } } });
  await client.connect(transport);
  return { client, transport };
}

function links(result) {
  return result.content.filter((c) => c.type === 'resource_link');
}

test('a gene-family run: start, follow with progress, read status and figure, fetch the report', async () => {
  const { client, transport } = await connect();
  const caps = client.getServerCapabilities();
  assert.ok(caps.resources && caps.prompts && caps.logging, 'resources, prompts and logging are offered');
  const names = (await client.listTools()).tools.map((t) => t.name);
  for (const n of ['genefamily_task_start', 'genefamily_task_status', 'genefamily_task_result', 'genefamily_task_cancel'])
    assert.ok(names.includes(n), n);

  const t0 = Date.now();
  const start = await client.callTool({ name: 'genefamily_task_start', arguments: { species: 'Exam', family: 'GLOBIN' } });
  assert.notEqual(start.isError, true, JSON.stringify(start.content));
  assert.ok(Date.now() - t0 < 10000, 'the start returns at once');
  const taskId = start.structuredContent.task_id;
  assert.match(taskId, /^t_/);
  const statusUri = `bioagent://runs/${taskId}/status.json`;
  assert.ok(links(start).some((l) => l.uri === statusUri), 'the start links the run status');

  const early = await client.readResource({ uri: statusUri });
  assert.equal(early.contents[0].mimeType, 'application/json');
  assert.ok(JSON.parse(early.contents[0].text), 'status.json reads while the run goes on');

  const progress = [];
  const done = await client.callTool(
    { name: 'genefamily_task_result', arguments: { task_id: taskId, wait_seconds: 900 } },
    undefined,
    { onprogress: (p) => progress.push(p), timeout: 960000, resetTimeoutOnProgress: true },
  );
  console.log(`# run ${taskId}: ${done.structuredContent.state} in ${((Date.now() - t0) / 1000).toFixed(1)} s, ` +
    `${progress.length} progress notifications`);
  assert.equal(done.structuredContent.state, 'done', JSON.stringify(done.structuredContent).slice(0, 2000));
  assert.ok(progress.length >= 3, `progress notifications arrived over HTTP (${progress.length})`);
  assert.ok(progress.some((p) => /: (done|running|cached|warn|skipped)/.test(p.message ?? '')), 'they name stages');
  assert.ok(progress.every((p, i) => i === 0 || p.progress > progress[i - 1].progress), 'progress only grows');

  const status = JSON.parse((await client.readResource({ uri: statusUri })).contents[0].text);
  assert.ok(JSON.stringify(status).includes('identify') || Object.keys(status).length > 0, 'status.json has the stages');

  const fileLinks = links(done);
  const svg = fileLinks.find((l) => l.mimeType === 'image/svg+xml');
  assert.ok(svg, 'a figure is linked: ' + fileLinks.map((l) => l.uri).join(', '));
  const fig = await client.readResource({ uri: svg.uri });
  assert.match(fig.contents[0].text, /<svg[\s>]/);
  const report = fileLinks.find((l) => /report[^/]*\.md$/.test(l.uri)) ?? fileLinks.find((l) => l.uri.endsWith('.md'));
  assert.ok(report, 'a Markdown report is linked');
  const md = await client.readResource({ uri: report.uri });
  assert.ok(md.contents[0].text.length > 200, 'the report has content');

  // The same run through the specification's tasks.
  assert.equal((await client.experimental.tasks.getTask(taskId)).status, 'completed');
  assert.ok((await client.experimental.tasks.listTasks()).tasks.some((t) => t.taskId === taskId));
  const payload = await client.experimental.tasks.getTaskResult(taskId, CallToolResultSchema);
  assert.equal(payload._meta['io.modelcontextprotocol/related-task'].taskId, taskId);
  const pngs = links(payload).filter((l) => l.mimeType === 'image/png' && l.uri.endsWith('.svg.png'));
  assert.ok(pngs.length >= 1 && pngs.length === links(payload).filter((l) => l.mimeType === 'image/svg+xml').length,
    'every SVG figure is offered as PNG');
  const png = Buffer.from((await client.readResource({ uri: pngs[0].uri })).contents[0].blob, 'base64');
  assert.equal(png.toString('latin1', 1, 4), 'PNG');
  const [w, h] = [png.readUInt32BE(16), png.readUInt32BE(20)];
  console.log(`# ${pngs.length} figures as PNG; ${path.basename(pngs[0].uri)}: ${w} x ${h}`);
  assert.ok(w >= 200 && w <= 4096 && h >= 100 && h <= 4096, `${w} x ${h}`);

  const listed = (await client.listResources()).resources.map((r) => r.uri);
  assert.ok(listed.includes(statusUri) && listed.includes(svg.uri), 'the run is listed as resources');
  await assert.rejects(client.readResource({ uri: `bioagent://runs/${taskId}/final/../../app.sqlite` }));
  await transport.terminateSession();
  await client.close();

  // Another MCP session does not hold this run's assistant session: not found
  // until it names the session, as the HTTP routes require.
  const other = await connect();
  await assert.rejects(other.client.readResource({ uri: statusUri }));
  await assert.rejects(other.client.experimental.tasks.getTask(taskId), 'tasks/get too');
  const sid = start.structuredContent.session_id;
  const viaMeta = await other.client.request({ method: 'tasks/get',
    params: { taskId, _meta: { 'bioagent/session_id': sid } } }, GetTaskResultSchema);
  assert.equal(viaMeta.status, 'completed', 'tasks/get attaches the session named in _meta');
  const attached = await other.client.callTool({ name: 'genefamily_task_status',
    arguments: { task_id: taskId, session_id: start.structuredContent.session_id } });
  assert.equal(attached.structuredContent.state, 'done');
  await other.client.close();
});

test('a run is cancelled and seen cancelled; an aborted wait stops only the wait', async () => {
  const { client } = await connect();
  const start = await client.callTool({ name: 'genefamily_task_start', arguments: { species: 'Exam', family: 'GLOBIN' } });
  const taskId = start.structuredContent.task_id;

  const abort = new AbortController();
  const waiting = client.callTool({ name: 'genefamily_task_result', arguments: { task_id: taskId, wait_seconds: 600 } },
    undefined, { signal: abort.signal, timeout: 700000 });
  setTimeout(() => abort.abort('test stops waiting'), 1000);
  await assert.rejects(waiting);

  const cancelled = await client.callTool({ name: 'genefamily_task_cancel', arguments: { task_id: taskId } });
  assert.notEqual(cancelled.isError, true, JSON.stringify(cancelled.content));
  assert.equal(cancelled.structuredContent.state, 'cancelled');
  const status = await client.callTool({ name: 'genefamily_task_status', arguments: { task_id: taskId } });
  assert.equal(status.structuredContent.state, 'cancelled');
  await client.close();
});

test('genefamily_run as a task over HTTP: status and resource updates on the GET stream, cancelled', async () => {
  const { client, transport } = await connect();
  const statuses = [];
  const updates = [];
  client.setNotificationHandler(TaskStatusNotificationSchema, (n) => statuses.push(n.params));
  client.setNotificationHandler(ResourceUpdatedNotificationSchema, (n) => updates.push(n.params.uri));
  const caps = client.getServerCapabilities();
  assert.ok(caps.tasks?.requests?.tools?.call && caps.tasks.cancel && caps.tasks.list);

  const t0 = Date.now();
  const created = await client.request({ method: 'tools/call',
    params: { name: 'genefamily_run', arguments: { species: 'Exam', family: 'GLOBIN' }, task: { ttl: 600000 } } },
  CreateTaskResultSchema);
  assert.ok(Date.now() - t0 < 10000, 'the task is created at once');
  const task = created.task;
  assert.equal(task.status, 'working');
  const statusUri = `bioagent://runs/${task.taskId}/status.json`;
  await client.subscribeResource({ uri: statusUri });

  // The session's GET stream is open (the SDK opened it after initialize): a second one is refused.
  const headers = { Authorization: `Bearer ${token}`, Accept: 'text/event-stream', 'Mcp-Session-Id': transport.sessionId };
  for (let i = 0; i < 50 && !(updates.length || statuses.length); i++) await new Promise((r) => setTimeout(r, 200));
  const second = await fetch(base + '/mcp', { headers });
  assert.equal(second.status, 409, 'one GET stream per session');
  await second.body?.cancel();
  assert.equal((await fetch(base + '/mcp', { headers: { ...headers, Accept: 'application/json' } })).status, 406);
  assert.equal((await fetch(base + '/mcp', { headers: { ...headers, 'Mcp-Session-Id': 'nope' } })).status, 404);

  for (let i = 0; i < 300 && !(updates.length && statuses.length); i++) await new Promise((r) => setTimeout(r, 200));
  console.log(`# on the GET stream: ${statuses.length} task status, ${updates.length} resource updates`);
  assert.ok(statuses.some((s) => s.taskId === task.taskId && s.status === 'working'), 'task status notifications');
  assert.ok(updates.includes(statusUri), 'resource updates without a pending request');

  const cancelled = await client.experimental.tasks.cancelTask(task.taskId);
  assert.equal(cancelled.status, 'cancelled');
  assert.equal((await client.experimental.tasks.getTask(task.taskId)).status, 'cancelled');
  const payload = await client.experimental.tasks.getTaskResult(task.taskId, CallToolResultSchema);
  assert.equal(payload.isError, true, 'a cancelled run has no result');
  assert.match(payload.content[0].text, /cancelled/);
  await assert.rejects(client.experimental.tasks.cancelTask(task.taskId),
    (e) => e instanceof McpError && e.code === ErrorCode.InvalidParams);

  // The same task in the HTTP API (as the web UI reads it).
  const sid = created._meta['bioagent/session_id'];
  cancelledTask = { taskId: task.taskId, sid };
  const api = await fetch(`${base}/api/agent/status/${task.taskId}?session_id=${sid}`,
    { headers: { Authorization: `Bearer ${token}` } });
  assert.equal(api.status, 200);
  assert.equal((await api.json()).state, 'cancelled');
  await client.close();
});

test('after a restart of the server a task is found again through its session', async () => {
  assert.ok(cancelledTask, 'the previous test cancelled a task');
  const exited = new Promise((r) => server.once('exit', r));
  server.kill('SIGTERM');
  await exited;
  await startServer();
  const { client } = await connect();
  await assert.rejects(client.experimental.tasks.getTask(cancelledTask.taskId), 'a new MCP session holds no session');
  const got = await client.request({ method: 'tasks/get',
    params: { taskId: cancelledTask.taskId, _meta: { 'bioagent/session_id': cancelledTask.sid } } }, GetTaskResultSchema);
  assert.equal(got.status, 'cancelled', 'the task kept its state over the restart');
  assert.ok((await client.experimental.tasks.listTasks()).tasks.some((t) => t.taskId === cancelledTask.taskId));
  await assert.rejects(client.request({ method: 'tasks/get',
    params: { taskId: cancelledTask.taskId, _meta: { 'bioagent/session_id': 'nope' } } }, GetTaskResultSchema),
  (e) => e instanceof McpError && e.code === ErrorCode.InvalidParams);
  await client.close();
});
