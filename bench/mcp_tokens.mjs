// tools/list of `bioagent mcp` in full and compact mode, in tokens of the
// o200k_base encoding (GPT-4o's; the gpt-tokenizer npm package of tests/js):
// the context a host spends on tool definitions each turn. Prints both counts
// and the ratio; exits 1 when compact is not under 5% of full.
// Usage: node bench/mcp_tokens.mjs [path/to/bioagent]
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const bin = process.argv[2] ?? path.join(root, 'build', 'release', 'bioagent');
const { encode } = await import(path.join(root, 'tests', 'js', 'node_modules', 'gpt-tokenizer', 'esm', 'encoding',
  'o200k_base.js'));

// Every page of tools/list from a stdio session, as the host receives it.
function toolsList(extra) {
  const lines = [
    { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'bench', version: '1' } } },
    { jsonrpc: '2.0', method: 'notifications/initialized' },
    { jsonrpc: '2.0', id: 2, method: 'tools/list', params: {} },
  ].map((m) => JSON.stringify(m)).join('\n') + '\n';
  const r = spawnSync(bin, ['--offline', 'mcp', '--page-size', '1000', ...extra], { input: lines, encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`bioagent mcp failed: ${r.stderr}`);
  const answer = r.stdout.split('\n').filter(Boolean).map((l) => JSON.parse(l)).find((m) => m.id === 2);
  return answer.result.tools;
}

const full = toolsList([]);
const compact = toolsList(['--compact']);
const tokens = (tools) => encode(JSON.stringify(tools)).length;
const f = tokens(full), c = tokens(compact);
console.log(`tools/list full:    ${full.length} tools, ${f} tokens (o200k_base)`);
console.log(`tools/list compact: ${compact.length} tools, ${c} tokens (${(100 * c / f).toFixed(1)}% of full)`);
process.exit(c < 0.05 * f ? 0 : 1);
