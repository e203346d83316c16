// A Chinese session's server texts hold no English sentence: a real `bioagent serve`, the generated genome
// uploaded with its genome misnamed (the naming repair), a plan and a run through the task API in Chinese with
// the E-value set so strict that identify finds nothing (the E-value repair) and no expression matrix (a skipped
// stage), then every event the page receives (the SSE stream), the task's status, the results listing with its
// captions, the run's status.json and the chat's outcome message are scanned with the shared detector
// (english_scan.mjs). A second run forces a failing stage (a motif parameter of the wrong type) so the failure texts are scanned
// too.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { spawn, execFileSync } from 'node:child_process';
import { englishInJson } from './english_scan.mjs';

const bin = process.env.BIOAGENT_BIN;
const src = process.env.BIOAGENT_SOURCE_DIR;
assert.ok(bin && src, 'BIOAGENT_BIN and BIOAGENT_SOURCE_DIR must be set (ctest sets them)');
const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'bioagent-zh-texts-'));
const fixtures = process.env.BIOAGENT_FIXTURES || path.join(src, '..', 'shared', 'fixtures');
const sbp = path.join(fixtures, 'genefamily', 'hmm', 'PF03110_SBP.hmm');
const family = fs.existsSync(sbp) ? 'SPL' : 'GLOBIN';
const genome = path.join(scratch, 'Lchi');
let base;

// Strings that are data, not the server's prose, and may stay English:
// - paths and file names (a user's file, a program's output) and ids;
// - the commands run and a program's own log lines (`command`, `log`, `stderr`, `tail`): the program's words;
// - a paper's title or a knowledge-base source (`title`, `source`): the publication's words;
// - a diagnosis's `error_message` (the failure as it was captured: a check's or a program's own words) and its
//   `pattern` (the failure with the user's names taken out, which learning matches against later failures in any
//   session); the explanation in the session's language is the diagnosis event's `message` and `root_cause_zh`.
const kDataKeys = /(^|\.)(path|file|files|name|url|href|command|cmd|argv|log|stderr|stdout|tail|title|source|id|task_id|session_id|plan_id|sha256|version|versions|error_message|pattern)(\[\d+\])?$/;
const isData = (where, text) => kDataKeys.test(where) || /^[\w./-]+$/.test(text);

const servers = [];

// A server whose stages run with `pipelineParams` (FastTree: minutes, not IQ-TREE's hour).
function start(pipelineParams) {
  const n = servers.length;
  const portFile = path.join(scratch, `port-${n}`);
  const server = spawn(bin, ['--offline', 'serve', '--port', '0', '--port-file', portFile, '--state-dir',
    path.join(scratch, `state-${n}`), '--confirm-timeout', '3', '--cpus', '2', '--pipeline-params',
    JSON.stringify({ phylogeny: { method: 'fasttree' }, ...pipelineParams })], { stdio: ['ignore', 'ignore', 'inherit'] });
  servers.push(server);
  return (async () => {
    for (let i = 0; i < 300 && !(fs.existsSync(portFile) && fs.readFileSync(portFile, 'utf8').trim()); i++)
      await new Promise((r) => setTimeout(r, 100));
    return `http://127.0.0.1:${fs.readFileSync(portFile, 'utf8').trim()}`;
  })();
}

async function call(method, p, sid, body) {
  const r = await fetch(base + p, {
    method, headers: { 'Content-Type': 'application/json', 'X-Session-Id': sid },
    body: body ? JSON.stringify(body) : undefined,
  });
  return { status: r.status, body: await r.json() };
}

// The task's events as the page reads them: the SSE stream from the first event to the final state.
async function events(sid, task) {
  const r = await fetch(`${base}/api/agent/events/${task}?session_id=${sid}`);
  const text = await r.text();
  return text.split('\n').filter((l) => l.startsWith('data: ')).map((l) => JSON.parse(l.slice(6)));
}

before(async () => {
  execFileSync(bin, ['genefamily', 'example', genome, '--prefix', 'Lchi', '--family', family,
    ...(family === 'SPL' ? ['--hmm', sbp] : [])]);
  fs.renameSync(path.join(genome, 'Lchi.genome.fasta'), path.join(genome, 'Lchi.genome.fa'));
});

after(() => {
  for (const s of servers) s.kill('SIGTERM');
  fs.rmSync(scratch, { recursive: true, force: true });
});

async function newSessionWithData() {
  const sid = (await call('POST', '/api/sessions', '', {})).body.session_id;
  for (const f of fs.readdirSync(genome).filter((n) => n !== 'truth.json')) {
    const form = new FormData();
    form.append('file', new Blob([fs.readFileSync(path.join(genome, f))]), f);
    const r = await fetch(base + '/api/upload', { method: 'POST', headers: { 'X-Session-Id': sid }, body: form });
    assert.ok(r.ok, `upload ${f}: ${r.status}`);
  }
  return sid;
}

// Runs a plan in Chinese with `params`, waits for the end, and returns every text the session shows of it.
async function zhRun(params) {
  const sid = await newSessionWithData();
  const plan = await call('POST', '/api/agent/plan', sid, { species: 'Lchi', gene_family: family, language: 'zh' });
  assert.equal(plan.status, 200, JSON.stringify(plan.body));
  const run = await call('POST', '/api/agent/execute', sid, { plan_id: plan.body.plan_id, params, auto_confirm: true });
  assert.equal(run.status, 202, JSON.stringify(run.body));
  const task = run.body.task_id;
  const evs = await events(sid, task);
  const status = (await call('GET', `/api/agent/status/${task}?session_id=${sid}`, sid)).body;
  const results = (await call('GET', `/api/agent/results/${task}?session_id=${sid}`, sid)).body;
  let statusJson = {};
  const file = await fetch(`${base}/api/agent/results/${task}/files/status.json?session_id=${sid}`);
  if (file.ok) statusJson = await file.json();
  // The outcome is posted in the chat when the task ends; the page receives it as the `outcome` event.
  const outcome = evs.find((e) => e.type === 'outcome');
  const chat = (await call('GET', `/api/sessions/${sid}/messages`, sid)).body;
  return { plan: plan.body, evs, status, results, statusJson, outcome, chat };
}

// Every English text of a run, as "<run> <surface> <where>: <sentence>"; the run's texts are kept in
// $BIOAGENT_ARTIFACTS/zh_texts-<run>.json when that is set.
function scan(label, r) {
  if (process.env.BIOAGENT_ARTIFACTS)
    fs.writeFileSync(path.join(process.env.BIOAGENT_ARTIFACTS, `zh_texts-${label}.json`), JSON.stringify(r, null, 1));
  const found = [];
  found.push(...englishInJson(r.plan, isData).map((e) => `${label} plan ${e}`));
  for (const e of r.evs) found.push(...englishInJson(e, isData).map((x) => `${label} event ${e.type} ${x}`));
  found.push(...englishInJson(r.status, isData).map((e) => `${label} status ${e}`));
  found.push(...englishInJson(r.results, isData).map((e) => `${label} results ${e}`));
  found.push(...englishInJson(r.statusJson, isData).map((e) => `${label} status.json ${e}`));
  found.push(...englishInJson(r.chat, isData).map((e) => `${label} chat ${e}`));
  return [...new Set(found)];
}

test('a Chinese run with a repair and a skipped stage: no English in its events, status, results or outcome', async () => {
  base = await start({});
  const r = await zhRun({ evalue: 1e-200 });
  assert.equal(r.status.state, 'done', JSON.stringify(r.status).slice(0, 2000));
  assert.ok(r.evs.length > 10, `${r.evs.length} events`);
  assert.ok(r.outcome, 'the outcome was posted in the chat');
  assert.match(JSON.stringify(r.outcome), /[\u4e00-\u9fff]/, 'the outcome is Chinese');
  const texts = JSON.stringify(r.evs) + JSON.stringify(r.status);
  assert.match(texts, /1e-200/, 'the E-value repair is told');
  assert.equal(r.status.stages?.expression, 'skipped', 'no expression matrix: skipped');
  const found = scan('repair', r);
  console.log(`# ${r.evs.length} events; ${found.length} English texts`);
  assert.deepEqual(found, [], `${found.length} English texts in a Chinese run:\n${found.join('\n')}`);
});

test('a Chinese run with a failing stage: no English in its failure texts', async () => {
  // A path (not an upload's name, which the service refuses before the run): the expression stage fails on it.
  base = await start({ expression: { matrix: path.join(scratch, 'no_such_matrix.tsv') } });
  const r = await zhRun({});
  assert.ok(r.status.stages?.expression === 'failed', `expression failed: ${JSON.stringify(r.status).slice(0, 2000)}`);
  assert.ok(r.outcome, 'the outcome was posted in the chat');
  const found = scan('failure', r);
  console.log(`# state ${r.status.state}; ${r.evs.length} events; ${found.length} English texts`);
  assert.deepEqual(found, [], `${found.length} English texts in a Chinese run:\n${found.join('\n')}`);
});
