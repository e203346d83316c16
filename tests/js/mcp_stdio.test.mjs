// Drives `bioagent mcp` over stdio with the official MCP TypeScript SDK client:
// version negotiation, paginated tools/list, tools/call for each tool, tool
// errors as isError results, protocol errors as thrown McpErrors.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { execFileSync, spawn } from 'node:child_process';
import readline from 'node:readline';
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

let bundleDir;
let replay;

// The replay server stands in for the literature APIs (loopback only).
async function startReplay(scratch) {
  const routes = [
    { path: '/pm/esearch.fcgi', body: '<eSearchResult><Count>1</Count><IdList><Id>7</Id></IdList></eSearchResult>' },
    { path: '/pm/efetch.fcgi', body: '<PubmedArticleSet><PubmedArticle><MedlineCitation><PMID>7</PMID><Article><ArticleTitle>SPL genes of litchi</ArticleTitle><AuthorList><Author><LastName>Chen</LastName><ForeName>Wei</ForeName></Author></AuthorList></Article></MedlineCitation><PubmedData><ArticleIdList><ArticleId IdType="doi">10.1/SPL</ArticleId></ArticleIdList></PubmedData></PubmedArticle></PubmedArticleSet>' },
    { path: '/s2/graph/v1/paper/search', body: JSON.stringify({ data: [{ title: 'SPL Genes of Litchi', year: 2020, externalIds: { DOI: 'https://doi.org/10.1/spl' }, authors: [{ name: 'Wei Chen' }] }] }) },
    { path: '/ax/query', body: '<feed xmlns="http://www.w3.org/2005/Atom"></feed>' },
    { path: '/page.html', body: '<html><body><p>SBP box</p><script>x()</script></body></html>' },
  ];
  const file = path.join(scratch, 'routes.json');
  fs.writeFileSync(file, JSON.stringify(routes));
  const proc = spawn('/usr/bin/python3', [path.join(src, 'tests/helpers/replay_server.py'), file], { stdio: ['ignore', 'pipe', 'ignore'] });
  const line = await new Promise((resolve) => readline.createInterface({ input: proc.stdout }).once('line', resolve));
  return { proc, base: `http://127.0.0.1:${line.split(' ')[1]}` };
}

before(async () => {
  const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'bioagent-mcp-'));
  bundleDir = path.join(scratch, 'www');
  execFileSync(bin, ['data', 'example-bundle', bundleDir]);
  replay = await startReplay(scratch);
  const env = {
    ...process.env,
    BIOAGENT_ALLOW_PRIVATE_URLS: '1',
    BIOAGENT_CACHE_DIR: path.join(scratch, 'cache'),
    BIOAGENT_BASE_URL_PUBMED: `${replay.base}/pm`,
    BIOAGENT_BASE_URL_SEMANTIC_SCHOLAR: `${replay.base}/s2`,
    BIOAGENT_BASE_URL_ARXIV: `${replay.base}/ax`,
  };
  const args = ['--root', src, '--bundle', bundleDir];
  if (fs.existsSync(fixtures)) args.push('--root', fixtures);
  args.push('mcp', '--page-size', '1');  // one tool per page: pagination is exercised
  transport = new StdioClientTransport({ command: bin, args, cwd: src, stderr: 'inherit', env });
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
  replay.proc.kill();
  fs.rmSync(path.dirname(bundleDir), { recursive: true, force: true });
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

// The sixteen data tools of seed 000, each called over MCP on the example bundle.
const call = async (name, args = {}) => {
  const r = await client.callTool({ name, arguments: args });
  assert.equal(r.isError, false, `${name}: ${r.content?.[0]?.text}`);
  return r.structuredContent;
};

test('data tools answer over MCP with the seed\'s shapes', async () => {
  const { tools } = await allTools();
  const names = new Set(tools.map((t) => t.name));
  const sixteen = ['get_raw_excel_data', 'get_processed_tf_data', 'filter_data_by_column_keywords',
    'get_tf_wave_search_data', 'get_tf_correlation_data', 'get_tf_correlation_image_path',
    'list_all_tfs_in_correlation_data', 'get_tf_community_sheet_data', 'get_static_image_path',
    'get_ui_descriptive_text', 'list_available_tf_catalog_datasets', 'list_available_cell_state_bubble_plots',
    'list_available_wave_analysis_assets', 'get_internal_navigation_info', 'get_biorxiv_paper_url',
    'list_all_files_in_www_directory'];
  for (const n of sixteen) assert.ok(names.has(n), n);

  const raw = await call('get_raw_excel_data', { file_path: 'www/tablePagerank/TEXterm.xlsx' });
  assert.deepEqual(raw.data[0], ['TF', 'PageRank score', 'Rank', 'Specificity z-score']);
  assert.equal(raw.data.length, 49);
  const processed = await call('get_processed_tf_data', { dataset_identifier: 'TEXterm' });
  // Seed 000: transposed, the first row made the headers and removed (no leading label column).
  assert.equal(processed.data[0].length, 48);
  assert.deepEqual(processed.data[0], raw.data.slice(1).map((r) => r[0]), 'transposed');
  assert.deepEqual(processed.row_labels, raw.data[0].slice(1));
  const filtered = await call('filter_data_by_column_keywords', { dataset: processed.data, keywords: 'tox' });
  assert.deepEqual([...filtered.filtered_dataset[0]].sort(), ['TOX', 'TOX2'], 'columns keep the dataset order');
  const waves = await call('get_tf_wave_search_data', { tf_search_term: 'TCF7' });
  assert.deepEqual(Object.values(waves.wave_data).flat(), ['TCF7']);
  const cor = await call('get_tf_correlation_data', { tf_name: 'TOX' });
  assert.equal(cor.correlation_data[1][0], 'TOX');
  const img = await call('get_tf_correlation_image_path', { tf_name: 'TOX' });
  assert.equal(img.image_path, 'www/networkanalysis/images/TOX_graph.png');
  assert.ok(fs.existsSync(path.join(bundleDir, 'networkanalysis/images/TOX_graph.png')));
  assert.equal((await call('list_all_tfs_in_correlation_data')).tf_list.length, 48);
  assert.equal((await call('get_tf_community_sheet_data', { community_type: 'texterm' })).community_data[0][0], 'Community');
  assert.equal((await call('get_static_image_path', { image_identifier: 'home_page_diagram' })).image_path, 'www/images/homedesc.png');
  assert.match((await call('get_ui_descriptive_text', { text_identifier: 'cell_state_specificity_info' })).descriptive_text, /z-score/);
  assert.equal((await call('list_available_tf_catalog_datasets')).dataset_identifiers.length, 10);
  assert.equal((await call('list_available_cell_state_bubble_plots')).image_identifiers.length, 9);
  assert.equal((await call('list_available_wave_analysis_assets', { wave_number: 5 })).asset_info.main_image_id, 'wave5_main_img');
  assert.match((await call('get_internal_navigation_info', { link_id: 'to_tfnet' })).navigation_target_description, /Network/);
  assert.match((await call('get_biorxiv_paper_url')).url, /^https:\/\/www\.biorxiv\.org\//);
  const files = (await call('list_all_files_in_www_directory')).file_manifest;
  assert.ok(files.some((f) => f.path === 'www/tablePagerank/Naive.xlsx' && f.size > 0));
  assert.ok(files.every((f) => f.path.startsWith('www/') && f.type.length > 0));
});

test('data tools keep the seed\'s empty shapes and say why', async () => {
  const bad = await call('get_processed_tf_data', { dataset_identifier: 'Memory' });
  assert.deepEqual(bad.data, []);
  assert.match(bad.message, /valid identifiers/);
  const wave = await call('list_available_wave_analysis_assets', { wave_number: 0 });
  assert.deepEqual(wave.asset_info, {});
  const escape = await client.callTool({ name: 'get_raw_excel_data', arguments: { file_path: '../../../../etc/passwd' } });
  assert.equal(escape.isError, true);
});

test('literature tools over MCP: multi-source search de-duplicates, fetch_text reads a page', async () => {
  const papers = await client.callTool({
    name: 'multi_source_literature_search',
    arguments: { queries: ['SPL litchi'], max_results_per_query_per_source: 2 },
  });
  assert.equal(papers.isError, false, papers.content?.[0]?.text);
  const list = papers.structuredContent.result;
  assert.equal(list.length, 1, 'PubMed and Semantic Scholar found the same paper (DOI case and prefix differ)');
  assert.equal(list[0].source_api, 'Semantic Scholar');
  assert.equal(list[0].year, 2020);
  const text = await client.callTool({
    name: 'fetch_text_from_urls',
    arguments: { paper_info_list: [{ url: `${replay.base}/page.html` }] },
  });
  assert.equal(text.structuredContent.result[0].retrieved_text_content, 'SBP box');
  const handler = await client.callTool({ name: 'search_literature', arguments: { query: 'SPL', sources: ['pubmed', 'arxiv'] } });
  assert.equal(handler.structuredContent.total_found, 1);
  assert.deepEqual(handler.structuredContent.errors, []);
});
