// The web UI in a real browser (issue 10): playwright-core drives Debian's
// Chromium (headless, fresh profile, no background networking) against a real
// `bioagent serve`. Upload the generated genome (one file misnamed: the rule
// shows), ask the seed's four questions, let the parameter dialog count down,
// watch the stages finish across a network drop, open and download the report;
// the token prompt and the English interface too. Screenshots go to
// $BIOAGENT_ARTIFACTS.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { spawn, execFileSync } from 'node:child_process';
import { launchChromium } from './browser.mjs';
import { englishSentences } from './english_scan.mjs';

const bin = process.env.BIOAGENT_BIN;
const src = process.env.BIOAGENT_SOURCE_DIR;
const artifacts = process.env.BIOAGENT_ARTIFACTS || fs.mkdtempSync(path.join(os.tmpdir(), 'bioagent-ui-shots-'));
assert.ok(bin && src, 'BIOAGENT_BIN and BIOAGENT_SOURCE_DIR must be set (ctest sets them)');
fs.mkdirSync(artifacts, { recursive: true });
const webDir = path.join(src, 'web', 'dist');
const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'bioagent-ui-'));
const servers = [];
let browser;

// Starts `bioagent serve` (state folder `n`); port 0 picks a free port.
function serve(extra = [], n = servers.length, port = 0) {
  const portFile = path.join(scratch, `port-${n}-${servers.length}`);
  const proc = spawn(bin, ['--offline', 'serve', '--port', String(port), '--port-file', portFile, '--web-dir', webDir,
    '--state-dir', path.join(scratch, `state-${n}`), '--confirm-timeout', '6', '--cpus', '2',
    '--pipeline-params', '{"phylogeny": {"method": "fasttree"}}', ...extra], { stdio: ['ignore', 'ignore', 'inherit'] });
  servers.push(proc);
  return (async () => {
    for (let i = 0; i < 300 && !(fs.existsSync(portFile) && fs.readFileSync(portFile, 'utf8').trim()); i++)
      await new Promise((r) => setTimeout(r, 100));
    return `http://127.0.0.1:${fs.readFileSync(portFile, 'utf8').trim()}`;
  })();
}

// The generated genome: Lchi with the real SBP HMM when the fixture exists.
const sbp = path.join(src, '..', 'shared', 'fixtures', 'genefamily', 'hmm', 'PF03110_SBP.hmm');
const family = fs.existsSync(sbp) ? 'SPL' : 'GLOBIN';
const genome = path.join(scratch, 'Lchi');

before(async () => {
  assert.ok(fs.existsSync(path.join(webDir, 'index.html')), 'web/dist is built (scripts/build.sh)');
  if (family !== 'SPL') console.log(`# ${sbp} absent: the questions use the generated GLOBIN family`);
  execFileSync(bin, ['genefamily', 'example', genome, '--prefix', 'Lchi', '--family', family,
    ...(family === 'SPL' ? ['--hmm', sbp] : [])]);
  fs.renameSync(path.join(genome, 'Lchi.genome.fasta'), path.join(genome, 'Lchi.genome.fa'));
  // An annotation named as labs name them: its fix takes the species code it starts with, never a later word.
  fs.renameSync(path.join(genome, 'Lchi.gff3'), path.join(genome, 'Lchi_annotation.gff'));
  browser = await launchChromium();
});

after(async () => {
  await browser?.close();
  for (const s of servers) s.kill('SIGTERM');
});

async function ask(page, question, expect, timeout = 30000) {
  const before = await page.locator('.msg.assistant').count();
  await page.fill('#question', question);
  await page.press('#question', 'Enter');
  const msg = page.locator('.msg.assistant').nth(before);
  await msg.waitFor();
  await page.waitForFunction(
    ([i, re]) => {
      const m = document.querySelectorAll('.msg.assistant')[i];
      return m && !m.hasAttribute('aria-busy') && new RegExp(re).test(m.textContent);
    },
    [before, expect.source],
    { timeout },
  );
  return msg;
}

// The page's texts as a reader meets them: the visible text (document.body.innerText: open dialogs included, hidden
// ones not) and the title, aria-label, placeholder and alt attributes. A publication's title in a citation list
// (.sources li) is data and stays in its own language.
function pageTexts() {
  const hide = document.createElement('style');
  hide.textContent = '.sources li { display: none !important; }';
  document.head.append(hide);
  const texts = [document.title, document.body.innerText];
  hide.remove();
  for (const e of document.querySelectorAll('[title], [aria-label], [placeholder], [alt]'))
    if (!e.closest('.sources li'))
      for (const a of ['title', 'aria-label', 'placeholder', 'alt']) if (e.hasAttribute(a)) texts.push(e.getAttribute(a));
  return texts;
}

// Every English sentence on the page now, as "<when>: sentence" (the shared detector, english_scan.mjs).
async function englishOnPage(page, when) {
  const texts = await page.evaluate(pageTexts);
  return [...new Set(texts.flatMap((t) => englishSentences(t)))].map((e) => `${when}: "${e}"`);
}

test('the three panels, uploads, the four questions, the dialog countdown, the report', async () => {
  const base = await serve();
  const context = await browser.newContext({ locale: 'zh-CN', acceptDownloads: true, viewport: { width: 1400, height: 900 } });
  const page = await context.newPage();
  const t0 = Date.now();
  await page.goto(base + '/');
  await page.waitForSelector('#naming-rules li');
  await page.waitForSelector('.msg.welcome');
  assert.ok(Date.now() - t0 < 5000, 'the page is usable within seconds');
  assert.match(await page.textContent('.msg.welcome'), /Exam \(GLOBIN\)/, 'the shared example data is offered');
  assert.equal(await page.textContent('#title'), 'BBAV20311 - Agent 助手', 'Chinese from the browser language');
  for (const id of ['#left', '#center', '#right']) assert.ok(await page.isVisible(id), `${id} visible`);
  assert.match(await page.textContent('#naming-rules'), /Lchi\.genome\.fasta/);

  // Uploads: the misnamed genome shows its rule and the fix.
  const files = fs.readdirSync(genome).filter((f) => f !== 'truth.json').map((f) => path.join(genome, f));
  await page.setInputFiles('#file-input', files);
  await page.waitForFunction((n) => document.querySelectorAll('#upload-list li.naming-ok, #upload-list li.naming-bad').length === n, files.length);
  const bad = page.locator('#upload-list li.naming-bad');
  assert.equal(await bad.count(), 2);
  const badText = (await bad.allTextContents()).join('\n');
  assert.match(badText, /Lchi\.genome\.fa.*genome\\.fasta.*Lchi\.genome\.fasta/s);
  assert.match(badText, /Lchi_annotation\.gff.*Lchi\.gff3/s, 'the misnamed annotation is to be read as Lchi.gff3');
  assert.doesNotMatch(badText, /Lann\.gff3/, 'never a prefix from another word of the name');
  await page.screenshot({ path: path.join(artifacts, 'ui_uploads.png') });
  const english = await englishOnPage(page, 'uploads');  // a Chinese page holds no English sentence

  // The seed's four exchanges.
  const m1 = await ask(page, `总结下${family}基因家族`, family === 'SPL' ? /PF03110/ : /GLOBIN/);
  if (family === 'SPL') assert.ok(await m1.locator('.sources li').count() >= 1, 'citations listed');
  await ask(page, `荔枝的${family}基因家族是否有发表过相关的文章`, /不能据此判断/);  // offline: no gap claimed
  const plan = await ask(page, `如果我想开展荔枝的${family}基因家族研究，可以吗？`, /analysis_plan/);
  assert.match(await plan.textContent(), /等待用户确认执行/);
  assert.doesNotMatch(await plan.textContent(), /跳过：[^）]*(gff3|genome)/i, 'the renamed annotation and genome are read');
  assert.ok(await plan.locator('button.plan-execute').isVisible(), 'execute / modify / cancel buttons');
  await page.screenshot({ path: path.join(artifacts, 'ui_plan.png') });
  english.push(...(await englishOnPage(page, 'plan')));
  await ask(page, '执行分析', /已开始执行/);

  // The dialog appears with a countdown and confirms the defaults at zero.
  await page.waitForSelector('#confirm-dialog:not([hidden])', { timeout: 30000 });
  assert.equal(await page.inputValue('#p-family'), family);
  assert.equal(await page.getAttribute('.dialog', 'role'), 'dialog');
  const start = Number(await page.textContent('#p-countdown'));
  assert.ok(start > 0 && start <= 6, `countdown starts at ${start}`);
  assert.equal(await page.evaluate(() => document.activeElement.id), 'p-confirm', 'focus moves into the dialog');
  await page.screenshot({ path: path.join(artifacts, 'ui_dialog.png') });
  english.push(...(await englishOnPage(page, 'parameter dialog')));
  await page.waitForTimeout(1500);
  assert.ok(Number(await page.textContent('#p-countdown')) < start, 'the countdown runs');
  await page.waitForSelector('#confirm-dialog', { state: 'hidden', timeout: 15000 });

  // The connection drops while the stages run (the server is killed and
  // restarted on the same port): the page reconnects its event stream from
  // the last event and the resumed task finishes.
  await page.waitForSelector('#stages li[data-stage]', { timeout: 30000 });
  const first = servers[servers.length - 1];
  first.kill('SIGKILL');
  await new Promise((r) => first.once('exit', r));
  await serve([], 0, Number(new URL(base).port));
  await page.waitForSelector('#task-state[data-state="done"]', { timeout: 300000 });
  assert.ok(Number(await page.getAttribute('body', 'data-reconnects')) >= 1, 'the event stream was cut and reconnected');
  // Every stage ran (done, cached, or warn when a check such as median support fell short) or was
  // skipped with its reason shown beside it (no expression matrix, no orthologs).
  const states = await page.$$eval('#stages li', (lis) =>
    lis.map((li) => ({ state: li.dataset.state, reason: li.querySelector('.stage-reason')?.textContent || '' })));
  const complete = (s) => ['done', 'cached', 'warn'].includes(s.state) || (s.state === 'skipped' && s.reason.length > 0);
  assert.ok(states.length >= 10 && states.every(complete), `stages: ${JSON.stringify(states)}`);
  assert.match(await page.textContent('#right'), /naming_mismatch/, 'the diagnosis of Lchi.genome.fa is shown');
  // A Chinese session: Chinese stage names and states, and the run's outcome posted in the chat.
  assert.match(await page.textContent('#stages li[data-stage="identify"] .stage-name'), /基因家族鉴定/);
  assert.match(await page.textContent('#stages li[data-stage="identify"] .stage-state'), /完成/);
  assert.match(await page.textContent('#task-state'), /^完成/);
  await page.waitForSelector('.msg.outcome');
  assert.match(await page.textContent('.msg.outcome'), /个家族成员/);
  assert.ok(await page.locator('.msg.outcome a.outcome-report').count() >= 1, 'the outcome links the report');
  await page.waitForSelector('#figures img');
  await page.waitForSelector('a.open-report');
  // Under each figure the report's numbered caption in the run's language (from the server), not a file name.
  const captions = await page.$$eval('#figures figure', (figs) =>
    figs.map((f) => ({ file: f.dataset.file, caption: f.querySelector('figcaption').textContent })));
  const rootedTree = captions.find((c) => c.file.endsWith('.tree_rooted.svg'));
  assert.ok(rootedTree && /^图\d+ \S/.test(rootedTree.caption), `the rooted tree's caption: ${JSON.stringify(rootedTree)}`);
  const numbered = captions.filter((c) => /^图\d+ /.test(c.caption));
  assert.ok(numbered.length >= 5, `numbered Chinese captions: ${JSON.stringify(captions)}`);
  for (const c of numbered) assert.ok(!c.caption.includes(c.file), `a caption, not the file name: ${c.caption}`);
  await page.screenshot({ path: path.join(artifacts, 'ui_results.png'), fullPage: true });
  english.push(...(await englishOnPage(page, 'results')));

  // Zoom a figure, then close it with Escape.
  await page.click('#figures img');
  await page.waitForSelector('#zoom:not([hidden])');
  await page.click('#zoom-in');
  english.push(...(await englishOnPage(page, 'zoomed figure')));
  await page.keyboard.press('Escape');
  await page.waitForSelector('#zoom', { state: 'hidden' });

  // Open the report and download it.
  const [report] = await Promise.all([context.waitForEvent('page'), page.click('a.open-report')]);
  await report.waitForLoadState();
  assert.match(await report.title(), new RegExp(family));
  await report.screenshot({ path: path.join(artifacts, 'ui_report.png') });
  const [download] = await Promise.all([
    page.waitForEvent('download'),
    page.click('a.download[download$=".report.html"]'),
  ]);
  const saved = path.join(scratch, 'report.html');
  await download.saveAs(saved);
  assert.match(fs.readFileSync(saved, 'utf8').slice(0, 2000), /<html/i);
  // status.json, validation.json and the stage logs are downloadable too.
  for (const name of ['status.json', 'validation.json', 'logs/identify.log'])
    assert.ok(await page.locator(`a.download[href*="/files/${name}?"]`).count() === 1, `${name} offered`);

  // A reload restores the session: the chat, the uploaded files, the task with its stages and results.
  const messages = await page.locator('#messages .msg').count();
  // identify is done, or cached when the server was killed after it finished and the resumed run reused it.
  const identifyState = await page.getAttribute('#stages li[data-stage="identify"]', 'data-state');
  assert.ok(["done", "cached"].includes(identifyState), `identify ${identifyState}`);
  await page.reload();
  await page.waitForSelector('body[data-restored="true"]', { timeout: 30000 });
  assert.ok((await page.locator('#messages .msg').count()) >= messages - 1, 'the chat is back (all but the welcome)');
  assert.ok((await page.locator('#upload-list li').count()) >= 1, 'the uploads are back');
  await page.waitForSelector(`#stages li[data-stage="identify"][data-state="${identifyState}"]`, { timeout: 30000 });
  await page.waitForSelector('#figures img', { timeout: 30000 });
  await page.screenshot({ path: path.join(artifacts, 'ui_reloaded.png'), fullPage: true });
  english.push(...(await englishOnPage(page, 'reloaded')));
  const found = [...new Set(english)];
  assert.deepEqual(found, [], `${found.length} English texts on the Chinese page:\n${found.join('\n')}`);
  await context.close();
});

test('English interface, API errors as messages, and the token prompt', async () => {
  const base = await serve(['--token', 'ui-secret'], 1);
  const context = await browser.newContext({ locale: 'en-US' });
  const page = await context.newPage();
  await page.goto(base + '/');
  await page.waitForSelector('#token-box:not([hidden])');
  assert.equal(await page.textContent('#title'), 'BBAV20311 - Agent Assistant');
  await page.fill('#token-input', 'ui-secret');
  await page.click('#token-box button');
  await page.waitForSelector('#naming-rules li');
  await page.waitForSelector('.msg.welcome');
  await ask(page, 'Summarise the WRKY gene family', /PF03106/);
  // A server-side refusal is shown as a readable message (a question over the 20,000-byte limit).
  await page.fill('#question', 'x'.repeat(20001));
  await page.press('#question', 'Enter');
  await page.waitForSelector('#errors p');
  assert.match(await page.textContent('#errors'), /longer than 20000 bytes/);
  await page.click('#lang-toggle');
  assert.equal(await page.textContent('#send'), '发送', 'switches to Chinese');
  await page.screenshot({ path: path.join(artifacts, 'ui_token.png') });
  await context.close();
});

// The CPU budget is the server's: a run confirmed while another holds the CPUs waits in the state
// `queued`, and the stage panel and the status line show its place in the queue.
test('a run waiting for the CPUs shows its queue position', async () => {
  const base = await serve([], 2);
  const post = async (p, body) => {
    const r = await fetch(base + p, {
      method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(body),
    });
    return { status: r.status, body: await r.json() };
  };
  const state = async (sid, task) =>
    (await (await fetch(`${base}/api/agent/status/${task}?session_id=${sid}`)).json()).state;
  const start = async (sid) => {
    const plan = await post('/api/agent/plan', { session_id: sid, species: 'Exam', gene_family: 'GLOBIN', language: 'en' });
    assert.equal(plan.status, 200, JSON.stringify(plan.body));
    const run = await post('/api/agent/execute', { session_id: sid, plan_id: plan.body.plan_id, auto_confirm: true });
    assert.equal(run.status, 202, JSON.stringify(run.body));
    return run.body.task_id;
  };
  const other = (await post('/api/sessions', {})).body.session_id;
  const blocker = await start(other);
  const context = await browser.newContext({ locale: 'en-US' });
  const page = await context.newPage();
  await page.goto(base + '/');
  await page.waitForSelector('.msg.welcome');
  const sid = await page.evaluate(() => localStorage.getItem('bioagent.session'));
  const waiting = await start(sid);
  let seen = '';
  for (let i = 0; i < 100 && seen !== 'queued'; i++) {
    seen = await state(sid, waiting);
    if (seen !== 'queued') await new Promise((r) => setTimeout(r, 100));
  }
  assert.equal(seen, 'queued', `the second run waits for the CPUs (the first is ${await state(other, blocker)})`);
  await page.reload();  // the restored session follows its task
  await page.waitForSelector('#task-state[data-state="queued"]', { timeout: 30000 });
  assert.match(await page.textContent('#task-state'), /position 1 in the queue/);
  assert.match(await page.textContent('#status'), /waiting for CPUs: position 1/);
  await page.screenshot({ path: path.join(artifacts, 'ui_queued.png') });
  await post('/api/agent/confirm', { session_id: sid, task_id: waiting, action: 'cancel' });
  await post('/api/agent/confirm', { session_id: other, task_id: blocker, action: 'cancel' });
  await page.waitForSelector('#task-state[data-state="cancelled"]', { timeout: 30000 });
  await context.close();
});

// Server-side data roots (serve --root): the species folders are listed by root name with their
// files, and "Use" picks one for the session.
test('the data roots list and the folder choice', async () => {
  const root = path.join(scratch, 'genomes');
  fs.mkdirSync(path.join(root, 'plants'), { recursive: true });
  fs.cpSync(genome, path.join(root, 'plants', 'Lchi'), { recursive: true });
  const base = await serve(['--root', root], 3);
  const context = await browser.newContext({ locale: 'en-US' });
  const page = await context.newPage();
  await page.goto(base + '/');
  await page.waitForSelector('#data-roots li.data-folder');
  const text = await page.textContent('#data-roots');
  assert.match(text, /genomes:plants\/Lchi/);
  assert.match(text, /Lchi\.genome\.fa · [0-9.]+ (KB|MB) \(read as Lchi\.genome\.fasta\)/);
  assert.ok(!text.includes(scratch), 'no server path on the page');
  await page.click('#data-roots .use-folder');
  await page.waitForFunction(() => document.querySelector('#data-roots .use-folder')?.textContent === 'in use');
  await page.screenshot({ path: path.join(artifacts, 'ui_data_roots.png') });
  await context.close();
});

// The run's inputs through the page: an expression matrix (made here from the uploaded annotation's gene
// ids) and a comparative species (the shared example) chosen in the parameter dialog after "修改参数",
// which stops the countdown and lets the E-value be edited; the run uses all three. The server runs only
// synteny and expression (with what they need) to keep the test short.
test('the dialog gives a run its expression matrix, a comparative species and an edited E-value', async () => {
  const base = await serve(['--stages', 'synteny,expression'], 4);
  const context = await browser.newContext({ locale: 'zh-CN', viewport: { width: 1400, height: 900 } });
  const page = await context.newPage();
  await page.goto(base + '/');
  await page.waitForSelector('.msg.welcome');
  // genes x samples from the annotation's own gene ids; values not whole numbers (read as TPM).
  const genes = [...fs.readFileSync(path.join(genome, 'Lchi_annotation.gff'), 'utf8').matchAll(/\tgene\t[^\n]*ID=([^;\n]+)/g)].map((m) => m[1]);
  assert.ok(genes.length >= 10, `gene ids in the annotation: ${genes.length}`);
  const samples = ['root', 'leaf', 'flower', 'fruit'];
  const rows = genes.map((g, i) => [g, ...samples.map((_, j) => (((i * 7 + j * 13) % 29) + 0.5 + j * i * 0.01).toFixed(2))].join('\t'));
  const matrix = path.join(scratch, 'my_tpm.tsv');
  fs.writeFileSync(matrix, ['gene\t' + samples.join('\t'), ...rows].join('\n') + '\n');
  const files = fs.readdirSync(genome).filter((f) => f !== 'truth.json').map((f) => path.join(genome, f));
  await page.setInputFiles('#file-input', [...files, matrix]);
  await page.waitForFunction((n) => document.querySelectorAll('#upload-list li.naming-ok, #upload-list li.naming-bad, #upload-list li.naming-input').length === n, files.length + 1);
  // The matrix breaks no naming rule: the page says where it is used.
  assert.match(await page.textContent('#upload-list li.naming-input'), /my_tpm\.tsv.*参数对话框中选作表达矩阵/s);

  await ask(page, `如果我想开展荔枝的${family}基因家族研究，可以吗？`, /analysis_plan/);
  await page.click('.msg.assistant:last-of-type button.plan-execute');
  await page.waitForSelector('#confirm-dialog:not([hidden])', { timeout: 30000 });
  // The uploads and the species the server has are offered; nothing is editable before "修改参数".
  assert.deepEqual(await page.$$eval('#p-matrix option', (os) => os.map((o) => o.value)), ['', 'my_tpm.tsv']);
  const offered = await page.$$eval('#p-comparative_species option', (os) => os.map((o) => o.value));
  assert.ok(offered.includes('Exam') && !offered.includes('Lchi'), `comparative species offered: ${offered}`);
  assert.ok(await page.isDisabled('#p-matrix') && (await page.getAttribute('#p-evalue', 'readonly')) !== null);
  assert.equal((await page.textContent('#p-modify')).trim(), '修改参数');
  await page.click('#p-modify');
  assert.equal(await page.textContent('#p-countdown'), '–', 'the countdown stops');
  await page.fill('#p-evalue', '1e-8');
  await page.selectOption('#p-matrix', 'my_tpm.tsv');
  await page.selectOption('#p-comparative_species', ['Exam']);
  const english = await englishOnPage(page, 'dialog being edited');
  assert.deepEqual(english, [], `English on the Chinese dialog:\n${english.join('\n')}`);
  await page.screenshot({ path: path.join(artifacts, 'ui_dialog_inputs.png') });
  // Past the server's 6 s confirmation timeout: nothing ran with the defaults meanwhile.
  await page.waitForTimeout(7000);
  assert.ok(await page.isVisible('#confirm-dialog'), 'the dialog waits for the edited values');
  const task = await page.getAttribute('#task-state', 'data-task');
  const sid = await page.evaluate(() => localStorage.getItem('bioagent.session'));
  const status = async () => (await fetch(`${base}/api/agent/status/${task}?session_id=${sid}`)).json();
  assert.equal((await status()).state, 'awaiting_confirmation');
  await page.click('#p-confirm');
  await page.waitForSelector('#confirm-dialog', { state: 'hidden' });

  await page.waitForSelector('#task-state[data-state="done"], #task-state[data-state="failed"]', { timeout: 300000 });
  const st = await status();
  assert.equal(st.state, 'done', `the run: ${JSON.stringify(st).slice(0, 2000)}`);
  assert.equal(st.run_params.stages.identify.evalue, 1e-8, 'the edited E-value is the run\'s');
  assert.deepEqual(st.run_params.stages.synteny.comparative_species, ['Exam']);
  assert.equal(st.run_params.stages.expression.matrix, 'my_tpm.tsv');
  await page.waitForSelector('#figures figure[data-file$=".expression_heatmap.svg"]', { timeout: 30000 });
  await page.waitForSelector('#figures figure[data-file*="dual_synteny_Exam"]', { timeout: 30000 });
  // The figures hold what was given: the members' rows of the matrix, the comparative species' chromosomes.
  const svgOf = async (sel) => (await fetch(new URL(await page.getAttribute(`${sel} img`, 'src'), base))).text();
  const heatmap = await svgOf('#figures figure[data-file$=".expression_heatmap.svg"]');
  assert.match(heatmap, new RegExp(`Lchi${family}\\d+`), 'the heatmap has the members as rows');
  for (const sample of samples) assert.ok(heatmap.includes(sample), `the heatmap has the sample ${sample}`);
  assert.match(await svgOf('#figures figure[data-file*="dual_synteny_Exam"]'), /Exam/);
  await page.screenshot({ path: path.join(artifacts, 'ui_inputs_results.png'), fullPage: true });
  await context.close();
});

// A wrong species prefix: the litchi annotation uploaded as Dlon.gff3 (another species' code). Once the plan
// fixes the session's species, the upload list says the file is named for another species, the plan's skipped
// stages name it with the fix, nothing is renamed, and the run's skipped stage gives the same reason.
test('a file named for another species is told, never renamed, and the skips say why', async () => {
  const base = await serve(['--stages', 'chromosome'], 5);
  const context = await browser.newContext({ locale: 'zh-CN', viewport: { width: 1400, height: 900 } });
  const page = await context.newPage();
  await page.goto(base + '/');
  await page.waitForSelector('.msg.welcome');
  const upload = fs.mkdtempSync(path.join(scratch, 'wrong-prefix-'));
  for (const f of fs.readdirSync(genome).filter((f) => f !== 'truth.json'))
    fs.copyFileSync(path.join(genome, f), path.join(upload, f === 'Lchi_annotation.gff' ? 'Dlon.gff3' : f));
  const files = fs.readdirSync(upload).map((f) => path.join(upload, f));
  await page.setInputFiles('#file-input', files);
  await page.waitForFunction((n) => document.querySelectorAll('#upload-list li[class*="naming-"]').length === n, files.length);

  const plan = await ask(page, `如果我想开展荔枝的${family}基因家族研究，可以吗？`, /analysis_plan/);
  const planText = await plan.textContent();
  assert.match(planText, /gff3_other_prefix: Dlon\.gff3/, 'the plan names the file under the other prefix');
  assert.match(planText, /chromosome: 染色体定位（跳过：缺少 gff3 文件 Lchi\.gff3；数据文件夹中有 Dlon\.gff3/);
  const other = page.locator('#upload-list li.naming-other');
  await other.waitFor();
  assert.equal(await other.count(), 1);
  assert.match(await other.textContent(), /Dlon\.gff3.*Dlon.*Lchi.*Lchi\.gff3/s, 'the upload is told: another species, the fix');
  const english = await englishOnPage(page, 'wrong prefix');
  assert.deepEqual(english, [], `English on the Chinese page:\n${english.join('\n')}`);
  await page.screenshot({ path: path.join(artifacts, 'ui_wrong_prefix.png') });

  await page.click('.msg.assistant:last-of-type button.plan-execute');
  await page.waitForSelector('#confirm-dialog:not([hidden])', { timeout: 30000 });
  await page.click('#p-confirm');
  await page.waitForSelector('#task-state[data-state="done"], #task-state[data-state="failed"]', { timeout: 300000 });
  const task = await page.getAttribute('#task-state', 'data-task');
  const sid = await page.evaluate(() => localStorage.getItem('bioagent.session'));
  const st = await (await fetch(`${base}/api/agent/status/${task}?session_id=${sid}`)).json();
  assert.equal(st.stages.chromosome, 'skipped', `the chromosome stage: ${JSON.stringify(st.stages)}`);
  const reason = await page.textContent('#stages li[data-stage="chromosome"] .stage-reason');
  assert.match(reason, /Dlon\.gff3/, 'the run says which file it did not read and why');
  const state = await (await fetch(`${base}/api/sessions/${sid}/state`)).json();
  const names = state.files.map((f) => f.name);
  assert.ok(names.includes('Dlon.gff3') && !names.includes('Lchi.gff3'), `nothing renamed: ${names}`);
  await context.close();
});
