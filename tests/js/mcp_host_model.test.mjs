// The host thinks and the host's user decides: `bioagent serve` with no model of
// its own, and MCP hosts built with the TypeScript SDK (v1 on a 2025-11-25
// session, v2 pinned to 2026-07-28) whose sampling handler asks the scripted
// model (tests/helpers/scripted_llm.py, an OpenAI-compatible server) and whose
// elicitation handler fills the run's parameter form. The assistant answers
// "总结下SPL基因家族" with the host's model (the same prompt and citation check
// as a configured model; the answer names the model), and a gene-family run
// started by a tool call takes the E-value the form answered. At 2026-07-28 the
// replayed calls store the turn once and start one run; genefamily_run runs as a
// task of the tasks extension whose form is its inputRequest.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import readline from 'node:readline';
import { spawn } from 'node:child_process';
import { Client as ClientV1 } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as TransportV1 } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { CallToolResultSchema, CreateMessageRequestSchema, ElicitRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { Client as ClientV2, StreamableHTTPClientTransport as TransportV2 } from '@modelcontextprotocol/client';

const bin = process.env.BIOAGENT_BIN;
const source = process.env.BIOAGENT_SOURCE_DIR;
assert.ok(bin && source, 'BIOAGENT_BIN and BIOAGENT_SOURCE_DIR must be set (ctest sets them)');
const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'bioagent-mcp-host-model-'));
const llmLog = path.join(scratch, 'llm.jsonl');
const HOST_MODEL = 'scripted-host-model';
const EVALUE = 1e-10;  // what the user writes into the form (the stage table's default is 1e-5)
let server, llm, base, llmUrl;

before(async () => {
  // The scripted model: asked to route, it says faq; asked to answer, it cites the knowledge base's SPL entry ([1]).
  const script = path.join(scratch, 'script.json');
  fs.writeFileSync(script, JSON.stringify({ by_expect: true, script: [{
    expect: ['Classify the user', '总结下SPL基因家族'],
    model: HOST_MODEL,
    message: { content: '{"intent": "faq", "confidence": 0.9}' },
  }, {
    expect: ['Evidence:', 'PF03110', '总结下SPL基因家族'],
    model: HOST_MODEL,
    message: { content: 'SPL 蛋白含 SBP 结构域（PF03110）[1]。拟南芥有 16 个 SPL 基因，水稻有 19 个 [1]。' },
  }] }));
  llm = spawn('/usr/bin/python3', [path.join(source, 'tests/helpers/scripted_llm.py'), script, llmLog],
    { stdio: ['ignore', 'pipe', 'inherit'] });
  const [line] = await readline.createInterface({ input: llm.stdout })[Symbol.asyncIterator]().next()
    .then((r) => [r.value]);
  llmUrl = `http://127.0.0.1:${line.split(' ')[1]}`;
  // No model of its own: no catalog in its home, no model variables.
  const env = { ...process.env, HOME: scratch, BIOAGENT_HOME: path.join(scratch, 'home') };
  for (const k of Object.keys(env)) if (k.startsWith('BIOAGENT_LLM_') || k === 'BIOAGENT_MODELS_FILE') delete env[k];
  const portFile = path.join(scratch, 'port');
  server = spawn(bin, ['--offline', 'serve', '--port', '0', '--port-file', portFile, '--state-dir',
    path.join(scratch, 'state'), '--stages', 'identify', '--cpus', '2', '--confirm-timeout', '30'],
  { stdio: ['ignore', 'ignore', 'inherit'], env });
  for (let i = 0; i < 600 && !(fs.existsSync(portFile) && fs.readFileSync(portFile, 'utf8').trim()); i++)
    await new Promise((r) => setTimeout(r, 100));
  base = `http://127.0.0.1:${fs.readFileSync(portFile, 'utf8').trim()}`;
});

after(() => {
  server?.kill('SIGTERM');
  llm?.kill('SIGTERM');
});

// The host's model: the sampling request as a chat completion of the scripted model.
async function sample(params) {
  const text = (c) => [].concat(c).filter((b) => b.type === 'text').map((b) => b.text).join('');
  const messages = [{ role: 'system', content: params.systemPrompt ?? '' },
    ...params.messages.map((m) => ({ role: m.role, content: text(m.content) }))];
  const res = await fetch(`${llmUrl}/v1/chat/completions`, { method: 'POST', headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({ model: 'host', messages, max_tokens: params.maxTokens }) });
  const j = await res.json();
  if (!res.ok) throw new Error(`the scripted model refused: ${JSON.stringify(j)}`);
  return { model: j.model, role: 'assistant', stopReason: 'endTurn',
    content: { type: 'text', text: j.choices[0].message.content } };
}

// The host's user: every field at its offered value, the E-value changed.
function fillForm(params) {
  const content = {};
  for (const [k, p] of Object.entries(params.requestedSchema.properties)) content[k] = p.default;
  content.evalue = EVALUE;
  return { action: 'accept', content };
}

function hostHandlers(asked) {
  return {
    sampling: async (req) => { asked.sampling.push(req.params); return sample(req.params); },
    elicitation: async (req) => { asked.forms.push(req.params); return fillForm(req.params); },
  };
}

async function hostV1() {
  const asked = { sampling: [], forms: [] };
  const h = hostHandlers(asked);
  const client = new ClientV1({ name: 'host-v1', version: '1.0.0' }, { capabilities: { sampling: {}, elicitation: { form: {} } } });
  client.setRequestHandler(CreateMessageRequestSchema, h.sampling);
  client.setRequestHandler(ElicitRequestSchema, h.elicitation);
  await client.connect(new TransportV1(new URL(base + '/mcp')));
  const call = (params) => client.callTool(params, CallToolResultSchema, { timeout: 900000 });
  return { client, asked, call };
}

async function hostV2() {
  const asked = { sampling: [], forms: [] };
  const h = hostHandlers(asked);
  const client = new ClientV2({ name: 'host-v2', version: '1.0.0' }, {
    capabilities: { sampling: {}, elicitation: { form: {} } }, versionNegotiation: { mode: { pin: '2026-07-28' } } });
  client.setRequestHandler('sampling/createMessage', h.sampling);
  client.setRequestHandler('elicitation/create', h.elicitation);
  await client.connect(new TransportV2(new URL(base + '/mcp')));
  const call = (params) => client.callTool(params, { timeout: 900000 });
  return { client, asked, call };
}

const api = async (p) => (await fetch(base + p)).json();
// Every run folder the server made, in every session.
function runFolders() {
  const sessions = path.join(scratch, 'state', 'sessions');
  return fs.readdirSync(sessions).flatMap((s) => {
    const runs = path.join(sessions, s, 'runs');
    return fs.existsSync(runs) ? fs.readdirSync(runs) : [];
  });
}

// The SPL summary written by the host's model: named, cited, from the knowledge agent's prompt.
async function summaryByHost({ asked, call }) {
  const r = await call({ name: 'assistant_chat', arguments: { message: '总结下SPL基因家族' } });
  assert.notEqual(r.isError, true, JSON.stringify(r.content));
  const out = r.structuredContent;
  assert.equal(out.agent, 'knowledge');
  assert.equal(out.model, HOST_MODEL, 'the reply names the model the host answered with');
  assert.equal(out.model_source, 'mcp_host');
  assert.match(out.answer, /PF03110\)\[1\]|PF03110）\[1\]/, 'the cited sentence passed the citation check');
  assert.ok(out.answer.includes(HOST_MODEL), 'the answer itself says which model wrote it');
  assert.equal(asked.sampling.length, 2, 'one sampling request to route the message, one for the answer');
  assert.match(asked.sampling[0].systemPrompt, /Classify the user's message/);
  assert.match(out.routed_by, new RegExp(HOST_MODEL), 'the host\'s model routed the message');
  assert.match(asked.sampling[1].systemPrompt, /Mark every claim with the number of the evidence/);
  assert.ok(asked.sampling[1].maxTokens > 0);
  return out;
}

// A run started by a tool call: the form offers the stage table's fields; the run takes its E-value.
async function runByForm({ asked, call }) {
  const r = await call({ name: 'genefamily_task_start', arguments: { species: 'Exam', family: 'GLOBIN' } });
  assert.notEqual(r.isError, true, JSON.stringify(r.content));
  const started = r.structuredContent;
  assert.equal(asked.forms.length, 1, 'one form');
  const props = asked.forms[0].requestedSchema.properties;
  assert.deepEqual(props.prefix.enum, ['Exam.GLOBIN'], 'the output prefix, fixed by the plan');
  assert.equal(props.evalue.type, 'number');
  assert.equal(props.evalue.default, 1e-5);
  assert.equal(props.evalue.maximum, 10);
  assert.equal(props.max_target_seqs.type, 'integer');
  assert.deepEqual(props.method.enum, ['iqtree', 'fasttree']);
  assert.equal(props.cpu.minimum, 1);
  assert.equal(started.dialog.action, 'modify');
  assert.equal(started.dialog.params.evalue, EVALUE);
  const done = await call({ name: 'genefamily_task_result',
    arguments: { task_id: started.task_id, session_id: started.session_id, wait_seconds: 600 } });
  assert.equal(done.structuredContent.state, 'done', JSON.stringify(done.structuredContent).slice(0, 2000));
  const status = await call({ name: 'genefamily_task_status',
    arguments: { task_id: started.task_id, session_id: started.session_id } });
  assert.equal(status.structuredContent.run_params.stages.identify.evalue, EVALUE, 'the run used the form\'s E-value');
  assert.equal(status.structuredContent.params.evalue, EVALUE);
  return started;
}

test('2025-11-25 host (SDK v1): its model answers the SPL summary, its user confirms the run in a form', async () => {
  const host = await hostV1();
  try {
    await summaryByHost(host);
    await runByForm(host);
  } finally {
    await host.client.close();
  }
});

test('2026-07-28 host (SDK v2): the same through input-required rounds; the replay stores once and runs once',
  async () => {
    const host = await hostV2();
    try {
      const out = await summaryByHost(host);
      const { messages } = await api(`/api/sessions/${out.session_id}/messages`);
      assert.deepEqual(messages.map((m) => m.role), ['user', 'assistant'], 'the replayed turn is stored once');
      assert.ok(messages[1].content.includes(HOST_MODEL));
      const before = runFolders().length;
      const started = await runByForm(host);
      const state = await api(`/api/sessions/${started.session_id}/state`);
      assert.equal(state.tasks.length, 1, 'the replayed call started one run');
      assert.equal(runFolders().length, before + 1, 'and no other session got one');
    } finally {
      await host.client.close();
    }
  });

// A stateless request as a 2026-07-28 client sends it.
async function post(method, params, caps) {
  const meta = { 'io.modelcontextprotocol/protocolVersion': '2026-07-28', 'io.modelcontextprotocol/clientCapabilities': caps };
  const name = params.name ?? params.taskId;
  const res = await fetch(base + '/mcp', { method: 'POST', body: JSON.stringify({ jsonrpc: '2.0', id: 1, method,
    params: { ...params, _meta: meta } }), headers: { 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream',
    'MCP-Protocol-Version': '2026-07-28', 'Mcp-Method': method, ...(name ? { 'Mcp-Name': name } : {}) } });
  const text = await res.text();
  const data = text.startsWith('{') ? text : text.split('\n').filter((l) => l.startsWith('data: ')).pop().slice(6);
  return JSON.parse(data);
}

test('genefamily_run as a task of the tasks extension: the form is its inputRequest, the result its files', async () => {
  const caps = { elicitation: { form: {} }, extensions: { 'io.modelcontextprotocol/tasks': {} } };
  const created = (await post('tools/call', { name: 'genefamily_run', arguments: { species: 'Exam', family: 'GLOBIN' } },
    caps)).result;
  assert.equal(created.resultType, 'task');
  assert.equal(created.ttlMs, null, 'a run\'s task is kept while the server runs');
  const get = async () => (await post('tasks/get', { taskId: created.taskId }, caps)).result;
  let task = await get();
  for (let i = 0; i < 200 && task.status === 'working'; i++) {
    await new Promise((r) => setTimeout(r, 200));
    task = await get();
  }
  assert.equal(task.status, 'input_required', JSON.stringify(task));
  const form = task.inputRequests['run-params'];
  assert.equal(form.method, 'elicitation/create');
  await post('tasks/update', { taskId: created.taskId, inputResponses: { 'run-params': fillForm(form.params) } }, caps);
  for (let i = 0; i < 1500 && !['completed', 'failed', 'cancelled'].includes(task.status); i++) {
    await new Promise((r) => setTimeout(r, 400));
    task = await get();
  }
  assert.equal(task.status, 'completed', JSON.stringify(task).slice(0, 2000));
  assert.notEqual(task.result.isError, true, JSON.stringify(task.result).slice(0, 2000));
  const data = task.result.structuredContent;
  assert.equal(data.state, 'done');
  assert.ok(task.result.content.some((c) => c.type === 'resource_link' && c.uri.endsWith('/status.json')));
  const status = await api(`/api/agent/status/${data.task_id}?session_id=${data.session_id}`);
  assert.equal(status.run_params.stages.identify.evalue, EVALUE, JSON.stringify(status).slice(0, 1000));
});
